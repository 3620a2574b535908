/**
 * Review r10 (issue 13, s22: the 12-skill first answer): whatever start-up
 * work moves after the `initialize` answer (the watcher, with a catch-up
 * check), an edit made right after connecting must be seen. Each round starts
 * the real program over stdio on a small catalog and, the moment the client
 * is connected (the answer and `initialized` exchanged), or (every other
 * round) at a spread of delays after the spawn (0-600 ms: before, during and
 * after the build, the answer and the watch), edits the catalog in these ways at once:
 * - a SKILL.md rewritten with another description (another size);
 * - a SKILL.md rewritten IN PLACE with the same size, its modification time
 *   put back (only the change time tells: a catch-up by size and mtime misses it);
 * - a new skill folder made;
 * - a skill folder removed;
 * - a SKILL.md that did not parse at the build, fixed;
 * - a SKILL.md added to a folder that held none (no skill at the build);
 * - a new skill in a group folder (`team/newer/SKILL.md` beside `team/inner/`);
 * - a file added to a skill's existing sub-folder (only that folder's times tell).
 * Every edit must reach `skill_list` / `resources/list` (bounded wait; nothing is timed).
 */

import assert from "node:assert/strict";
import { type Connected, connectStdio } from "../support/program.ts";

const ROUNDS = 10;
const CEILING_MS = 20_000;

function skillText(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nBody of ${name}.\n`;
}

interface Listed {
  skills: { name: string; description: string }[];
}

async function listed(session: Connected): Promise<Listed> {
  return (await session.call("skill_list", { limit: 1000 })).structuredContent as unknown as Listed;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not seen within ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test({
  name:
    "attack: edits made the moment the client is connected (rewrite, same-size in-place rewrite with mtime put back, new and removed folders, a broken SKILL.md fixed, a SKILL.md added to a plain folder, a new skill in a group, a file added in a sub-folder) are all served",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r10-edit-" }));
      try {
        for (let index = 0; index < 12; index++) {
          const name = `skill-${index}`;
          await Deno.mkdir(`${root}/${name}`);
          await Deno.writeTextFile(
            `${root}/${name}/SKILL.md`,
            skillText(name, `Old ${index} aaaa`),
          );
        }
        await Deno.writeTextFile(
          `${root}/skill-4/SKILL.md`,
          "---\nname: skill-4\ndescription: [broken\n---\n",
        );
        await Deno.mkdir(`${root}/later`);
        await Deno.writeTextFile(`${root}/later/notes.md`, "not a skill yet\n");
        await Deno.mkdir(`${root}/team/inner`, { recursive: true });
        await Deno.writeTextFile(`${root}/team/inner/SKILL.md`, skillText("inner", "Inner"));
        await Deno.mkdir(`${root}/skill-3/references`);
        await Deno.writeTextFile(`${root}/skill-3/references/old.md`, "old\n");
        // Older than any racy window (2 s): the versions the build reads are settled.
        await new Promise((resolve) => setTimeout(resolve, 2_200));
        const samePath = `${root}/skill-1/SKILL.md`;
        const before = await Deno.stat(samePath);
        const connecting = connectStdio(["serve", root, "--tools=always", "--no-index-cache"]);
        // Odd rounds: the moment the client is connected. Even rounds: while the program starts,
        // at a spread of delays after the spawn (before, during and after the build and the watch).
        const delayMs = round % 2 === 1 ? null : (round / 2) * 150;
        if (delayMs !== null) await new Promise((resolve) => setTimeout(resolve, delayMs));
        else await connecting;
        await Deno.writeTextFile(
          `${root}/skill-0/SKILL.md`,
          skillText("skill-0", "Rewritten zero"),
        );
        {
          using file = await Deno.open(samePath, { write: true });
          const same = new TextEncoder().encode(skillText("skill-1", "Old 1 bbbb"));
          assert.equal(same.length, before.size);
          await file.write(same);
        }
        await Deno.utime(samePath, before.atime!, before.mtime!);
        await Deno.mkdir(`${root}/fresh`);
        await Deno.writeTextFile(
          `${root}/fresh/SKILL.md`,
          skillText("fresh", "Made after connect"),
        );
        await Deno.remove(`${root}/skill-2`, { recursive: true });
        await Deno.writeTextFile(`${root}/skill-4/SKILL.md`, skillText("skill-4", "Fixed four"));
        await Deno.writeTextFile(`${root}/later/SKILL.md`, skillText("later", "Now a skill"));
        await Deno.mkdir(`${root}/team/newer`);
        await Deno.writeTextFile(`${root}/team/newer/SKILL.md`, skillText("newer", "Grouped"));
        await Deno.writeTextFile(`${root}/skill-3/references/new.md`, "new\n");
        const after = await Deno.stat(samePath);
        assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
        assert.equal(after.size, before.size);

        await using session = await connecting;
        const seen = (list: Listed, uris: string[]) => ({
          rewritten: list.skills.find((s) => s.name === "skill-0")?.description ===
            "Rewritten zero",
          inPlace: list.skills.find((s) => s.name === "skill-1")?.description === "Old 1 bbbb",
          fresh: list.skills.some((s) => s.name === "fresh"),
          removed: !list.skills.some((s) => s.name === "skill-2"),
          fixed: list.skills.find((s) => s.name === "skill-4")?.description === "Fixed four",
          later: list.skills.some((s) => s.name === "later"),
          grouped: list.skills.some((s) => s.name === "newer"),
          addedFile: uris.includes("skill://skill-3/references/new.md"),
        });
        let last: ReturnType<typeof seen> | null = null;
        try {
          await until("all the edits", async () => {
            const resources = await session.client.listResources();
            last = seen(await listed(session), resources.resources.map((r) => r.uri));
            return Object.values(last).every((value) => value);
          });
        } catch (error) {
          throw new Error(`round ${round}: ${JSON.stringify(last)}`, { cause: error });
        }
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    }
  },
});
