/**
 * Review n7 (05:10): skills deeper than the group-depth cap were dropped
 * silently ("No problems found", validate OK). Discovery now looks a bounded
 * distance further, only to report them as one `depth-limit` warning per
 * root, named relative to the root.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS, DEPTH_PROBE_MAX_FOLDERS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "./_tree.ts";

async function build(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

Deno.test("buildCatalog() reports skill folders below the depth cap as one depth-limit warning, relative to the root", async () => {
  await using tree = await makeTree({
    "shallow/SKILL.md": skillMd("shallow"),
    "x/y/ok2/SKILL.md": skillMd("ok2"),
    "a/b/c/ok3/SKILL.md": skillMd("ok3"),
    "g1/g2/g3/g4/deepskill/SKILL.md": skillMd("deepskill"),
    "g1/g2/g3/g4/g5/g6/toodeep/SKILL.md": skillMd("toodeep"),
    "a/b/c/.hidden/SKILL.md": skillMd("hidden"),
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["ok2", "shallow"]);
  const found = catalog.problems.filter((p) => p.reason === "depth-limit");
  assert.equal(found.length, 1, JSON.stringify(catalog.problems));
  const warning = found[0]!;
  assert.equal(warning.severity, "warning");
  assert.equal(warning.path, tree.path);
  assert.match(warning.detail, /^2 skill folders lie deeper than skills are searched/);
  assert.ok(warning.detail.includes('"a/b/c/ok3", "g1/g2/g3/g4/deepskill"'), warning.detail);
  assert.ok(!warning.detail.includes("toodeep"), "the look beyond is bounded in levels");
  assert.ok(!warning.detail.includes("hidden"));
  assert.ok(
    warning.detail.includes(
      `add the folder that holds them as a root (e.g. "${tree.at("a/b/c")}")`,
    ),
  );
});

Deno.test("buildCatalog() gives no depth-limit warning when every skill is within the cap", async () => {
  await using tree = await makeTree({
    "x/y/ok2/SKILL.md": skillMd("ok2"),
    "a/b/c/d/notes.md": "no skill here\n",
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.problems.filter((p) => p.reason === "depth-limit"), []);
});

Deno.test("attack: the look below the depth cap reads a bounded number of folders", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < DEPTH_PROBE_MAX_FOLDERS + 40; i++) {
    files[`a/b/c/f${String(i).padStart(4, "0")}/note.md`] = "x";
  }
  files["a/b/c/0000/SKILL.md"] = skillMd("0000");
  files["a/b/c/zzzz/SKILL.md"] = skillMd("zzzz");
  await using tree = await makeTree(files);
  const catalog = await build(tree.path);
  const found = catalog.problems.filter((p) => p.reason === "depth-limit");
  assert.equal(found.length, 1);
  const detail = found[0]?.detail ?? "";
  // The first skill is seen; the one after the budget's folders is not, and the warning says so.
  assert.match(detail, /^1 skill folder lies deeper/);
  assert.ok(detail.includes('"a/b/c/0000"'), detail);
  assert.ok(!detail.includes("zzzz"), detail);
  assert.ok(detail.includes(`stopped after ${DEPTH_PROBE_MAX_FOLDERS} folders; there may be more`));
});

Deno.test("validate and list name a skill below the depth cap (newcomer's repro)", async () => {
  await using tree = await makeTree({
    "shallow/SKILL.md": skillMd("shallow"),
    "a/b/c/ok3/SKILL.md": skillMd("ok3"),
  });
  const validated = await runProgram(["validate", tree.path]);
  assert.match(validated.stdout, /warning depth-limit: 1 skill folder lies deeper/);
  assert.match(validated.stdout, /"a\/b\/c\/ok3"/);
  const listed = await runProgram(["list", tree.path]);
  assert.match(listed.stdout + listed.stderr, /depth-limit/);
});
