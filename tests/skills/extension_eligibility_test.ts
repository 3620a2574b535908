import assert from "node:assert/strict";
import {
  EXTENSION_MAX_BYTES,
  EXTENSION_MAX_FILES,
  EXTENSION_RULES,
  extensionExclusion,
  extensionProblems,
  extensionRuleBroken,
} from "../../src/skills/extension_eligibility.ts";
import type { Skill } from "../../src/skills/skill.ts";

/** A skill every rule keeps, changed by `changes` (frontmatter merged). */
function skill(
  changes: Partial<Omit<Skill, "frontmatter">> & { frontmatter?: Record<string, unknown> } = {},
): Skill {
  const { frontmatter, ...rest } = changes;
  return {
    name: "demo",
    dir: "/skills/demo",
    realDir: "/skills/demo",
    root: "/skills",
    skillMdFile: "SKILL.md",
    frontmatter: { name: "demo", description: "Does a demo.", ...frontmatter },
    description: "Does a demo.",
    body: "# Demo\n",
    bodyTruncated: false,
    skillMdBytes: 40,
    files: [{ path: "SKILL.md", size: 40 }] as unknown as Skill["files"],
    bytes: 40,
    filesTruncated: false,
    ...rest,
  };
}

/** Each rule: skills that break it (with the reason's pattern) and skills that keep it. */
const CASES: Record<
  string,
  { broken: [Skill, RegExp][]; kept: Skill[] }
