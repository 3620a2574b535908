import assert from "node:assert/strict";
import { SkillSchema } from "@modelcontextprotocol/core/ext/skills";
import { parse } from "yaml";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { addToTree, makeTree, skillMd } from "../../skills/_tree.ts";
import { connectInMemory } from "./_connect.ts";
import { sharedDigestCounts } from "../../../src/mcp/skills_extension/skills_extension.ts";

async function catalogOf(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

const RICH_FRONTMATTER = `name: rich-frontmatter
description: >
  Folded description
  over two lines.
license: Apache-2.0
version: 3
ratio: 0.75
negative: -12
big: 1e3
enabled: true
disabled: false
nothing: null
notes: |
  Line one
    indented line two
keep: |+
  kept

strip: >-
  stripped
  text
quoted: "123"
date-like: 2024-01-15
octal-looking: 0o17
list:
  - a
  - 2
  - false
metadata:
  author: someone
details:
  nested:
    level: 2
    tags: [x, y]
    flag: true
`;

Deno.test("skills/get carries numbers, booleans, block scalars and nested maps faithfully", async () => {
  await using tree = await makeTree({
    "rich-frontmatter/SKILL.md": `---\n${RICH_FRONTMATTER}---\nBody\n`,
  });
  await using session = await connectInMemory(createCatalogStore(await catalogOf(tree.path)));
  const answer = await session.request("skills/get", {
    uri: "skill://rich-frontmatter/SKILL.md",
  });
  const entry = SkillSchema.parse(answer.skill);
  const frontmatter = entry.frontmatter as Record<string, unknown>;
  const expected: Record<string, unknown> = {
    name: "rich-frontmatter",
    description: "Folded description over two lines.\n",
    license: "Apache-2.0",
    version: 3,
    ratio: 0.75,
    negative: -12,
    big: 1000,
    enabled: true,
    disabled: false,
    nothing: null,
    notes: "Line one\n  indented line two\n",
    keep: "kept\n\n",
    strip: "stripped text",
    quoted: "123",
    "date-like": "2024-01-15",
    "octal-looking": 15,
    list: ["a", 2, false],
    metadata: { author: "someone" },
    details: { nested: { level: 2, tags: ["x", "y"], flag: true } },
  };
  const fromFile = parse(RICH_FRONTMATTER, { version: "1.2", schema: "core" }) as Record<
    string,
    unknown
  >;
  assert.deepEqual(Object.keys(frontmatter), Object.keys(expected), "every field, in file order");
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(frontmatter[key], value, `field "${key}" as written`);
    assert.deepEqual(frontmatter[key], fromFile[key], `field "${key}" as a YAML reader parses it`);
  }
});

Deno.test("skills/list continues after its cursor when the catalog changes between pages", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 120; i++) {
    const name = `skill-${String(i).padStart(3, "0")}`;
    entries[`${name}/SKILL.md`] = skillMd(name);
  }
  await using tree = await makeTree(entries);
  const store = createCatalogStore(await catalogOf(tree.path));
  await using session = await connectInMemory(store);
  const first = await session.request("skills/list");
  const firstUris = (first.skills as { uri: string }[]).map((entry) => entry.uri);
  assert.equal(firstUris.length, 50);
  assert.equal(firstUris.at(-1), "skill://skill-049/SKILL.md");
  assert.equal(typeof first.nextCursor, "string");

  // Between pages: one skill before the cursor goes, one before and one after it arrive.
  await Deno.remove(tree.at("skill-010"), { recursive: true });
  await addToTree(tree.path, {
    "skill-0105/SKILL.md": skillMd("skill-0105"),
    "skill-0505/SKILL.md": skillMd("skill-0505"),
  });
  store.swap(await catalogOf(tree.path));

  const seen = [...firstUris];
  let cursor = first.nextCursor as string | undefined;
  while (cursor !== undefined) {
    const page = await session.request("skills/list", { cursor });
    seen.push(...(page.skills as { uri: string }[]).map((entry) => entry.uri));
    cursor = page.nextCursor as string | undefined;
  }
  assert.equal(new Set(seen).size, seen.length, "no skill repeats");
  assert.ok(seen.includes("skill://skill-0505/SKILL.md"), "a skill added after the cursor shows");
  assert.ok(!seen.includes("skill://skill-0105/SKILL.md"), "one added before the cursor waits");
  const expectedAfter = [];
  for (let i = 50; i < 120; i++) {
    expectedAfter.push(`skill://skill-${String(i).padStart(3, "0")}/SKILL.md`);
  }
  expectedAfter.push("skill://skill-0505/SKILL.md");
  assert.deepEqual(seen.slice(50), expectedAfter.sort(), "nothing after the cursor is skipped");
});

