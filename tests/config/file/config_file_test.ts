/**
 * The configuration file: every option round-trips through it, each kind of
 * broken file gives a located message, precedence per option and for roots,
 * and a hosted file may only narrow.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { parseConfigFile } from "../../../src/config/file/config_file.ts";
import { ConfigFileError } from "../../../src/config/file/json_document.ts";
import { fileKeyOf, OPTIONS } from "../../../src/config/options.ts";
import { ALLOW_FOR_SOURCES, samplesFor } from "./_samples.ts";

/** A remote source sample needs its owner allowed (default deny). */
function withAllow(option: { kind: { type: string } }): Record<string, unknown> {
  return option.kind.type === "repeatable" ? ALLOW_FOR_SOURCES : {};
}

const FILE = "/home/u/.config/skillgate/config.json";
const FILE_OPTIONS = OPTIONS.filter((option) => option.isFileKey !== false);

function parse(
  args: string[],
  env: Record<string, string>,
  fileText: string | null,
) {
  return parseCommandLine({
    args,
    getEnv: (name) => env[name],
    cwd: "/work",
    file: fileText === null ? null : parseConfigFile(FILE, fileText),
  });
}

function located(text: string): ConfigFileError {
  try {
    parseConfigFile(FILE, text);
  } catch (error) {
    if (error instanceof ConfigFileError) return error;
    throw error;
  }
  assert.fail(`expected a ConfigFileError for ${text}`);
}

Deno.test("parseConfigFile(): every option of the table round-trips through the file", async (t) => {
  for (const option of FILE_OPTIONS) {
    await t.step(fileKeyOf(option), () => {
      for (const sample of samplesFor(option)) {
        const text = JSON.stringify({ ...withAllow(option), [fileKeyOf(option)]: sample.json });
        const config = parse(["/r"], {}, text);
        let expected = sample.value;
        if (option.key === "httpTokenFile") expected = `/home/u/.config/skillgate/${sample.value}`;
        assert.deepEqual(
          (config.options as unknown as Record<string, unknown>)[option.key],
          expected,
        );
        assert.equal(config.sources?.[option.key], "file");
      }
    });
  }
});

Deno.test("parseCommandLine(): flag > variable > file > default, for every option", async (t) => {
  for (const option of FILE_OPTIONS) {
    await t.step(option.flag, () => {
      const [fileSample, envSample] = samplesFor(option);
      // The flag takes a third value where there is one, else the file's (still from the flag).
      const flagSample = fileSample;
      const text = JSON.stringify({ ...withAllow(option), [fileKeyOf(option)]: fileSample.json });
      const env = { [option.env]: envSample.text };
      const flag = option.kind.type === "boolean"
        ? `--${option.flag}=${flagSample.text}`
        : `--${option.flag}=${flagSample.text}`;
      const read = (config: ReturnType<typeof parse>) =>
        (config.options as unknown as Record<string, unknown>)[option.key];
      const resolved = (value: unknown, base: string) =>
        option.key === "httpTokenFile" ? `${base}/${value}` : value;
      const withAll = parse(["/r", flag], env, text);
      assert.deepEqual(read(withAll), resolved(flagSample.value, "/work"));
      assert.equal(withAll.sources?.[option.key], "flag");
      const withoutFlag = parse(["/r"], env, text);
      assert.deepEqual(read(withoutFlag), resolved(envSample.value, "/work"));
      assert.equal(withoutFlag.sources?.[option.key], "variable");
      const fileOnly = parse(["/r"], {}, text);
      assert.deepEqual(read(fileOnly), resolved(fileSample.value, "/home/u/.config/skillgate"));
      assert.equal(fileOnly.sources?.[option.key], "file");
      const none = parse(["/r"], {}, "{}");
      assert.equal(none.sources?.[option.key], "default");
    });
  }
});

