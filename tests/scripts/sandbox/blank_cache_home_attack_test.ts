/**
 * Attack (r13; the blank/placeholder kind of r12 F4/F5, in the mount check):
 * `XDG_CACHE_HOME` set but empty (a host substituting an unset variable), a
 * placeholder, or relative. The XDG rule, which Deno (its `DENO_DIR`) and
 * skillgate's sources cache (`src/remote/sources_cache.ts`) follow, ignores
 * such a value and uses `$HOME/.cache`. The mount check's list of
 * skillgate's own folders (`protectedFoldersOf`,
 * `src/scripts/sandbox/grant_folders.ts`) takes it with `??` instead: the base
 * is not absolute, so neither `$HOME/.cache/skillgate` (the remote sources
 * cache: the files served and run as remote skills) nor `$HOME/.cache/deno`
 * (Deno's cache: code the trusted part loads at its next start) is
 * protected, and a `write` row on `$HOME/.cache` (inside a home, below its
 * top: otherwise allowed) mounts both into a sandbox read-write.
 */
import assert from "node:assert/strict";
import { parseGrant } from "../../../src/scripts/grant.ts";
import {
  checkGrantFolders,
  protectedFoldersOf,
} from "../../../src/scripts/sandbox/grant_folders.ts";
import { makeTree } from "../../skills/_tree.ts";

Deno.test("attack: with XDG_CACHE_HOME blank, a placeholder or relative, a write folder holding $HOME/.cache/skillgate and Deno's cache is refused", async () => {
  await using tree = await makeTree({
    "home/.cache/skillgate/sources/README": "the remote sources cache",
    "home/.cache/deno/README": "Deno's cache",
    "skills/tool/SKILL.md": "---\nname: tool\ndescription: A tool.\n---\n",
  });
  const home = Deno.realPathSync(tree.at("home"));
  const grant = parseGrant(
    JSON.stringify([{ skill: "tool", script: "scripts/run.sh", write: [`${home}/.cache`] }]),
    { hosted: false },
  );
  for (const xdgCacheHome of [undefined, "", "${XDG_CACHE_HOME}", "relative/cache"]) {
    const env: Record<string, string | undefined> = { HOME: home, XDG_CACHE_HOME: xdgCacheHome };
    const folders = protectedFoldersOf({
      roots: [tree.at("skills")],
      installDir: "/nonexistent/skillgate-install",
      getEnv: (name) => env[name],
      configPath: null,
    });
    const verdicts = checkGrantFolders(grant, folders);
    assert.ok(
      verdicts.some((verdict) => verdict.index === 0 && "refused" in verdict),
      `XDG_CACHE_HOME=${JSON.stringify(xdgCacheHome)}: ${home}/.cache (holding skillgate's ` +
        `sources cache and Deno's cache) is granted: ${JSON.stringify(verdicts)}`,
    );
  }
});
