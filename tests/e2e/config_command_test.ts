/**
 * The real program reading the configuration file: `skillgate config --json`
 * with each source, a broken file stopping the start with its place, and
 * `skillgate list` showing what the overrides leave served.
 */

import assert from "node:assert/strict";
import { REPO_ROOT, runProgram } from "../support/program.ts";

async function withConfig(
  files: Record<string, string>,
  run: (env: Record<string, string>, folder: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-config-cmd-" });
  try {
    await Deno.mkdir(`${dir}/skillgate`);
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/skillgate/${name}`, text);
    }
    await run({ XDG_CONFIG_HOME: dir }, `${dir}/skillgate`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("`skillgate config --json` prints each value with its source", async () => {
  const config = JSON.stringify({
    $schema: `${REPO_ROOT}config.schema.json`,
    roots: [`${REPO_ROOT}examples/skills`],
    maxSkills: 500,
    tools: "never",
  });
  await withConfig({ "config.json": config }, async (env, folder) => {
    const run = await runProgram(["config", "--json", "--tools=always"], {
      env: { ...env, SKILLGATE_MAX_SKILLS: "400" },
    });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.deepEqual(report.configFile, { path: `${folder}/config.json`, isRead: true });
    assert.equal(report.overridesFile, `${folder}/overrides.json`);
    assert.deepEqual(report.roots, [{ path: `${REPO_ROOT}examples/skills`, from: "config" }]);
    assert.deepEqual(
      [report.options.maxSkills.value, report.options.maxSkills.source],
      [400, "variable"],
    );
    assert.deepEqual([report.options.tools.value, report.options.tools.source], ["always", "flag"]);
    assert.deepEqual(
      [report.options.catalog.value, report.options.catalog.source],
      ["instructions", "default"],
    );
  });
});

Deno.test("a broken configuration file stops the start with its file, line and column", async () => {
  await withConfig(
    { "config.json": '{\n  "maxSkills": 10,\n  "toolz": "never"\n}\n' },
    async (env, folder) => {
      const run = await runProgram(["serve", `${REPO_ROOT}examples/skills`], { env });
      assert.equal(run.code, 2);
      assert.equal(
        run.stderr.trim(),
        `skillgate: ${folder}/config.json:3:3: unknown key "toolz" (did you mean "tools"?); ` +
          "the keys are listed in config.schema.json",
      );
      assert.equal(run.stdout, "");
    },
  );
});

Deno.test("`skillgate list` shows what overrides.json leaves served; --no-config ignores it", async () => {
  const overrides = JSON.stringify({ skills: { "color-palette": { enabled: false } } });
  await withConfig({ "overrides.json": overrides }, async (env) => {
    const list = async (...extra: string[]) => {
      const run = await runProgram(["list", "--json", `${REPO_ROOT}examples/skills`, ...extra], {
        env,
      });
      assert.equal(run.code, 0, run.stderr);
      return (JSON.parse(run.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name);
    };
    assert.deepEqual(await list(), ["release-notes"]);
    assert.deepEqual(await list("--no-config"), ["color-palette", "release-notes"]);
  });
});

Deno.test("`skillgate config` shows the index cache folder in use, or off and why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-config-cache-" });
  try {
    const env = { XDG_CONFIG_HOME: `${dir}/config`, XDG_CACHE_HOME: `${dir}/cache` };
    const root = `${REPO_ROOT}examples/skills`;
    const report = async (...args: string[]) => {
      const run = await runProgram(["config", "--json", root, ...args], { env });
      assert.equal(run.code, 0, run.stderr);
      return JSON.parse(run.stdout).options.indexCache as { value: unknown; note: string };
    };
    assert.deepEqual(await report(), {
      value: `${dir}/cache/skillgate/index`,
      source: "default",
      flag: "--index-cache",
      env: "SKILLGATE_INDEX_CACHE",
      note: "$XDG_CACHE_HOME",
    });
    const off = await report("--no-index-cache");
    assert.equal(off.value, null);
    assert.equal(off.note, "off: --no-index-cache is set");
    const atRoot = await report(`--index-cache=${root}`);
    assert.equal(atRoot.value, null);
    assert.match(atRoot.note, /^off: .* is, holds or lies inside the skill root /);
    const table = await runProgram(["config", root, "--no-index-cache"], { env });
    assert.match(
      table.stdout,
      /\n {2}indexCache +off +default +\(off: --no-index-cache is set\)\n/,
    );
    assert.doesNotMatch(table.stdout, /indexCache +null/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
