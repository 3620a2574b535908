import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { PathRefusedError } from "../../../src/files/path_gate.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import type { Catalog, Skill, SkillFile } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

async function catalogOf(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

function fileOf(skill: Skill, path: string): SkillFile {
  const file = skill.files.find((listed) => listed.path === path);
  assert.ok(file, path);
  return file;
}

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

Deno.test("digest cache answers a listed version it hashed before without any file-system call", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/notes.md": "notes\n",
    "beta/SKILL.md": skillMd("beta", "Second"),
  });
  const catalog = await catalogOf(tree.path);
  const cache = createDigestCache({ now: later });
  const listed = catalog.skills.flatMap((skill) => skill.files.map((file) => ({ skill, file })));
  for (const { skill, file } of listed) await cache.digest(skill.realDir, file);
  assert.equal(cache.hashed, 3);
  assert.equal(cache.resolved, 3);
  // Warm: every file answered from memory, no path-gate resolution, no read.
  for (let round = 0; round < 3; round++) {
    for (const { skill, file } of listed) await cache.digest(skill.realDir, file);
  }
  assert.equal(cache.hashed, 3);
  assert.equal(cache.resolved, 3);
  const alpha = catalog.byName.get("alpha") as Skill;
  assert.deepEqual(await cache.digest(alpha.realDir, fileOf(alpha, "notes.md")), {
    digest: sha256("notes\n"),
    size: 6,
  });
});

Deno.test("digest cache reads a file again once the snapshot lists a new version of it", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/notes.md": "old text\n",
  });
  const before = await catalogOf(tree.path);
  const cache = createDigestCache({ now: later });
  const oldAlpha = before.byName.get("alpha") as Skill;
  assert.equal(
    (await cache.digest(oldAlpha.realDir, fileOf(oldAlpha, "notes.md"))).digest,
    sha256("old text\n"),
  );
  // Replaced by a new file (new inode) of the same size, with the old mtime put back.
  const path = tree.at("alpha/notes.md");
  const { mtime } = await Deno.stat(path);
  await Deno.writeTextFile(tree.at("alpha/new.tmp"), "new text\n");
  await Deno.rename(tree.at("alpha/new.tmp"), path);
  await Deno.utime(path, mtime as Date, mtime as Date);
  const after = await catalogOf(tree.path);
  const newAlpha = after.byName.get("alpha") as Skill;
  const listed = fileOf(newAlpha, "notes.md");
  assert.equal(listed.size, fileOf(oldAlpha, "notes.md").size);
  assert.equal(listed.mtimeMs, fileOf(oldAlpha, "notes.md").mtimeMs);
  assert.equal((await cache.digest(newAlpha.realDir, listed)).digest, sha256("new text\n"));
  assert.equal(cache.hashed, 2);
});

Deno.test("digest cache never stores bytes read after a change under the version the snapshot lists", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/notes.md": "short\n",
  });
  const catalog = await catalogOf(tree.path);
  const alpha = catalog.byName.get("alpha") as Skill;
  const listed = fileOf(alpha, "notes.md");
  // Changed after the snapshot and before anything was hashed.
  await Deno.writeTextFile(tree.at("alpha/notes.md"), "a longer text\n");
  const cache = createDigestCache({ now: later });
  for (let round = 0; round < 2; round++) {
    const found = await cache.digest(alpha.realDir, listed);
    // The bytes the gate read, never a digest claimed for the listed version unread.
    assert.deepEqual(found, { digest: sha256("a longer text\n"), size: 14 });
  }
  // The listed version is never answered from memory: each call goes through the gate,
  // and the version the gate saw is read once.
  assert.equal(cache.resolved, 2);
  assert.equal(cache.hashed, 1);
});

Deno.test("digest cache goes through the gate for a version it has not hashed: an outside link is refused", async () => {
  await using outside = await makeTree({ "secret.txt": "secret\n" });
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/notes.md": "notes\n",
  });
  const catalog = await catalogOf(tree.path);
  const alpha = catalog.byName.get("alpha") as Skill;
  const listed = fileOf(alpha, "notes.md");
  await Deno.remove(tree.at("alpha/notes.md"));
  await Deno.symlink(outside.at("secret.txt"), tree.at("alpha/notes.md"));
  const cache = createDigestCache({ now: later });
  await assert.rejects(
    cache.digest(alpha.realDir, listed),
    (error: unknown) => error instanceof PathRefusedError && error.code === "outside-skill",
  );
  assert.equal(cache.hashed, 0);
  assert.equal(cache.size, 0);
});

Deno.test("digest cache resolves every call for a file listed without device and inode", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/notes.md": "notes\n",
  });
  const catalog = await catalogOf(tree.path);
  const alpha = catalog.byName.get("alpha") as Skill;
  const { path, size, mtimeMs } = fileOf(alpha, "notes.md");
  const cache = createDigestCache({ now: later });
  for (let round = 0; round < 3; round++) {
    assert.equal(
      (await cache.digest(alpha.realDir, { path, size, mtimeMs })).digest,
      sha256("notes\n"),
    );
  }
  assert.equal(cache.resolved, 3);
  assert.equal(cache.hashed, 1);
});

Deno.test("digest cache hashes a file once when two callers ask for the same version at once", async () => {
  await using tree = await makeTree({ "one/SKILL.md": skillMd("one") });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  const skill = catalog.skills[0]!;
  const file = skill.files[0]!;
  const cache = createDigestCache({ now: later });
  assert.equal(cache.holds(skill.realDir, file), false);
  const [a, b] = await Promise.all([
    cache.digest(skill.realDir, file),
    cache.digest(skill.realDir, file),
  ]);
  assert.equal(cache.hashed, 1);
  assert.equal(cache.resolved, 1);
  assert.deepEqual(a, b);
  assert.equal(cache.holds(skill.realDir, file), true, "the hash-ahead skips it now");
  assert.equal(cache.holds(skill.realDir, { ...file, size: file.size + 1 }), false);
  const expected = createHash("sha256").update(await Deno.readFile(tree.at("one/SKILL.md")));
  assert.equal(a.digest, `sha256:${expected.digest("hex")}`);
});
