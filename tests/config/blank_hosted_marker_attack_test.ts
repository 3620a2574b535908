/**
 * Attack (by accident of a host, r12): a host runner writes
 * `MCP_DATA_DIR=${DATA}` (or `-e MCP_SKILLS_PATH=$SKILLS`) and the variable it
 * substitutes is unset, so the marker arrives empty. The host started
 * skillgate all the same; read as "not hosted", every default opens: with no
 * `MCP_SKILL_RUN` each skill's own declaration becomes its grant (scripts run,
 * declared environment values released), the configuration file is trusted
 * whole, host folders are shown to clients. README: hosted "when any of ... is
 * set, even to a placeholder"; a blank value is set too, and a blank
 * `MCP_SKILL_RUN` already fails closed for this reason.
 */
import assert from "node:assert/strict";
import { HOSTED_MARKERS, parseCommandLine } from "../../src/config/cli.ts";
import { grantsAnything, parseGrant } from "../../src/scripts/grant.ts";

Deno.test("attack: a hosted marker set but blank still marks the server hosted, so no declaration runs ungranted", () => {
  for (const name of HOSTED_MARKERS) {
    const env: Record<string, string> = { [name]: "" };
    const config = parseCommandLine({
      args: ["serve", "/skills"],
      getEnv: (variable) => env[variable],
      cwd: "/",
    });
    assert.equal(config.hosted, true, `${name}="" comes from a host`);
    const grant = parseGrant(config.scripts.grantJson, {
      hosted: config.hosted,
      hostedBy: config.hostedBy,
      unsubstituted: config.scripts.unsubstituted,
    });
    assert.equal(grantsAnything(grant), false, `${name}="": no grant, so nothing may run`);
  }
});
