import assert from "node:assert/strict";
import { readSkillBody, skillBodyText } from "../../src/skills/skill_body.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { type Caps, DEFAULT_CAPS } from "../../src/caps.ts";
import type { Problem, ProblemReason } from "../../src/skills/problem.ts";
import type { Catalog, Root } from "../../src/skills/skill.ts";
import { makeTree, skillMd } from "./_tree.ts";

function root(path: string): Root {
  return { path, from: "argument" };
}

async function build(paths: string[], caps: Partial<Caps> = {}): Promise<Catalog> {
  return await buildCatalog(paths.map(root), { ...DEFAULT_CAPS, ...caps });
}

function names(catalog: Catalog): string[] {
  return catalog.skills.map((s) => s.name);
}

function withReason(catalog: Catalog, reason: ProblemReason): Problem[] {
  return catalog.problems.filter((p) => p.reason === reason);
}

function single(catalog: Catalog, reason: ProblemReason): Problem {
  const found = withReason(catalog, reason);
  assert.equal(found.length, 1, JSON.stringify(catalog.problems, null, 2));
  return found[0] as Problem;
}

Deno.test("buildCatalog() serves skills in the root and its skills containers", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "skills/beta/SKILL.md": skillMd("beta"),
    ".claude/skills/gamma/SKILL.md": skillMd("gamma"),
    ".agents/skills/delta/SKILL.md": skillMd("delta"),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["alpha", "beta", "delta", "gamma"]);
  assert.deepEqual(catalog.problems, []);
  const beta = catalog.byName.get("beta");
  assert.equal(beta?.dir, tree.at("skills/beta"));
  assert.equal(beta?.root, tree.path);
  assert.equal(beta?.description, "Does beta things");
  assert.equal(beta?.body, undefined, "the catalog holds no bodies");
  assert.equal(await skillBodyText(beta!, DEFAULT_CAPS.maxSkillMdBytes), "Body\n");
  assert.equal(beta?.skillMdFile, "SKILL.md");
});

Deno.test("buildCatalog() serves a root that is itself a skill under its base name", async () => {
  await using tree = await makeTree({
    "my-skill/SKILL.md": skillMd("my-skill"),
    "my-skill/inner/SKILL.md": skillMd("inner"),
  });
  const catalog = await build([tree.at("my-skill")]);
  assert.deepEqual(names(catalog), ["my-skill"]);
  assert.equal(single(catalog, "nested-skill").severity, "warning");
});

