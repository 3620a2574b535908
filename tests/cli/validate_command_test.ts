import assert from "node:assert/strict";
import { relative } from "node:path";
import { corpora, FIXTURE_CORPUS, skillDir } from "../support/corpora.ts";
import { connectStdio, REPO_ROOT, runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const BROKEN = "tests/fixtures/broken-skills";
const FINDING =
  /^(?<path>[^:]+?)(?::(?<line>\d+):(?<column>\d+))?: (?<severity>error|warning) (?<reason>[a-z-]+): (?<detail>.+)$/;

interface Finding {
  readonly path: string;
  readonly line?: string | undefined;
  readonly column?: string | undefined;
  readonly severity: string;
  readonly reason: string;
  readonly detail: string;
}

function findings(stdout: string): { findings: Finding[]; summary: string } {
  const lines = stdout.trimEnd().split("\n");
  const summary = lines.pop() ?? "";
  return {
    summary,
    findings: lines.map((line) => {
      const match = FINDING.exec(line);
      assert.ok(match?.groups, `a finding line: ${line}`);
      return match.groups as unknown as Finding;
    }),
  };
}

/** A path as validate prints it: relative to the working directory when inside it. */
function shown(path: string): string {
  const inside = relative(REPO_ROOT, path);
  return inside.startsWith("..") ? path : inside;
}

for (const corpus of corpora()) {
  Deno.test(`validate passes every ${corpus.label} corpus skill with warnings only (exit 0)`, async () => {
    const folders = corpus.names.map((name) => skillDir(corpus, corpus.path, name));
    assert.ok(folders.length >= 9);
    const run = await runProgram(["validate", ...folders]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const { findings: found, summary } = findings(run.stdout);
    assert.deepEqual(found.filter((finding) => finding.severity === "error"), []);
    // Only the over-long skill may be left out of the skills extension (SEP-2640).
    for (const finding of found.filter((f) => f.reason === "extension-excluded")) {
      assert.ok(finding.detail.includes(`"${corpus.facts.overLong.skill}"`), finding.detail);
    }
    assert.deepEqual(
      found.filter((finding) => finding.reason !== "extension-excluded")
        .map((finding) => [finding.path, finding.severity, finding.reason]),
      corpus.facts.problems.map((p) => [shown(`${corpus.path}/${p.path}`), p.severity, p.reason]),
    );
    assert.equal(
      summary,
      `OK: ${folders.length} paths checked, ${folders.length} usable skills, 0 errors, ` +
        `${found.length} warning${found.length === 1 ? "" : "s"}`,
    );
    const whole = await runProgram(["validate", corpus.path]);
    assert.equal(whole.code, 0, whole.stdout + whole.stderr);
    assert.match(
      whole.stdout,
      new RegExp(`^OK: 1 path checked, ${folders.length} usable skills, 0 errors`, "m"),
    );
  });
}

Deno.test("validate locates every finding in a folder of broken skills and exits 1", async () => {
  const run = await runProgram(["validate", BROKEN]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const { findings: found, summary } = findings(run.stdout);
  const seen = new Set(
    found.map((f) =>
      `${f.path}${f.line === undefined ? "" : `:${f.line}:${f.column}`} ${f.severity} ${f.reason}`
    ),
  );
  const expected = [
    "no-description/SKILL.md:1:1 error invalid-frontmatter",
    "malformed-yaml/SKILL.md:4:1 error malformed-frontmatter",
    "unquoted-colon/SKILL.md:3:14 error malformed-frontmatter",
    "duplicate-key/SKILL.md:4:1 error malformed-frontmatter",
    "yaml-alias/SKILL.md:3:9 error malformed-frontmatter",
    "no-frontmatter/SKILL.md:1:1 error malformed-frontmatter",
    "unclosed-frontmatter/SKILL.md:1:1 error malformed-frontmatter",
    "empty-frontmatter/SKILL.md:1:1 error invalid-frontmatter",
    "empty-frontmatter/SKILL.md:1:1 warning invalid-frontmatter",
    "name-mismatch/SKILL.md:2:1 warning name-mismatch",
    "Bad_Rule/SKILL.md:2:1 warning invalid-frontmatter",
    "bad name error unusable-name",
    "twins/one/twin error duplicate-name",
    "twins/two/twin error duplicate-name",
    "lowercase-skill-md/skill.md warning skill-md-case",
    "mixed-case-skill-md/Skill.md error skill-md-case",
  ];
  for (const item of expected) assert.ok(seen.has(`${BROKEN}/${item}`), `reported: ${item}`);
  for (const finding of found) {
    assert.ok(
      finding.path.startsWith(`${BROKEN}/`),
      `relative to the working directory: ${finding.path}`,
    );
    const info = await Deno.stat(`${REPO_ROOT}${finding.path}`);
    if (/\/skill\.md$/i.test(finding.path) && info.isFile && finding.reason !== "skill-md-case") {
      assert.ok(finding.line !== undefined, `a finding inside a file has a line: ${finding.path}`);
    }
  }
  const errors = found.filter((finding) => finding.severity === "error").length;
  assert.equal(errors, expected.filter((item) => item.includes(" error ")).length);
  assert.match(summary, new RegExp(`^FAILED: 1 path checked, 3 usable skills, ${errors} errors, `));
});

Deno.test("validate exits 0 on warnings only and accepts a SKILL.md path for its folder", async () => {
  await using tree = await makeTree({
    "renamed/SKILL.md": skillMd("old-name"),
    "clean/SKILL.md": skillMd("clean"),
  });
  const run = await runProgram(["validate", tree.at("renamed"), tree.at("clean/SKILL.md")]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const { findings: found, summary } = findings(run.stdout);
  assert.ok(found.some((f) => f.reason === "name-mismatch" && f.line === "2" && f.column === "1"));
  assert.ok(found.every((f) => f.severity === "warning"));
  assert.match(summary, /^OK: 2 paths checked, 2 usable skills, 0 errors, \d+ warnings?$/);
});

Deno.test("validate exits 2 for a path that does not exist or no path at all", async () => {
  await using tree = await makeTree({});
  const missing = await runProgram(["validate", tree.at("nowhere")]);
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, "");
  assert.match(missing.stderr, /Skill root ".*\/nowhere" does not exist/);
  const none = await runProgram(["validate"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Nothing to validate/);
});

Deno.test("validate of an empty folder fails (exit 1) instead of a false OK in CI", async () => {
  await using tree = await makeTree({ "notes/readme.txt": "not a skill\n" });
  for (const path of [tree.path, tree.at("notes")]) {
    const run = await runProgram(["validate", path]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const { findings: found, summary } = findings(run.stdout);
    assert.equal(found.length, 1);
    assert.equal(found[0]?.severity, "error");
    assert.equal(found[0]?.reason, "no-skill-md");
    assert.match(found[0]?.detail ?? "", /^No skill found here, so nothing was validated\. /);
    assert.match(summary, /^FAILED: 1 path checked, 0 usable skills, 1 error, 0 warnings$/);
  }
  const good = skillDir(FIXTURE_CORPUS, FIXTURE_CORPUS.path, FIXTURE_CORPUS.facts.rich.skill);
  const mixed = await runProgram(["validate", tree.path, good]);
  assert.equal(mixed.code, 1, "one empty path among good ones still fails");
});

Deno.test("a skill folder refused for its name is reported once, not also as holding no SKILL.md", async () => {
  await using tree = await makeTree({
    "bad name/SKILL.md": skillMd("bad-name", "A skill in a folder whose name has a space."),
  });
  for (const path of [tree.at("bad name"), tree.path]) {
    const run = await runProgram(["validate", path]);
    assert.equal(run.code, 1, "a refused folder still fails validate");
    const { findings: found, summary } = findings(run.stdout);
    assert.deepEqual(found.map((finding) => finding.reason), ["unusable-name"], run.stdout);
    assert.match(found[0]?.detail ?? "", /Rename the folder$/);
    assert.match(summary, /^FAILED: 1 path checked, 0 usable skills, 1 error, 0 warnings$/);
  }
  const listed = await runProgram(["list", tree.path, "--json"]);
  const answer = JSON.parse(listed.stdout) as { problems: { reason: string }[] };
  assert.deepEqual(answer.problems.map((problem) => problem.reason), ["unusable-name"]);
});

Deno.test("list and serve keep an empty root a warning, not a failure", async () => {
  await using tree = await makeTree({ "notes/readme.txt": "not a skill\n" });
  const listed = await runProgram(["list", tree.path, "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  const answer = JSON.parse(listed.stdout) as {
    problems: { reason: string; severity: string }[];
  };
  assert.deepEqual(
    answer.problems.map((problem) => [problem.reason, problem.severity]),
    [["no-skill-md", "warning"]],
  );
  await using session = await connectStdio(["serve", tree.path]);
  const served = (await session.call("skill_list", {})).structuredContent as typeof answer;
  assert.deepEqual(
    served.problems.map((problem) => [problem.reason, problem.severity]),
    [["no-skill-md", "warning"]],
  );
});

Deno.test("attack: validate and list report an interpreter: exec script that is not executable, before any run", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": "---\nname: s\ndescription: d\nmcp-host:\n  version: 1\n  run:\n" +
      "    - script: scripts/ex2.sh\n      interpreter: exec\n---\n# s\n",
    "s/scripts/ex2.sh": "#!/bin/sh\necho hi\n",
  });
  await Deno.chmod(tree.at("s/scripts/ex2.sh"), 0o644);
  const validated = await runProgram(["validate", tree.at("s")]);
  assert.notEqual(validated.code, 0, validated.stdout);
  const { findings: found } = findings(validated.stdout);
  const finding = found.find((f) => f.reason === "declared-script-missing");
  assert.equal(finding?.severity, "error", validated.stdout);
  assert.match(finding?.detail ?? "", /not executable/);

  const listed = await runProgram(["list", tree.path, "--json"], {
    env: { MCP_SKILL_RUN: JSON.stringify([{ skill: "s", script: "scripts/ex2.sh" }]) },
  });
  const json = JSON.parse(listed.stdout) as {
    skills: {
      name: string;
      scripts?: unknown[];
      unavailableScripts?: { script: string; reason: string }[];
    }[];
  };
  const skill = json.skills.find((entry) => entry.name === "s");
  assert.deepEqual(skill?.scripts ?? [], [], listed.stdout);
  const unavailable = skill?.unavailableScripts?.find((entry) => entry.script === "scripts/ex2.sh");
  assert.match(unavailable?.reason ?? "", /not executable/, listed.stdout);
});

Deno.test("validate warns when two paths hold different skills of one name, which one server would refuse", async () => {
  await using tree = await makeTree({
    "team/pdf/SKILL.md": skillMd("pdf"),
    "mine/pdf/SKILL.md": skillMd("pdf"),
  });
  const run = await runProgram(["validate", tree.at("team"), tree.at("mine")]);
  assert.equal(run.code, 0, "each path is valid alone");
  const { findings: found, summary } = findings(run.stdout);
  const clash = found.filter((f) => f.reason === "duplicate-name");
  assert.equal(clash.length, 1, run.stdout);
  assert.equal(clash[0]?.severity, "warning");
  assert.match(run.stdout, /served as roots of one server both would be refused/);
  assert.match(summary, /^OK: 2 paths checked, 2 usable skills, 0 errors, 1 warning$/);
  // The same folder given twice (a path and its SKILL.md) is no clash.
  const same = await runProgram(["validate", tree.at("team"), tree.at("team/pdf/SKILL.md")]);
  assert.ok(!findings(same.stdout).findings.some((f) => f.reason === "duplicate-name"));
});
