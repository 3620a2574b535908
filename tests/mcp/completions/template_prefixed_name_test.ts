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
} from "../../../src/mcp/resources/skill_uri.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { testCatalog } from "../resources/_catalog.ts";

Deno.test("every name completed for the skill:// template expands to a URI that names that skill", () => {
  const base = testCatalog([{ name: "acme-skills__pdf" }, { name: "notes" }]);
  const catalog: Catalog = {
    ...base,
    roots: [...base.roots, { path: "/cache/acme", from: "remote", prefix: "acme-skills" }],
  };
  const offered = complete(catalog, {
    ref: { type: "ref/resource", uri: SKILL_FILE_URI_TEMPLATE },
    argument: { name: "name", value: "" },
  }).completion.values;
  assert.deepEqual([...offered].sort(), ["acme-skills__pdf", "notes"]);
  for (const name of offered) {
    // RFC 6570 simple expansion of {name}, then {+path} = SKILL.md
    const uri = SKILL_FILE_URI_TEMPLATE.replace("{name}", encodeURIComponent(name))
      .replace("{+path}", "SKILL.md");
    const parsed = parseSkillUri(uri, catalogPrefixes(catalog));
    assert.deepEqual(parsed, { ok: true, name, path: "SKILL.md" }, `${name} -> ${uri}`);
  }
});
