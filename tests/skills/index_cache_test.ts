import assert from "node:assert/strict";
import { skillBodyText } from "../../src/skills/skill_body.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { type IndexCache, openIndexCache } from "../../src/skills/index_cache.ts";
import {
  attachIndexCache,
  createDigestCache,
} from "../../src/mcp/skills_extension/digest_cache.ts";
import { connectStdio } from "../support/program.ts";
import { makeTree, skillMd } from "./_tree.ts";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

function cacheFor(dir: string, warnings: string[] = []): IndexCache {
  return openIndexCache(dir, { rootsKey: "test-roots", now: later, warn: (l) => warnings.push(l) });
}

async function build(root: string, cache: IndexCache) {
  return await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS, {
    indexCache: cache,
  });
}

Deno.test("index cache: an unchanged SKILL.md is not parsed again, a changed one is", async () => {
  await using tree = await makeTree({
    "notes/SKILL.md": skillMd("notes", "Keeps notes one"),
  });
  await using cacheDir = await makeTree({});
  const first = cacheFor(cacheDir.path);
  await build(tree.path, first);
  assert.deepEqual(first.stats, { hits: 0, misses: 1 });
  const second = cacheFor(cacheDir.path);
  const again = await build(tree.path, second);
  assert.deepEqual(second.stats, { hits: 1, misses: 0 });
  assert.equal(again.byName.get("notes")?.description, "Keeps notes one");
  assert.match(
    await skillBodyText(again.byName.get("notes")!, DEFAULT_CAPS.maxSkillMdBytes),
    /\S/,
    "the body is read through the gate",
  );
  await Deno.writeTextFile(
    tree.at("notes/SKILL.md"),
    skillMd("notes", "Keeps notes, second version"),
  );
  const third = cacheFor(cacheDir.path);
  const edited = await build(tree.path, third);
  assert.deepEqual(third.stats, { hits: 0, misses: 1 });
  assert.equal(edited.byName.get("notes")?.description, "Keeps notes, second version");
});

Deno.test("attack: an in-place edit that keeps size and modification time does not reuse the cached parse", async () => {
  await using tree = await makeTree({
    "notes/SKILL.md": skillMd("notes", "Harmless notes AAAA"),
  });
  await using cacheDir = await makeTree({});
  const file = tree.at("notes/SKILL.md");
  // The real clock: a version is stored only once its change time is past the racy window
  // (timestamps move in clock ticks of several ms, so an edit in the same tick keeps them all).
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const real = openIndexCache(cacheDir.path, { rootsKey: "test-roots" });
  await build(tree.path, real);
  const control = openIndexCache(cacheDir.path, { rootsKey: "test-roots" });
  await build(tree.path, control);
  assert.deepEqual(control.stats, { hits: 1, misses: 0 }, "control: the version was stored");
  const before = await Deno.stat(file);
  // Same length, same inode (written in place), then the old times put back.
  const original = await Deno.readTextFile(file);
  const swapped = original.replace("Harmless notes AAAA", "Malicious note BBBB");
  assert.equal(swapped.length, original.length);
  const handle = await Deno.open(file, { write: true });
  await handle.write(new TextEncoder().encode(swapped));
  handle.close();
  await Deno.utime(file, before.atime ?? new Date(), before.mtime ?? new Date());
  const after = await Deno.stat(file);
  assert.equal(after.size, before.size);
  assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
  assert.equal(after.ino, before.ino);
  const cache = openIndexCache(cacheDir.path, { rootsKey: "test-roots" });
  const catalog = await build(tree.path, cache);
  assert.deepEqual(cache.stats, { hits: 0, misses: 1 }, "the change time moved: a miss");
  assert.equal(catalog.byName.get("notes")?.description, "Malicious note BBBB");
});

Deno.test("index cache: a version changed within the racy window is never stored", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  await using cacheDir = await makeTree({});
  await build(tree.path, openIndexCache(cacheDir.path, { rootsKey: "test-roots" }));
  const next = openIndexCache(cacheDir.path, { rootsKey: "test-roots" });
  await build(tree.path, next);
  assert.deepEqual(next.stats, { hits: 0, misses: 1 });
});

Deno.test("index cache: a corrupt cache is ignored with one warning and rebuilt", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  await using cacheDir = await makeTree({});
  await build(tree.path, cacheFor(cacheDir.path));
  const [file] = [...Deno.readDirSync(cacheDir.path)].map((entry) => entry.name);
  assert.ok(file !== undefined, "one cache file written");
  await Deno.writeTextFile(cacheDir.at(file), '{"format":"skillgate-index-1","entries":[["x",');
  const warnings: string[] = [];
  const cache = cacheFor(cacheDir.path, warnings);
  const catalog = await build(tree.path, cache);
  assert.equal(catalog.skills.length, 1);
  assert.deepEqual(cache.stats, { hits: 0, misses: 1 });
  assert.ok(warnings.length <= 1, "at most one warning per cause in a process");
  const rebuilt = cacheFor(cacheDir.path);
  await build(tree.path, rebuilt);
  assert.deepEqual(rebuilt.stats, { hits: 1, misses: 0 }, "the next start uses the rebuilt cache");
});

