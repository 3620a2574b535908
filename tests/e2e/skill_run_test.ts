/**
 * End-to-end: `skill_run` of the real program (trusted part, worker, runner)
 * driven by the real SDK client, on a temporary skill folder.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";
import { eventually, liveProcessesWith } from "../support/processes.ts";
import { toolJson } from "../support/tool_answer.ts";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from "../support/sdk_client.ts";

const SKILL = "runner-demo";
const SENTINEL = "sentinel-7f3a9c-secret";
/** A per-run marker, so processes a script started can be found on the host by command line. */
const MARK = `${40 + Math.floor(Math.random() * 50)}.${Date.now() % 1_000_000}`;

const SCRIPTS: Record<
  string,
  { interpreter: string; body: string; env?: string[]; timeout?: number }
> = {
  "scripts/echo_args.py": {
    interpreter: "python3",
    env: ["DEMO_TOKEN"],
    body: "import json, os, sys\n" +
      "print(json.dumps({'argv': sys.argv[1:], 'token': os.environ.get('DEMO_TOKEN'), " +
      "'cwd': os.getcwd()}))\n",
  },
  "scripts/echo_args.sh": {
    interpreter: "sh",
    body: 'for arg in "$@"; do printf "%s\\n" "$arg"; done\n',
  },
  "scripts/env_names.sh": {
    interpreter: "sh",
    body: "tr '\\0' '\\n' < /proc/$$/environ | cut -d= -f1 | sort\n",
  },
  "scripts/env_names.py": {
    interpreter: "python3",
    env: ["DEMO_TOKEN"],
    body: "import sys\nnames = open('/proc/self/environ', 'rb').read().split(b'\\0')\n" +
      "print('\\n'.join(sorted(n.split(b'=')[0].decode() for n in names if n)))\n",
  },
  "scripts/sleepy.sh": {
    interpreter: "sh",
    timeout: 1,
    body: `sleep ${MARK} & sleep ${MARK} & echo started; wait\n`,
  },
  "scripts/detach.sh": { interpreter: "sh", body: `setsid sleep ${MARK}1 & echo detached\n` },
  "scripts/big.py": {
    interpreter: "python3",
    body: "import sys\nsys.stdout.write('x' * (5 * 512 * 1024))\n",
  },
  "scripts/environ.sh": {
    interpreter: "sh",
    body: "found=no\n" +
      `for f in /proc/$PPID/environ /proc/[0-9]*/environ; do grep -q "${SENTINEL}" "$f" 2>/dev/null && found=yes; done\n` +
      "self=no; tr '\\0' '\\n' < /proc/$$/environ | grep -q '^PATH=' && self=yes\n" +
      'echo "found=$found self=$self"\n',
  },
  "scripts/quick.sh": { interpreter: "sh", body: 'sleep 0.2; echo "done $1"\n' },
  "scripts/ungranted.sh": { interpreter: "sh", body: "echo never\n" },
  "scripts/outside.sh": { interpreter: "sh", body: "" },
  "scripts/later.sh": { interpreter: "sh", body: "echo later\n" },
};

async function makeSkillRoot(): Promise<{ root: string; dataDir: string } & AsyncDisposable> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-run-" });
  const root = join(base, "skills");
  const dir = join(root, SKILL);
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.mkdir(join(base, "data"));
  await Deno.writeTextFile(join(base, "outside.sh"), "echo escaped\n");
  const run = Object.entries(SCRIPTS).map(([script, entry]) =>
    `    - script: ${script}\n      interpreter: ${entry.interpreter}\n` +
    (entry.env ? `      env: [${entry.env.join(", ")}]\n` : "") +
    (entry.timeout ? `      timeout: ${entry.timeout}\n` : "")
  ).join("");
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: Scripts for skill_run tests.\nmcp-host:\n  version: 1\n` +
      `  run:\n${run}  egress: [api.example.com]\n---\n# Runner demo\n`,
  );
  for (const [script, entry] of Object.entries(SCRIPTS)) {
    if (script === "scripts/outside.sh") continue;
    await Deno.writeTextFile(join(dir, script), entry.body);
  }
  await Deno.symlink(join(base, "outside.sh"), join(dir, "scripts/outside.sh"));
  return {
    root,
    dataDir: join(base, "data"),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

function grantAll(except: string[] = []): string {
  return JSON.stringify(
    Object.entries(SCRIPTS).filter(([script]) => !except.includes(script)).map((
      [script, entry],
    ) => ({ skill: SKILL, script, ...(entry.env ? { env: entry.env } : {}) })),
  );
}

function json(result: CallToolResult): Record<string, unknown> {
  return toolJson(result);
}

function baseEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MCP_SKILL_RUN: grantAll(["scripts/ungranted.sh"]),
    MCP_DATA_DIR: dataDir,
    DEMO_TOKEN: "token-value",
    SKILLGATE_TEST_SECRET: SENTINEL,
    ...extra,
  };
}

