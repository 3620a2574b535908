/**
 * review r18, r18-4 through the real `serve`: the owner's configuration
 * folder removed and made again, then swapped whole (a sync tool's atomic
 * replace), each time with a narrowing edit in the new folder: the skill
 * turned off leaves the list, and nothing says the edits wait for a restart.
 * Every wait has a generous ceiling; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 30_000;

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function writeSkill(root: string, name: string): Promise<void> {
  await Deno.mkdir(`${root}/${name}`, { recursive: true });
  await Deno.writeTextFile(
    `${root}/${name}/SKILL.md`,
    `---\nname: ${name}\ndescription: Skill ${name} for the folder test\n---\n# ${name}\n`,
  );
}

Deno.test({
  name:
    "attack (r18, r18-4): serve's configuration folder removed and made again, then swapped whole: each narrowing edit in the new folder is applied live",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "skillgate-r18-folder-" });
    try {
      const root = `${dir}/skills`;
      for (const name of ["alpha", "beta", "gamma"]) await writeSkill(root, name);
      const folder = `${dir}/cfg/skillgate`;
      const config = JSON.stringify({ roots: [root] });
      await Deno.mkdir(folder, { recursive: true });
      await Deno.writeTextFile(`${folder}/config.json`, config);
      await using session = await connectStdio(["serve"], {
        env: { XDG_CONFIG_HOME: `${dir}/cfg` },
      });
      const names = async () =>
        ((await session.call("skill_list", { limit: 100 })).structuredContent as {
          skills: { name: string }[];
        }).skills.map((skill) => skill.name).sort();
      assert.deepEqual(await names(), ["alpha", "beta", "gamma"]);
      // The owner watch opens after the first answer: wait until an edit is applied live.
      await Deno.writeTextFile(`${folder}/overrides.json`, "{}");
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      // Removed whole and made again (a restore), with beta turned off in the new folder.
      await Deno.remove(folder, { recursive: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await Deno.mkdir(folder);
      await Deno.writeTextFile(`${folder}/config.json`, config);
      await Deno.writeTextFile(
        `${folder}/overrides.json`,
        JSON.stringify({ skills: { beta: { enabled: false } } }),
      );
      await until("beta out of the list", async () => !(await names()).includes("beta"));

      // Swapped whole at once, gamma turned off too in the new folder.
      await Deno.mkdir(`${folder}.new`);
      await Deno.writeTextFile(`${folder}.new/config.json`, config);
      await Deno.writeTextFile(
        `${folder}.new/overrides.json`,
        JSON.stringify({ skills: { beta: { enabled: false }, gamma: { enabled: false } } }),
      );
      await Deno.rename(folder, `${folder}.old`);
      await Deno.rename(`${folder}.new`, folder);
      await until("gamma out of the list", async () => !(await names()).includes("gamma"));
      assert.deepEqual(await names(), ["alpha"]);
      assert.doesNotMatch(session.stderr(), /not applied live/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
