/**
 * Session 17: the trusted part's read of a skill folder by path carries its
 * sub-folders (`FolderPathReadRequest.subtree`), so a skill's listing asks
 * nothing more. Each sub-folder must be read exactly as if it were asked for
 * on its own (same entries, same stats, located at exactly its path), never
 * through a symlink, never a dot-folder or `node_modules`, only below a
 * folder holding SKILL.md, and within its bounds. Each case runs with
 * `openat2` and with the one-name-at-a-time walk used where it is missing
 * (whose descriptors are `O_PATH`: the listing then reads through one of its own).
 *
 * @module
 */

import assert from "node:assert/strict";
import type { FolderPathRead, FolderRead } from "../../src/files/fd_listing.ts";
import { type FolderOpener, loadFolderOpener } from "../../src/files/folder_beneath.ts";
import {
  readFolderAtPathSync,
  readFoldersAtPathsSync,
  SUBTREE_FOLDERS_PER_BATCH,
} from "../../src/files/folder_path_read.ts";

const isLinux = Deno.build.os === "linux";

/** Both ways the trusted part opens: `openat2`, and the walk where it is missing. */
function openers(): [string, FolderOpener][] {
  const viaOpenat2 = loadFolderOpener();
  const viaWalk = loadFolderOpener({ tryOpenat2: false });
  assert.ok(viaOpenat2 !== null && viaWalk !== null, "libc loads (Linux, --allow-ffi)");
  return [["openat2", viaOpenat2], ["walk", viaWalk]];
}