Deno.test("index cache: a foreign JSON file or a forged entry shape is never used", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  await using cacheDir = await makeTree({});
  await build(tree.path, cacheFor(cacheDir.path));
  const [file] = [...Deno.readDirSync(cacheDir.path)].map((entry) => entry.name);
  const [head, entry, ...rest] = (await Deno.readTextFile(cacheDir.at(file ?? ""))).split("\n");
  const forged = JSON.parse(entry ?? "null");
  forged[2].frontmatter = ["not", "a", "mapping"];
  await Deno.writeTextFile(
    cacheDir.at(file ?? ""),
    [head, JSON.stringify(forged), ...rest].join("\n"),
  );
  const cache = cacheFor(cacheDir.path, []);
  const catalog = await build(tree.path, cache);
  assert.deepEqual(cache.stats, { hits: 0, misses: 1 });
  assert.equal(catalog.byName.get("notes")?.name, "notes");
});

Deno.test("index cache: no folder means every lookup misses and nothing is written", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  const cache = openIndexCache(null, { rootsKey: "x", now: later });
  await build(tree.path, cache);
  await build(tree.path, cache);
  assert.equal(cache.stats.hits, 0);
});

Deno.test("index cache: two skillgate processes sharing one cache folder both serve, and leave a whole cache", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "beta/SKILL.md": skillMd("beta"),
  });
  await using home = await makeTree({});
  // Past the racy window, so the first starts store their parses.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const env = { XDG_CACHE_HOME: home.path };
  const names = async () => {
    await using first = await connectStdio(["serve", "--static", tree.path], { env });
    await using second = await connectStdio(["serve", "--static", tree.path], { env });
    const [a, b] = await Promise.all([
      first.call("skill_list", {}),
      second.call("skill_list", {}),
    ]);
    const of = (result: typeof a) =>
      (result.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name);
    return [of(a), of(b)];
  };
  assert.deepEqual(await names(), [["alpha", "beta"], ["alpha", "beta"]]);
  // The same roots share one sub-folder of the cache folder (review r16, A4: one per set of roots).
  const shared = `${home.path}/skillgate/index`;
  const subFolders = [...Deno.readDirSync(shared)].map((entry) => entry.name);
  assert.equal(
    subFolders.length,
    1,
    `one sub-folder for one set of roots: ${subFolders.join(", ")}`,
  );
  const folder = `${shared}/${subFolders[0]}`;
  const files = [...Deno.readDirSync(folder)].map((entry) => entry.name);
  assert.equal(
    files.length,
    2,
    `a parse and a digest file, no temporary left: ${files.join(", ")}`,
  );
  const parses = files.filter((name) => name.endsWith(".parses"));
  assert.equal(parses.length, 1, `one parse file: ${files.join(", ")}`);
  const lines = (await Deno.readTextFile(`${folder}/${parses[0]}`)).trimEnd().split("\n");
  assert.equal(JSON.parse(lines[0] ?? "null").count, 2, "the header counts both parses");
  assert.equal(lines.length, 3, "a header and one line per parse");
  // Each SKILL.md's digest, taken from the build's read, is stored beside (issue 13).
  assert.ok(files.some((name) => name.endsWith(".digests")), `a digest file: ${files.join(", ")}`);
  // A third start reads the shared cache and serves the same.
  assert.deepEqual(await names(), [["alpha", "beta"], ["alpha", "beta"]]);
});

Deno.test("index cache: a digest of an unchanged file version is not computed again by the next start", async () => {
  await using tree = await makeTree({
    "notes/SKILL.md": skillMd("notes"),
    "notes/references/guide.md": "# Guide\n",
  });
  await using cacheDir = await makeTree({});
  const digestOf = async (cache: IndexCache) => {
    const catalog = await build(tree.path, cache);
    const skill = catalog.byName.get("notes");
    const listed = skill?.files.find((file) => file.path === "references/guide.md");
    assert.ok(skill !== undefined && listed !== undefined);
    const digests = createDigestCache();
    attachIndexCache(cache);
    try {
      const found = await digests.digest(skill.realDir, listed);
      cache.flush();
      return { found, hashed: digests.hashed };
    } finally {
      attachIndexCache(null);
    }
  };
  const first = await digestOf(cacheFor(cacheDir.path));
  assert.equal(first.hashed, 1);
  const second = await digestOf(cacheFor(cacheDir.path));
  assert.equal(second.hashed, 0, "the stored digest of the same version is used");
  assert.deepEqual(second.found, first.found);
  await Deno.writeTextFile(tree.at("notes/references/guide.md"), "# Guide, changed\n");
  const third = await digestOf(cacheFor(cacheDir.path));
  assert.equal(third.hashed, 1, "a changed version is read through the gate and hashed");
  assert.notEqual(third.found.digest, first.found.digest);
});

