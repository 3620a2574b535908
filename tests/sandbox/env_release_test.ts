import assert from "node:assert/strict";
import { parseGrant } from "../../src/scripts/grant.ts";
import { releasableNames, releaseEnv } from "../../src/sandbox/env_release.ts";
import { MAX_ENV_REQUEST_NAMES } from "../../src/sandbox/messages.ts";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

const ROWS = JSON.stringify([
  { skill: "greedy", script: "scripts/take.sh", env: ["API_KEY"] },
  { skill: "other", script: "scripts/run.sh", env: ["OTHER_SECRET"] },
]);
const ENV: Record<string, string> = {
  API_KEY: "key-value",
  OTHER_SECRET: "other-value",
  MCP_CONFIRM_SECRET: "confirm-secret-value",
  SKILLGATE_HTTP_TOKEN: "token-value",
  LD_PRELOAD: "/tmp/evil.so",
};
const getEnv = (name: string) => ENV[name];

Deno.test("releasableNames() with MCP_SKILL_RUN rows releases only that row's names", () => {
  const grant = parseGrant(ROWS, { hosted: false });
  const ask = (skill: string, script: string, names: string[]) =>
    releasableNames(grant, { skill, script, names });
  assert.deepEqual(ask("greedy", "scripts/take.sh", ["API_KEY", "OTHER_SECRET"]), ["API_KEY"]);
  assert.deepEqual(ask("greedy", "scripts/other.sh", ["API_KEY"]), []);
  assert.deepEqual(ask("ghost", "scripts/take.sh", ["API_KEY"]), []);
  assert.deepEqual(ask("other", "scripts/run.sh", ["API_KEY", "OTHER_SECRET"]), ["OTHER_SECRET"]);
});

Deno.test("releasableNames() hosted without a grant, or with a placeholder grant, releases nothing", () => {
  const hosted = parseGrant(null, { hosted: true, hostedBy: "MCP_SKILLS_PATH" });
  assert.deepEqual(releasableNames(hosted, { skill: "a", script: "s", names: ["API_KEY"] }), []);
  const placeholder = parseGrant(ROWS, { hosted: false, unsubstituted: ["MCP_SKILL_RUN"] });
  assert.deepEqual(
    releasableNames(placeholder, {
      skill: "greedy",
      script: "scripts/take.sh",
      names: ["API_KEY"],
    }),
    [],
  );
});

Deno.test("releasableNames() standalone without a grant never releases skillgate's own settings or loader variables", () => {
  const grant = parseGrant(null, { hosted: false });
  const names = ["API_KEY", "MCP_CONFIRM_SECRET", "SKILLGATE_HTTP_TOKEN", "LD_PRELOAD", "PATH"];
  assert.deepEqual(releasableNames(grant, { skill: "a", script: "s", names }), ["API_KEY"]);
});

Deno.test("attack: an oversized environment request gets nothing at all", () => {
  const grant = parseGrant(ROWS, { hosted: false });
  const names = Array.from({ length: MAX_ENV_REQUEST_NAMES + 1 }, () => "API_KEY");
  assert.deepEqual(
    releasableNames(grant, { skill: "greedy", script: "scripts/take.sh", names }),
    [],
  );
});

Deno.test("releaseEnv() looks values up and leaves unset names out", () => {
  const grant = parseGrant(
    JSON.stringify([{ skill: "a", script: "s", env: ["API_KEY", "UNSET_NAME"] }]),
    {
      hosted: false,
    },
  );
  assert.deepEqual(
    releaseEnv(grant, { skill: "a", script: "s", names: ["API_KEY", "UNSET_NAME"] }, getEnv),
    { API_KEY: "key-value" },
  );
});

Deno.test("attack: a worker that claims a declaration it lacks gets no wider run list and no environment value", async () => {
  // The skill declares no script and no environment name; the hostile worker claims otherwise.
  await using tree = await makeTree({
    "greedy/SKILL.md": "---\nname: greedy\ndescription: Declares nothing at all.\n---\nBody\n",
  });
  const grant = JSON.stringify([{ skill: "greedy", script: "scripts/take.sh", env: ["API_KEY"] }]);
  const env = {
    API_KEY: "granted-value",
    OTHER_SECRET: "never-released",
    MCP_CONFIRM_SECRET: "a-confirm-secret-of-32-characters-",
  };
  const run = async (roots: string[], extra: Record<string, string>) => {
    const result = await runProgram(["serve", "--isolation=group", ...roots], {
      entry: "tests/support/env_claim_main.ts",
      env: { ...env, ...extra },
    });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
      run: string[];
      replies: Record<string, string>[];
    };
  };
  const granted = await run([tree.path], { MCP_SKILL_RUN: grant });
  // The run list is the one group launcher, decided from the grant before the worker existed.
  assert.equal(granted.run.length, 1);
  assert.match(granted.run[0] ?? "", /\/(sh|setpriv)$/);
  assert.deepEqual(granted.replies, [
    { API_KEY: "granted-value" }, // only what the owner's row names, not OTHER_SECRET
    {}, // a skill that does not exist
    {}, // another script of the granted skill
    {}, // skillgate's own secret, and PATH (a base name, handed at start, never released)
  ]);
  const hosted = await run([], { MCP_SKILLS_PATH: tree.path });
  assert.deepEqual(hosted.run, []);
  assert.deepEqual(hosted.replies, [{}, {}, {}, {}]);
});
