/**
 * Attack (r11 on s24): a SKILL.md body edited twice within one second,
 * keeping its size and with its modification time put back each time (as an
 * editor or `touch -r` can), must still be searched by its newest body:
 * `skill_search` finds the newest word and no longer the replaced one. The
 * real program over stdio; waits are bounded, nothing is timed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type Connected, connectStdio } from "../support/program.ts";

const CEILING_MS = 20_000;

async function found(session: Connected, word: string): Promise<boolean> {
  const answer = await session.call("skill_search", { query: word });
  const results = (answer.structuredContent as { results?: { name: string }[] }).results ?? [];
  return results.some((result) => result.name === "palette");
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${CEILING_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("attack: same-size body edits within one second with the mtime put back are searched by the newest body", async () => {
  const root = await Deno.makeTempDir({ prefix: "r11-search-" });
  try {
    const path = join(root, "palette", "SKILL.md");
    await Deno.mkdir(join(root, "palette"));
    const text = (word: string) =>
      `---\nname: palette\ndescription: Colours for slides.\n---\nUse ${word} here.\n`;
    await Deno.writeTextFile(path, text("aardvarkx"));
    const mtime = (await Deno.stat(path)).mtime!;
    await using session = await connectStdio(["serve", root]);
    await until("the first body", () => found(session, "aardvarkx"));
    for (const word of ["bbisonxxx", "ccamelxxx"]) {
      assert.equal(text(word).length, text("aardvarkx").length);
      await Deno.writeTextFile(path, text(word));
      await Deno.utime(path, mtime, mtime);
    }
    await until("the newest body", () => found(session, "ccamelxxx"));
    // A later sync (another skill's edit) must not bring an older body back.
    await Deno.mkdir(join(root, "other"));
    await Deno.writeTextFile(join(root, "other", "SKILL.md"), text("ddingoxxx"));
    await until("the other skill", async () => {
      const answer = await session.call("skill_search", { query: "ddingoxxx" });
      return JSON.stringify(answer.structuredContent).includes("other");
    });
    assert.equal(await found(session, "ccamelxxx"), true, "newest body searched");
    assert.equal(await found(session, "aardvarkx"), false, "first body still searched");
    assert.equal(await found(session, "bbisonxxx"), false, "middle body still searched");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
