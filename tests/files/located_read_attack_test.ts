// Review r6's attacks on the digest isolate's located read (`readLocatedInChunks`, s13's issue 13
// work) and the worker's gated chunked read (`readWholeInChunks`) as the digest cache stores
// them: the version a digest is stored under must name the bytes that were hashed.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError } from "../../src/files/path_gate.ts";
import { hashThroughGate } from "../../src/mcp/skills_extension/digest_files.ts";
import { listAndHashSkills } from "../../src/mcp/skills_extension/digest_listing.ts";
import { createDigestCache } from "../../src/mcp/skills_extension/digest_cache.ts";
import type { SkillFile } from "../../src/skills/skill.ts";
import { type IndexCache, RACY_WINDOW_MS } from "../../src/skills/index_cache.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { loadSkill } from "../../src/skills/_load_skill.ts";
import { readSkillMd } from "../../src/skills/_read_skill_md.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";

const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** A skill folder with `notes.md` holding `text`, its version settled (older than the racy window). */
async function settledSkill(text: string): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_r6_located_" }));
  await Deno.writeTextFile(join(dir, "notes.md"), text);
  // The change time cannot be set back, so the only way to a settled version is to wait it out.
  await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 1_100));
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/**
 * A locator that, on its first question, rewrites `path` in place with bytes of the same length
 * (an author's editor saving while the file is hashed), then answers the truth.
 */
function locatorThatRewrites(path: string, text: string): () => boolean {
  let hasRewritten = false;
  installFdLocator((fd) => {
    if (!hasRewritten) {
      hasRewritten = true;
      const file = Deno.openSync(path, { write: true });
      try {
        file.writeSync(new TextEncoder().encode(text));
      } finally {
        file.close();
      }
    }
    return locateDirectly(fd);
  });
  return () => hasRewritten;
}

