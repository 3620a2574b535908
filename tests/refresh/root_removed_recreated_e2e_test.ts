/**
 * Review r15 (session 10, branch h7: live refresh over inotify in the
 * trusted part): a root removed whole and made again under its path (a
 * checkout re-cloned, a folder restored from a backup). The kernel drops
 * every watch of the old folders (IN_DELETE_SELF, IN_IGNORED), so nothing
 * watches the new one unless live refresh plans its watch again; a skill
 * added to the new root, and an edit of it afterwards, must still be served.
 * Run on main too (Deno.watchFs there). The waits are generous bounds.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 60_000;

function skillText(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nDo the thing.\n`;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

Deno.test("a root removed and made again: skills added to it and edits of them are served", async () => {
  const dir = await Deno.makeTempDir({ prefix: "r15-root-again-" });
  const root = `${dir}/skills`;
  try {
    await Deno.mkdir(`${root}/first`, { recursive: true });
    await Deno.writeTextFile(`${root}/first/SKILL.md`, skillText("first", "One"));
    await using session = await connectStdio(["serve", root]);
    const listed = async () => {
      const answer = await session.call("skill_list", { limit: 100 });
      return (answer.structuredContent as { skills: { name: string; description: string }[] })
        .skills;
    };
    assert.deepEqual((await listed()).map((skill) => skill.name), ["first"]);
    await Deno.remove(root, { recursive: true });
    await until("the removed root's skill gone", async () => (await listed()).length === 0);
    await Deno.mkdir(`${root}/second`, { recursive: true });
    await Deno.writeTextFile(`${root}/second/SKILL.md`, skillText("second", "Two"));
    await until(
      "a skill in the root made again",
      async () => (await listed()).some((skill) => skill.name === "second"),
    );
    await Deno.writeTextFile(`${root}/second/SKILL.md`, skillText("second", "Edited"));
    await until(
      "an edit in the root made again",
      async () => (await listed()).some((skill) => skill.description === "Edited"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
