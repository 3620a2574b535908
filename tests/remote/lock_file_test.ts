import { join } from "node:path";
import {
  diffSkills,
  groupSkills,
  LockError,
  parseLock,
  readLockFile,
  renderLock,
  writeLockFile,
} from "../../src/remote/lock_file.ts";
import { assertEquals, assertRejects, assertThrows } from "./_assert.ts";

const A = `sha256:${"a".repeat(64)}`;
const B = `sha256:${"b".repeat(64)}`;
const SHA = "0123456789abcdef0123456789abcdef01234567";

Deno.test("groupSkills() gives each file to its nearest folder holding SKILL.md", () => {
  const files = new Map([
    ["README.md", { size: 1, digest: A }],
    ["pdf/SKILL.md", { size: 1, digest: A }],
    ["pdf/scripts/x.py", { size: 1, digest: B }],
    ["group/docx/SKILL.md", { size: 1, digest: B }],
    ["group/docx/ref/a.md", { size: 1, digest: A }],
  ]);
  assertEquals(groupSkills(files), {
    "pdf": { "SKILL.md": A, "scripts/x.py": B },
    "group/docx": { "SKILL.md": B, "ref/a.md": A },
  });
  assertEquals(groupSkills(new Map([["SKILL.md", { size: 1, digest: A }]])), {
    ".": { "SKILL.md": A },
  });
});

Deno.test("renderLock() is stable and parseLock() reads it back", () => {
  const lock = {
    sources: [
      { spec: "github:z/z", commit: SHA, skills: { b: { "z.md": A, "SKILL.md": B }, a: {} } },
      { spec: "github:a/a", commit: SHA, skills: {} },
    ],
  };
  const text = renderLock(lock);
  assertEquals(text.indexOf("github:a/a") < text.indexOf("github:z/z"), true);
  assertEquals(text.indexOf('"SKILL.md"') < text.indexOf('"z.md"'), true);
  assertEquals(renderLock(parseLock(text, "skillgate.lock")), text);
  assertEquals(JSON.parse(text).lockVersion, 1);
  assertEquals(JSON.parse(text).sources[1].resolved, { commit: SHA });
});

Deno.test("attack: parseLock() refuses a wrong version, a bad commit or digest, a twice-listed spec", () => {
  const ok = { spec: "github:a/b", resolved: { commit: SHA }, skills: {} };
  for (
    const value of [
      "not json",
      { lockVersion: 2, sources: [] },
      { lockVersion: 1, sources: [{ ...ok, resolved: { commit: "main" } }] },
      { lockVersion: 1, sources: [{ ...ok, skills: { x: { files: { "SKILL.md": "md5:1" } } } }] },
      { lockVersion: 1, sources: [ok, ok] },
    ]
  ) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    assertThrows(() => parseLock(text, "skillgate.lock"), LockError, undefined, text);
  }
});

Deno.test("diffSkills() names skills added, removed and changed", () => {
  assertEquals(
    diffSkills({ a: { "SKILL.md": A }, b: { "SKILL.md": A }, c: { "SKILL.md": A } }, {
      a: { "SKILL.md": A },
      b: { "SKILL.md": B },
      d: { "SKILL.md": A },
    }),
    { added: ["d"], removed: ["c"], changed: ["b"] },
  );
  assertEquals(diffSkills({ a: { "SKILL.md": A } }, { a: { "SKILL.md": A, "x": A } }).changed, [
    "a",
  ]);
});

Deno.test("readLockFile() answers null for a missing lock and round-trips writeLockFile()", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "skillgate.lock");
    assertEquals(await readLockFile(path), null);
    const lock = {
      sources: [{ spec: "github:a/b", commit: SHA, skills: { x: { "SKILL.md": A } } }],
    };
    await writeLockFile(path, lock);
    assertEquals((await readLockFile(path))?.sources[0]?.skills, { x: { "SKILL.md": A } });
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["skillgate.lock"]);
    await Deno.writeTextFile(path, "{");
    await assertRejects(() => readLockFile(path), LockError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("renderLock() pins a publisher by its index digest, and parseLock() reads it back", () => {
  const spec = "https://skills.acme.dev/.well-known/agent-skills/";
  const lock = {
    sources: [
      { spec: "github:a/a", commit: SHA, skills: {} },
      { spec, commit: "c".repeat(64), skills: { brand: { "SKILL.md": A } } },
    ],
  };
  const text = renderLock(lock);
  const json = JSON.parse(text);
  assertEquals(json.sources.map((s: { resolved: unknown }) => s.resolved), [
    { commit: SHA },
    { indexDigest: `sha256:${"c".repeat(64)}` },
  ]);
  assertEquals(renderLock(parseLock(text, "skillgate.lock")), text);
  assertEquals(parseLock(text, "skillgate.lock").sources[1]?.commit, "c".repeat(64));
});

Deno.test("attack: parseLock() refuses a publisher pinned by a commit or a malformed index digest", () => {
  const spec = "https://skills.acme.dev/.well-known/agent-skills/";
  for (
    const resolved of [
      { commit: SHA },
      { indexDigest: "c".repeat(64) },
      { indexDigest: `sha256:${"C".repeat(64)}` },
      { indexDigest: `sha256:${"c".repeat(40)}` },
    ]
  ) {
    const text = JSON.stringify({ lockVersion: 1, sources: [{ spec, resolved, skills: {} }] });
    assertThrows(
      () => parseLock(text, "skillgate.lock"),
      LockError,
      undefined,
      JSON.stringify(resolved),
    );
  }
});
