/**
 * Live refresh end to end, review n7 (05:12): every door agrees on a skill
 * whose SKILL.md broke while served. The real program over stdio with the
 * SDK client (`--tools=always`, so skill_load and skill_file are offered).
 * Waits have a generous ceiling; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { looseRequest } from "../support/loose_request.ts";
import { type Connected, connectStdio } from "../support/program.ts";

const CEILING_MS = 20_000;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function skillText(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;
}

interface Listed {
  skills: { name: string; description: string }[];
  problems: { path: string; reason: string; detail: string }[];
}

async function listed(session: Connected): Promise<Listed> {
  return (await session.call("skill_list", { limit: 1000 })).structuredContent as unknown as Listed;
}

async function codeOf(request: Promise<unknown>): Promise<number | "answered"> {
  try {
    await request;
    return "answered";
  } catch (error) {
    return (error as { code: number }).code;
  }
}

async function makeRoot(): Promise<{ root: string; outside: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "skillgate-lastgood-" });
  const outside = await Deno.makeTempDir({ prefix: "skillgate-outside-" });
  for (const name of ["palette", "other"]) {
    await Deno.mkdir(`${root}/${name}`);
    await Deno.writeTextFile(
      `${root}/${name}/SKILL.md`,
      skillText(name, `Good ${name}`, "GOOD BODY"),
    );
  }
  await Deno.writeTextFile(
    `${outside}/SKILL.md`,
    skillText("palette", "Outside", "OUTSIDE SECRET BODY"),
  );
  return {
    root,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test("live refresh: a SKILL.md that stops parsing is served by no door, while its last good catalog entry stays", async () => {
  await using dirs = await makeRoot();
  await using session = await connectStdio(["serve", dirs.root, "--tools=always"]);
  const path = `${dirs.root}/palette/SKILL.md`;
  await Deno.writeTextFile(
    path,
    "---\nname: palette\ndescription: [broken\n---\nNEW BROKEN BODY\n",
  );
  await until(
    "the problem",
    async () =>
      (await listed(session)).problems.some((p) =>
        p.reason === "malformed-frontmatter" && p.path.endsWith("palette/SKILL.md")
      ),
  );
  const now = await listed(session);
  assert.equal(now.skills.find((s) => s.name === "palette")?.description, "Good palette");

  const loaded = await session.call("skill_load", { name: "palette" });
  assert.equal(loaded.isError, true);
  const loadedText = JSON.stringify(loaded.content);
  assert.match(loadedText, /SKILL_UNAVAILABLE/);
  assert.doesNotMatch(loadedText, /NEW BROKEN BODY/);

  const file = await session.call("skill_file", { name: "palette", paths: ["SKILL.md"] });
  const fileText = JSON.stringify(file.structuredContent ?? file.content);
  assert.doesNotMatch(fileText, /NEW BROKEN BODY/);
  assert.match(fileText, /not-found/);

  const uri = "skill://palette/SKILL.md";
  assert.equal(await codeOf(session.client.readResource({ uri })), -32602);
  assert.equal(await codeOf(session.client.getPrompt({ name: "palette" })), -32602);
  assert.equal(await codeOf(looseRequest(session.client, "skills/get", { uri })), -32602);

  const other = await session.call("skill_load", { name: "other" });
  assert.notEqual(other.isError, true, "the other skill is untouched");

  await Deno.writeTextFile(path, skillText("palette", "Fixed palette", "FIXED BODY"));
  await until("the fix", async () => {
    const answer = await session.call("skill_load", { name: "palette" });
    return answer.isError !== true && JSON.stringify(answer.structuredContent).includes("FIXED");
  });
  const prompt = await session.client.getPrompt({ name: "palette" });
  assert.match(JSON.stringify(prompt.messages), /FIXED BODY/);
});

Deno.test("attack: live refresh drops a skill whose SKILL.md is swapped for a symlink leading outside it, from every door", async () => {
  await using dirs = await makeRoot();
  await using session = await connectStdio(["serve", dirs.root, "--tools=always"]);
  // The watch is live first (an edit of another skill is served): a swap in the first few
  // hundred ms after connecting can be missed (an open finding), and this test is about the
  // doors' answers once the swap is seen.
  await Deno.writeTextFile(`${dirs.root}/other/SKILL.md`, skillText("other", "Live", "LIVE"));
  await until(
    "the watch to serve an edit",
    async () => (await listed(session)).skills.some((s) => s.description === "Live"),
  );
  const path = `${dirs.root}/palette/SKILL.md`;
  await Deno.remove(path);
  await Deno.symlink(`${dirs.outside}/SKILL.md`, path);
  await until(
    "palette to leave the catalog",
    async () => !(await listed(session)).skills.some((s) => s.name === "palette"),
  );
  const now = await listed(session);
  assert.ok(
    now.problems.some((p) => p.reason === "symlink-escape" && p.path.endsWith("palette/SKILL.md")),
    JSON.stringify(now.problems),
  );
  const loaded = await session.call("skill_load", { name: "palette" });
  assert.equal(loaded.isError, true);
  assert.match(JSON.stringify(loaded.content), /SKILL_NOT_FOUND/);
  const uri = "skill://palette/SKILL.md";
  assert.equal(await codeOf(session.client.readResource({ uri })), -32602);
  assert.equal(await codeOf(session.client.getPrompt({ name: "palette" })), -32602);
  const prompts = await session.client.listPrompts();
  assert.ok(!prompts.prompts.some((p) => p.name === "palette"));
  const resources = await session.client.listResources();
  assert.ok(!resources.resources.some((r) => r.uri.startsWith("skill://palette/")));
  assert.doesNotMatch(session.stderr(), /OUTSIDE SECRET BODY/);

  await Deno.remove(path);
  await Deno.writeTextFile(path, skillText("palette", "Back", "BACK BODY"));
  await until(
    "palette to come back",
    async () => (await listed(session)).skills.some((s) => s.name === "palette"),
  );
  const back = await session.call("skill_load", { name: "palette" });
  assert.match(JSON.stringify(back.structuredContent), /BACK BODY/);
});

Deno.test("attack: a SKILL.md swapped for a symlink leading outside right after connecting is seen, and the skill leaves every door", async () => {
  await using dirs = await makeRoot();
  await using session = await connectStdio(["serve", dirs.root, "--tools=always"]);
  // No wait for the watch: ARCHITECTURE, "an edit made right after connecting is seen".
  const path = `${dirs.root}/palette/SKILL.md`;
  await Deno.remove(path);
  await Deno.symlink(`${dirs.outside}/SKILL.md`, path);
  await until(
    "palette to leave the catalog",
    async () => !(await listed(session)).skills.some((s) => s.name === "palette"),
  );
  const now = await listed(session);
  assert.ok(
    now.problems.some((p) => p.reason === "symlink-escape" && p.path.endsWith("palette/SKILL.md")),
    JSON.stringify(now.problems),
  );
  assert.equal(await codeOf(session.client.getPrompt({ name: "palette" })), -32602);
  assert.doesNotMatch(session.stderr(), /OUTSIDE SECRET BODY/);
});
