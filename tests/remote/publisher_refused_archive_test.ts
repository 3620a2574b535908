/**
 * The real program with a publisher whose archive skillgate refuses (a
 * member climbing out with `..`): `sync` and `serve` must say the archive
 * was refused, why, and what to do, never that the source cannot be reached.
 */

import { join } from "node:path";
import { connectStdio, runProgram } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { publishSkills, startFakePublisher } from "../support/fake_publisher.ts";
import { assertEquals } from "./_assert.ts";

const md = `---\nname: pdf\ndescription: The pdf skill.\n---\nUse it.\n`;

function assertSaysRefused(text: string, kind: string): void {
  assertEquals(text.includes(`the archive of skill "pdf" was refused`), true, `${kind}: ${text}`);
  assertEquals(text.includes(`member "../evil" climbs out`), true, `${kind}: ${text}`);
  assertEquals(text.includes("ask the publisher to fix it"), true, `${kind}: ${text}`);
  assertEquals(/can(not)? be reached/.test(text), false, `${kind}: ${text}`);
}

Deno.test("a publisher's refused archive is reported as refused, with why and what to do, by sync and serve", async (t) => {
  for (const as of ["zip", "tar.gz"] as const) {
    await t.step(`a .${as} with a ../ member`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "skillgate-refused-archive-" });
      try {
        await using pub = startFakePublisher();
        await publishSkills(pub, [{ name: "pdf", as, files: { "SKILL.md": md, "../evil": "x" } }]);
        const env = { XDG_CACHE_HOME: join(dir, "cache") };
        const args = [
          `--source=${pub.base}`,
          `--well-known-allow=${pub.origin}`,
          `--lock=${join(dir, "skillgate.lock")}`,
        ];
        const sync = await runProgram(["sync", ...args], { env });
        assertEquals(sync.code, 1, sync.stderr);
        assertSaysRefused(sync.stderr, "sync");
        assertEquals(sync.stderr.includes("(unsafe-archive)"), true, sync.stderr);
        assertEquals(sync.stderr.includes("once what is named above is fixed"), true, sync.stderr);

        await using session = await connectStdio(["serve", ...args], { env });
        const list = toolJson(await session.call("skill_list", {})) as {
          problems: { reason: string; detail: string }[];
        };
        const problem = list.problems.find((entry) => entry.reason === "remote-unavailable");
        assertSaysRefused(problem?.detail ?? JSON.stringify(list.problems), "serve");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});
