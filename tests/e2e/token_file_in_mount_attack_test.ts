/**
 * Attack (r12): the HTTP bearer token file lies in a folder every sandbox
 * mounts: the host's data folder (`MCP_DATA_DIR`, mounted read-write into
 * every sandbox; a container recipe keeps its secrets beside its data), or a
 * grant's `read` folder (`/run/secrets` granted for a script's own key). A
 * granted sandboxed script then prints the token, and its output goes back to
 * the client (the model's context, transcripts): anyone holding it is a full
 * client of the server. The configuration file and overrides.json are files
 * no mounted folder may hold (`src/scripts/sandbox/grant_folders.ts`); the
 * token file, skillgate's one secret file, is not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "../support/sdk_client.ts";
import { startHttpProgram } from "../support/http_program.ts";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

const TOKEN = "r12-token-file-secret-0123456789abcdef";
const SKILL_MD = "---\nname: reader\ndescription: Prints a file of its data folder.\nmcp-host:\n" +
  "  version: 1\n  run:\n    - script: scripts/read.sh\n      interpreter: sh\n---\n# Reader\n";

Deno.test("attack: a sandboxed script cannot read the HTTP token file through the mounted data folder", async () => {
  await using tree = await makeTree({
    "skills/reader/SKILL.md": SKILL_MD,
    "skills/reader/scripts/read.sh": 'cat "$MCP_DATA_DIR/token" 2>&1 || true\n',
    "data/token": TOKEN,
  });
  Deno.chmodSync(tree.at("data/token"), 0o600);
  Deno.chmodSync(tree.at("data"), 0o700);
  await using server = await startHttpProgram([
    "serve",
    tree.at("skills"),
    "--no-config",
    "--isolation=sandbox",
    `--http-token-file=${tree.at("data/token")}`,
  ], {
    env: {
      MCP_DATA_DIR: tree.at("data"),
      MCP_CONFIRM_MODE: "auto",
      MCP_SKILL_RUN: JSON.stringify([{ skill: "reader", script: "scripts/read.sh" }]),
    },
  });
  const client = new Client({ name: "r12", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    const result = await client.callTool({
      name: "skill_run",
      arguments: { name: "reader", script: "scripts/read.sh" },
    }) as CallToolResult;
    const answer = JSON.stringify(result);
    assert.ok(
      /"status":"completed"|\\"status\\":\\"completed\\"/.test(answer),
      answer.slice(0, 400),
    );
    assert.ok(
      !answer.includes(TOKEN),
      `the script printed the bearer token: ${answer.slice(0, 400)}`,
    );
  } finally {
    await client.close();
  }
});

Deno.test("attack: a grant's read folder holding the HTTP token file is refused", async () => {
  await using tree = await makeTree({
    "skills/reader/SKILL.md": SKILL_MD,
    "skills/reader/scripts/read.sh": "echo\n",
    "secrets/token": TOKEN,
    "secrets/api-key": "the script's own key",
  });
  Deno.chmodSync(tree.at("secrets/token"), 0o600);
  const result = await runProgram([
    "list",
    tree.at("skills"),
    "--json",
    "--no-config",
    `--http-token-file=${join(tree.at("secrets"), "token")}`,
  ], {
    env: {
      MCP_SKILL_RUN: JSON.stringify([
        { skill: "reader", script: "scripts/read.sh", read: [tree.at("secrets")] },
      ]),
    },
  });
  assert.equal(result.code, 0, result.stderr);
  const listed = JSON.parse(result.stdout) as { problems: { reason: string; detail: string }[] };
  assert.ok(
    listed.problems.some((problem) =>
      problem.reason === "grant" && /read folder #0 is refused/.test(problem.detail)
    ),
    "the row mounts the folder holding the bearer token file",
  );
});
