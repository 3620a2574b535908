/**
 * Attack (r13, on the r12 F9 fix): the remote sources' lock file is a file no
 * mounted folder may hold (`protectedFoldersOf` `trustedFiles`,
 * `src/scripts/sandbox/grant_folders.ts`), compared on its path AND its real
 * path. A lock that does not exist yet (remote sources configured, `sync`
 * not run yet; `serve` reads no lock and runs unpinned) has no real path:
 * `realOrSelf` falls back to the lexical path. When the project folder is
 * reached through a symlink (`~/proj -> /data/proj`), a `write` row naming the
 * real folder holds the future lock but passes the check; a sandboxed script
 * then creates `skillgate.lock` pinning each source at a commit of its
 * choosing, which the next `sync`/`serve --frozen` trusts. The index cache
 * check resolves a missing path through its nearest existing ancestor
 * (`plannedRealPath`, `src/config/index_cache_dir.ts`); this one does not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseGrant } from "../../../src/scripts/grant.ts";
import {
  checkGrantFolders,
  protectedFoldersOf,
} from "../../../src/scripts/sandbox/grant_folders.ts";
import { makeTree } from "../../skills/_tree.ts";

Deno.test("attack: a write folder that will hold the lock file (not made yet, reached through a symlink) is refused", async () => {
  await using tree = await makeTree({
    "data/proj/README.md": "a project",
    "home/proj": { symlink: "../data/proj" },
    "skills/tool/SKILL.md": "---\nname: tool\ndescription: A tool.\n---\n",
  });
  const real = Deno.realPathSync(tree.at("data/proj"));
  const folders = protectedFoldersOf({
    roots: [tree.at("skills")],
    installDir: "/nonexistent/skillgate-install",
    getEnv: () => undefined,
    configPath: null,
    // As script_boot passes it: the configured lock path, here through the symlink.
    trustedFiles: [join(tree.at("home/proj"), "skillgate.lock")],
  });
  const grant = parseGrant(
    JSON.stringify([{ skill: "tool", script: "scripts/run.sh", write: [real] }]),
    { hosted: false },
  );
  const verdicts = checkGrantFolders(grant, folders);
  assert.ok(
    verdicts.some((verdict) => verdict.index === 0 && "refused" in verdict),
    `the write folder ${real} is where ${
      join(tree.at("home/proj"), "skillgate.lock")
    } will be made: ${JSON.stringify(verdicts)}`,
  );
});
