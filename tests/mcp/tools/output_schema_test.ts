/**
 * Guard: every tool's success `structuredContent` validates against the
 * `outputSchema` that `tools/list` declares for it, checked with the very
 * validator the SDK 1.32.x client applies (`AjvJsonSchemaValidator`), on
 * every success shape each tool has (problems, whenToUse, truncation, cursors,
 * per-path errors, base64, scripts, the confirmation preview, a completed
 * run). A tool added without samples here fails the guard. And every tool
 * error carries no `structuredContent`, so no client validates an error
 * against a success schema.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { toolError, type ToolResult } from "../../../src/mcp/tool_result.ts";
import { listedTool } from "../../../src/mcp/tools_handler.ts";
import { TOOLS } from "../../../src/mcp/tool_list.ts";
import type { ToolContext } from "../../../src/mcp/tools/tool.ts";
import { lookUpInterpreters } from "../../../src/scripts/interpreters.ts";
import { createScriptService } from "../../../src/scripts/service.ts";
import { createGroupKiller } from "../../../src/sandbox/group_killer.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { makeTree, type Tree } from "../../skills/_tree.ts";
import { AjvJsonSchemaValidator } from "../../support/sdk_client.ts";

const GRANT = JSON.stringify([{ skill: "scripted", script: "scripts/hello.sh" }]);

async function makeSkills(): Promise<Tree> {
  return await makeTree({
    "plain/SKILL.md": "---\nname: plain\ndescription: A plain skill.\nwhen_to_use: Always.\n---\n" +
      "# Plain\n" + "Long body line.\n".repeat(20_000),
    "plain/notes.md": "x".repeat(2 * 1024 * 1024),
    "plain/image.bin": new Uint8Array([0, 255, 1, 254, 0x89, 0x50]),
    "scripted/SKILL.md": "---\nname: scripted\ndescription: Has scripts.\nmcp-host:\n" +
      "  version: 1\n  run:\n    - script: scripts/hello.sh\n      interpreter: sh\n" +
      "    - script: scripts/other.sh\n      interpreter: sh\n  egress: [example.com]\n---\n" +
      "# Scripted\n",
    "scripted/scripts/hello.sh": 'echo "hello $1"\n',
    "scripted/scripts/other.sh": "echo other\n",
    "broken/SKILL.md": "---\nname: broken\ndescription: [unclosed\n---\n",
    "long-description/SKILL.md": `---\nname: long-description\ndescription: ${
      "d".repeat(1100)
    }\n---\n# Long\n`,
  });
}

/** A context with or without the script service, as the worker builds it. */
async function makeContext(root: string, withScripts: boolean): Promise<ToolContext> {
  const config = parseCommandLine({
    args: ["serve", root],
    getEnv: (name) => (name === "MCP_SKILL_RUN" ? GRANT : undefined),
    cwd: "/",
  });
  const store = createCatalogStore(await buildCatalog(config.roots, DEFAULT_CAPS));
  // The trusted part's answer to a settings write (a view turning a switch off writes it).
  const writeOverride: ToolContext["writeOverride"] = (request) =>
    Promise.resolve({ ok: true, changed: !request.value });
  if (!withScripts) return { store, caps: DEFAULT_CAPS, hosted: false, config, writeOverride };
  const interpreters = lookUpInterpreters("/usr/bin:/bin");
  const permittedPrograms = Object.values(interpreters).flatMap((entry) =>
    entry.available && entry.path !== null ? [entry.path] : []
  );
  const scripts = createScriptService(config, {
    interpreters,
    permittedPrograms,
    envValues: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
    capturedEnvNames: [],
    environ: { scrubbed: true, method: "proc-self-mem", note: "" },
    isolation: { mode: "process-group", unsharePath: null, note: "" },
    folderVerdicts: [],
  }, { killer: createGroupKiller() });
  return { store, caps: DEFAULT_CAPS, hosted: false, scripts, config, writeOverride };
}

/** One success path: arguments, and optionally arguments derived from the previous answer. */
type Sample =
  | Record<string, unknown>
  | ((previous: Record<string, unknown>) => Record<string, unknown>);

