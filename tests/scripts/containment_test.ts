/**
 * What each isolation mode stops, attempted for real: the same attack
 * scripts run in a bubblewrap sandbox, in a PID namespace and in a process
 * group, and each outcome must match {@linkcode CONTAINMENT_TABLE}, which is
 * also the README's table (checked below, so the two cannot drift).
 *
 * Runs at the runner level (`isolate()` + `runScript()`, exactly what
 * `skill_run` spawns); `tests/e2e/sandbox_test.ts` drives the real program.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CAPABILITY_DROP_ARGS,
  isolate,
  type Isolation,
  type SandboxPlace,
} from "../../src/scripts/isolation.ts";
import { runScript } from "../../src/scripts/runner/run_script.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";
import { closeInheritedOnExec } from "../../src/sandbox/inherited_fds.ts";
import { eventually, liveProcessesWith } from "../support/processes.ts";
import { isolationFor, sandboxOrSkip } from "../support/isolation_modes.ts";
import { makeTree } from "../skills/_tree.ts";

type Verdict = "allowed" | "refused";
type Mode = "sandbox" | "pid-namespace" | "process-group";

/** Attempted action -> what each mode does. The README's table is this one. */
export const CONTAINMENT_TABLE: readonly { action: string; verdicts: Record<Mode, Verdict> }[] = [
  row("read a secret file in the user's home folder", "refused", "allowed", "allowed"),
  row("read a secret file in another skill", "refused", "allowed", "allowed"),
  row("read a secret file in another root", "refused", "allowed", "allowed"),
  row("write a file outside its temporary and granted folders", "refused", "allowed", "allowed"),
  row("leave a file in the host's /tmp after the run", "refused", "allowed", "allowed"),
  row("connect to a port on the host's loopback", "refused", "allowed", "allowed"),
  row("see a process outside its own", "refused", "refused", "allowed"),
  row("find a secret in another process's /proc files", "refused", "refused", "allowed"),
  row("keep a child alive after the deadline (setsid)", "refused", "refused", "allowed"),
  row("read its own skill's files", "allowed", "allowed", "allowed"),
  row("read a granted read folder", "allowed", "allowed", "allowed"),
  row("write to its temporary folder and a granted write folder", "allowed", "allowed", "allowed"),
  row(
    "connect to the loopback port with egress declared and network granted",
    "allowed",
    "allowed",
    "allowed",
  ),
];

function row(action: string, sandbox: Verdict, pidNamespace: Verdict, group: Verdict) {
  return { action, verdicts: { sandbox, "pid-namespace": pidNamespace, "process-group": group } };
}

const BASH = ["/usr/bin/bash", "/bin/bash"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}) ?? "/bin/bash";
const SENTINEL = `sentinel-${crypto.randomUUID()}`;
const MARK = `${60 + Math.floor(Math.random() * 30)}.${Date.now() % 1_000_000}3`;

const sandbox = await sandboxOrSkip("containment_test.ts");
const pidNamespace = await isolationFor("pid-namespace");
const group = await isolationFor("group");

/** The world the attacks run in: skills, roots, a home secret, a marker process, a port. */
async function world() {
  const tree = await makeTree({
    "root1/self/SKILL.md": "---\nname: self\ndescription: The attacker.\n---\n# Self\n",
    "root1/self/data.txt": "own-file\n",
    "root1/other/secret.txt": `${SENTINEL}\n`,
    "root2/far/secret.txt": `${SENTINEL}\n`,
    "granted-read/input.txt": "granted-input\n",
    "granted-write": { dir: true },
    "outside": { dir: true },
  });
  const home = Deno.env.get("HOME") ?? "/root";
  const homeSecret = join(home, `.skillgate-test-${crypto.randomUUID()}`);
  let homeWritten = true;
  try {
    Deno.writeTextFileSync(homeSecret, `${SENTINEL}\n`);
  } catch {
    homeWritten = false;
  }
  // Another process of skillgate's user, as privileged as a script (as root, scripts run
  // without capabilities, and a process with more is out of their reach anyway).
  const asScript = Deno.uid() === 0;
  const marker = new Deno.Command(asScript ? "setpriv" : "sleep", {
    args: asScript ? [...CAPABILITY_DROP_ARGS, "sleep", MARK] : [MARK],
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", SECRET_TOKEN: SENTINEL },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      accepted++;
      conn.close();
    }
  })();
  return {
    tree,
    homeSecret: homeWritten ? homeSecret : null,
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => accepted,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting.catch(() => {});
      marker.kill("SIGKILL");
      await marker.status;
      if (homeWritten) Deno.removeSync(homeSecret);
      await tree[Symbol.asyncDispose]();
    },
  };
}

