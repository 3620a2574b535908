/**
 * End-to-end: the real program on a temporary copy of the real-world corpus,
 * started the way a client starts it (deno run with the trusted flags, stdio),
 * driven by the real SDK client.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseFrontmatter } from "../../src/skills/frontmatter.ts";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";
import { CORPUS_SKILLS } from "../support/corpus_skills.ts";
import { connectStdio, copyToTemp, CORPUS, runProgram } from "../support/program.ts";
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

Deno.test("skill_list serves all 12 corpus skills with their real descriptions", async () => {
  await using copy = await copyToTemp(CORPUS);
  const root = join(copy.dir, "anthropic-skills");
  await using session = await connectStdio(["serve", root]);
  const result = await session.call("skill_list", {});
  assert.equal(result.isError, undefined);
  const answer = structured<ListAnswer>(result);
  assert.deepEqual(answer.skills.map((skill) => skill.name), CORPUS_SKILLS);
  assert.equal(answer.total, 12);
  for (const skill of answer.skills) {
    const text = await Deno.readTextFile(join(root, skill.name, "SKILL.md"));
    const parsed = parseFrontmatter(text);
    assert.ok(parsed.ok);
    assert.equal(skill.description, parsed.frontmatter.description, skill.name);
  }
  const claudeApiWarning = answer.problems.find((problem) =>
    problem.path.includes("claude-api") && problem.severity === "warning" &&
    problem.detail.includes("1024")
  );
  assert.ok(claudeApiWarning, "claude-api's over-long description is a warning");
  assert.equal(answer.problems.filter((problem) => problem.severity === "error").length, 0);
  // The text block carries the same JSON as structuredContent.
  const text = result.content[0];
  assert.ok(text?.type === "text");
  assert.deepEqual(JSON.parse(text.text), answer);
});

Deno.test("skill_list pages with a cursor and filters by query", async () => {
  await using copy = await copyToTemp(CORPUS);
  await using session = await connectStdio(["serve", join(copy.dir, "anthropic-skills")]);
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = structured<ListAnswer>(
      await session.call("skill_list", cursor === undefined ? { limit: 5 } : { limit: 5, cursor }),
    );
    seen.push(...page.skills.map((skill) => skill.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(seen, CORPUS_SKILLS);
  const found = structured<ListAnswer>(await session.call("skill_list", { query: "THEME" }));
  assert.ok(found.skills.some((skill) => skill.name === "theme-factory"));
  assert.ok(
    found.skills.every((skill) =>
      `${skill.name} ${skill.description}`.toLowerCase().includes("theme")
    ),
  );
});

Deno.test("skill_load returns claude-api's body byte-equal to its file after the frontmatter", async () => {
  await using copy = await copyToTemp(CORPUS);
  const root = join(copy.dir, "anthropic-skills");
  await using session = await connectStdio(["serve", root]);
  const answer = structured<{ body: string; truncated: boolean; files: { path: string }[] }>(
    await session.call("skill_load", { name: "claude-api" }),
  );
  const file = await Deno.readTextFile(join(root, "claude-api", "SKILL.md"));
  const lines = file.split("\n");
  const closing = lines.indexOf("---", 1);
  const expected = lines.slice(closing + 1).join("\n");
  assert.equal(answer.body, expected);
  assert.equal(answer.truncated, false);
  assert.ok(answer.files.some((entry) => entry.path === "SKILL.md"));
  assert.ok(answer.files.some((entry) => entry.path.startsWith("python/")));
});

Deno.test("skill_file returns theme-showcase.pdf as base64 application/pdf with the exact bytes", async () => {
  await using copy = await copyToTemp(CORPUS);
  const root = join(copy.dir, "anthropic-skills");
  await using session = await connectStdio(["serve", root]);
  const answer = structured<{ skill: string; files: FileEntry[] }>(
    await session.call("skill_file", { name: "theme-factory", paths: ["theme-showcase.pdf"] }),
  );
  const entry = answer.files[0];
  assert.equal(entry?.encoding, "base64");
  assert.equal(entry?.mediaType, "application/pdf");
  assert.equal(entry?.truncated, false);
  const expected = await Deno.readFile(join(root, "theme-factory", "theme-showcase.pdf"));
  assert.deepEqual(Uint8Array.fromBase64(entry?.content ?? ""), expected);
});

Deno.test("skill_file refuses ../ and symlink escapes per entry and still answers the rest", async () => {
  await using copy = await copyToTemp(CORPUS);
  const root = join(copy.dir, "anthropic-skills");
  const secret = join(copy.dir, "secret.txt");
  await Deno.writeTextFile(secret, "host secret");
  await Deno.symlink(secret, join(root, "theme-factory", "leak.txt"));
  await Deno.symlink(copy.dir, join(root, "theme-factory", "leakdir"));
  await using session = await connectStdio(["serve", root]);
  const result = await session.call("skill_file", {
    name: "theme-factory",
    paths: [
      "../canvas-design/SKILL.md",
      "leak.txt",
      "leakdir/secret.txt",
      "SKILL.md",
      "/etc/passwd",
    ],
  });
  const answer = structured<{ files: FileEntry[] }>(result);
  assert.deepEqual(answer.files.map((entry) => entry.path), [
    "../canvas-design/SKILL.md",
    "leak.txt",
    "leakdir/secret.txt",
    "SKILL.md",
    "/etc/passwd",
  ]);
  for (const index of [0, 1, 2, 4]) {
    assert.ok(answer.files[index]?.error !== undefined, `entry ${index} is refused`);
    assert.equal(answer.files[index]?.content, undefined);
  }
  assert.equal(answer.files[3]?.encoding, "utf-8");
  const wire = JSON.stringify(result);
  assert.ok(!wire.includes("host secret"), "the secret never crosses the wire");
  assert.ok(!wire.includes(copy.dir), "no host path outside the skill is echoed");
});

Deno.test("skill_file pages a large file with offset so every byte is reachable", async () => {
  await using copy = await copyToTemp(CORPUS);
  const root = join(copy.dir, "anthropic-skills");
  const big = new Uint8Array(2_500_000).map((_, index) => 97 + (index % 26));
  await Deno.writeFile(join(root, "theme-factory", "big.txt"), big);
  await using session = await connectStdio(["serve", root]);
  const parts: string[] = [];
  let offset = 0;
  for (let calls = 0; calls < 10; calls++) {
    const answer = structured<{ files: FileEntry[] }>(
      await session.call("skill_file", {
        name: "theme-factory",
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

Deno.test("tool errors carry {error, message, hint} and the server keeps serving", async () => {
  await using copy = await copyToTemp(CORPUS);
  await using session = await connectStdio(["serve", join(copy.dir, "anthropic-skills")]);
  const missing = await session.call("skill_load", { name: "no-such-skill" });
  assert.equal(missing.isError, true);
  const body = toolErrorJson(missing);
  assert.equal(body.error, "SKILL_NOT_FOUND");
  assert.match(body.hint, /algorithmic-art/);
  const badArgs = await session.call("skill_file", { name: "theme-factory", paths: [] });
  assert.equal(badArgs.isError, true);
  assert.equal(toolErrorJson(badArgs).error, "INVALID_ARGUMENTS");
  const ok = await session.call("skill_load", { name: "theme-factory" });
  assert.equal(ok.isError, undefined);
});

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
