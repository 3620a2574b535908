/**
 * Issue 12: a raw 2026-07-28 exchange, no `initialize`, over stdio and over
 * HTTP: `server/discover`, `tools/list`, `skills/list`, and a `skill_run`
 * whose confirmation is an `input_required` result that completes on retry.
 * The `requestState` is a confirmation token (HMAC over the exact preview,
 * single use): tampered or replayed state is refused.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { RpcError, spawnRpcChild } from "../../bench/support/rpc_client.ts";
import { skillgateCommand } from "../../bench/support/servers.ts";
import { startHttpProgram } from "../support/http_program.ts";
import { runProgram } from "../support/program.ts";

const SKILL = "greeter";
const TOKEN = "modern-era-token-0123456789abcdef";
const MODERN = "2026-07-28";

/** The `_meta` envelope of a 2026-07-28 request. */
function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

async function makeSkillRoot(): Promise<{ root: string } & AsyncDisposable> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-modern-" });
  const dir = join(base, "skills", SKILL);
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: Greets by name.\nmcp-host:\n  version: 1\n` +
      "  run:\n    - script: scripts/greet.sh\n      interpreter: sh\n---\n# Greeter\n",
  );
  await Deno.writeTextFile(join(dir, "scripts/greet.sh"), 'printf "hello %s" "$1"\n');
  return {
    root: join(base, "skills"),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

const ENV = {
  MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script: "scripts/greet.sh" }]),
  MCP_CONFIRM_MODE: "ask-user",
};

/** Sends one request; resolves with its result or rejects with `{code, message}`. */
type Send = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** The shared 2026-07-28 script, run over one transport. */
async function modernExchange(t: Deno.TestContext, send: Send): Promise<void> {
  const meta = envelope({ elicitation: { form: {} } });
  let supported: unknown;
  await t.step(
    "server/discover lists 2026-07-28, the skills extension and the catalog",
    async () => {
      const discover = await send("server/discover", { _meta: meta });
      supported = discover.supportedVersions;
      assert.deepEqual(supported, [MODERN]);
      const capabilities = discover.capabilities as { extensions?: Record<string, unknown> };
      assert.deepEqual(capabilities.extensions?.["io.modelcontextprotocol/skills"], {
        directoryRead: true,
      });
      assert.match(String(discover.instructions), new RegExp(`<name>${SKILL}</name>`));
      assert.equal(discover.resultType, "complete");
      assert.equal(discover.ttlMs, 2_000);
      assert.equal(discover.cacheScope, "public");
    },
  );
  await t.step("tools/list: complete, private under --tools=auto", async () => {
    const list = await send("tools/list", { _meta: meta });
    assert.ok((list.tools as { name: string }[]).some((tool) => tool.name === "skill_run"));
    assert.equal(list.resultType, "complete");
    assert.equal(list.cacheScope, "private");
  });
  await t.step(
    "--tools=auto decides per request from the envelope's declared capabilities",
    async () => {
      const skillsAware = envelope({ extensions: { "io.modelcontextprotocol/skills": {} } });
      const names = (list: Record<string, unknown>) =>
        (list.tools as { name: string }[]).map((tool) => tool.name);
      assert.deepEqual(names(await send("tools/list", { _meta: skillsAware })), [
        "skill_list",
        "skill_search",
        "skill_run",
      ]);
      assert.ok(names(await send("tools/list", { _meta: meta })).includes("skill_load"));
    },
  );
  await t.step("skills/list carries resultType, ttlMs and cacheScope", async () => {
    const list = await send("skills/list", { _meta: meta });
    const skills = list.skills as { uri: string }[];
    assert.deepEqual(skills.map((skill) => skill.uri), [`skill://${SKILL}/SKILL.md`]);
    assert.deepEqual([list.resultType, list.ttlMs, list.cacheScope], ["complete", 2_000, "public"]);
  });
  const call = (extra: Record<string, unknown> = {}) =>
    send("tools/call", {
      name: "skill_run",
      arguments: { name: SKILL, script: "scripts/greet.sh", args: ["ada"] },
      _meta: meta,
      ...extra,
    });
  let state = "";
  const accept = { confirm: { action: "accept", content: { run: true } } };
  await t.step(
    "skill_run answers input_required with an elicitation and a requestState",
    async () => {
      const first = await call();
      assert.equal(first.resultType, "input_required");
      const requests = first.inputRequests as Record<string, { method: string; params: unknown }>;
      assert.equal(requests.confirm?.method, "elicitation/create");
      assert.match(JSON.stringify(requests.confirm?.params), /greet\.sh/);
      assert.equal(typeof first.requestState, "string");
      state = first.requestState as string;
    },
  );
  await t.step("attack: a tampered requestState is refused and nothing runs", async () => {
    const tampered = state.slice(0, -2) + (state.endsWith("AA") ? "BB" : "AA");
    const answer = await call({ requestState: tampered, inputResponses: accept });
    assert.equal(answer.isError, true);
    // The MAC binds the exact preview, so a forged MAC reads as "not what was confirmed".
    assert.match(JSON.stringify(answer.content), /TOKEN_INVALID|DRAFT_CHANGED/);
    assert.doesNotMatch(JSON.stringify(answer), /hello ada/);
  });
  await t.step("the retry with the user's acceptance runs the script", async () => {
    const done = await call({ requestState: state, inputResponses: accept });
    assert.equal(done.resultType, "complete");
    assert.notEqual(done.isError, true, JSON.stringify(done));
    assert.match(JSON.stringify(done.structuredContent), /hello ada/);
  });
  await t.step("attack: replaying the same requestState is refused (single use)", async () => {
    const replay = await call({ requestState: state, inputResponses: accept });
    assert.equal(replay.isError, true);
    assert.match(JSON.stringify(replay.content), /TOKEN_REUSED/);
    assert.doesNotMatch(JSON.stringify(replay), /hello ada/);
  });
  await t.step("a declined confirmation does not run", async () => {
    const ask = await call();
    const declined = await call({
      requestState: ask.requestState,
      inputResponses: { confirm: { action: "decline" } },
    });
    assert.equal(declined.isError, true);
    assert.match(JSON.stringify(declined.content), /CONFIRMATION_DECLINED/);
  });
}