type World = Awaited<ReturnType<typeof world>>;

/** Runs a bash snippet as a script of skill `self` would run. */
async function attempt(
  isolation: Isolation,
  w: World,
  body: string,
  options: { network?: boolean; timeoutMs?: number } = {},
) {
  const skillDir = await Deno.realPath(w.tree.at("root1/self"));
  const place: SandboxPlace = {
    skillDir,
    read: [await Deno.realPath(w.tree.at("granted-read"))],
    write: [await Deno.realPath(w.tree.at("granted-write"))],
    network: options.network ?? false,
  };
  const wrapped = isolate(BASH, ["-c", body], isolation, place);
  return await runScript({
    program: wrapped.program,
    args: wrapped.args,
    stopsBeforeExec: wrapped.stopsBeforeExec,
    cwd: skillDir,
    env: isolation.mode === "sandbox"
      ? { PATH: "/usr/bin:/bin", HOME: "/tmp", TMPDIR: "/tmp" }
      : { PATH: "/usr/bin:/bin", TMPDIR: "/tmp" },
    timeoutMs: options.timeoutMs ?? 10_000,
  }, { killer: createGroupKiller(), graceMs: 500, drainMs: 500, pipeDeadlineMs: 1_000 });
}

const verdictOf = (text: string): Verdict => text.includes("allowed") ? "allowed" : "refused";
const tried = (test: string) => `if ${test}; then echo allowed; else echo refused; fi`;

/** Each action: how it is attempted and how its verdict is read. */
const ATTEMPTS: Record<string, (isolation: Isolation, w: World) => Promise<Verdict>> = {
  "read a secret file in the user's home folder": async (isolation, w) => {
    assert.ok(w.homeSecret !== null, "the home folder must be writable for this test");
    const out = await attempt(isolation, w, `cat '${w.homeSecret}' 2>/dev/null`);
    return out.stdout.includes(SENTINEL) ? "allowed" : "refused";
  },
  "read a secret file in another skill": async (isolation, w) => {
    const out = await attempt(isolation, w, `cat '${w.tree.at("root1/other/secret.txt")}'`);
    return out.stdout.includes(SENTINEL) ? "allowed" : "refused";
  },
  "read a secret file in another root": async (isolation, w) => {
    const out = await attempt(isolation, w, `cat '${w.tree.at("root2/far/secret.txt")}'`);
    return out.stdout.includes(SENTINEL) ? "allowed" : "refused";
  },
  "write a file outside its temporary and granted folders": async (isolation, w) => {
    const targets = [w.tree.at("outside/pwned"), w.tree.at("root1/other/pwned")];
    await attempt(isolation, w, targets.map((path) => `echo x > '${path}' 2>/dev/null`).join("; "));
    const written = targets.filter((path) => exists(path));
    for (const path of written) Deno.removeSync(path);
    return written.length > 0 ? "allowed" : "refused";
  },
  "leave a file in the host's /tmp after the run": async (isolation, w) => {
    const path = `/tmp/skillgate-left-${crypto.randomUUID()}`;
    await attempt(isolation, w, `echo x > '${path}'`);
    const left = exists(path);
    if (left) Deno.removeSync(path);
    return left ? "allowed" : "refused";
  },
  "connect to a port on the host's loopback": async (isolation, w) => {
    const before = w.accepted();
    const out = await attempt(
      isolation,
      w,
      tried(`(exec 3<>/dev/tcp/127.0.0.1/${w.port}) 2>/dev/null`),
    );
    if (verdictOf(out.stdout) === "allowed") {
      assert.ok(await eventually(() => w.accepted() > before), "the host listener saw it");
    }
    return verdictOf(out.stdout);
  },
  "see a process outside its own": async (isolation, w) => {
    // The needle is joined at run time and matched by a bash builtin, so no command line
    // (the script's own, or a grep's) holds it.
    const [head, tail] = halves(`sleep ${MARK}`);
    const out = await attempt(
      isolation,
      w,
      `a='${head}'; b='${tail}'; ` +
        tried(`[[ "$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ')" == *"$a$b"* ]]`),
    );
    return verdictOf(out.stdout);
  },
  "find a secret in another process's /proc files": async (isolation, w) => {
    const [head, tail] = halves(SENTINEL);
    const files = "/proc/[0-9]*/environ /proc/[0-9]*/cmdline /proc/[0-9]*/task/*/environ";
    const out = await attempt(
      isolation,
      w,
      `a='${head}'; b='${tail}'; ` +
        tried(`[[ "$(cat ${files} 2>/dev/null | tr -d '\\0')" == *"$a$b"* ]]`),
    );
    return verdictOf(out.stdout);
  },
  "keep a child alive after the deadline (setsid)": async (isolation, w) => {
    const mark = `${MARK}9`;
    const out = await attempt(
      isolation,
      w,
      `setsid sleep ${mark} >/dev/null 2>&1 < /dev/null & echo started; sleep 30`,
      { timeoutMs: 1_000 },
    );
    assert.equal(out.timedOut, true);
    const gone = await eventually(() => liveProcessesWith(`sleep ${mark}`).length === 0, 3);
    for (const pid of liveProcessesWith(`sleep ${mark}`)) Deno.kill(pid, "SIGKILL");
    return gone ? "refused" : "allowed";
  },
  "read its own skill's files": async (isolation, w) => {
    const out = await attempt(isolation, w, "cat data.txt SKILL.md");
    return out.stdout.startsWith("own-file") ? "allowed" : "refused";
  },
  "read a granted read folder": async (isolation, w) => {
    const path = await Deno.realPath(w.tree.at("granted-read/input.txt"));
    const out = await attempt(isolation, w, `cat '${path}'`);
    return out.stdout === "granted-input\n" ? "allowed" : "refused";
  },
  "write to its temporary folder and a granted write folder": async (isolation, w) => {
    const folder = await Deno.realPath(w.tree.at("granted-write"));
    const out = await attempt(
      isolation,
      w,
      `echo t > "$TMPDIR/t-${MARK}" && cat "$TMPDIR/t-${MARK}" && rm "$TMPDIR/t-${MARK}" && ` +
        `echo w > '${folder}/out.txt' && echo printed`,
    );
    const written = exists(join(folder, "out.txt"));
    if (written) Deno.removeSync(join(folder, "out.txt"));
    return out.stdout === "t\nprinted\n" && written ? "allowed" : "refused";
  },
  "connect to the loopback port with egress declared and network granted": async (isolation, w) => {
    const out = await attempt(
      isolation,
      w,
      tried(`(exec 3<>/dev/tcp/127.0.0.1/${w.port}) 2>/dev/null`),
      { network: true },
    );
    return verdictOf(out.stdout);
  },
};

