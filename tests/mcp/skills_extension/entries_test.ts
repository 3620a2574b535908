import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import {
  attachIndexCache,
  createDigestCache,
} from "../../../src/mcp/skills_extension/digest_cache.ts";
import { openIndexCache } from "../../../src/skills/index_cache.ts";
import {
  extensionView,
  isEntryBuilt,
  skillEntries,
  type SkillEntry,
} from "../../../src/mcp/skills_extension/entries.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { rebuildCatalog } from "../../../src/skills/rebuild_catalog.ts";
import type { Catalog, Skill } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";
import { connectInMemory, type InMemorySession } from "./_connect.ts";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

async function catalogOf(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** Every entry of a full `skills/list` enumeration, page by page. */
async function listAll(session: InMemorySession): Promise<SkillEntry[]> {
  const all: SkillEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await session.request("skills/list", cursor === undefined ? {} : { cursor });
    all.push(...page.skills as SkillEntry[]);
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return all;
}

function digestOf(entries: readonly SkillEntry[], uri: string): string | undefined {
  return entries.flatMap((entry) => entry.resources).find((file) => file.uri === uri)?.digest;
}

Deno.test("skillEntries() answers unchanged skills with the entries it built, with no file-system call", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide\n",
    "beta/SKILL.md": skillMd("beta", "Second"),
  });
  const catalog = await catalogOf(tree.path);
  const cache = createDigestCache({ now: later });
  const skills = extensionView(catalog).skills;
  const first = await skillEntries(skills, cache);
  assert.equal(cache.resolved, 3);
  assert.ok(skills.every((skill) => isEntryBuilt(skill, cache)));
  const again = await skillEntries(skills, cache);
  assert.equal(cache.resolved, 3, "no file went through the gate again");
  first.forEach((entry, index) => assert.equal(again[index], entry, "the same entry object"));
  // Another digest cache (another server of tests) builds its own.
  assert.ok(!skills.some((skill) => isEntryBuilt(skill, createDigestCache())));
});

Deno.test("skillEntries() keeps no entry for a skill whose file changed while it was read", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/notes.md": "short\n",
  });
  const catalog = await catalogOf(tree.path);
  const alpha = catalog.byName.get("alpha") as Skill;
  // Changed after the snapshot was taken: the gate reads another version than the listed one.
  await Deno.writeTextFile(tree.at("alpha/notes.md"), "a longer text\n");
  const cache = createDigestCache({ now: later });
  for (let round = 0; round < 2; round++) {
    const [entry] = await skillEntries([alpha], cache);
    assert.equal(digestOf([entry!], "skill://alpha/notes.md"), sha256("a longer text\n"));
    assert.equal(isEntryBuilt(alpha, cache), false);
  }
  // Each listing went through the gate for that file again (and for SKILL.md only once).
  assert.equal(cache.resolved, 3);
});

Deno.test("skills/list: an edit between two full listings changes that file's digest", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide one\n",
    "beta/SKILL.md": skillMd("beta", "Second"),
  });
  const store = createCatalogStore(await catalogOf(tree.path));
  await using session = await connectInMemory(store);
  const before = await listAll(session);
  assert.equal(digestOf(before, "skill://alpha/references/guide.md"), sha256("guide one\n"));
  const guide = tree.at("alpha/references/guide.md");
  await Deno.writeTextFile(guide, "guide two, longer\n");
  // What live refresh does on the watcher's event for that path.
  const rebuilt = await rebuildCatalog(store.current(), [guide], { caps: DEFAULT_CAPS });
  store.swap(rebuilt.catalog);
  const after = await listAll(session);
  assert.equal(digestOf(after, "skill://alpha/references/guide.md"), sha256("guide two, longer\n"));
  // The untouched skill is answered as before.
  assert.deepEqual(after.find((entry) => entry.uri === "skill://beta/SKILL.md"), before[1]);
});

Deno.test("attack: a file swapped for a symlink to outside between two listings is not listed with outside bytes", async () => {
  await using outside = await makeTree({ "secret.txt": "outside secret\n" });
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide\n",
  });
  const store = createCatalogStore(await catalogOf(tree.path));
  await using session = await connectInMemory(store);
  const uri = "skill://alpha/references/guide.md";
  const first = await listAll(session);
  assert.equal(digestOf(first, uri), sha256("guide\n"));
  const guide = tree.at("alpha/references/guide.md");
  await Deno.remove(guide);
  await Deno.symlink(outside.at("secret.txt"), guide);
  const secret = sha256("outside secret\n");
  // Before any refresh (a missed event, or --static): never the outside bytes' digest.
  const stale = await listAll(session);
  assert.notEqual(digestOf(stale, uri), secret);
  // Serving the file always goes through the gate: refused.
  await assert.rejects(session.client.readResource({ uri }));
  // After the refresh the link is not listed at all.
  store.swap((await rebuildCatalog(store.current(), [guide], { caps: DEFAULT_CAPS })).catalog);
  const refreshed = await listAll(session);
  assert.equal(digestOf(refreshed, uri), undefined);
  const all = [...stale, ...refreshed].flatMap((entry) => entry.resources);
  assert.ok(all.every((file) => file.digest !== secret));
});

Deno.test("skillEntries() reads no SKILL.md again that the catalog build read whole and hashed", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha", "First"),
    "alpha/references/guide.md": "guide\n",
    "beta/SKILL.md": skillMd("beta", "Second", "Body\n".repeat(100)),
  });
  await using cacheDir = await makeTree({});
  // A clock past the racy window: files written just now are stored.
  const indexCache = openIndexCache(cacheDir.path, {
    rootsKey: tree.path,
    now: () => Date.now() + 60_000,
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS, {
    indexCache,
  });
  const cache = createDigestCache({ now: later });
  attachIndexCache(indexCache);
  try {
    const entries = await skillEntries(extensionView(catalog).skills, cache);
    // Only the reference file went through the gate; both SKILL.md digests came from the build.
    assert.equal(cache.resolved, 1);
    assert.equal(digestOf(entries, "skill://alpha/SKILL.md"), sha256(skillMd("alpha", "First")));
    assert.equal(
      digestOf(entries, "skill://beta/SKILL.md"),
      sha256(skillMd("beta", "Second", "Body\n".repeat(100))),
    );
  } finally {
    attachIndexCache(null);
  }
});
