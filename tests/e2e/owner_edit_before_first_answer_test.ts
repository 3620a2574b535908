/**
 * The owner-file watch opens after the first answer (issue 13,
 * src/config/file/deferred_owner_watch.ts): an owner's edit made after
 * start-up read the files but before that answer must still apply. Review
 * r17, hB-1: it must be in force for the very first tool call (every tool
 * call waits until the trusted part read both files once), not only once the
 * watch is live. Waits have ceilings in seconds; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";
import { OWNER_SERVING_CEILING_MS, skillListRequest, startOwnerServing } from "./_owner_serving.ts";

/**
 * The serving program, with `listed(id)`: the skills the answer to
 * `skill_list` call `id` names; `turnAlphaOff()` writes the owner's edit.
 */
async function serving() {
  const server = await startOwnerServing("skillgate-owner-before-answer-");
  return Object.assign(server, {
    deadline: Date.now() + OWNER_SERVING_CEILING_MS,
    async listed(id: number): Promise<string[]> {
      const answer = await server.answer(id);
      const content = answer.result?.structuredContent as
        | { skills: { name: string }[] }
        | undefined;
      return content?.skills.map((skill) => skill.name) ?? [];
    },
    turnAlphaOff: () =>
      Deno.writeTextFile(
        `${server.folder}/overrides.json`,
        JSON.stringify({ skills: { alpha: { enabled: false } } }),
      ),
  });
}

const skillList = skillListRequest;

Deno.test("an overrides.json edit made before the first answer applies once the owner-file watch is live", async () => {
  await using server = await serving();
  await server.turnAlphaOff();
  await server.send(INITIALIZE);
  assert.ok((await server.answer(1)).result !== undefined, "initialize was not answered");
  await server.send(INITIALIZED);
  let id = 1;
  let names: string[] = [];
  while (Date.now() < server.deadline) {
    id++;
    await server.send(skillList(id));
    names = await server.listed(id);
    if (!names.includes("alpha")) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(names, ["beta"], `the edit was not applied: ${server.log.stderr}`);
});

Deno.test("attack (r17 hB-1): an overrides.json edit that turns a skill off before the first answer is in force for the very first tool call, sent with initialize", async () => {
  await using server = await serving();
  await server.turnAlphaOff();
  // All at once: the tool call reaches the worker before the owner files' watch is open.
  await server.send(INITIALIZE, INITIALIZED, skillList(2));
  assert.deepEqual(await server.listed(2), ["beta"], `a turned-off skill was served`);
});
