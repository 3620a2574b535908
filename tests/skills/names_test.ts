import assert from "node:assert/strict";
import {
  directoryNameRule,
  isSkippedEntryName,
  isSpecName,
  isUsableDirectoryName,
  specNameIssue,
} from "../../src/skills/names.ts";

Deno.test("isUsableDirectoryName() accepts ordinary names", () => {
  for (const name of ["pdf", "my-skill", "Skill_2", "ünïcode", "a.b", "x".repeat(255)]) {
    assert.equal(isUsableDirectoryName(name), true, name);
  }
});

Deno.test("isUsableDirectoryName() refuses names a client could not address", () => {
  const bad = [
    "",
    " lead",
    "trail ",
    "in side",
    "tab\there",
    "nbsp\u00a0x",
    "ideographic\u3000x",
    "50%",
    "a/b",
    "a\\b",
    "nul\u0000x",
    "bell\u0007",
    "del\u007f",
    "c1\u0085",
    "c1\u009b",
    ".hidden",
    "-dash",
    "bad\ufffd",
    "lone\ud800",
    "x".repeat(256),
    "é".repeat(128), // 256 UTF-8 bytes
  ];
  for (const name of bad) {
    assert.equal(isUsableDirectoryName(name), false, JSON.stringify(name));
  }
});

Deno.test("isSpecName() follows the Agent Skills naming rule", () => {
  for (const name of ["a", "pdf", "pdf-tools", "a1-b2", "x".repeat(64)]) {
    assert.equal(isSpecName(name), true, name);
  }
  for (const name of ["", "Pdf", "-a", "a-", "a--b", "a_b", "a.b", "ünï", "x".repeat(65)]) {
    assert.equal(isSpecName(name), false, name);
  }
});

Deno.test("specNameIssue() says what breaks the rule", () => {
  assert.equal(specNameIssue("ok-name"), null);
  assert.match(specNameIssue("") ?? "", /empty/);
  assert.match(specNameIssue("x".repeat(65)) ?? "", /65 characters/);
  assert.match(specNameIssue("-a") ?? "", /starts or ends/);
  assert.match(specNameIssue("a--b") ?? "", /doubled/);
  assert.match(specNameIssue("PDF") ?? "", /lowercase/);
});

Deno.test("isSkippedEntryName() skips dot-entries and node_modules", () => {
  assert.equal(isSkippedEntryName(".git"), true);
  assert.equal(isSkippedEntryName(".env"), true);
  assert.equal(isSkippedEntryName("node_modules"), true);
  assert.equal(isSkippedEntryName("scripts"), false);
  assert.equal(isSkippedEntryName("node_modules2"), false);
});

Deno.test("directoryNameRule() refuses bidi, controls, U+2028/9 and U+FFFD in a skill folder name as the served-file rule does", () => {
  assert.equal(directoryNameRule("pdf\u202Egnp"), "bidi-character");
  assert.equal(directoryNameRule("a\u2066b"), "bidi-character");
  assert.equal(directoryNameRule("a\nb"), "control-character");
  assert.equal(directoryNameRule("a\u2028b"), "control-character");
  assert.equal(directoryNameRule("a\u2029b"), "control-character");
  assert.equal(directoryNameRule("a\ufffdb"), "replacement-character");
  assert.equal(directoryNameRule("a\ud800b"), "lone-surrogate");
  assert.equal(directoryNameRule("has space"), "whitespace");
  assert.equal(directoryNameRule("pdf"), null);
  assert.equal(isUsableDirectoryName("pdf\u202Egnp"), false);
});