Deno.test("parseCommandLine(): the file's roots apply only when no argument, MCP_SKILLS_PATH or SKILLS_DIR gives any", () => {
  const text = JSON.stringify({ roots: ["~/skills", "team", "/abs/x/"] });
  const fromFile = parse([], { HOME: "/home/u" }, text);
  assert.deepEqual(fromFile.roots, [
    { path: "/home/u/skills", from: "config" },
    { path: "/home/u/.config/skillgate/team", from: "config" },
    { path: "/abs/x", from: "config" },
  ]);
  assert.deepEqual(parse(["/arg"], {}, text).roots, [{ path: "/arg", from: "argument" }]);
  assert.deepEqual(parse([], { SKILLS_DIR: "/s" }, text).roots, [{
    path: "/s",
    from: "SKILLS_DIR",
  }]);
  assert.deepEqual(parse([], { MCP_SKILLS_PATH: "/h" }, text).roots, [
    { path: "/h", from: "MCP_SKILLS_PATH" },
  ]);
});

Deno.test("attack: a hosted configuration file cannot widen what the host set", () => {
  const env = { MCP_DATA_DIR: "/data" };
  const text = JSON.stringify({
    roots: ["/extra"],
    http: 8080,
    host: "0.0.0.0",
    allowedOrigins: ["https://evil.example"],
    isolation: "group",
    tools: "always",
    maxSkills: 50,
    static: true,
  });
  const config = parse(["/host-root"], env, text);
  assert.equal(config.hosted, true);
  assert.deepEqual(config.roots, [{ path: "/host-root", from: "argument" }]);
  assert.equal(config.options.http, null, "no listen address opened");
  assert.equal(config.options.host, "127.0.0.1");
  assert.deepEqual(config.options.allowedOrigins, []);
  assert.equal(config.options.isolation, "auto", "isolation not relaxed");
  assert.equal(config.options.tools, "auto");
  assert.equal(config.options.maxSkills, 50, "a lower cap narrows, so it applies");
  assert.equal(config.options.static, true, "freezing the catalog narrows");
  for (const key of ["http", "host", "allowedOrigins", "isolation", "tools"]) {
    assert.ok(
      config.notices.some((notice) => notice.includes(`"${key}" is not applied`)),
      `a notice says "${key}" was not applied`,
    );
  }
  const noRoots = parse(["config"], env, JSON.stringify({ roots: ["/extra"] }));
  assert.deepEqual(noRoots.roots, [], "hosted: the file adds no roots");
});

Deno.test("parseConfigFile(): each kind of broken file names the file, line, column and key", async (t) => {
  const cases: [string, string, RegExp, string | null][] = [
    ["bad JSON", '{\n  "maxSkills": 10,\n}\n', /:3:1: not valid JSON/, null],
    ["a comment", '{\n  // no\n  "tools": "never"\n}', /:2:3: not valid JSON: comments/, null],
    ["not an object", "[1]", /:1:1: the file must hold one JSON object/, null],
    [
      "wrong type",
      '{\n  "tools": "never",\n  "maxSkills": "10"\n}',
      /:3:16: "maxSkills" must be a whole number from 1 to 1000000, got a string$/,
      "maxSkills",
    ],
    [
      "unknown key",
      '{\n  "maxskills": 10\n}',
      /:2:3: unknown key "maxskills" \(did you mean "maxSkills"\?\)/,
      "maxskills",
    ],
    [
      "bad value",
      '{ "maxSkills": 0 }',
      /:1:16: "maxSkills" must be a whole number from 1 to 1000000, got 0$/,
      "maxSkills",
    ],
    [
      "bad enum value",
      '{ "isolation": "none" }',
      /:1:16: "isolation" must be one of "auto", "sandbox", "pid-namespace", "group", got "none"$/,
      "isolation",
    ],
    [
      "bad list entry",
      '{ "allowedOrigins": ["https://ok.example", "*"] }',
      /:1:44: "allowedOrigins" does not take "\*"/,
      "allowedOrigins",
    ],
    [
      "duplicate key",
      '{ "tools": "never",\n  "tools": "always" }',
      /:2:3: "tools" appears twice/,
      "tools",
    ],
    [
      "a secret",
      '{ "httpToken": "s3cr3t-value" }',
      /:1:3: "httpToken": secrets are never stored in the configuration file/,
      "httpToken",
    ],
    [
      "a key the file cannot set",
      '{ "config": "/other.json" }',
      /:1:3: "config" cannot be set inside the configuration file/,
      "config",
    ],
  ];
  for (const [name, text, pattern, key] of cases) {
    await t.step(name, () => {
      const error = located(text);
      assert.ok(error.message.startsWith(`${FILE}:`), error.message);
      assert.match(error.message, pattern);
      assert.equal(error.key, key);
    });
  }
});
