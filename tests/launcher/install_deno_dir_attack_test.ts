/**
 * The launcher's `deno install --frozen` (node_modules missing or older than
 * deno.lock) and the Deno cache it reads (r9 review of s19): deno install
 * copies (or links) each package from `DENO_DIR/npm` without checking it
 * against deno.lock's integrity again, so whoever may write that cache
 * chooses the npm code node_modules gets, which the bundle then holds and the
 * program runs. Reproduced by hand (uid 1000, umask 002, group `users`): a
 * member of the group swapped `~/.cache/deno/npm` (the folder 775, as Deno
 * made it under umask 002) for a copy with a line added to zod; after the
 * next install the served process printed it. Here a `deno` wrapper on PATH
 * records the cache `deno install` was given, with a Deno cache in HOME that
 * the group may write.
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { REPO_ROOT } from "../support/program.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

const REAL_DENO = `${REPO_ROOT}.tools/node_modules/deno/deno`;

Deno.test("attack: deno install never fills node_modules from a Deno cache others may write (a group-writable ~/.cache/deno under umask 002)", async () => {
  await using checkout = await checkoutCopy("skillgate-r9-install-", "checkout");
  const root = checkout.root;
  // No pinned deno (PATH's wrapper runs) and no node_modules (the launcher installs).
  await Deno.remove(`${root}/.tools/node_modules`);
  await Deno.remove(`${root}/node_modules`);
  const work = await Deno.makeTempDir({ prefix: "skillgate-r9-install-work-" });
  try {
    await Deno.chmod(work, 0o755); // (the group can reach HOME, as on a shared machine)
    const log = `${work}/install-deno-dir`;
    await Deno.mkdir(`${work}/bin`);
    // deno install: records DENO_DIR and makes an empty node_modules (nothing fetched); deno
    // bundle fails (the sources then run and fail: no packages); the rest is the real Deno.
    await Deno.writeTextFile(
      `${work}/bin/deno`,
      `#!/bin/sh\ncase $1 in\ninstall) printf '%s\\n' "\${DENO_DIR-}" >'${log}'; mkdir -p node_modules; exit 0 ;;\n` +
        `bundle) exit 1 ;;\nesac\nexec '${REAL_DENO}' "$@"\n`,
      { mode: 0o755 },
    );
    const home = `${work}/home`;
    await Deno.mkdir(`${home}/.cache/deno`, { recursive: true });
    await Deno.chmod(home, 0o755);
    await Deno.chmod(`${home}/.cache`, 0o775);
    await Deno.chmod(`${home}/.cache/deno`, 0o775); // as Deno makes it under umask 002
    await runLauncher(`${root}/skillgate`, ["--version"], {
      cwd: root,
      umask: "002",
      env: {
        PATH: `${work}/bin:${launcherEnv().PATH}`,
        HOME: home,
        XDG_CACHE_HOME: `${home}/.cache`,
        DENO_DIR: "",
      },
    });
    const given = (await Deno.readTextFile(log)).trim();
    // Deno's default when DENO_DIR is unset or empty: $XDG_CACHE_HOME/deno.
    const used = given === "" ? `${home}/.cache/deno` : given;
    const info = await Deno.stat(used);
    assert.equal(
      info.mode! & 0o022,
      0,
      `deno install read npm packages from ${used} (mode ${(info.mode! & 0o777).toString(8)}), ` +
        "which the group may write",
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
