/** Two distinct non-default values per option, as JSON (for the file) and as text (flag, variable). */

import { DEFAULT_OPTION_VALUES, type OptionSpec } from "../../../src/config/options.ts";

/** File keys a sample of a remote source needs beside it: its owner on the allowlist. */
export const ALLOW_FOR_SOURCES: Readonly<Record<string, unknown>> = Object.freeze({
  githubAllow: ["acme"],
});

/** A sample value: what the file holds, what a flag or variable says, and the parsed value. */
export interface Sample {
  readonly json: unknown;
  readonly text: string;
  readonly value: unknown;
}

/**
 * Two different valid values for `option`, both unlike its default.
 *
 * @param option An option of the table.
 * @returns `[a, b]`.
 */
export function samplesFor(option: OptionSpec): [Sample, Sample] {
  const fallback = (DEFAULT_OPTION_VALUES as unknown as Record<string, unknown>)[option.key];
  const kind = option.kind;
  switch (kind.type) {
    case "integer": {
      const picks = [kind.min, kind.min + 1, kind.max].filter((n) => n !== fallback);
      const [a, b] = picks as [number, number];
      return [{ json: a, text: `${a}`, value: a }, { json: b, text: `${b}`, value: b }];
    }
    case "boolean":
      // One of the two equals the default for a boolean; both are still distinct settings.
      return [
        { json: !fallback, text: `${!fallback}`, value: !fallback },
        { json: fallback, text: `${fallback}`, value: fallback },
      ];
    case "enum": {
      const others = kind.values.filter((v) => v !== fallback);
      const a = others[0]!;
      const b = others[1] ?? fallback as string;
      return [{ json: a, text: a, value: a }, { json: b, text: b, value: b }];
    }
    case "string":
      return [
        { json: "alpha.example", text: "alpha.example", value: "alpha.example" },
        { json: "beta.example", text: "beta.example", value: "beta.example" },
      ];
    case "list": {
      const [a, b] = option.key === "rootPrefix"
        ? ["team=/r", "ops=/r"] // PREFIX=PATH naming the root the tests configure
        : kind.entries === "origin"
        ? ["https://a.example", "https://b.example:8443"]
        : kind.entries === "host"
        ? ["a.example:8080", "b.example"]
        : ["a", "b"];
      return [{ json: [a], text: a!, value: [a] }, {
        json: [a, b],
        text: `${a},${b}`,
        value: [a, b],
      }];
    }
    case "port":
      return [{ json: 8123, text: "8123", value: 8123 }, { json: 9123, text: "9123", value: 9123 }];
    case "repeatable": {
      // Remote sources: the owner `acme` must be allowed too (see ALLOW_FOR_SOURCES).
      const [a, b] = ["github:acme/one", "github:acme/two"];
      return [{ json: [a], text: a, value: [a] }, {
        json: [a, b],
        text: `${a} ${b}`,
        value: [a, b],
      }];
    }
  }
}
