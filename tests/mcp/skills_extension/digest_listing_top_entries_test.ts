// s11-hC: the digest isolate's walk starts from discovery's exact read of the skill folder (the
// job's entries) instead of reading the skill folder again. Without a change the listing is the
// one the walk gives reading it itself, and the skill folder is not read; a top-level file or
// sub-folder swapped for a link to outside after discovery lists nothing of the outside (each
// file's version still comes from a handle located exactly, each sub-folder from an exact read).

import assert from "node:assert/strict";
import {
  type FolderReadRequest,
  installFolderPathReader,
  installFolderReader,
  readFolderDirectly,
} from "../../../src/files/fd_listing.ts";
import { readFolderAtPathSync } from "../../../src/files/folder_path_read.ts";
import { installFdLocator, locateDirectly } from "../../../src/files/fd_location.ts";
import { listAndHashSkills } from "../../../src/mcp/skills_extension/digest_listing.ts";
import type { ListJobSkill } from "../../../src/mcp/skills_extension/digest_messages.ts";
import { listSkillFiles } from "../../../src/skills/_list_files.ts";
import type { SkillCandidate } from "../../../src/skills/discover.ts";
import { makeTree, skillMd, type Tree } from "../../skills/_tree.ts";

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

async function skillTree(): Promise<Tree> {
  return await makeTree({
    "root/s/SKILL.md": skillMd("s"),
    "root/s/notes.md": "inside notes\n",
    "root/s/references/guide.md": "inside guide\n",
    "outside/PRIVATE-name.txt": "o".repeat(4_321),
    "outside/dir/PRIVATE-deeper.txt": "o".repeat(4_321),
  });
}

/** Installs a counting reader and the direct locator; returns the folders read. */
function countFolderReads(): string[] {
  const read: string[] = [];
  installFdLocator(locateDirectly);
  installFolderReader(async (request: FolderReadRequest) => {
    const answer = await readFolderDirectly(request);
    if (answer !== null) read.push(answer.location);
    return answer;
  });
  return read;
}

function assertNothingOutside(text: string): void {
  assert.ok(!text.includes("PRIVATE"), `an outside name was listed: ${text}`);
  assert.ok(!text.includes("4321"), `an outside size was listed: ${text}`);
}

Deno.test("the digest isolate's walk starts from discovery's entries: the skill folder is not read again, the listing is the walk's own", async () => {
  await using tree = await skillTree();
  const root = Deno.realPathSync(tree.at("root"));
  const reads = countFolderReads();
  try {
    const skill = jobSkill(root, "s");
    const [listed] = await listAndHashSkills([skill], CAPS);
    assert.ok(listed !== null && listed !== undefined);
    assert.deepEqual(reads, [`${root}/s/references`], "only the sub-folder is read");
    const own = await listSkillFiles(
      skill as unknown as SkillCandidate,
      { path: "SKILL.md", size: 0, mtimeMs: null },
      CAPS,
    );
    assert.deepEqual(
      listed.files.map((file) => [file.path, file.size, file.ino]),
      own.files.filter((file) => file.path !== "SKILL.md").map((file) => [
        file.path,
        file.size,
        file.ino,
      ]),
    );
    assert.ok(listed.digests.every((digest) => digest !== null), "every file hashed");
  } finally {
    installFolderReader(readFolderDirectly);
  }
});

Deno.test("attack: a top-level file swapped for a link to an outside file after discovery lists nothing of it", async () => {
  await using tree = await skillTree();
  const root = Deno.realPathSync(tree.at("root"));
  countFolderReads();
  try {
    const skill = jobSkill(root, "s");
    // After discovery read the skill folder, before the isolate's walk.
    Deno.removeSync(`${root}/s/notes.md`);
    Deno.symlinkSync(tree.at("outside/PRIVATE-name.txt"), `${root}/s/notes.md`);
    const [listed] = await listAndHashSkills([skill], CAPS);
    assertNothingOutside(JSON.stringify(listed));
    assert.ok(!listed?.files.some((file) => file.path === "notes.md" && file.size === 4_321));
  } finally {
    installFolderReader(readFolderDirectly);
  }
});

