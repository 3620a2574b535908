import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { type FileVersion, type IndexCache, openIndexCache } from "../../src/skills/index_cache.ts";
import { DigestTable, writeDigestFile } from "../../src/skills/_index_digests.ts";
import {
  PARSE_FORMAT,
  readParseFile,
  type StoredParse,
  writeParseFile,
} from "../../src/skills/_index_parses.ts";
import { VERSION } from "../../src/version.ts";
import { makeTree, skillMd } from "./_tree.ts";

/** A clock far enough ahead that every version is past the racy window. */
const later = () => Date.now() + 60_000;

function cacheFor(dir: string, warnings: string[] = []): IndexCache {
  return openIndexCache(dir, { rootsKey: "test-roots", now: later, warn: (l) => warnings.push(l) });
}

function versionOf(ino: number, size = 10): FileVersion {
  return { dev: 7, ino, size, mtimeMs: 1_000, ctimeMs: 2_000 };
}

const digestOf = (byte: number) => `sha256:${byte.toString(16).padStart(2, "0").repeat(32)}`;

function cacheFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
}

Deno.test("index cache: digests are stored in one binary file and found again by exact version only", async () => {
  await using cacheDir = await makeTree({});
  const first = cacheFor(cacheDir.path);
  first.rememberDigest("/s/notes", "a.md", versionOf(1), { digest: digestOf(1), size: 10 });
  first.rememberDigest("/s/notes", "b.md", versionOf(2), { digest: digestOf(2), size: 10 });
  first.flush();
  assert.deepEqual(cacheFiles(cacheDir.path).map((name) => name.replace(/^skills-\w+/, "")), [
    ".digests",
  ]);
  const next = cacheFor(cacheDir.path);
  assert.deepEqual(next.lookupDigest("/s/notes", "a.md", versionOf(1)), {
    digest: digestOf(1),
    size: 10,
  });
  assert.equal(next.lookupDigest("/s/notes", "b.md", versionOf(2))?.digest, digestOf(2));
  assert.equal(next.lookupDigest("/s/notes", "a.md", versionOf(1, 11)), null, "another size");
  assert.equal(
    next.lookupDigest("/s/notes", "a.md", { ...versionOf(1), ctimeMs: 2_001 }),
    null,
    "another change time",
  );
  assert.equal(next.lookupDigest("/s/other", "a.md", versionOf(1)), null, "another folder");
  assert.equal(
    next.lookupDigest("/s/notes", "a.md", { ...versionOf(1), ctimeMs: null }),
    null,
    "no change time is never a hit",
  );
});

Deno.test("index cache: a later write keeps earlier digests and replaces a changed file's", async () => {
  await using cacheDir = await makeTree({});
  const first = cacheFor(cacheDir.path);
  first.rememberDigest("/s/notes", "a.md", versionOf(1), { digest: digestOf(1), size: 10 });
  first.rememberDigest("/s/notes", "b.md", versionOf(2), { digest: digestOf(2), size: 10 });
  first.flush();
  const second = cacheFor(cacheDir.path);
  second.rememberDigest("/s/notes", "b.md", versionOf(3), { digest: digestOf(3), size: 10 });
  second.flush();
  const third = cacheFor(cacheDir.path);
  assert.equal(third.lookupDigest("/s/notes", "a.md", versionOf(1))?.digest, digestOf(1));
  assert.equal(third.lookupDigest("/s/notes", "b.md", versionOf(2)), null, "the old version");
  assert.equal(third.lookupDigest("/s/notes", "b.md", versionOf(3))?.digest, digestOf(3));
  const bytes = Deno.readFileSync(cacheDir.at(cacheFiles(cacheDir.path)[0] ?? ""));
  const read = DigestTable.read(bytes, VERSION);
  assert.equal(read.kind === "table" ? read.table.size : -1, 2, "one record per file");
});

Deno.test("index cache: a warm start that only builds the catalog never reads the digest file", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  await using cacheDir = await makeTree({});
  const roots = [{ path: tree.path, from: "argument" as const }];
  // A cold build reads SKILL.md and stores its digest (issue 13); a warm one opens no SKILL.md.
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cacheFor(cacheDir.path) });
  const cache = cacheFor(cacheDir.path);
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cache });
  assert.deepEqual(cache.stats, { hits: 1, misses: 0 }, "the build was warm");
  // Written by another process only now: a cache that had read the digests during the build
  // would not see it.
  const other = cacheFor(cacheDir.path);
  other.rememberDigest("/s/notes", "a.md", versionOf(1), { digest: digestOf(1), size: 10 });
  other.flush();
  assert.equal(cache.lookupDigest("/s/notes", "a.md", versionOf(1))?.digest, digestOf(1));
});

