/**
 * TEST-ONLY entry module (never shipped): a stand-in for the trusted part
 * that, when the first argument is `wall`, makes itself non-dumpable exactly
 * as the product does (`makeNonDumpable()`), then runs one script through the
 * product's group launcher and runner (`control`: no wall, and a launcher
 * that keeps the script's capabilities, as before the fix). The script tries to open this
 * process's `/proc/<pid>/fd/1` (to write a forged line) and `fd/0`. Prints
 * `{status, stdout}` as JSON on its last line.
 */

import { makeNonDumpable } from "../../src/sandbox/non_dumpable.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { isolate, probeIsolation } from "../../src/scripts/isolation.ts";
import { runScript } from "../../src/scripts/runner/run_script.ts";

const status = Deno.args[0] === "wall" ? makeNonDumpable() : null;
const killer = createGroupKiller();
const group = await probeIsolation({ shPath: "/bin/sh", killer, requested: "group" });
const script = "if (printf 'forged\\n' > /proc/$PPID/fd/1) 2>/dev/null; " +
  "then echo write=open; else echo write=denied; fi; " +
  "if (: < /proc/$PPID/fd/0) 2>/dev/null; then echo read=open; else echo read=denied; fi";
const launcher = Deno.args[0] === "wall" || group.launcher == null
  ? group.launcher ?? null
  : { ...group.launcher, setprivPath: null };
const wrapped = isolate("/bin/sh", ["-c", script], { ...group, launcher });
const outcome = await runScript(
  { ...wrapped, cwd: "/tmp", env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000 },
  { killer },
);
console.log(JSON.stringify({ status, launcher, stdout: outcome.stdout }));