Deno.test("skill_run executes granted scripts exactly and safely (auto confirmation)", async (t) => {
  await using tree = await makeSkillRoot();
  await using session = await connectStdio(["serve", tree.root], {
    env: baseEnv(tree.dataDir, { MCP_CONFIRM_MODE: "auto" }),
  });
  const run = async (script: string, args: string[] = []) =>
    json(await session.call("skill_run", { name: SKILL, script, args }));

  await t.step("skill_list shows the grant, the isolation and each script's state", async () => {
    const list = json(await session.call("skill_list", {}));
    assert.equal((list.grant as { from: string }).from, "MCP_SKILL_RUN");
    assert.equal((list.environ as { scrubbed: boolean }).scrubbed, true);
    assert.ok(
      ["sandbox", "pid-namespace", "process-group"].includes(
        (list.isolation as { mode: string }).mode,
      ),
    );
    const skill = (list.skills as Record<string, unknown>[])[0] ?? {};
    assert.equal(skill.executable, true);
    const runnable = (skill.scripts as { script: string }[]).map((entry) => entry.script);
    assert.ok(runnable.includes("scripts/echo_args.py"));
    assert.deepEqual((skill.ungrantedScripts as { script: string }[]).map((e) => e.script), [
      "scripts/ungranted.sh",
    ]);
    assert.deepEqual((skill.unavailableScripts as { script: string }[]).map((e) => e.script), [
      "scripts/outside.sh",
    ]);
    assert.deepEqual(skill.declaredEgress, ["api.example.com"]);
    const load = json(await session.call("skill_load", { name: SKILL }));
    const loaded = load.scripts as { script: string; canRun: boolean }[];
    assert.equal(loaded.find((entry) => entry.script === "scripts/ungranted.sh")?.canRun, false);
    assert.equal(loaded.find((entry) => entry.script === "scripts/quick.sh")?.canRun, true);
  });

  await t.step(
    "a Python script gets its argv exactly, shell metacharacters untouched",
    async () => {
      const args = ["a b", "$(id)", "`id`", "; echo pwned", "*", "'\"", "|&>", "ünï", ""];
      const result = await run("scripts/echo_args.py", args);
      assert.equal(result.exitCode, 0, String(result.stderr));
      const printed = JSON.parse(String(result.stdout));
      assert.deepEqual(printed.argv, args);
      assert.equal(printed.token, "token-value");
      assert.match(printed.cwd, /runner-demo$/);
    },
  );

  await t.step("a shell script gets its argv exactly", async () => {
    const args = ["$HOME", "a;b", "*", "x\ny", "--", "-n"];
    const result = await run("scripts/echo_args.sh", args);
    assert.equal(result.stdout, args.map((arg) => `${arg}\n`).join(""));
  });

  await t.step("the environment holds exactly the allowed names", async () => {
    const sh = await run("scripts/env_names.sh");
    // A sandbox adds TMPDIR (its private /tmp, also HOME); bwrap sets PWD as it enters.
    const tmp = sh.isolation === "sandbox" ? ["TMPDIR"] : [];
    const shSeen = String(sh.stdout).trim().split("\n");
    assert.deepEqual(
      sh.isolation === "sandbox" ? shSeen.filter((name) => name !== "PWD") : shSeen,
      ["HOME", "MCP_DATA_DIR", "PATH", ...tmp],
    );
    assert.deepEqual(sh.env, ["HOME", "MCP_DATA_DIR", "PATH", ...tmp]);
    const python = await run("scripts/env_names.py");
    const handed = [
      "DEMO_TOKEN",
      "HOME",
      "MCP_DATA_DIR",
      "PATH",
      "PYTHONIOENCODING",
      "PYTHONUTF8",
      ...tmp,
    ];
    assert.deepEqual(python.env, handed);
    // A launcher such as a pyenv shim (a shell script) adds its own names before Python starts.
    const launcherAdded = /^(_?PYENV_\w*|PWD|SHLVL|_)$/;
    const seen = String(python.stdout).trim().split("\n");
    assert.deepEqual(seen.filter((name) => !launcherAdded.test(name)), handed);
  });

  await t.step(
    "a sentinel secret in skillgate's environment is not readable from /proc",
    async () => {
      const result = await run("scripts/environ.sh");
      assert.equal(String(result.stdout).trim(), "found=no self=yes");
    },
  );

  await t.step("a timeout ends the script and its children", async () => {
    const result = await run("scripts/sleepy.sh");
    assert.equal(result.timedOut, true);
    assert.equal(result.timeoutMs, 1000);
    assert.equal(result.stdout, "started\n");
    assert.ok(await eventually(() => liveProcessesWith(`sleep ${MARK}`).length === 0));
  });

  await t.step(
    "a leader that exits while a detached grandchild holds the pipes returns",
    async () => {
      const result = await run("scripts/detach.sh");
      try {
        assert.equal(result.exitCode, 0);
        assert.equal(result.stdout, "detached\n");
        assert.ok(Number(result.durationMs) < 30_000);
        if (result.isolation !== "process-group") {
          assert.ok(await eventually(() => liveProcessesWith(`sleep ${MARK}1`).length === 0));
        } else {
          assert.match(String(result.note), /left behind/);
        }
      } finally {
        for (const pid of liveProcessesWith(`sleep ${MARK}1`)) Deno.kill(pid, "SIGKILL");
      }
    },
  );

  await t.step("2.5 MiB of output is cut at 1 MiB with the flag", async () => {
    const result = await run("scripts/big.py");
    assert.equal(String(result.stdout).length, 1024 * 1024);
    assert.deepEqual(result.truncated, { stdout: true, stderr: false });
  });

  await t.step("twenty concurrent runs all complete through the queue", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => run("scripts/quick.sh", [String(index)])),
    );
    assert.deepEqual(
      results.map((result) => result.stdout),
      Array.from({ length: 20 }, (_, index) => `done ${index}\n`),
    );
  });

  await t.step("progress notifications arrive while a script runs", async () => {
    const seen: { progress: number; message?: string | undefined }[] = [];
    const result = await session.client.callTool(
      { name: "skill_run", arguments: { name: SKILL, script: "scripts/sleepy.sh" } },
      undefined,
      { onprogress: (progress) => seen.push(progress) },
    );
    assert.equal(json(result as CallToolResult).timedOut, true);
    assert.ok(seen.length >= 1, "no progress notification");
    assert.match(seen.at(-1)?.message ?? "", /bytes of output/);
  });

  await t.step("a cancelled request ends the script's processes", async () => {
    const controller = new AbortController();
    const pending = session.client.callTool(
      { name: "skill_run", arguments: { name: SKILL, script: "scripts/sleepy.sh" } },
      undefined,
      { signal: controller.signal },
    );
    assert.ok(await eventually(() => liveProcessesWith(`sleep ${MARK}`).length > 0));
    controller.abort();
    await assert.rejects(pending);
    assert.ok(await eventually(() => liveProcessesWith(`sleep ${MARK}`).length === 0));
  });
});

