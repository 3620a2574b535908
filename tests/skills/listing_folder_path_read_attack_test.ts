/**
 * s11-hC: the digest isolate asks the trusted part to open each folder of a
 * skill by its real path (`read-folder-paths`, `readFolderAtPathSync`,
 * src/files/folder_path_read.ts), so
 * the isolate's own open, with Deno's per-segment permission check, is
 * spared. The open happens after the walk decided the entry is a folder: a
 * folder swapped for a symlink to an outside folder in between (or a folder
 * on its way swapped) must come back `changed`, never with the outside
 * folder's names or sizes; a path outside the asker's read permission is not
 * opened at all; and without any swap the listing is the same as the one
 * read through the isolate's own descriptors.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { loadGateFs } from "../../src/files/bounded_read.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { type FolderPathReader, readFolderDirectly } from "../../src/files/fd_listing.ts";
import { readFolderAtPathSync } from "../../src/files/folder_path_read.ts";
import { listSkillFiles } from "../../src/skills/_list_files.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";
import { answerLocateRequest } from "../../src/sandbox/fd_locate_answer.ts";
import { parseWorkerMessage } from "../../src/sandbox/messages.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

const caps = { maxFilesPerSkill: DEFAULT_CAPS.maxFilesPerSkill, maxFoldersPerSkill: 100 };

async function skillAndHome(): Promise<Tree> {
  return await makeTree({
    "root/s/SKILL.md": skillMd("s", "Inside"),
    "root/s/notes.md": "inside notes\n",
    "root/s/references/guide.md": "inside guide\n",
    "root/s/references/deep/more.md": "inside more\n",
    "home/owner/PRIVATE-key-name.txt": "x".repeat(777),
    "home/owner/deep/PRIVATE-deeper.txt": "y".repeat(777),
    // An outside copy of the skill, so a swapped skill folder has the same shape.
    "home/copy/SKILL.md": skillMd("s", "Outside"),
    "home/copy/references/PRIVATE-copy.txt": "z".repeat(777),
  });
}

function candidateOf(tree: Tree): SkillCandidate {
  const dir = tree.at("root/s");
  return {
    name: "s",
    dir,
    realDir: dir,
    skillMdFile: "SKILL.md",
    entries: [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1),
  } as unknown as SkillCandidate;
}

/** The trusted part's answer, as the isolate's reader gets it (readable: `root` only). */
function trustedPathReader(root: string, beforeOpen?: (path: string) => void): FolderPathReader {
  return (request) => {
    beforeOpen?.(request.path);
    return Promise.resolve(
      readFolderAtPathSync(request, [root]),
    );
  };
}

function assertNothingOutside(text: string, tree: Tree): void {
  assert.ok(!text.includes("PRIVATE"), `an outside name was listed: ${text}`);
  assert.ok(!text.includes("777"), "an outside size was listed");
  assert.ok(!text.includes(tree.at("home")), "an outside host path is named");
}

Deno.test("a folder read by path is the folder read through a descriptor: same entries, same location", async () => {
  await loadGateFs();
  await using tree = await skillAndHome();
  const path = tree.at("root/s");
  const read = readFolderAtPathSync({ path, maxStats: 10 }, [tree.at("root")]);
  assert.ok(read !== null && typeof read !== "string");
  assert.equal(read.location, path);
  assert.deepEqual(read.entries.map((entry) => [entry.name, entry.kind]), [
    ["SKILL.md", "file"],
    ["notes.md", "file"],
    ["references", "dir"],
  ]);
  assert.equal(read.entries[1]?.stat?.size, "inside notes\n".length);
  const named = readFolderAtPathSync({ path, maxStats: 1, names: ["notes.md"] }, [
    tree.at("root"),
  ]);
  assert.ok(named !== null && typeof named !== "string");
  assert.deepEqual(named.entries.map((entry) => [entry.name, entry.stat?.size]), [[
    "notes.md",
    13,
  ]]);
});

Deno.test("attack: a folder swapped for a symlink to an outside folder before the trusted part's open by path is changed, none of its names read", async () => {
  await loadGateFs();
  await using tree = await skillAndHome();
  Deno.renameSync(tree.at("root/s/references"), tree.at("root/s-references-old"));
  Deno.symlinkSync(tree.at("home/owner"), tree.at("root/s/references"));
  const read = readFolderAtPathSync({ path: tree.at("root/s/references"), maxStats: 10 }, [
    tree.at("root"),
  ]);
  assert.equal(read, "changed");
});

Deno.test("attack: a folder on the way swapped for a symlink to an outside copy before the open by path is changed (located elsewhere)", async () => {
  await loadGateFs();
  await using tree = await skillAndHome();
  Deno.renameSync(tree.at("root/s"), tree.at("root-s-old"));
  Deno.symlinkSync(tree.at("home/copy"), tree.at("root/s"));
  const read = readFolderAtPathSync(
    { path: tree.at("root/s/references"), maxStats: 10 },
    [tree.at("root")],
  );
  assert.equal(read, "changed");
});

