/**
 * A large catalog over stdio (issue 13): `initialize` is answered once the
 * skill folders are estimated (a stat of the root), before they are walked or
 * loaded; the instructions say the catalog is loading; `skill_list` answers from the complete catalog; and an
 * edit made right after connecting is served (the watcher starts after the
 * first answer, followed by a catch-up rescan). Waits have a ceiling in
 * seconds; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";

const SKILLS = 1_000;
const CEILING_MS = 60_000;

function skillMd(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nBody text.\n`;
}

Deno.test("a catalog of 1,000 skills: initialize is answered while it loads, skill_list serves all of it, and an edit made right after connecting is served", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-early-" });
  try {
    for (let i = 0; i < SKILLS; i++) {
      const name = `s${String(i).padStart(4, "0")}`;
      await Deno.mkdir(`${root}/${name}`);
      await Deno.writeTextFile(`${root}/${name}/SKILL.md`, skillMd(name, `Skill number ${i}.`));
    }
    await using session = await connectStdio(["--no-index-cache", root]);
    const instructions = session.client.getInstructions() ?? "";
    assert.match(instructions, /\(about 1000 skill folders\) was still loading/);
    // Right after connecting: the first skill (loaded first) gets a new description.
    await Deno.writeTextFile(`${root}/s0000/SKILL.md`, skillMd("s0000", "Edited right away."));
    const first = await session.call("skill_list", { limit: 1 });
    assert.equal((first.structuredContent as { total: number }).total, SKILLS);
    const deadline = Date.now() + CEILING_MS;
    let description = "";
    while (description !== "Edited right away.") {
      assert.ok(Date.now() < deadline, `the edit was not served within ${CEILING_MS} ms`);
      const answer = await session.call("skill_list", { limit: 1 });
      const skills = (answer.structuredContent as { skills: { description: string }[] }).skills;
      description = skills[0]?.description ?? "";
      if (description !== "Edited right away.") await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a catalog of 1,000 skills in group folders (the root's own folders do not show its size): initialize is still answered while it loads, once discovery counted them", async () => {
  const root = await Deno.makeTempDir({ prefix: "skillgate-early-groups-" });
  try {
    for (let i = 0; i < SKILLS; i++) {
      const name = `s${String(i).padStart(4, "0")}`;
      const dir = `${root}/group-${i % 10}/${name}`;
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/SKILL.md`, skillMd(name, `Skill number ${i}.`));
    }
    await using session = await connectStdio(["--no-index-cache", root]);
    const instructions = session.client.getInstructions() ?? "";
    assert.match(instructions, /\(about 1000 skill folders\) was still loading/);
    const listed = await session.call("skill_list", { limit: 1 });
    assert.equal((listed.structuredContent as { total: number }).total, SKILLS);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name:
    "a catalog of 1,000 skills over stdio: a file added in a skill's sub-folder the moment the catalog is complete, before the watch is live, is served (the catch-up reloads skills whose folders changed)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-early-sub-" }));
    try {
      for (let i = 0; i < SKILLS; i++) {
        const name = `s${String(i).padStart(4, "0")}`;
        await Deno.mkdir(`${root}/${name}/references`, { recursive: true });
        await Deno.writeTextFile(`${root}/${name}/SKILL.md`, skillMd(name, `Skill number ${i}.`));
        await Deno.writeTextFile(`${root}/${name}/references/old.md`, "old\n");
      }
      // Older than the catch-up's slack before the build (CATCH_UP_SLACK_MS): only the edit below
      // counts as a change, as on an owner's settled folder.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await using session = await connectStdio(["--no-index-cache", root]);
      const filesOf = async (name: string): Promise<number | undefined> => {
        const answer = await session.call("skill_list", { query: name });
        const skills = (answer.structuredContent as { skills: { name: string; files: number }[] })
          .skills;
        return skills.find((skill) => skill.name === name)?.files;
      };
      // Answered once the catalog is complete; the watch waits for a pause in requests after it.
      assert.equal(await filesOf("s0003"), 2);
      await Deno.writeTextFile(`${root}/s0003/references/added.md`, "added\n");
      const deadline = Date.now() + CEILING_MS;
      while ((await filesOf("s0003")) !== 3) {
        assert.ok(Date.now() < deadline, `the added file was not served within ${CEILING_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await filesOf("s0004"), 2, "an untouched skill changed");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
