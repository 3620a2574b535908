/**
 * End-to-end: granted scripts in the bubblewrap sandbox, on the real program
 * driven by the SDK client. What the grant's `read`, `write` and `network`
 * keys add, the folders they may not name, the missing-mount note, and the
 * bundled `release-notes` example reading a granted repository.
 * Skipped locally (one stderr line) when no sandbox can be built; in CI a
 * missing sandbox fails.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio, REPO_ROOT, runProgram } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { isolationFor, sandboxOrSkip } from "../support/isolation_modes.ts";
import { makeTree } from "../skills/_tree.ts";

const sandbox = await sandboxOrSkip("tests/e2e/sandbox_test.ts");
const SKILL = "boxed";

function skillMd(egress: boolean): string {
  const declare = (script: string) =>
    `    - script: ${script}\n      interpreter: bash\n      timeout: 10\n`;
  return `---\nname: ${SKILL}\ndescription: Scripts for sandbox tests.\nmcp-host:\n  version: 1\n` +
    `  run:\n${declare("scripts/read.sh")}${declare("scripts/write.sh")}` +
    `${declare("scripts/connect.sh")}` + (egress ? "  egress: [api.example.com]\n" : "") +
    `---\n# Boxed\n`;
}

async function world(egress = true) {
  return await makeTree({
    [`skills/${SKILL}/SKILL.md`]: skillMd(egress),
    [`skills/${SKILL}/scripts/read.sh`]: 'cat "$1"\n',
    [`skills/${SKILL}/scripts/write.sh`]: 'echo written > "$1" && echo ok\n',
    [`skills/${SKILL}/scripts/connect.sh`]:
      'if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then echo connected; else echo refused; fi\n',
    "shared/input.txt": "shared input\n",
    "out": { dir: true },
    "ungranted/notes.txt": "not granted\n",
  });
}

Deno.test({
  name: "a sandboxed script reads and writes exactly the folders its grant row names",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    const grant = [
      { skill: SKILL, script: "scripts/read.sh", read: [tree.at("shared")] },
      { skill: SKILL, script: "scripts/write.sh", write: [tree.at("out")] },
    ];
    await using session = await connectStdio(["serve", tree.at("skills")], {
      env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(grant) },
    });
    const list = toolJson(await session.call("skill_list", {}));
    assert.equal((list.isolation as { mode: string }).mode, "sandbox");
    const scripts = ((list.skills as Record<string, unknown>[])[0]?.scripts ?? []) as {
      script: string;
      isolation: string;
      sandbox: { readFolders: number; writeFolders: number; network: boolean };
    }[];
    assert.deepEqual(
      scripts.map((entry) => [entry.script, entry.isolation, entry.sandbox]),
      [
        ["scripts/read.sh", "sandbox", { readFolders: 1, writeFolders: 0, network: false }],
        ["scripts/write.sh", "sandbox", { readFolders: 0, writeFolders: 1, network: false }],
      ],
    );
    const run = async (script: string, args: string[]) =>
      toolJson(await session.call("skill_run", { name: SKILL, script, args }));
    const read = await run("scripts/read.sh", [join(tree.path, "shared/input.txt")]);
    assert.equal(read.stdout, "shared input\n");
    assert.equal(read.isolation, "sandbox");
    const wrote = await run("scripts/write.sh", [join(tree.path, "out/result.txt")]);
    assert.equal(wrote.stdout, "ok\n");
    assert.equal(await Deno.readTextFile(tree.at("out/result.txt")), "written\n");
    // The read folder is read-only; writing into it fails.
    const denied = await run("scripts/write.sh", [join(tree.path, "shared/x.txt")]);
    assert.notEqual(denied.exitCode, 0);
  },
});

Deno.test({
  name: "a sandboxed script that needs an ungranted folder gets a note naming it and the grant",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    const grant = [{ skill: SKILL, script: "scripts/read.sh" }];
    await using session = await connectStdio(["serve", tree.at("skills")], {
      env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(grant) },
    });
    const path = join(tree.path, "ungranted/notes.txt");
    const answer = toolJson(
      await session.call("skill_run", { name: SKILL, script: "scripts/read.sh", args: [path] }),
    );
    assert.notEqual(answer.exitCode, 0);
    assert.match(String(answer.stderr), /No such file or directory/);
    const note = String(answer.sandboxNote);
    assert.ok(note.includes(JSON.stringify(path)), note);
    // The row the note suggests is one the grant accepts: following it makes the run work.
    const row = note.match(
      /if it is a file, the folder that holds it: (\{"skill":"boxed","script":"scripts\/read.sh",.*?\]\})/,
    );
    assert.ok(row !== null, note);
    const suggested = JSON.parse(row[1]!) as { read: string[] };
    assert.deepEqual(suggested.read, [join(tree.path, "ungranted")], "the folder, not the file");
    await using granted = await connectStdio(["serve", tree.at("skills")], {
      env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify([suggested]) },
    });
    const again = toolJson(
      await granted.call("skill_run", { name: SKILL, script: "scripts/read.sh", args: [path] }),
    );
    assert.equal(again.exitCode, 0, String(again.stderr));
    assert.equal(again.stdout, "not granted\n");
  },
});

Deno.test({
  name:
    "an exec script whose #! interpreter the sandbox does not mount gets a sandboxNote naming it, and the row it suggests runs it",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await makeTree({
      "skills/shebang/SKILL.md": "---\nname: shebang\ndescription: Runs itself.\nmcp-host:\n" +
        "  version: 1\n  run:\n    - script: scripts/hello\n      interpreter: exec\n---\n# S\n",
      // The tree lives under the host's /tmp, which the sandbox replaces with its own.
      "skills/shebang/scripts": { dir: true },
      "tools/bin/myinterp": '#!/bin/sh\nexec /bin/sh "$@"\n',
    });
    await Deno.writeTextFile(
      tree.at("skills/shebang/scripts/hello"),
      `#!${tree.at("tools/bin/myinterp")}\necho hello\n`,
    );
    await Deno.chmod(tree.at("skills/shebang/scripts/hello"), 0o755);
    await Deno.chmod(tree.at("tools/bin/myinterp"), 0o755);
    const run = async (grant: unknown[]) => {
      await using session = await connectStdio(["serve", tree.at("skills")], {
        env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(grant) },
      });
      return toolJson(
        await session.call("skill_run", { name: "shebang", script: "scripts/hello" }),
      );
    };
    const failed = await run([{ skill: "shebang", script: "scripts/hello" }]);
    assert.notEqual(failed.exitCode, 0, JSON.stringify(failed));
    const note = String(failed.sandboxNote);
    assert.ok(note.includes(JSON.stringify(tree.at("tools/bin/myinterp"))), note);
    assert.match(note, /sandbox did not mount it/);
    const row = note.match(/MCP_SKILL_RUN row: (\{"skill":"shebang",.*?\]\})/);
    assert.ok(row !== null, note);
    const suggested = JSON.parse(row[1]!) as { read: string[] };
    assert.deepEqual(suggested.read, [tree.at("tools/bin")]);
    const ran = await run([suggested]);
    assert.equal(ran.exitCode, 0, JSON.stringify(ran));
    assert.equal(ran.stdout, "hello\n");
    assert.equal(ran.sandboxNote, undefined);
  },
});

Deno.test({
  name:
    "an exec script whose #! interpreter is mounted but not executable gets a sandboxNote saying it could not be run",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await makeTree({
      "skills/shebang/SKILL.md": "---\nname: shebang\ndescription: Runs itself.\nmcp-host:\n" +
        "  version: 1\n  run:\n    - script: scripts/hello\n      interpreter: exec\n---\n# S\n",
      "skills/shebang/scripts": { dir: true },
      "tools/bin/myinterp": '#!/bin/sh\nexec /bin/sh "$@"\n',
    });
    await Deno.writeTextFile(
      tree.at("skills/shebang/scripts/hello"),
      `#!${tree.at("tools/bin/myinterp")}\necho hello\n`,
    );
    await Deno.chmod(tree.at("skills/shebang/scripts/hello"), 0o755);
    await Deno.chmod(tree.at("tools/bin/myinterp"), 0o644); // there, mounted, not executable
    await using session = await connectStdio(["serve", tree.at("skills")], {
      env: {
        MCP_CONFIRM_MODE: "auto",
        MCP_SKILL_RUN: JSON.stringify([
          { skill: "shebang", script: "scripts/hello", read: [tree.at("tools/bin")] },
        ]),
      },
    });
    const failed = toolJson(
      await session.call("skill_run", { name: "shebang", script: "scripts/hello" }),
    );
    assert.notEqual(failed.exitCode, 0, JSON.stringify(failed));
    const note = String(failed.sandboxNote);
    assert.ok(note.includes(JSON.stringify(tree.at("tools/bin/myinterp"))), note);
    assert.match(note, /could not be run \(Permission denied: it is not executable/);
    assert.match(note, /chmod \+x/);
  },
});

Deno.test({
  name:
    "attack: a script that needs an ungranted folder gets a note whose folder row names that folder, not its parent (no sibling granted)",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await makeTree({
      "skills/lister/SKILL.md": "---\nname: lister\ndescription: Lists a folder.\nmcp-host:\n" +
        "  version: 1\n  run:\n    - script: scripts/ls.sh\n      interpreter: bash\n---\n# L\n",
      "skills/lister/scripts/ls.sh": 'ls "$1"\n',
      "src/app/README": "app\n",
      "src/other/secret.txt": "sibling\n",
    });
    const run = async (env: Record<string, string>, folder: string) => {
      await using session = await connectStdio(["serve", tree.at("skills")], { env });
      return toolJson(
        await session.call("skill_run", {
          name: "lister",
          script: "scripts/ls.sh",
          args: [folder],
        }),
      );
    };
    const base = { MCP_CONFIRM_MODE: "auto" };
    const app = join(tree.path, "src/app");
    const failed = await run(
      { ...base, MCP_SKILL_RUN: JSON.stringify([{ skill: "lister", script: "scripts/ls.sh" }]) },
      app,
    );
    assert.notEqual(failed.exitCode, 0);
    const note = String(failed.sandboxNote);
    const row = note.match(/If it is a folder: (\{"skill":"lister",.*?\]\})/);
    assert.ok(row !== null, note);
    const suggested = JSON.parse(row[1]!) as { read: string[] };
    assert.deepEqual(suggested.read, [app], "the folder itself, not src/ with its siblings");
    const granted = { ...base, MCP_SKILL_RUN: JSON.stringify([suggested]) };
    const listed = await run(granted, app);
    assert.equal(listed.exitCode, 0, String(listed.stderr));
    assert.equal(listed.stdout, "README\n");
    const sibling = await run(granted, join(tree.path, "src/other"));
    assert.notEqual(sibling.exitCode, 0, "the sibling stays outside");
  },
});

Deno.test({
  name: "grant rows naming forbidden folders are refused with grant problems",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    const home = Deno.env.get("HOME") ?? "/root";
    const forbidden = [
      ["/", /it is \/, the whole file system/],
      [home, /it is a home folder itself/],
      [tree.at("skills"), /it is or holds a skill root/],
      [tree.path, /it is or holds a skill root/],
      [tree.at(`skills/${SKILL}/scripts`), /it is inside a skill root/],
      [REPO_ROOT, /skillgate's own folders/],
      [tree.at("nowhere"), /does not exist or is not a folder/],
    ] as const;
    const rows = forbidden.map(([folder], index) => ({
      skill: SKILL,
      script: index % 2 === 0 ? "scripts/read.sh" : "scripts/write.sh",
      [index % 2 === 0 ? "read" : "write"]: [folder],
    }));
    // The owner's view (`skillgate list`) shows why; a client sees only that a row grants nothing.
    const listed = await runProgram(["list", tree.at("skills"), "--json"], {
      env: { MCP_SKILL_RUN: JSON.stringify(rows) },
    });
    assert.equal(listed.code, 0, listed.stderr);
    const list = JSON.parse(listed.stdout) as Record<string, unknown>;
    const problems = (list.problems as { reason: string; detail: string }[])
      .filter((problem) => problem.reason === "grant");
    assert.equal(problems.length, forbidden.length, JSON.stringify(problems));
    for (const [index, [folder, why]] of forbidden.entries()) {
      const problem = problems.find((entry) => entry.detail.startsWith(`Row ${index} `));
      assert.match(problem?.detail ?? "", why, `row ${index}`);
      // The problem names the row, never the folder.
      assert.ok(folder === "/" || !(problem?.detail ?? "").includes(folder));
    }
    const skill = (list.skills as Record<string, unknown>[])[0] ?? {};
    assert.equal(skill.executable, false);
    await using session = await connectStdio(["serve", tree.at("skills")], {
      env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(rows) },
    });
    const ran = toolJson(
      await session.call("skill_run", { name: SKILL, script: "scripts/read.sh", args: ["/"] }),
    );
    assert.equal(ran.error, "SCRIPT_NOT_GRANTED");
  },
});

Deno.test({
  name: "the network needs declared egress AND a grant of network: true",
  ignore: sandbox === null,
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = String((listener.addr as Deno.NetAddr).port);
    const accepting = (async () => {
      for await (const conn of listener) conn.close();
    })();
    try {
      for (
        const [egress, network, expected] of [
          [true, true, "connected"],
          [true, false, "refused"],
          [false, true, "refused"],
        ] as const
      ) {
        await using tree = await world(egress);
        const grant = [{ skill: SKILL, script: "scripts/connect.sh", network }];
        await using session = await connectStdio(["serve", tree.at("skills")], {
          env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(grant) },
        });
        const answer = toolJson(
          await session.call("skill_run", {
            name: SKILL,
            script: "scripts/connect.sh",
            args: [port],
          }),
        );
        assert.equal(answer.stdout, `${expected}\n`, `egress ${egress}, network ${network}`);
      }
    } finally {
      listener.close();
      await accepting.catch(() => {});
    }
  },
});

Deno.test({
  name: "the bundled release-notes example reads a granted repository in the sandbox",
  ignore: sandbox === null,
  fn: async () => {
    await using repo = await makeTree({});
    const git = async (...args: string[]) => {
      const out = await new Deno.Command("git", {
        args: ["-C", repo.path, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    };
    await git("init", "-q");
    await git("commit", "-q", "--allow-empty", "-m", "first");
    await git("tag", "v1");
    await git("commit", "-q", "--allow-empty", "-m", "Add the sandbox");
    const examples = join(REPO_ROOT, "examples/skills");
    const script = "scripts/collect_changes.py";
    const grant = [{ skill: "release-notes", script, read: [repo.path] }];
    await using session = await connectStdio(["serve", examples], {
      env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(grant) },
    });
    const answer = toolJson(
      await session.call("skill_run", {
        name: "release-notes",
        script,
        args: ["v1", repo.path],
      }),
    );
    assert.equal(answer.exitCode, 0, String(answer.stderr));
    assert.equal(answer.stdout, "Add the sandbox\n");
  },
});

for (const [flag, mode] of [["pid-namespace", "pid-namespace"], ["group", "process-group"]]) {
  Deno.test(`--isolation=${flag} still runs granted scripts, says so, and mounts nothing`, async () => {
    if (flag === "pid-namespace" && (await isolationFor("pid-namespace")) === null) {
      console.error("sandbox_test.ts: no PID namespace here; pid-namespace e2e skipped");
      return;
    }
    await using tree = await world();
    const grant = [{ skill: SKILL, script: "scripts/read.sh", read: [tree.at("shared")] }];
    await using session = await connectStdio(["serve", tree.at("skills"), `--isolation=${flag}`], {
      env: { MCP_CONFIRM_MODE: "auto", MCP_SKILL_RUN: JSON.stringify(grant) },
    });
    const list = toolJson(await session.call("skill_list", {}));
    assert.equal((list.isolation as { mode: string }).mode, mode);
    const [script] = ((list.skills as Record<string, unknown>[])[0]?.scripts ?? []) as {
      isolation: string;
      sandbox?: unknown;
    }[];
    assert.equal(script?.isolation, mode);
    assert.equal(script?.sandbox, undefined);
    // Outside a sandbox the script reads what skillgate's user can: here, an ungranted file.
    const answer = toolJson(
      await session.call("skill_run", {
        name: SKILL,
        script: "scripts/read.sh",
        args: [tree.at("ungranted/notes.txt")],
      }),
    );
    assert.equal(answer.stdout, "not granted\n");
    assert.equal(answer.isolation, mode);
    assert.equal(answer.sandboxNote, undefined);
  });
}

Deno.test({
  name:
    "in sandbox mode the worker may spawn exactly bwrap, and permissions --json shows each script's mounts",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    await Deno.writeTextFile(
      tree.at(`skills/${SKILL}/SKILL.md`),
      skillMd(true).replace(
        "  egress:",
        "    - script: scripts/hello.py\n      interpreter: python3\n  egress:",
      ),
    );
    await Deno.writeTextFile(tree.at(`skills/${SKILL}/scripts/hello.py`), "print('hi')\n");
    const grant = [
      { skill: SKILL, script: "scripts/read.sh", read: [tree.at("shared")] },
      { skill: SKILL, script: "scripts/hello.py", write: [tree.at("out")], network: true },
    ];
    const shown = await runProgram(["permissions", tree.at("skills"), "--json"], {
      env: { MCP_SKILL_RUN: JSON.stringify(grant) },
    });
    assert.equal(shown.code, 0, shown.stderr);
    const report = JSON.parse(shown.stdout) as {
      worker: { run: string[] };
      isolation: { mode: string };
      scripts: {
        script: string;
        namespaces: string[];
        network: boolean;
        mounts: { kind: string; path: string }[];
      }[];
    };
    assert.equal(report.isolation.mode, "sandbox");
    assert.deepEqual(report.worker.run, [sandbox?.sandbox?.bwrapPath]);
    const [read, hello] = report.scripts;
    const real = await Deno.realPath(tree.path);
    assert.equal(read?.script, "scripts/read.sh");
    assert.ok(read?.namespaces.includes("net") && !read.network);
    assert.ok(read?.mounts.some((m) => m.kind === "ro" && m.path === `${real}/shared`));
    assert.ok(read?.mounts.some((m) => m.kind === "ro" && m.path === `${real}/skills/${SKILL}`));
    assert.ok(!read?.mounts.some((m) => m.path === `${real}/out`));
    assert.equal(hello?.script, "scripts/hello.py");
    assert.ok(hello?.network && !hello.namespaces.includes("net"));
    assert.ok(hello?.mounts.some((m) => m.kind === "rw" && m.path === `${real}/out`));
    assert.ok(hello?.mounts.some((m) => m.path === "/etc/resolv.conf"));
  },
});

Deno.test({
  name:
    "attack: MCP_DATA_DIR holding the skill roots lets no script read another skill's secret or edit its SKILL.md",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    await Deno.mkdir(tree.at("skills/other"));
    const otherMd = "---\nname: other\ndescription: Another skill.\n---\n# Other\n";
    await Deno.writeTextFile(tree.at("skills/other/SKILL.md"), otherMd);
    await Deno.writeTextFile(tree.at("skills/other/secret.txt"), "other's secret\n");
    const grant = [
      { skill: SKILL, script: "scripts/read.sh" },
      { skill: SKILL, script: "scripts/write.sh" },
    ];
    const env = {
      MCP_CONFIRM_MODE: "auto",
      MCP_SKILL_RUN: JSON.stringify(grant),
      MCP_DATA_DIR: tree.path,
    };
    const shown = await runProgram(["permissions", tree.at("skills"), "--json"], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, /MCP_DATA_DIR is refused \(it is or holds a skill root\)/);
    await using session = await connectStdio(["serve", tree.at("skills")], { env });
    const run = async (script: string, args: string[]) =>
      toolJson(await session.call("skill_run", { name: SKILL, script, args }));
    const read = await run("scripts/read.sh", [tree.at("skills/other/secret.txt")]);
    assert.notEqual(read.exitCode, 0);
    assert.ok(!String(read.stdout).includes("secret"));
    const wrote = await run("scripts/write.sh", [tree.at("skills/other/SKILL.md")]);
    assert.notEqual(wrote.exitCode, 0);
    assert.equal(await Deno.readTextFile(tree.at("skills/other/SKILL.md")), otherMd);
    const environ = await run("scripts/read.sh", ["/proc/self/environ"]);
    assert.equal(environ.exitCode, 0, String(environ.stderr));
    assert.ok(!String(environ.stdout).includes("MCP_DATA_DIR"), String(environ.stdout));
  },
});

Deno.test({
  name: "attack: MCP_DATA_DIR=/ or the home folder is refused and mounts nothing of the host",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    const grant = [{ skill: SKILL, script: "scripts/read.sh" }];
    const home = Deno.env.get("HOME") ?? "/root";
    for (
      const [dataDir, why] of [
        ["/", /MCP_DATA_DIR is refused \(it is \/, the whole file system\)/],
        [home, /MCP_DATA_DIR is refused \(it is a home folder itself\)/],
      ] as const
    ) {
      const shown = await runProgram(["permissions", tree.at("skills"), "--json"], {
        env: { MCP_SKILL_RUN: JSON.stringify(grant), MCP_DATA_DIR: dataDir },
      });
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stderr, why);
      const report = JSON.parse(shown.stdout) as {
        scripts: { mounts: { kind: string; path: string }[] }[];
      };
      const mounts = report.scripts[0]?.mounts ?? [];
      assert.ok(mounts.length > 0);
      assert.ok(!mounts.some((mount) => mount.kind === "rw"), JSON.stringify(mounts));
      assert.ok(!mounts.some((mount) => mount.path === "/" || mount.path === home));
    }
  },
});

Deno.test({
  name:
    "a data folder of its own is mounted read-write and handed to the script as MCP_DATA_DIR; the index cache in it is kept and hidden from scripts",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    // Files changed within 2 s of their read are cached nowhere (the racy-window rule).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const grant = [
      { skill: SKILL, script: "scripts/read.sh" },
      { skill: SKILL, script: "scripts/write.sh" },
    ];
    await using session = await connectStdio(["serve", tree.at("skills")], {
      env: {
        MCP_CONFIRM_MODE: "auto",
        MCP_SKILL_RUN: JSON.stringify(grant),
        MCP_DATA_DIR: tree.at("out"),
      },
    });
    const run = async (script: string, args: string[]) =>
      toolJson(await session.call("skill_run", { name: SKILL, script, args }));
    const wrote = await run("scripts/write.sh", [tree.at("out/kept.txt")]);
    assert.equal(wrote.stdout, "ok\n", String(wrote.stderr));
    assert.equal(await Deno.readTextFile(tree.at("out/kept.txt")), "written\n");
    const environ = await run("scripts/read.sh", ["/proc/self/environ"]);
    const real = await Deno.realPath(tree.at("out"));
    assert.ok(String(environ.stdout).split("\0").includes(`MCP_DATA_DIR=${real}`));
    // Hosted, the index cache lives in $MCP_DATA_DIR/skillgate/index: it is written (the
    // catalog's start) and every sandbox hides $MCP_DATA_DIR/skillgate, so no script reads,
    // forges or moves it.
    // The worker writes the cache once its digests are quiet: wait for it (bounded: 20 s).
    let cacheFiles: Deno.DirEntry[] = [];
    for (let tries = 0; tries < 200 && cacheFiles.length < 2; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      cacheFiles = await Array.fromAsync(Deno.readDir(tree.at("out/skillgate/index")));
    }
    assert.ok(cacheFiles.length > 0, `no index cache in MCP_DATA_DIR: ${session.stderr()}`);
    const aCacheFile = tree.at(`out/skillgate/index/${cacheFiles[0]!.name}`);
    const peek = await run("scripts/read.sh", [aCacheFile]);
    assert.notEqual(peek.exitCode, 0, "the cache is hidden from the script");
    const forged = await run("scripts/write.sh", [tree.at("out/skillgate/index/forged")]);
    assert.notEqual(forged.stdout, "ok\n");
    const forgedTop = await run("scripts/write.sh", [tree.at("out/skillgate/forged")]);
    assert.notEqual(forgedTop.stdout, "ok\n");
    const after = (await Array.fromAsync(Deno.readDir(tree.at("out/skillgate/index"))))
      .map((entry) => entry.name);
    assert.ok(!after.includes("forged"));
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(tree.at("out/skillgate")))).map((entry) => entry.name),
      ["index"],
    );
  },
});

Deno.test({
  name:
    "attack: a sandboxed script moves $MCP_DATA_DIR/skillgate away to put a forged index cache in its place",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    const script = "scripts/move.sh";
    const md = await Deno.readTextFile(tree.at(`skills/${SKILL}/SKILL.md`));
    await Deno.writeTextFile(
      tree.at(`skills/${SKILL}/SKILL.md`),
      md.replace(
        "  run:\n",
        `  run:\n    - script: ${script}\n      interpreter: bash\n      timeout: 10\n`,
      ),
    );
    await Deno.writeTextFile(
      tree.at(`skills/${SKILL}/${script}`),
      'mv "$1/skillgate" "$1/moved" && mkdir -p "$1/skillgate/index" && echo moved\n',
    );
    await using session = await connectStdio(["serve", tree.at("skills")], {
      env: {
        MCP_CONFIRM_MODE: "auto",
        MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script }]),
        MCP_DATA_DIR: tree.at("out"),
      },
    });
    const moved = toolJson(
      await session.call("skill_run", { name: SKILL, script, args: [tree.at("out")] }),
    );
    assert.notEqual(moved.exitCode, 0, String(moved.stdout));
    assert.match(String(moved.stderr), /busy/i);
    const names = (await Array.fromAsync(Deno.readDir(tree.at("out")))).map((entry) => entry.name);
    assert.deepEqual(names, ["skillgate"]);
  },
});

Deno.test({
  name:
    "attack: a grant names skillgate's configuration folder ($XDG_CONFIG_HOME/skillgate, --config's folder) to rewrite it",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    await Deno.mkdir(tree.at("cfg/skillgate"), { recursive: true });
    await Deno.mkdir(tree.at("etc"));
    await Deno.writeTextFile(tree.at("etc/sg.json"), "{}\n");
    const rows = [
      { skill: SKILL, script: "scripts/write.sh", write: [tree.at("cfg/skillgate")] },
      { skill: SKILL, script: "scripts/write.sh", write: [tree.at("etc")] },
    ];
    const env = { MCP_SKILL_RUN: JSON.stringify(rows), XDG_CONFIG_HOME: tree.at("cfg") };
    for (
      const [args, index] of [
        [[], 0],
        [["--config", tree.at("etc/sg.json")], 1],
      ] as const
    ) {
      const listed = await runProgram(["list", tree.at("skills"), "--json", ...args], { env });
      assert.equal(listed.code, 0, listed.stderr);
      const list = JSON.parse(listed.stdout) as Record<string, unknown>;
      const problem = (list.problems as { reason: string; detail: string }[])
        .find((entry) => entry.reason === "grant" && entry.detail.startsWith(`Row ${index} `));
      assert.match(problem?.detail ?? "", /skillgate's own folders/, JSON.stringify(list.problems));
    }
  },
});

Deno.test({
  name:
    "attack: bash found in ~/.local/bin (as uv, pipx or n place interpreters) does not mount ~/.local: a script cannot read the keyring beside it",
  ignore: sandbox === null,
  fn: async () => {
    await using tree = await world();
    const home = tree.at("home");
    await Deno.mkdir(join(home, ".local/bin"), { recursive: true });
    await Deno.mkdir(join(home, ".local/share/keyrings"), { recursive: true });
    await Deno.writeTextFile(join(home, ".local/share/keyrings/login.keyring"), "KEYRING-SECRET\n");
    const bash = await Deno.realPath("/bin/bash");
    await Deno.symlink(bash, join(home, ".local/bin/bash"));
    const env = {
      HOME: home,
      PATH: `${join(home, ".local/bin")}:/usr/local/bin:/usr/bin:/bin`,
      MCP_CONFIRM_MODE: "auto",
      MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script: "scripts/read.sh" }]),
    };
    const report = await runProgram(["permissions", tree.at("skills"), "--json"], { env });
    assert.equal(report.code, 0, report.stderr);
    const mounts = JSON.stringify(JSON.parse(report.stdout));
    assert.ok(!mounts.includes(`"${join(home, ".local")}"`), mounts);
    assert.ok(mounts.includes(`"${join(home, ".local/bin")}"`), mounts);
    await using session = await connectStdio(["serve", tree.at("skills")], { env });
    const answer = toolJson(
      await session.call("skill_run", {
        name: SKILL,
        script: "scripts/read.sh",
        args: [join(home, ".local/share/keyrings/login.keyring")],
      }),
    );
    assert.notEqual(answer.exitCode, 0, String(answer.stdout));
    assert.ok(!String(answer.stdout).includes("KEYRING-SECRET"));
  },
});
