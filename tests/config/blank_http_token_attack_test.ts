/**
 * Attack (by accident of a host, r12): `-e SKILLGATE_HTTP_TOKEN=$TOKEN` (or a
 * client's `${env:TOKEN}` that the host substitutes) with TOKEN unset arrives
 * as an empty value. The owner meant to authenticate HTTP clients; read as
 * "unset", skillgate serves on loopback with no token at all, so every local
 * user reads every skill served. Session 8 made a blank `MCP_SKILL_RUN` fail
 * closed for exactly this reason (`from: "blank"`); the variables that
 * authenticate must not be weaker than the one that grants.
 */
import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "../../src/config/cli.ts";

function parse(env: Record<string, string>, args: string[]) {
  return parseCommandLine({ args, getEnv: (name) => env[name], cwd: "/" });
}

Deno.test("attack: a blank HTTP token variable stops an HTTP start instead of serving without a token", () => {
  for (const name of ["SKILLGATE_HTTP_TOKEN", "SKILLGATE_HTTP_TOKEN_FILE"]) {
    for (const blank of ["", "  "]) {
      assert.throws(
        () => parse({ [name]: blank }, ["serve", "/skills", "--http=18801"]),
        UsageError,
        `${name}=${JSON.stringify(blank)} over HTTP`,
      );
    }
    // On stdio no token is used, so a blank one changes nothing.
    assert.equal(parse({ [name]: "" }, ["serve", "/skills"]).httpToken, null, `${name} on stdio`);
  }
});

Deno.test("--http-token=VALUE is refused with where a token goes, and the value is never echoed", () => {
  for (const arg of ["--http-token=s3cret-value", "--token=s3cret-value"]) {
    assert.throws(
      () => parse({}, ["serve", "/skills", "--http=18801", arg]),
      (error: Error) =>
        error instanceof UsageError && !error.message.includes("s3cret-value") &&
        /SKILLGATE_HTTP_TOKEN/.test(error.message) && /--http-token-file/.test(error.message),
    );
  }
});