Deno.test("a folder path outside the asker's read permission, or not plain, is not opened: null", async () => {
  await loadGateFs();
  await using tree = await skillAndHome();
  const readable = [tree.at("root")];
  assert.equal(readFolderAtPathSync({ path: tree.at("home/owner"), maxStats: 0 }, readable), null);
  for (
    const path of [
      "relative/path",
      `${tree.at("root/s")}/../../home/owner`,
      `${tree.at("root/s")}/`,
      `${tree.at("root")}//s`,
    ]
  ) {
    assert.equal(readFolderAtPathSync({ path, maxStats: 0 }, readable), null, path);
  }
  // The trusted part's answer to the message, scoped to the asker's read permission.
  const replies: unknown[] = [];
  const message = parseWorkerMessage({
    type: "read-folder-paths",
    id: 7,
    requests: [
      { path: tree.at("home/owner"), maxStats: 0 },
      { path: tree.at("root/s"), maxStats: 0 },
    ],
  });
  assert.ok(message !== null);
  assert.ok(answerLocateRequest(message, (reply) => replies.push(reply), [tree.at("root")]));
  for (let tries = 0; replies.length === 0 && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const [reply] = replies as { id: number; reads: unknown[] }[];
  assert.equal(reply?.id, 7);
  assert.equal(reply?.reads[0], null);
  assertNothingOutside(JSON.stringify(reply), tree);
  assert.equal((reply?.reads[1] as { location?: string } | null)?.location, tree.at("root/s"));
});

Deno.test("attack: the listing's sub-folder swapped for a symlink to an outside folder between the walk's read and the trusted part's open lists none of its names", async () => {
  installFdLocator(locateDirectly);
  await loadGateFs();
  await using tree = await skillAndHome();
  let swapped = false;
  const reader = trustedPathReader(tree.at("root"), (path) => {
    if (swapped || path !== tree.at("root/s/references")) return;
    swapped = true;
    Deno.renameSync(tree.at("root/s/references"), tree.at("root/s-references-old"));
    Deno.symlinkSync(tree.at("home/owner"), tree.at("root/s/references"));
  });
  const candidate = candidateOf(tree);
  const listing = await listSkillFiles(
    candidate,
    { path: "SKILL.md", size: 0, mtimeMs: null },
    caps,
    { readFolderAt: reader, readFolder: readFolderDirectly },
  );
  assert.ok(swapped, "the swap ran before the open");
  assertNothingOutside(JSON.stringify(listing), tree);
  assert.deepEqual(listing.files.map((file) => file.path), ["SKILL.md", "notes.md"]);
  assert.ok(listing.problems.some((found) => found.path === tree.at("root/s/references")));
});

Deno.test("attack: the skill folder swapped for a symlink to an outside copy while its sub-folder is read by path lists none of the copy's names", async () => {
  installFdLocator(locateDirectly);
  await loadGateFs();
  await using tree = await skillAndHome();
  let swapped = false;
  const reader = trustedPathReader(tree.at("root"), (path) => {
    if (swapped || path !== tree.at("root/s/references")) return;
    swapped = true;
    Deno.renameSync(tree.at("root/s"), tree.at("root-s-old"));
    Deno.symlinkSync(tree.at("home/copy"), tree.at("root/s"));
  });
  const listing = await listSkillFiles(
    candidateOf(tree),
    { path: "SKILL.md", size: 0, mtimeMs: null },
    caps,
    { readFolderAt: reader, readFolder: readFolderDirectly },
  );
  assert.ok(swapped, "the swap ran before the open");
  assertNothingOutside(JSON.stringify(listing), tree);
  assert.ok(!listing.files.some((file) => file.path.startsWith("references/")));
  assert.ok(listing.problems.some((found) => found.path === tree.at("root/s/references")));
});

Deno.test("without a swap, the listing read by path equals the listing read through the walk's own descriptors", async () => {
  installFdLocator(locateDirectly);
  await loadGateFs();
  await using tree = await skillAndHome();
  await Deno.symlink(tree.at("root/s/references/guide.md"), tree.at("root/s/link.md"));
  const standIn = { path: "SKILL.md", size: 0, mtimeMs: null };
  const byPath = await listSkillFiles(candidateOf(tree), standIn, caps, {
    readFolderAt: trustedPathReader(tree.at("root")),
    readFolder: readFolderDirectly,
  });
  const byDescriptor = await listSkillFiles(candidateOf(tree), standIn, caps, {
    readFolderAt: null,
    readFolder: readFolderDirectly,
  });
  assert.deepEqual(byPath, byDescriptor);
  assert.deepEqual(byPath.files.map((file) => file.path), [
    "SKILL.md",
    "link.md",
    "notes.md",
    "references/deep/more.md",
    "references/guide.md",
  ]);
});
