/**
 * Review r14: `--allowed-origins` admits a browser page's Origin, but the
 * server never answers CORS: a page's MCP request (POST with
 * `Content-Type: application/json`, `Mcp-Session-Id`, `Authorization`) is
 * preceded by an OPTIONS preflight, which answers 405 without
 * `Access-Control-Allow-Origin`, so the browser blocks every request, and
 * even a request it did send cannot be read (no ACAO, `Mcp-Session-Id` not
 * exposed). The option the README offers for browser clients serves none.
 */

import assert from "node:assert/strict";
import { httpConfig, INITIALIZE, POST_HEADERS, send, testHandler } from "./_http.ts";

const APP = "https://app.example.com";

Deno.test("a CORS preflight from an allowed origin is answered so a browser page can use the server", async () => {
  await using h = await testHandler(httpConfig([`--allowed-origins=${APP}`]));
  const preflight = await send(h.http, {
    method: "OPTIONS",
    headers: {
      origin: APP,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type,mcp-protocol-version,mcp-session-id",
    },
  });
  assert.ok(
    preflight.status === 204 || preflight.status === 200,
    `preflight answered ${preflight.status}: ${preflight.text}`,
  );
  assert.equal(preflight.headers.get("access-control-allow-origin"), APP);
  const methods = (preflight.headers.get("access-control-allow-methods") ?? "").toUpperCase();
  assert.ok(methods.includes("POST"), methods);
  const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase();
  for (const name of ["content-type", "mcp-protocol-version", "mcp-session-id"]) {
    assert.ok(allowed.includes(name) || allowed === "*", `${name} not allowed: ${allowed}`);
  }
  const post = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, origin: APP },
    body: INITIALIZE,
  });
  assert.equal(post.status, 200, post.text);
  assert.equal(post.headers.get("access-control-allow-origin"), APP);
  const exposed = (post.headers.get("access-control-expose-headers") ?? "").toLowerCase();
  assert.ok(exposed.includes("mcp-session-id"), `Mcp-Session-Id not exposed: ${exposed}`);
});

Deno.test("attack: a preflight from an origin not allowed gets no CORS grant", async () => {
  await using h = await testHandler(httpConfig([`--allowed-origins=${APP}`]));
  const preflight = await send(h.http, {
    method: "OPTIONS",
    headers: { origin: "https://evil.example.com", "access-control-request-method": "POST" },
  });
  assert.equal(preflight.status, 403);
  assert.equal(preflight.headers.get("access-control-allow-origin"), null);
});
