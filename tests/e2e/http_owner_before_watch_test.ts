/**
 * Over Streamable HTTP the owner's changes apply from the moment the catalog
 * is complete, before the watcher is set up (src/worker/entry.ts; the set-up
 * takes ~2 s at 10,000 skills here). Both invariants of the owner's files
 * must hold on that path: an overrides.json edit made after start-up read the
 * files is in force for the very first tool call (review r17, hB-1), and a
 * catalog cap the owner lowered before the watch is live rebuilds the catalog
 * once it is. The edits land once `/healthz` answers (the worker serves, so
 * start-up's read is over) and the first call goes out the moment `/readyz`
 * turns 200 (the watch over 1,500 skill folders still being set up). The
 * real program, the real SDK client; waits have ceilings, nothing is timed.
 */

import assert from "node:assert/strict";
import { freePort, startHttpProgram, until200 } from "../support/http_program.ts";
import { Client, StreamableHTTPClientTransport } from "../support/sdk_client.ts";

const SKILLS = 1_500;
const LOWERED_MAX_SKILLS = 1_000;
const CEILING_MS = 30_000;

function skillText(name: string): string {
  return `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\nSteps.\n`;
}

Deno.test({
  name:
    "HTTP: an overrides.json edit made while the catalog loads is in force for the very first tool call, and a cap lowered before the watch is live rebuilds the catalog",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-http-owner-" }));
    try {
      const root = `${dir}/skills`;
      for (let index = 0; index < SKILLS; index++) {
        const name = `skill-${String(index).padStart(4, "0")}`;
        Deno.mkdirSync(`${root}/${name}/references`, { recursive: true });
        Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillText(name));
      }
      Deno.mkdirSync(`${root}/alpha`);
      Deno.writeTextFileSync(`${root}/alpha/SKILL.md`, skillText("alpha"));
      const folder = `${dir}/config/skillgate`;
      await Deno.mkdir(folder, { recursive: true });
      const deadline = Date.now() + CEILING_MS;
      const port = freePort();
      const starting = startHttpProgram(["serve", root, "--no-index-cache"], {
        port,
        env: { XDG_CONFIG_HOME: `${dir}/config`, XDG_CACHE_HOME: `${dir}/cache` },
      });
      let first: { names: string[]; total: number } | null = null;
      try {
        await until200(port, "/healthz", deadline);
        await Deno.writeTextFile(
          `${folder}/overrides.json`,
          JSON.stringify({ skills: { alpha: { enabled: false } } }),
        );
        await Deno.writeTextFile(
          `${folder}/config.json`,
          JSON.stringify({ maxSkills: LOWERED_MAX_SKILLS }),
        );
        await until200(port, "/readyz", deadline);
        const client = new Client({ name: "skillgate-e2e", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
        );
        try {
          const list = async () => {
            const answer = await client.callTool({
              name: "skill_list",
              arguments: { query: "alpha" },
            });
            const content = answer.structuredContent as { skills: { name: string }[] };
            const all = await client.callTool({ name: "skill_list", arguments: { limit: 1 } });
            return {
              names: content.skills.map((skill) => skill.name),
              total: (all.structuredContent as { total: number }).total,
            };
          };
          first = await list();
          assert.deepEqual(first.names, [], "a skill the owner turned off was served");
          let last = first;
          while (last.total > LOWERED_MAX_SKILLS) {
            if (Date.now() > deadline) {
              throw new Error(`the lowered cap was not applied: ${JSON.stringify(last)}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 100));
            last = await list();
          }
          assert.deepEqual(last.names, [], "the rebuild served a skill the owner turned off");
        } finally {
          await client.close();
        }
      } finally {
        const server = await starting.catch(() => null);
        const stderr = server?.stderr() ?? "";
        await server?.stop();
        if (first === null) console.error(stderr);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
