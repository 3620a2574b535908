/**
 * Attack (by accident of a host, r13; the r12 F4/F5 kind, for the
 * confirmation variables): a host writes `MCP_CONFIRM_MODE=${MODE}` (or
 * `-e MCP_CONFIRM_TTL_SECONDS=$TTL`) and substitutes an unset variable, so the
 * value arrives empty. A placeholder in either refuses every script
 * (`scriptSettings`, `src/config/cli.ts`: "a variable that grants, keys or
 * authenticates something fails closed"), and a blank `MCP_SKILL_RUN` grants
 * nothing for exactly this reason; a blank confirmation variable instead
 * reads as unset: `ask-user` where the owner may have meant `refuse`, a
 * 600 s confirmation token where they meant a shorter one.
 */
import assert from "node:assert/strict";
import { parseCommandLine } from "../../src/config/cli.ts";
import { grantsAnything, parseGrant } from "../../src/scripts/grant.ts";

const GRANT = JSON.stringify([{ skill: "tool", script: "scripts/run.sh" }]);

Deno.test("attack: MCP_CONFIRM_MODE or MCP_CONFIRM_TTL_SECONDS set but blank refuses every script, as a placeholder does", () => {
  for (const name of ["MCP_CONFIRM_MODE", "MCP_CONFIRM_TTL_SECONDS"]) {
    for (const blank of ["", "  "]) {
      const env: Record<string, string> = { MCP_SKILL_RUN: GRANT, [name]: blank };
      const config = parseCommandLine({
        args: ["serve", "/skills"],
        getEnv: (variable) => env[variable],
        cwd: "/",
      });
      const grant = parseGrant(config.scripts.grantJson, {
        hosted: config.hosted,
        hostedBy: config.hostedBy,
        unsubstituted: config.scripts.unsubstituted,
      });
      assert.equal(
        grantsAnything(grant),
        false,
        `${name}=${JSON.stringify(blank)} (a host substituting an unset variable) still runs ` +
          `scripts, with confirm mode ${config.scripts.confirmMode} and a ` +
          `${config.scripts.confirmTtlSeconds} s token`,
      );
    }
  }
});