Deno.test("index cache: a truncated digest file is ignored with at most one warning and rebuilt", async () => {
  await using cacheDir = await makeTree({});
  const seed = cacheFor(cacheDir.path);
  for (let i = 0; i < 20; i++) {
    seed.rememberDigest("/s/notes", `f${i}.md`, versionOf(i), { digest: digestOf(i), size: 10 });
  }
  seed.flush();
  const path = cacheDir.at(cacheFiles(cacheDir.path)[0] ?? "");
  const whole = Deno.readFileSync(path);
  for (const cut of [whole.length - 1, Math.floor(whole.length / 2), 9]) {
    await Deno.writeFile(path, whole.subarray(0, cut));
    const warnings: string[] = [];
    const cache = cacheFor(cacheDir.path, warnings);
    assert.equal(cache.lookupDigest("/s/notes", "f0.md", versionOf(0)), null, `cut at ${cut}`);
    assert.ok(warnings.length <= 1, "at most one warning per cause in a process");
    cache.rememberDigest("/s/notes", "f0.md", versionOf(0), { digest: digestOf(0), size: 10 });
    cache.flush();
    const rebuilt = cacheFor(cacheDir.path);
    assert.equal(rebuilt.lookupDigest("/s/notes", "f0.md", versionOf(0))?.digest, digestOf(0));
  }
});

Deno.test("index cache: a digest record pointing outside its key table makes the file corrupt", () => {
  const bytes = writeDigestFile(VERSION, null, new Set(), [{
    key: "/s/notes\0a.md",
    version: versionOf(1),
    digest: { digest: digestOf(1), size: 10 },
  }], 10);
  assert.equal(DigestTable.read(bytes, VERSION).kind, "table");
  const forged = bytes.slice();
  const view = new DataView(forged.buffer);
  // The one record's key length (after the 8-byte magic, the padded version and the counts).
  const recordAt = Math.ceil((12 + new TextEncoder().encode(VERSION).length) / 8) * 8 + 8;
  view.setUint32(recordAt + 52, 10_000, true);
  assert.equal(DigestTable.read(forged, VERSION).kind, "corrupt");
});

Deno.test("index cache: files written by another skillgate version are ignored without a warning", async () => {
  await using tree = await makeTree({ "notes/SKILL.md": skillMd("notes") });
  await using cacheDir = await makeTree({});
  const seed = cacheFor(cacheDir.path);
  await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS, { indexCache: seed });
  seed.rememberDigest("/s/notes", "a.md", versionOf(1), { digest: digestOf(1), size: 10 });
  seed.flush();
  const [digests = "", parses = ""] = cacheFiles(cacheDir.path);
  assert.ok(digests.endsWith(".digests") && parses.endsWith(".parses"));
  // The other version's parse file: the same entries under another version in the header.
  const lines = Deno.readTextFileSync(cacheDir.at(parses)).split("\n");
  lines[0] = JSON.stringify({ format: PARSE_FORMAT, version: "0.0.0-other", count: 1 });
  Deno.writeTextFileSync(cacheDir.at(parses), lines.join("\n"));
  Deno.writeFileSync(
    cacheDir.at(digests),
    writeDigestFile("0.0.0-other", null, new Set(), [{
      key: "/s/notes\0a.md",
      version: versionOf(1),
      digest: { digest: digestOf(1), size: 10 },
    }], 10),
  );
  const warnings: string[] = [];
  const cache = cacheFor(cacheDir.path, warnings);
  await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS, { indexCache: cache });
  assert.deepEqual(cache.stats, { hits: 0, misses: 1 }, "the other version's parse is not used");
  assert.equal(cache.lookupDigest("/s/notes", "a.md", versionOf(1)), null);
  assert.deepEqual(warnings, []);
  const rebuilt = cacheFor(cacheDir.path);
  await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS, {
    indexCache: rebuilt,
  });
  assert.deepEqual(rebuilt.stats, { hits: 1, misses: 0 }, "rewritten for this version");
});

