/**
 * Session 10 (h10), end to end: while a hostile process
 * (`tests/support/folder_exchanger.ts`) exchanges a group folder of a root
 * with a symlink to an outside folder in a tight loop (`renameat2` with
 * `RENAME_EXCHANGE`), the real program is started again and again (`serve`,
 * whose cold build discovers the root and whose live watcher then rescans it
 * on the exchanges' events, asked `skill_list` a few times; `list`;
 * `validate`). Discovery read roots and group folders by path, so an outside
 * folder's sub-folder names reached warnings; now every folder is read
 * through a descriptor the kernel places at exactly its real path. No
 * answer, output or stderr may name anything of the outside folder.
 * Bounded: the exchanger runs `RACE_MS`, starts stop at `MAX_STARTS`.
 * Nothing is timed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { connectStdio, REPO_ROOT, runProgram } from "../support/program.ts";

const RACE_MS = 30_000;
const MAX_STARTS = 50;
const TEAM_SKILLS = 20;

Deno.test({
  name:
    "attack: a group folder exchanged with a link to an outside folder in a tight loop while the program starts, rescans, lists and validates never names an outside folder",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-h10-e2e-" }));
    try {
      const root = `${base}/root`;
      const outside = `${base}/outside`;
      const skill = (name: string) =>
        `---\nname: ${name}\ndescription: Skill ${name}\n---\n# ${name}\n`;
      const write = async (path: string, text: string) => {
        await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
        await Deno.writeTextFile(path, text);
      };
      for (let index = 0; index < TEAM_SKILLS; index++) {
        await write(`${root}/team/t${index}/SKILL.md`, skill(`t${index}`));
      }
      await write(`${root}/solo/SKILL.md`, skill("solo"));
      // Every name outside says PRIVATE: a skill folder, an unusable name, a SKILL.md in the
      // wrong case, a folder with no skill, and a skill below the depth cap.
      await write(`${outside}/PRIVATE-skill/SKILL.md`, skill("PRIVATE-skill"));
      await write(`${outside}/PRIVATE bad%name/SKILL.md`, skill("bad"));
      await write(`${outside}/PRIVATE-case/Skill.MD`, skill("PRIVATE-case"));
      await write(`${outside}/PRIVATE-empty/PRIVATE-note.txt`, "outside\n");
      await write(`${outside}/PRIVATE-g1/PRIVATE-g2/PRIVATE-g3/PRIVATE-deep/SKILL.md`, skill("d"));
      await Deno.symlink(outside, `${root}/team.link`);
      const exchanger = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-ffi",
          `${REPO_ROOT}tests/support/folder_exchanger.ts`,
          `${root}/team`,
          `${root}/team.link`,
          String(RACE_MS),
        ],
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const done = exchanger.output();
      let isRunning = true;
      void done.finally(() => isRunning = false);
      const seen = { starts: 0, answers: 0, lists: 0, validates: 0 };
      const assertClean = (text: string, what: string) => {
        assert.ok(!text.includes("PRIVATE"), `${what} names an outside folder: ${text}`);
        assert.ok(!text.includes(outside), `${what} names the outside path: ${text}`);
      };
      try {
        while (isRunning && seen.starts < MAX_STARTS) {
          seen.starts++;
          const env = { XDG_CACHE_HOME: `${base}/cache-${seen.starts}` };
          if (seen.starts % 3 === 1) {
            await using session = await connectStdio(["serve", root], { env });
            // Several answers, so the watcher's rescans after the exchanges' events are asked too.
            for (let round = 0; round < 4 && isRunning; round++) {
              assertClean(JSON.stringify(await session.call("skill_list", {})), "skill_list");
              seen.answers++;
              await new Promise((resolve) => setTimeout(resolve, 300));
            }
            assertClean(session.stderr(), "serve's stderr");
          } else if (seen.starts % 3 === 2) {
            const listed = await runProgram(["list", root], { env });
            assertClean(listed.stdout + listed.stderr, "list");
            seen.lists++;
          } else {
            const validated = await runProgram(["validate", root], { env });
            assertClean(validated.stdout + validated.stderr, "validate");
            seen.validates++;
          }
        }
      } finally {
        const output = await done;
        assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      }
      assert.ok(seen.answers > 0 && seen.lists > 0 && seen.validates > 0, JSON.stringify(seen));
      console.log(`during the exchanges: ${JSON.stringify(seen)}`);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