Deno.test("buildCatalog() descends group folders up to three levels", async () => {
  await using tree = await makeTree({
    "one/SKILL.md": skillMd("one"),
    "g1/two/SKILL.md": skillMd("two"),
    "g1/g2/three/SKILL.md": skillMd("three"),
    "g1/g2/g3/four/SKILL.md": skillMd("four"),
    "skills/g1/g2/deep/SKILL.md": skillMd("deep"),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["deep", "one", "three", "two"]);
});

Deno.test("buildCatalog() reports a nested SKILL.md and keeps its files in the outer skill", async () => {
  await using tree = await makeTree({
    "outer/SKILL.md": skillMd("outer"),
    "outer/sub/inner/SKILL.md": skillMd("inner"),
    "outer/sub/inner/notes.md": "n",
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["outer"]);
  const nested = single(catalog, "nested-skill");
  assert.equal(nested.path, tree.at("outer/sub/inner"));
  assert.deepEqual(catalog.byName.get("outer")?.files.map((f) => f.path), [
    "SKILL.md",
    "sub/inner/SKILL.md",
    "sub/inner/notes.md",
  ]);
});

Deno.test("buildCatalog() never scans dot-folders or node_modules for skills", async () => {
  await using tree = await makeTree({
    ".hidden/SKILL.md": skillMd("hidden"),
    "node_modules/pkg/SKILL.md": skillMd("pkg"),
    "group/.git/x/SKILL.md": skillMd("x"),
    "group/node_modules/y/SKILL.md": skillMd("y"),
    "ok/SKILL.md": skillMd("ok"),
  });
  assert.deepEqual(names(await build([tree.path])), ["ok"]);
});

Deno.test("buildCatalog() counts a skill reached twice by real path once", async () => {
  await using tree = await makeTree({
    "skills/a/SKILL.md": skillMd("a"),
    ".claude/skills": { symlink: "../skills" },
    "link-a": { symlink: "skills/a" },
  });
  const catalog = await build([tree.path, tree.at("skills")]);
  assert.deepEqual(names(catalog), ["a"]);
  assert.equal(catalog.skills[0]?.dir, tree.at("skills/a"));
  assert.deepEqual(withReason(catalog, "duplicate-name"), []);
});

Deno.test("buildCatalog() serves a lowercase skill.md with a warning", async () => {
  await using tree = await makeTree({ "low/skill.md": skillMd("low") });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["low"]);
  assert.equal(catalog.skills[0]?.skillMdFile, "skill.md");
  const problem = single(catalog, "skill-md-case");
  assert.equal(problem.severity, "warning");
  assert.equal(problem.path, tree.at("low/skill.md"));
});

Deno.test("buildCatalog() refuses other case variants of SKILL.md", async () => {
  await using tree = await makeTree({
    "mixed/Skill.md": skillMd("mixed"),
    "upper/SKILL.MD": skillMd("upper"),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), []);
  const problems = withReason(catalog, "skill-md-case");
  assert.deepEqual(problems.map((p) => [p.path, p.severity]), [
    [tree.at("mixed/Skill.md"), "error"],
    [tree.at("upper/SKILL.MD"), "error"],
  ]);
});

Deno.test("buildCatalog() prefers SKILL.md over skill.md", async () => {
  await using tree = await makeTree({
    "both/SKILL.md": skillMd("both", "From upper"),
    "both/skill.md": skillMd("both", "From lower"),
  });
  const catalog = await build([tree.path]);
  assert.equal(catalog.skills[0]?.description, "From upper");
  assert.deepEqual(withReason(catalog, "skill-md-case"), []);
});

Deno.test("buildCatalog() skips a folder whose name cannot name a skill", async () => {
  await using tree = await makeTree({
    "has space/SKILL.md": skillMd("x"),
    "-dash/SKILL.md": skillMd("y"),
    "good/SKILL.md": skillMd("good"),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["good"]);
  const problems = withReason(catalog, "unusable-name");
  assert.deepEqual(problems.map((p) => p.path).sort(), [
    tree.at("-dash"),
    tree.at("has space"),
  ]);
  assert.ok(problems.every((p) => p.severity === "error"));
});

Deno.test("attack: a skill folder named with U+202E (bidi), U+2028 or U+FFFD is not served; the problem names the rule", async () => {
  await using tree = await makeTree({
    "pdf\u202Egnp/SKILL.md": skillMd("x"),
    "line\u2028sep/SKILL.md": skillMd("y"),
    "bad\ufffdutf/SKILL.md": skillMd("z"),
    "good/SKILL.md": skillMd("good"),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["good"]);
  const problems = withReason(catalog, "unusable-name");
  const byPath = new Map(problems.map((p) => [p.path, p.detail]));
  assert.match(byPath.get(tree.at("pdf\u202Egnp")) ?? "", /rule "bidi-character"/);
  assert.match(byPath.get(tree.at("line\u2028sep")) ?? "", /rule "control-character"/);
  assert.match(byPath.get(tree.at("bad\ufffdutf")) ?? "", /rule "replacement-character"/);
  for (const detail of byPath.values()) {
    assert.ok(!/[\u202E\u2028\ufffd]/u.test(detail), `detail escapes the name: ${detail}`);
  }
});

Deno.test("buildCatalog() serves a mismatched name under the directory name", async () => {
  await using tree = await makeTree({ "dir-name/SKILL.md": skillMd("other-name") });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["dir-name"]);
  const problem = single(catalog, "name-mismatch");
  assert.equal(problem.severity, "warning");
  assert.equal(problem.line, 2);
});

Deno.test("buildCatalog() refuses both skills that share a name and names every directory", async () => {
  await using one = await makeTree({
    "same/SKILL.md": skillMd("same"),
    "x/SKILL.md": skillMd("x"),
  });
  await using two = await makeTree({ "group/same/SKILL.md": skillMd("same") });
  const catalog = await build([one.path, two.path]);
  assert.deepEqual(names(catalog), ["x"]);
  const problems = withReason(catalog, "duplicate-name");
  assert.deepEqual(problems.map((p) => p.path), [one.at("same"), two.at("group/same")]);
  for (const problem of problems) {
    assert.equal(problem.severity, "error");
    assert.ok(problem.detail.includes(`"same" (root "${one.path}")`), problem.detail);
    assert.ok(problem.detail.includes(`"group/same" (root "${two.path}")`), problem.detail);
  }
});

Deno.test("buildCatalog() judges a symlinked skill folder against its own root", async () => {
  await using tree = await makeTree({
    "store/real-skill/SKILL.md": skillMd("linked"),
    "store/real-skill/ref.md": "r",
    "skills/linked": { symlink: "../store/real-skill" },
  });
  const catalog = await build([tree.at("skills")]);
  // The target is outside the root `skills/`, so it escapes.
  assert.deepEqual(names(catalog), []);
  const escape = single(catalog, "symlink-escape");
  assert.equal(escape.severity, "error");
  assert.equal(escape.path, tree.at("skills/linked"));
  assert.ok(!escape.detail.includes("store"));

  const whole = await build([tree.path]);
  // Inside the root both paths lead to one folder, served once at its real location.
  assert.deepEqual(names(whole), ["real-skill"]);
  assert.deepEqual(withReason(whole, "symlink-escape"), []);
});

Deno.test("buildCatalog() serves a skill reached only through an inside symlink", async () => {
  await using tree = await makeTree({
    "g1/g2/g3/deep/SKILL.md": skillMd("linked"),
    "linked": { symlink: "g1/g2/g3/deep" },
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["linked"]);
  const skill = catalog.skills[0];
  assert.equal(skill?.dir, tree.at("linked"));
  assert.equal(skill?.realDir, await Deno.realPath(tree.at("g1/g2/g3/deep")));
});

Deno.test("buildCatalog() refuses a symlinked skill folder that leaves the root", async () => {
  await using outside = await makeTree({ "evil/SKILL.md": skillMd("evil") });
  await using tree = await makeTree({ "evil": { symlink: outside.at("evil") } });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), []);
  const problem = single(catalog, "symlink-escape");
  assert.equal(problem.path, tree.at("evil"));
  assert.equal(problem.severity, "error");
  assert.ok(!problem.detail.includes(outside.path));
});

Deno.test("buildCatalog() refuses a skills container that links outside the root", async () => {
  await using outside = await makeTree({ "x/SKILL.md": skillMd("x") });
  await using tree = await makeTree({ "skills": { symlink: outside.path } });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), []);
  assert.equal(single(catalog, "symlink-escape").path, tree.at("skills"));
});

