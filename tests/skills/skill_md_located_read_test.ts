/**
 * s16 (issue 13): the catalog reads a plain SKILL.md by the gate's located
 * open (no resolve walk in front: two `lstat` calls a skill fewer on the
 * serving worker's thread), and everything else by the gate's full way. The
 * located read must answer exactly what the full way answers, and never read
 * what the full way would refuse or cut.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { readSkillMd, skillMdLocatedReadsSoFar } from "../../src/skills/_read_skill_md.ts";
import { makeTree, skillMd } from "./_tree.ts";

/** The candidate discovery gives for `<root>/<name>`. */
async function candidateOf(root: string, name: string): Promise<SkillCandidate> {
  const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
  const realRoot = await Deno.realPath(root);
  return {
    name,
    baseName: name,
    from: "argument",
    dir: `${root}/${name}`,
    realDir: `${realRoot}/${name}`,
    root: catalog.roots[0]?.path ?? root,
    skillMdFile: "SKILL.md",
    entries: [...Deno.readDirSync(`${root}/${name}`)].sort((a, b) => a.name < b.name ? -1 : 1),
  } as SkillCandidate;
}

Deno.test("readSkillMd() reads a plain SKILL.md by the located open: the same text, version and digest as the gate's full way", async () => {
  const text = skillMd("alpha", "First", "Body with ünïcode\n");
  await using tree = await makeTree({ "alpha/SKILL.md": text });
  const candidate = await candidateOf(tree.path, "alpha");
  const before = skillMdLocatedReadsSoFar();
  const located = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes, { withDigest: true });
  assert.equal(skillMdLocatedReadsSoFar(), before + 1, "read by the located open");
  // The full way: a locator that cannot tell makes the gate resolve and narrow instead.
  installFdLocator(() => Promise.resolve(null));
  let full;
  try {
    full = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes, { withDigest: true });
  } finally {
    installFdLocator(locateDirectly);
  }
  assert.equal(skillMdLocatedReadsSoFar(), before + 1, "the second read went the full way");
  assert.ok(located.ok && full.ok);
  assert.deepEqual(located, full);
  assert.equal(located.text, text);
  const info = Deno.statSync(tree.at("alpha/SKILL.md"));
  assert.equal(located.ino, info.ino);
  assert.equal(located.size, info.size);
  assert.equal(
    located.digest,
    `sha256:${createHash("sha256").update(new TextEncoder().encode(text)).digest("hex")}`,
  );
});

Deno.test("readSkillMd() asks where the located open's descriptor is, once, and reads it only at exactly the skill's SKILL.md", async () => {
  await using tree = await makeTree({ "alpha/SKILL.md": skillMd("alpha") });
  const candidate = await candidateOf(tree.path, "alpha");
  const asked: string[] = [];
  installFdLocator(async (fd) => {
    const path = await locateDirectly(fd);
    if (path !== null) asked.push(path);
    return path;
  });
  try {
    const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes);
    assert.ok(read.ok);
  } finally {
    installFdLocator(locateDirectly);
  }
  assert.deepEqual(asked, [`${candidate.realDir}/SKILL.md`]);
});

Deno.test("attack: a SKILL.md symlinked inside the skill is read by the gate's full way, never by the located open", async () => {
  await using tree = await makeTree({
    "alpha/docs/real.md": skillMd("alpha"),
    "alpha/SKILL.md": { symlink: "docs/real.md" },
  });
  const candidate = await candidateOf(tree.path, "alpha");
  const before = skillMdLocatedReadsSoFar();
  const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes);
  assert.equal(skillMdLocatedReadsSoFar(), before, "O_NOFOLLOW met the link: not read there");
  assert.ok(read.ok, "the gate serves a link that stays inside the skill");
  assert.equal(read.text, skillMd("alpha"));
});

Deno.test("attack: a SKILL.md symlinked outside the skill is refused by both ways and its bytes never read", async () => {
  await using outside = await makeTree({ "secret.md": skillMd("alpha", "SECRET") });
  await using tree = await makeTree({ "alpha/SKILL.md": { symlink: outside.at("secret.md") } });
  const candidate = await candidateOf(tree.path, "alpha");
  const before = skillMdLocatedReadsSoFar();
  const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes);
  assert.equal(skillMdLocatedReadsSoFar(), before);
  assert.ok(!read.ok);
  assert.equal(read.problem.reason, "symlink-escape");
  assert.ok(!JSON.stringify(read).includes("SECRET"));
});

Deno.test("attack: a SKILL.md over the cap is never read whole by the located open; the full way cuts it", async () => {
  const body = "x".repeat(4_000);
  await using tree = await makeTree({ "alpha/SKILL.md": skillMd("alpha", "First", body) });
  const candidate = await candidateOf(tree.path, "alpha");
  const before = skillMdLocatedReadsSoFar();
  const read = await readSkillMd(candidate, 1_024, { withDigest: true });
  assert.equal(skillMdLocatedReadsSoFar(), before);
  assert.ok(read.ok);
  assert.equal(read.truncated, true);
  assert.equal(read.digest, null, "a cut read gives no digest");
  assert.ok(new TextEncoder().encode(read.text).length <= 1_024);
});

Deno.test("attack: a SKILL.md that is a FIFO is never opened by the located open and is refused by the full way", async () => {
  await using tree = await makeTree({ "pipe/x.md": "x\n" });
  const made = await new Deno.Command("mkfifo", { args: [tree.at("pipe/SKILL.md")] }).output();
  assert.ok(made.success);
  const candidate = await candidateOf(tree.path, "pipe");
  const before = skillMdLocatedReadsSoFar();
  const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes);
  assert.equal(skillMdLocatedReadsSoFar(), before);
  assert.ok(!read.ok);
  assert.equal(read.problem.reason, "unreadable-skill-md");
});

Deno.test("attack: a SKILL.md the kernel places elsewhere is not read by the located open and refused by the full way", async () => {
  await using tree = await makeTree({ "alpha/SKILL.md": skillMd("alpha") });
  const candidate = await candidateOf(tree.path, "alpha");
  const before = skillMdLocatedReadsSoFar();
  installFdLocator(() => Promise.resolve("/somewhere/else/SKILL.md"));
  let read;
  try {
    read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes);
  } finally {
    installFdLocator(locateDirectly);
  }
  assert.equal(skillMdLocatedReadsSoFar(), before);
  assert.ok(!read.ok);
  assert.equal(read.problem.reason, "unreadable-skill-md");
  assert.ok(!read.problem.detail.includes("/somewhere/else"));
});

Deno.test("attack: a SKILL.md that is not UTF-8 is reported by the full way as before", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]),
  });
  const candidate = await candidateOf(tree.path, "alpha");
  const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes);
  assert.ok(!read.ok);
  assert.equal(read.problem.reason, "unreadable-skill-md");
  assert.match(read.problem.detail, /not valid UTF-8/);
});
