import assert from "node:assert/strict";
import {
  MAX_URI_CHARS,
  parseSkillUri,
  skillFileUri,
} from "../../../src/mcp/resources/skill_uri.ts";

Deno.test("skillFileUri() builds skill://<name>/<path> and encodes each segment", () => {
  const table: [string, string, string][] = [
    ["theme-factory", "SKILL.md", "skill://theme-factory/SKILL.md"],
    [
      "canvas-design",
      "canvas-fonts/Lora-Regular.ttf",
      "skill://canvas-design/canvas-fonts/Lora-Regular.ttf",
    ],
    ["x", "my notes/a b.md", "skill://x/my%20notes/a%20b.md"],
    ["x", "q?/h#.md", "skill://x/q%3F/h%23.md"],
    ["x", "caf\u00e9.md", "skill://x/caf%C3%A9.md"],
    ["Caf\u00e9 Skill", "SKILL.md", "skill://Caf%C3%A9%20Skill/SKILL.md"],
  ];
  for (const [name, path, uri] of table) {
    assert.equal(skillFileUri(name, path), uri, `${name} ${path}`);
  }
});

Deno.test("parseSkillUri() reads back every URI skillFileUri() builds", () => {
  const pairs: [string, string][] = [
    ["theme-factory", "SKILL.md"],
    ["x", "my notes/a b.md"],
    ["x", "q?/h#.md"],
    ["x", "caf\u00e9/\u{1F600}.txt"],
    ["a:b@c", "sub-delims!$&'()*+,;=:@.md"],
  ];
  for (const [name, path] of pairs) {
    assert.deepEqual(parseSkillUri(skillFileUri(name, path)), { ok: true, name, path });
  }
});

Deno.test("parseSkillUri() accepts an encoded slash as a separator and a case-insensitive scheme", () => {
  assert.deepEqual(parseSkillUri("skill://x/themes%2Focean.md"), {
    ok: true,
    name: "x",
    path: "themes/ocean.md",
  });
  assert.deepEqual(parseSkillUri("SKILL://x/SKILL.md"), { ok: true, name: "x", path: "SKILL.md" });
});

Deno.test("parseSkillUri() refuses traversal, escapes, queries, fragments and other schemes", () => {
  const table: [string, RegExp][] = [
    ["", /empty/],
    ["file:///etc/passwd", /scheme is not "skill:"/],
    ["https://x/SKILL.md", /scheme is not "skill:"/],
    ["skill:x/SKILL.md", /does not start with "skill:\/\/"/],
    ["skill:/x/SKILL.md", /does not start with "skill:\/\/"/],
    ["skill://x", /names no file/],
    ["skill://x/", /empty/],
    ["skill:///SKILL.md", /skill name "" is not usable/],
    ["skill://x/SKILL.md?download=1", /query or fragment/],
    ["skill://x/SKILL.md#top", /query or fragment/],
    ["skill://x/../y/SKILL.md", /"\.\." segment/],
    ["skill://x/a/../../etc/passwd", /"\.\." segment/],
    ["skill://x/%2E%2E/y/SKILL.md", /"\.\." segment/],
    ["skill://x/..%2F..%2Fetc%2Fpasswd", /"\.\." segment/],
    ["skill://x/a%2F..%2F..%2Fb", /"\.\." segment/],
    ["skill://x/./SKILL.md", /"\." segment/],
    ["skill://x/a//b", /empty segment/],
    ["skill://x%2F..%2Fy/SKILL.md", /skill name .* is not usable/],
    ["skill://../SKILL.md", /skill name "\.\." is not usable/],
    ["skill://x/%2Fetc%2Fpasswd", /absolute/],
    ["skill://x/a%5Cb", /backslash/],
    ["skill://x/a%00b", /NUL/],
    ["skill://x/a%25b", /percent-encoding is not accepted/],
    ["skill://x/a%zz", /malformed percent-encoding/],
    ["skill://x/a%C3", /malformed percent-encoding/],
    ["skill://x%/SKILL.md", /malformed percent-encoding/],
    ["skill://x/.env", /hidden entry/],
    ["skill://x/node_modules/a.js", /node_modules/],
    [`skill://x/${"a".repeat(MAX_URI_CHARS)}`, /longer than/],
  ];
  for (const [uri, reason] of table) {
    const parsed = parseSkillUri(uri);
    assert.equal(parsed.ok, false, `${uri} should be refused`);
    if (!parsed.ok) assert.match(parsed.reason, reason, uri);
  }
});
