/**
 * Review r10, end to end: while a hostile author's process
 * (`tests/support/r8_swapper.ts`) exchanges skills' `references` folders
 * with symlinks to a folder outside the root in a tight loop (`renameat2`
 * with `RENAME_EXCHANGE`), the real program is started again and again (each
 * a cold build that lists every skill folder, the live watcher then
 * rebuilding on the exchanges' events) and asked `resources/list` (every
 * page), `skills/list` and `skill_list`. No answer, and nothing on stderr,
 * may name a file of the outside folder or carry its size: the listing reads
 * each folder through its descriptor and keeps it only where the kernel
 * places it at exactly its path. Bounded: the swapper runs `RACE_MS`, starts
 * stop at `MAX_STARTS`. Nothing is timed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { looseRequest } from "../support/loose_request.ts";
import { connectStdio, REPO_ROOT } from "../support/program.ts";

const SKILLS = 40;
const RACE_MS = 10_000;
const MAX_STARTS = 12;
const OUTSIDE_SIZE = 7_777;

Deno.test({
  name:
    "attack: folders exchanged with a link to an outside folder in a tight loop while the program lists never put an outside name or size in resources/list, skills/list, skill_list or stderr",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r10-e2e-" }));
    try {
      const root = `${base}/root`;
      const outside = `${base}/outside`;
      await Deno.mkdir(`${outside}/refs/PRIVATE-sub`, { recursive: true });
      await Deno.writeTextFile(`${outside}/refs/PRIVATE-outside-name.md`, "x".repeat(OUTSIDE_SIZE));
      await Deno.writeTextFile(`${outside}/refs/guide.md`, "y".repeat(OUTSIDE_SIZE));
      await Deno.writeTextFile(`${outside}/refs/PRIVATE-sub/PRIVATE-deeper.md`, "z");
      const names = Array.from({ length: SKILLS }, (_, index) => `x${index}`);
      for (const name of names) {
        await Deno.mkdir(`${root}/${name}/references`, { recursive: true });
        await Deno.writeTextFile(
          `${root}/${name}/SKILL.md`,
          `---\nname: ${name}\ndescription: Inside skill ${name}\n---\n# ${name}\n`,
        );
        await Deno.writeTextFile(`${root}/${name}/references/guide.md`, `inside ${name}\n`);
        await Deno.writeTextFile(`${root}/${name}/notes.md`, `notes ${name}\n`);
      }
      const swapper = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-ffi",
          `${REPO_ROOT}tests/support/r8_swapper.ts`,
          root,
          outside,
          String(RACE_MS),
          ...names.map((name) => `+${name}`),
        ],
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const done = swapper.output();
      let isRunning = true;
      void done.finally(() => isRunning = false);
      const seen = { starts: 0, answers: 0 };
      const assertClean = (text: string, what: string) => {
        assert.ok(!text.includes("PRIVATE"), `${what} names an outside file: ${text}`);
        assert.ok(!text.includes(outside), `${what} names the outside folder: ${text}`);
        assert.ok(!text.includes(String(OUTSIDE_SIZE)), `${what} carries an outside size: ${text}`);
      };
      try {
        while (isRunning && seen.starts < MAX_STARTS) {
          seen.starts++;
          await using session = await connectStdio(["serve", root], {
            env: { XDG_CACHE_HOME: `${base}/cache-${seen.starts}` },
          });
          for (let round = 0; round < 5 && isRunning; round++) {
            let cursor: string | undefined;
            for (let page = 0; page < 100; page++) {
              const listed = await session.client.listResources(
                cursor === undefined ? {} : { cursor },
              );
              assertClean(JSON.stringify(listed), "resources/list");
              seen.answers++;
              cursor = listed.nextCursor;
              if (cursor === undefined) break;
            }
            assertClean(
              JSON.stringify(await looseRequest(session.client, "skills/list", {})),
              "skills/list",
            );
            assertClean(JSON.stringify(await session.call("skill_list", {})), "skill_list");
            seen.answers += 2;
          }
          assertClean(session.stderr(), "stderr");
        }
      } finally {
        const output = await done;
        assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      }
      assert.ok(seen.starts > 0 && seen.answers > 0, JSON.stringify(seen));
      console.log(`${seen.starts} starts, ${seen.answers} listing answers during the exchanges`);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
