/** loadConfig(): where the file is looked for, --config and --no-config; `skillgate config --json`. */

import assert from "node:assert/strict";
import { configReport, renderConfig, runConfigCommand } from "../../../src/cli/config_command.ts";
import { UsageError } from "../../../src/config/cli.ts";
import { ConfigFileError } from "../../../src/config/file/json_document.ts";
import { loadConfig, readOwnerFile } from "../../../src/config/file/load_config.ts";

async function withFolder(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-config-" });
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function load(args: string[], env: Record<string, string>) {
  return loadConfig({ args, getEnv: (name) => env[name], cwd: "/work" });
}

Deno.test("loadConfig() reads $XDG_CONFIG_HOME/skillgate/config.json, else ~/.config/skillgate", async () => {
  await withFolder(async (dir) => {
    await Deno.mkdir(`${dir}/xdg/skillgate`, { recursive: true });
    await Deno.writeTextFile(`${dir}/xdg/skillgate/config.json`, '{ "maxSkills": 7 }');
    await Deno.mkdir(`${dir}/home/.config/skillgate`, { recursive: true });
    await Deno.writeTextFile(`${dir}/home/.config/skillgate/config.json`, '{ "maxSkills": 9 }');
    const xdg = await load(["/r"], { XDG_CONFIG_HOME: `${dir}/xdg`, HOME: `${dir}/home` });
    assert.equal(xdg.config.options.maxSkills, 7);
    assert.equal(xdg.location?.overridesPath, `${dir}/xdg/skillgate/overrides.json`);
    const home = await load(["/r"], { HOME: `${dir}/home` });
    assert.equal(home.config.options.maxSkills, 9);
    assert.equal(home.config.configFile, `${dir}/home/.config/skillgate/config.json`);
    const off = await load(["/r", "--no-config"], { HOME: `${dir}/home` });
    assert.equal(off.config.options.maxSkills, 10_000);
    assert.equal(off.location, null);
    const missing = await load(["/r"], { HOME: `${dir}/nobody` });
    assert.equal(missing.file, null, "a missing default file is no file");
  });
});

Deno.test("loadConfig(): --config must name a file that exists; its errors are located", async () => {
  await withFolder(async (dir) => {
    await assert.rejects(load(["/r", `--config=${dir}/none.json`], {}), UsageError);
    await Deno.writeTextFile(`${dir}/bad.json`, '{\n  "tools": "sometimes"\n}\n');
    await assert.rejects(
      load(["/r"], { SKILLGATE_CONFIG: `${dir}/bad.json` }),
      (error: unknown) =>
        error instanceof ConfigFileError &&
        error.message === `${dir}/bad.json:2:12: "tools" must be one of "auto", "always", ` +
            `"never", got "sometimes"`,
    );
  });
});

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));
}

Deno.test("attack: a FIFO at config.json or overrides.json is refused as not a regular file, without waiting for a writer", async () => {
  await withFolder(async (dir) => {
    await Deno.mkdir(`${dir}/skillgate`);
    await mkfifo(`${dir}/skillgate/config.json`);
    await assert.rejects(
      load(["/r"], { XDG_CONFIG_HOME: dir }),
      (error: unknown) =>
        error instanceof ConfigFileError &&
        error.message.includes("is not a regular file (it is a FIFO)"),
    );
    await Deno.remove(`${dir}/skillgate/config.json`);
    await mkfifo(`${dir}/skillgate/overrides.json`);
    await assert.rejects(
      readOwnerFile(`${dir}/skillgate/overrides.json`),
      (error: unknown) =>
        error instanceof ConfigFileError && error.message.includes("(it is a FIFO)"),
    );
    await Deno.mkdir(`${dir}/folder.json`);
    await assert.rejects(
      readOwnerFile(`${dir}/folder.json`),
      (error: unknown) =>
        error instanceof ConfigFileError && error.message.includes("(it is a folder)"),
    );
  });
});

