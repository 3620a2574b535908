/**
 * Attack (r11 on s25): a look-alike twin added while the server runs (live
 * refresh) is refused like one present at start: `pdf` and Cyrillic `рdf`
 * are never both served, and the problem names both.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 20_000;
const TWIN = "\u0440df";

Deno.test("attack: a Cyrillic look-alike of a served name added live is refused with it", async () => {
  const root = await Deno.makeTempDir({ prefix: "r11-lookalike-live-" });
  try {
    for (const name of ["pdf", "other"]) {
      await Deno.mkdir(join(root, name));
      await Deno.writeTextFile(
        join(root, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: The ${name} skill.\n---\nBody.\n`,
      );
    }
    await using session = await connectStdio(["serve", root]);
    await Deno.mkdir(join(root, TWIN));
    await Deno.writeTextFile(
      join(root, TWIN, "SKILL.md"),
      `---\nname: ${TWIN}\ndescription: The twin.\n---\nBody.\n`,
    );
    const deadline = Date.now() + CEILING_MS;
    let listed: { skills: { name: string }[]; problems: { reason: string; detail: string }[] };
    for (;;) {
      listed = (await session.call("skill_list", {})).structuredContent as typeof listed;
      const names = listed.skills.map((skill) => skill.name);
      assert.ok(!(names.includes("pdf") && names.includes(TWIN)), `both served: ${names}`);
      if (listed.problems.some((problem) => problem.reason === "duplicate-name")) break;
      if (Date.now() > deadline) throw new Error(`no duplicate-name within ${CEILING_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const names = listed.skills.map((skill) => skill.name);
    assert.deepEqual(names, ["other"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
