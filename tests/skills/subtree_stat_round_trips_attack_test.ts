/**
 * Review r17 (attack on s17's `subtree`): the sub-folders the trusted part
 * reads with a skill folder are read with the skill folder's own `maxStats`
 * (discovery's `TOP_FOLDER_STATS`, 64), and with none at all once the
 * batch's `SUBTREE_STATS_PER_BATCH` is spent. The listing takes such a read
 * instead of asking for the folder itself (where it would ask with
 * `maxStats` = the files still allowed + 1), and every file entry the read
 * left without a stat is then asked for on its own (`statLater`: one round
 * trip to the trusted part a file, each opening the folder again). A
 * sub-folder with 200 files cost one read before s17; with the subtree it
 * costs 1 + 136.
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
import {
  readFolderAtPathSync,
  readFoldersAtPathsSync,
  SUBTREE_STATS_PER_BATCH,
} from "../../src/files/folder_path_read.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { makeTree, skillMd } from "./_tree.ts";

const isLinux = Deno.build.os === "linux";
const FILES = 200;

Deno.test({
  name:
    "attack: a skill sub-folder with more files than the subtree's stats costs its listing one read, never a round trip per file",
  ignore: !isLinux,
  fn: async () => {
    const files: Record<string, string> = { "root/wide/SKILL.md": skillMd("wide", "Wide helps") };
    for (let i = 0; i < FILES; i++) {
      files[`root/wide/references/r${String(i).padStart(3, "0")}.md`] = `ref ${i}`;
    }
    await using tree = await makeTree(files);
    const root = Deno.realPathSync(tree.at("root"));
    const asked: { path: string; names: number }[] = [];
    const reader: FolderPathReader = (request) => {
      asked.push({ path: request.path, names: request.names?.length ?? 0 });
      return Promise.resolve(readFolderAtPathSync(request, [root]));
    };
    const before = installedFolderPathReader();
    installFolderPathReader(reader);
    let catalog;
    try {
      catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
    } finally {
      installFolderPathReader(before);
    }
    assert.equal(catalog.byName.get("wide")?.files.length, FILES + 1);
    const forReferences = asked.filter((ask) => ask.path === `${root}/wide/references`);
    // Before s17 the listing asked for wide/references once, with maxStats 2,000: every stat in it.
    assert.ok(
      forReferences.length <= 1,
      `${forReferences.length} asks for wide/references (${
        forReferences.filter((ask) => ask.names === 1).length
      } of them one file's stat each)`,
    );
  },
});

Deno.test({
  name:
    "attack: once a batch's subtree stats are spent, no later sub-folder comes back without its stats",
  ignore: !isLinux,
  fn: async () => {
    const perFolder = 64;
    const skills = Math.ceil(SUBTREE_STATS_PER_BATCH / perFolder) + 2;
    const files: Record<string, string> = {};
    for (let s = 0; s < skills; s++) {
      files[`root/s${s}/SKILL.md`] = skillMd(`s${s}`, "S");
      for (let i = 0; i < perFolder; i++) files[`root/s${s}/refs/f${i}.md`] = "x";
    }
    await using tree = await makeTree(files);
    const root = Deno.realPathSync(tree.at("root"));
    const reads = readFoldersAtPathsSync(
      Array.from({ length: skills }, (_, s) => ({
        path: `${root}/s${s}`,
        maxStats: 64,
        subtree: 32,
      })),
      [root],
    );
    // Every sub-folder read that comes back carries all its files' stats; past the batch's
    // budget no sub-folder is read (the listing reads it itself when it reaches it: one read).
    let withRefs = 0;
    for (const read of reads) {
      assert.ok(typeof read === "object" && read !== null);
      const refs = read.subtree?.find((sub) => sub.rel === "refs")?.read;
      if (refs === undefined) continue;
      assert.ok(typeof refs === "object" && refs !== null);
      withRefs++;
      const unstated = refs.entries.filter((entry) => entry.kind === "file" && entry.stat === null);
      // Each of these would be one more round trip for the listing that takes this read.
      assert.equal(unstated.length, 0, `${unstated.length} of ${perFolder} files without a stat`);
    }
    assert.equal(withRefs, SUBTREE_STATS_PER_BATCH / perFolder, "as many as the budget covers");
  },
});
