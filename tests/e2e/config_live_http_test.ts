/**
 * Live overrides over Streamable HTTP: the owner's `skillgate override`
 * reaches every HTTP session at once, the same as over stdio, and a widening
 * edit is reported, not applied. Waits have generous ceilings in seconds.
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { startHttpProgram } from "../support/http_program.ts";
import { Client, StreamableHTTPClientTransport } from "../support/sdk_client.ts";

const CEILING_MS = 20_000;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("HTTP: `override --disable` applies live to a session; `--enable` waits for a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-config-http-" });
  try {
    for (const name of ["alpha", "beta"]) {
      await Deno.mkdir(`${dir}/skills/${name}`, { recursive: true });
      await Deno.writeTextFile(
        `${dir}/skills/${name}/SKILL.md`,
        `---\nname: ${name}\ndescription: The ${name} skill\n---\nSteps.\n`,
      );
    }
    await Deno.mkdir(`${dir}/config/skillgate`, { recursive: true });
    const env = { XDG_CONFIG_HOME: `${dir}/config` };
    await using server = await startHttpProgram(["serve", `${dir}/skills`], { env });
    const client = new Client({ name: "skillgate-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const list = async () => {
        const answer = await client.callTool({ name: "skill_list", arguments: {} });
        return answer.structuredContent as {
          skills: { name: string }[];
          problems: { reason: string; path: string }[];
        };
      };
      assert.deepEqual((await list()).skills.map((s) => s.name), ["alpha", "beta"]);
      const disabled = await runProgram(["override", "alpha", "--disable"], { env });
      assert.equal(disabled.code, 0, disabled.stderr);
      await until("alpha gone", async () => (await list()).skills.every((s) => s.name !== "alpha"));
      const enabled = await runProgram(["override", "alpha", "--enable"], { env });
      assert.equal(enabled.code, 0, enabled.stderr);
      await until(
        "restart-needed",
        async () => (await list()).problems.some((p) => p.reason === "restart-needed"),
      );
      assert.deepEqual((await list()).skills.map((s) => s.name), ["beta"]);
      assert.match(
        server.stderr(),
        /overrides\.json: restart-needed: turning back on alpha\.enabled/,
      );
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