Deno.test("skill_run refuses before asking, and confirms with a token", async (t) => {
  await using tree = await makeSkillRoot();
  await using session = await connectStdio(["serve", tree.root], { env: baseEnv(tree.dataDir) });
  const call = (args: Record<string, unknown>) =>
    session.call("skill_run", { name: SKILL, ...args });

  await t.step("undeclared, ungranted and symlinked-out scripts are refused", async () => {
    const undeclared = await call({ script: "scripts/nope.sh" });
    assert.equal(json(undeclared).error, "SCRIPT_NOT_DECLARED");
    const ungranted = await call({ script: "scripts/ungranted.sh" });
    assert.equal(json(ungranted).error, "SCRIPT_NOT_GRANTED");
    const outside = await call({ script: "scripts/outside.sh" });
    assert.equal(json(outside).error, "SCRIPT_UNAVAILABLE");
    const badArgs = await call({ script: "scripts/quick.sh", args: ["a\0b"] });
    assert.equal(json(badArgs).error, "INVALID_ARGUMENTS");
    assert.ok([undeclared, ungranted, outside, badArgs].every((result) => result.isError));
  });

  await t.step("the full token flow: preview, run once, reuse refused", async () => {
    const first = json(await call({ script: "scripts/echo_args.sh", args: ["one"] }));
    assert.equal(first.status, "confirmation-required");
    assert.equal(first.dispatched, false);
    const preview = first.preview as { willRun: Record<string, unknown> };
    assert.equal(preview.willRun.script, "scripts/echo_args.sh");
    assert.equal((preview.willRun.argv as string[]).at(-1), "one");
    // Hosted (MCP_DATA_DIR): the preview names the skill's folder by its root's label.
    assert.equal(preview.willRun.cwd, `root1/${SKILL}`);
    assert.ok(!JSON.stringify(first).includes(tree.root), JSON.stringify(first));
    assert.ok(
      (preview.willRun.argv as string[]).includes(`root1/${SKILL}/scripts/echo_args.sh`),
      JSON.stringify(preview.willRun.argv),
    );
    const names = preview.willRun.envNames as string[];
    // TMPDIR only in a sandbox (its private /tmp).
    assert.deepEqual(names.filter((name) => name !== "TMPDIR"), ["HOME", "MCP_DATA_DIR", "PATH"]);
    const token = String(first.confirmToken);
    const ran = json(
      await call({ script: "scripts/echo_args.sh", args: ["one"], confirmToken: token }),
    );
    assert.equal(ran.status, "completed");
    assert.equal(ran.stdout, "one\n");
    const again = await call({
      script: "scripts/echo_args.sh",
      args: ["one"],
      confirmToken: token,
    });
    assert.equal(json(again).error, "TOKEN_REUSED");
  });

  await t.step("changed arguments get DRAFT_CHANGED with a fresh preview and token", async () => {
    const first = json(await call({ script: "scripts/echo_args.sh", args: ["one"] }));
    const changed = await call({
      script: "scripts/echo_args.sh",
      args: ["two"],
      confirmToken: String(first.confirmToken),
    });
    assert.equal(changed.isError, true);
    const body = json(changed);
    assert.equal(body.error, "DRAFT_CHANGED");
    // The hint says what to send: these arguments (the preview's) with the new token.
    assert.match(String(body.hint), /exactly these arguments and this answer's confirmToken/);
    const argv = (body.preview as { willRun: { argv: string[] } }).willRun.argv;
    assert.equal(argv.at(-1), "two");
    const ran = json(
      await call({
        script: "scripts/echo_args.sh",
        args: ["two"],
        confirmToken: String(body.confirmToken),
      }),
    );
    assert.equal(ran.stdout, "two\n");
    const forged = await call({ script: "scripts/echo_args.sh", confirmToken: "v1.1.abc" });
    assert.equal(json(forged).error, "TOKEN_INVALID");
  });

  await t.step(
    "attack: padding words push the confirmation-required preview past what a user reads in full: refused with its size, no preview or token (CONFIRMATION_TOO_LONG), the DRAFT_CHANGED way too",
    async () => {
      // Within the 8 KiB argument cap, but each zero-width space is spelled out twice.
      const padded = ["\u200b".repeat(2_500), "--delete-everything"];
      const result = await call({ script: "scripts/echo_args.sh", args: padded });
      assert.equal(result.isError, true);
      const body = json(result);
      assert.equal(body.error, "CONFIRMATION_TOO_LONG");
      assert.match(String(body.message), /would be \d+ bytes, over the limit of 16384/);
      assert.equal(body.limitBytes, 16_384);
      assert.ok(Number(body.bytes) > 16_384);
      assert.equal(body.preview, undefined);
      assert.equal(body.confirmToken, undefined);
      // A token of a short preview, sent with the padded arguments: no fresh preview either.
      const first = json(await call({ script: "scripts/echo_args.sh", args: ["one"] }));
      const changed = json(
        await call({
          script: "scripts/echo_args.sh",
          args: padded,
          confirmToken: String(first.confirmToken),
        }),
      );
      assert.equal(changed.error, "CONFIRMATION_TOO_LONG");
      assert.equal(changed.preview, undefined);
      assert.equal(changed.confirmToken, undefined);
      // Plain arguments up to the argument cap always fit, every word in the preview.
      const words = ["a".repeat(4_000), "b".repeat(4_000), "c".repeat(150)];
      const fits = json(await call({ script: "scripts/echo_args.sh", args: words }));
      assert.equal(fits.status, "confirmation-required");
      assert.deepEqual(
        (fits.preview as { willRun: { argv: string[] } }).willRun.argv.slice(-3),
        words,
      );
    },
  );

  await t.step("a script swapped for a symlink after listing is refused", async () => {
    const script = join(tree.root, SKILL, "scripts/later.sh");
    await Deno.remove(script);
    await Deno.symlink(join(tree.root, "..", "outside.sh"), script);
    const result = await call({ script: "scripts/later.sh" });
    // Refused either way, never run: by the call's own path gate (SCRIPT_PATH_REFUSED), or, when
    // live refresh already swapped in a plan that saw the link lead outside, by that plan
    // (SCRIPT_UNAVAILABLE; seen in CI under load).
    assert.equal(result.isError, true);
    assert.ok(
      ["SCRIPT_PATH_REFUSED", "SCRIPT_UNAVAILABLE"].includes(String(json(result).error)),
      JSON.stringify(json(result)),
    );
    assert.ok(!JSON.stringify(result).includes("escaped"), "the outside script ran");
  });
});

Deno.test("attack: a spent confirmation token replayed after a restart (same MCP_CONFIRM_SECRET) does not run", async () => {
  await using tree = await makeSkillRoot();
  const env = baseEnv(tree.dataDir, { MCP_CONFIRM_SECRET: "a-shared-secret-of-32-characters" });
  const args = { name: SKILL, script: "scripts/echo_args.sh", args: ["once"] };
  let spent = "";
  let unspent = "";
  {
    await using first = await connectStdio(["serve", tree.root], { env });
    spent = String(json(await first.call("skill_run", args)).confirmToken);
    unspent = String(json(await first.call("skill_run", args)).confirmToken);
    const ran = json(await first.call("skill_run", { ...args, confirmToken: spent }));
    assert.equal(ran.stdout, "once\n");
  }
  await using restarted = await connectStdio(["serve", tree.root], { env });
  for (const token of [spent, unspent]) {
    const replay = await restarted.call("skill_run", { ...args, confirmToken: token });
    assert.equal(replay.isError, true);
    assert.equal(json(replay).error, "TOKEN_EXPIRED");
    assert.match(String(json(replay).message), /restarts/);
  }
});

Deno.test("skill_run asks the user through elicitation when the client supports it", async (t) => {
  await using tree = await makeSkillRoot();
  const answers: ElicitResult[] = [];
  const asked: string[] = [];
  await using session = await connectStdio(["serve", tree.root], {
    env: baseEnv(tree.dataDir),
    capabilities: { elicitation: {} },
    beforeConnect: (client) => {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return answers.shift() ?? { action: "cancel" };
      });
    },
  });
  const call = (script: string, args: string[] = []) =>
    session.call("skill_run", { name: SKILL, script, args });

  await t.step("refusals never reach the user", async () => {
    assert.equal(json(await call("scripts/nope.sh")).error, "SCRIPT_NOT_DECLARED");
    assert.equal(json(await call("scripts/ungranted.sh")).error, "SCRIPT_NOT_GRANTED");
    assert.equal(json(await call("scripts/outside.sh")).error, "SCRIPT_UNAVAILABLE");
    assert.deepEqual(asked, []);
  });

  await t.step("accept runs the script", async () => {
    answers.push({ action: "accept", content: { run: true } });
    const result = json(await call("scripts/echo_args.sh", ["yes"]));
    assert.equal(result.stdout, "yes\n");
    assert.equal(asked.length, 1);
    assert.match(asked[0] ?? "", /scripts\/echo_args\.sh/);
    assert.match(asked[0] ?? "", /"yes"/);
  });

  await t.step("decline does not run it", async () => {
    answers.push({ action: "decline" });
    const result = await call("scripts/echo_args.sh", ["no"]);
    assert.equal(result.isError, true);
    assert.equal(json(result).error, "CONFIRMATION_DECLINED");
    assert.equal(asked.length, 2);
  });

  await t.step(
    "accept with empty content runs it: the form's default run: true stands",
    async () => {
      answers.push({ action: "accept", content: {} });
      assert.equal(json(await call("scripts/echo_args.sh", ["empty"])).stdout, "empty\n");
      answers.push({ action: "accept" });
      assert.equal(json(await call("scripts/echo_args.sh", ["none"])).stdout, "none\n");
    },
  );

  await t.step("accept with run: false does not run it", async () => {
    answers.push({ action: "accept", content: { run: false } });
    const result = await call("scripts/echo_args.sh", ["unchecked"]);
    assert.equal(json(result).error, "CONFIRMATION_DECLINED");
  });
  await t.step(
    "attack: arguments with U+2028, U+202E, zero-width and C1 characters are shown escaped in the dialog, run exactly",
    async () => {
      const args = [
        "a\u2028Folder: /safe\u2029b",
        "c\u0085d",
        "e\u200bf",
        "g\u2066h\u2069",
        "x\u202e",
      ];
      answers.push({ action: "accept", content: { run: true } });
      const result = json(await call("scripts/echo_args.sh", args));
      const message = asked.at(-1) ?? "";
      assert.doesNotMatch(
        message,
        /[\u0085\u200b\u2028\u2029\u202e\u2066\u2069]/,
        "no raw character",
      );
      for (
        const escape of [
          "\\u{2028}",
          "\\u{2029}",
          "\\u{85}",
          "\\u{200b}",
          "\\u{2066}",
          "\\u{2069}",
          "\\u{202e}",
        ]
      ) {
        assert.ok(message.includes(escape), `${escape} in ${JSON.stringify(message)}`);
      }
      assert.equal(message.split("\n").filter((line) => line.startsWith("Folder:")).length, 1);
      assert.equal(result.stdout, `${args.join("\n")}\n`, "the script got the arguments exactly");
    },
  );
  await t.step(
    "attack: padding words push the dialog past what a user reads in full: refused with its size before the user is asked (CONFIRMATION_TOO_LONG)",
    async () => {
      const before = asked.length;
      // Within the 8 KiB argument cap, but each zero-width space is shown as \u{200b} twice.
      const padded = ["\u200b".repeat(2_500), "--delete-everything"];
      const result = await call("scripts/echo_args.sh", padded);
      assert.equal(result.isError, true);
      const body = json(result);
      assert.equal(body.error, "CONFIRMATION_TOO_LONG");
      assert.match(String(body.message), /would be \d+ bytes, over the limit of 16384/);
      assert.equal(body.limitBytes, 16_384);
      assert.ok(Number(body.bytes) > 16_384);
      assert.equal(asked.length, before, "the user was not asked");
      // Plain arguments up to the argument cap always fit, every word shown in full.
      answers.push({ action: "accept", content: { run: true } });
      const words = ["a".repeat(4_000), "b".repeat(4_000), "c".repeat(150)];
      const fits = json(await call("scripts/echo_args.sh", words));
      assert.equal(fits.stdout, `${words.join("\n")}\n`);
      for (const word of words) assert.ok((asked.at(-1) ?? "").includes(word));
    },
  );
});
