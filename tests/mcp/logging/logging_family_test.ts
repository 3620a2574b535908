import assert from "node:assert/strict";
import { createSkillServer } from "../../../src/mcp/server.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { Client, InMemoryTransport } from "../../support/sdk_client.ts";
import { httpConfig } from "../../transports/_http.ts";

Deno.test("logging: the capability is declared and setLevel filters later log messages", async () => {
  const config = httpConfig();
  const store = createCatalogStore(await buildCatalog(config.roots, config.caps));
  const server = createSkillServer({ store, config });
  const client = new Client({ name: "skillgate-tests", version: "1.0.0" });
  const received: string[] = [];
  client.fallbackNotificationHandler = (notification) => {
    if (notification.method === "notifications/message") {
      received.push(String((notification.params as { level: string }).level));
    }
    return Promise.resolve();
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    assert.deepEqual(client.getServerCapabilities()?.logging, {});
    assert.deepEqual(await client.setLoggingLevel("warning"), {});
    await server.sendLoggingMessage({ level: "info", data: "below the level" });
    await server.sendLoggingMessage({ level: "error", data: "at or above the level" });
    await client.ping(); // the notifications above arrive before the ping's answer
    assert.deepEqual(received, ["error"]);
  } finally {
    await client.close();
    await server.close();
  }
});
