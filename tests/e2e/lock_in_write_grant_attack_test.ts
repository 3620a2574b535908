/**
 * Attack (r12): a sandboxed script granted `write` on a project folder (the
 * usual grant for a formatter or a generator) rewrites `skillgate.lock` there.
 * The lock decides which commit of each remote source is fetched and served
 * ("only content matching the lock is served under a lock"), so the script
 * re-pins a source to a commit of its choosing (an older one of the same
 * repository, or a commit of a fork: GitHub serves a fork network's commits
 * through the parent's API) with matching digests; the next `sync` or
 * `serve --frozen` serves it, and the owner's grant rows for that remote skill
 * then run its scripts. The configuration file and overrides.json are already
 * files no mounted folder may hold (`grant_folders.ts`); the lock is not.
 */
import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

Deno.test("attack: a grant's write folder holding the lock file in use is refused", async () => {
  await using tree = await makeTree({
    "skills/tool/SKILL.md": "---\nname: tool\ndescription: Formats.\nmcp-host:\n  version: 1\n" +
      "  run:\n    - script: scripts/run.sh\n      interpreter: sh\n---\nBody\n",
    "skills/tool/scripts/run.sh": "echo hi\n",
    "project/skillgate.lock": '{"lockVersion":1,"sources":[]}\n',
    "cache/.keep": "",
  });
  const result = await runProgram([
    "list",
    tree.at("skills"),
    "--json",
    "--no-config",
    `--lock=${tree.at("project/skillgate.lock")}`,
    "--source=github:acme/skills",
    "--github-allow=acme",
  ], {
    env: {
      XDG_CACHE_HOME: tree.at("cache"),
      MCP_SKILL_RUN: JSON.stringify([
        { skill: "tool", script: "scripts/run.sh", write: [tree.at("project")] },
      ]),
    },
  });
  assert.equal(result.code, 0, result.stderr);
  const listed = JSON.parse(result.stdout) as {
    problems: { reason: string; detail: string }[];
    skills: { name: string; scripts?: unknown[] }[];
  };
  const grantProblems = listed.problems.filter((problem) => problem.reason === "grant");
  assert.ok(
    grantProblems.some((problem) => /write folder #0 is refused/.test(problem.detail)),
    `the row is granted with the lock inside its write folder: ${JSON.stringify(listed.skills)}`,
  );
});
