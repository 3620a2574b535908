/**
 * Attack (r13, seen and left alone in session 9): the HTTP bearer token file
 * kept under a folder every sandbox mounts whatever the grant (`/usr`, so
 * `/usr/local/etc/skillgate/token`; the fixed `/etc` entries such as
 * `/etc/ssl`) is readable by every granted sandboxed script, which can print
 * it into its answer. Trusted files were checked against grant, data and
 * interpreter folders only. `serve` now warns at start-up
 * (`tokenFileInSystemMount`, `src/sandbox/script_boot.ts`, over
 * `systemMountHolding`, `src/scripts/sandbox/system_mounts.ts`).
 */
import assert from "node:assert/strict";
import { tokenFileInSystemMount } from "../../../src/sandbox/script_boot.ts";
import { systemMountHolding } from "../../../src/scripts/sandbox/system_mounts.ts";
import { makeTree } from "../../skills/_tree.ts";

Deno.test("attack: a token file under /usr or a fixed /etc mount is found, also through a symlink, and the owner is warned", async () => {
  assert.equal(systemMountHolding("/usr/local/etc/skillgate/token"), "/usr");
  assert.equal(systemMountHolding("/etc/ssl/private/skillgate-token"), "/etc/ssl");
  assert.equal(systemMountHolding("/lib/skillgate/token"), "/lib");
  await using tree = await makeTree({
    "private/token": "0123456789abcdef0123456789abcdef",
    // The path says tmp; the file the sandbox shows is under /usr.
    "link-to-usr": { symlink: "/usr/bin" },
  });
  assert.equal(systemMountHolding(tree.at("link-to-usr/env")), "/usr");
  assert.equal(systemMountHolding(tree.at("private/token")), null, "a private folder is fine");
  assert.equal(systemMountHolding("/etc/skillgate/token"), null, "/etc is not mounted whole");
  const warning = tokenFileInSystemMount("/usr/local/etc/skillgate/token") ?? "";
  assert.match(warning, /token file lies in \/usr, which every sandbox mounts/);
  assert.match(warning, /move it to a folder only you can read/);
  assert.equal(tokenFileInSystemMount(tree.at("private/token")), null);
  assert.equal(tokenFileInSystemMount(null), null);
});