Deno.test("stdio: a raw 2026-07-28 exchange without initialize, skill_run confirmed through input_required", async (t) => {
  await using tree = await makeSkillRoot();
  await using child = spawnRpcChild(skillgateCommand([tree.root], { env: ENV }));
  await modernExchange(t, async (method, params) => {
    const answer = await child.request(method, params);
    return answer.result as Record<string, unknown>;
  });
  await t.step("a request without the envelope on a 2026-07-28 connection is refused", async () => {
    await assert.rejects(
      child.request("tools/list", {}),
      (error: unknown) => error instanceof RpcError && error.code === -32602,
    );
  });
});

Deno.test("stdio: an unsupported version gets an error listing exactly what server/discover lists", async () => {
  await using tree = await makeSkillRoot();
  const request = (id: number, method: string, version: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": version,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
  const refused = await runProgram(["serve", tree.root], {
    env: ENV,
    stdin: request(1, "tools/list", "2099-01-01") + "\n",
  });
  const error = JSON.parse(refused.stdout.trim()).error;
  assert.equal(error.code, -32022);
  const discovered = await runProgram(["serve", tree.root], {
    env: ENV,
    stdin: request(2, "server/discover", MODERN) + "\n",
  });
  const discover = JSON.parse(discovered.stdout.trim()).result;
  assert.deepEqual(error.data.supported, discover.supportedVersions);
  assert.deepEqual(discover.supportedVersions, [MODERN]);
});

/** Reads a JSON-RPC answer from a JSON or SSE response body. */
function answerOf(text: string, contentType: string): Record<string, unknown> {
  if (!contentType.includes("text/event-stream")) return JSON.parse(text);
  const data = text.split("\n").filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim()).filter((line) => line !== "");
  const messages = data.map((line) => JSON.parse(line) as Record<string, unknown>);
  const answer = messages.find((message) => "result" in message || "error" in message);
  assert.ok(answer !== undefined, text);
  return answer;
}

Deno.test("HTTP: a raw 2026-07-28 exchange without initialize, skill_run confirmed through input_required", async (t) => {
  await using tree = await makeSkillRoot();
  await using server = await startHttpProgram(["serve", tree.root], {
    env: { ...ENV, SKILLGATE_HTTP_TOKEN: TOKEN },
  });
  let id = 0;
  const post = async (method: string, params: Record<string, unknown>, name?: string) => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKEN}`,
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        ...(name === undefined ? {} : { "mcp-name": name }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const text = await response.text();
    return {
      status: response.status,
      answer: answerOf(text, response.headers.get("content-type") ?? ""),
    };
  };
  await modernExchange(t, async (method, params) => {
    const { answer } = await post(method, params, params.name as string | undefined);
    if ("error" in answer) throw answer.error;
    return answer.result as Record<string, unknown>;
  });
  await t.step("attack: an Mcp-Method header that disagrees with the body gets 400", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKEN}`,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 99,
        method: "skills/list",
        params: { _meta: envelope() },
      }),
    });
    const text = await response.text();
    assert.equal(response.status, 400, text);
    assert.match(text, /Mcp-Method/);
  });
  await t.step("our front still runs first: no bearer token, 401", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-method": "tools/list" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 100,
        method: "tools/list",
        params: { _meta: envelope() },
      }),
    });
    await response.body?.cancel();
    assert.equal(response.status, 401);
  });
});
