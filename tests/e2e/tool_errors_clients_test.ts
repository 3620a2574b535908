/**
 * End-to-end: every tool's success paths and error paths through the two
 * official SDK client lines, after `listTools()` (so each client knows every
 * tool's `outputSchema` and validates what it gets back):
 * `@modelcontextprotocol/sdk` 1.32.x (whose `callTool` used to THROW on every
 * tool error, because errors carried `structuredContent` that did not match
 * the success schema) and `@modelcontextprotocol/client` 2.4.x. Both start
 * the real program over stdio on examples/skills plus a small skill of the
 * test's own with a granted and an ungranted script.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio, REPO_ROOT } from "../support/program.ts";
import { connectStdioV2 } from "../support/program_v2.ts";
import { type CalledTool, type ToolErrorJson, toolErrorJson } from "../support/tool_answer.ts";
import { makeTree, type Tree } from "../skills/_tree.ts";

/** The served tools, in `tools/list` order. */
const TOOL_NAMES = ["skill_list", "skill_search", "skill_load", "skill_file", "skill_run"];
const EXAMPLES = join(REPO_ROOT, "examples/skills");
const FIXTURE = "run-fixture";

/** What both client lines offer, as these tests use it. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** Counts, per tool, the success and error paths a run went through. */
type Coverage = Map<string, { successes: number; errors: number }>;

async function makeRunRoot(): Promise<Tree & { dataDir: string }> {
  const declare = (script: string) => `    - script: ${script}\n      interpreter: sh\n`;
  const tree = await makeTree({
    [`skills/${FIXTURE}/SKILL.md`]: `---\nname: ${FIXTURE}\ndescription: Two scripts, one ` +
      `granted.\nmcp-host:\n  version: 1\n  run:\n${declare("scripts/hello.sh")}${
        declare("scripts/ungranted.sh")
      }---\n# Run fixture\n`,
    [`skills/${FIXTURE}/scripts/hello.sh`]: 'printf "hello %s\\n" "$1"\n',
    [`skills/${FIXTURE}/scripts/ungranted.sh`]: "echo never\n",
    "data": { dir: true },
  });
  return Object.assign(tree, { dataDir: tree.at("data") });
}

const GRANT = JSON.stringify([
  { skill: FIXTURE, script: "scripts/hello.sh" },
  { skill: "release-notes", script: "scripts/collect_changes.py" },
]);