Deno.test("readOwnerFile() follows a symlinked configuration to a regular file", async () => {
  await withFolder(async (dir) => {
    await Deno.writeTextFile(`${dir}/real.json`, '{ "maxSkills": 3 }');
    await Deno.symlink(`${dir}/real.json`, `${dir}/config.json`);
    assert.equal(await readOwnerFile(`${dir}/config.json`), '{ "maxSkills": 3 }');
    assert.equal(await readOwnerFile(`${dir}/absent.json`), null);
  });
});

Deno.test("`skillgate config --json` reports every value with its source", async () => {
  await withFolder(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/c.json`,
      JSON.stringify({ roots: ["skills"], maxSkills: 12, tools: "never", maxCallBytes: 4096 }),
    );
    const { config, location } = await load(
      ["config", "--json", `--config=${dir}/c.json`, "--tools=always"],
      { SKILLGATE_MAX_CALL_BYTES: "8192" },
    );
    const report = JSON.parse(JSON.stringify(configReport(config, location)));
    assert.deepEqual(report.configFile, { path: `${dir}/c.json`, isRead: true });
    assert.deepEqual(report.roots, [{ path: `${dir}/skills`, from: "config" }]);
    assert.deepEqual(report.options.maxSkills, {
      value: 12,
      source: "file",
      flag: "--max-skills",
      env: "SKILLGATE_MAX_SKILLS",
    });
    assert.equal(report.options.tools.source, "flag");
    assert.equal(report.options.tools.value, "always");
    assert.equal(report.options.maxCallBytes.source, "variable");
    assert.equal(report.options.maxCallBytes.value, 8192);
    assert.equal(report.options.catalog.source, "default");
    assert.equal(report.options.json.source, "flag");
    const table = renderConfig(configReport(config, location));
    assert.match(table, /maxSkills +12 +file/);
    assert.match(table, /maxCallBytes +8192 +variable/);
  });
});

Deno.test("`skillgate config` says which roots are not there (exit 0: it only reports), as serve and list would refuse them", async () => {
  await withFolder(async (dir) => {
    await Deno.mkdir(`${dir}/present`);
    await Deno.writeTextFile(`${dir}/a-file`, "x");
    for (const json of [false, true]) {
      const { config, location } = await load([
        "config",
        ...(json ? ["--json"] : []),
        `${dir}/present`,
        `${dir}/missing`,
        `${dir}/a-file`,
      ], { XDG_CONFIG_HOME: `${dir}/xdg` });
      let out = "";
      const code = await runConfigCommand(config, location, {
        writeOut: (text) => Promise.resolve(void (out += text)),
        writeErr: () => Promise.resolve(),
        isTerminal: false,
        columns: 100,
        cwd: dir,
        getEnv: () => undefined,
      });
      assert.equal(code, 0);
      if (json) {
        const roots = JSON.parse(out).roots;
        assert.deepEqual(roots[0], { path: `${dir}/present`, from: "argument" });
        assert.match(roots[1].problem, /missing" does not exist \(from argument\); check the path/);
        assert.match(roots[2].problem, /a-file" is not a folder/);
      } else {
        assert.match(out, new RegExp(`${dir}/present +\\(argument\\)\\n`));
        assert.match(
          out,
          /missing +\(argument\)\n +refused by serve, list and validate: Skill root/,
        );
        assert.match(
          out,
          /a-file +\(argument\)\n +refused by serve, list and validate: .*not a folder/,
        );
      }
    }
  });
});

Deno.test("hosted: a configuration file's roots replaced by MCP_SKILLS_PATH are said not used, not dropped silently", async () => {
  await withFolder(async (dir) => {
    await Deno.writeTextFile(`${dir}/c.json`, JSON.stringify({ roots: ["skills"] }));
    const { config } = await load(["serve", `--config=${dir}/c.json`], {
      MCP_SKILLS_PATH: `${dir}/hosted`,
    });
    assert.deepEqual(config.roots.map((root) => root.path), [`${dir}/hosted`]);
    assert.ok(
      config.notices.some((notice) =>
        notice.includes(`"roots" are not used: MCP_SKILLS_PATH (set by the host) names the roots`)
      ),
      JSON.stringify(config.notices),
    );
  });
});
