/**
 * The container recipe's leak (n8): with the bearer token in
 * `SKILLGATE_HTTP_TOKEN` and scripts running as the same user without a PID
 * namespace, a parent started with the same environment (tini as a
 * container's PID 1) keeps the token where a script can read it. skillgate
 * says so at start-up and names the file option; with the token in a file it
 * says nothing.
 */

import assert from "node:assert/strict";
import { startHttpProgram } from "../support/http_program.ts";
import { makeTree } from "../skills/_tree.ts";

const TOKEN = "container-bearer-token-0123456789abcdef";

async function scriptedRoot() {
  const tree = await makeTree({
    "skills/hello/SKILL.md":
      "---\nname: hello\ndescription: Says hello.\nmcp-host:\n  version: 1\n" +
      "  run:\n    - script: scripts/hi.sh\n      interpreter: sh\n---\n# Hello\n",
    "skills/hello/scripts/hi.sh": "echo hi\n",
    "token": `${TOKEN}\n`,
  });
  await Deno.chmod(tree.at("token"), 0o600);
  return tree;
}

Deno.test("attack: the token in SKILLGATE_HTTP_TOKEN with process-group scripts is named at start-up, with the file to use instead", async () => {
  await using tree = await scriptedRoot();
  await using server = await startHttpProgram(["serve", tree.at("skills"), "--isolation=group"], {
    env: { SKILLGATE_HTTP_TOKEN: TOKEN },
  });
  const stderr = server.stderr();
  assert.match(stderr, /bearer token came in SKILLGATE_HTTP_TOKEN.*\/proc\/PID\/environ/);
  assert.match(stderr, /--http-token-file or SKILLGATE_HTTP_TOKEN_FILE/);
  assert.ok(!stderr.includes(TOKEN), "the token itself is never printed");
});

Deno.test("a token given as a file (or scripts that cannot run) brings no such line", async () => {
  await using tree = await scriptedRoot();
  await using fromFile = await startHttpProgram(
    ["serve", tree.at("skills"), "--isolation=group", `--http-token-file=${tree.at("token")}`],
  );
  assert.doesNotMatch(fromFile.stderr(), /bearer token came in SKILLGATE_HTTP_TOKEN/);
  await using noScripts = await startHttpProgram(
    ["serve", tree.at("skills"), "--isolation=group"],
    {
      env: { SKILLGATE_HTTP_TOKEN: TOKEN, MCP_SKILL_RUN: "[]" },
    },
  );
  assert.doesNotMatch(noScripts.stderr(), /bearer token came in SKILLGATE_HTTP_TOKEN/);
});