Deno.test("buildCatalog() follows a symlinked root and reports lexical paths", async () => {
  await using tree = await makeTree({
    "real/a/SKILL.md": skillMd("a"),
    "real/b/SKILL.md": "---\nname: b\n---\n",
    "root-link": { symlink: "real" },
  });
  const catalog = await build([tree.at("root-link")]);
  assert.deepEqual(names(catalog), ["a"]);
  assert.equal(catalog.skills[0]?.dir, tree.at("root-link/a"));
  assert.equal(catalog.skills[0]?.realDir, await Deno.realPath(tree.at("real/a")));
  const invalid = catalog.problems.find((p) => p.severity === "error");
  assert.equal(invalid?.path, tree.at("root-link/b/SKILL.md"));
});

Deno.test("buildCatalog() does not hang on symlink loops", async () => {
  await using tree = await makeTree({
    "group/loop": { symlink: ".." },
    "group/self": { symlink: "." },
    "a/SKILL.md": skillMd("a"),
    "a/refs/back": { symlink: ".." },
    "a/refs/root": { symlink: "../.." },
    "ping": { symlink: "pong" },
    "pong": { symlink: "ping" },
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["a"]);
  assert.deepEqual(catalog.skills[0]?.files.map((f) => f.path), ["SKILL.md"]);
  // The loop that climbs out of the skill folder is an escape of the skill.
  assert.ok(withReason(catalog, "symlink-escape").some((p) => p.path === tree.at("a/refs/root")));
  assert.ok(withReason(catalog, "unusable-path").some((p) => p.path === tree.at("ping")));
});

Deno.test("buildCatalog() truncates a long SKILL.md on a UTF-8 boundary", async () => {
  const head = "---\nname: big\ndescription: Big\n---\n";
  const body = "é".repeat(100);
  await using tree = await makeTree({ "big/SKILL.md": head + body });
  const cap = head.length + 11; // 5 whole "é" and one half
  const catalog = await build([tree.path], { maxSkillMdBytes: cap });
  const skill = catalog.byName.get("big");
  assert.equal(skill?.bodyTruncated, true);
  assert.deepEqual(await readSkillBody(skill!, cap), {
    ok: true,
    body: "é".repeat(5),
    truncated: true,
    nextOffset: head.length + 10, // where the read ended: before the half character
  });
  assert.equal(skill?.skillMdBytes, head.length + 200);
  const problem = single(catalog, "skill-md-truncated");
  assert.equal(problem.severity, "warning");
  assert.match(problem.detail, new RegExp(`only the first ${cap} are served`));

  const whole = await build([tree.path], { maxSkillMdBytes: head.length + 200 });
  assert.equal(whole.byName.get("big")?.bodyTruncated, false);
  assert.equal(await skillBodyText(whole.byName.get("big")!, head.length + 200), body);
});

Deno.test("buildCatalog() reads a huge sparse SKILL.md without reading all of it", async () => {
  await using tree = await makeTree({ "sparse/SKILL.md": skillMd("sparse") });
  const file = await Deno.open(tree.at("sparse/SKILL.md"), { write: true });
  await file.truncate(512 * 1024 * 1024);
  file.close();
  const catalog = await build([tree.path]);
  const skill = catalog.byName.get("sparse");
  assert.equal(skill?.bodyTruncated, true);
  assert.equal(skill?.skillMdBytes, 512 * 1024 * 1024);
  const read = await skillBodyText(skill!, DEFAULT_CAPS.maxSkillMdBytes);
  assert.equal(read.length, DEFAULT_CAPS.maxSkillMdBytes - skillMd("sparse").length + 5);
});

Deno.test("buildCatalog() refuses an unreadable SKILL.md", async () => {
  await using tree = await makeTree({
    "folder/SKILL.md": { dir: true },
    "dangling/SKILL.md": { symlink: "missing.md" },
    "latin1/SKILL.md": new Uint8Array([...new TextEncoder().encode(skillMd("latin1")), 0xe9]),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), []);
  const problems = withReason(catalog, "unreadable-skill-md");
  assert.deepEqual(problems.map((p) => p.path), [
    tree.at("dangling/SKILL.md"),
    tree.at("folder/SKILL.md"),
    tree.at("latin1/SKILL.md"),
  ]);
  assert.ok(problems.every((p) => p.severity === "error"));
  assert.match(problems[2]?.detail ?? "", /not valid UTF-8/);
});

Deno.test("buildCatalog() refuses a symlinked SKILL.md that leaves the skill folder", async () => {
  await using tree = await makeTree({
    "shared.md": skillMd("a"),
    "a/SKILL.md": { symlink: "../shared.md" },
    "b/real.md": skillMd("b"),
    "b/SKILL.md": { symlink: "real.md" },
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["b"]);
  const problem = single(catalog, "symlink-escape");
  assert.equal(problem.path, tree.at("a/SKILL.md"));
  assert.equal(problem.severity, "error");
});

Deno.test("buildCatalog() refuses malformed frontmatter with its line and column", async () => {
  await using tree = await makeTree({
    "bad/SKILL.md": "---\nname: bad\ndescription: [unclosed\n---\nbody\n",
    "alias/SKILL.md": "---\nname: &n alias\ndescription: *n\n---\n",
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), []);
  const problems = withReason(catalog, "malformed-frontmatter");
  assert.equal(problems.length, 2);
  const alias = problems[0] as Problem;
  assert.equal(alias.path, tree.at("alias/SKILL.md"));
  assert.equal(alias.line, 2);
  assert.equal(alias.column, 7);
  const bad = problems[1] as Problem;
  assert.equal(bad.severity, "error");
  assert.equal(typeof bad.line, "number");
  assert.equal(typeof bad.column, "number");
});

Deno.test("buildCatalog() keeps a skill with an invalid description out", async () => {
  await using tree = await makeTree({
    "empty/SKILL.md": "---\n---\nbody\n",
    "nodesc/SKILL.md": "---\nname: nodesc\n---\n",
    "ok/SKILL.md": skillMd("ok"),
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(names(catalog), ["ok"]);
  const errors = catalog.problems.filter((p) => p.severity === "error");
  assert.deepEqual(errors.map((p) => p.reason), ["invalid-frontmatter", "invalid-frontmatter"]);
  assert.match(errors[0]?.detail ?? "", /Frontmatter is empty/);
});

Deno.test("buildCatalog() lists files sorted, skipping dot-entries and node_modules", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/b.md": "bb",
    "s/a-b/x.md": "x",
    "s/a/x.md": "xyz",
    "s/Z.txt": "z",
    "s/.env": "SECRET=1",
    "s/.git/config": "c",
    "s/refs/.hidden.md": "h",
    "s/node_modules/m/index.js": "m",
    "s/empty": { dir: true },
  });
  const catalog = await build([tree.path]);
  const skill = catalog.byName.get("s");
  assert.deepEqual(skill?.files.map((f) => f.path), [
    "SKILL.md",
    "Z.txt",
    "a-b/x.md",
    "a/x.md",
    "b.md",
  ]);
  assert.deepEqual(skill?.files.map((f) => f.size).slice(1), [1, 1, 3, 2]);
  assert.equal(skill?.bytes, skillMd("s").length + 7);
  assert.ok(skill?.files.every((f) => typeof f.mtimeMs === "number"));
  assert.deepEqual(catalog.problems, []);
});

Deno.test("buildCatalog() lists an inside symlink under its link path", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/refs/api.md": "api",
    "s/alias.md": { symlink: "refs/api.md" },
    "s/mirror": { symlink: "refs" },
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(catalog.byName.get("s")?.files.map((f) => [f.path, f.size]), [
    ["SKILL.md", skillMd("s").length],
    ["alias.md", 3],
    ["mirror/api.md", 3],
    ["refs/api.md", 3],
  ]);
});