/** A tool caller that records coverage and hands back what the client returned. */
function caller(client: AnyClient, coverage: Coverage) {
  const record = (name: string, kind: "successes" | "errors") => {
    const entry = coverage.get(name) ?? { successes: 0, errors: 0 };
    entry[kind] += 1;
    coverage.set(name, entry);
  };
  return {
    /** A call that must succeed: its `structuredContent` (validated by the client). */
    ok: async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = await client.callTool({ name, arguments: args }) as CalledTool;
      assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result)}`);
      assert.ok(result.structuredContent !== undefined, `${name} answers with structured JSON`);
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
      assert.deepEqual(JSON.parse(text), result.structuredContent, "the text is the same JSON");
      record(name, "successes");
      return result.structuredContent as Record<string, unknown>;
    },
    /** A call that must be a tool error (never a thrown protocol error): its JSON. */
    error: async (
      name: string,
      args: Record<string, unknown>,
      expected: { error: string; message: RegExp; hint: RegExp },
    ): Promise<ToolErrorJson> => {
      const body = toolErrorJson(await client.callTool({ name, arguments: args }) as CalledTool);
      assert.equal(body.error, expected.error, JSON.stringify(body));
      assert.match(body.message, expected.message);
      assert.match(body.hint, expected.hint);
      record(name, "errors");
      return body;
    },
  };
}

/** Every tool, success and error paths, through one client. */
async function exerciseEveryTool(t: Deno.TestContext, client: AnyClient): Promise<void> {
  const coverage: Coverage = new Map();
  const call = caller(client, coverage);

  await t.step("listTools() lists every tool with an outputSchema", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), TOOL_NAMES);
    for (const tool of tools) assert.equal(typeof tool.outputSchema, "object", tool.name);
  });

  await t.step(
    "skill_list: pages, searches; a bad limit or cursor is a readable error",
    async () => {
      const all = await call.ok("skill_list", {});
      const names = (all.skills as { name: string }[]).map((skill) => skill.name);
      assert.deepEqual(names, ["color-palette", "release-notes", FIXTURE]);
      const found = await call.ok("skill_list", { query: "PALETTE" });
      assert.deepEqual((found.skills as { name: string }[]).map((s) => s.name), ["color-palette"]);
      const first = await call.ok("skill_list", { limit: 1 });
      assert.equal(typeof first.nextCursor, "string");
      const second = await call.ok("skill_list", { limit: 1, cursor: first.nextCursor });
      assert.deepEqual((second.skills as { name: string }[]).map((s) => s.name), ["release-notes"]);
      await call.error("skill_list", { limit: 0 }, {
        error: "INVALID_ARGUMENTS",
        message: /^Invalid arguments for skill_list: limit: /,
        hint: /input schema of skill_list/,
      });
      await call.error("skill_list", { cursor: "garbage" }, {
        error: "INVALID_ARGUMENTS",
        message: /cursor is not one this server issued/,
        hint: /without a cursor/,
      });
      await call.error("skill_list", { bogus: true }, {
        error: "INVALID_ARGUMENTS",
        message: /bogus/,
        hint: /input schema of skill_list/,
      });
    },
  );

  await t.step(
    "skill_search: ranks, marks, points at SKILL.md; empty, long or bad-limit calls are errors",
    async () => {
      const found = await call.ok("skill_search", { query: "recolouring Charts" });
      const results = found.results as {
        name: string;
        uri: string;
        score: number;
        snippet: string;
      }[];
      assert.equal(results[0]?.name, "color-palette");
      assert.equal(results[0]?.uri, "skill://color-palette/SKILL.md");
      assert.match(results[0]?.snippet ?? "", /«charts»/);
      assert.match(results[0]?.snippet ?? "", /«recolour»/);
      assert.equal(found.total, results.length);
      const one = await call.ok("skill_search", { query: "release notes changelog", limit: 1 });
      assert.deepEqual((one.results as { name: string }[]).map((r) => r.name), ["release-notes"]);
      const none = await call.ok("skill_search", { query: "zeppelin" });
      assert.deepEqual([none.results, none.total], [[], 0]);
      await call.error("skill_search", { query: "" }, {
        error: "INVALID_ARGUMENTS",
        message: /^Invalid arguments for skill_search: query: /,
        hint: /input schema of skill_search/,
      });
      await call.error("skill_search", { query: "  ?! " }, {
        error: "INVALID_ARGUMENTS",
        message: /query: must hold at least one letter or digit/,
        hint: /input schema of skill_search/,
      });
      await call.error("skill_search", { query: "x".repeat(513) }, {
        error: "INVALID_ARGUMENTS",
        message: /query: .*512/,
        hint: /input schema of skill_search/,
      });
      for (const limit of [0, 101, 1.5]) {
        await call.error("skill_search", { query: "notes", limit }, {
          error: "INVALID_ARGUMENTS",
          message: /limit: /,
          hint: /input schema of skill_search/,
        });
      }
    },
  );

  await t.step("skill_load: every skill loads; an unknown or empty name is an error", async () => {
    for (const name of ["color-palette", "release-notes", FIXTURE]) {
      const loaded = await call.ok("skill_load", { name });
      assert.equal(loaded.name, name);
      assert.match(String(loaded.body), /^# /m);
    }
    await call.error("skill_load", { name: "nope" }, {
      error: "SKILL_NOT_FOUND",
      message: /^No skill named "nope" is served$/,
      hint: /color-palette.*release-notes/,
    });
    await call.error("skill_load", { name: "" }, {
      error: "INVALID_ARGUMENTS",
      message: /name: /,
      hint: /input schema of skill_load/,
    });
  });

  await t.step(
    "skill_file: text, binary, pages, per-path errors; bad calls are errors",
    async () => {
      const read = await call.ok("skill_file", {
        name: "color-palette",
        paths: [
          "references/palette.md",
          "assets/palette.png",
          { path: "references/palette.md", offset: 0, length: 10 },
          "references/unknown.md",
          "../outside.md",
        ],
      });
      const [text, image, page, unknown, outside] = read.files as Record<string, unknown>[];
      assert.equal(text?.encoding, "utf-8");
      assert.equal(image?.encoding, "base64");
      assert.equal(image?.mediaType, "image/png");
      assert.deepEqual([page?.truncated, page?.nextOffset], [true, 10]);
      assert.equal(unknown?.error, "not-listed");
      assert.match(String(unknown?.message), /not in skill "color-palette"'s listing.*skill_load/);
      assert.equal(typeof outside?.error, "string");
      assert.equal(typeof outside?.message, "string");
      await call.error("skill_file", { name: "color-palette", paths: [] }, {
        error: "INVALID_ARGUMENTS",
        message: /paths: /,
        hint: /input schema of skill_file/,
      });
      await call.error("skill_file", { name: "nope", paths: ["SKILL.md"] }, {
        error: "SKILL_NOT_FOUND",
        message: /"nope"/,
        hint: /Served names include/,
      });
      await call.error("skill_file", { name: "color-palette", paths: Array(9).fill("SKILL.md") }, {
        error: "INVALID_ARGUMENTS",
        message: /paths: /,
        hint: /input schema of skill_file/,
      });
    },
  );

  await t.step("skill_run: preview, run, and every refusal with its details", async () => {
    const run = (args: Record<string, unknown>) => ({ name: FIXTURE, ...args });
    const preview = await call.ok("skill_run", run({ script: "scripts/hello.sh", args: ["a"] }));
    assert.equal(preview.status, "confirmation-required");
    assert.equal(preview.dispatched, false);
    const token = String(preview.confirmToken);
    const ran = await call.ok(
      "skill_run",
      run({ script: "scripts/hello.sh", args: ["a"], confirmToken: token }),
    );
    assert.deepEqual([ran.status, ran.exitCode, ran.stdout], ["completed", 0, "hello a\n"]);
    await call.error(
      "skill_run",
      run({ script: "scripts/hello.sh", args: ["a"], confirmToken: token }),
      { error: "TOKEN_REUSED", message: /already used/, hint: /without a confirmToken/ },
    );
    // DRAFT_CHANGED carries a new confirmToken and preview: they reach the caller.
    const first = await call.ok("skill_run", run({ script: "scripts/hello.sh", args: ["b"] }));
    const changed = await call.error(
      "skill_run",
      run({ script: "scripts/hello.sh", args: ["c"], confirmToken: first.confirmToken }),
      {
        error: "DRAFT_CHANGED",
        message: /does not confirm what would run now/,
        hint: /exactly these arguments and this answer's confirmToken/,
      },
    );
    const willRun = (changed.preview as { willRun: { argv: string[]; script: string } }).willRun;
    assert.deepEqual([willRun.script, willRun.argv.at(-1)], ["scripts/hello.sh", "c"]);
    assert.equal(typeof changed.confirmToken, "string");
    const confirmed = await call.ok(
      "skill_run",
      run({ script: "scripts/hello.sh", args: ["c"], confirmToken: changed.confirmToken }),
    );
    assert.equal(confirmed.stdout, "hello c\n");
    await call.error("skill_run", run({ script: "scripts/nope.sh" }), {
      error: "SCRIPT_NOT_DECLARED",
      message: /does not declare a script "scripts\/nope\.sh"/,
      hint: /scripts\/hello\.sh/,
    });
    await call.error("skill_run", run({ script: "scripts/ungranted.sh" }), {
      error: "SCRIPT_NOT_GRANTED",
      message: /"scripts\/ungranted\.sh" of skill "run-fixture" is not granted/,
      hint: /Ask the server's owner/,
    });
    await call.error("skill_run", run({ script: "scripts/hello.sh", confirmToken: "v1.1.x" }), {
      error: "TOKEN_INVALID",
      message: /not one this server issued/,
      hint: /without a confirmToken/,
    });
    await call.error("skill_run", { name: FIXTURE }, {
      error: "INVALID_ARGUMENTS",
      message: /script: /,
      hint: /input schema of skill_run/,
    });
    await call.error("skill_run", { name: "nope", script: "x.sh" }, {
      error: "SKILL_NOT_FOUND",
      message: /"nope"/,
      hint: /Served names include/,
    });
    // The bundled example's script: a preview, then a run (exit status is the script's own).
    const example = { name: "release-notes", script: "scripts/collect_changes.py", args: ["HEAD"] };
    const asked = await call.ok("skill_run", example);
    const done = await call.ok("skill_run", { ...example, confirmToken: asked.confirmToken });
    assert.deepEqual([done.status, done.dispatched], ["completed", true]);
  });

  await t.step("an unknown tool is a protocol error that says what to do", async () => {
    await assert.rejects(
      client.callTool({ name: "nope", arguments: {} }),
      /Unknown tool "nope"; call tools\/list for the tools served/,
    );
  });

  await t.step("every tool went through its success paths and at least two error paths", () => {
    for (const name of TOOL_NAMES) {
      const seen = coverage.get(name);
      assert.ok((seen?.successes ?? 0) >= 1, `${name}: ${JSON.stringify(seen)}`);
      assert.ok((seen?.errors ?? 0) >= 2, `${name}: ${JSON.stringify(seen)}`);
    }
  });
}

function serveArgs(tree: Tree): string[] {
  return ["serve", EXAMPLES, tree.at("skills")];
}

function serveEnv(tree: Tree & { dataDir: string }): Record<string, string> {
  return { MCP_SKILL_RUN: GRANT, MCP_DATA_DIR: tree.dataDir };
}

Deno.test("SDK 1.32.x client: every tool's results and errors reach the caller after listTools()", async (t) => {
  await using tree = await makeRunRoot();
  await using session = await connectStdio(serveArgs(tree), { env: serveEnv(tree) });
  await exerciseEveryTool(t, session.client as unknown as AnyClient);
});

Deno.test("SDK 2.x client: every tool's results and errors reach the caller after listTools()", async (t) => {
  await using tree = await makeRunRoot();
  await using session = await connectStdioV2(serveArgs(tree), { env: serveEnv(tree) });
  await exerciseEveryTool(t, session.client as unknown as AnyClient);
});
