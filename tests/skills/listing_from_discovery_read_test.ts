/**
 * Session 16: in the serving worker, discovery reads each skill folder
 * through the trusted part's path reader, which now takes the files' `lstat`s
 * through the same descriptor as the names (`TOP_FOLDER_STATS`). The skill's
 * listing starts from that exact read instead of reading the folder again
 * (10,000 folder reads fewer at 10,000 skills), and a warm start takes
 * SKILL.md's version from it instead of an `lstat` of its own. Both must give
 * what the reads they replace gave: the same catalog, the same index-cache
 * hits, and a changed SKILL.md (an in-place edit keeping size and mtime) is
 * still read again. Session 17: that read carries the skill's sub-folders
 * too (`subtree`), so the listing asks for none of them.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import {
  type FolderPathReader,
  installedFolderPathReader,
  installFolderPathReader,
} from "../../src/files/fd_listing.ts";
import { readFolderAtPathSync } from "../../src/files/folder_path_read.ts";
import { SKILL_SUBTREE_FOLDERS } from "../../src/skills/_read_folder.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import { type IndexCache, openIndexCache } from "../../src/skills/index_cache.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

const isLinux = Deno.build.os === "linux";

/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;

/** Installs the trusted part's path reader (readable: `root`), counting the folders asked. */
async function withTrustedReader<T>(root: string, asked: string[], body: () => Promise<T>) {
  const reader: FolderPathReader = (request) => {
    asked.push(request.path);
    return Promise.resolve(readFolderAtPathSync(request, [root]));
  };
  const before = installedFolderPathReader();
  installFolderPathReader(reader);
  try {
    return await body();
  } finally {
    installFolderPathReader(before);
  }
}

async function skillsTree(): Promise<Tree> {
  return await makeTree({
    "root/alpha/SKILL.md": skillMd("alpha", "Alpha helps"),
    "root/alpha/notes.txt": "notes",
    "root/alpha/references/guide.md": "g".repeat(700),
    "root/alpha/references/deep/more.md": "m",
    "root/alpha/scripts/run.sh": "echo run\n",
    "root/alpha/.hidden": "never listed",
    "root/beta/SKILL.md": skillMd("beta", "Beta helps"),
  });
}

/** What a catalog serves of each skill: its files with sizes and versions, its problems. */
function served(catalog: Catalog) {
  return {
    skills: [...catalog.byName.values()].map((skill) => ({
      name: skill.name,
      files: skill.files,
      bytes: skill.bytes,
      skillMdBytes: skill.skillMdBytes,
    })),
    problems: catalog.problems,
  };
}

async function build(root: string, cache?: IndexCache): Promise<Catalog> {
  return await buildCatalog(
    [{ path: root, from: "argument" }],
    DEFAULT_CAPS,
    cache === undefined ? {} : { indexCache: cache },
  );
}

Deno.test({
  name:
    "listing from discovery's read: the trusted part reads each skill folder once, and the catalog is the one its own reads give",
  ignore: !isLinux,
  fn: async () => {
    await using tree = await skillsTree();
    const root = Deno.realPathSync(tree.at("root"));
    const byDescriptor = await build(root);
    const asked: string[] = [];
    const byPathReader = await withTrustedReader(root, asked, () => build(root));
    assert.deepEqual(served(byPathReader), served(byDescriptor));
    assert.equal(asked.filter((path) => path === `${root}/alpha`).length, 1, asked.join("\n"));
    assert.equal(asked.filter((path) => path === `${root}/beta`).length, 1);
    // s17: the sub-folders come with discovery's read of the skill folder (`subtree`): the
    // listing asks for none of them again.
    assert.deepEqual(
      asked.filter((path) => path.startsWith(`${root}/alpha/`)),
      [],
      asked.join("\n"),
    );
  },
});

Deno.test({
  name:
    "listing from discovery's read: a skill with more sub-folders than the subtree carries lists the rest by asking, and the catalog is the same",
  ignore: !isLinux,
  fn: async () => {
    const files: Record<string, string> = { "root/wide/SKILL.md": skillMd("wide", "Wide helps") };
    for (let i = 0; i < SKILL_SUBTREE_FOLDERS + 6; i++) {
      files[`root/wide/f${String(i).padStart(3, "0")}/note.md`] = `note ${i}`;
    }
    await using tree = await makeTree(files);
    const root = Deno.realPathSync(tree.at("root"));
    const byDescriptor = await build(root);
    const asked: string[] = [];
    const byPathReader = await withTrustedReader(root, asked, () => build(root));
    assert.deepEqual(served(byPathReader), served(byDescriptor));
    assert.equal(byPathReader.byName.get("wide")?.files.length, SKILL_SUBTREE_FOLDERS + 7);
    // Exactly the folders past the subtree's bound are asked for by the listing.
    assert.deepEqual(
      asked.filter((path) => path.startsWith(`${root}/wide/`)),
      Array.from(
        { length: 6 },
        (_, i) => `${root}/wide/f${String(SKILL_SUBTREE_FOLDERS + i).padStart(3, "0")}`,
      ),
    );
  },
});

