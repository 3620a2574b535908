/**
 * Attack (issue 11 item 7), end to end: files the one served-file rule
 * refuses (links to `.env`, `.git` and `node_modules`, names with U+2028,
 * bidi marks or a `C:` prefix) appear in no listing, are read by no door,
 * and are reported by `skill_list` as `file-not-served`.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const REFUSED = [
  "env.txt",
  "git-config",
  "pkg.js",
  "line\u2028sep.md",
  "bidi\u202Ex.md",
  "C:evil.md",
];

Deno.test("attack: files the served rule refuses are in no listing, read by no door, and reported", async () => {
  await using tree = await makeTree({
    "demo/SKILL.md": skillMd("demo"),
    "demo/.env": "API_KEY=SECRET-ENV-VALUE\n",
    "demo/.git/config": "SECRET-GIT-CONFIG\n",
    "demo/node_modules/pkg/index.js": "SECRET-MODULE\n",
    "demo/env.txt": { symlink: ".env" },
    "demo/git-config": { symlink: ".git/config" },
    "demo/pkg.js": { symlink: "node_modules/pkg/index.js" },
    "demo/line\u2028sep.md": "SECRET-LS\n",
    "demo/bidi\u202Ex.md": "SECRET-BIDI\n",
    "demo/C:evil.md": "SECRET-DRIVE\n",
    "demo/guide.md": "guide\n",
  });
  await using session = await connectStdio(["serve", tree.path, "--static"]);
  const load = await session.call("skill_load", { name: "demo" });
  const files = (load.structuredContent as { files: { path: string }[] }).files.map((f) => f.path);
  assert.deepEqual(files, ["SKILL.md", "guide.md"]);
  const listed = await session.client.listResources();
  assert.deepEqual(listed.resources.map((r) => r.uri).sort(), [
    "skill://demo/SKILL.md",
    "skill://demo/guide.md",
  ]);
  const read = await session.call("skill_file", { name: "demo", paths: REFUSED });
  const answers = (read.structuredContent as { files: { error?: string }[] }).files;
  assert.equal(answers.length, REFUSED.length);
  assert.ok(answers.every((a) => typeof a.error === "string"), JSON.stringify(answers));
  for (const path of REFUSED) {
    const uri = `skill://demo/${encodeURIComponent(path)}`;
    await assert.rejects(session.client.readResource({ uri }), `resources/read ${uri}`);
  }
  assert.ok(!JSON.stringify(read).includes("SECRET"));
  const list = await session.call("skill_list", {});
  const problems = (list.structuredContent as { problems: { reason: string; path: string }[] })
    .problems.filter((p) => p.reason === "file-not-served");
  assert.equal(problems.length, REFUSED.length, JSON.stringify(problems));
});
