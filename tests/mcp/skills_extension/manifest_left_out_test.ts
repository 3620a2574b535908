/**
 * A file listed in the snapshot that becomes a link (or unreadable, or goes)
 * after start cannot be hashed, so its skill's manifest would be incomplete
 * (newcomer review, session 6). SEP-2640 ("Resources") says an entry's
 * `resources` array MUST be complete and has no mark for an incomplete one:
 * the entry is left out of `skills/list` (a partial listing is allowed) and
 * `skills/get` answers an internal error (-32603, "Error Handling") saying to
 * ask again after the refresh, never an incomplete array a host would trust.
 * Through the real SDK client.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { createCatalogStore } from "../../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";
import { connectInMemory } from "./_connect.ts";

/** The URIs of a `skills/list` or `skills/get` entry's resources, sorted. */
function resourceUris(entry: unknown): string[] {
  const resources = (entry as { resources: { uri: string }[] }).resources;
  return resources.map((resource) => resource.uri).sort();
}

Deno.test("attack: a listed file made a link after start: its skill is left out of skills/list and skills/get says to ask again, never an incomplete manifest", async () => {
  await using tree = await makeTree({
    "demo/SKILL.md": skillMd("demo"),
    "demo/notes.md": "notes\n",
    "other/SKILL.md": skillMd("other"),
    "outside.md": "not the skill's\n",
  });
  const roots = [{ path: tree.path, from: "argument" as const }];
  const store = createCatalogStore(await buildCatalog(roots, DEFAULT_CAPS));
  await using session = await connectInMemory(store);
  // After the snapshot: the listed file becomes a link out of the skill.
  await Deno.remove(tree.at("demo/notes.md"));
  await Deno.symlink(tree.at("outside.md"), tree.at("demo/notes.md"));

  const listed = await session.request("skills/list", {});
  const uris = (listed.skills as { uri: string }[]).map((entry) => entry.uri);
  assert.deepEqual(uris, ["skill://other/SKILL.md"], "an incomplete manifest was listed");
  assert.equal(listed.nextCursor, undefined);
  await assert.rejects(
    session.request("skills/get", { uri: "skill://demo/SKILL.md" }),
    (error: unknown) => {
      const { code, message } = error as { code?: number; message?: string };
      assert.equal(code, -32603);
      assert.match(message ?? "", /skill:\/\/demo\/SKILL\.md.*changed.*ask again/s);
      assert.ok(!(message ?? "").includes(tree.path), "a host path reached the client");
      return true;
    },
  );

  // The refresh's snapshot no longer lists the link: the skill is listed again, complete.
  store.swap(await buildCatalog(roots, DEFAULT_CAPS));
  const got = await session.request("skills/get", { uri: "skill://demo/SKILL.md" });
  assert.deepEqual(resourceUris(got.skill), ["skill://demo/SKILL.md"]);
  const again = await session.request("skills/list", {});
  assert.deepEqual(
    (again.skills as { uri: string }[]).map((entry) => entry.uri),
    ["skill://demo/SKILL.md", "skill://other/SKILL.md"],
  );
});
