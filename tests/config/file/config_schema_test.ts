/** config.schema.json is generated from the option table and committed as generated. */

import assert from "node:assert/strict";
import {
  configSchema,
  configSchemaText,
  overridesSchemaText,
} from "../../../src/config/file/config_schema.ts";
import { fileKeyOf, OPTIONS } from "../../../src/config/options.ts";
import { REPO_ROOT } from "../../support/program.ts";

Deno.test("config.schema.json is exactly what `make schema` generates from the option table", async () => {
  const committed = await Deno.readTextFile(`${REPO_ROOT}config.schema.json`);
  assert.equal(committed, configSchemaText(), "run `make schema` and commit the result");
  const overrides = await Deno.readTextFile(`${REPO_ROOT}overrides.schema.json`);
  assert.equal(overrides, overridesSchemaText(), "run `make schema` and commit the result");
});

Deno.test("configSchema() names every option the file may set, and no key the file refuses", () => {
  const schema = configSchema() as {
    properties: Record<string, unknown>;
    additionalProperties: boolean;
  };
  assert.equal(schema.additionalProperties, false, "unknown keys are errors for editors too");
  for (const option of OPTIONS) {
    assert.equal(fileKeyOf(option) in schema.properties, option.isFileKey !== false, option.flag);
  }
  assert.ok("roots" in schema.properties && "$schema" in schema.properties);
});

Deno.test("the example configuration and overrides in examples/ are valid", async () => {
  const { parseConfigFile } = await import("../../../src/config/file/config_file.ts");
  const { parseOverridesFile } = await import("../../../src/config/file/overrides_file.ts");
  const config = parseConfigFile(
    "examples/config.json",
    await Deno.readTextFile(`${REPO_ROOT}examples/config.json`),
  );
  assert.deepEqual(config.roots, ["skills"]);
  assert.equal(config.values.get("maxSkills"), 500);
  const overrides = parseOverridesFile(
    "examples/overrides.json",
    await Deno.readTextFile(`${REPO_ROOT}examples/overrides.json`),
  );
  assert.deepEqual(overrides, { "color-palette": { modelInvocable: false } });
});