Deno.test("buildCatalog() leaves out and reports a file symlink that leaves the skill", async () => {
  await using outside = await makeTree({ "secret.txt": "secret" });
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/secret.txt": { symlink: outside.at("secret.txt") },
    "s/other/x": { symlink: "../../t/x.md" },
    "t/x.md": "x",
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(catalog.byName.get("s")?.files.map((f) => f.path), ["SKILL.md"]);
  const escapes = withReason(catalog, "symlink-escape");
  assert.deepEqual(escapes.map((p) => [p.path, p.severity]), [
    [tree.at("s/other/x"), "warning"],
    [tree.at("s/secret.txt"), "warning"],
  ]);
  assert.ok(escapes.every((p) => !p.detail.includes(outside.path)));
});

Deno.test("buildCatalog() leaves out file names a client cannot address", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/100%.md": "x",
    "s/back\\slash.md": "x",
    "s/ctl\u0001.md": "x",
    "s/ ": "x",
    "s/fine name.md": "x",
  });
  const catalog = await build([tree.path]);
  assert.deepEqual(catalog.byName.get("s")?.files.map((f) => f.path), ["SKILL.md", "fine name.md"]);
  const problems = withReason(catalog, "file-not-served");
  assert.deepEqual(problems.map((p) => p.detail.match(/rule ([a-z_-]+)/)?.[1]).sort(), [
    "backslash",
    "blank-segment",
    "control-character",
    "percent",
  ]);
  assert.ok(problems.every((p) => p.severity === "warning"));
});

