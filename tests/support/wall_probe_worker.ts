/**
 * TEST-ONLY worker entry: runs inside the product's computed permission set
 * and tries, with Deno's APIs directly (no path gate, no grant check), to
 * read inside and outside the root, to follow a symlink out, to spawn a
 * process, to read the environment, to write and to listen. Reports what
 * happened to each attempt as `ok` or the error's class name.
 */

/// <reference lib="deno.worker" />

import { dirname, join } from "node:path";
import type { StartMessage } from "../../src/sandbox/messages.ts";

async function attempt(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
    return "ok";
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

self.onmessage = async (event: MessageEvent<StartMessage>) => {
  const root = event.data.config.roots[0]?.path ?? "/nonexistent";
  const outside = join(dirname(root), "outside", "secret.txt");
  const results = {
    readInsideRoot: await attempt(() => Deno.readTextFile(join(root, "inside.txt"))),
    readOutsideRoot: await attempt(() => Deno.readTextFile(outside)),
    readEtcPasswd: await attempt(() => Deno.readTextFile("/etc/passwd")),
    readThroughSymlinkOut: await attempt(() =>
      Deno.readTextFile(join(root, "link-out", "secret.txt"))
    ),
    statOutsideRoot: await attempt(() => Deno.stat(outside)),
    spawnShell: await attempt(() => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()),
    readEnvHome: await attempt(() => Promise.resolve(Deno.env.get("HOME"))),
    readEnvYaml: await attempt(() => Promise.resolve(Deno.env.get("LOG_TOKENS"))),
    writeInsideRoot: await attempt(() => Deno.writeTextFile(join(root, "written.txt"), "x")),
    listen: await attempt(() => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      listener.close();
      return Promise.resolve();
    }),
  };
  self.postMessage({ type: "exit", code: 0, message: JSON.stringify(results) });
};
