/**
 * End-to-end: `skill_file` serves exactly the files of the skill's listing,
 * the same files `resources/read` serves.
 */

import assert from "node:assert/strict";
import type { FileAnswer, FileErrorAnswer } from "../../../src/mcp/tools/skill_file.ts";
import { connectStdio } from "../../support/program.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

type Entry = FileAnswer | FileErrorAnswer;

function entriesOf(result: { structuredContent?: unknown }): Entry[] {
  return (result.structuredContent as { files: Entry[] }).files;
}

Deno.test("skill_file refuses the 2,001st file past the listing's cap, as resources/read does", async () => {
  const entries: Record<string, string> = { "big-skill/SKILL.md": skillMd("big-skill") };
  for (let i = 0; i < 2_000; i++) {
    entries[`big-skill/f-${String(i).padStart(4, "0")}.txt`] = `file ${i}\n`;
  }
  await using tree = await makeTree(entries);
  await using session = await connectStdio(["serve", tree.path]);
  const result = await session.call("skill_file", {
    name: "big-skill",
    paths: ["f-1999.txt", "f-1998.txt"],
  });
  assert.notEqual(result.isError, true);
  const [past, listed] = entriesOf(result);
  assert.ok(past !== undefined && "error" in past, JSON.stringify(past));
  assert.equal(past.error, "not-listed");
  assert.match(past.message, /"f-1999\.txt" is not in skill "big-skill"'s listing/);
  assert.match(past.message, /stopped at the cap of 2000 files/);
  assert.ok(listed !== undefined && "content" in listed, JSON.stringify(listed));
  assert.equal(listed.content, "file 1998\n");
  await assert.rejects(
    session.client.readResource({ uri: "skill://big-skill/f-1999.txt" }),
    "resources/read refuses the same file",
  );
  const read = await session.client.readResource({ uri: "skill://big-skill/f-1998.txt" });
  assert.equal((read.contents[0] as { text?: string }).text, "file 1998\n");
});

Deno.test("skill_file refuses a file created after the last refresh, as resources/read does", async () => {
  await using tree = await makeTree({
    "demo/SKILL.md": skillMd("demo"),
    "demo/references/guide.md": "guide\n",
  });
  await using session = await connectStdio(["serve", tree.path, "--static"]);
  await Deno.writeTextFile(tree.at("demo/references/late.md"), "planted later\n");
  const result = await session.call("skill_file", {
    name: "demo",
    paths: ["references/late.md", "references/guide.md", "references/never.md"],
  });
  const [late, guide, never] = entriesOf(result);
  assert.ok(late !== undefined && "error" in late);
  assert.equal(late.error, "not-listed");
  assert.match(late.message, /is not in skill "demo"'s listing; call skill_load/);
  assert.ok(!late.message.includes("cap"), "an uncapped listing mentions no cap");
  assert.ok(guide !== undefined && "content" in guide);
  assert.equal(guide.content, "guide\n");
  assert.ok(!JSON.stringify(result).includes("planted later"));
  assert.deepEqual(
    { ...never, message: (never as FileErrorAnswer).message.replace("never.md", "late.md") },
    { ...late, path: "references/never.md" },
    "an unlisted file that exists answers exactly like one that does not",
  );
  await assert.rejects(session.client.readResource({ uri: "skill://demo/references/late.md" }));
});

Deno.test("skill_file still names the path rule for a bad path string, not the listing", async () => {
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo") });
  await using session = await connectStdio(["serve", tree.path]);
  const [dotdot, hidden] = entriesOf(
    await session.call("skill_file", { name: "demo", paths: ["../demo/SKILL.md", ".env"] }),
  );
  assert.equal((dotdot as FileErrorAnswer).error, "bad-path");
  assert.equal((hidden as FileErrorAnswer).error, "bad-path");
});
