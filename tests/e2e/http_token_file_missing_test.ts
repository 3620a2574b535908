/**
 * The first thing a newcomer meets with the README's example `config.json`
 * (it names `~/.config/skillgate/token`): the token file does not exist yet.
 * The program says what is wrong and the command that fixes it (review s15 L6).
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

Deno.test("serve --http with a missing token file exits 2 and prints the command that creates it", async () => {
  await using tree = await makeTree({ "skills/pdf/SKILL.md": skillMd("pdf") });
  const token = tree.at("sg/token");
  const run = await runProgram([
    "serve",
    "--http",
    `--http-token-file=${token}`,
    tree.at("skills"),
  ]);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(
    run.stderr.trim(),
    `skillgate: The HTTP token file "${token}" does not exist; create it: ` +
      `mkdir -p ${tree.at("sg")} && openssl rand -hex 32 > ${token} && chmod 600 ${token}`,
  );
});