Deno.test("buildCatalog() leaves out FIFOs with an unusable-path warning", async () => {
  await using tree = await makeTree({ "s/SKILL.md": skillMd("s") });
  const mkfifo = new Deno.Command("mkfifo", { args: [tree.at("s/pipe")] });
  const { success } = await mkfifo.output();
  assert.ok(success);
  const catalog = await build([tree.path]);
  assert.deepEqual(catalog.byName.get("s")?.files.map((f) => f.path), ["SKILL.md"]);
  assert.equal(single(catalog, "unusable-path").path, tree.at("s/pipe"));
});

Deno.test("buildCatalog() stops listing at the file cap and says so", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/a.md": "a",
    "s/b.md": "b",
    "s/c.md": "c",
  });
  const catalog = await build([tree.path], { maxFilesPerSkill: 3 });
  const skill = catalog.byName.get("s");
  assert.deepEqual(skill?.files.map((f) => f.path), ["SKILL.md", "a.md", "b.md"]);
  assert.equal(skill?.filesTruncated, true);
  const problem = single(catalog, "file-limit");
  assert.equal(problem.severity, "warning");
  assert.equal(problem.path, tree.at("s"));
});

Deno.test("buildCatalog() stops walking at the folder cap and says so", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/a/1.md": "1",
    "s/b/2.md": "2",
    "s/c/3.md": "3",
  });
  const catalog = await build([tree.path], { maxFoldersPerSkill: 2 });
  const skill = catalog.byName.get("s");
  assert.deepEqual(skill?.files.map((f) => f.path), ["SKILL.md", "a/1.md", "b/2.md"]);
  assert.equal(skill?.filesTruncated, true);
  assert.equal(single(catalog, "folder-limit").severity, "warning");
});