/** Writes `files` (path -> text) under a new temporary folder; returns its real path. */
function makeFiles(files: Record<string, string>): string {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skillgate-subtree-" }));
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(`${dir}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    Deno.writeTextFileSync(`${dir}/${path}`, text);
  }
  return dir;
}

function asRead(read: FolderPathRead): FolderRead {
  assert.ok(typeof read === "object" && read !== null, `a read, not ${String(read)}`);
  return read;
}

Deno.test({
  name:
    "attack: a symlink among a skill's sub-folders is never followed by the subtree read; the sub-folders come with its read, depth first in name order, each exactly what its own read gives",
  ignore: !isLinux,
  fn: async (t) => {
    for (const [name, opener] of openers()) {
      await t.step(name, () => {
        const dir = makeFiles({
          "root/s/SKILL.md": "---\nname: s\n---\n",
          "root/s/references/guide.md": "g".repeat(300),
          "root/s/references/deep/more.md": "m",
          "root/s/scripts/run.sh": "echo\n",
          "root/s/assets/templates/report.txt": "r",
          "root/s/.git/config": "hidden",
          "root/s/node_modules/x/index.js": "skipped",
          "outside/copy/PRIVATE.txt": "x".repeat(777),
        });
        try {
          Deno.symlinkSync(`${dir}/outside/copy`, `${dir}/root/s/linked`);
          const readable = [`${dir}/root`];
          const top = asRead(
            readFolderAtPathSync(
              { path: `${dir}/root/s`, maxStats: 64, subtree: 32 },
              readable,
              opener,
            ),
          );
          const subtree = top.subtree ?? [];
          assert.deepEqual(
            subtree.map((sub) => sub.rel),
            ["assets", "assets/templates", "references", "references/deep", "scripts"],
            "never .git, node_modules or the symlink to the outside folder",
          );
          for (const sub of subtree) {
            const alone = readFolderAtPathSync(
              { path: `${dir}/root/s/${sub.rel}`, maxStats: 64 },
              readable,
              opener,
            );
            assert.deepEqual(sub.read, alone, sub.rel);
            assert.equal(asRead(sub.read).location, `${dir}/root/s/${sub.rel}`);
          }
          const flat = JSON.stringify(top);
          assert.ok(!flat.includes("PRIVATE"), "nothing of the outside folder is read");
          // Without `subtree` (or asked 0), none is read.
          const plain = asRead(
            readFolderAtPathSync({ path: `${dir}/root/s`, maxStats: 64 }, readable, opener),
          );
          assert.equal(plain.subtree, undefined);
          assert.deepEqual(plain.entries, top.entries);
        } finally {
          Deno.removeSync(dir, { recursive: true });
        }
      });
    }
  },
});

Deno.test({
  name:
    "subtree: a folder without SKILL.md (a group of skills) gets no subtree; a names-only read gets none",
  ignore: !isLinux,
  fn: async (t) => {
    for (const [name, opener] of openers()) {
      await t.step(name, () => {
        const dir = makeFiles({
          "root/group/a/SKILL.md": "---\nname: a\n---\n",
          "root/group/a/references/x.md": "x",
        });
        try {
          const readable = [`${dir}/root`];
          const group = asRead(
            readFolderAtPathSync(
              { path: `${dir}/root/group`, maxStats: 64, subtree: 32 },
              readable,
              opener,
            ),
          );
          assert.equal(group.subtree, undefined);
          const names = asRead(
            readFolderAtPathSync(
              { path: `${dir}/root/group/a`, maxStats: 1, names: ["SKILL.md"], subtree: 32 },
              readable,
              opener,
            ),
          );
          assert.equal(names.subtree, undefined);
          assert.equal(names.entries[0]?.stat?.isFile, true);
        } finally {
          Deno.removeSync(dir, { recursive: true });
        }
      });
    }
  },
});

Deno.test({
  name:
    "subtree: at most the sub-folders asked, and at most SUBTREE_FOLDERS_PER_BATCH in one batch; the first in walk order",
  ignore: !isLinux,
  fn: async (t) => {
    for (const [name, opener] of openers()) {
      await t.step(name, () => {
        const files: Record<string, string> = {};
        const skills = Math.ceil(SUBTREE_FOLDERS_PER_BATCH / 20) + 2;
        for (let s = 0; s < skills; s++) {
          files[`root/s${s}/SKILL.md`] = `---\nname: s${s}\n---\n`;
          for (let f = 0; f < 30; f++) {
            files[`root/s${s}/f${String(f).padStart(2, "0")}/a.md`] = "a";
          }
        }
        const dir = makeFiles(files);
        try {
          const readable = [`${dir}/root`];
          const one = asRead(
            readFolderAtPathSync(
              { path: `${dir}/root/s0`, maxStats: 64, subtree: 3 },
              readable,
              opener,
            ),
          );
          assert.deepEqual(one.subtree?.map((sub) => sub.rel), ["f00", "f01", "f02"]);
          const reads = readFoldersAtPathsSync(
            Array.from({ length: skills }, (_, s) => ({
              path: `${dir}/root/s${s}`,
              maxStats: 64,
              subtree: 20,
            })),
            readable,
            opener,
          );
          const counts = reads.map((read) => asRead(read).subtree?.length ?? 0);
          assert.equal(
            counts.reduce((sum, n) => sum + n, 0),
            SUBTREE_FOLDERS_PER_BATCH,
            `${counts}`,
          );
          assert.ok(counts.every((n) => n <= 20));
          assert.equal(counts.at(-1), 0, "the batch's bound cut the last ones");
        } finally {
          Deno.removeSync(dir, { recursive: true });
        }
      });
    }
  },
});

Deno.test({
  name:
    "a skill folder's read carries SKILL.md's lstat even past the stat budget (review r16 F4: 64 files sorting before it)",
  ignore: !isLinux,
  fn: () => {
    const files: Record<string, string> = { "root/s/SKILL.md": "---\nname: s\n---\n" };
    for (let i = 0; i < 70; i++) files[`root/s/A${String(i).padStart(2, "0")}.md`] = "a";
    const dir = makeFiles(files);
    try {
      const read = asRead(
        readFolderAtPathSync({ path: `${dir}/root/s`, maxStats: 64 }, [`${dir}/root`]),
      );
      const stated = read.entries.filter((entry) => entry.stat !== null).map((entry) => entry.name);
      assert.equal(stated.length, 65);
      assert.ok(stated.includes("SKILL.md"));
      assert.equal(
        read.entries.find((entry) => entry.name === "A69.md")?.stat,
        null,
        "the budget holds",
      );
      const none = asRead(
        readFolderAtPathSync({ path: `${dir}/root/s`, maxStats: 0 }, [`${dir}/root`]),
      );
      assert.ok(none.entries.every((entry) => entry.stat === null), "none asked, none taken");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
