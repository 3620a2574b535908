import assert from "node:assert/strict";
import { join } from "node:path";
import {
  isResolvedFile,
  type PathRefusedCode,
  PathRefusedError,
  resolveSkillFile,
  resolveSkillFileSync,
} from "../../src/files/path_gate.ts";

/** Awaits a promise that must reject with a {@linkcode PathRefusedError}, and returns it. */
async function refusalOf(promise: Promise<unknown>, input: string): Promise<PathRefusedError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  if (!(error instanceof PathRefusedError)) {
    throw new Error(`Served or threw something else for ${JSON.stringify(input)}: ${error}`);
  }
  return error;
}

interface Fixture {
  readonly tmp: string;
  readonly skillDir: string;
  cleanup(): Promise<void>;
}

/**
 * `tmp/secret.txt`, `tmp/outside/secret.txt`, the skill `tmp/root/b` and its
 * prefix-trap sibling `tmp/root/bc`, with symlinks, a FIFO and a socket in the skill.
 */
async function makeFixture(): Promise<Fixture> {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_fs_" }));
  const skillDir = join(tmp, "root", "b");
  const at = (p: string) => join(skillDir, p);
  await Deno.mkdir(at("refs/deep"), { recursive: true });
  await Deno.mkdir(at("node_modules/pkg"), { recursive: true });
  await Deno.mkdir(join(tmp, "outside"));
  await Deno.mkdir(join(tmp, "root", "bc"));
  await Deno.writeTextFile(join(tmp, "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(tmp, "outside", "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(tmp, "root", "bc", "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(at("SKILL.md"), "---\nname: b\n---\n");
  await Deno.writeTextFile(at("refs/guide.md"), "# Guide\n");
  await Deno.writeTextFile(at("refs/deep/x.txt"), "x");
  await Deno.writeTextFile(at(".env"), "KEY=1");
  await Deno.writeTextFile(at("node_modules/pkg/index.js"), "");
  await Deno.writeTextFile(at("caf\u00e9.md"), "nfc");
  const links: [string, string][] = [
    ["out_file", "../../secret.txt"],
    ["out_abs", join(tmp, "secret.txt")],
    ["out_dir", "../../outside"],
    ["sib_file", "../bc/secret.txt"],
    ["sib_dir", "../bc"],
    ["up", ".."],
    ["self_dir", "."],
    ["loop_a", "loop_b"],
    ["loop_b", "loop_a"],
    ["self", "self"],
    ["loop_dir", "loop_dir"],
    ["fifo_link", "fifo"],
    ["in_link", "refs/guide.md"],
    ["in_dir", "refs"],
    ["env_link", ".env"],
    ["dev_null", "/dev/null"],
    ["dangling", "nowhere.md"],
    ["refs/up_guide", "../SKILL.md"],
  ];
  for (const [path, target] of links) await Deno.symlink(target, at(path));
  const mkfifo = await new Deno.Command("mkfifo", { args: [at("fifo")] }).output();
  assert(mkfifo.success, "mkfifo failed");
  // The socket file exists only while its listener is open.
  const listener = Deno.listen({ transport: "unix", path: at("sock") });
  return {
    tmp,
    skillDir,
    async cleanup() {
      listener.close();
      await Deno.remove(tmp, { recursive: true });
    },
  };
}

const REFUSALS: [string, PathRefusedCode][] = [
  ["out_file", "outside-skill"],
  ["out_abs", "outside-skill"],
  ["out_dir", "outside-skill"],
  ["out_dir/secret.txt", "outside-skill"],
  ["sib_file", "outside-skill"],
  ["sib_dir/secret.txt", "outside-skill"],
  ["up/bc/secret.txt", "outside-skill"],
  ["up/b", "outside-skill"],
  ["self_dir", "outside-skill"],
  ["dev_null", "outside-skill"],
  ["loop_a", "not-found"],
  ["loop_b/x", "not-found"],
  ["self", "not-found"],
  ["loop_dir/x", "not-found"],
  ["missing.md", "not-found"],
  ["refs/missing/x.md", "not-found"],
  ["SKILL.md/x", "not-found"],
  ["dangling", "not-found"],
  ["cafe\u0301.md", "not-found"],
  ["fifo", "not-a-file"],
  ["fifo_link", "not-a-file"],
  ["sock", "not-a-file"],
  ["refs", "not-a-file"],
  ["in_dir", "not-a-file"],
  ["env_link", "bad-path"],
  [".env", "bad-path"],
  ["node_modules/pkg/index.js", "bad-path"],
];

Deno.test("resolveSkillFile() refuses symlink escapes, loops, FIFOs, sockets, folders and missing files", async (t) => {
  const fixture = await makeFixture();
  try {
    for (const [input, code] of REFUSALS) {
      await t.step(`${input} -> ${code}`, async () => {
        const error = await refusalOf(resolveSkillFile(fixture.skillDir, input), input);
        assert.equal(error.code, code);
        assert(!error.message.includes(fixture.tmp), `message leaks a host path: ${error.message}`);
        assert(error.message.includes(JSON.stringify(input)), error.message);
      });
    }
  } finally {
    await fixture.cleanup();
  }
});

Deno.test("resolveSkillFile() serves regular files and symlinks that stay inside the skill", async (t) => {
  const fixture = await makeFixture();
  try {
    const cases: [string, string][] = [
      ["SKILL.md", "SKILL.md"],
      ["refs/guide.md", "refs/guide.md"],
      ["refs/deep/x.txt", "refs/deep/x.txt"],
      ["in_link", "refs/guide.md"],
      ["in_dir/guide.md", "refs/guide.md"],
      ["refs/up_guide", "SKILL.md"],
      ["self_dir/SKILL.md", "SKILL.md"],
      ["caf\u00e9.md", "caf\u00e9.md"],
    ];
    for (const [input, real] of cases) {
      await t.step(input, async () => {
        const file = await resolveSkillFile(fixture.skillDir, input);
        const info = await Deno.stat(join(fixture.skillDir, real));
        assert(isResolvedFile(file));
        assert.equal(file.relPath, input);
        assert.equal(file.realPath, join(fixture.skillDir, real));
        assert.equal(file.size, info.size);
        assert.equal(file.ino, info.ino);
        assert.equal(file.dev, info.dev);
        assert.equal(file.mtimeMs, info.mtime?.getTime() ?? null);
        assert.deepEqual(file.realSegments, real.split("/"));
        assert(Object.isFrozen(file));
      });
    }
  } finally {
    await fixture.cleanup();
  }
});

Deno.test("resolveSkillFile() names a symlink loop without a host path", async () => {
  const fixture = await makeFixture();
  try {
    for (const input of ["loop_a", "self", "loop_dir/x"]) {
      const error = await refusalOf(resolveSkillFile(fixture.skillDir, input), input);
      assert.equal(error.message, `Path ${JSON.stringify(input)} runs into a symlink loop`);
    }
  } finally {
    await fixture.cleanup();
  }
});

Deno.test("resolveSkillFile() fails closed when the skill folder is not a real path", async () => {
  const fixture = await makeFixture();
  try {
    const alias = join(fixture.tmp, "alias");
    await Deno.symlink(fixture.skillDir, alias);
    const error = await refusalOf(resolveSkillFile(alias, "SKILL.md"), "SKILL.md");
    assert.equal(error.code, "outside-skill");
    await assert.rejects(() => resolveSkillFile("root/b", "SKILL.md"), TypeError);
  } finally {
    await fixture.cleanup();
  }
});

Deno.test("isResolvedFile() rejects look-alike objects that the gate did not issue", () => {
  const fake = {
    relPath: "x",
    realPath: "/etc/passwd",
    size: 1,
    mtimeMs: null,
    dev: 1,
    ino: 1,
  };
  assert.equal(isResolvedFile(fake), false);
  assert.equal(isResolvedFile(null), false);
  assert.equal(isResolvedFile("x"), false);
  assert.throws(() => {
    throw new PathRefusedError("bad-path", "x");
  }, PathRefusedError);
});

Deno.test("resolveSkillFileSync() refuses every path resolveSkillFile() refuses, with the same code and message", async (t) => {
  const fixture = await makeFixture();
  try {
    for (const [input, code] of REFUSALS) {
      await t.step(`${input} -> ${code}`, async () => {
        const expected = await refusalOf(resolveSkillFile(fixture.skillDir, input), input);
        const error = await refusalOf(
          Promise.resolve().then(() => resolveSkillFileSync(fixture.skillDir, input)),
          input,
        );
        assert.equal(error.code, code);
        assert.equal(error.message, expected.message);
      });
    }
    const alias = join(fixture.tmp, "alias");
    await Deno.symlink(fixture.skillDir, alias);
    assert.equal(
      (await refusalOf(
        Promise.resolve().then(() => resolveSkillFileSync(alias, "SKILL.md")),
        "SKILL.md",
      ))
        .code,
      "outside-skill",
    );
    assert.throws(() => resolveSkillFileSync("root/b", "SKILL.md"), TypeError);
  } finally {
    await fixture.cleanup();
  }
});

Deno.test("resolveSkillFileSync() issues the same checked file as resolveSkillFile()", async () => {
  const fixture = await makeFixture();
  try {
    for (const input of ["SKILL.md", "refs/guide.md", "in_dir/guide.md", "refs/up_guide"]) {
      const file = resolveSkillFileSync(fixture.skillDir, input);
      assert(isResolvedFile(file));
      assert(Object.isFrozen(file));
      assert.deepEqual({ ...file }, { ...(await resolveSkillFile(fixture.skillDir, input)) });
    }
  } finally {
    await fixture.cleanup();
  }
});

Deno.test("resolveSkillFileSync() gives the real path's segments below the skill folder, with or without a trailing separator", async () => {
  const fixture = await makeFixture();
  try {
    for (const dir of [fixture.skillDir, `${fixture.skillDir}/`]) {
      for (
        const [input, real] of [["refs/deep/x.txt", "refs/deep/x.txt"], [
          "in_dir/guide.md",
          "refs/guide.md",
        ]]
      ) {
        const file = resolveSkillFileSync(dir, input!);
        assert.deepEqual(file.realSegments, real!.split("/"));
        assert.equal(file.realPath, join(fixture.skillDir, real!));
      }
    }
  } finally {
    await fixture.cleanup();
  }
});
