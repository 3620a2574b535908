import assert from "node:assert/strict";
import { constantTimeEqual, createConfirmer } from "../../../src/scripts/confirm/confirmer.ts";
import { canonicalJson } from "../../../src/scripts/confirm/canonical_json.ts";

const PREVIEW = {
  willRun: {
    skill: "s",
    script: "a.py",
    argv: ["/usr/bin/python3", "/r/a.py", "x"],
    timeoutMs: 60000,
  },
  note: "n",
};

function clock(startMs = 1_700_000_000_000) {
  let now = startMs;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

Deno.test("a confirmation token confirms its preview exactly once", async () => {
  const confirmer = createConfirmer({ secret: null, ttlSeconds: 600 });
  const token = await confirmer.issue(PREVIEW);
  assert.equal(await confirmer.check(token, structuredClone(PREVIEW)), "ok");
  assert.equal(await confirmer.check(token, PREVIEW), "TOKEN_REUSED");
});

Deno.test("a token for another preview is DRAFT_CHANGED, whatever the key order", async () => {
  const confirmer = createConfirmer({ secret: null, ttlSeconds: 600 });
  const token = await confirmer.issue(PREVIEW);
  const { skill, script, argv, timeoutMs } = PREVIEW.willRun;
  const reordered = { note: "n", willRun: { timeoutMs, argv, script, skill } };
  const changed = {
    ...PREVIEW,
    willRun: { ...PREVIEW.willRun, argv: ["/usr/bin/python3", "/r/a.py", "y"] },
  };
  assert.equal(await confirmer.check(token, changed), "DRAFT_CHANGED");
  assert.equal(await confirmer.check(token, reordered), "ok");
});

Deno.test("a token expires after the TTL (injected clock)", async () => {
  const time = clock();
  const confirmer = createConfirmer({ secret: null, ttlSeconds: 600, now: time.now });
  const early = await confirmer.issue(PREVIEW);
  const late = await confirmer.issue(PREVIEW);
  time.advance(600_000);
  assert.equal(await confirmer.check(early, PREVIEW), "ok", "exactly at the TTL it still counts");
  time.advance(1);
  assert.equal(await confirmer.check(late, PREVIEW), "TOKEN_EXPIRED");
});

Deno.test("tokens from another key or of another shape are refused", async () => {
  const shared = { secret: "shared-secret", ttlSeconds: 600, isSharedAcrossReplicas: true };
  const mine = createConfirmer(shared);
  const replica = createConfirmer(shared);
  const stranger = createConfirmer({ secret: null, ttlSeconds: 600 });
  const token = await mine.issue(PREVIEW);
  assert.equal(await replica.check(token, PREVIEW), "ok", "a shared secret verifies on a replica");
  assert.equal(await stranger.check(await mine.issue(PREVIEW), PREVIEW), "DRAFT_CHANGED");
  for (const bad of ["", "v1", "v1.1.2.3", `v2.${token.slice(3)}`, `${token}x`]) {
    assert.equal(await mine.check(bad, PREVIEW), "TOKEN_INVALID", bad);
  }
});

Deno.test("a token issued in the future is refused", async () => {
  const time = clock();
  const confirmer = createConfirmer({ secret: "k", ttlSeconds: 600, now: time.now });
  const token = await confirmer.issue(PREVIEW);
  time.advance(-3_600_000);
  assert.equal(await confirmer.check(token, PREVIEW), "TOKEN_INVALID");
});

Deno.test("spent tokens are forgotten only once expired, so none is ever spent twice", async () => {
  const time = clock();
  const confirmer = createConfirmer({ secret: null, ttlSeconds: 1, now: time.now, maxSpent: 2 });
  const tokens = await Promise.all([1, 2, 3, 4].map(() => confirmer.issue(PREVIEW)));
  for (const token of tokens) assert.equal(await confirmer.check(token, PREVIEW), "ok");
  for (const token of tokens) assert.equal(await confirmer.check(token, PREVIEW), "TOKEN_REUSED");
  time.advance(5_000);
  assert.equal(await confirmer.check(tokens[0] as string, PREVIEW), "TOKEN_EXPIRED");
});

Deno.test("constantTimeEqual() and canonicalJson() behave", () => {
  assert.ok(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])));
  assert.ok(!constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])));
  assert.ok(!constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 0])));
  assert.equal(
    canonicalJson({ b: [1, { d: null, c: "x" }], a: true }),
    '{"a":true,"b":[1,{"c":"x","d":null}]}',
  );
  assert.throws(() => canonicalJson({ a: Number.NaN }), TypeError);
});

Deno.test("attack: a spent token presented to the restarted server (same secret) is refused", async () => {
  const time = clock();
  const options = { secret: "a-shared-secret-of-32-characters", ttlSeconds: 600, now: time.now };
  const before = createConfirmer(options);
  const spent = await before.issue(PREVIEW);
  const unspent = await before.issue(PREVIEW);
  assert.equal(await before.check(spent, PREVIEW), "ok");
  time.advance(1_000);
  const after = createConfirmer(options);
  assert.equal(await after.check(spent, PREVIEW), "TOKEN_EXPIRED");
  assert.equal(await after.check(unspent, PREVIEW), "TOKEN_EXPIRED");
  assert.equal(await after.check(await after.issue(PREVIEW), PREVIEW), "ok", "new tokens work");
});

Deno.test("attack: replaying a spent token on a restarted stateless replica is refused", async () => {
  const time = clock();
  const options = {
    secret: "a-shared-secret-of-32-characters",
    ttlSeconds: 600,
    now: time.now,
    isSharedAcrossReplicas: true,
  };
  const replicaA = createConfirmer(options);
  const replicaB = createConfirmer(options);
  time.advance(10);
  const token = await replicaA.issue(PREVIEW);
  assert.equal(await replicaA.check(token, PREVIEW), "ok");
  assert.equal(await replicaA.check(token, PREVIEW), "TOKEN_REUSED");
  // Documented: single use is per replica; B, already running, accepts it once.
  assert.equal(await replicaB.check(token, PREVIEW), "ok");
  assert.equal(await replicaB.check(token, PREVIEW), "TOKEN_REUSED");
  time.advance(1_000);
  const restartedA = createConfirmer(options);
  assert.equal(await restartedA.check(token, PREVIEW), "TOKEN_EXPIRED");
});

Deno.test("without replicas a configured secret keys nothing another process can verify", async () => {
  const options = { secret: "a-shared-secret-of-32-characters", ttlSeconds: 600 };
  const one = createConfirmer(options);
  const other = createConfirmer(options);
  assert.equal(await other.check(await one.issue(PREVIEW), PREVIEW), "DRAFT_CHANGED");
});
