/** Remote sources' cache folders never reach a client: problems name the source's spec. */

import assert from "node:assert/strict";
import { listSkills } from "../../../src/mcp/tools/skill_list.ts";
import { browseAnswer } from "../../../src/mcp/tools/skill_browse.ts";
import { remoteCachePathsAsSpecs } from "../../../src/mcp/tools/remote_cache_paths.ts";
import { freezeCatalog } from "../../../src/skills/_freeze.ts";
import type { Problem } from "../../../src/skills/problem.ts";
import type { Root, Skill } from "../../../src/skills/skill.ts";
import { memorySkill } from "../../support/memory_catalog.ts";

const CACHE = "/home/owner/.cache/skillgate/sources/pub-0123/commits/abcd/agent-skills";
const EMPTY_CACHE = "/home/owner/.cache/skillgate/sources/empty-4567/commits/ef01/agent-skills";
const SPEC = "https://pub.example/.well-known/agent-skills/";
const EMPTY_SPEC = "github:acme/empty/skills@main";

function remoteCatalog() {
  const roots: Root[] = [
    { path: CACHE, from: "remote", source: SPEC, prefix: "pub" },
    { path: EMPTY_CACHE, from: "remote", source: EMPTY_SPEC, prefix: "acme-empty" },
  ];
  const brand: Skill = {
    ...memorySkill({ name: "pub__brand", description: "Brand" }),
    dir: `${CACHE}/brand`,
    root: CACHE,
    source: SPEC,
  };
  const problems: Problem[] = [
    {
      path: EMPTY_CACHE,
      reason: "no-skill-md",
      severity: "warning",
      detail: `No skill folder (one holding SKILL.md) was found in root "${EMPTY_CACHE}"`,
    },
    {
      path: `${CACHE}/brand/notes/.env`,
      reason: "file-not-served",
      severity: "warning",
      detail: `"${CACHE}/brand/notes/.env" is a hidden file`,
    },
  ];
  return freezeCatalog(roots, [brand], problems);
}

Deno.test("attack: an emptied remote source's no-skill-md problem names no cache folder in skill_list or skill_browse", () => {
  const catalog = remoteCatalog();
  const listed = listSkills(catalog, { query: "", after: null, limit: 10, hosted: false });
  const browsed = browseAnswer(catalog, catalog.skills, 1, { hosted: false });
  for (const answer of [listed, browsed]) {
    const text = JSON.stringify(answer);
    assert.ok(!text.includes("/.cache/"), text);
  }
  assert.deepEqual(listed.problems.map((problem) => problem.path), [
    EMPTY_SPEC,
    "https://pub.example/.well-known/agent-skills/brand/notes/.env",
  ]);
  assert.match(listed.problems[0]!.detail, /in root "github:acme\/empty\/skills@main"/);
  // The skills view still ties the problem to its skill.
  assert.deepEqual(browsed.skills[0]!.problems.map((problem) => problem.reason), [
    "file-not-served",
  ]);
});

Deno.test("skill_list's owner view (skillgate list) keeps the cache folder: the owner may look there", () => {
  const listed = listSkills(remoteCatalog(), {
    query: "",
    after: null,
    limit: 10,
    hosted: false,
    isOwnerView: true,
  });
  assert.equal(listed.problems[0]!.path, EMPTY_CACHE);
});

Deno.test("remoteCachePathsAsSpecs() leaves text alone without remote roots, and replaces the folder itself and below", () => {
  assert.equal(remoteCachePathsAsSpecs([{ path: "/s", from: "argument" }])("/s/x"), "/s/x");
  const rewrite = remoteCachePathsAsSpecs(remoteCatalog().roots);
  assert.equal(rewrite(`${CACHE}/a/b`), "https://pub.example/.well-known/agent-skills/a/b");
  assert.equal(rewrite(CACHE), SPEC);
  assert.equal(rewrite("/elsewhere/a"), "/elsewhere/a");
});
