/**
 * Attack (by accident of a host): a host's configuration writes `${VAR}` for a
 * variable and does not substitute it. For an ordinary setting that means
 * "unset"; for a variable that grants, keys or authenticates, reading it as
 * unset would widen what runs (standalone, an unset grant lets every
 * declaration stand, and a skill received the user's API_KEY). A placeholder
 * must never widen anything: scripts are refused with the reason, HTTP
 * without its token does not start, a hosted marker still marks hosted.
 */

import assert from "node:assert/strict";
import {
  HOSTED_MARKERS,
  parseCommandLine,
  SCRIPT_VARIABLES,
  UsageError,
} from "../../src/config/cli.ts";
import { OPTIONS } from "../../src/config/options.ts";
import { hasPlaceholder, isUnsetValue } from "../../src/config/env_value.ts";
import { grantsAnything, parseGrant } from "../../src/scripts/grant.ts";

function parse(env: Record<string, string>, args: string[] = ["serve", "/skills"]) {
  return parseCommandLine({ args, getEnv: (name) => env[name], cwd: "/" });
}

/** Every placeholder form a host may leave behind; each must fail closed everywhere. */
const FORMS: readonly string[] = [
  "${X}",
  "${env:X}",
  "${input:X}",
  "${X:-}",
  "${X:-default-value-long-enough}",
  "${workspaceFolder}",
  "${user_config.api_key}",
  "prefix-${X}-suffix-long-enough",
  "  ${env:X}  ",
  "${X",
  "{{X}}",
  "{{ user_config.api_key }}",
  "prefix-{{X}}-suffix-long-enough",
  "$X",
  "$MCP_SKILL_RUN",
  " $API_TOKEN ",
];

Deno.test("hasPlaceholder() and isUnsetValue() agree on every placeholder form", () => {
  for (const form of FORMS) {
    assert.equal(hasPlaceholder(form), true, `hasPlaceholder(${form})`);
    assert.equal(isUnsetValue(form), true, `isUnsetValue(${form})`);
  }
});

Deno.test("hasPlaceholder() leaves real values alone; isUnsetValue() only adds missing and blank", () => {
  const table: [string | undefined, boolean, boolean][] = [
    [undefined, false, true],
    ["", false, true],
    ["   ", false, true],
    ['[{"skill":"a","script":"b"}]', false, false],
    ['[{"skill":"a","script":"b","env":["API_KEY"]}]', false, false],
    ["pa$$word-with-dollars-inside", false, false],
    ["a$b", false, false],
    ["$", false, false],
    ["$1abc", false, false],
    ["/home/me/skills", false, false],
    ["0123456789abcdef0123456789abcdef", false, false],
    ["{json}", false, false],
    ["{{}}", false, false],
  ];
  for (const [value, placeholder, unset] of table) {
    assert.equal(hasPlaceholder(value), placeholder, `hasPlaceholder(${value})`);
    assert.equal(isUnsetValue(value), unset, `isUnsetValue(${value})`);
  }
});

Deno.test("attack: every placeholder form in every script variable grants nothing", () => {
  for (const form of FORMS) {
    for (const name of SCRIPT_VARIABLES) {
      const env: Record<string, string> = { [name]: form };
      if (name !== "MCP_SKILL_RUN") env.MCP_SKILL_RUN = '[{"skill":"a","script":"b"}]';
      const config = parse(env);
      assert.deepEqual(config.scripts.unsubstituted, [name], `${name}=${form}`);
      const grant = parseGrant(config.scripts.grantJson, {
        hosted: config.hosted,
        unsubstituted: config.scripts.unsubstituted,
      });
      assert.equal(grant.from, "unsubstituted", `${name}=${form}`);
      assert.equal(grantsAnything(grant), false, `${name}=${form}`);
      assert.equal(config.scripts.confirmSecret, null, `${name}=${form}`);
    }
  }
});

Deno.test("attack: every placeholder form in an HTTP token variable stops an HTTP start", () => {
  for (const form of FORMS) {
    for (const name of ["SKILLGATE_HTTP_TOKEN", "SKILLGATE_HTTP_TOKEN_FILE"]) {
      assert.throws(
        () => parse({ [name]: form }, ["serve", "/skills", "--http=18801"]),
        (error: unknown) =>
          error instanceof UsageError && error.message.startsWith(`${name} holds an unsubstituted`),
        `${name}=${form}`,
      );
    }
  }
});

Deno.test("attack: every placeholder form in a hosted marker still marks hosted, never a folder", () => {
  for (const form of FORMS) {
    for (const name of HOSTED_MARKERS) {
      const config = parse({ [name]: form });
      assert.equal(config.hosted, true, `${name}=${form}`);
      assert.equal(config.hostedBy, name, `${name}=${form}`);
      assert.equal(config.scripts.dataDir, null, `${name}=${form}`);
      assert.ok(
        config.roots.every((root) => !hasPlaceholder(root.path)),
        `${name}=${form}: a placeholder is never a root`,
      );
    }
  }
});

Deno.test("attack: every placeholder form in a SKILLGATE_* option leaves its default, said", () => {
  const defaults = parse({}).options as unknown as Record<string, unknown>;
  for (const form of FORMS) {
    for (const option of OPTIONS) {
      const config = parse({ [option.env]: form });
      const values = config.options as unknown as Record<string, unknown>;
      assert.deepEqual(values[option.key], defaults[option.key], `${option.env}=${form}`);
      assert.equal(config.sources?.[option.key], "default", `${option.env}=${form}`);
      assert.ok(
        config.notices.some((notice) => notice.startsWith(`${option.env} holds the unsubstituted`)),
        `${option.env}=${form}`,
      );
    }
  }
});