Deno.test("index cache: a truncated parse file is ignored and rebuilt", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "beta/SKILL.md": skillMd("beta"),
  });
  await using cacheDir = await makeTree({});
  const roots = [{ path: tree.path, from: "argument" as const }];
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cacheFor(cacheDir.path) });
  const parses = cacheFiles(cacheDir.path).find((name) => name.endsWith(".parses"));
  const text = Deno.readTextFileSync(cacheDir.at(parses ?? ""));
  // Cut after the first entry's line: whole lines, but fewer than the header counts.
  const cut = text.split("\n").slice(0, 2).join("\n") + "\n";
  Deno.writeTextFileSync(cacheDir.at(parses ?? ""), cut);
  const warnings: string[] = [];
  const cache = cacheFor(cacheDir.path, warnings);
  const catalog = await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cache });
  assert.equal(catalog.skills.length, 2);
  assert.deepEqual(cache.stats, { hits: 0, misses: 2 }, "no entry of a cut file is used");
  assert.ok(warnings.length <= 1);
  const rebuilt = cacheFor(cacheDir.path);
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: rebuilt });
  assert.deepEqual(rebuilt.stats, { hits: 2, misses: 0 });
});

Deno.test("index cache: a damaged entry line is never used, is warned about at most once, and the file is written again without it", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "beta/SKILL.md": skillMd("beta"),
  });
  await using cacheDir = await makeTree({});
  const roots = [{ path: tree.path, from: "argument" as const }];
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cacheFor(cacheDir.path) });
  const parses = cacheDir.at(cacheFiles(cacheDir.path).find((name) => name.endsWith(".parses"))!);
  const [head, first, ...rest] = Deno.readTextFileSync(parses).split("\n");
  // The key stays readable (so the file opens), the entry after it is not JSON.
  const damaged = `${first!.slice(0, first!.indexOf(",") + 1)}[1,2,3,4,5],{"frontmatter":`;
  Deno.writeTextFileSync(parses, [head, damaged, ...rest].join("\n"));
  const warnings: string[] = [];
  const cache = cacheFor(cacheDir.path, warnings);
  const catalog = await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cache });
  assert.equal(catalog.skills.length, 2, "both served");
  assert.deepEqual(cache.stats, { hits: 1, misses: 1 }, "the damaged entry missed, the other hit");
  // At most one per cause in a process (an earlier test here may have used it up).
  assert.ok(warnings.length <= 1, "at most one warning");
  assert.ok(warnings.every((line) => /damaged; rebuilding it/.test(line)));
  cache.flush();
  const rebuilt = cacheFor(cacheDir.path);
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: rebuilt });
  assert.deepEqual(rebuilt.stats, { hits: 2, misses: 0 }, "written again whole");
});

Deno.test("readParseFile() parses an entry only when asked for it, and refuses a file whose keys cannot be read", () => {
  const parse = (name: string): StoredParse => ({
    v: [1, 2, 3, 4, 5],
    p: { frontmatter: { name }, keyLines: [], findings: [] } as unknown as StoredParse["p"],
  });
  const entries = new Map([
    ['quote"and\\backslash/é', parse("odd")],
    ["plain", parse("plain")],
    ["ends with a backslash\\", parse("backslash")],
    ["\ufeffa BOM first, a NUL\u0000 inside", parse("bom")],
  ]);
  const bytes = writeParseFile(VERSION, entries);
  let damaged = 0;
  const loaded = readParseFile(bytes, VERSION, () => damaged++);
  assert.equal(loaded.kind, "entries");
  if (loaded.kind !== "entries") return;
  assert.equal(loaded.entries.size, 4);
  for (const [key, entry] of entries) {
    assert.ok(loaded.entries.has(key), `${JSON.stringify(key)} is read exactly`);
    assert.deepEqual(loaded.entries.get(key), entry);
  }
  assert.equal(loaded.entries.get("absent"), undefined);
  // The other entry's body damaged in place: only asking for it finds it.
  const text = new TextDecoder().decode(bytes);
  const broken = new TextEncoder().encode(text.replace('{"name":"odd"}', '{"name":"odd"]'));
  const lazily = readParseFile(broken, VERSION, () => damaged++);
  assert.equal(lazily.kind, "entries", "opened: its keys are sound");
  if (lazily.kind !== "entries") return;
  assert.deepEqual(lazily.entries.get("plain"), parse("plain"));
  assert.equal(damaged, 0, "nothing damaged asked for yet");
  assert.equal(lazily.entries.get('quote"and\\backslash/é'), undefined);
  assert.equal(damaged, 1, "told once it is asked for");
  // A line whose key cannot be read, a key twice, or a line cut: the whole file.
  const lines = text.split("\n");
  const withoutKey = [lines[0], `[1,${lines[1]!.slice(1)}`, ...lines.slice(2)].join("\n");
  assert.equal(readParseFile(new TextEncoder().encode(withoutKey), VERSION).kind, "corrupt");
  // The same key twice, with a header counting the one key: still corrupt.
  const twice = [lines[0], lines[1], lines[1], ""].join("\n").replace('"count":4', '"count":1');
  assert.equal(readParseFile(new TextEncoder().encode(twice), VERSION).kind, "corrupt");
  const cut = text.slice(0, -1);
  assert.equal(readParseFile(new TextEncoder().encode(cut), VERSION).kind, "corrupt");
});

