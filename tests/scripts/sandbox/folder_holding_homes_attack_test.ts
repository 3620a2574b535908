/**
 * Attack (r12): a folder that HOLDS home folders (`/home`) is mounted into the
 * sandbox. The rule (`isForbiddenFolder()`, `src/scripts/sandbox/grant_folders.ts`;
 * ARCHITECTURE "no mounted folder (grant, MCP_DATA_DIR, prefix) exposes root,
 * home, skillgate, `/`") refuses `/` and a home folder itself, but a folder
 * around a home exposes every home below it (`~/.ssh`, keyrings) exactly as
 * mounting the home would.
 */
import assert from "node:assert/strict";
import {
  isForbiddenFolder,
  type ProtectedFolders,
} from "../../../src/scripts/sandbox/grant_folders.ts";
import { interpreterFoldersOf } from "../../../src/scripts/sandbox/system_mounts.ts";
import { makeTree } from "../../skills/_tree.ts";

/** Roots outside /home, as on a server that keeps skills under /srv. */
const FOLDERS: ProtectedFolders = {
  roots: ["/srv/skills"],
  homes: ["/home/alice", "/home/bob", "/root"],
  skillgate: ["/opt/skillgate"],
};

Deno.test("attack: a grant read/write folder holding every home (/home) is refused", () => {
  assert.notEqual(
    isForbiddenFolder("/home", FOLDERS),
    null,
    "/home holds /home/alice and /home/bob",
  );
});

Deno.test("attack: MCP_DATA_DIR or an interpreter prefix holding a home (/var around /var/lib/svc) is refused", () => {
  const folders: ProtectedFolders = { ...FOLDERS, homes: ["/var/lib/svc", "/root"] };
  assert.notEqual(isForbiddenFolder("/var", folders, { mayHoldIndexCache: true }), null);
  assert.notEqual(isForbiddenFolder("/var/lib", folders), null);
});

Deno.test("a folder beside the homes, or inside one below its top, keeps being allowed", () => {
  assert.equal(isForbiddenFolder("/home/alice/projects/app", FOLDERS), null);
  assert.equal(isForbiddenFolder("/data", FOLDERS), null);
});

Deno.test("attack: an interpreter directly in a home folder never mounts the folder holding every home", async () => {
  await using tree = await makeTree({ "home/me/python3": "#!/bin/sh\n", "home/you/.ssh/id": "x" });
  const real = Deno.realPathSync(tree.path);
  const folders: ProtectedFolders = {
    roots: ["/srv/skills"],
    homes: [`${real}/home/me`, `${real}/home/you`],
    skillgate: [],
  };
  const mounted = interpreterFoldersOf(`${real}/home/me/python3`, folders);
  for (const folder of mounted) {
    assert.ok(
      !`${real}/home/you/.ssh`.startsWith(`${folder}/`),
      `${folder} is mounted: it holds another home`,
    );
  }
});
