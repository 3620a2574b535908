/**
 * Generates realistic skill folders for the benchmark: each skill is
 * `<root>/<name>/SKILL.md` (frontmatter with name, description, license,
 * metadata and allowed-tools, then a 3-5 KiB Markdown body) plus two
 * supporting files, `references/guide.md` and `scripts/helper.py`. Content is
 * deterministic for a given seed, so runs are comparable.
 *
 * @module
 */

import { seededRandom } from "../../tests/support/seeded_random.ts";

/** Options of {@linkcode generateSkills}. */
export interface GenerateOptions {
  /** Seed of the pseudo-random content. @default 1 */
  readonly seed?: number;
  /** Prefix of the temporary folder's name. @default "skillgate-bench-" */
  readonly prefix?: string;
  /** Parent folder of the temporary folder. @default the system's (TMPDIR) */
  readonly parent?: string;
  /**
   * Real-shaped skills (issue 13): 0-2 extra files per skill by index
   * (`references/api.md`, `assets/templates/report.txt`), so a skill holds 3-5
   * files in subfolders. @default false
   */
  readonly realShaped?: boolean;
}

/** A generated root; dispose it to delete it. */
export interface GeneratedRoot extends AsyncDisposable {
  /** The root folder holding one folder per skill. */
  readonly root: string;
  /** Skills written. */
  readonly skills: number;
  /** Files written (3 per skill; 3-5 when real-shaped). */
  readonly files: number;
  /** Bytes written in all. */
  readonly bytes: number;
  /** Deletes the folder (idempotent). */
  remove(): Promise<void>;
}

const TOPICS = [
  "pdf-report",
  "csv-cleanup",
  "release-notes",
  "api-client",
  "slide-deck",
  "sql-migration",
  "log-triage",
  "invoice-parser",
  "image-resize",
  "test-writer",
  "docs-linter",
  "chart-maker",
] as const;

const WORDS = (
  "the user data file report table column value chart summary request format output " +
  "input check step result error record field page section source target draft review " +
  "change version release schema query index cache build script command option setting " +
  "before after when each every only first last clear short exact safe local remote"
).split(" ");

const TOOLS = ["Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebFetch"];

/**
 * Writes `count` skills into a fresh temporary folder.
 *
 * @param count Skills to write, 1 to 100,000.
 * @param options Seed, folder prefix and parent folder.
 * @returns The root and what was written; dispose it (or call `remove`) to delete it.
 * @throws {RangeError} When `count` is out of bounds.
 *
 * Requires `--allow-write` and `--allow-read` on the temporary folder.
 */
