/**
 * Newcomer 7 (05:06): hosted, clients were shown the host's folder layout
 * (roots, each skill's source, problem paths, duplicate-name details). A
 * hosted local root is shown by its label (`root1`...) and paths under it
 * relative to that label, in every client-facing answer; the owner's own
 * `skillgate list` keeps the paths; standalone keeps them too.
 */

import assert from "node:assert/strict";
import { listSkills } from "../../../src/mcp/tools/skill_list.ts";
import { browseAnswer } from "../../../src/mcp/tools/skill_browse.ts";
import { loadSkill } from "../../../src/mcp/tools/skill_load.ts";
import {
  remoteCachePathsAsSpecs,
  skillSourceAsShown,
} from "../../../src/mcp/tools/remote_cache_paths.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";
import { connectStdio } from "../../support/program.ts";

async function hostedTree() {
  const tree = await makeTree({
    "pdf/SKILL.md": skillMd("pdf"),
    "team/dup/SKILL.md": skillMd("dup"),
    "other/dup/SKILL.md": skillMd("dup"),
    "broken/SKILL.md": "---\nname: broken\n---\n",
  });
  const outside = await Deno.makeTempDir({ prefix: "s25-outside-" });
  await Deno.writeTextFile(`${outside}/SKILL.md`, skillMd("outskill"));
  await Deno.symlink(outside, tree.at("outskill"));
  return {
    tree,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(outside, { recursive: true });
      await tree[Symbol.asyncDispose]();
    },
  };
}

Deno.test("attack: hosted, skill_list and skill_browse name no host folder: roots, sources and problems by root label", async () => {
  await using fixture = await hostedTree();
  const root = fixture.tree.path;
  const catalog = await buildCatalog([{ path: root, from: "MCP_SKILLS_PATH" }], DEFAULT_CAPS);
  const listed = listSkills(catalog, { query: "", after: null, limit: 10, hosted: true });
  const browsed = browseAnswer(catalog, catalog.skills, catalog.skills.length, { hosted: true });
  for (const answer of [listed, browsed]) {
    const text = JSON.stringify(answer);
    assert.ok(!text.includes(root), text);
    assert.ok(!text.includes(fixture.outside), text);
  }
  assert.deepEqual(listed.roots, [{ path: "root1", from: "MCP_SKILLS_PATH" }]);
  assert.deepEqual(listed.skills.map((skill) => skill.source), ["root1"]);
  const paths = listed.problems.map((problem) => problem.path);
  assert.ok(paths.includes("root1/outskill"), paths.join(", "));
  assert.ok(paths.includes("root1/broken/SKILL.md"), paths.join(", "));
  const duplicate = listed.problems.find((problem) => problem.reason === "duplicate-name");
  assert.match(duplicate?.detail ?? "", /under the root "root1"/);
  // The skills view still ties each problem to its skill.
  assert.deepEqual(browsed.skills.map((skill) => skill.source), ["root1"]);
});

Deno.test("skill_list keeps host paths for the owner (skillgate list) and when not hosted", async () => {
  await using fixture = await hostedTree();
  const root = fixture.tree.path;
  const catalog = await buildCatalog([{ path: root, from: "MCP_SKILLS_PATH" }], DEFAULT_CAPS);
  const owner = listSkills(catalog, {
    query: "",
    after: null,
    limit: 10,
    hosted: true,
    isOwnerView: true,
  });
  const standalone = listSkills(catalog, { query: "", after: null, limit: 10, hosted: false });
  for (const answer of [owner, standalone]) {
    assert.equal(answer.roots[0]?.path, root);
    assert.equal(answer.skills[0]?.source, root);
    assert.ok(answer.problems.some((problem) => problem.path === `${root}/outskill`));
  }
});

Deno.test("skillSourceAsShown() and loadSkill(): hosted a skill's source is its root's label, in the configured order", async () => {
  await using one = await makeTree({ "a/SKILL.md": skillMd("a") });
  await using two = await makeTree({ "b/SKILL.md": skillMd("b") });
  const catalog = await buildCatalog(
    [{ path: one.path, from: "MCP_SKILLS_PATH" }, { path: two.path, from: "MCP_SKILLS_PATH" }],
    DEFAULT_CAPS,
  );
  const b = catalog.skills.find((skill) => skill.name === "b")!;
  assert.equal(skillSourceAsShown(b, catalog.roots, { hosted: true }), "root2");
  assert.equal(skillSourceAsShown(b, catalog.roots, { hosted: false }), two.path);
  const answer = loadSkill(b, { body: "x", truncated: false }, "root2");
  assert.equal(answer.source, "root2");
});

Deno.test("remoteCachePathsAsSpecs() hosted: replaces a root only as a whole path, never a longer sibling's prefix", () => {
  const rewrite = remoteCachePathsAsSpecs(
    [{ path: "/srv/skills", from: "MCP_SKILLS_PATH" }, {
      path: "/srv/skills2",
      from: "MCP_SKILLS_PATH",
    }],
    { hosted: true },
  );
  assert.equal(rewrite("/srv/skills/a/SKILL.md"), "root1/a/SKILL.md");
  assert.equal(rewrite('in root "/srv/skills"'), 'in root "root1"');
  assert.equal(rewrite("/srv/skills2/b"), "root2/b");
  assert.equal(rewrite("/srv/skillsX/c"), "/srv/skillsX/c");
});

Deno.test("attack: a hosted server (MCP_SKILLS_PATH) over stdio names no host folder in skill_list, skill_load or skill_settings", async () => {
  await using fixture = await hostedTree();
  const root = fixture.tree.path;
  await using session = await connectStdio(["serve"], { env: { MCP_SKILLS_PATH: root } });
  for (const [tool, args] of [["skill_list", {}], ["skill_load", { name: "pdf" }]] as const) {
    const result = await session.call(tool, args);
    const text = JSON.stringify(result);
    assert.ok(!text.includes(root), `${tool}: ${text}`);
    assert.ok(!text.includes(fixture.outside), `${tool}: ${text}`);
    assert.notEqual(result.isError, true, text);
  }
  const listed = (await session.call("skill_list", {})).structuredContent as {
    roots: { path: string }[];
    problems: { path: string }[];
  };
  assert.deepEqual(listed.roots.map((entry) => entry.path), ["root1"]);
  assert.ok(listed.problems.some((problem) => problem.path === "root1/outskill"));
});
