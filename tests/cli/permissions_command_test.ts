import { indexCacheKeyOf } from "../../src/config/index_cache_key.ts";
import assert from "node:assert/strict";
import { findGroupLauncher } from "../../src/scripts/isolation.ts";
import { type PermissionsReport, permissionsReport } from "../../src/cli/permissions_command.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { TRUSTED_FLAG_REASONS, trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import { computeWorkerPermissions } from "../../src/sandbox/worker_permissions.ts";
import { copyToTemp, REPO_ROOT, runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

async function permissionsJson(
  args: string[],
  env: Record<string, string> = {},
): Promise<PermissionsReport> {
  const run = await runProgram(["permissions", ...args, "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as PermissionsReport;
}

Deno.test("permissions --json has exactly the documented shape, with a reason for every entry", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const report = await permissionsJson([tree.path]);
  assert.deepEqual(Object.keys(report), [
    "trusted",
    "worker",
    "declarations",
    "digests",
    "reasons",
    "isolation",
    "scripts",
  ]);
  assert.deepEqual(Object.keys(report.trusted), ["flags"]);
  assert.deepEqual(report.trusted.flags, trustedRunFlags());
  assert.deepEqual(Object.keys(report.worker), ["read", "run", "env", "net", "write", "sys"]);
  const expectedKeys = [
    ...report.trusted.flags,
    ...Object.entries(report.worker).flatMap(([kind, values]) =>
      values.map((value) => `${kind}:${value}`)
    ),
    ...Object.entries(report.declarations ?? {}).flatMap(([kind, values]) =>
      values.map((value) => `declarations:${kind}:${value}`)
    ),
    ...Object.entries(report.digests ?? {}).flatMap(([kind, values]) =>
      values.map((value) => `digests:${kind}:${value}`)
    ),
  ];
  assert.deepEqual(Object.keys(report.reasons).sort(), expectedKeys.sort());
  for (const [key, reason] of Object.entries(report.reasons)) {
    assert.ok(reason.length > 0 && reason !== "no reason recorded", `a reason for ${key}`);
  }
  for (const flag of report.trusted.flags) {
    assert.equal(report.reasons[flag], TRUSTED_FLAG_REASONS[flag]);
  }
});

Deno.test("permissions shows the worker set serve computes for the same roots", async () => {
  await using tree = await makeTree({
    "real/notes/SKILL.md": skillMd("notes"),
    "link": { symlink: "real" },
  });
  // Nothing granted (MCP_SKILL_RUN=[]): no launcher on the run list, as serve computes it.
  const report = await permissionsJson([tree.at("link")], {
    MCP_SKILL_RUN: "[]",
    XDG_CACHE_HOME: tree.at("cache"),
  });
  const { paths } = await checkRoots([{ path: tree.at("link"), from: "argument" }]);
  // The roots' own sub-folder of the cache folder (review r16, A4).
  const indexCache = `${tree.at("cache/skillgate/index")}/${indexCacheKeyOf([tree.at("link")])}`;
  const computed = computeWorkerPermissions(paths, { indexCache }).permissions;
  assert.deepEqual(report.worker, {
    read: [...computed.read],
    run: [...computed.run],
    env: [...computed.env],
    net: [...computed.net],
    write: [...computed.write],
    sys: [...computed.sys],
  });
  const realRoot = await Deno.realPath(tree.at("real"));
  assert.deepEqual(report.worker.read, [tree.at("link"), realRoot, indexCache]);
  assert.match(report.reasons[`read:${realRoot}`] ?? "", /real path of the skill root/);
  // The worker writes exactly the index cache folder, nothing beside or above it.
  assert.deepEqual(report.worker.write, [indexCache]);
  assert.match(report.reasons[`write:${indexCache}`] ?? "", /index cache/);
  assert.deepEqual(report.worker.sys, []);
});

Deno.test("permissions shows the declaration reader's set: the roots read only, nothing else", async () => {
  await using tree = await makeTree({
    "real/notes/SKILL.md": skillMd("notes"),
    "link": { symlink: "real" },
  });
  const env = { XDG_CACHE_HOME: tree.at("cache") };
  const report = await permissionsJson([tree.at("link")], env);
  const { paths } = await checkRoots([{ path: tree.at("link"), from: "argument" }]);
  const computed = computeWorkerPermissions(paths).permissions;
  const realRoot = await Deno.realPath(tree.at("real"));
  // Exactly the roots (as given and real): no index cache, no run, no write, no net.
  assert.deepEqual(report.declarations, {
    read: [tree.at("link"), realRoot],
    run: [],
    env: [...computed.env],
    net: [],
    write: [],
    sys: [],
  });
  assert.match(
    report.reasons[`declarations:read:${realRoot}`] ?? "",
    /real path of the skill root/,
  );
  const text = await runProgram(["permissions", tree.at("link")], { env });
  assert.equal(text.code, 0, text.stderr);
  const section = text.stdout.slice(text.stdout.indexOf("Declaration reader"));
  assert.match(section, /^Declaration reader .*\n {2}read {3}.*link\n/);
  assert.match(section, /\n {2}write {2}none\n/);
  assert.match(section, /\n {2}run {4}none\n/);
});

Deno.test("permissions standalone without a grant: the run list is the one launcher, whatever skills declare", async () => {
  // The trusted part reads no skill (issue 13): a root whose skills declare no script still
  // gets the launcher, because standalone the declarations stand and only the worker reads them.
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const report = await permissionsJson(["--isolation=group", tree.path]);
  const launcher = findGroupLauncher({ isRoot: Deno.uid() === 0 });
  assert.ok(launcher !== null, "sh (and setpriv as root) are in the system folders");
  assert.deepEqual(report.worker.run, [launcher.setprivPath ?? launcher.shPath]);
});

Deno.test("permissions for a hosted server without a grant has an empty run list", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const report = await permissionsJson([], { MCP_SKILLS_PATH: tree.path });
  assert.deepEqual(report.worker.run, []);
  assert.deepEqual(report.worker.net, []);
  assert.ok(report.worker.read.includes(tree.path));
});

Deno.test("permissions with a grant for a Python script puts exactly one program on the run list", async () => {
  await using copy = await copyToTemp(`${REPO_ROOT}examples/skills`);
  const root = `${copy.dir}/skills`;
  const grant = JSON.stringify([{ skill: "release-notes", script: "scripts/collect_changes.py" }]);
  const report = await permissionsJson([], { MCP_SKILLS_PATH: root, MCP_SKILL_RUN: grant });
  assert.equal(report.worker.run.length, 1, JSON.stringify(report.worker.run));
  const program = report.worker.run[0] ?? "";
  // The python3 found on PATH, `unshare` when every script runs in its own PID namespace,
  // or bwrap (its real path) when every script runs in a sandbox.
  assert.match(program, /^\/.*\/(python3|unshare|bwrap)$/);
  if (report.isolation?.mode === "sandbox") {
    assert.equal(program, await Deno.realPath(program));
    const [script] = report.scripts ?? [];
    assert.equal(script?.script, "scripts/collect_changes.py");
    assert.ok(script?.namespaces.includes("net") && script.namespaces.includes("pid"));
    const skillDir = await Deno.realPath(`${root}/release-notes`);
    assert.ok(script?.mounts.some((mount) => mount.kind === "ro" && mount.path === skillDir));
    assert.ok(!script?.mounts.some((mount) => mount.path === root));
  }
  assert.ok((report.reasons[`run:${program}`] ?? "").length > 0);
  const ungranted = await permissionsJson([], { MCP_SKILLS_PATH: root });
  assert.deepEqual(ungranted.worker.run, []);
});

Deno.test("permissions prints every flag and worker kind with its reason for a person", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const run = await runProgram(["permissions", "--no-index-cache", tree.path], {
    env: { MCP_SKILL_RUN: "[]" },
  });
  assert.equal(run.code, 0, run.stderr);
  for (const flag of trustedRunFlags()) {
    assert.match(
      run.stdout,
      new RegExp(`^ {4}${flag} +${RegExp.escape(TRUSTED_FLAG_REASONS[flag] ?? "")}$`, "m"),
    );
  }
  assert.match(
    run.stdout,
    new RegExp(`^ {2}read {3}${RegExp.escape(tree.path)}\\n {9}a configured skill root$`, "m"),
  );
  for (const kind of ["run", "net", "write", "sys", "ffi"]) {
    assert.match(run.stdout, new RegExp(`^ {2}${kind} +none$`, "m"));
  }
});