/** A text cut in two, so a command line holding both halves does not hold the whole. */
function halves(text: string): [string, string] {
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

for (
  const [mode, isolation] of [
    ["sandbox", sandbox],
    ["pid-namespace", pidNamespace],
    ["process-group", group],
  ] as const
) {
  Deno.test({
    name: `attack table: in ${mode} mode each attempt is allowed or refused as the README says`,
    ignore: isolation === null,
    fn: async (t) => {
      await using w = await world();
      for (const { action, verdicts } of CONTAINMENT_TABLE) {
        await t.step(`${action}: ${verdicts[mode]}`, async () => {
          const attemptOf = ATTEMPTS[action];
          assert.ok(attemptOf !== undefined, action);
          assert.equal(await attemptOf(isolation as Isolation, w), verdicts[mode]);
        });
      }
    },
  });
}

Deno.test({
  name: "attack: a sandboxed script sees only descriptors 0, 1 and 2",
  ignore: sandbox === null,
  fn: async () => {
    // What skillgate does at boot: whatever it inherited beyond 0-2 is close-on-exec.
    closeInheritedOnExec();
    await using w = await world();
    // The glob's own descriptor (open while it reads the folder) is gone when the loop
    // checks each entry again; no pipe, no extra descriptor.
    const out = await attempt(
      sandbox as Isolation,
      w,
      'for f in /proc/$$/fd/*; do [ -e "$f" ] && printf "%s " "${f##*/}"; done',
    );
    assert.deepEqual(out.stdout.trim().split(" ").map(Number).sort(), [0, 1, 2]);
  },
});

Deno.test("the README's containment table is exactly CONTAINMENT_TABLE", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  // Table rows as trimmed cells (deno fmt pads the columns).
  const rows = readme.split("\n").filter((line) => line.startsWith("|"))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()).join(" | "));
  const header = rows.indexOf("attempted action | sandbox | pid-namespace | process-group");
  assert.ok(header >= 0, "the README has the containment table");
  const table = rows.slice(header + 2, header + 2 + CONTAINMENT_TABLE.length);
  assert.deepEqual(
    table,
    CONTAINMENT_TABLE.map(({ action, verdicts }) =>
      `${action} | ${verdicts.sandbox} | ${verdicts["pid-namespace"]} | ${
        verdicts["process-group"]
      }`
    ),
  );
});
