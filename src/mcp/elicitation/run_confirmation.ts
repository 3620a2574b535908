/**
 * The elicitation form that asks the user to confirm a script run, and how
 * its answer is read. One place holds both the form's schema and the rule
 * that reads the answer, so the default the form shows is the default the
 * answer is judged with.
 *
 * @module
 */

import type { UserAnswer } from "../tools/tool.ts";

/** A primitive property of a requested schema (MCP elicitation allows no nesting). */
export interface FormProperty {
  readonly type: "boolean" | "string" | "number" | "integer";
  readonly title?: string;
  readonly description?: string;
  readonly default?: boolean | string | number;
}

/** A flat object schema as MCP elicitation requests it. */
export interface FormSchema {
  readonly type: "object";
  readonly properties: Readonly<Record<string, FormProperty>>;
  readonly required?: readonly string[];
}

/**
 * The run confirmation form: one checkbox, `run`, checked by default. `run`
 * is not `required`: a client may accept the form as shown and send no
 * content (or only the fields the user touched), and the schema's default
 * then stands for the untouched checkbox.
 */
export const RUN_CONFIRMATION_SCHEMA: FormSchema = confirmationForm({
  title: "Run this script",
  description: "Leave checked to run exactly what is shown",
});

/** The words on a confirmation form's one checkbox. */
export interface ConfirmationWords {
  readonly title: string;
  readonly description: string;
}

/**
 * A confirmation form of the same shape as {@linkcode RUN_CONFIRMATION_SCHEMA}
 * (one checkbox, `run`, checked by default; read by {@linkcode readRunConfirmation})
 * with other words, e.g. for a settings change.
 *
 * @param words The checkbox's title and description.
 * @returns The frozen form schema.
 */
export function confirmationForm(words: ConfirmationWords): FormSchema {
  return Object.freeze({
    type: "object",
    properties: Object.freeze({
      run: Object.freeze({
        type: "boolean",
        title: words.title,
        description: words.description,
        default: true,
      }),
    }),
  });
}

/**
 * Fills every property the content leaves out with the schema's `default`,
 * as a form would have shown it. A property present in the content keeps its
 * value; a property without a default stays absent. Pure.
 *
 * @param schema The schema the form was requested with.
 * @param content The accepted content, or undefined when the client sent none.
 * @returns A new object: the content's own entries, then the defaults.
 *
 * Source: MCP 2025-11-25, "Elicitation", requested schema (primitive
 * properties with optional `default`).
 */
export function withSchemaDefaults(
  schema: FormSchema,
  content: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...(content ?? {}) };
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(filled, name) && property.default !== undefined) {
      filled[name] = property.default;
    }
  }
  return filled;
}

/**
 * Reads the user's answer to the run confirmation form: `accept` only when
 * the client accepted and `run`, after the schema's defaults are applied, is
 * exactly `true`; an accepted form with `run: false` (or a value that is not
 * a boolean) is a decline. Pure.
 *
 * @param result The elicitation result's `action` and `content`.
 * @returns `accept`, `decline` or `cancel`.
 */
export function readRunConfirmation(result: {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Readonly<Record<string, unknown>> | undefined;
}): UserAnswer {
  if (result.action !== "accept") return result.action;
  const filled = withSchemaDefaults(RUN_CONFIRMATION_SCHEMA, result.content);
  return filled.run === true ? "accept" : "decline";
}
