/**
 * End-to-end: the real program on a temporary copy of each corpus (the
 * fixture corpus, and the real-world one when present; tests/support/corpora.ts),
 * started the way a client starts it (deno run with the trusted flags, stdio),
 * driven by the real SDK client.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";
import { copyCorpus, corpora } from "../support/corpora.ts";
import { frontmatterOf } from "../support/frontmatter_oracle.ts";
import { writeAlphabetFile } from "../support/large_files.ts";
import { connectStdio, runProgram } from "../support/program.ts";
import { toolErrorJson } from "../support/tool_answer.ts";

interface ListAnswer {
  total: number;
  skills: { name: string; description: string; files: number; bytes: number }[];
  problems: { path: string; reason: string; severity: string; detail: string }[];
  nextCursor?: string;
}

interface FileEntry {
  path: string;
  encoding?: string;
  mediaType?: string;
  content?: string;
  error?: string;
  truncated?: boolean;
  nextOffset?: number;
}

function structured<T>(result: { structuredContent?: unknown; isError?: boolean | undefined }): T {
  assert.ok(result.structuredContent !== undefined, "the tool answered with structured JSON");
  return result.structuredContent as T;
}

/** The body of a SKILL.md text: everything after the closing `---` line, verbatim. */
function bodyOf(text: string): string {
  const split = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*\r?(?:\n|$)/.exec(text);
  assert.ok(split, "SKILL.md has a frontmatter block");
  return text.slice(split[0].length);
}

