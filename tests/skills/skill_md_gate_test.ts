/**
 * Issue 11 item 6, deterministically: the catalog reads every SKILL.md
 * through the path gate's verified open (no-follow, non-blocking,
 * location-checked), in the trusted part (which reads /proc/self/fd itself:
 * these tests run with the same `--allow-all`) as in the worker. The race
 * itself is driven in tests/e2e/startup_race_test.ts.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import type { Catalog } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

async function build(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

Deno.test("attack: a SKILL.md that is a FIFO is refused at once, never waited on", async () => {
  await using tree = await makeTree({ "pipe/x.md": "x\n", "ok/SKILL.md": skillMd("ok") });
  const made = await new Deno.Command("mkfifo", { args: [tree.at("pipe/SKILL.md")] }).output();
  assert.ok(made.success);
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills.map((s) => s.name), ["ok"]);
  const problem = catalog.problems.find((p) => p.path === tree.at("pipe/SKILL.md"));
  assert.equal(problem?.reason, "unreadable-skill-md");
  assert.match(problem?.detail ?? "", /not a regular file/);
  assert.match(problem?.detail ?? "", /\. Replace it with a regular file$/, "says what to do");
});

Deno.test("a folder named SKILL.md is refused with what to do: replace it with a regular file", async () => {
  await using tree = await makeTree({ "d/SKILL.md/x.md": "x\n" });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills, []);
  const problem = catalog.problems.find((p) => p.path === tree.at("d/SKILL.md"));
  assert.equal(problem?.reason, "unreadable-skill-md");
  assert.match(problem?.detail ?? "", /is not a regular file.*\. Replace it with a regular file$/);
});

Deno.test("attack: a SKILL.md symlinked to a file outside the skill is refused and its text never served", async () => {
  await using outside = await makeTree({
    "secret.md": skillMd("s", "SECRET-DESCRIPTION", "SECRET-BODY\n"),
  });
  await using tree = await makeTree({ "s/SKILL.md": { symlink: outside.at("secret.md") } });
  const catalog = await build(tree.path);
  assert.deepEqual(catalog.skills, []);
  const problem = catalog.problems.find((p) => p.path === tree.at("s/SKILL.md"));
  assert.equal(problem?.reason, "symlink-escape");
  assert.equal(problem?.severity, "error");
  assert.match(
    problem?.detail ?? "",
    /points outside the skill folder; it is not followed, so the skill is not served\. Copy the file into the skill folder, or move its target inside it$/,
  );
  assert.ok(!JSON.stringify(catalog).includes("SECRET"));
  assert.ok(!JSON.stringify(catalog).includes(outside.path), "no outside host path is named");
});

Deno.test("buildCatalog() in the trusted part checks each SKILL.md descriptor's location through /proc/self/fd", async () => {
  await using tree = await makeTree({ "a/SKILL.md": skillMd("a"), "b/SKILL.md": skillMd("b") });
  const asked: string[] = [];
  installFdLocator(async (fd) => {
    const path = await locateDirectly(fd);
    if (path !== null) asked.push(path);
    return path;
  });
  try {
    const catalog = await build(tree.path);
    assert.deepEqual(catalog.skills.map((s) => s.name), ["a", "b"]);
  } finally {
    installFdLocator(locateDirectly);
  }
  const real = await Deno.realPath(tree.path);
  assert.deepEqual(asked.sort(), [`${real}/a/SKILL.md`, `${real}/b/SKILL.md`]);
});

Deno.test("attack: a SKILL.md whose open descriptor the kernel places elsewhere (a swap) is refused", async () => {
  await using tree = await makeTree({ "a/SKILL.md": skillMd("a") });
  installFdLocator(() => Promise.resolve("/somewhere/else/SKILL.md"));
  let catalog: Catalog;
  try {
    catalog = await build(tree.path);
  } finally {
    installFdLocator(locateDirectly);
  }
  assert.deepEqual(catalog.skills, []);
  const problem = catalog.problems.find((p) => p.path === tree.at("a/SKILL.md"));
  assert.equal(problem?.reason, "unreadable-skill-md");
  assert.match(problem?.detail ?? "", /changed while it was read/);
  assert.ok(!problem?.detail.includes("/somewhere/else"));
});
