/**
 * Review r6 (issue 13, s13's listing pass): a cold first build of a catalog
 * large enough for the digest isolate, under a lower descriptor limit
 * (`ulimit -n 256`; distributions' soft limit is often 1,024, some
 * launchers' lower), must serve every skill with every file: the isolate's
 * listing pass holds descriptors while their locations are checked, and
 * with 256 of them held at once the worker's own SKILL.md opens met EMFILE
 * (17 to 97 of 1,100 skills left out at 300) and its folder reads too (a
 * skill served without its files). Nothing here measures speed.
 */

import assert from "node:assert/strict";
import { openSession } from "../../bench/support/servers.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

const SKILLS = 1_100;
const FILES_PER_SKILL = 24;

Deno.test({
  name:
    "attack: under ulimit -n 256 the cold first build with the digest isolate serves every skill and lists every file",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r6-fds-" }));
    try {
      const root = `${base}/root`;
      for (let index = 0; index < SKILLS; index++) {
        const name = `s${String(index).padStart(4, "0")}`;
        Deno.mkdirSync(`${root}/${name}/refs`, { recursive: true });
        Deno.writeTextFileSync(
          `${root}/${name}/SKILL.md`,
          `---\nname: ${name}\ndescription: Skill ${index}\n---\nbody\n`,
        );
        for (let file = 0; file < FILES_PER_SKILL; file++) {
          Deno.writeTextFileSync(`${root}/${name}/refs/f${file}.md`, `${file} of ${index}\n`);
        }
      }
      await Deno.mkdir(`${base}/cache`, { mode: 0o700 });
      const args = programCommand(["serve", root, "--index-cache", `${base}/cache`]);
      const session = await openSession({
        executable: "/bin/sh",
        args: ["-c", 'ulimit -n 256 && exec "$0" "$@"', Deno.execPath(), ...args],
        cwd: REPO_ROOT,
        env: programEnv(),
      });
      try {
        const answer = await session.child.request("tools/call", {
          name: "skill_list",
          arguments: { limit: 1 },
        });
        const listed = (answer.result as {
          structuredContent: { total: number; problems: { reason: string; detail: string }[] };
        }).structuredContent;
        assert.deepEqual(listed.problems.slice(0, 3), [], "problems the catalog should not have");
        assert.equal(listed.total, SKILLS);
        let cursor: string | undefined;
        let files = 0;
        do {
          const page = (await session.child.request(
            "skills/list",
            cursor === undefined ? {} : { cursor },
          )).result as { skills: { resources: unknown[] }[]; nextCursor?: string };
          files += page.skills.reduce((sum, skill) => sum + skill.resources.length, 0);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        assert.equal(files, SKILLS * (FILES_PER_SKILL + 1), "files left out of the manifests");
      } finally {
        await session.child.close(5_000);
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