/** Every success shape of every tool, called in order (a function sees the previous answer). */
const SAMPLES: Record<string, readonly Sample[]> = {
  skill_list: [
    {},
    { query: "PLAIN" },
    { query: "no such thing" },
    { limit: 1 },
    (previous) => ({ limit: 1, cursor: previous.nextCursor }),
  ],
  skill_search: [
    { query: "plain" },
    { query: "long body LINE", limit: 1 },
    { query: "no such thing" },
    { query: "scripts" },
  ],
  skill_load: [{ name: "plain" }, { name: "scripted" }, { name: "long-description" }],
  skill_file: [
    { name: "plain", paths: ["SKILL.md", "image.bin", "notes.md", "missing.md", "../up.md"] },
    { name: "plain", paths: [{ path: "notes.md", offset: 1_048_576, length: 10 }] },
    { name: "plain", paths: [{ path: "image.bin", offset: 6 }, ".hidden", "a\u0000b"] },
  ],
  skill_browse: [{}, { query: "plain" }, { query: "no such thing" }],
  skill_browse_detail: [{ name: "plain" }, { name: "scripted" }, { name: "long-description" }],
  skill_settings: [{}],
  skill_settings_write: [
    { name: "plain", switch: "enabled", value: false },
    { name: "plain", switch: "userInvocable", value: true },
  ],
  skill_run: [
    { name: "scripted", script: "scripts/hello.sh", args: ["a"] },
    (previous) => ({
      name: "scripted",
      script: "scripts/hello.sh",
      args: ["a"],
      confirmToken: previous.confirmToken,
    }),
  ],
};

async function callTool(
  name: string,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolResult> {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  assert.ok(tool !== undefined, name);
  const result = await tool.call(tool.inputSchema.parse(args), context);
  // Without a 2026-07-28 input round no tool answers input_required.
  assert.ok(!("resultType" in result), "a tool result, not input_required");
  return result as ToolResult;
}

Deno.test("every tool's success structuredContent validates against its declared outputSchema", async (t) => {
  await using tree = await makeSkills();
  const validator = new AjvJsonSchemaValidator();
  const contexts = [await makeContext(tree.path, false), await makeContext(tree.path, true)];
  for (const tool of TOOLS) {
    await t.step(tool.name, async () => {
      const samples = SAMPLES[tool.name];
      assert.ok(samples !== undefined && samples.length > 0, `no success samples for ${tool.name}`);
      const validate = validator.getValidator(
        listedTool(tool).outputSchema as Parameters<typeof validator.getValidator>[0],
      );
      const withScripts = tool.name === "skill_run" ? contexts.slice(1) : contexts;
      for (const context of withScripts) {
        let previous: Record<string, unknown> = {};
        for (const sample of samples) {
          const args = typeof sample === "function" ? sample(previous) : sample;
          const result = await callTool(tool.name, args, context);
          assert.notEqual(result.isError, true, `${tool.name} ${JSON.stringify(args)} failed`);
          const checked = validate(result.structuredContent);
          assert.ok(
            checked.valid,
            `${tool.name} ${JSON.stringify(args)}: ${checked.valid ? "" : checked.errorMessage}`,
          );
          previous = result.structuredContent as Record<string, unknown>;
        }
      }
    });
  }
});

Deno.test("the samples reach the shapes they are meant to (truncation, problems, a run)", async () => {
  await using tree = await makeSkills();
  const context = await makeContext(tree.path, true);
  const list = (await callTool("skill_list", {}, context)).structuredContent as {
    problems: { reason: string; line?: number }[];
    skills: { name: string; whenToUse?: string; scripts?: unknown[] }[];
  };
  assert.ok(list.problems.some((problem) => problem.line !== undefined), "a problem with a line");
  assert.ok(list.skills.some((skill) => skill.whenToUse === "Always."));
  assert.ok(list.skills.some((skill) => (skill.scripts?.length ?? 0) > 0));
  const load = (await callTool("skill_load", { name: "plain" }, context)).structuredContent;
  assert.equal((load as { truncated: boolean }).truncated, true);
  const run = { name: "scripted", script: "scripts/hello.sh", args: ["a"] };
  const first = (await callTool("skill_run", run, context)).structuredContent as {
    status: string;
    confirmToken: string;
  };
  assert.equal(first.status, "confirmation-required");
  const ran = (await callTool("skill_run", { ...run, confirmToken: first.confirmToken }, context))
    .structuredContent as { status: string; stdout: string };
  assert.deepEqual([ran.status, ran.stdout], ["completed", "hello a\n"]);
});

Deno.test("validation is not vacuous: a success shape missing a field fails every schema", () => {
  const validator = new AjvJsonSchemaValidator();
  for (const tool of TOOLS) {
    const validate = validator.getValidator(
      listedTool(tool).outputSchema as Parameters<typeof validator.getValidator>[0],
    );
    assert.equal(validate({}).valid, false, tool.name);
    assert.equal(validate({ error: "X", message: "m", hint: "h" }).valid, false, tool.name);
  }
});

Deno.test("toolError() carries no structuredContent; details follow error, message and hint", () => {
  const result = toolError("DRAFT_CHANGED", "changed", "confirm again", {
    confirmToken: "t",
    error: "OVERRIDE",
    hint: "overridden",
  });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined);
  assert.equal(result.content.length, 1);
  const text = (result.content[0] as { text: string }).text;
  assert.equal(
    text,
    '{"error":"DRAFT_CHANGED","message":"changed","hint":"confirm again","confirmToken":"t"}',
  );
});
