/**
 * Issue 11 item 7: one rule decides a skill's files. Whatever the listing
 * lists, every reader serves; whatever a reader refuses, the listing leaves
 * out and reports as `file-not-served`, naming the rule.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { PathRefusedError, resolveSkillFile } from "../../src/files/path_gate.ts";
import { checkServedFile, checkServedPath } from "../../src/files/served_name.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

async function build(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

async function isServedByGate(realDir: string, relPath: string): Promise<boolean> {
  try {
    await resolveSkillFile(realDir, relPath);
    return true;
  } catch (error) {
    if (error instanceof PathRefusedError) return false;
    throw error;
  }
}

Deno.test("attack: symlinks to .env, .git and node_modules are neither listed nor read, and each is reported", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/.env": "API_KEY=secret\n",
    "s/.git/config": "[core]\n",
    "s/node_modules/pkg/index.js": "x\n",
    "s/env.txt": { symlink: ".env" },
    "s/git-config": { symlink: ".git/config" },
    "s/pkg.js": { symlink: "node_modules/pkg/index.js" },
    "s/gitdir": { symlink: ".git" },
    "s/ok.md": "fine\n",
    "s/ok-link.md": { symlink: "ok.md" },
  });
  const catalog = await build(tree.path);
  const skill = catalog.byName.get("s");
  assert.ok(skill !== undefined);
  assert.deepEqual(skill.files.map((f) => f.path), ["SKILL.md", "ok-link.md", "ok.md"]);
  const notServed = catalog.problems.filter((p) => p.reason === "file-not-served");
  assert.deepEqual(notServed.map((p) => p.path).sort(), [
    tree.at("s/env.txt"),
    tree.at("s/git-config"),
    tree.at("s/gitdir"),
    tree.at("s/pkg.js"),
  ]);
  assert.ok(notServed.every((p) => /rule (hidden|node_modules)/.test(p.detail)), "names the rule");
  assert.ok(notServed.every((p) => !p.detail.includes("API_KEY")));
  for (const path of ["env.txt", "git-config", "pkg.js"]) {
    assert.equal(await isServedByGate(skill.realDir, path), false, path);
  }
});

Deno.test("attack: names with U+2028, bidi marks or a C: prefix are neither listed nor read, and each is reported", async () => {
  const names = ["line\u2028sep.md", "bidi\u202Eevil.md", "mark\u200Fx.md", "C:evil.md"];
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    ...Object.fromEntries(names.map((name) => [`s/${name}`, "x\n"])),
    "s/sub/C:fine-below-top.md": "x\n",
  });
  const catalog = await build(tree.path);
  const skill = catalog.byName.get("s");
  assert.ok(skill !== undefined);
  assert.deepEqual(skill.files.map((f) => f.path), ["SKILL.md", "sub/C:fine-below-top.md"]);
  const rules = catalog.problems
    .filter((p) => p.reason === "file-not-served")
    .map((p) => p.detail.match(/rule ([a-z_-]+)/)?.[1])
    .sort();
  assert.deepEqual(rules, [
    "bidi-character",
    "bidi-character",
    "control-character",
    "drive-prefix",
  ]);
});

Deno.test("one rule: every listed file is served by the gate, every file left out is refused by it", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/.hidden": "h\n",
    "s/a.md": "a\n",
    "s/dir/b.md": "b\n",
    "s/to-hidden": { symlink: ".hidden" },
    "s/to-a": { symlink: "a.md" },
    "s/back\\slash": "x\n",
    "s/pct%20.md": "x\n",
    "s/\u2028": "x\n",
    "s/C:x": "x\n",
    "s/Node_Modules/m.js": "x\n",
    "s/bad\ufffdname": "x\n",
  });
  const catalog = await build(tree.path);
  const skill = catalog.byName.get("s");
  assert.ok(skill !== undefined);
  const listed = new Set(skill.files.map((f) => f.path));
  assert.deepEqual([...listed].sort(), ["SKILL.md", "a.md", "dir/b.md", "to-a"]);
  const candidates = [
    ...listed,
    ".hidden",
    "to-hidden",
    "back\\slash",
    "pct%20.md",
    "\u2028",
    "C:x",
    "Node_Modules/m.js",
    "bad\ufffdname",
  ];
  for (const path of candidates) {
    assert.equal(await isServedByGate(skill.realDir, path), listed.has(path), JSON.stringify(path));
  }
});

Deno.test("attack: a SKILL.md symlinked to a hidden file inside the skill is served by no door", async () => {
  await using tree = await makeTree({
    "s/.real-skill.md": skillMd("s"),
    "s/SKILL.md": { symlink: ".real-skill.md" },
    "t/SKILL.md": skillMd("t"),
  });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["t"]);
  const problem = catalog.problems.find((p) => p.path === tree.at("s/SKILL.md"));
  assert.equal(problem?.reason, "file-not-served");
  assert.equal(problem?.severity, "error");
  assert.match(problem?.detail ?? "", /hidden/);
});

Deno.test("checkServedFile() checks the real path too and names the rule it breaks", () => {
  assert.equal(checkServedFile("notes.md", "notes.md"), null);
  assert.equal(checkServedFile("link.md", "docs/real.md"), null);
  assert.equal(checkServedFile("link.md", ".env")?.rule, "hidden");
  assert.equal(
    checkServedFile("link.md", ".env")?.message,
    'Path "link.md" leads to a file that is not served (rule hidden)',
  );
  assert.equal(checkServedFile("x", "node_modules/a")?.rule, "node_modules");
  assert.equal(checkServedPath("C:x")?.rule, "drive-prefix");
  assert.equal(checkServedPath("a\u2028b")?.rule, "control-character");
  assert.equal(checkServedPath("a\u202Eb")?.rule, "bidi-character");
  assert.match(checkServedPath("a\u202Eb")?.message ?? "", /bidirectional formatting character/);
  assert.equal(checkServedPath("a\ufffdb")?.rule, "replacement-character");
});
