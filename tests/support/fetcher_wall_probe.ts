/**
 * TEST-ONLY fetcher entry: runs inside the product's fetcher permission set
 * (started by the product's `startFetcher()`) and tries, with Deno's APIs
 * directly (none of our checks), to read a skill root, to write outside the
 * sources cache, to read other environment names, to reach a host off the
 * list and to spawn. Answers the first `fetch` with one result object (in the
 * place of the outcomes): each attempt's `ok` or error class name. The skill
 * root and the off-list address arrive as the first order's `given`
 * (`ROOT|HOST:PORT`).
 */

/// <reference lib="deno.worker" />

import { join } from "node:path";
import type { FetchMessage } from "../../src/remote/fetcher_messages.ts";

async function attempt(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
    return "ok";
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

self.onmessage = async (event: MessageEvent<FetchMessage>) => {
  const { cacheDir, endpoints, id, orders, publisherOrigins } = event.data;
  const [root = "/nonexistent", offList = "127.0.0.1:9"] = (orders[0]?.given ?? "").split("|");
  const results = {
    writeInsideCache: await attempt(() => Deno.writeTextFile(join(cacheDir, "probe.txt"), "x")),
    readInsideCache: await attempt(() => Deno.readTextFile(join(cacheDir, "probe.txt"))),
    readSkillRoot: await attempt(() => Deno.readTextFile(join(root, "SKILL.md"))),
    listSkillRoot: await attempt(() => Deno.readDir(root)[Symbol.asyncIterator]().next()),
    writeSkillRoot: await attempt(() => Deno.writeTextFile(join(root, "evil.md"), "x")),
    writeBesideCache: await attempt(() => Deno.writeTextFile(`${cacheDir}-evil`, "x")),
    writeTmp: await attempt(() => Deno.writeTextFile("/tmp/skillgate-fetcher-evil", "x")),
    readEtcPasswd: await attempt(() => Deno.readTextFile("/etc/passwd")),
    readEnvToken: await attempt(() => Promise.resolve(Deno.env.get("GITHUB_TOKEN"))),
    readEnvHome: await attempt(() => Promise.resolve(Deno.env.get("HOME"))),
    fetchApiHost: await attempt(async () => {
      await (await fetch(`http://${endpoints.apiHost}/`)).body?.cancel();
    }),
    fetchPublisherOrigin: await attempt(async () => {
      const origin = publisherOrigins?.[0];
      if (origin === undefined) throw new Error("NoPublisher");
      await (await fetch(`${origin}/`)).body?.cancel();
    }),
    fetchOffList: await attempt(async () => {
      await (await fetch(`http://${offList}/`)).body?.cancel();
    }),
    spawnShell: await attempt(() => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()),
    listen: await attempt(() => {
      Deno.listen({ hostname: "127.0.0.1", port: 0 }).close();
      return Promise.resolve();
    }),
  };
  self.postMessage({ type: "outcomes", id, outcomes: [results] });
};
