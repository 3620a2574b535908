import assert from "node:assert/strict";
import { ProtocolError, Server } from "../../../src/mcp/sdk.ts";
import {
  addSubscription,
  removeSubscription,
  subscriptionsOf,
} from "../../../src/mcp/resources/subscriptions.ts";

function newServer(): Server {
  return new Server({ name: "t", version: "0" }, {
    capabilities: { resources: { subscribe: true } },
  });
}

Deno.test("subscriptions are recorded per server and removed idempotently", () => {
  const one = newServer();
  const two = newServer();
  addSubscription(one, "skill://a/SKILL.md");
  addSubscription(one, "skill://a/SKILL.md");
  addSubscription(one, "skill://b/x.md");
  addSubscription(two, "skill://c/SKILL.md");
  assert.deepEqual([...subscriptionsOf(one)], ["skill://a/SKILL.md", "skill://b/x.md"]);
  assert.deepEqual([...subscriptionsOf(two)], ["skill://c/SKILL.md"]);
  assert.equal(removeSubscription(one, "skill://a/SKILL.md"), true);
  assert.equal(removeSubscription(one, "skill://a/SKILL.md"), false);
  assert.equal(removeSubscription(newServer(), "skill://a/SKILL.md"), false);
  assert.deepEqual([...subscriptionsOf(one)], ["skill://b/x.md"]);
});

Deno.test("subscriptionsOf() returns a snapshot the caller cannot change", () => {
  const server = newServer();
  assert.equal(subscriptionsOf(server).size, 0);
  addSubscription(server, "skill://a/SKILL.md");
  const snapshot = subscriptionsOf(server);
  (snapshot as Set<string>).add("skill://evil/SKILL.md");
  addSubscription(server, "skill://b/SKILL.md");
  assert.deepEqual([...subscriptionsOf(server)], ["skill://a/SKILL.md", "skill://b/SKILL.md"]);
});

Deno.test("attack: subscribing to every served file stops at the per-session cap", () => {
  const server = newServer();
  for (let index = 0; index < 3; index++) addSubscription(server, `skill://a/${index}.md`, 3);
  addSubscription(server, "skill://a/0.md", 3);
  assert.throws(() => addSubscription(server, "skill://a/3.md", 3), (error) => {
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, -32602);
    assert.match(error.message, /at most 3 resource subscriptions/);
    return true;
  });
  assert.equal(subscriptionsOf(server).size, 3);
});
