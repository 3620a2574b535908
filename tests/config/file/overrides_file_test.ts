/** overrides.json: its three switches per skill name, and located errors for anything else. */

import assert from "node:assert/strict";
import { ConfigFileError } from "../../../src/config/file/json_document.ts";
import { overridesFileText, parseOverridesFile } from "../../../src/config/file/overrides_file.ts";

const FILE = "/c/skillgate/overrides.json";

Deno.test("parseOverridesFile() reads enabled, modelInvocable and userInvocable per name", () => {
  const text = JSON.stringify({
    $schema: "./overrides.schema.json",
    skills: { pdf: { enabled: false }, deploy: { modelInvocable: false, userInvocable: true } },
  });
  assert.deepEqual(parseOverridesFile(FILE, text), {
    pdf: { enabled: false },
    deploy: { modelInvocable: false, userInvocable: true },
  });
  assert.deepEqual(parseOverridesFile(FILE, "{}"), {});
});

Deno.test("parseOverridesFile(): each kind of broken file names the file, line, column and key", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["bad JSON", '{ "skills": { "a": { "enabled": false }, } }', /:1:42: not valid JSON/],
    ["unknown top key", '{\n  "pdf": { "enabled": false }\n}', /:2:3: unknown key "pdf"/],
    [
      "unknown switch",
      '{ "skills": {\n  "pdf": { "visible": false } } }',
      /:2:12: unknown key "visible"; a skill's overrides are enabled, modelInvocable, userInvocable/,
    ],
    [
      "wrong type",
      '{ "skills": { "pdf": { "enabled": "no" } } }',
      /:1:35: "skills\.pdf\.enabled" must be true or false, got a string/,
    ],
    [
      "a name no skill can have",
      '{ "skills": { "../etc": { "enabled": false } } }',
      /:1:15: "\.\.\/etc" cannot be a skill's name/,
    ],
    [
      "duplicate name",
      '{ "skills": { "a": {}, "a": { "enabled": false } } }',
      /:1:24: "a" appears twice/,
    ],
  ];
  for (const [name, text, pattern] of cases) {
    await t.step(name, () => {
      assert.throws(() => parseOverridesFile(FILE, text), (error: unknown) => {
        assert.ok(error instanceof ConfigFileError);
        assert.ok(error.message.startsWith(`${FILE}:`), error.message);
        assert.match(error.message, pattern);
        return true;
      });
    });
  }
});

Deno.test("overridesFileText() writes sorted names, drops empty entries and keeps $schema", () => {
  const text = overridesFileText(
    { zeta: { userInvocable: false }, alpha: { enabled: false }, empty: {} },
    "./overrides.schema.json",
  );
  assert.equal(
    text,
    '{\n  "$schema": "./overrides.schema.json",\n  "skills": {\n    "alpha": {\n' +
      '      "enabled": false\n    },\n    "zeta": {\n      "userInvocable": false\n    }\n  }\n}\n',
  );
  assert.deepEqual(parseOverridesFile(FILE, text), {
    alpha: { enabled: false },
    zeta: { userInvocable: false },
  });
});

Deno.test("attack: a __proto__ entry in overrides.json is an error at its line, never a prototype swap", () => {
  for (const key of ["skills", "setByView"]) {
    const value = key === "skills" ? `{ "enabled": false }` : `["enabled"]`;
    const text = `{\n  "${key}": {\n    "__proto__": ${value}\n  }\n}\n`;
    assert.throws(
      () => parseOverridesFile("/c/overrides.json", text),
      (error: unknown) => error instanceof ConfigFileError && /__proto__/.test(String(error)),
    );
  }
});