Deno.test("attack: an unsubstituted ${MCP_SKILL_RUN} standalone grants nothing, with the reason", () => {
  const config = parse({ MCP_SKILL_RUN: "${MCP_SKILL_RUN}", API_KEY: "user-secret" });
  assert.equal(config.hosted, false);
  assert.deepEqual(config.scripts.unsubstituted, ["MCP_SKILL_RUN"]);
  assert.equal(config.scripts.grantJson, null);
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    unsubstituted: config.scripts.unsubstituted,
  });
  assert.equal(grant.from, "unsubstituted");
  assert.deepEqual(grant.rows, [], "not null: the declarations do not stand");
  assert.equal(grantsAnything(grant), false);
  assert.match(
    grant.error ?? "",
    /^MCP_SKILL_RUN holds an unsubstituted placeholder \(\$\{\.\.\.\}, \{\{\.\.\.\}\} or a bare \$NAME\)/,
  );
});

Deno.test("attack: a placeholder in any script variable refuses every script", () => {
  for (const name of SCRIPT_VARIABLES) {
    const config = parse({ MCP_SKILL_RUN: '[{"skill":"a","script":"b"}]', [name]: "${X}" });
    assert.ok(config.scripts.unsubstituted.includes(name), name);
    const grant = parseGrant(config.scripts.grantJson, {
      hosted: false,
      unsubstituted: config.scripts.unsubstituted,
    });
    assert.equal(grantsAnything(grant), false, name);
  }
});

Deno.test("attack: a half-substituted MCP_CONFIRM_SECRET is not used as a guessable key", () => {
  const config = parse({ MCP_CONFIRM_SECRET: "${CONFIRM_SECRET}-and-some-padding" });
  assert.equal(config.scripts.confirmSecret, null);
  assert.deepEqual(config.scripts.unsubstituted, ["MCP_CONFIRM_SECRET"]);
});

Deno.test("attack: a placeholder MCP_CONFIRM_MODE does not fall back to asking and running", () => {
  const config = parse({ MCP_CONFIRM_MODE: "${MODE}" });
  assert.deepEqual(config.scripts.unsubstituted, ["MCP_CONFIRM_MODE"]);
  assert.equal(
    grantsAnything(parseGrant(null, { hosted: false, unsubstituted: ["MCP_CONFIRM_MODE"] })),
    false,
  );
});

Deno.test("attack: a hosted marker left as a placeholder still marks the server hosted", () => {
  for (const name of ["MCP_SKILLS_PATH", "MCP_DATA_DIR", "MCP_HOST_METER_FILE"]) {
    const config = parse({ [name]: "${" + name + "}" });
    assert.equal(config.hosted, true, name);
    assert.equal(config.hostedBy, name);
  }
  const config = parse({ MCP_DATA_DIR: "${MCP_DATA_DIR}" });
  assert.equal(config.scripts.dataDir, null, "a placeholder is no folder to hand to scripts");
});

Deno.test("attack: an unsubstituted HTTP token variable stops an HTTP start instead of serving open", () => {
  for (const name of ["SKILLGATE_HTTP_TOKEN", "SKILLGATE_HTTP_TOKEN_FILE"]) {
    assert.throws(
      () => parse({ [name]: "${TOKEN}" }, ["serve", "/skills", "--http=8080"]),
      (error: unknown) =>
        error instanceof UsageError && error.message.startsWith(`${name} holds an unsubstituted`),
      name,
    );
    assert.throws(
      () => parse({ [name]: "${TOKEN}", SKILLGATE_HTTP: "8080" }),
      UsageError,
      `${name} with SKILLGATE_HTTP`,
    );
    // On stdio no token is used, so the placeholder changes nothing.
    assert.equal(parse({ [name]: "${TOKEN}" }).httpToken, null, `${name} on stdio`);
  }
});

Deno.test("parseCommandLine() says when a SKILLGATE_* option is a placeholder and its default applies", () => {
  const config = parse({ SKILLGATE_MAX_SKILLS: "${MAX}" });
  assert.equal(config.caps.maxSkills, parse({}).caps.maxSkills);
  assert.ok(
    config.notices.some((notice) => notice.startsWith("SKILLGATE_MAX_SKILLS holds the")),
    config.notices.join("\n"),
  );
});

Deno.test("attack: MCP_SKILL_RUN set but empty or blank (a host substituting an unset variable) grants nothing, with the reason", () => {
  for (const value of ["", " ", "\t\n"]) {
    const config = parse({ MCP_SKILL_RUN: value, API_KEY: "user-secret" });
    assert.equal(config.scripts.grantJson, value);
    const grant = parseGrant(config.scripts.grantJson, {
      hosted: config.hosted,
      unsubstituted: config.scripts.unsubstituted,
    });
    assert.equal(grant.from, "blank", JSON.stringify(value));
    assert.deepEqual(grant.rows, [], "not null: the declarations do not stand");
    assert.equal(grantsAnything(grant), false);
    assert.match(grant.error ?? "", /set but empty.*Set it to \[\]/);
  }
  // Unset is still the standalone default.
  const unset = parseGrant(parse({}).scripts.grantJson, { hosted: false });
  assert.equal(unset.from, "declaration");
});
