import assert from "node:assert/strict";
import {
  formatMs,
  formatRatio,
  formatSummary,
  renderTable,
} from "../../bench/support/markdown_table.ts";
import { summarise } from "../../bench/support/stats.ts";

Deno.test("renderTable() pads cells and right-aligns every column but the first", () => {
  const text = renderTable({ columns: ["Catalog", "ms"], rows: [["floor", "105"], ["x", "1"]] });
  assert.equal(
    text,
    [
      "| Catalog |  ms |",
      "| ------- | --: |",
      "| floor   | 105 |",
      "| x       |   1 |",
      "",
    ].join("\n"),
  );
});

Deno.test("renderTable() escapes a pipe inside a cell", () => {
  const text = renderTable({ columns: ["a"], rows: [["x|y"]], rightAligned: [] });
  assert.match(text, /\| x\\\|y \|/);
});

Deno.test("renderTable() refuses a row whose width differs from the header", () => {
  assert.throws(() => renderTable({ columns: ["a", "b"], rows: [["1"]] }), RangeError);
});

Deno.test("formatMs() keeps three significant figures or whole milliseconds", () => {
  assert.equal(formatMs(0.4219), "0.42");
  assert.equal(formatMs(12.345), "12.3");
  assert.equal(formatMs(4071.6), "4,072");
  assert.equal(formatMs(-2826.73), "-2,827");
  assert.equal(formatMs(-5.123), "-5.12");
});

Deno.test("formatRatio() divides by the floor and says when there is none", () => {
  assert.equal(formatRatio(300, 100), "3.00×");
  assert.equal(formatRatio(4_000, 120), "33.3×");
  assert.equal(formatRatio(100_000, 100), "1000×");
  assert.equal(formatRatio(1, 0), "–");
});

Deno.test("formatSummary() prints median and p95", () => {
  assert.equal(formatSummary(summarise([1, 2, 3])), "2.00 / 3.00");
});
