/**
 * Review r17, hC-1: the trusted part opens a folder the digest isolate names
 * by path (`read-folder-paths`) with `--allow-all`, so without Deno's
 * permission check, which resolves a path and refuses an outside target.
 * That open must not follow a link swapped in on the way (to an automount, a
 * FUSE folder: opened on the trusted thread, synchronously), nor cross into
 * another mount below the asker's root; the location check after the open
 * alone kept the outside folder unread, not unopened. Each case runs with
 * `openat2` and with the one-name-at-a-time walk used where it is missing.
 *
 * Whether a link was followed is told by its access time: the kernel updates
 * a symlink's atime when it follows it (under `relatime`, the first time
 * after it was made); refused before it is followed, it stays.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type FolderOpener, loadFolderOpener } from "../../src/files/folder_beneath.ts";
import { readFolderAtPathSync } from "../../src/files/folder_path_read.ts";

/** Both ways the trusted part opens: `openat2`, and the walk where it is missing. */
function openers(): [string, FolderOpener][] {
  const viaOpenat2 = loadFolderOpener();
  const viaWalk = loadFolderOpener({ tryOpenat2: false });
  assert.ok(viaOpenat2 !== null && viaWalk !== null, "libc loads (Linux, --allow-ffi)");
  assert.ok(viaOpenat2.usesOpenat2, "openat2 answers on this kernel");
  return [["openat2", viaOpenat2], ["walk", viaWalk]];
}

/** A root with `s/references`, and an outside folder of the same shape. */
function makeTree(dir: string): void {
  for (const folder of ["root/s/references", "home/copy/references/deep"]) {
    Deno.mkdirSync(`${dir}/${folder}`, { recursive: true });
  }
  Deno.writeTextFileSync(`${dir}/root/s/SKILL.md`, "---\nname: s\n---\n");
  Deno.writeTextFileSync(`${dir}/home/copy/references/PRIVATE.txt`, "x".repeat(777));
}

const atimeMs = (path: string) => Deno.lstatSync(path).atime?.getTime() ?? Number.NaN;
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

Deno.test("attack: a folder on the way swapped for a symlink to an outside folder is refused by the trusted part's open by path, the link never followed", async (t) => {
  for (const [name, opener] of openers()) {
    await t.step(name, async () => {
      const dir = Deno.makeTempDirSync({ prefix: "skillgate-no-follow-" });
      try {
        makeTree(dir);
        Deno.renameSync(`${dir}/root/s`, `${dir}/s-old`);
        Deno.symlinkSync(`${dir}/home/copy`, `${dir}/root/s`);
        // The link's times are its making; a follow from now on moves its atime (relatime).
        await settle();
        const before = atimeMs(`${dir}/root/s`);
        const read = readFolderAtPathSync(
          { path: `${dir}/root/s/references`, maxStats: 10 },
          [`${dir}/root`],
          opener,
        );
        assert.equal(read, "changed");
        assert.equal(atimeMs(`${dir}/root/s`), before, "the link on the way was followed");
        // The check can see a follow here: following it now moves its atime.
        Deno.statSync(`${dir}/root/s/references`);
        assert.notEqual(atimeMs(`${dir}/root/s`), before, "this file system hides follows");
      } finally {
        Deno.removeSync(dir, { recursive: true });
      }
    });
  }
});

Deno.test("attack: a symlink at the path itself, or no folder there, is changed; a folder in place is read at exactly its path", async (t) => {
  for (const [name, opener] of openers()) {
    await t.step(name, () => {
      const dir = Deno.makeTempDirSync({ prefix: "skillgate-no-follow-" });
      try {
        makeTree(dir);
        const readable = [`${dir}/root`];
        const read = readFolderAtPathSync(
          { path: `${dir}/root/s`, maxStats: 10 },
          readable,
          opener,
        );
        assert.ok(read !== null && typeof read !== "string");
        assert.equal(read.location, `${dir}/root/s`);
        assert.deepEqual(read.entries.map((entry) => entry.name), ["SKILL.md", "references"]);
        const rootRead = readFolderAtPathSync(
          { path: `${dir}/root`, maxStats: 0 },
          readable,
          opener,
        );
        assert.ok(rootRead !== null && typeof rootRead !== "string", "the root itself is read");
        // A permission entry written with a final separator names the same root.
        const viaSlash = readFolderAtPathSync(
          { path: `${dir}/root/s`, maxStats: 0 },
          [`${dir}/root/`],
          opener,
        );
        assert.ok(viaSlash !== null && typeof viaSlash !== "string", "a root/ entry holds it");
        Deno.renameSync(`${dir}/root/s/references`, `${dir}/references-old`);
        Deno.symlinkSync(`${dir}/home/copy/references`, `${dir}/root/s/references`);
        const at = { path: `${dir}/root/s/references`, maxStats: 10 };
        assert.equal(readFolderAtPathSync(at, readable, opener), "changed");
        Deno.removeSync(`${dir}/root/s/references`);
        assert.equal(readFolderAtPathSync(at, readable, opener), "changed");
        Deno.writeTextFileSync(`${dir}/root/s/references`, "a file now");
        assert.equal(readFolderAtPathSync(at, readable, opener), "changed");
      } finally {
        Deno.removeSync(dir, { recursive: true });
      }
    });
  }
});

Deno.test("attack: a folder on another mount below the asker's root is not opened by the trusted part (null: the asker opens it through Deno's check)", async (t) => {
  // `/proc` is a mount of its own below `/`: a folder there stands for an automount or a FUSE
  // folder below a root.
  assert.ok(Deno.statSync("/proc/sys").isDirectory);
  for (const [name, opener] of openers()) {
    await t.step(name, () => {
      assert.equal(readFolderAtPathSync({ path: "/proc/sys", maxStats: 0 }, ["/"], opener), null);
      // The same root, a folder on its own mount: read.
      const dir = Deno.makeTempDirSync({ prefix: "skillgate-no-follow-" });
      try {
        const read = readFolderAtPathSync({ path: dir, maxStats: 0 }, [dir], opener);
        assert.ok(read !== null && typeof read !== "string", "a root's own folder is read");
      } finally {
        Deno.removeSync(dir, { recursive: true });
      }
    });
  }
});
