import assert from "node:assert/strict";
import { Server } from "../../../src/mcp/sdk.ts";
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
