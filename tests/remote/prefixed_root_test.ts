import { join } from "node:path";
import { catalogPrefixes, parseSkillUri, skillFileUri } from "../../src/mcp/resources/skill_uri.ts";
import { resolveDirectory } from "../../src/mcp/skills_extension/directory.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { assertEquals } from "./_assert.ts";

async function writeSkill(root: string, name: string, folder = name): Promise<void> {
  await Deno.mkdir(join(root, folder, "ref"), { recursive: true });
  await Deno.writeTextFile(
    join(root, folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill.\n---\nBody.\n`,
  );
  await Deno.writeTextFile(join(root, folder, "ref", "a.md"), "a");
}

Deno.test("a prefixed root serves PREFIX__NAME at skill://PREFIX/NAME/... and refuses a colliding local name", async () => {
  const base = await Deno.makeTempDir();
  try {
    const remote = join(base, "remote");
    const local = join(base, "local");
    await writeSkill(remote, "pdf");
    await writeSkill(local, "acme");
    await writeSkill(local, "docx");
    await writeSkill(local, "bad__name", "bad__name");
    const catalog = await buildCatalog([
      { path: local, from: "argument" },
      { path: remote, from: "remote", prefix: "acme", source: "github:acme/skills" },
    ], DEFAULT_CAPS);
    assertEquals(catalog.skills.map((s) => s.name), ["acme__pdf", "docx"]);
    const pdf = catalog.byName.get("acme__pdf")!;
    assertEquals([pdf.baseName, pdf.prefix, pdf.source], ["pdf", "acme", "github:acme/skills"]);
    assertEquals(
      catalog.problems.filter((p) => p.reason !== "extension-excluded").map((p) => p.reason).sort(),
      ["prefix-collision", "unusable-name"],
    );
    assertEquals(skillFileUri("acme__pdf", "ref/a.md"), "skill://acme/pdf/ref/a.md");
    const prefixes = catalogPrefixes(catalog);
    assertEquals(parseSkillUri("skill://acme/pdf/ref/a.md", prefixes), {
      ok: true,
      name: "acme__pdf",
      path: "ref/a.md",
    });
    // Without the prefix set the same URI is a local skill's nested file.
    assertEquals(parseSkillUri("skill://docx/ref/a.md", prefixes), {
      ok: true,
      name: "docx",
      path: "ref/a.md",
    });
    assertEquals(parseSkillUri("skill://acme__pdf/SKILL.md", prefixes).ok, false);
    assertEquals(parseSkillUri("skill://acme/SKILL.md", prefixes).ok, false);
    const dir = resolveDirectory(catalog, "skill://acme/pdf");
    assertEquals("skill" in dir ? [dir.skill.name, dir.path] : dir, ["acme__pdf", ""]);
    const sub = resolveDirectory(catalog, "skill://acme/pdf/ref");
    assertEquals("skill" in sub ? [sub.skill.name, sub.path] : sub, ["acme__pdf", "ref"]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