> = {
  "name": {
    broken: [
      [skill({ name: "12306", frontmatter: { name: 12306 } }), /name is a number, not text/],
      [skill({ frontmatter: { name: undefined } }), /its frontmatter has no name/],
      [skill({ name: "Demo", frontmatter: { name: "Demo" } }), /"Demo" breaks the naming rule/],
      [skill({ name: "a--b", frontmatter: { name: "a--b" } }), /"a--b" breaks the naming rule/],
      [skill({ name: "-a", frontmatter: { name: "-a" } }), /breaks the naming rule/],
      [
        skill({ name: "x".repeat(65), frontmatter: { name: "x".repeat(65) } }),
        /breaks the naming rule \(1-64/,
      ],
      [skill({ name: "café", frontmatter: { name: "café" } }), /breaks the naming rule/],
    ],
    kept: [
      skill(),
      skill({ name: "x".repeat(64), frontmatter: { name: "x".repeat(64) } }),
      skill({ name: "a-1", frontmatter: { name: "a-1" } }),
    ],
  },
  "name-matches-folder": {
    broken: [
      [
        skill({ frontmatter: { name: "other" } }),
        /folder name "demo" is not its frontmatter name "other"/,
      ],
    ],
    kept: [skill()],
  },
  "skill-md-file": {
    broken: [[skill({ skillMdFile: "skill.md" }), /named "skill\.md", not "SKILL\.md"/]],
    kept: [skill()],
  },
  "json-frontmatter": {
    broken: [[
      skill({ frontmatter: JSON.parse('{"__proto__": {"x": 1}}') }),
      /"__proto__" key/,
    ]],
    kept: [skill({ frontmatter: { proto: "x" } })],
  },
  "description": {
    broken: [
      [skill({ frontmatter: { description: "d".repeat(1068) } }), /1068 characters .* 1-1024/],
      [skill({ frontmatter: { description: "é".repeat(1025) } }), /1025 characters/],
      [skill({ frontmatter: { description: " \n " } }), /description is blank/],
      [skill({ frontmatter: { description: 7 } }), /description is a number, not text/],
    ],
    kept: [
      skill({ frontmatter: { description: "d".repeat(1024) } }),
      // 1024 code points, 2048 UTF-16 code units: characters are code points.
      skill({ frontmatter: { description: "😀".repeat(1024) } }),
      skill({ frontmatter: { description: "x" } }),
    ],
  },
  "compatibility": {
    broken: [
      [skill({ frontmatter: { compatibility: "c".repeat(501) } }), /501 characters .* 1-500/],
      [skill({ frontmatter: { compatibility: "" } }), /compatibility is blank/],
      [skill({ frontmatter: { compatibility: ["node"] } }), /compatibility is a list, not text/],
      [skill({ frontmatter: { compatibility: null } }), /compatibility is null, not text/],
    ],
    kept: [skill(), skill({ frontmatter: { compatibility: "c".repeat(500) } })],
  },
  "metadata": {
    broken: [
      [skill({ frontmatter: { metadata: { version: 1 } } }), /"version" is a number, not text/],
      [skill({ frontmatter: { metadata: { tags: ["a"] } } }), /"tags" is a list, not text/],
      [skill({ frontmatter: { metadata: { a: { b: "c" } } } }), /"a" is a map, not text/],
      [skill({ frontmatter: { metadata: ["a"] } }), /metadata is a list, not a map of text/],
      [skill({ frontmatter: { metadata: "v1" } }), /metadata is a string, not a map of text/],
      [skill({ frontmatter: { metadata: null } }), /metadata is null, not a map of text/],
    ],
    kept: [
      skill(),
      skill({ frontmatter: { metadata: {} } }),
      skill({ frontmatter: { metadata: { a: "1" } } }),
    ],
  },
  "complete-manifest": {
    broken: [[skill({ filesTruncated: true }), /stopped at a cap/]],
    kept: [skill()],
  },
  "max-files": {
    broken: [[
      skill({ files: new Array(EXTENSION_MAX_FILES + 1).fill({ path: "f", size: 0 }) }),
      /513 files and the extension allows 512/,
    ]],
    kept: [skill({ files: new Array(EXTENSION_MAX_FILES).fill({ path: "f", size: 0 }) })],
  },
  "max-bytes": {
    broken: [[
      skill({ bytes: EXTENSION_MAX_BYTES + 1 }),
      /16777217 bytes and the extension allows 16777216/,
    ]],
    kept: [skill({ bytes: EXTENSION_MAX_BYTES })],
  },
  "current-skill-md": {
    broken: [[skill({ isLastGood: true }), /no longer parses/]],
    kept: [skill({ isLastGood: false })],
  },
};

Deno.test("every extension rule has cases that break it and cases that keep it", () => {
  assert.deepEqual(Object.keys(CASES).sort(), EXTENSION_RULES.map((rule) => rule.id).sort());
});

for (const rule of EXTENSION_RULES) {
  Deno.test(`extension rule "${rule.id}" leaves out what breaks it and keeps the rest`, () => {
    const cases = CASES[rule.id];
    assert.ok(cases !== undefined);
    for (const [broken, pattern] of cases.broken) {
      const why = rule.check(broken);
      assert.ok(why !== null, `${JSON.stringify(broken.frontmatter)} breaks ${rule.id}`);
      assert.match(why, pattern);
      assert.equal(extensionRuleBroken(broken)?.rule, rule.id, "it is the rule reported");
    }
    for (const kept of cases.kept) {
      assert.equal(rule.check(kept), null, `${rule.id} keeps ${JSON.stringify(kept.frontmatter)}`);
      assert.equal(extensionExclusion(kept), null);
    }
  });
}

Deno.test("extensionProblems() names the rule in a warning at the skill's folder", () => {
  const long = skill({
    name: "claude-api",
    dir: "/skills/claude-api",
    frontmatter: {
      name: "claude-api",
      description: "d".repeat(1068),
    },
  });
  const problems = extensionProblems([skill(), long]);
  assert.equal(problems.length, 1);
  assert.deepEqual({ ...problems[0] }, {
    path: "/skills/claude-api",
    reason: "extension-excluded",
    severity: "warning",
    detail: 'Skill "claude-api" is not listed by the MCP skills extension (skills/list, ' +
      "skills/get) because its description is 1068 characters and the extension's clients " +
      'accept 1-1024 (rule "description": Agent Skills spec, description); the tools still serve it',
  });
});
