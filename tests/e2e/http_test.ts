/**
 * End-to-end over Streamable HTTP: the real program on a temporary copy of a
 * corpus (tests/support/corpora.ts: the sessions run on every corpus, the
 * transport's guards on the fixture corpus), on a real loopback port, driven
 * by the real SDK client (and by raw requests where a client would not
 * misbehave).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_HTTP_BODY_BYTES } from "../../src/caps.ts";
import { freePort, rawRequest, startHttpProgram } from "../support/http_program.ts";
import { INITIALIZE, POST_HEADERS } from "../support/mcp_messages.ts";
import { copyCorpus, corpora, FIXTURE_CORPUS } from "../support/corpora.ts";
import { runProgram } from "../support/program.ts";
import {
  type CallToolResult,
  Client,
  ResourceListChangedNotificationSchema,
  StreamableHTTPClientTransport,
} from "../support/sdk_client.ts";

const TOKEN = "e2e-token-abcdef0123456789";

async function connect(
  url: string,
  headers: Record<string, string> = {},
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "skillgate-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

function structured(result: unknown): Record<string, unknown> {
  return (result as CallToolResult).structuredContent as Record<string, unknown>;
}

for (const corpus of corpora()) {
  const skills = corpus.names.length;

  Deno.test(`HTTP: a full session on the ${corpus.label} corpus, then SIGTERM ends the server cleanly`, async () => {
    await using copy = await copyCorpus(corpus);
    await using server = await startHttpProgram(["serve", copy.root]);
    assert.match(
      server.stderr(),
      new RegExp(`serving ${skills} skills? over Streamable HTTP at http://127\\.0\\.0\\.1:`),
    );
    {
      await using client = await connect(server.url);
      assert.equal(client.getServerVersion()?.name, "skillgate");
      const tools = await client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === "skill_list"));
      const list = structured(await client.callTool({ name: "skill_list", arguments: {} }));
      assert.equal(list.total, skills);
      const file = structured(
        await client.callTool({
          name: "skill_file",
          arguments: { name: corpus.facts.rich.skill, paths: ["SKILL.md"] },
        }),
      );
      const entry = (file.files as { path: string; content?: string }[])[0];
      assert.match(entry?.content ?? "", /^\uFEFF?---\r?\n/);
      const health = await fetch(`${server.base}/healthz`);
      assert.deepEqual(await health.json(), { status: "ok" });
      const ready = await fetch(`${server.base}/readyz`);
      assert.equal(ready.status, 200);
      await ready.body?.cancel();
      // The client still holds its session and SSE stream: SIGTERM closes them.
      assert.equal(await server.stop(), 0, "SIGTERM drains and exits 0");
    }
  });

  Deno.test(`HTTP: a skill edit reaches the session as a notification over SSE (${corpus.label} corpus)`, async () => {
    await using copy = await copyCorpus(corpus);
    await using server = await startHttpProgram(["serve", copy.root]);
    await using client = await connect(server.url);
    let notifications = 0;
    client.setNotificationHandler(
      ResourceListChangedNotificationSchema,
      () => void notifications++,
    );
    // The client opens its SSE stream just after initialize; an edit made before
    // that is missed, so edit again until one notification arrives (ceiling 60 s).
    for (let attempt = 0; notifications === 0 && attempt < 20; attempt++) {
      const notes = join(copy.skill(corpus.facts.rich.skill), `notes-${attempt}.md`);
      await Deno.writeTextFile(notes, "# Notes\n");
      for (let waitedMs = 0; notifications === 0 && waitedMs < 3_000; waitedMs += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    assert.ok(notifications > 0, "resources/list_changed arrived over the session's SSE stream");
  });
}

Deno.test("HTTP --stateless: requests are answered without a session", async () => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  await using server = await startHttpProgram(["serve", copy.root, "--stateless"]);
  {
    await using client = await connect(server.url);
    const list = structured(await client.callTool({ name: "skill_list", arguments: {} }));
    assert.equal(list.total, FIXTURE_CORPUS.names.length);
  }
  const response = await fetch(server.url, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  assert.match(await response.text(), /"skill_list"/);
});

Deno.test("HTTP: a foreign Origin gets 403, a foreign Host 403, a big body 413, broken JSON -32700", async () => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  await using server = await startHttpProgram(["serve", copy.root]);
  const origin = await fetch(server.url, {
    method: "POST",
    headers: { ...POST_HEADERS, origin: "http://evil.example.com" },
    body: INITIALIZE,
  });
  assert.equal(origin.status, 403);
  await origin.body?.cancel();
  const host = await rawRequest(
    server.port,
    `POST /mcp HTTP/1.1\r\nHost: evil.example.com:${server.port}\r\n` +
      "Content-Type: application/json\r\nAccept: application/json, text/event-stream",
    INITIALIZE,
  );
  assert.equal(host.status, 403, host.text);
  const ownHost = await rawRequest(
    server.port,
    `GET /healthz HTTP/1.1\r\nHost: localhost:${server.port}`,
  );
  assert.equal(ownHost.status, 200);
  const big = await fetch(server.url, {
    method: "POST",
    headers: POST_HEADERS,
    body: " ".repeat(MAX_HTTP_BODY_BYTES + 1),
  });
  assert.equal(big.status, 413);
  await big.body?.cancel();
  const broken = await fetch(server.url, {
    method: "POST",
    headers: POST_HEADERS,
    body: '{"jsonrpc":"2.0","id":1,',
  });
  assert.equal(broken.status, 400);
  const answer = await broken.json() as { error: { code: number } };
  assert.equal(answer.error.code, -32700);
});

Deno.test("HTTP bound to 0.0.0.0 needs the token: 401 without it, a session with it", async () => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  await using server = await startHttpProgram(
    ["serve", copy.root, "--host=0.0.0.0"],
    { env: { SKILLGATE_HTTP_TOKEN: TOKEN } },
  );
  assert.match(server.stderr(), /bearer token required/);
  const missing = await fetch(server.url, {
    method: "POST",
    headers: POST_HEADERS,
    body: INITIALIZE,
  });
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer /);
  await missing.body?.cancel();
  const wrong = await fetch(server.url, {
    method: "POST",
    headers: { ...POST_HEADERS, authorization: `Bearer ${TOKEN}0` },
    body: INITIALIZE,
  });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  await using client = await connect(server.url, { authorization: `Bearer ${TOKEN}` });
  const list = structured(await client.callTool({ name: "skill_list", arguments: {} }));
  assert.equal(list.total, FIXTURE_CORPUS.names.length);
});

Deno.test("HTTP refuses to start beyond loopback without a token, and reads a token file", async () => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  const root = copy.root;
  const port = freePort();
  const refused = await runProgram(["serve", root, `--http=${port}`, "--host=0.0.0.0"]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /bearer token is required: set SKILLGATE_HTTP_TOKEN or --http-token-file/,
  );
  const tokenFile = join(copy.dir, "token");
  await Deno.writeTextFile(tokenFile, `${TOKEN}\n`);
  await using server = await startHttpProgram([
    "serve",
    root,
    "--host=0.0.0.0",
    `--http-token-file=${tokenFile}`,
  ]);
  const missing = await fetch(server.url, {
    method: "POST",
    headers: POST_HEADERS,
    body: INITIALIZE,
  });
  assert.equal(missing.status, 401);
  await missing.body?.cancel();
  await using client = await connect(server.url, { authorization: `Bearer ${TOKEN}` });
  assert.equal(client.getServerVersion()?.name, "skillgate");
});
