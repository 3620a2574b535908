/**
 * The JSON Schema of the configuration file, generated from the option
 * table, so an option added to the table is documented and completed by
 * editors without a hand edit. `make schema` writes it to
 * `config.schema.json`; a test checks the committed file is this output.
 * (Validation at load is `config_file.ts`, which reads the same table and
 * locates each finding; the schema is for editors.)
 *
 * @module
 */

import { fileKeyOf, OPTIONS, type OptionSpec } from "../options.ts";

/**
 * The configuration file's JSON Schema (draft 2020-12).
 *
 * @returns A plain JSON value; `JSON.stringify(value, null, 2)` plus a
 *   newline is the committed `config.schema.json`.
 */
export function configSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    $schema: { type: "string", description: "This schema, for editors" },
    roots: {
      type: "array",
      items: { type: "string", minLength: 1 },
      description: "Skill roots, used only when no ROOT argument, MCP_SKILLS_PATH or " +
        "SKILLS_DIR gives any; relative paths resolve against this file's folder, ~/ to HOME",
    },
  };
  for (const option of OPTIONS) {
    if (option.isFileKey === false) continue;
    properties[fileKeyOf(option)] = {
      ...valueSchema(option),
      description: `--${option.flag} / ${option.env}: ${option.help}`,
    };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "skillgate configuration file",
    description: "Generated from src/config/options.ts by `make schema`; do not edit. " +
      "Precedence per option: flag > variable > this file > default.",
    type: "object",
    additionalProperties: false,
    properties,
  };
}

/**
 * The schema text as committed: two-space JSON and a final newline.
 *
 * @returns The file's content.
 */
export function configSchemaText(): string {
  return `${JSON.stringify(configSchema(), null, 2)}\n`;
}

/**
 * The JSON Schema of `overrides.json` (draft 2020-12): per served skill
 * name, the three switches and nothing else.
 *
 * @returns A plain JSON value; the committed `overrides.schema.json`.
 */
export function overridesSchema(): Record<string, unknown> {
  const switchSchema = (what: string) => ({
    type: "boolean",
    description: `false: ${what}; true or absent: as the skill's frontmatter says (never wider)`,
  });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "skillgate per-skill overrides",
    description: "Written by `skillgate override NAME --disable|--enable|--hide-from-model|" +
      "--show-to-model|--no-prompt|--prompt` or by hand; overrides only narrow.",
    type: "object",
    additionalProperties: false,
    properties: {
      $schema: { type: "string", description: "This schema, for editors" },
      skills: {
        type: "object",
        description: "Overrides by served skill name",
        additionalProperties: {
          type: "object",
          additionalProperties: false,
          properties: {
            enabled: switchSchema("the skill is not served at all"),
            modelInvocable: switchSchema(
              "left out of the model's catalog and skill_search (still a prompt)",
            ),
            userInvocable: switchSchema("no prompt"),
          },
        },
      },
      setByView: {
        type: "object",
        description: "Written by skillgate: the switches a settings view (MCP Apps) turned " +
          "off, the only ones a view may turn back on",
        additionalProperties: {
          type: "array",
          items: { enum: ["enabled", "modelInvocable", "userInvocable"] },
        },
      },
    },
  };
}

/**
 * The overrides schema text as committed: two-space JSON and a final newline.
 *
 * @returns The file's content.
 */
export function overridesSchemaText(): string {
  return `${JSON.stringify(overridesSchema(), null, 2)}\n`;
}

function valueSchema(option: OptionSpec): Record<string, unknown> {
  const kind = option.kind;
  switch (kind.type) {
    case "integer":
      return { type: "integer", minimum: kind.min, maximum: kind.max };
    case "boolean":
      return { type: "boolean" };
    case "enum":
      return { type: "string", enum: [...kind.values] };
    case "string":
      return { type: "string", minLength: 1 };
    case "repeatable":
      return { type: "array", items: { type: "string", minLength: 1 } };
    case "list": {
      const items: Record<string, unknown> = { type: "string", minLength: 1 };
      if (kind.entries === "origin") items.pattern = "^https?://[^/]+$";
      return { type: "array", items };
    }
    case "port":
      return {
        oneOf: [
          { type: "integer", minimum: 1, maximum: 65_535 },
          { type: "boolean" },
          { type: "null" },
        ],
      };
    default: {
      const unknownKind: never = kind;
      throw new Error(`No schema for option kind ${JSON.stringify(unknownKind)}`);
    }
  }
}

if (import.meta.main) {
  // `make schema`: write both schemas beside deno.json.
  await Deno.writeTextFile(
    new URL("../../../config.schema.json", import.meta.url),
    configSchemaText(),
  );
  await Deno.writeTextFile(
    new URL("../../../overrides.schema.json", import.meta.url),
    overridesSchemaText(),
  );
}
