/**
 * End-to-end: a script declares and is granted environment names that are
 * not set where skillgate runs. The preview the user confirms must not list
 * them as passed; it names them as unset, and the run does not receive them.
 * Driven by the real SDK client over stdio against the real program.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";

const SKILL = "env-demo";

async function makeSkillRoot(): Promise<{ root: string } & AsyncDisposable> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-unset-env-" });
  const dir = join(base, "skills", SKILL);
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: A script with declared environment names.\n` +
      "mcp-host:\n  version: 1\n  run:\n" +
      "    - script: scripts/names.sh\n      interpreter: sh\n" +
      "      env: [DEMO_SET, DEMO_UNSET]\n---\n# Env demo\n",
  );
  await Deno.writeTextFile(
    join(dir, "scripts/names.sh"),
    'echo "set=${DEMO_SET-absent} unset=${DEMO_UNSET-absent}"\n',
  );
  return {
    root: join(base, "skills"),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

Deno.test("skill_run preview names declared environment variables that are unset, and does not list them as passed", async () => {
  await using tree = await makeSkillRoot();
  await using session = await connectStdio(["serve", tree.root], {
    env: {
      MCP_SKILL_RUN: JSON.stringify([
        { skill: SKILL, script: "scripts/names.sh", env: ["DEMO_SET", "DEMO_UNSET"] },
      ]),
      DEMO_SET: "here",
    },
  });
  const first = toolJson(
    await session.call("skill_run", { name: SKILL, script: "scripts/names.sh" }),
  );
  assert.equal(first.status, "confirmation-required", JSON.stringify(first));
  const preview = first.preview as {
    willRun: { envNames: string[] };
    envUnset?: string[];
    note: string;
  };
  assert.ok(preview.willRun.envNames.includes("DEMO_SET"), JSON.stringify(preview));
  assert.ok(!preview.willRun.envNames.includes("DEMO_UNSET"), JSON.stringify(preview));
  assert.deepEqual(preview.envUnset, ["DEMO_UNSET"]);
  assert.match(preview.note, /DEMO_UNSET/);
  assert.match(preview.note, /not set/);

  const ran = toolJson(
    await session.call("skill_run", {
      name: SKILL,
      script: "scripts/names.sh",
      confirmToken: String(first.confirmToken),
    }),
  );
  assert.equal(ran.status, "completed", JSON.stringify(ran));
  assert.equal(ran.stdout, "set=here unset=absent\n");
  assert.ok(!(ran.env as string[]).includes("DEMO_UNSET"));
  assert.ok((ran.env as string[]).includes("DEMO_SET"));
});
