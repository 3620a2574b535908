/**
 * Attack (r13; left alone by r12 as LOW): a grant's `read` folder is checked
 * once, at start-up, on its real path (`src/scripts/sandbox/grant_folders.ts`
 * `checkGrantFolders`), but bubblewrap binds it by its PATH at every run. When
 * a folder above it may be written by another user (a shared project folder,
 * group- or world-writable without the sticky bit), that user renames the
 * granted folder away between two runs and puts a symlink to a folder of
 * their choosing in its place (the owner's `~/.ssh`, the folder of the HTTP
 * token file, any folder the start-up check would refuse); the next run's
 * bind follows the symlink and the script reads it. The index cache folder
 * refuses exactly this shape (`src/config/index_cache_dir.ts`
 * `swappableAncestor`); the grant folders (and the data folder) do not.
 * Here the test plays the other user.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

const SECRET = "r13-never-granted-secret-5d1c";

Deno.test("attack: a read folder swapped for a symlink between runs never shows a script what it points at", async () => {
  await using tree = await makeTree({
    "skills/reader/SKILL.md": "---\nname: reader\ndescription: Prints its granted note.\n" +
      "mcp-host:\n  version: 1\n  run:\n    - script: scripts/read.sh\n      interpreter: sh\n" +
      "---\n# Reader\n",
    "shared/data/note.txt": "an ordinary note",
    "skills/reader/scripts/read.sh": "",
    "private/note.txt": SECRET,
  });
  const granted = tree.at("shared/data");
  Deno.writeTextFileSync(
    tree.at("skills/reader/scripts/read.sh"),
    `cat "${granted}/note.txt" 2>&1 || true\n`,
  );
  // The project folder another user may write (no sticky bit): the precondition.
  Deno.chmodSync(tree.at("shared"), 0o777);
  Deno.chmodSync(tree.at("private"), 0o700);
  await using connected = await connectStdio(
    ["serve", tree.at("skills"), "--no-config", "--isolation=sandbox"],
    {
      env: {
        MCP_CONFIRM_MODE: "auto",
        MCP_SKILL_RUN: JSON.stringify([
          { skill: "reader", script: "scripts/read.sh", read: [granted] },
        ]),
      },
    },
  );
  const run = async () =>
    JSON.stringify(
      await connected.call("skill_run", { name: "reader", script: "scripts/read.sh" }),
    );
  const first = await run();
  assert.ok(!first.includes(SECRET), first.slice(0, 400));
  // The other user's move: the granted folder away, a symlink in its place.
  Deno.renameSync(granted, join(tree.at("shared"), "data.old"));
  Deno.symlinkSync(tree.at("private"), granted);
  const second = await run();
  assert.ok(
    !second.includes(SECRET),
    `the second run read the folder the swapped-in symlink points at: ${second.slice(0, 600)}\n` +
      connected.stderr().slice(-400),
  );
});
