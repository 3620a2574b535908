/**
 * Over Streamable HTTP the server answers once its catalog is complete, and
 * its watcher is set up after that (src/worker/entry.ts; ~2 s at 10,000
 * skills here): an edit made between the build's start and the watch being
 * live must still be served, as over stdio
 * (tests/e2e/watch_after_answer_test.ts). The edits land the moment
 * `/readyz` turns 200 (the catalog complete, the watch over its 1,500 skill
 * folders still being set up), in the ways only a catch-up sees: a file added
 * in a skill's existing sub-folder (only that folder's times tell), a
 * SKILL.md rewritten, a new skill folder, a skill folder removed. The real
 * program, the real SDK client; waits have ceilings, nothing is timed.
 */

import assert from "node:assert/strict";
import { freePort, startHttpProgram, until200 } from "../support/http_program.ts";
import { Client, StreamableHTTPClientTransport } from "../support/sdk_client.ts";

const SKILLS = 1_500;
const CEILING_MS = 30_000;

function skillText(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nBody of ${name}.\n`;
}

function skillName(index: number): string {
  return `skill-${String(index).padStart(4, "0")}`;
}

interface Summary {
  name: string;
  description: string;
  files: number;
}

Deno.test({
  name:
    "HTTP: edits made the moment the catalog is complete, before the watch is live (a file added in a skill's sub-folder, a SKILL.md rewritten, a skill folder added and one removed), are all served, and a later edit is served by the watch",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-http-late-" }));
    try {
      for (let index = 0; index < SKILLS; index++) {
        const name = skillName(index);
        Deno.mkdirSync(`${root}/${name}/references`, { recursive: true });
        Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillText(name, `Old ${index}`));
        Deno.writeTextFileSync(`${root}/${name}/references/old.md`, "old\n");
      }
      // Older than the catch-up's slack before the build (CATCH_UP_SLACK_MS): only the edits
      // below count as changed, as on an owner's settled folder.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const deadline = Date.now() + CEILING_MS;
      const port = freePort();
      const starting = startHttpProgram(["serve", root, "--no-index-cache"], { port });
      try {
        await until200(port, "/readyz", deadline);
      } catch (error) {
        await (await starting.catch(() => null))?.stop();
        throw error;
      }
      // At once, no request in between.
      await Deno.writeTextFile(`${root}/skill-0003/references/added.md`, "added\n");
      await Deno.writeTextFile(`${root}/skill-0005/SKILL.md`, skillText("skill-0005", "Rewritten"));
      await Deno.mkdir(`${root}/fresh`);
      await Deno.writeTextFile(
        `${root}/fresh/SKILL.md`,
        skillText("fresh", "Made before the watch"),
      );
      await Deno.remove(`${root}/skill-0007`, { recursive: true });

      await using server = await starting;
      const client = new Client({ name: "skillgate-e2e", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      try {
        const find = async (name: string): Promise<Summary | undefined> => {
          const answer = await client.callTool({ name: "skill_list", arguments: { query: name } });
          const content = answer.structuredContent as { skills: Summary[] };
          return content.skills.find((skill) => skill.name === name);
        };
        const seen = async () => ({
          addedFile: (await find("skill-0003"))?.files === 3,
          rewritten: (await find("skill-0005"))?.description === "Rewritten",
          fresh: (await find("fresh")) !== undefined,
          removed: (await find("skill-0007")) === undefined,
        });
        let last = await seen();
        while (!Object.values(last).every((value) => value)) {
          if (Date.now() > deadline) {
            throw new Error(`not served: ${JSON.stringify(last)}\n${server.stderr()}`);
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
          last = await seen();
        }
        // The watch is live by now: a later edit is served too.
        await Deno.writeTextFile(`${root}/skill-0009/references/later.md`, "later\n");
        while ((await find("skill-0009"))?.files !== 3) {
          if (Date.now() > deadline) throw new Error(`later edit not served\n${server.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal((await find("skill-0000"))?.files, 2, "an untouched skill changed");
      } finally {
        await client.close();
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
