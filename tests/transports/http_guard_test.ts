import assert from "node:assert/strict";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import {
  exampleStore,
  httpConfig,
  INITIALIZE,
  POST_HEADERS,
  send,
  TEST_PORT,
  TEST_TOKEN,
  testHandler,
} from "./_http.ts";

Deno.test("HTTP handler refuses a present foreign Origin with 403, even on /healthz", async () => {
  await using h = await testHandler(httpConfig());
  for (const origin of ["http://evil.example.com", "null", `http://localhost:${TEST_PORT + 1}`]) {
    const mcp = await send(h.http, {
      method: "POST",
      headers: { ...POST_HEADERS, origin },
      body: INITIALIZE,
    });
    assert.equal(mcp.status, 403, origin);
    assert.match(mcp.text, /Forbidden: Origin/);
    const health = await send(h.http, { path: "/healthz", headers: { origin } });
    assert.equal(health.status, 403, origin);
  }
  assert.equal(h.http.stats().sessions, 0);
});

Deno.test("HTTP handler accepts loopback origins on its own port and allowed origins", async () => {
  await using h = await testHandler(httpConfig(["--allowed-origins=https://app.example.com"]));
  for (
    const origin of [
      `http://localhost:${TEST_PORT}`,
      `http://127.0.0.1:${TEST_PORT}`,
      `http://[::1]:${TEST_PORT}`,
      "https://app.example.com",
    ]
  ) {
    const response = await send(h.http, {
      method: "POST",
      headers: { ...POST_HEADERS, origin },
      body: INITIALIZE,
    });
    assert.equal(response.status, 200, `${origin}: ${response.text}`);
  }
});

Deno.test("HTTP handler refuses a foreign Host (DNS rebinding) with 403", async () => {
  await using h = await testHandler(httpConfig());
  for (
    const host of [
      "evil.example.com",
      `evil.example.com:${TEST_PORT}`,
      `localhost:${TEST_PORT + 1}`,
    ]
  ) {
    const response = await send(h.http, {
      method: "POST",
      headers: { ...POST_HEADERS, host },
      body: INITIALIZE,
    });
    assert.equal(response.status, 403, host);
    assert.match(response.text, /Forbidden: Host/);
    assert.doesNotMatch(response.text, /127\.0\.0\.1/, "the error does not list what is allowed");
  }
  assert.equal(h.http.stats().sessions, 0);
});

Deno.test("HTTP handler accepts localhost, 127.0.0.1 and [::1] with its port, and allowed hosts", async () => {
  await using h = await testHandler(
    httpConfig(["--allowed-hosts=skills.example.com,other.example.com:8443"]),
  );
  for (
    const host of [
      `localhost:${TEST_PORT}`,
      `127.0.0.1:${TEST_PORT}`,
      `[::1]:${TEST_PORT}`,
      `LOCALHOST:${TEST_PORT}`,
      "skills.example.com",
      "skills.example.com:443",
      "other.example.com:8443",
    ]
  ) {
    const response = await send(h.http, {
      method: "POST",
      headers: { ...POST_HEADERS, host },
      body: INITIALIZE,
    });
    assert.equal(response.status, 200, `${host}: ${response.text}`);
  }
  const wrongPort = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, host: "other.example.com:8444" },
    body: INITIALIZE,
  });
  assert.equal(wrongPort.status, 403);
});

Deno.test("HTTP handler with a token answers 401 and a Bearer challenge without it", async () => {
  await using h = await testHandler(httpConfig([], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN }));
  const missing = await send(h.http, { method: "POST", headers: POST_HEADERS, body: INITIALIZE });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="skillgate"');
  const wrong = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, authorization: `Bearer ${TEST_TOKEN}x` },
    body: INITIALIZE,
  });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  assert.ok(!wrong.text.includes(TEST_TOKEN), "the answer never echoes the token");
  const prefix = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, authorization: `Bearer ${TEST_TOKEN.slice(0, 8)}` },
    body: INITIALIZE,
  });
  assert.equal(prefix.status, 401);
  const basic = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, authorization: `Basic ${btoa(`user:${TEST_TOKEN}`)}` },
    body: INITIALIZE,
  });
  assert.equal(basic.status, 401);
  const right = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, authorization: `bearer ${TEST_TOKEN}` },
    body: INITIALIZE,
  });
  assert.equal(right.status, 200, right.text);
  assert.equal(h.http.stats().sessions, 1);
});

Deno.test("HTTP handler checks the token before it says whether a path exists", async () => {
  await using h = await testHandler(httpConfig([], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN }));
  assert.equal((await send(h.http, { path: "/admin" })).status, 401);
  const found = await send(h.http, {
    path: "/admin",
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
  });
  assert.equal(found.status, 404);
});

Deno.test("/healthz answers ok and /readyz turns ready once the catalog is loaded", async () => {
  const config = httpConfig([], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN });
  let resolveStore: (store: Awaited<ReturnType<typeof exampleStore>>) => void = () => {};
  const store = new Promise<Awaited<ReturnType<typeof exampleStore>>>((resolve) =>
    resolveStore = resolve
  );
  await using h = await testHandler(config, { store });
  // Probes need neither the token nor a known Host (orchestrators address pods by IP).
  const probeHeaders = { host: "10.1.2.3:8080" };
  const alive = await send(h.http, { path: "/healthz", headers: probeHeaders });
  assert.equal(alive.status, 200);
  assert.deepEqual(alive.json(), { status: "ok" });
  const loading = await send(h.http, { path: "/readyz", headers: probeHeaders });
  assert.equal(loading.status, 503);
  assert.deepEqual(loading.json(), { status: "loading" });
  const early = await send(h.http, {
    method: "POST",
    headers: { ...POST_HEADERS, authorization: `Bearer ${TEST_TOKEN}` },
    body: INITIALIZE,
  });
  assert.equal(early.status, 503);
  assert.equal(early.headers.get("retry-after"), "1");
  resolveStore(createCatalogStore(await buildCatalog(config.roots, config.caps)));
  await store;
  const ready = await send(h.http, { path: "/readyz", headers: probeHeaders });
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.json(), { status: "ready" });
  const post = await send(h.http, { method: "POST", path: "/healthz" });
  assert.equal(post.status, 405);
});

Deno.test("HTTP bound to 0.0.0.0 accepts a container's mapped port or the machine's name as Host, behind the token", async () => {
  const config = httpConfig(["--host=0.0.0.0"], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN });
  await using h = await testHandler(config);
  const authorization = `Bearer ${TEST_TOKEN}`;
  for (const host of ["localhost:9000", "build-box:8080", `build-box.lan:${TEST_PORT}`]) {
    const accepted = await send(h.http, {
      method: "POST",
      headers: { ...POST_HEADERS, host, authorization },
      body: INITIALIZE,
    });
    assert.equal(accepted.status, 200, `${host}: ${accepted.text}`);
    const anonymous = await send(h.http, {
      method: "POST",
      headers: { ...POST_HEADERS, host },
      body: INITIALIZE,
    });
    assert.equal(anonymous.status, 401, `${host}: any Host still needs the token`);
  }
  const rebound = await send(h.http, {
    method: "POST",
    headers: {
      ...POST_HEADERS,
      host: "evil.example.com:9000",
      origin: "http://evil.example.com:9000",
      authorization,
    },
    body: INITIALIZE,
  });
  assert.equal(rebound.status, 403, "a page's own Origin is still refused");
  assert.match(rebound.text, /Forbidden: Origin/);
});
