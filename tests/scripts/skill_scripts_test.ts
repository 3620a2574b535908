import assert from "node:assert/strict";
import { skillBodyText } from "../../src/skills/skill_body.ts";
import { checkSkillScripts } from "../../src/scripts/skill_scripts.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { makeTree } from "../skills/_tree.ts";

const FRONTMATTER = {
  name: "demo",
  description: "d",
  "mcp-host": {
    version: 1,
    run: [
      { script: "scripts/ok.py", interpreter: "python3" },
      { script: "scripts/gone.py", interpreter: "python3" },
      { script: "scripts/out.py", interpreter: "python3" },
      { script: "scripts", interpreter: "bash" },
    ],
  },
};

Deno.test("checkSkillScripts() keeps existing scripts and reports missing and escaping ones", async () => {
  await using tree = await makeTree({
    "demo/scripts/ok.py": "print(1)\n",
    "outside.py": "print('outside')\n",
    "demo/scripts/out.py": { symlink: "../../outside.py" },
  });
  const realDir = await Deno.realPath(tree.at("demo"));
  const { scripts, problems } = await checkSkillScripts(FRONTMATTER, {
    dir: tree.at("demo"),
    realDir,
    skillMdPath: tree.at("demo/SKILL.md"),
    line: 3,
  });
  assert.deepEqual(scripts?.scripts.map((script) => script.script), ["scripts/ok.py"]);
  assert.equal(scripts?.realPaths["scripts/ok.py"], `${realDir}/scripts/ok.py`);
  assert.equal(scripts?.declaration.run.length, 4);
  assert.deepEqual(problems.map((problem) => [problem.reason, problem.path]), [
    ["declared-script-missing", tree.at("demo/scripts/gone.py")],
    ["symlink-escape", tree.at("demo/scripts/out.py")],
    ["declared-script-missing", tree.at("demo/scripts")],
  ]);
  assert.ok(problems.every((problem) => !problem.detail.includes(tree.path)));
});

Deno.test("a bad mcp-host block costs a skill its scripts, never its instructions", async () => {
  await using tree = await makeTree({
    "demo/SKILL.md": "---\nname: demo\ndescription: Demo.\nmcp-host:\n  version: 2\n" +
      "  run:\n    - script: run.sh\n      interpreter: bash\n---\n# Body\n",
    "demo/run.sh": "echo hi\n",
  });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
  const skill = catalog.byName.get("demo");
  assert.equal(await skillBodyText(skill!, DEFAULT_CAPS.maxSkillMdBytes), "# Body\n");
  assert.deepEqual(skill?.scripts?.scripts, []);
  const problem = catalog.problems.find((candidate) => candidate.reason === "declaration");
  assert.equal(problem?.severity, "error");
  assert.equal(problem?.line, 4);
});

Deno.test("attack: checkSkillScripts() reports an interpreter: exec script without an execute bit where it checks the file", async () => {
  await using tree = await makeTree({
    "demo/scripts/plain.sh": "#!/bin/sh\necho hi\n",
    "demo/scripts/runs.sh": "#!/bin/sh\necho hi\n",
  });
  await Deno.chmod(tree.at("demo/scripts/plain.sh"), 0o644);
  await Deno.chmod(tree.at("demo/scripts/runs.sh"), 0o755);
  const realDir = await Deno.realPath(tree.at("demo"));
  const frontmatter = {
    name: "demo",
    description: "d",
    "mcp-host": {
      version: 1,
      run: [
        { script: "scripts/plain.sh", interpreter: "exec" },
        { script: "scripts/runs.sh", interpreter: "exec" },
      ],
    },
  };
  const { scripts, problems } = await checkSkillScripts(frontmatter, {
    dir: tree.at("demo"),
    realDir,
    skillMdPath: tree.at("demo/SKILL.md"),
  });
  assert.deepEqual(scripts?.scripts.map((script) => script.script), ["scripts/runs.sh"]);
  assert.deepEqual(problems.map((problem) => [problem.reason, problem.severity, problem.path]), [
    ["declared-script-missing", "error", tree.at("demo/scripts/plain.sh")],
  ]);
  assert.match(problems[0]?.detail ?? "", /not executable.*chmod \+x/);
  assert.equal(scripts?.unusable?.["scripts/plain.sh"], problems[0]?.detail);
  assert.ok(!(problems[0]?.detail ?? "").includes(tree.path), "names only the script");
});