Deno.test("permissions exits 2 when a root does not exist", async () => {
  await using tree = await makeTree({});
  const run = await runProgram(["permissions", tree.at("nowhere")]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /does not exist/);
});

Deno.test("permissionsReport() refuses to hide an ffi entry it has no place for", () => {
  const computed = computeWorkerPermissions([{ path: "/srv/skills", realPath: "/srv/skills" }]);
  const withFfi = { ...computed, permissions: { ...computed.permissions, ffi: ["/lib/x.so"] } };
  assert.throws(() => permissionsReport(withFfi), /ffi entries \("\/lib\/x\.so"\)/);
});

Deno.test("permissions with --isolation=group and a Python grant lists exactly the group launcher", async () => {
  await using copy = await copyToTemp(`${REPO_ROOT}examples/skills`);
  const root = `${copy.dir}/skills`;
  const grant = JSON.stringify([{ skill: "release-notes", script: "scripts/collect_changes.py" }]);
  const python3 = (Deno.env.get("PATH") ?? "").split(":").map((folder) => `${folder}/python3`)
    .find((candidate) => {
      try {
        return Deno.statSync(candidate).isFile;
      } catch {
        return false;
      }
    });
  assert.ok(python3 !== undefined, "python3 is on PATH");
  const report = await permissionsJson(["--isolation=group"], {
    MCP_SKILLS_PATH: root,
    MCP_SKILL_RUN: grant,
  });
  // The granted python3 starts through the launcher that holds it stopped until its group is
  // registered (setpriv first as root, to drop every capability): that is what is spawned.
  const launcher = findGroupLauncher({ isRoot: Deno.uid() === 0 });
  assert.ok(launcher !== null, "sh (and setpriv as root) are in the system folders");
  const spawned = launcher.setprivPath ?? launcher.shPath;
  assert.deepEqual(report.worker.run, [spawned]);
  assert.match(report.reasons[`run:${spawned}`] ?? "", /group launcher sh/);
});

Deno.test("permissions shows the digest isolate's set: the roots read only, no env, nothing else", async () => {
  await using tree = await makeTree({
    "real/notes/SKILL.md": skillMd("notes"),
    "link": { symlink: "real" },
  });
  const env = { XDG_CACHE_HOME: tree.at("cache") };
  const report = await permissionsJson([tree.at("link")], env);
  const realRoot = await Deno.realPath(tree.at("real"));
  // Exactly the roots (as given and real): no index cache, no env (it parses no YAML), no run.
  assert.deepEqual(report.digests, {
    read: [tree.at("link"), realRoot],
    run: [],
    env: [],
    net: [],
    write: [],
    sys: [],
  });
  assert.match(report.reasons[`digests:read:${realRoot}`] ?? "", /path gate/);
  const text = await runProgram(["permissions", tree.at("link")], { env });
  assert.equal(text.code, 0, text.stderr);
  const section = text.stdout.slice(text.stdout.indexOf("Digest isolate"));
  assert.match(section, /^Digest isolate .*\n {2}read {3}.*link\n/);
  assert.match(section, /\n {2}env {4}none\n/);
  assert.match(section, /\n {2}write {2}none\n/);
});