export async function generateSkills(
  count: number,
  options: GenerateOptions = {},
): Promise<GeneratedRoot> {
  if (!Number.isInteger(count) || count < 1 || count > 100_000) {
    throw new RangeError(`Skill count must be an integer from 1 to 100000: "${count}"`);
  }
  const root = await Deno.makeTempDir({
    prefix: options.prefix ?? "skillgate-bench-",
    ...(options.parent === undefined ? {} : { dir: options.parent }),
  });
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  const random = seededRandom(options.seed ?? 1);
  const encoder = new TextEncoder();
  let bytes = 0;
  let files = 0;
  try {
    // Synchronous calls: several times faster than async ones for many small files.
    for (let index = 0; index < count; index++) {
      const skill = generatedSkill(index, random);
      const dir = `${root}/${skill.name}`;
      Deno.mkdirSync(`${dir}/references`, { recursive: true });
      Deno.mkdirSync(`${dir}/scripts`);
      const extra = options.realShaped === true ? extraFiles(index, skill) : [];
      if (extra.length > 1) Deno.mkdirSync(`${dir}/assets/templates`, { recursive: true });
      for (const [path, text] of [...skill.files, ...extra]) {
        const data = encoder.encode(text);
        bytes += data.length;
        files++;
        Deno.writeFileSync(`${dir}/${path}`, data);
      }
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    root,
    skills: count,
    files,
    bytes,
    remove,
    [Symbol.asyncDispose]: remove,
  };
}

/** 0, 1 or 2 extra files by index (deterministic, no draw from the random source). */
function extraFiles(index: number, skill: GeneratedSkill): [string, string][] {
  const count = index % 3;
  const found: [string, string][] = [];
  if (count >= 1) {
    found.push([
      "references/api.md",
      `# ${skill.name} API\n\n${skill.description}\n\n${skill.body.slice(0, 1200)}\n`,
    ]);
  }
  if (count >= 2) {
    found.push(["assets/templates/report.txt", `Report for ${skill.name}\n{{rows}} rows\n`]);
  }
  return found;
}

/**
 * The name of the generated skill at `index`, e.g. `csv-cleanup-00042`.
 *
 * @param index Zero-based index.
 * @returns A spec-valid skill name.
 */
export function generatedSkillName(index: number): string {
  return `${TOPICS[index % TOPICS.length]}-${String(index).padStart(5, "0")}`;
}

/** One generated skill: its files, and the parts of its SKILL.md. */
export interface GeneratedSkill {
  readonly name: string;
  readonly description: string;
  /** The SKILL.md body (after the frontmatter's closing line). */
  readonly body: string;
  /** Relative path and text of each file, SKILL.md first. */
  readonly files: [string, string][];
}

/**
 * The content of the generated skill at `index`, without writing anything
 * (the search tests and benchmark build catalogs in memory from it).
 *
 * @param index Zero-based index (names the skill, see {@linkcode generatedSkillName}).
 * @param random The pseudo-random source; successive calls with one source
 *   give the same skills {@linkcode generateSkills} writes for that seed.
 * @returns The skill's name, description, body and files.
 */
export function generatedSkill(index: number, random: () => number): GeneratedSkill {
  const name = generatedSkillName(index);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const sentence = (min: number, max: number) => {
    const length = min + Math.floor(random() * (max - min + 1));
    const words = Array.from({ length }, () => pick(WORDS));
    const text = words.join(" ");
    return text.charAt(0).toUpperCase() + text.slice(1) + ".";
  };
  const paragraph = (sentences: number) =>
    Array.from({ length: sentences }, () => sentence(8, 18)).join(" ");
  const tools = TOOLS.filter(() => random() < 0.5);
  const description = `${sentence(14, 30)} Use when the user asks to ${
    sentence(6, 12).toLowerCase()
  }`;
  const frontmatter = [
    "---",
    `name: ${name}`,
    `description: ${description}`,
    "license: Apache-2.0",
    "metadata:",
    "  author: skillgate-bench",
    `  version: "1.${index % 10}"`,
    ...(tools.length > 0 ? [`allowed-tools: ${tools.join(" ")}`] : []),
    "---",
  ].join("\n");
  const targetBodyBytes = 3_000 + Math.floor(random() * 2_000);
  const body: string[] = [
    `# ${name}`,
    "",
    paragraph(3),
    "",
    "## When to use",
    "",
    ...Array.from({ length: 4 }, () => `- ${sentence(6, 12)}`),
    "",
    "## Steps",
    "",
  ];
  for (let step = 1; body.join("\n").length < targetBodyBytes - 700; step++) {
    body.push(`${step}. ${paragraph(2)}`);
  }
  body.push(
    "",
    "## Example",
    "",
    "```bash",
    `python3 scripts/helper.py --input data.csv --output out/${name}.json`,
    "```",
    "",
    "Read `references/guide.md` before changing the output format.",
    "",
    "## Notes",
    "",
    paragraph(3),
    "",
  );
  const guide = [
    `# ${name}: reference guide`,
    "",
    ...Array.from(
      { length: 6 + Math.floor(random() * 6) },
      (_, i) => `## Section ${i + 1}\n\n${paragraph(2)}\n`,
    ),
  ].join("\n");
  const script = [
    "#!/usr/bin/env python3",
    `"""Helper for ${name}: ${sentence(6, 10)}"""`,
    "import argparse",
    "import json",
    "",
    "",
    "def main() -> None:",
    "    parser = argparse.ArgumentParser()",
    '    parser.add_argument("--input", required=True)',
    '    parser.add_argument("--output", required=True)',
    "    args = parser.parse_args()",
    "    rows = []",
    '    with open(args.input, encoding="utf-8") as handle:',
    "        for line in handle:",
    '            rows.append(line.rstrip("\\n").split(","))',
    '    with open(args.output, "w", encoding="utf-8") as handle:',
    '        json.dump({"rows": len(rows)}, handle)',
    "",
    "",
    'if __name__ == "__main__":',
    "    main()",
    "",
  ].join("\n");
  const bodyText = `\n${body.join("\n")}`;
  return {
    name,
    description,
    body: bodyText,
    files: [
      ["SKILL.md", `${frontmatter}\n${bodyText}`],
      ["references/guide.md", guide],
      ["scripts/helper.py", script],
    ],
  };
}