Deno.test("attack: a cached SKILL.md moved out of the root and replaced by a symlink to it is not served from the cache", async () => {
  await using tree = await makeTree({
    "root/notes/SKILL.md": skillMd("notes", "Cached description"),
    "outside/.keep": "",
  });
  await using cacheDir = await makeTree({});
  const root = tree.at("root");
  const warm = cacheFor(cacheDir.path);
  await build(root, warm);
  warm.flush();
  const hit = cacheFor(cacheDir.path);
  await build(root, hit);
  assert.equal(hit.stats.hits, 1, "the entry is there before the swap");
  // The very file (same device, inode, size, mtime) now lives outside; SKILL.md points at it.
  await Deno.rename(tree.at("root/notes/SKILL.md"), tree.at("outside/SKILL.md"));
  await Deno.symlink(tree.at("outside/SKILL.md"), tree.at("root/notes/SKILL.md"));
  const next = cacheFor(cacheDir.path);
  const catalog = await build(root, next);
  assert.equal(next.stats.hits, 0, "a symlink is never a cache hit");
  assert.equal(catalog.byName.get("notes"), undefined, "outside bytes are never served");
});

Deno.test("index cache: a SKILL.md cut at the read cap is parsed again when the cap changes", async () => {
  await using tree = await makeTree({
    "notes/SKILL.md": skillMd("notes", "Keeps notes") + "x".repeat(8_192) + "\n",
  });
  await using cacheDir = await makeTree({});
  const roots = [{ path: tree.path, from: "argument" as const }];
  const withCap = async (maxSkillMdBytes: number) => {
    const cache = cacheFor(cacheDir.path);
    await buildCatalog(roots, { ...DEFAULT_CAPS, maxSkillMdBytes }, { indexCache: cache });
    return cache.stats;
  };
  assert.deepEqual(await withCap(2_048), { hits: 0, misses: 1 });
  assert.deepEqual(await withCap(2_048), { hits: 1, misses: 0 }, "same cap: the cached parse");
  assert.deepEqual(await withCap(4_096), { hits: 0, misses: 1 }, "another cap: parsed again");
});

Deno.test("holdsParse() says whether any version's parse is stored under a key, and counts no lookup", async () => {
  await using cacheDir = await makeTree({});
  const cache = cacheFor(cacheDir.path);
  assert.equal(cache.holdsParse("skill-a"), false);
  const version = { dev: 1, ino: 2, size: 3, mtimeMs: 1_000, ctimeMs: 1_000 };
  const parsed = { frontmatter: { name: "a" }, keyLines: [], findings: [] };
  cache.remember("skill-a", version, parsed);
  assert.equal(cache.holdsParse("skill-a"), true);
  assert.equal(cache.holdsParse("skill-b"), false);
  assert.deepEqual(cache.stats, { hits: 0, misses: 0 });
  cache.flush();
  const reopened = cacheFor(cacheDir.path);
  assert.equal(reopened.holdsParse("skill-a"), true, "a stored entry is held after a restart");
  assert.equal(reopened.lookup("skill-a", { ...version, ctimeMs: 2_000 }), null);
  assert.equal(reopened.holdsParse("skill-a"), true, "held whatever the version");
});

Deno.test("holdsAnyParse() tells a warm cache (parses stored) from a cold one, and counts no lookup", async () => {
  await using cacheDir = await makeTree({});
  assert.equal(cacheFor(cacheDir.path).holdsAnyParse(), false, "no parse file: cold");
  const cache = cacheFor(cacheDir.path);
  const version = { dev: 1, ino: 2, size: 3, mtimeMs: 1_000, ctimeMs: 1_000 };
  cache.remember("skill-a", version, { frontmatter: { name: "a" }, keyLines: [], findings: [] });
  assert.equal(cache.holdsAnyParse(), true, "a parse added in this process");
  cache.flush();
  const reopened = cacheFor(cacheDir.path);
  assert.equal(reopened.holdsAnyParse(), true, "a parse file from an earlier start: warm");
  assert.deepEqual(reopened.stats, { hits: 0, misses: 0 });
});

Deno.test("rememberDigest() writes the digests once they stop arriving for a while, without a flush", async () => {
  await using cacheDir = await makeTree({});
  const cache = cacheFor(cacheDir.path);
  const version = (ino: number) => ({ dev: 1, ino, size: 3, mtimeMs: 1_000, ctimeMs: 1_000 });
  const digest = { digest: `sha256:${"a".repeat(64)}`, size: 3 };
  // Digests keep arriving for longer than the quiet delay (one timer, pushed back).
  for (let ino = 1; ino <= 3; ino++) {
    assert.equal(cache.rememberDigest("/skill", `f${ino}.md`, version(ino), digest), true);
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const reopened = cacheFor(cacheDir.path);
  for (let ino = 1; ino <= 3; ino++) {
    assert.deepEqual(reopened.lookupDigest("/skill", `f${ino}.md`, version(ino)), digest);
  }
});
