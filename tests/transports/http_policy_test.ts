import assert from "node:assert/strict";
import {
  createBearerCheck,
  isEqualInConstantTime,
} from "../../src/transports/http/bearer_token.ts";
import {
  createHostPolicy,
  isLoopbackHost,
  normaliseOrigin,
  parseHostPort,
  urlHost,
} from "../../src/transports/http/host_policy.ts";
import { createInFlight } from "../../src/transports/http/in_flight.ts";

Deno.test("isLoopbackHost() knows which listen addresses stay on this machine", () => {
  const table: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["LocalHost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.5", false],
    ["127.0.0.1.evil.com", false],
    ["localhost.evil.com", false],
  ];
  for (const [host, expected] of table) assert.equal(isLoopbackHost(host), expected, host);
  assert.equal(urlHost("::1"), "[::1]");
  assert.equal(urlHost("127.0.0.1"), "127.0.0.1");
});

Deno.test("createHostPolicy() on loopback accepts only this server's names for Host", () => {
  const policy = createHostPolicy({
    host: "127.0.0.2",
    port: 3000,
    allowedHosts: ["skills.example.com", "api.example.com:8443", "bad host"],
    allowedOrigins: [],
  });
  const table: [string | null, boolean][] = [
    ["localhost:3000", true],
    ["127.0.0.1:3000", true],
    ["[::1]:3000", true],
    ["127.0.0.2:3000", true],
    ["127.0.0.2:3001", false],
    ["localhost", false],
    ["skills.example.com", true],
    ["skills.example.com:1234", true],
    ["api.example.com:8443", true],
    ["api.example.com", false],
    ["evil.example.com:3000", false],
    ["127.0.0.1:3000@evil.com", false],
    ["", false],
    [null, false],
  ];
  for (const [host, expected] of table) {
    assert.equal(policy.isHostAllowed(host), expected, String(host));
  }
});

Deno.test("createHostPolicy() bound beyond loopback accepts any Host: a container's port mapping or the machine's name", () => {
  for (const host of ["0.0.0.0", "::", "10.0.0.5"]) {
    const policy = createHostPolicy({ host, port: 8080, allowedHosts: [], allowedOrigins: [] });
    for (const value of ["localhost:9000", "build-box:8080", "build-box.lan", "10.0.0.5:8080"]) {
      assert.equal(policy.isHostAllowed(value), true, `${host}: ${value}`);
    }
  }
});

Deno.test("createHostPolicy() beyond loopback still refuses a rebound page's own Origin", () => {
  const policy = createHostPolicy({
    host: "0.0.0.0",
    port: 8080,
    allowedHosts: ["skills.example.com"],
    allowedOrigins: [],
  });
  assert.equal(policy.isHostAllowed("evil.example.com:8080"), true, "any Host reaches the token");
  assert.equal(
    policy.isOriginAllowed("http://evil.example.com:8080", "evil.example.com:8080"),
    false,
    "same origin counts only for this server's own names",
  );
  assert.equal(policy.isOriginAllowed("https://skills.example.com", "skills.example.com"), true);
  assert.equal(policy.isOriginAllowed("http://localhost:8080", "build-box:8080"), true);
  assert.equal(policy.isOriginAllowed("http://0.0.0.0:8080", "0.0.0.0:8080"), false);
});

Deno.test("parseHostPort() and normaliseOrigin() accept exactly host[:port] and http(s) origins", () => {
  assert.deepEqual(parseHostPort("example.com:8443"), { name: "example.com", port: 8443 });
  assert.deepEqual(parseHostPort("[::1]"), { name: "[::1]", port: null });
  for (const bad of ["http://x", "x/path", "x:0", "x:70000", "user@x", "x?y", "", "a b"]) {
    assert.equal(parseHostPort(bad), null, bad);
  }
  assert.equal(normaliseOrigin("HTTPS://App.Example.com:443/"), "https://app.example.com");
  assert.equal(normaliseOrigin("http://localhost:3000"), "http://localhost:3000");
  for (const bad of ["*", "null", "app.example.com", "https://x/path", "https://u@x", "ftp://x"]) {
    assert.equal(normaliseOrigin(bad), null, bad);
  }
});

Deno.test("createHostPolicy() accepts loopback, allowed and same-host origins only", () => {
  const policy = createHostPolicy({
    host: "127.0.0.1",
    port: 3000,
    allowedHosts: ["skills.example.com"],
    allowedOrigins: ["https://app.example.com/"],
  });
  const table: [string, string, boolean][] = [
    ["http://localhost:3000", "localhost:3000", true],
    ["http://127.0.0.1:3000", "127.0.0.1:3000", true],
    ["http://[::1]:3000", "127.0.0.1:3000", true],
    ["https://app.example.com", "127.0.0.1:3000", true],
    ["https://skills.example.com", "skills.example.com", true],
    ["http://localhost:3001", "localhost:3000", false],
    ["https://localhost:3000", "localhost:3000", true],
    ["http://evil.example.com", "127.0.0.1:3000", false],
    ["http://evil.example.com", "evil.example.com", false],
    ["null", "127.0.0.1:3000", false],
    ["http://localhost:3000/path", "localhost:3000", false],
    ["file://", "localhost:3000", false],
  ];
  for (const [origin, host, expected] of table) {
    assert.equal(policy.isOriginAllowed(origin, host), expected, `${origin} with Host ${host}`);
  }
});

Deno.test("createBearerCheck() tells a missing token from a wrong one and accepts the right one", async () => {
  const check = createBearerCheck("s3cret-token-0123456789");
  assert.equal(await check(null), "missing");
  assert.equal(await check("Basic abc"), "missing");
  assert.equal(await check("Bearer"), "missing");
  assert.equal(await check("Bearer s3cret-token-012345678"), "wrong");
  assert.equal(await check("Bearer s3cret-token-01234567890"), "wrong");
  assert.equal(await check("Bearer S3CRET-TOKEN-0123456789"), "wrong");
  assert.equal(await check("Bearer s3cret-token-0123456789"), "ok");
  assert.equal(await check("bearer  s3cret-token-0123456789 "), "ok");
  assert.equal(isEqualInConstantTime(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
  assert.equal(isEqualInConstantTime(new Uint8Array([1, 2]), new Uint8Array([1, 3])), false);
  assert.equal(isEqualInConstantTime(new Uint8Array([1]), new Uint8Array([1, 0])), false);
});

Deno.test("createInFlight() bounds slots, releases once, and reports idleness", async () => {
  const counter = createInFlight(2);
  const a = counter.tryEnter();
  const b = counter.tryEnter();
  assert.ok(a && b);
  assert.equal(counter.tryEnter(), null);
  const idle = counter.idle(60_000);
  a();
  a();
  assert.equal(counter.count(), 1, "releasing twice frees one slot");
  b();
  assert.equal(await idle, true);
  const c = counter.tryEnter();
  assert.equal(await counter.idle(1), false, "the time ran out with work in flight");
  c?.();
});

Deno.test("parseHostPort() and normaliseOrigin() refuse wildcards and port 0", () => {
  assert.equal(parseHostPort("*"), null);
  assert.equal(parseHostPort("*.example.com"), null);
  assert.equal(normaliseOrigin("http://*.example.com"), null);
  assert.equal(normaliseOrigin("http://a.com:0"), null);
  assert.equal(normaliseOrigin("http://a.com:8080"), "http://a.com:8080");
});
