/**
 * Attack (r13, on the G2 fix): G2's rule (a folder bound by path at every
 * run must have no parent another user may write, `swapRisk` in
 * `src/scripts/sandbox/grant_folders.ts`) now guards the grant folders and
 * `MCP_DATA_DIR`, but not the third door into a sandbox: an interpreter's
 * folder (`interpreterFoldersOf`, `src/scripts/sandbox/system_mounts.ts`),
 * bound read-only by path at every run (a virtual environment, a shared
 * conda or pyenv tree). When a folder above it may be written by another
 * user (a shared `envs` folder, group-writable without the sticky bit), that
 * user renames the environment away between runs and puts a symlink to the
 * owner's home in its place: the next run mounts the home at the
 * environment's path, and every sandboxed script of the owner (not only the
 * other user's code) can read `~/.ssh` there.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { protectedFoldersOf } from "../../../src/scripts/sandbox/grant_folders.ts";
import { interpreterFoldersOf } from "../../../src/scripts/sandbox/system_mounts.ts";
import { makeTree } from "../../skills/_tree.ts";

Deno.test("attack: an interpreter folder under a parent another user may write is never bound into a sandbox", async () => {
  await using tree = await makeTree({
    "shared/envs/py/bin/python3": "#!/bin/sh\n",
    "skills/tool/SKILL.md": "---\nname: tool\ndescription: A tool.\n---\n",
  });
  const program = tree.at("shared/envs/py/bin/python3");
  Deno.chmodSync(program, 0o755);
  // The shared folder another user (the group, or everyone) may write: the precondition.
  Deno.chmodSync(tree.at("shared/envs"), 0o777);
  const folders = protectedFoldersOf({
    roots: [tree.at("skills")],
    installDir: "/nonexistent/skillgate-install",
    getEnv: () => undefined,
    configPath: null,
  });
  const swappable = Deno.realPathSync(tree.at("shared/envs"));
  const bound = interpreterFoldersOf(program, folders);
  assert.ok(
    !bound.some((folder) => folder.startsWith(`${swappable}/`)),
    `bound by path at every run under ${swappable} (mode 0777, no sticky bit): ` +
      `${JSON.stringify(bound)}; the interpreter itself is ${dirname(program)}/python3`,
  );
});
