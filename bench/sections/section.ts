/**
 * What a benchmark section is. A section measures one feature and returns
 * tables and notes; `bench/main.ts` prints them. Register a new section in
 * `bench/sections/registry.ts`.
 *
 * @module
 */

import type { BenchContext } from "../context.ts";
import type { MarkdownTable } from "../support/markdown_table.ts";

/** One section of the benchmark. */
export interface BenchSection {
  /** Short id for `--only`, e.g. `startup`. Lowercase letters, digits and `-`. */
  readonly id: string;
  /** The heading printed above its tables. */
  readonly title: string;
  /** The issue that asked for it. */
  readonly issue: number;
  /** One line for `--list`. */
  readonly summary: string;
  /**
   * Measures and returns tables and notes. Progress goes to `context.log`
   * (stderr); nothing is printed to stdout. A feature missing from the tree
   * is a note, not an error (return `{ tables: [], notes: [why] }`).
   */
  run(context: BenchContext): Promise<SectionReport>;
}

/** What a section found. */
export interface SectionReport {
  readonly tables: readonly MarkdownTable[];
  /** Sentences printed under the tables (method, skips, caveats). */
  readonly notes: readonly string[];
}