Deno.test("buildCatalog() serves at most maxSkills and says how many were left out", async () => {
  await using one = await makeTree({ "a/SKILL.md": skillMd("a"), "b/SKILL.md": "---\n---\n" });
  await using two = await makeTree({
    "c/SKILL.md": skillMd("c"),
    "d/SKILL.md": skillMd("d"),
    "e/SKILL.md": skillMd("e"),
  });
  const catalog = await build([one.path, two.path], { maxSkills: 2 });
  assert.deepEqual(names(catalog), ["a", "c"]);
  const problem = single(catalog, "skill-limit");
  assert.equal(problem.severity, "warning");
  assert.match(problem.detail, /^2 skill folders were left out because at most 2 skills/);
  assert.equal(catalog.problems.at(-1), problem);
});

Deno.test("buildCatalog() reads when-to-use into whenToUse", async () => {
  await using tree = await makeTree({
    "a/SKILL.md": "---\nname: a\ndescription: d\nwhen-to-use: When asked\n---\n",
    "b/SKILL.md": "---\nname: b\ndescription: d\nwhen_to_use: When told\n---\n",
    "c/SKILL.md": "---\nname: c\ndescription: d\nwhen-to-use: [not, text]\n---\n",
  });
  const catalog = await build([tree.path]);
  assert.equal(catalog.byName.get("a")?.whenToUse, "When asked");
  assert.equal(catalog.byName.get("b")?.whenToUse, "When told");
  assert.equal(catalog.byName.get("c")?.whenToUse, undefined);
  assert.ok(!("whenToUse" in (catalog.byName.get("c") ?? {})));
});