Deno.test("the extension leaves out a mismatched name, over 512 files or over 16 MiB, and tools keep them", async () => {
  const many: Record<string, string> = { "many-files/SKILL.md": skillMd("many-files") };
  for (let i = 0; i < 512; i++) many[`many-files/refs/f${i}.md`] = "x";
  await using tree = await makeTree({
    ...many,
    "folder-name/SKILL.md": skillMd("other-name"),
    "huge/SKILL.md": skillMd("huge"),
    "fine/SKILL.md": skillMd("fine"),
  });
  const big = await Deno.open(tree.at("huge/big.bin"), { write: true, create: true });
  await big.truncate(16 * 1024 * 1024 + 1);
  big.close();
  const catalog = await catalogOf(tree.path);
  await using session = await connectInMemory(createCatalogStore(catalog));
  const listed = (await session.request("skills/list")).skills as { uri: string }[];
  assert.deepEqual(listed.map((entry) => entry.uri), ["skill://fine/SKILL.md"]);
  const ruleOf: Record<string, string> = {
    "folder-name": "name-matches-folder",
    "huge": "max-bytes",
    "many-files": "max-files",
  };
  for (const name of ["folder-name", "huge", "many-files"]) {
    const uri = `skill://${name}/SKILL.md`;
    // Review s15 L6: it said "No skill is served" of a skill the tools and resources serve.
    await assert.rejects(
      session.request("skills/get", { uri }),
      (error: unknown) => {
        const { code, message } = error as { code?: number; message?: string };
        return code === -32602 &&
          (message ?? "").includes(
            `Skill "${name}" is served, but not through the MCP skills extension`,
          ) &&
          (message ?? "").includes(`(rule "${ruleOf[name]}"`) &&
          (message ?? "").includes(`Read it with resources/read at "${uri}"`) &&
          (message ?? "").includes("skill_load and skill_file tools") &&
          !(message ?? "").includes(tree.path);
      },
    );
    const read = await session.client.readResource({ uri });
    assert.equal(
      read.contents.length,
      1,
      `${name}: resources/read serves what the error points at`,
    );
    const problem = catalog.problems.find((p) =>
      p.reason === "extension-excluded" && p.path === tree.at(name)
    );
    assert.ok(problem, `${name} is reported`);
    const load = await session.client.callTool({ name: "skill_load", arguments: { name } });
    assert.notEqual(load.isError, true, `${name} stays reachable through skill_load`);
  }
  await assert.rejects(
    session.request("skills/get", { uri: "skill://nowhere/SKILL.md" }),
    (error: unknown) =>
      (error as { message?: string }).message?.includes(
        'No skill is served at "skill://nowhere/SKILL.md"',
      ) === true,
  );
  const excluded = catalog.problems.filter((p) => p.reason === "extension-excluded");
  assert.match(excluded.map((p) => p.detail).join("\n"), /513 files and the extension allows 512/);
  assert.match(excluded.map((p) => p.detail).join("\n"), /16777216/);
  assert.match(
    excluded.map((p) => p.detail).join("\n"),
    /folder name "folder-name" is not its frontmatter name "other-name" \(rule "name-matches-folder"/,
  );
});

Deno.test("the extension leaves out a skill whose description, compatibility or metadata breaks the spec; tools keep it", async () => {
  const frontmatter = (name: string, extra: string) =>
    `---\nname: ${name}\ndescription: ${
      name === "long-description" ? "d".repeat(1068) : "Fine."
    }\n${extra}---\n# ${name}\n`;
  await using tree = await makeTree({
    "long-description/SKILL.md": frontmatter("long-description", ""),
    "long-compatibility/SKILL.md": frontmatter(
      "long-compatibility",
      `compatibility: ${"c".repeat(501)}\n`,
    ),
    "nested-metadata/SKILL.md": frontmatter("nested-metadata", "metadata:\n  tags: [a, b]\n"),
    "fine/SKILL.md": frontmatter(
      "fine",
      `compatibility: ${"c".repeat(500)}\nmetadata:\n  a: "1"\n`,
    ),
  });
  const catalog = await catalogOf(tree.path);
  await using session = await connectInMemory(createCatalogStore(catalog));
  const listed = (await session.request("skills/list")).skills as { uri: string }[];
  assert.deepEqual(listed.map((entry) => entry.uri), ["skill://fine/SKILL.md"]);
  const rules: Record<string, RegExp> = {
    "long-description": /description is 1068 characters .*1-1024 \(rule "description"/,
    "long-compatibility": /compatibility is 501 characters .*1-500 \(rule "compatibility"/,
    "nested-metadata": /metadata value "tags" is a list, not text \(rule "metadata"/,
  };
  for (const [name, rule] of Object.entries(rules)) {
    const problem = catalog.problems.find((p) =>
      p.reason === "extension-excluded" && p.path === tree.at(name)
    );
    assert.match(problem?.detail ?? "", rule);
    assert.ok(
      catalog.problems.some((p) => p.reason === "invalid-frontmatter" && p.severity === "warning"),
      "the validation warning stays",
    );
    const load = await session.client.callTool({ name: "skill_load", arguments: { name } });
    assert.notEqual(load.isError, true, `${name} stays reachable through skill_load`);
  }
});

Deno.test("resources/directory/read pages a large folder without skipping or repeating", async () => {
  const entries: Record<string, string> = { "wide/SKILL.md": skillMd("wide") };
  for (let i = 0; i < 450; i++) entries[`wide/data/item-${String(i).padStart(3, "0")}.txt`] = "x";
  entries["wide/data/sub/inner.txt"] = "y";
  await using tree = await makeTree(entries);
  await using session = await connectInMemory(createCatalogStore(await catalogOf(tree.path)));
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await session.request(
      "resources/directory/read",
      cursor === undefined ? { uri: "skill://wide/data" } : { uri: "skill://wide/data", cursor },
    );
    pages++;
    for (const child of page.resources as { name: string; mimeType: string }[]) {
      names.push(child.name);
      if (child.name === "sub") assert.equal(child.mimeType, "inode/directory");
      else assert.equal(child.mimeType, "text/plain");
    }
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined);
  assert.ok(pages > 1, "the folder spans pages");
  assert.equal(names.length, 451);
  assert.equal(new Set(names).size, 451);
  assert.ok(!names.includes("inner.txt"), "grandchildren are not listed");
});

Deno.test("skills/list hashes the next page while the client reads this one, and that page reads no file twice", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 120; i++) {
    const name = `ahead-${String(i).padStart(3, "0")}`;
    entries[`${name}/SKILL.md`] = skillMd(name);
    entries[`${name}/references/guide.md`] = `# Guide ${i}\n`;
  }
  await using tree = await makeTree(entries);
  // Past the racy window: a version changed within it is hashed again on each listing
  // (review r5), so the count below would also depend on timing.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const store = createCatalogStore(await catalogOf(tree.path));
  await using session = await connectInMemory(store);
  const before = sharedDigestCounts().hashed;
  const first = await session.request("skills/list");
  assert.equal((first.skills as unknown[]).length, 50);
  // Page 1's 100 files are hashed for the answer; page 2's 100 follow without a request.
  for (let turn = 0; turn < 10_000 && sharedDigestCounts().hashed - before < 200; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.equal(sharedDigestCounts().hashed - before, 200);
  const second = await session.request("skills/list", { cursor: first.nextCursor as string });
  const secondSkills = second.skills as { uri: string; resources: { digest: string }[] }[];
  assert.equal(secondSkills[0]?.uri, "skill://ahead-050/SKILL.md");
  assert.equal(secondSkills[0]?.resources.length, 2);
  // Page 2 came from the digests hashed ahead; page 3 (20 skills) is being hashed now.
  for (let turn = 0; turn < 10_000 && sharedDigestCounts().hashed - before < 240; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.equal(sharedDigestCounts().hashed - before, 240);
  const third = await session.request("skills/list", { cursor: second.nextCursor as string });
  assert.equal((third.skills as unknown[]).length, 20);
  assert.equal(third.nextCursor, undefined);
  assert.equal(sharedDigestCounts().hashed - before, 240, "the last page reads nothing again");
});

Deno.test("resources/directory/read takes a folder URI with one trailing slash, as folders are often written", async () => {
  await using tree = await makeTree({
    "hello/SKILL.md": skillMd("hello"),
    "hello/scripts/hi.sh": "echo hi\n",
  });
  await using session = await connectInMemory(createCatalogStore(await catalogOf(tree.path)));
  const names = async (uri: string) =>
    ((await session.request("resources/directory/read", { uri })).resources as { name: string }[])
      .map((child) => child.name);
  assert.deepEqual(await names("skill://hello/scripts/"), ["hi.sh"]);
  assert.deepEqual(await names("skill://hello/scripts/"), await names("skill://hello/scripts"));
  await assert.rejects(
    session.request("resources/directory/read", { uri: "skill://hello/scripts//" }),
    /empty segment/,
    "only one final slash",
  );
});

Deno.test("resources/directory/read refuses one directory's cursor for another, whatever its URI's spelling", async () => {
  const entries: Record<string, string> = { "wide/SKILL.md": skillMd("wide") };
  for (let i = 0; i < 250; i++) {
    entries[`wide/a/item-${String(i).padStart(3, "0")}.txt`] = "x";
    entries[`wide/b/item-${String(i).padStart(3, "0")}.txt`] = "x";
  }
  await using tree = await makeTree(entries);
  await using session = await connectInMemory(createCatalogStore(await catalogOf(tree.path)));
  const first = await session.request("resources/directory/read", { uri: "skill://wide/a" });
  const cursor = first.nextCursor as string;
  assert.equal(typeof cursor, "string");
  await assert.rejects(
    session.request("resources/directory/read", { uri: "skill://wide/b", cursor }),
    /The cursor is not one this server issued/,
  );
  // The same directory written with its final slash is the same list.
  const second = await session.request("resources/directory/read", {
    uri: "skill://wide/a/",
    cursor,
  });
  assert.equal((second.resources as unknown[]).length, 50);
});
