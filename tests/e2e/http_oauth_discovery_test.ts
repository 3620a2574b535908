/**
 * End-to-end over Streamable HTTP with a bearer token: skillgate does not use
 * OAuth, so the paths an OAuth client probes (`/.well-known/...`, and the
 * `/register` it falls back to) answer 404 at once, without a token, instead
 * of 401. The real SDK client with the token connects as before; the real
 * SDK client that tries OAuth (an auth provider, no token) falls back through
 * 404s and reports the server's words on what to do.
 */

import assert from "node:assert/strict";
import { rawRequest, startHttpProgram } from "../support/http_program.ts";
import { copyCorpus, FIXTURE_CORPUS } from "../support/corpora.ts";
import { Client, StreamableHTTPClientTransport } from "../support/sdk_client.ts";

const TOKEN = "e2e-token-abcdef0123456789";
const DISCOVERY = [
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
];

/** The smallest OAuth client provider the SDK accepts: nothing stored, no browser. */
function oauthProvider() {
  const redirect = "http://127.0.0.1:9/callback";
  return {
    get redirectUrl() {
      return redirect;
    },
    get clientMetadata() {
      return { redirect_uris: [redirect], client_name: "skillgate-tests" };
    },
    clientInformation: () => undefined,
    saveClientInformation: () => {},
    tokens: () => undefined,
    saveTokens: () => {},
    redirectToAuthorization: () => {},
    saveCodeVerifier: () => {},
    codeVerifier: () => "unused",
  };
}

Deno.test("HTTP with a bearer token: OAuth discovery paths answer 404 (no OAuth here), and SDK clients fall back cleanly", async (t) => {
  await using copy = await copyCorpus(FIXTURE_CORPUS);
  await using server = await startHttpProgram(["serve", copy.root], {
    env: { SKILLGATE_HTTP_TOKEN: TOKEN },
  });

  await t.step("the discovery documents are 404 with or without the token", async () => {
    for (const path of DISCOVERY) {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
        const answer = await fetch(`${server.base}${path}`, { headers });
        const body = await answer.json();
        assert.equal(answer.status, 404, path);
        assert.match(String(body.error_description), /does not use OAuth/);
      }
    }
    // MCP itself still needs the token.
    const mcp = await fetch(server.url, { method: "POST", body: "{}" });
    await mcp.body?.cancel();
    assert.equal(mcp.status, 401);
  });

  await t.step("a foreign Host is still refused first (403), discovery path or not", async () => {
    const answer = await rawRequest(
      server.port,
      `GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: evil.example:${server.port}`,
    );
    assert.equal(answer.status, 403);
  });

  await t.step("the SDK client with the bearer token connects and lists tools", async () => {
    const client = new Client({ name: "skillgate-e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === "skill_list"));
    } finally {
      await client.close();
    }
  });

  await t.step(
    "the SDK client trying OAuth gets 404s and the server's words, not a 401 loop",
    async () => {
      const seen: string[] = [];
      const logged: typeof fetch = async (input, init) => {
        const answer = await fetch(input, init);
        const url = new URL(input instanceof Request ? input.url : String(input));
        seen.push(`${init?.method ?? "GET"} ${url.pathname} ${answer.status}`);
        return answer;
      };
      const client = new Client({ name: "skillgate-e2e", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        authProvider: oauthProvider(),
        fetch: logged,
      });
      const failure = await client.connect(transport).then(() => null, (error: unknown) => error);
      await client.close();
      assert.ok(failure instanceof Error, "connecting without the token must fail");
      assert.match(failure.message, /does not use OAuth: configure the client to send/);
      assert.equal(seen[0], "POST /mcp 401");
      const probes = seen.slice(1);
      assert.ok(probes.some((line) => line.startsWith("GET /.well-known/")), seen.join("\n"));
      assert.deepEqual(probes.filter((line) => !line.endsWith(" 404")), [], seen.join("\n"));
    },
  );
});