Deno.test("attack: a same-size rewrite while the digest isolate's located read waits for the location is never stored under the version before it", async () => {
  await using skill = await settledSkill("before\n");
  const before = Deno.lstatSync(join(skill.dir, "notes.md"));
  const hasRewritten = locatorThatRewrites(join(skill.dir, "notes.md"), "AFTER!\n");
  try {
    const [seen] = await hashThroughGate([{ dir: skill.dir, path: "notes.md" }]);
    assert.ok(hasRewritten(), "the rewrite happened during the read");
    const listed: SkillFile = {
      path: "notes.md",
      size: before.size,
      mtimeMs: before.mtime?.getTime() ?? null,
      ctimeMs: before.ctime?.getTime() ?? null,
      dev: before.dev,
      ino: before.ino,
    };
    // The worker stores what the isolate says under the version it names (`hashElsewhere`).
    const cache = createDigestCache();
    assert.equal(cache.hashElsewhere(skill.dir, listed, Promise.resolve(seen ?? null)), true);
    const answer = await cache.digestListed(skill.dir, listed);
    // The bytes hashed are the new ones; the version before the rewrite must not hold them.
    if (answer.found.digest === sha("AFTER!\n")) {
      assert.equal(
        cache.listedDigest(skill.dir, listed),
        null,
        "the digest of the rewritten bytes is held under the version before the rewrite",
      );
      assert.equal(answer.isListed, false);
    }
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a same-size rewrite while the worker's gated read waits for the location is never stored under the version the gate resolved", async () => {
  await using skill = await settledSkill("before\n");
  const before = Deno.lstatSync(join(skill.dir, "notes.md"));
  const hasRewritten = locatorThatRewrites(join(skill.dir, "notes.md"), "AFTER!\n");
  try {
    const listed: SkillFile = {
      path: "notes.md",
      size: before.size,
      mtimeMs: before.mtime?.getTime() ?? null,
      ctimeMs: before.ctime?.getTime() ?? null,
      dev: before.dev,
      ino: before.ino,
    };
    const cache = createDigestCache();
    // Refused (left out of this manifest, "changed while it was read") or answered: either way
    // the version the gate resolved must not hold the rewritten bytes' digest.
    const answer = await cache.digestListed(skill.dir, listed).catch((error) => {
      assert.ok(error instanceof PathRefusedError, String(error));
      return null;
    });
    assert.ok(hasRewritten(), "the rewrite happened during the read");
    assert.equal(
      cache.listedDigest(skill.dir, listed)?.digest === sha("AFTER!\n"),
      false,
      "the digest of the rewritten bytes is held under the version before the rewrite",
    );
    if (answer?.found.digest === sha("AFTER!\n")) assert.equal(answer.isListed, false);
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a same-size rewrite while the digest isolate's listing pass waits for the location is never given as the listed version's digest", async () => {
  await using skill = await settledSkill("before\n");
  const hasRewritten = locatorThatRewrites(join(skill.dir, "notes.md"), "AFTER!\n");
  try {
    const entries = [...Deno.readDirSync(skill.dir)].map((entry) => ({ ...entry }));
    const [listed] = await listAndHashSkills([{
      name: "skill",
      dir: skill.dir,
      realDir: skill.dir,
      skillMdFile: "SKILL.md",
      entries,
    }], { maxFilesPerSkill: 100, maxFoldersPerSkill: 100 });
    assert.ok(hasRewritten(), "the rewrite happened during the read");
    const at = listed?.files.findIndex((file) => file.path === "notes.md") ?? -1;
    assert.ok(at >= 0, "notes.md is listed");
    const seen = listed?.digests[at] ?? null;
    // Either no digest, or one whose version is not the listed one it would be stored under.
    if (seen !== null) {
      const file = listed!.files[at]!;
      assert.ok(
        seen.digest !== sha("AFTER!\n") ||
          seen.ctimeMs !== file.ctimeMs || seen.mtimeMs !== file.mtimeMs,
        "the rewritten bytes' digest is given for the listed version",
      );
    }
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a same-size rewrite of SKILL.md while the build's gated read waits for the location keeps neither its parse nor its digest under the resolved version", async () => {
  const text = (description: string) =>
    `---\nname: skill\ndescription: ${description}\n---\nBody\n`;
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_r6_skillmd_" }));
  try {
    const dir = join(base, "skill");
    await Deno.mkdir(dir);
    await Deno.writeTextFile(join(dir, "SKILL.md"), text("before"));
    await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 1_100));
    const hasRewritten = locatorThatRewrites(join(dir, "SKILL.md"), text("AFTER!"));
    const kept: string[] = [];
    // The index cache's side as loadSkill uses it; records what would be kept.
    const cache = {
      holdsParse: () => false,
      lookup: () => null,
      remember: () => kept.push("parse"),
      rememberDigest: () => kept.push("digest"),
    } as unknown as IndexCache;
    try {
      const candidate: SkillCandidate = {
        name: "skill",
        baseName: "skill",
        dir,
        realDir: dir,
        root: base,
        skillMdFile: "SKILL.md",
        entries: [...Deno.readDirSync(dir)],
      };
      const read = await readSkillMd(candidate, 10_000, { withDigest: true });
      assert.ok(hasRewritten(), "the rewrite happened during the read");
      assert.ok(read.ok);
      assert.equal(read.isVersionRead, false);
      assert.equal(read.digest, null);
      // The loader, through the same read (the locator rewrites once more: same size again).
      locatorThatRewrites(join(dir, "SKILL.md"), text("before"));
      const loaded = await loadSkill(candidate, DEFAULT_CAPS, cache);
      assert.notEqual(loaded.skill, null);
      assert.deepEqual(kept, [], "a parse or digest was kept for bytes of another version");
    } finally {
      installFdLocator(locateDirectly);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("attack: a folder of a listed file swapped for a link to outside before the digest isolate's file job makes it open no outside file (a device or FIFO there would be opened)", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_r6_open_out_" }));
  try {
    const skill = join(base, "skill");
    const outside = join(base, "outside");
    await Deno.mkdir(join(skill, "sub"), { recursive: true });
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(skill, "sub", "guide.md"), "inside\n");
    await Deno.writeTextFile(join(outside, "guide.md"), "outside\n");
    // Listed as sub/guide.md; then, long before the isolate's job runs, `sub` becomes a link.
    await Deno.rename(join(skill, "sub"), join(skill, "sub.away"));
    await Deno.symlink(outside, join(skill, "sub"));
    const placed: string[] = [];
    installFdLocator(async (fd) => {
      const location = await locateDirectly(fd);
      if (location !== null) placed.push(location);
      return location;
    });
    try {
      const [seen] = await hashThroughGate([{ dir: skill, path: "sub/guide.md" }]);
      assert.equal(seen, null, "the file job read the file behind the link");
      assert.deepEqual(
        placed.filter((location) => !location.startsWith(`${skill}/`)),
        [],
        "a descriptor of a file outside the skill was opened",
      );
    } finally {
      installFdLocator(locateDirectly);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
