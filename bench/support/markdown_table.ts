/**
 * Markdown tables and the number formats the benchmark prints, so every
 * section reads the same way.
 *
 * @module
 */

import type { Summary } from "./stats.ts";

/** A table: a header row and body rows of the same width. */
export interface MarkdownTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns aligned right (numbers), by index. @default every column but the first */
  readonly rightAligned?: readonly number[];
}

/**
 * Renders a table as GitHub-flavoured Markdown, padded so it also reads as
 * plain text. A `|` inside a cell is escaped.
 *
 * @param table The table.
 * @returns The Markdown, ending with a newline.
 * @throws {RangeError} When a row's width differs from the header's.
 */
export function renderTable(table: MarkdownTable): string {
  const width = table.columns.length;
  for (const row of table.rows) {
    if (row.length !== width) {
      throw new RangeError(`Row has ${row.length} cells, the header ${width}: "${row.join(",")}"`);
    }
  }
  const right = new Set(table.rightAligned ?? table.columns.map((_, i) => i).slice(1));
  const escape = (cell: string) => cell.replaceAll("|", "\\|");
  const header = table.columns.map(escape);
  const body = table.rows.map((row) => row.map(escape));
  const sizes = header.map((cell, i) =>
    Math.max(3, cell.length, ...body.map((row) => (row[i] ?? "").length))
  );
  const line = (cells: readonly string[]) =>
    "| " +
    cells.map((cell, i) => {
      const size = sizes[i] ?? 3;
      return right.has(i) ? cell.padStart(size) : cell.padEnd(size);
    }).join(" | ") + " |";
  const rule = "|" +
    sizes.map((size, i) => right.has(i) ? ` ${"-".repeat(size - 1)}: ` : ` ${"-".repeat(size)} `)
      .join("|") +
    "|";
  return [line(header), rule, ...body.map(line)].join("\n") + "\n";
}

/**
 * Formats milliseconds with a precision that suits the size: `0.42`, `12.3`, `1,234`.
 *
 * @param ms A duration (or a difference of durations, maybe negative) in ms.
 * @returns The number without unit.
 */
export function formatMs(ms: number): string {
  const size = Math.abs(ms);
  if (size < 10) return ms.toFixed(2);
  if (size < 100) return ms.toFixed(1);
  return Math.round(ms).toLocaleString("en-US");
}

/**
 * Formats a summary as `median / p95`, e.g. `105 / 121`.
 *
 * @param summary The summary (ms).
 * @param format How to print one value. @default formatMs
 * @returns The cell text.
 */
export function formatSummary(summary: Summary, format: (value: number) => string = formatMs) {
  return `${format(summary.median)} / ${format(summary.p95)}`;
}

/**
 * Formats a ratio to the floor, e.g. `3.9×`; `1.00×` for the floor itself.
 *
 * @param value The measured value.
 * @param floor The floor's value in the same unit, > 0.
 * @returns The ratio text, or `–` when the floor is not positive.
 */
export function formatRatio(value: number, floor: number): string {
  if (!(floor > 0)) return "–";
  const ratio = value / floor;
  return `${ratio < 10 ? ratio.toFixed(2) : ratio < 100 ? ratio.toFixed(1) : Math.round(ratio)}×`;
}

/**
 * Formats a count with thousands separators, e.g. `10,000`.
 *
 * @param count An integer.
 * @returns The text.
 */
export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}
