/**
 * End-to-end: `skill_run` over Streamable HTTP. Any local user can reach a
 * loopback port, and the confirmation-token flow is answerable by the caller
 * itself, so without a bearer token the real program must refuse to run
 * anything (and say so at start-up); with the token the same call runs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "../support/sdk_client.ts";
import { startHttpProgram } from "../support/http_program.ts";
import { toolErrorJson } from "../support/tool_answer.ts";

const SKILL = "secret-reader";
const SECRET = "granted-secret-5d1e";
const TOKEN = "e2e-run-token-0123456789abcdef";

async function makeSkillRoot(): Promise<{ root: string } & AsyncDisposable> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-http-run-" });
  const dir = join(base, "skills", SKILL);
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: Prints a granted secret.\nmcp-host:\n  version: 1\n` +
      "  run:\n    - script: scripts/print.sh\n      interpreter: sh\n      env: [DEMO_SECRET]\n" +
      "---\n# Secret reader\n",
  );
  await Deno.writeTextFile(join(dir, "scripts/print.sh"), 'printf "%s" "$DEMO_SECRET"\n');
  return {
    root: join(base, "skills"),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

const ENV = {
  MCP_SKILL_RUN: JSON.stringify([{
    skill: SKILL,
    script: "scripts/print.sh",
    env: ["DEMO_SECRET"],
  }]),
  DEMO_SECRET: SECRET,
};

async function connect(
  url: string,
  headers: Record<string, string> = {},
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "local-user", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** Calls skill_run the way a caller answering its own confirmation would: call, then confirm. */
async function runAndConfirm(client: Client): Promise<CallToolResult> {
  const call = (confirmToken?: string) =>
    client.callTool({
      name: "skill_run",
      arguments: {
        name: SKILL,
        script: "scripts/print.sh",
        ...(confirmToken ? { confirmToken } : {}),
      },
    }) as Promise<CallToolResult>;
  const first = await call();
  const token = (first.structuredContent as { confirmToken?: string } | undefined)?.confirmToken;
  return token === undefined ? first : await call(token);
}

Deno.test("skill_run over loopback HTTP without a token is refused: a local user cannot confirm their own run and read granted secrets", async () => {
  await using skills = await makeSkillRoot();
  await using server = await startHttpProgram(["serve", skills.root], { env: ENV });
  assert.match(
    server.stderr(),
    /skillgate: warning: no bearer token, so any local user .* \(without one, skill_run is refused over HTTP too\)/,
    "the owner hears it at start-up",
  );
  await using client = await connect(server.url);
  const result = await runAndConfirm(client);
  assert.equal(result.isError, true);
  const answer = toolErrorJson(result);
  assert.equal(answer.error, "SCRIPTS_DISABLED");
  assert.equal(
    answer.message,
    "skill_run over HTTP needs a bearer token (SKILLGATE_HTTP_TOKEN or --http-token-file): " +
      "any local user can reach a loopback port",
  );
  assert.ok(!JSON.stringify(result).includes(SECRET), "no secret reaches the caller");
  const list = (await client.callTool({ name: "skill_list", arguments: {} })) as CallToolResult;
  const overview = list.structuredContent as {
    scriptsRefused?: string;
    skills: { name: string; executable?: boolean }[];
  };
  assert.match(overview.scriptsRefused ?? "", /needs a bearer token/, "skill_list says so too");
  assert.ok(overview.skills.every((skill) => skill.executable !== true));
});

Deno.test("skill_run over HTTP with the bearer token runs after confirmation", async () => {
  await using skills = await makeSkillRoot();
  await using server = await startHttpProgram(["serve", skills.root], {
    env: { ...ENV, SKILLGATE_HTTP_TOKEN: TOKEN },
  });
  assert.doesNotMatch(server.stderr(), /warning: skill_run is refused/);
  await using client = await connect(server.url, { authorization: `Bearer ${TOKEN}` });
  const result = await runAndConfirm(client);
  const answer = result.structuredContent as { status: string; stdout: string; exitCode: number };
  assert.equal(answer.status, "completed", JSON.stringify(result));
  assert.equal(answer.exitCode, 0);
  assert.equal(answer.stdout, SECRET);
});
