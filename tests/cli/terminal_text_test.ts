import assert from "node:assert/strict";
import {
  cutToWidth,
  oneLine,
  oneLineName,
  padEnd,
  safeTerminalText,
} from "../../src/cli/terminal_text.ts";
import { problemLine } from "../../src/cli/problem_line.ts";

Deno.test("safeTerminalText() escapes escape sequences, C1 controls and bidi overrides", () => {
  assert.equal(safeTerminalText("a\x1b[2Jb"), "a\\u{1b}[2Jb");
  assert.equal(
    safeTerminalText("bell\x07 csi\u009b del\x7f cr\r"),
    "bell\\u{7} csi\\u{9b} del\\u{7f} cr\\u{d}",
  );
  assert.equal(safeTerminalText("evil\u202etxt.exe"), "evil\\u{202e}txt.exe");
  assert.equal(safeTerminalText("tab\tand\nnewline stay"), "tab\tand\nnewline stay");
});

Deno.test("oneLine() collapses whitespace and line breaks to single spaces", () => {
  assert.equal(oneLine("  Use when:\n  the user\t asks  "), "Use when: the user asks");
});

Deno.test("oneLineName() shows a newline in a folder name as an escape, never as a space", () => {
  assert.equal(oneLineName("/r/a\nb"), "/r/a\\u{a}b");
  assert.equal(
    oneLineName(" tab\there \u2028x\r\u202e "),
    " tab\\u{9}here \\u{2028}x\\u{d}\\u{202e} ",
  );
  const line = problemLine({
    path: "/r/a\nb",
    severity: "error",
    reason: "unusable-name",
    detail: "first line\nsecond",
  });
  assert.equal(line, "/r/a\\u{a}b: error unusable-name: first line second");
});

Deno.test("cutToWidth() keeps text that fits and ends cut text in an ellipsis", () => {
  assert.equal(cutToWidth("abcdef", 6), "abcdef");
  assert.equal(cutToWidth("abcdefg", 6), "abcde…");
  assert.equal(cutToWidth("émoji 😀 here", 8), "émoji 😀…");
  assert.equal(cutToWidth("abc", 0), "");
});

Deno.test("padEnd() pads by code points", () => {
  assert.equal(padEnd("😀", 3), "😀  ");
  assert.equal(padEnd("long", 2), "long");
});