Deno.test({
  name:
    "listing from discovery's read: a warm start through the path reader hits the index cache, and an in-place edit keeping size and mtime is read again",
  ignore: !isLinux,
  fn: async () => {
    await using tree = await skillsTree();
    await using cacheDir = await makeTree({});
    const root = Deno.realPathSync(tree.at("root"));
    const cache = () => openIndexCache(cacheDir.path, { rootsKey: "test-roots", now: later });
    const first = cache();
    await withTrustedReader(root, [], () => build(root, first));
    first.flush();
    const second = cache();
    const warm = await withTrustedReader(root, [], () => build(root, second));
    assert.deepEqual(second.stats, { hits: 2, misses: 0 }, "both SKILL.md versions known");
    assert.equal(warm.byName.get("alpha")?.description, "Alpha helps");

    // Same size, same mtime, new bytes: the ctime (and the gate's read) tells it apart.
    const file = tree.at("root/alpha/SKILL.md");
    const { mtime } = Deno.statSync(file);
    Deno.writeTextFileSync(file, skillMd("alpha", "Alpha HELPS"));
    Deno.utimeSync(file, mtime!, mtime!);
    // A ctime in a later second than the cached one (Deno reports ctime in whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    Deno.utimeSync(file, mtime!, mtime!);
    const third = cache();
    const edited = await withTrustedReader(root, [], () => build(root, third));
    assert.equal(third.stats.misses, 1, "the edited SKILL.md is not taken from the cache");
    assert.equal(edited.byName.get("alpha")?.description, "Alpha HELPS");
  },
});

Deno.test({
  name:
    "listing from discovery's read: a rebuild of an edited skill reads its folder once, with its sub-folders, and lists a file added below",
  ignore: !isLinux,
  fn: async () => {
    await using tree = await skillsTree();
    const root = Deno.realPathSync(tree.at("root"));
    const first = await withTrustedReader(root, [], () => build(root));
    Deno.writeTextFileSync(`${root}/alpha/references/deep/added.md`, "added");
    const asked: string[] = [];
    const rebuilt = await withTrustedReader(
      root,
      asked,
      () =>
        rebuildCatalog(first, [`${root}/alpha/references/deep/added.md`], { caps: DEFAULT_CAPS }),
    );
    assert.deepEqual(asked.filter((path) => path.startsWith(`${root}/alpha`)), [`${root}/alpha`]);
    assert.ok(
      rebuilt.catalog.byName.get("alpha")?.files.some((file) =>
        file.path === "references/deep/added.md"
      ),
    );
    const fresh = await build(root);
    assert.deepEqual(served(rebuilt.catalog).skills, served(fresh).skills);
  },
});

Deno.test({
  name:
    "listing from discovery's read: a full rescan that reuses unchanged skills reads no sub-folders ahead, and gives the same catalog",
  ignore: !isLinux,
  fn: async () => {
    await using tree = await skillsTree();
    const root = Deno.realPathSync(tree.at("root"));
    const first = await withTrustedReader(root, [], () => build(root));
    const subtrees: number[] = [];
    const before = installedFolderPathReader();
    installFolderPathReader((request) => {
      subtrees.push(request.subtree ?? 0);
      return Promise.resolve(readFolderAtPathSync(request, [root]));
    });
    let rebuilt;
    try {
      // A path outside every skill: a full rescan.
      rebuilt = await rebuildCatalog(first, [`${root}/new-folder`], { caps: DEFAULT_CAPS });
    } finally {
      installFolderPathReader(before);
    }
    assert.equal(rebuilt.isFullRescan, true);
    assert.ok(subtrees.length > 0);
    assert.deepEqual(subtrees.filter((n) => n > 0), [], "no folder read with its sub-folders");
    assert.deepEqual(served(rebuilt.catalog).skills, served(first).skills);
  },
});