Deno.test("buildCatalog() reports an unreadable root and keeps going", async () => {
  await using tree = await makeTree({ "file.txt": "x", "ok/a/SKILL.md": skillMd("a") });
  const catalog = await build([tree.at("missing"), tree.at("file.txt"), tree.at("ok")]);
  assert.deepEqual(names(catalog), ["a"]);
  const problems = withReason(catalog, "root-unreadable");
  assert.deepEqual(problems.map((p) => [p.path, p.severity]), [
    [tree.at("missing"), "error"],
    [tree.at("file.txt"), "error"],
  ]);
  assert.match(problems[1]?.detail ?? "", /is not a folder/);
});

Deno.test("buildCatalog() warns about a root without any skill", async () => {
  await using tree = await makeTree({ "docs/readme.md": "x" });
  const catalog = await build([tree.path]);
  assert.equal(single(catalog, "no-skill-md").severity, "warning");
});

Deno.test("buildCatalog() returns a frozen snapshot", async () => {
  await using tree = await makeTree({
    "a/SKILL.md": "---\nname: a\ndescription: d\nmetadata:\n  k: v\n---\n",
  });
  const roots = [root(tree.path)];
  const catalog = await buildCatalog(roots, DEFAULT_CAPS);
  assert.notEqual(catalog.roots, roots);
  assert.deepEqual(catalog.roots, roots);
  for (
    const value of [
      catalog,
      catalog.roots,
      catalog.skills,
      catalog.problems,
      catalog.skills[0],
      catalog.skills[0]?.files,
      catalog.skills[0]?.files[0],
      catalog.skills[0]?.frontmatter,
      catalog.skills[0]?.frontmatter["metadata"],
    ]
  ) {
    assert.ok(Object.isFrozen(value));
  }
});

Deno.test("buildCatalog() builds 10,000 generated skills quickly", async () => {
  await using tree = await makeTree();
  const count = 10_000;
  const indexes = Array.from({ length: count }, (_, i) => i);
  for (let start = 0; start < count; start += 500) {
    await Promise.all(
      indexes.slice(start, start + 500).map(async (i) => {
        const dir = tree.at(`g${i % 10}/skill-${i}`);
        await Deno.mkdir(dir, { recursive: true });
        await Deno.writeTextFile(`${dir}/SKILL.md`, skillMd(`skill-${i}`));
      }),
    );
  }
  const catalog = await build([tree.path]);
  assert.equal(catalog.skills.length, count);
  assert.deepEqual(catalog.problems, []);
  assert.equal(catalog.skills[0]?.name, "skill-0");
  assert.equal(catalog.skills[1]?.name, "skill-1");
  assert.equal(catalog.skills[2]?.name, "skill-10");
});

Deno.test("buildCatalog() reports a finding once when roots overlap", async () => {
  await using tree = await makeTree({
    "skills/low/skill.md": skillMd("low"),
    "skills/bad/SKILL.md": "---\nname: bad\n---\n",
  });
  const catalog = await build([tree.path, tree.at("skills"), tree.path]);
  assert.deepEqual(names(catalog), ["low"]);
  // "low" is served from skill.md, so the skills extension leaves it out (reported once too).
  assert.deepEqual(catalog.problems.map((p) => p.reason), [
    "invalid-frontmatter",
    "skill-md-case",
    "extension-excluded",
  ]);
});
