/**
 * Review r14: the lock file is opened with a plain blocking open
 * (`src/remote/lock_file.ts` `readLockFile()`: `Deno.open(path, { read: true })`,
 * its "not a regular file" check comes after the open). A FIFO at the lock's
 * path (`./skillgate.lock` by default: the folder skillgate is started in,
 * a project or a shared folder) holds start-up for good: `serve`, `list`,
 * `sync` never answer. The configuration file's reader opens O_NONBLOCK and
 * refuses a non-regular file (load_config.ts `readOwnerFile()`).
 */

import { join } from "node:path";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";
import { assertEquals } from "./_assert.ts";

Deno.test("attack: a FIFO at the lock file's path does not hang start-up", async () => {
  const dir = await Deno.makeTempDir({ prefix: "r14-lock-fifo-" });
  try {
    const lock = join(dir, "skillgate.lock");
    const made = await new Deno.Command("mkfifo", { args: [lock] }).output();
    assertEquals(made.code, 0);
    // Generous: a start that reads the lock and refuses it takes a second or two here.
    const output = await new Deno.Command(Deno.execPath(), {
      args: programCommand([
        "list",
        "--source=github:acme/skills",
        "--github-allow=acme",
        "--github-api=http://127.0.0.1:9/",
        `--lock=${lock}`,
      ]),
      cwd: REPO_ROOT,
      clearEnv: true,
      env: programEnv({ XDG_CACHE_HOME: join(dir, "cache") }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(
      output.signal,
      null,
      `list was still waiting on the FIFO after 60 s and was killed (${output.signal})`,
    );
    assertEquals(/lock/i.test(stderr), true, stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
