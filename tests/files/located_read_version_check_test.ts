// s12-hK: a located read's post-read version check (review r6) is one `lstat` of the located
// path, which must still hold the handle's own inode (device and inode) at the handle's version,
// instead of a second `fstat` of the handle. These pin what it tells: an unchanged file is read
// under its version; a file replaced at its path (by a link to an outside file, or by another
// inode of the same size) after its location check is never followed and its bytes are kept
// under no version; nothing of an outside file is listed or hashed. (The handle's own `fstat`
// kept the outside file out as well, and called such a read unmoved: the handle's inode was
// unchanged. The verdict "moved" is the new check's, pinned here; the exactness is both's.)

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  closeLocated,
  loadGateFs,
  openLocatedSync,
  readLocated,
} from "../../src/files/bounded_read.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError } from "../../src/files/path_gate.ts";
import { listAndHashSkills } from "../../src/mcp/skills_extension/digest_listing.ts";
import type { ListJobSkill } from "../../src/mcp/skills_extension/digest_messages.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const OUTSIDE_TEXT = "o".repeat(4_321);

/**
 * A locator that answers the truth, and right after locating `target` (before the caller reads
 * it) runs `swap` once: the exchange lands between the location check and the read.
 */
function locatorThatSwapsAfter(target: string, swap: () => void): () => boolean {
  let hasSwapped = false;
  installFdLocator(async (fd) => {
    const where = await locateDirectly(fd);
    if (!hasSwapped && where === target) {
      hasSwapped = true;
      swap();
    }
    return where;
  });
  return () => hasSwapped;
}

async function readWhole(
  dir: string,
  path: string,
  reportsMove: boolean,
): Promise<{ text: string; isVersionMoved: boolean | undefined; size: number }> {
  await loadGateFs();
  const opened = openLocatedSync(dir, path);
  assert.equal(opened.kind, "opened");
  if (opened.kind !== "opened") throw new Error("unreachable");
  const chunks: Uint8Array[] = [];
  try {
    const read = await readLocated(opened.handle, 1 << 20, (chunk) => chunks.push(chunk.slice()), {
      reportsMove,
    });
    assert.ok(read !== null, "the locator answered");
    return {
      text: new TextDecoder().decode(new Uint8Array(chunks.flatMap((chunk) => [...chunk]))),
      isVersionMoved: read.isVersionMoved,
      size: read.size,
    };
  } finally {
    closeLocated(opened.handle);
  }
}

Deno.test("readLocated(): an unchanged file is read whole under its handle's version, not reported moved", async () => {
  await using tree = await makeTree({
    "skill/SKILL.md": skillMd("skill"),
    "skill/a/b.md": "bee\n",
  });
  const dir = Deno.realPathSync(tree.at("skill"));
  try {
    installFdLocator(locateDirectly);
    const read = await readWhole(dir, "a/b.md", true);
    assert.deepEqual(read, { text: "bee\n", isVersionMoved: false, size: 4 });
    // Without `reportsMove` the same read is not refused either.
    assert.equal((await readWhole(dir, "SKILL.md", false)).text, skillMd("skill"));
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a located file replaced by a symlink to an outside file between its location check and its read is reported moved, and the link is never followed", async () => {
  await using tree = await makeTree({
    "skill/SKILL.md": skillMd("skill"),
    "skill/notes.md": "inside\n",
    "outside/secret.md": OUTSIDE_TEXT,
  });
  const dir = Deno.realPathSync(tree.at("skill"));
  const outside = Deno.realPathSync(tree.at("outside/secret.md"));
  const swapped = locatorThatSwapsAfter(`${dir}/notes.md`, () => {
    Deno.renameSync(`${dir}/notes.md`, `${dir}/notes.away`);
    Deno.symlinkSync(outside, `${dir}/notes.md`);
  });
  try {
    const read = await readWhole(dir, "notes.md", true);
    assert.ok(swapped(), "the exchange happened between the location check and the read");
    // The handle's own bytes (the descriptor cannot be redirected), kept under no version.
    assert.equal(read.text, "inside\n");
    assert.equal(read.size, 7);
    assert.equal(read.isVersionMoved, true);
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a located file renamed over by another file of the same size and mtime while read is reported moved (the path holds another inode), and refused without reportsMove", async () => {
  await using tree = await makeTree({
    "skill/SKILL.md": skillMd("skill"),
    "skill/notes.md": "AAAA\n",
  });
  const dir = Deno.realPathSync(tree.at("skill"));
  const path = `${dir}/notes.md`;
  const mtime = Deno.lstatSync(path).mtime!;
  const replace = () => {
    Deno.writeTextFileSync(`${dir}/.next`, "BBBB\n");
    Deno.utimeSync(`${dir}/.next`, mtime, mtime);
    Deno.renameSync(`${dir}/.next`, path);
  };
  try {
    const swapped = locatorThatSwapsAfter(path, replace);
    const read = await readWhole(dir, "notes.md", true);
    assert.ok(swapped());
    assert.equal(read.text, "AAAA\n");
    assert.equal(read.isVersionMoved, true);
    // The same exchange without `reportsMove`: refused as changed while it was read.
    Deno.writeTextFileSync(path, "CCCC\n");
    locatorThatSwapsAfter(path, replace);
    await assert.rejects(
      () => readWhole(dir, "notes.md", false),
      (error) => error instanceof PathRefusedError && error.code === "not-a-file",
    );
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a listed file replaced by a symlink to an outside file after its location check, before its read, gives the listing pass neither the outside file's size nor any digest of it", async () => {
  await using tree = await makeTree({
    "root/victim/SKILL.md": skillMd("victim"),
    "root/victim/references/guide.md": "inside\n",
    "outside/secret.md": OUTSIDE_TEXT,
  });
  const root = Deno.realPathSync(tree.at("root"));
  const dir = `${root}/victim`;
  const outside = Deno.realPathSync(tree.at("outside/secret.md"));
  const swapped = locatorThatSwapsAfter(`${dir}/references/guide.md`, () => {
    Deno.removeSync(`${dir}/references/guide.md`);
    Deno.symlinkSync(outside, `${dir}/references/guide.md`);
  });
  try {
    const skill = {
      name: "victim",
      dir,
      realDir: dir,
      skillMdFile: "SKILL.md",
      entries: [...Deno.readDirSync(dir)].map((item) => ({ ...item }))
        .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    } as unknown as ListJobSkill;
    const [listed] = await listAndHashSkills([skill], {
      maxFilesPerSkill: 100,
      maxFoldersPerSkill: 10,
    });
    assert.ok(swapped(), "the exchange happened between the location check and the read");
    assert.ok(listed !== null && listed !== undefined, "the skill is answered");
    const at = listed.files.findIndex((file) => file.path === "references/guide.md");
    assert.ok(at >= 0, "the file is listed under its handle's version");
    assert.equal(listed.files[at]!.size, 7, "the handle's size, never the outside file's");
    // The bytes were read but the path no longer holds them: no digest is given for the version.
    assert.equal(listed.digests[at], null);
    for (const digest of listed.digests) assert.notEqual(digest?.digest, sha(OUTSIDE_TEXT));
    assert.ok(listed.files.every((file) => file.size !== OUTSIDE_TEXT.length));
  } finally {
    installFdLocator(locateDirectly);
  }
});