Deno.test("attack: a sub-folder swapped for a link to an outside folder after discovery lists none of its names", async () => {
  await using tree = await skillTree();
  const root = Deno.realPathSync(tree.at("root"));
  countFolderReads();
  try {
    const skill = jobSkill(root, "s");
    Deno.renameSync(`${root}/s/references`, `${root}/s-references-away`);
    Deno.symlinkSync(tree.at("outside"), `${root}/s/references`);
    const [listed] = await listAndHashSkills([skill], CAPS);
    assertNothingOutside(JSON.stringify(listed));
    assert.ok(!listed?.files.some((file) => file.path.startsWith("references/")));
  } finally {
    installFolderReader(readFolderDirectly);
  }
});

/** A job with the sub-folders discovery's path read carried (s17), read by the trusted part's code. */
function jobWithSubfolders(root: string, name: string): ListJobSkill {
  const read = readFolderAtPathSync({ path: `${root}/${name}`, maxStats: 64, subtree: 32 }, [root]);
  assert.ok(typeof read === "object" && read !== null && read.subtree !== undefined);
  const subfolders = read.subtree.flatMap((sub) =>
    typeof sub.read === "object" && sub.read !== null
      ? [{
        rel: sub.rel,
        location: sub.read.location,
        entries: sub.read.entries.map((entry) => ({
          name: entry.name,
          isFile: entry.kind === "file",
          isDirectory: entry.kind === "dir",
          isSymlink: entry.kind === "symlink",
        })),
      }]
      : []
  );
  return { ...jobSkill(root, name), subfolders };
}

/** Installs the trusted part's path reader over `root`, counting the folders it is asked for. */
function countPathReads(root: string): string[] {
  const asked: string[] = [];
  installFolderPathReader((request) => {
    asked.push(request.path);
    return Promise.resolve(readFolderAtPathSync(request, [root]));
  });
  return asked;
}

Deno.test("the digest isolate's walk starts from discovery's sub-folders too (s17): no folder is read again, the listing is the walk's own", async () => {
  await using tree = await skillTree();
  const root = Deno.realPathSync(tree.at("root"));
  const reads = countFolderReads();
  const asked = countPathReads(root);
  try {
    const [withSubfolders] = await listAndHashSkills([jobWithSubfolders(root, "s")], CAPS);
    assert.deepEqual([...reads, ...asked], [], "no folder read again");
    const [walked] = await listAndHashSkills([jobSkill(root, "s")], CAPS);
    assert.deepEqual(asked, [`${root}/s/references`], "without them the sub-folder is read");
    // The same listing and digests (each read's own moment, `readAtMs`, aside).
    const timeless = (value: unknown) => JSON.stringify(value, (k, v) => k === "readAtMs" ? 0 : v);
    assert.equal(timeless(withSubfolders), timeless(walked));
    assert.ok(withSubfolders?.digests.every((digest) => digest !== null), "every file hashed");
  } finally {
    installFolderReader(readFolderDirectly);
    installFolderPathReader(null);
  }
});

Deno.test("attack: a sub-folder swapped for a link to an outside folder after discovery read it with the skill folder lists nothing of the outside", async () => {
  await using tree = await skillTree();
  const root = Deno.realPathSync(tree.at("root"));
  countFolderReads();
  countPathReads(root);
  try {
    const skill = jobWithSubfolders(root, "s");
    // After discovery's read (the sub-folder's names came with it), before the isolate's walk.
    Deno.renameSync(`${root}/s/references`, `${root}/s-references-away`);
    Deno.mkdirSync(tree.at("outside/references"));
    Deno.writeTextFileSync(tree.at("outside/references/guide.md"), "o".repeat(4_321));
    Deno.symlinkSync(tree.at("outside"), `${root}/s/references`);
    const [listed] = await listAndHashSkills([skill], CAPS);
    assertNothingOutside(JSON.stringify(listed));
    assert.ok(
      !listed?.files.some((file) => file.path.startsWith("references/")),
      "a name read before the swap whose file is now reached through the link is not listed",
    );
  } finally {
    installFolderReader(readFolderDirectly);
    installFolderPathReader(null);
  }
});
