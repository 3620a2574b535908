import { assertEquals, assertThrows } from "./_assert.ts";
import {
  defaultPrefix,
  isOwnerAllowed,
  parseSourceSpec,
  SourceSpecError,
  splitSourceList,
} from "../../src/remote/source_spec.ts";

Deno.test("parseSourceSpec() reads the github: form with PATH, REF and prefix=", () => {
  const source = parseSourceSpec("github:Acme/Skills/catalog/team@release/v2,prefix=team");
  assertEquals(source.owner, "acme");
  assertEquals(source.repo, "skills");
  assertEquals(source.path, "catalog/team");
  assertEquals(source.ref, "release/v2");
  assertEquals(source.prefix, "team");
  assertEquals(source.spec, "github:acme/skills/catalog/team@release/v2");
  assertEquals(source.isCommitPin, false);
});

Deno.test("parseSourceSpec() reads the https://github.com form and a commit pin", () => {
  const sha = "0123456789abcdef0123456789abcdef01234567";
  const source = parseSourceSpec(`https://github.com/acme/skills/tree/${sha}/skills`);
  assertEquals(source.spec, `github:acme/skills/skills@${sha}`);
  assertEquals(source.isCommitPin, true);
  assertEquals(source.prefix, "acme-skills");
  const plain = parseSourceSpec("https://github.com/acme/skills.git");
  assertEquals([plain.ref, plain.path, plain.spec], [null, "", "github:acme/skills"]);
});

Deno.test("defaultPrefix() sanitises OWNER-REPO to the skill name rule", () => {
  assertEquals(defaultPrefix("Acme", "my_Skills.repo"), "acme-my-skills-repo");
  assertEquals(defaultPrefix("-", "_"), "remote");
});

Deno.test("attack: parseSourceSpec() refuses traversal, odd refs, other hosts and bad prefixes", () => {
  for (
    const spec of [
      "github:acme/skills/../etc",
      "github:acme/skills/a//b",
      "github:acme/skills/%2e%2e",
      "github:acme/skills@../../x",
      "github:acme/skills@",
      "github:acme/skills@a..b",
      "github:acme/..",
      "github:-acme/skills",
      "github:acme",
      "https://gitlab.com/acme/skills",
      "https://github.com/acme/skills/blob/main/x",
      "https://github.com/acme/skills?x=1",
      "https://user:pw@github.com/acme/skills",
      "github:acme/skills,prefix=Bad__Prefix",
      "github:acme/skills,prefix=",
      "github:acme/skills,mirror=evil",
      "/home/me/skills",
    ]
  ) {
    assertThrows(() => parseSourceSpec(spec), SourceSpecError, undefined, spec);
  }
});

Deno.test("splitSourceList() splits SKILLGATE_SOURCES on whitespace only", () => {
  assertEquals(splitSourceList("  github:a/b\n github:c/d,prefix=x\t"), [
    "github:a/b",
    "github:c/d,prefix=x",
  ]);
});

Deno.test("isOwnerAllowed() is default-deny and case-insensitive", () => {
  assertEquals(isOwnerAllowed("acme", []), false);
  assertEquals(isOwnerAllowed("acme", ["other"]), false);
  assertEquals(isOwnerAllowed("acme", ["ACME"]), true);
});
