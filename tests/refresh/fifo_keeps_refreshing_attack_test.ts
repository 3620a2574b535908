/**
 * Attack (r13, on branch h2's watch isolate; run it there): FIFOs made in a
 * watched root one after another (anyone who may write a skill folder can
 * make them), each holding a watcher thread, while the owner goes on
 * editing. h2 replaces a stuck watch isolate and falls back to polling past
 * its bound; the guarantee to pin is the owner's: every later edit is still
 * served (bounded by a generous ceiling; nothing is timed), over more stuck
 * watchers than the replacement bound.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 60_000;
const SKILL = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`;

Deno.test("attack: FIFOs made one after another in a watched root never stop later edits from being served", async () => {
  const root = await Deno.makeTempDir({ prefix: "r13-fifo-refresh-" });
  const fifos: string[] = [];
  try {
    await Deno.mkdir(join(root, "alpha"));
    await Deno.writeTextFile(join(root, "alpha", "SKILL.md"), SKILL("alpha", "Edit 0."));
    await using session = await connectStdio(["serve", root]);
    const description = async () => {
      const answer = await session.call("skill_list", {});
      const skills = (answer.structuredContent as {
        skills: { name: string; description: string }[];
      }).skills;
      return skills.find((skill) => skill.name === "alpha")?.description ?? "";
    };
    try {
      for (let round = 1; round <= 6; round++) {
        const fifo = join(root, "alpha", `pipe-${round}`);
        const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
        assert.equal(made.code, 0);
        fifos.push(fifo);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await Deno.writeTextFile(
          join(root, "alpha", "SKILL.md"),
          SKILL("alpha", `Edit ${round}.`),
        );
        const until = Date.now() + CEILING_MS;
        let seen = await description();
        while (seen !== `Edit ${round}.` && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          seen = await description();
        }
        assert.equal(seen, `Edit ${round}.`, `edit ${round} (after ${round} FIFOs) not served`);
      }
    } finally {
      // Unblocks whatever opened the FIFOs, so the server can always end.
      for (const fifo of fifos) {
        const handle = await Deno.open(fifo, { read: true, write: true });
        handle.close();
      }
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