Deno.test("index cache: two processes writing digests to one folder at once leave a whole file of one writer's digests", async () => {
  await using cacheDir = await makeTree({});
  const writer = (tag: number) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--cached-only",
        `--allow-read=${cacheDir.path}`,
        `--allow-write=${cacheDir.path}`,
        new URL("./_index_cache_writer.ts", import.meta.url).pathname,
        cacheDir.path,
        String(tag),
        "300",
        "5",
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
  const outputs = await Promise.all([writer(0xaa), writer(0xbb)]);
  for (const output of outputs) {
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  }
  assert.deepEqual(
    cacheFiles(cacheDir.path).filter((name) => !name.endsWith(".digests")),
    [],
    "no temporary file is left",
  );
  const warnings: string[] = [];
  const cache = openIndexCache(cacheDir.path, {
    rootsKey: "shared-roots",
    now: later,
    warn: (line) => warnings.push(line),
  });
  const found = new Set<string>();
  for (let i = 0; i < 300; i++) {
    const version = { dev: 1, ino: i, size: 10, mtimeMs: 1_000, ctimeMs: 1_000 };
    found.add(cache.lookupDigest("/skills/shared", `file-${i}.md`, version)?.digest ?? "none");
  }
  assert.deepEqual(warnings, []);
  assert.equal(found.size, 1, "every digest comes from the same last writer");
  assert.ok([digestOf(0xaa), digestOf(0xbb)].includes([...found][0] ?? ""));
});

Deno.test("index cache: the previous format's single JSON file is removed once the parse file is written", async () => {
  await using tree = await makeTree({ "alpha/SKILL.md": skillMd("alpha") });
  await using cacheDir = await makeTree({});
  const roots = [{ path: tree.path, from: "argument" as const }];
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cacheFor(cacheDir.path) });
  const parses = cacheFiles(cacheDir.path).find((name) => name.endsWith(".parses")) ?? "";
  const stale = cacheDir.at(parses.replace(/\.parses$/, ".json"));
  Deno.writeTextFileSync(stale, '{"format":"skillgate-index-1","version":"0.1.0","entries":[]}');
  await Deno.mkdir(tree.at("beta"));
  Deno.writeTextFileSync(tree.at("beta/SKILL.md"), skillMd("beta"));
  await buildCatalog(roots, DEFAULT_CAPS, { indexCache: cacheFor(cacheDir.path) });
  assert.deepEqual(cacheFiles(cacheDir.path).filter((name) => !name.endsWith(".digests")), [
    parses,
  ]);
});

Deno.test("rememberDigest() says whether lookupDigest() will answer it: a racy version is skipped, an unwritable folder keeps it in memory", async () => {
  await using cacheDir = await makeTree({});
  const racy = openIndexCache(cacheDir.path, { rootsKey: "r", warn: () => {} });
  const now = Date.now();
  assert.equal(
    racy.rememberDigest("/s/notes", "a.md", { ...versionOf(1), ctimeMs: now }, {
      digest: digestOf(1),
      size: 10,
    }),
    false,
  );
  assert.equal(racy.lookupDigest("/s/notes", "a.md", { ...versionOf(1), ctimeMs: now }), null);
  // A folder that is a regular file: every write fails.
  const file = Deno.makeTempFileSync();
  try {
    const warnings: string[] = [];
    const cache = openIndexCache(file, {
      rootsKey: "r",
      now: later,
      warn: (line) => warnings.push(line),
    });
    assert.equal(
      cache.rememberDigest("/s/notes", "a.md", versionOf(1), { digest: digestOf(1), size: 10 }),
      true,
    );
    cache.flush();
    cache.flush();
    assert.equal(cache.lookupDigest("/s/notes", "a.md", versionOf(1))?.digest, digestOf(1));
    // One warning per cause per process: an earlier test may have given it already.
    const unwritable = warnings.filter((line) => line.includes("cannot be written"));
    assert.ok(unwritable.length <= 1, warnings.join("\n"));
  } finally {
    Deno.removeSync(file);
  }
});
