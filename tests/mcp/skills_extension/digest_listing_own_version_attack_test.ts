// s10-h8: the digest isolate's listing takes a plain file's version (size, mtime, ctime, inode)
// from the very handle it hashes, not from a second `lstat` in the trusted part. Such a version
// is used only when that handle's location is exactly the file's path in the skill's real folder:
// a folder on the way exchanged with a link to an outside folder between the folder's read and
// the open (and back before the location is asked) must list nothing of the outside file.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  type FolderReadRequest,
  installFolderReader,
  readFolderDirectly,
} from "../../../src/files/fd_listing.ts";
import { installFdLocator, locateDirectly } from "../../../src/files/fd_location.ts";
import { listAndHashSkills } from "../../../src/mcp/skills_extension/digest_listing.ts";
import type { ListJobSkill } from "../../../src/mcp/skills_extension/digest_messages.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

const CAPS = { maxFilesPerSkill: 100, maxFoldersPerSkill: 10 };

function jobSkill(root: string, name: string): ListJobSkill {
  const dir = `${root}/${name}`;
  return {
    name,
    dir,
    realDir: dir,
    skillMdFile: "SKILL.md",
    entries: [...Deno.readDirSync(dir)].map((item) => ({ ...item }))
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  } as unknown as ListJobSkill;
}

Deno.test("attack: a folder exchanged with an outside link between its read and the file's open, and back, lists nothing of the outside file's version", async () => {
  await using tree = await makeTree({
    "root/victim/SKILL.md": skillMd("victim"),
    "root/victim/references/guide.md": "inside\n",
    "root/plain/SKILL.md": skillMd("plain"),
    "root/plain/references/guide.md": "plain\n",
    "outside/refs/guide.md": "o".repeat(4_321),
  });
  const root = Deno.realPathSync(tree.at("root"));
  const victimRefs = `${root}/victim/references`;
  const outside = Deno.realPathSync(tree.at("outside/refs"));
  let swapped = false;
  let swappedBack = false;
  installFolderReader(async (request: FolderReadRequest) => {
    const read = await readFolderDirectly(request);
    if (read?.location === victimRefs && !swapped) {
      // After the exact read of the folder, before the walk opens its file.
      swapped = true;
      Deno.renameSync(victimRefs, `${victimRefs}.away`);
      Deno.symlinkSync(outside, victimRefs);
    }
    return read;
  });
  installFdLocator((fd) => {
    if (swapped && !swappedBack) {
      // Exchanged back before any handle is located: only the handle itself can tell.
      swappedBack = true;
      Deno.removeSync(victimRefs);
      Deno.renameSync(`${victimRefs}.away`, victimRefs);
    }
    return locateDirectly(fd);
  });
  try {
    const listed = await listAndHashSkills(
      [jobSkill(root, "victim"), jobSkill(root, "plain")],
      CAPS,
    );
    assert.ok(swapped && swappedBack, "the exchange and its undoing both happened");
    // The victim's file is never opened through the link (s11-hD: its folder is looked at
    // first), so its version comes from the trusted part's `lstat` through the folder's own
    // descriptor: the inside file's, or nothing (reported as changed while listed, or no
    // listing at all: the build lists it itself).
    for (const file of listed[0]?.files ?? []) {
      assert.deepEqual([file.path, file.size], ["references/guide.md", 7]);
    }
    const plain = listed[1];
    assert.ok(plain !== null && plain !== undefined);
    assert.deepEqual(plain.files.map((file) => [file.path, file.size]), [
      ["references/guide.md", 6],
    ]);
    const text = JSON.stringify(listed);
    assert.ok(!text.includes("4321"), "the outside file's size was listed");
    assert.ok(!text.includes(outside), "the outside folder was named");
  } finally {
    installFolderReader(readFolderDirectly);
    installFdLocator(locateDirectly);
  }
});

