// Run by frontmatter_parser_load_test.ts in its own process (module loads are per process):
// builds the catalog of the root in argv[0], then prints the served skills' names and
// frontmatter, and whether the YAML parser's module was loaded.

import { DEFAULT_CAPS } from "../../src/caps.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { isFrontmatterParserLoaded } from "../../src/skills/_load_skill.ts";

const catalog = await buildCatalog([{ path: Deno.args[0] ?? ".", from: "argument" }], DEFAULT_CAPS);
console.log(JSON.stringify({
  skills: catalog.skills.map((skill) => ({ name: skill.name, frontmatter: skill.frontmatter })),
  problems: catalog.problems.map((problem) => problem.reason),
  isParserLoaded: isFrontmatterParserLoaded(),
}));
