/**
 * Discovery's folder reads through the path reader (issue 13, session 14):
 * the serving worker installs the trusted part's path reader, so discovery
 * (`readFoldersExactly`, `src/skills/_read_folder.ts`) asks it first and
 * opens no descriptor of its own when it answers with a read placed at
 * exactly the folder's real path. Any other answer (changed, busy, cannot
 * tell, a read located elsewhere) must not be used: this thread's own open
 * decides, so a swapped folder is still `changed` and never listed, and a
 * reader that lies about a location lists nothing of the place it read.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  type FolderPathRead,
  type FolderPathReader,
  installedFolderPathReader,
  installFolderPathReader,
} from "../../src/files/fd_listing.ts";
import { readFolderAtPathSync } from "../../src/files/folder_path_read.ts";
import { readFoldersExactly } from "../../src/skills/_read_folder.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

async function rootAndHome(): Promise<Tree> {
  return await makeTree({
    "root/alpha/SKILL.md": skillMd("alpha", "Alpha"),
    "root/beta/SKILL.md": skillMd("beta", "Beta"),
    "home/owner/PRIVATE-one.txt": "x",
    "home/owner/PRIVATE-two/": { dir: true },
  });
}

/** Installs `reader` for the test's body, then puts back what was installed. */
async function withPathReader(reader: FolderPathReader, body: () => Promise<void>): Promise<void> {
  const before = installedFolderPathReader();
  installFolderPathReader(reader);
  try {
    await body();
  } finally {
    installFolderPathReader(before);
  }
}

/** The trusted part's answer (readable: `root` only), counting the paths asked. */
function trustedReader(root: string, asked: string[]): FolderPathReader {
  return (request) => {
    asked.push(request.path);
    return Promise.resolve(readFolderAtPathSync(request, [root]));
  };
}

function names(read: Awaited<ReturnType<typeof readFoldersExactly>>[number]): string[] {
  assert.ok(!(read instanceof Error), String(read));
  assert.equal(read.kind, "read");
  return read.kind === "read" ? read.entries.map((entry) => entry.name) : [];
}

Deno.test("discovery reads folders through the installed path reader: the same entries as through a descriptor", async () => {
  await using tree = await rootAndHome();
  const reals = [tree.at("root"), tree.at("root/alpha"), tree.at("root/beta")];
  const byDescriptor = await readFoldersExactly(reals);
  const asked: string[] = [];
  await withPathReader(trustedReader(tree.at("root"), asked), async () => {
    const byPath = await readFoldersExactly(reals);
    assert.deepEqual(asked, reals, "each folder was asked of the path reader");
    assert.deepEqual(byPath.map(names), byDescriptor.map(names));
    assert.deepEqual(names(byPath[0]!), ["alpha", "beta"]);
    const [top] = byPath;
    assert.ok(top !== undefined && !(top instanceof Error) && top.kind === "read");
    assert.deepEqual(top.entries.map((entry) => entry.isDirectory), [true, true]);
  });
});

Deno.test("attack: a skill folder swapped for a symlink to an outside folder is changed through the path reader too, none of its names read", async () => {
  await using tree = await rootAndHome();
  Deno.renameSync(tree.at("root/beta"), tree.at("beta-old"));
  Deno.symlinkSync(tree.at("home/owner"), tree.at("root/beta"));
  const answers: FolderPathRead[] = [];
  const reader: FolderPathReader = async (request) => {
    const answer = await trustedReader(tree.at("root"), [])(request);
    answers.push(answer);
    return answer;
  };
  await withPathReader(reader, async () => {
    const [read] = await readFoldersExactly([tree.at("root/beta")]);
    assert.deepEqual(answers, ["changed"], "the trusted part refused the link");
    assert.deepEqual(read, { kind: "changed" }, "this thread's own open decided: changed");
    assert.ok(!JSON.stringify(read).includes("PRIVATE"));
  });
});

Deno.test("attack: a path reader that answers another folder's read (located elsewhere) is not used: this thread's own exact read decides", async () => {
  await using tree = await rootAndHome();
  // A reader that reads the outside folder whatever it is asked, and says where it read.
  const lying: FolderPathReader = (request) =>
    Promise.resolve(
      readFolderAtPathSync({ ...request, path: tree.at("home/owner") }, [tree.at("home")]),
    );
  await withPathReader(lying, async () => {
    const [read] = await readFoldersExactly([tree.at("root/alpha")]);
    assert.deepEqual(names(read!), ["SKILL.md"]);
    assert.ok(!JSON.stringify(read).includes("PRIVATE"), "an outside name was listed");
  });
});

Deno.test("a path reader that cannot tell (null, busy, a failed ask) leaves the read to this thread's own open: a missing folder is still NotFound", async () => {
  await using tree = await rootAndHome();
  for (
    const reader of [
      () => Promise.resolve(null),
      () => Promise.resolve("busy" as const),
      () => Promise.reject(new Error("the trusted part did not answer")),
    ] satisfies FolderPathReader[]
  ) {
    await withPathReader(reader, async () => {
      const [alpha, gone] = await readFoldersExactly([tree.at("root/alpha"), tree.at("root/gone")]);
      assert.deepEqual(names(alpha!), ["SKILL.md"]);
      assert.ok(gone instanceof Error, String(gone));
      assert.equal(gone.name, "NotFound");
    });
  }
});