Deno.test("the digest isolate's listing takes each plain file's version from the handle it hashes: no lstat asked of the folder reads, every version the file's own", async () => {
  const files: Record<string, string> = {};
  for (const name of ["a-skill", "b-skill"]) {
    files[`root/${name}/SKILL.md`] = skillMd(name);
    files[`root/${name}/references/guide.md`] = `${name} guide\n`;
    files[`root/${name}/scripts/run.sh`] = `echo ${name}\n`;
    files[`root/${name}/notes.md`] = `${name} notes, longer\n`;
  }
  await using tree = await makeTree(files);
  const root = Deno.realPathSync(tree.at("root"));
  const asked: number[] = [];
  installFolderReader((request) => {
    asked.push(request.maxStats);
    return readFolderDirectly(request);
  });
  try {
    const listed = await listAndHashSkills(
      [jobSkill(root, "a-skill"), jobSkill(root, "b-skill")],
      CAPS,
    );
    // The skill folders themselves are not read again: discovery's entries start the walk (s11-hC).
    assert.deepEqual(asked, [0, 0, 0, 0], "each sub-folder read once, without lstats");
    for (const [index, name] of ["a-skill", "b-skill"].entries()) {
      const skill = listed[index];
      assert.ok(skill !== null && skill !== undefined);
      assert.deepEqual(skill.files.map((file) => file.path), [
        "notes.md",
        "references/guide.md",
        "scripts/run.sh",
      ]);
      for (const [at, file] of skill.files.entries()) {
        const info = Deno.lstatSync(`${root}/${name}/${file.path}`);
        assert.deepEqual(
          [file.size, file.mtimeMs, file.ctimeMs, file.dev, file.ino],
          [info.size, info.mtime?.getTime(), info.ctime?.getTime(), info.dev, info.ino],
        );
        const bytes = Deno.readFileSync(`${root}/${name}/${file.path}`);
        assert.equal(
          skill.digests[at]?.digest,
          `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
        );
      }
    }
  } finally {
    installFolderReader(readFolderDirectly);
  }
});

Deno.test("attack: a listed folder exchanged with a link to an outside FIFO's folder, right after its read, makes the listing open nothing outside (the FIFO's waiting writer never sees a reader)", async () => {
  await using tree = await makeTree({
    "root/victim/SKILL.md": skillMd("victim"),
    "root/victim/references/guide.md": "inside\n",
    "outside/refs/keep.md": "outside\n",
  });
  const root = Deno.realPathSync(tree.at("root"));
  const victimRefs = `${root}/victim/references`;
  const outside = Deno.realPathSync(tree.at("outside/refs"));
  const fifo = `${outside}/guide.md`;
  const made = new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
  assert.ok(made.success, "mkfifo");
  // A writer waiting on the FIFO: its open returns only once some reader opens the FIFO.
  let isReaderSeen = false;
  const writer = Deno.open(fifo, { write: true }).then((file) => {
    isReaderSeen = true;
    return file;
  });
  let swapped = false;
  installFolderReader(async (request: FolderReadRequest) => {
    const read = await readFolderDirectly(request);
    if (read?.location === victimRefs && !swapped) {
      // After the exact read of the folder, before the walk opens its file; never undone.
      swapped = true;
      Deno.renameSync(victimRefs, `${victimRefs}.away`);
      Deno.symlinkSync(outside, victimRefs);
    }
    return read;
  });
  try {
    const listed = await listAndHashSkills([jobSkill(root, "victim")], CAPS);
    assert.ok(swapped, "the exchange happened");
    // Time for a writer woken by an open to be told (its open returns on another thread).
    await new Promise((done) => setTimeout(done, 300));
    assert.equal(isReaderSeen, false, "the listing opened the outside FIFO");
    // What is listed, if anything, is the folder's own file, read through its descriptor.
    const text = JSON.stringify(listed);
    assert.ok(!text.includes(outside), "the outside folder was named");
  } finally {
    installFolderReader(readFolderDirectly);
    // Release the waiting writer (open a reader of our own), then close both.
    const reader = await Deno.open(fifo, { read: true });
    (await writer).close();
    reader.close();
  }
});
