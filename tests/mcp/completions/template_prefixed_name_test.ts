/**
 * Review r14: the one resource template is `skill://{name}/{+path}`, and
 * completing its `name` offers served names, prefixed ones too
 * (`acme-skills__pdf`, a remote source's or a prefixed root's skill). Expanded
 * into the template (RFC 6570: `_` is unreserved, so it stays), that gives
 * `skill://acme-skills__pdf/SKILL.md`, which `parseSkillUri()` refuses ("a
 * first segment holding `__` is a served name"): a client that follows the
 * template and the completions reaches no prefixed skill.
 */

import assert from "node:assert/strict";
import { complete } from "../../../src/mcp/completions/completions_family.ts";
import {
  catalogPrefixes,
  parseSkillUri,
  SKILL_FILE_URI_TEMPLATE,
  SKILL_PREFIXED_FILE_URI_TEMPLATE,
} from "../../../src/mcp/resources/skill_uri.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { testCatalog } from "../resources/_catalog.ts";

Deno.test("every name completed for a skill:// template expands to a URI that names that skill", () => {
  const base = testCatalog([{ name: "acme-skills__pdf" }, { name: "notes" }]);
  const catalog: Catalog = {
    ...base,
    roots: [...base.roots, { path: "/cache/acme", from: "remote", prefix: "acme-skills" }],
  };
  const prefixes = catalogPrefixes(catalog);
  const values = (uri: string, name: string, context?: Record<string, string>) =>
    complete(catalog, {
      ref: { type: "ref/resource", uri },
      argument: { name, value: "" },
      ...(context === undefined ? {} : { context: { arguments: context } }),
    }).completion.values;
  // skill://{name}/{+path}: one URI segment, so only unprefixed names.
  const plain = values(SKILL_FILE_URI_TEMPLATE, "name");
  assert.deepEqual(plain, ["notes"]);
  for (const name of plain) {
    const uri = SKILL_FILE_URI_TEMPLATE.replace("{name}", encodeURIComponent(name))
      .replace("{+path}", "SKILL.md");
    assert.deepEqual(parseSkillUri(uri, prefixes), { ok: true, name, path: "SKILL.md" }, uri);
  }
  // skill://{prefix}/{name}/{+path}: the prefixed ones.
  assert.deepEqual(values(SKILL_PREFIXED_FILE_URI_TEMPLATE, "prefix"), ["acme-skills"]);
  const names = values(SKILL_PREFIXED_FILE_URI_TEMPLATE, "name", { prefix: "acme-skills" });
  assert.deepEqual(names, ["pdf"]);
  assert.deepEqual(
    values(SKILL_PREFIXED_FILE_URI_TEMPLATE, "path", { prefix: "acme-skills", name: "pdf" }),
    ["SKILL.md"],
  );
  const uri = SKILL_PREFIXED_FILE_URI_TEMPLATE.replace("{prefix}", "acme-skills")
    .replace("{name}", "pdf").replace("{+path}", "SKILL.md");
  assert.deepEqual(parseSkillUri(uri, prefixes), {
    ok: true,
    name: "acme-skills__pdf",
    path: "SKILL.md",
  });
  // An unknown prefix completes nothing.
  assert.deepEqual(values(SKILL_PREFIXED_FILE_URI_TEMPLATE, "name", { prefix: "nope" }), []);
});