for (const corpus of corpora()) {
  const { facts } = corpus;
  const rich = facts.rich;

  Deno.test(`skill_list serves every skill of the ${corpus.label} corpus with its real description`, async () => {
    await using copy = await copyCorpus(corpus);
    await using session = await connectStdio(["serve", copy.root]);
    const result = await session.call("skill_list", {});
    assert.equal(result.isError, undefined);
    const answer = structured<ListAnswer>(result);
    assert.deepEqual(answer.skills.map((skill) => skill.name), corpus.names);
    assert.equal(answer.total, corpus.names.length);
    for (const skill of answer.skills) {
      const text = await Deno.readTextFile(join(copy.skill(skill.name), "SKILL.md"));
      assert.equal(skill.description, frontmatterOf(text)["description"], skill.name);
    }
    const overLongWarning = answer.problems.find((problem) =>
      problem.path.includes(facts.overLong.skill) && problem.severity === "warning" &&
      problem.detail.includes("1024")
    );
    assert.ok(overLongWarning, `${facts.overLong.skill}'s over-long description is a warning`);
    assert.equal(answer.problems.filter((problem) => problem.severity === "error").length, 0);
    // The text block carries the same JSON as structuredContent.
    const text = result.content[0];
    assert.ok(text?.type === "text");
    assert.deepEqual(JSON.parse(text.text), answer);
  });

  Deno.test(`skill_list pages the ${corpus.label} corpus with a cursor and filters by query`, async () => {
    await using copy = await copyCorpus(corpus);
    await using session = await connectStdio(["serve", copy.root]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = structured<ListAnswer>(
        await session.call(
          "skill_list",
          cursor === undefined ? { limit: 4 } : { limit: 4, cursor },
        ),
      );
      seen.push(...page.skills.map((skill) => skill.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(seen, corpus.names);
    const found = structured<ListAnswer>(await session.call("skill_list", { query: rich.query }));
    assert.ok(found.skills.some((skill) => skill.name === rich.skill));
    assert.ok(
      found.skills.every((skill) =>
        `${skill.name} ${skill.description}`.toLowerCase().includes(rich.query.toLowerCase())
      ),
    );
  });

  Deno.test(`skill_load returns every ${corpus.label} skill's body byte-equal to its file after the frontmatter`, async () => {
    await using copy = await copyCorpus(corpus);
    await using session = await connectStdio(["serve", copy.root]);
    for (const name of corpus.names) {
      const answer = structured<{ body: string; truncated: boolean; files: { path: string }[] }>(
        await session.call("skill_load", { name }),
      );
      const file = await Deno.readTextFile(join(copy.skill(name), "SKILL.md"));
      assert.equal(answer.body, bodyOf(file), name);
      assert.equal(answer.truncated, false, name);
      assert.ok(answer.files.some((entry) => entry.path === "SKILL.md"), name);
      if (name === facts.overLong.skill) {
        assert.ok(answer.files.some((entry) => entry.path.startsWith(facts.overLong.subfolder)));
      }
    }
  });

  Deno.test(`skill_file returns the ${corpus.label} corpus's binaries as base64 with their exact bytes`, async () => {
    await using copy = await copyCorpus(corpus);
    await using session = await connectStdio(["serve", copy.root]);
    for (const binary of facts.binaries) {
      const answer = structured<{ skill: string; files: FileEntry[] }>(
        await session.call("skill_file", { name: binary.skill, paths: [binary.path] }),
      );
      const entry = answer.files[0];
      assert.equal(entry?.encoding, "base64", binary.path);
      assert.equal(entry?.mediaType, binary.mediaType);
      assert.equal(entry?.truncated, false);
      const expected = await Deno.readFile(join(copy.skill(binary.skill), binary.path));
      assert.deepEqual(Uint8Array.fromBase64(entry?.content ?? ""), expected, binary.path);
    }
  });

  Deno.test(`skill_file refuses ../ and symlink escapes per entry and still answers the rest (${corpus.label} corpus)`, async () => {
    await using copy = await copyCorpus(corpus);
    const dir = copy.skill(rich.skill);
    const secret = join(copy.dir, "secret.txt");
    await Deno.writeTextFile(secret, "host secret");
    await Deno.symlink(secret, join(dir, "leak.txt"));
    await Deno.symlink(copy.dir, join(dir, "leakdir"));
    await using session = await connectStdio(["serve", copy.root]);
    const sibling = `../${corpus.names.find((name) => name !== rich.skill)}/SKILL.md`;
    const paths = [sibling, "leak.txt", "leakdir/secret.txt", "SKILL.md", "/etc/passwd"];
    const result = await session.call("skill_file", { name: rich.skill, paths });
    const answer = structured<{ files: FileEntry[] }>(result);
    assert.deepEqual(answer.files.map((entry) => entry.path), paths);
    for (const index of [0, 1, 2, 4]) {
      assert.ok(answer.files[index]?.error !== undefined, `entry ${index} is refused`);
      assert.equal(answer.files[index]?.content, undefined);
    }
    assert.equal(answer.files[3]?.encoding, "utf-8");
    const wire = JSON.stringify(result);
    assert.ok(!wire.includes("host secret"), "the secret never crosses the wire");
    assert.ok(!wire.includes(copy.dir), "no host path outside the skill is echoed");
  });

  Deno.test(`skill_file pages a large file with offset so every byte is reachable (${corpus.label} corpus)`, async () => {
    await using copy = await copyCorpus(corpus);
    const big = await writeAlphabetFile(join(copy.skill(rich.skill), "big.txt"), 2_500_000);
    await using session = await connectStdio(["serve", copy.root]);
    const parts: string[] = [];
    let offset = 0;
    for (let calls = 0; calls < 10; calls++) {
      const answer = structured<{ files: FileEntry[] }>(
        await session.call("skill_file", {
          name: rich.skill,
          paths: [{ path: "big.txt", offset }],
        }),
      );
      const entry = answer.files[0];
      parts.push(entry?.content ?? "");
      if (entry?.truncated !== true) break;
      offset = entry.nextOffset ?? -1;
    }
    assert.equal(parts.join(""), new TextDecoder().decode(big));
    assert.equal(parts.length, 3);
  });

  Deno.test(`tool errors carry {error, message, hint} and the server keeps serving (${corpus.label} corpus)`, async () => {
    await using copy = await copyCorpus(corpus);
    await using session = await connectStdio(["serve", copy.root]);
    const missing = await session.call("skill_load", { name: "no-such-skill" });
    assert.equal(missing.isError, true);
    const body = toolErrorJson(missing);
    assert.equal(body.error, "SKILL_NOT_FOUND");
    assert.ok(body.hint.includes(corpus.names[0] as string), body.hint);
    const badArgs = await session.call("skill_file", { name: rich.skill, paths: [] });
    assert.equal(badArgs.isError, true);
    assert.equal(toolErrorJson(badArgs).error, "INVALID_ARGUMENTS");
    const ok = await session.call("skill_load", { name: rich.skill });
    assert.equal(ok.isError, undefined);
  });
}

Deno.test("stdout carries nothing but JSON-RPC, even with broken input in between", async () => {
  const requests = [
    INITIALIZE,
    INITIALIZED,
    "this is not json",
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "skill_list", arguments: {} } },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: {
        name: "skill_file",
        arguments: { name: "color-palette", paths: ["assets/palette.png"] },
      },
    },
  ];
  const stdin =
    requests.map((request) => typeof request === "string" ? request : JSON.stringify(request))
      .join("\n") + "\n";
  const { code, stdout } = await runProgram(["serve", "examples/skills"], { stdin });
  assert.equal(code, 0);
  const lines = stdout.split("\n").filter((line) => line !== "");
  const ids = lines.map((line) => {
    const message = JSON.parse(line);
    assert.equal(message.jsonrpc, "2.0");
    return message.id;
  });
  for (const id of [1, 2, 3, 4]) assert.ok(ids.includes(id), `answer ${id} arrived`);
});

Deno.test("the worker serves the bundled example skills, one with a binary asset", async () => {
  await using session = await connectStdio(["serve", "examples/skills"]);
  const list = structured<ListAnswer>(await session.call("skill_list", {}));
  assert.ok(list.skills.length >= 2);
  const file = structured<{ files: FileEntry[] }>(
    await session.call("skill_file", {
      name: "color-palette",
      paths: ["assets/palette.png", "references/palette.md"],
    }),
  );
  assert.equal(file.files[0]?.encoding, "base64");
  assert.equal(file.files[0]?.mediaType, "image/png");
  assert.equal(file.files[1]?.encoding, "utf-8");
});
