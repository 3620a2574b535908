/**
 * `listSkillFiles()` reads each folder through its descriptor (review r10):
 * the ways a folder read can come back, and what the listing does with each.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import {
  type FolderReader,
  MAX_FOLDER_READ_ENTRIES,
  readFolderDirectly,
} from "../../src/files/fd_listing.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { listSkillFiles } from "../../src/skills/_list_files.ts";
import { discoverRoot, type SkillCandidate } from "../../src/skills/discover.ts";
import type { SkillFile } from "../../src/skills/skill.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

const skillMdEntry: SkillFile = { path: "SKILL.md", size: 1, mtimeMs: null };

async function skillTree(): Promise<Tree> {
  return await makeTree({
    "root/s/SKILL.md": skillMd("s", "Inside"),
    "root/s/a.md": "aaaa",
    "root/s/refs/b.md": "bbbbbbbb",
    "root/s/refs/deeper/c.md": "cc",
  });
}

async function candidateOf(tree: Tree): Promise<SkillCandidate> {
  const found = await discoverRoot({ path: tree.at("root"), from: "argument" });
  const candidate =
    found.items.flatMap((item) => item.kind === "candidate" ? [item.candidate] : [])[0];
  assert.ok(candidate !== undefined);
  return candidate;
}

const sizes = (files: readonly SkillFile[]) => files.map((file) => [file.path, file.size]);

Deno.test({
  name:
    "listSkillFiles() stats later, through the same descriptor, a file entry the folder read left without a stat",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    await using tree = await skillTree();
    let later = 0;
    const withoutStats: FolderReader = async (request) => {
      const read = await readFolderDirectly(request);
      if (read === null || request.names !== undefined) {
        if (request.names !== undefined) later++;
        return read;
      }
      return { ...read, entries: read.entries.map((entry) => ({ ...entry, stat: null })) };
    };
    const listing = await listSkillFiles(await candidateOf(tree), skillMdEntry, DEFAULT_CAPS, {
      readFolder: withoutStats,
    });
    assert.deepEqual(sizes(listing.files), [
      ["SKILL.md", 1],
      ["a.md", 4],
      ["refs/b.md", 8],
      ["refs/deeper/c.md", 2],
    ]);
    assert.equal(later, 3, "one later stat per file");
    assert.deepEqual(listing.problems, []);
  },
});

Deno.test({
  name:
    "listSkillFiles() lists nothing of a folder the trusted part would not read while its descriptor can be located (fail closed)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    await using tree = await skillTree();
    const refusingRefs: FolderReader = async (request) => {
      const read = await readFolderDirectly(request);
      return read?.location === tree.at("root/s/refs") ? null : read;
    };
    const listing = await listSkillFiles(await candidateOf(tree), skillMdEntry, DEFAULT_CAPS, {
      readFolder: refusingRefs,
    });
    assert.deepEqual(sizes(listing.files), [["SKILL.md", 1], ["a.md", 4]]);
    assert.equal(listing.problems.length, 1);
    assert.equal(listing.problems[0]?.path, tree.at("root/s/refs"));
    assert.match(listing.problems[0]?.detail ?? "", /cannot be read/);
  },
});

Deno.test({
  name:
    "listSkillFiles() reads by path only where no descriptor can be read or located at all (no /proc)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using tree = await skillTree();
    installFdLocator(() => Promise.resolve(null));
    try {
      const listing = await listSkillFiles(await candidateOf(tree), skillMdEntry, DEFAULT_CAPS, {
        readFolder: () => Promise.resolve(null),
      });
      assert.deepEqual(sizes(listing.files), [
        ["SKILL.md", 1],
        ["a.md", 4],
        ["refs/b.md", 8],
        ["refs/deeper/c.md", 2],
      ]);
    } finally {
      installFdLocator(locateDirectly);
    }
  },
});

Deno.test({
  name:
    "listSkillFiles() stats no more file entries of a folder than the file cap leaves, plus one",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    const entries: Record<string, string> = { "root/s/SKILL.md": skillMd("s", "Inside") };
    for (let index = 0; index < 50; index++) {
      entries[`root/s/f${String(index).padStart(2, "0")}.md`] = "x";
    }
    await using tree = await makeTree(entries);
    let stats = 0;
    const counting: FolderReader = async (request) => {
      const read = await readFolderDirectly(request);
      stats += read?.entries.filter((entry) => entry.stat !== null).length ?? 0;
      return read;
    };
    const listing = await listSkillFiles(
      await candidateOf(tree),
      skillMdEntry,
      { maxFilesPerSkill: 10, maxFoldersPerSkill: 10 },
      { readFolder: counting },
    );
    assert.equal(listing.files.length, 10);
    assert.equal(listing.truncated, true);
    // Nine more files fit beside SKILL.md, one more shows the cap, and SKILL.md's own entry is
    // stat'ed by the read too: 11 of the 51 entries.
    assert.ok(stats <= 11, `${stats} stats for a cap of 10 files`);
  },
});

Deno.test({
  name:
    "listSkillFiles() reports a folder over the read's entry limit as too many entries (its count, the limit, what to do), not as unreadable",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    await using tree = await skillTree();
    // A real folder of MAX_FOLDER_READ_ENTRIES + 1 entries, read by the trusted part's own reader.
    const crowded = tree.at("root/s/refs/deeper");
    for (let index = 0; index < MAX_FOLDER_READ_ENTRIES; index++) {
      Deno.writeFileSync(`${crowded}/f${index}`, new Uint8Array());
    }
    const listing = await listSkillFiles(await candidateOf(tree), skillMdEntry, DEFAULT_CAPS, {
      readFolder: readFolderDirectly,
    });
    const crowding = listing.problems.filter((found) => found.path.endsWith("refs/deeper"));
    assert.equal(crowding.length, 1, JSON.stringify(listing.problems));
    assert.match(
      crowding[0]?.detail ?? "",
      /^Folder "refs\/deeper" cannot be read \(too many entries: 65,537, limit 65,536; split it into sub-folders or move what the skill does not need out of it\)$/,
    );
    // The rest of the skill is still listed.
    assert.deepEqual(sizes(listing.files), [["SKILL.md", 1], ["a.md", 4], ["refs/b.md", 8]]);
  },
});
