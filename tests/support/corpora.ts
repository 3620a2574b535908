/**
 * The skills corpora every corpus test runs on: the project's own fixture
 * corpus (`tests/fixtures/corpus/`, always), and a real-world corpus when one
 * is present (`SKILLGATE_CORPUS`, or `../shared/corpus/anthropic-skills`
 * beside the checkout, as CI has it). Each corpus comes with its facts: the
 * skills it holds, the problems the catalog must report, and which of its
 * files play which role in the tests (a PDF, a font, a subfolder of
 * documents...). Tests iterate over {@linkcode corpora}, so an assertion once
 * written for one corpus holds on every corpus.
 *
 * `make test` and `make unit` say once, on stderr, which corpora the run uses
 * (`tests/support/say_corpora.ts`, run just before `deno test`). Not from
 * here: `deno test` evaluates each test file in its own isolate and shows
 * their stderr on stdout, in the test report.
 *
 * @module
 */

import { basename, join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

/** A problem the catalog must report for a corpus (exactly these, no others). */
export interface ExpectedProblem {
  /** Path of the file concerned, relative to the corpus root. */
  readonly path: string;
  readonly reason: string;
  readonly severity: "error" | "warning";
  /** What the detail must say. */
  readonly detail: RegExp;
}

/** A binary file the corpus holds, served as a base64 blob. */
export interface BinaryFile {
  readonly skill: string;
  /** Path inside the skill folder. */
  readonly path: string;
  readonly mediaType: string;
}

/** What the tests know about a corpus. */
export interface CorpusFacts {
  /**
   * Every skill the catalog serves: name -> folder relative to the corpus
   * root (a group folder's skills sit one or more levels down).
   */
  readonly skills: Readonly<Record<string, string>>;
  /** Exactly the problems the catalog reports. */
  readonly problems: readonly ExpectedProblem[];
  /** The skill served despite a description over the spec's 1,024 characters. */
  readonly overLong: {
    readonly skill: string;
    /** Its description's length in characters (code points). */
    readonly chars: number;
    readonly startsWith: string;
    /** A folder (with a trailing `/`) its files are in besides SKILL.md. */
    readonly subfolder: string;
  };
  /** The skill most tests reach for: a PDF, a subfolder of documents, a licence file. */
  readonly rich: {
    readonly skill: string;
    /** A PDF at the skill's top level. */
    readonly pdf: string;
    /** The subfolder of documents. */
    readonly subfolder: string;
    /** Two files in that subfolder (edited and deleted by live-refresh tests). */
    readonly documents: readonly [string, string];
    /** A top-level text file other than SKILL.md (replaced by a symlink in attack tests). */
    readonly plainFile: string;
    /** A word in its description, upper-cased, that `skill_list`'s query finds. */
    readonly query: string;
    /** A prefix that completes to this skill's name only. */
    readonly completionPrefix: string;
    /** How its description starts. */
    readonly descriptionStart: string;
  };
  /** Binary files served as blobs (a PDF, a font, an image when the corpus has one). */
  readonly binaries: readonly BinaryFile[];
}

/** One corpus the tests run on. */
export interface Corpus {
  /** `fixture` or `real-world`: used in test names. */
  readonly label: string;
  /** The corpus folder (read-only; copy it before changing anything). */
  readonly path: string;
  readonly facts: CorpusFacts;
  /** The skills' names, sorted as the catalog sorts them (code-unit order). */
  readonly names: readonly string[];
}

const FIXTURE_PATH = fromFileUrl(new URL("../fixtures/corpus", import.meta.url));
const BESIDE_PATH = fromFileUrl(
  new URL("../../../shared/corpus/anthropic-skills", import.meta.url),
);

/** Facts of the fixture corpus; `tests/fixtures/corpus/README.md` says why each skill is there. */
export const FIXTURE_FACTS: CorpusFacts = Object.freeze<CorpusFacts>({
  skills: {
    "accessibility-audit": "accessibility-audit",
    "brand-kit": "brand-kit",
    "document-themes": "document-themes",
    "incident-report": "writing/incident-report",
    "log-triage": "engineering/log-triage",
    "meeting-notes": "writing/meeting-notes",
    "payments-api": "payments-api",
    "spreadsheet-formulas": "spreadsheet-formulas",
    "sql-review": "engineering/databases/sql-review",
  },
  problems: [{
    path: "payments-api/SKILL.md",
    reason: "invalid-frontmatter",
    severity: "warning",
    detail: /description is 1108 characters; the Agent Skills spec allows at most 1024/,
  }],
  overLong: {
    skill: "payments-api",
    chars: 1108,
    startsWith: "Reference for the Tollbooth payments API",
    subfolder: "python/",
  },
  rich: {
    skill: "document-themes",
    pdf: "theme-sampler.pdf",
    subfolder: "themes",
    documents: ["themes/harbor-fog.md", "themes/orchard.md"],
    plainFile: "LICENSE.txt",
    query: "THEME",
    completionPrefix: "doc",
    descriptionStart: "Style reports, slide decks and one-page handouts with a ready-made theme",
  },
  binaries: [
    { skill: "brand-kit", path: "assets/fonts/Fieldnote-Regular.ttf", mediaType: "font/ttf" },
    { skill: "brand-kit", path: "assets/logo.png", mediaType: "image/png" },
    { skill: "document-themes", path: "theme-sampler.pdf", mediaType: "application/pdf" },
  ],
});

/**
 * Facts of the real-world corpus: a copy of Anthropic's public skills
 * repository (the Apache-2.0 skills, as `../shared/corpus/anthropic-skills`
 * holds them). `SKILLGATE_CORPUS` must point at such a copy.
 */
export const REAL_WORLD_FACTS: CorpusFacts = Object.freeze<CorpusFacts>({
  skills: Object.fromEntries(
    [
      "algorithmic-art",
      "brand-guidelines",
      "canvas-design",
      "claude-api",
      "frontend-design",
      "internal-comms",
      "mcp-builder",
      "skill-creator",
      "slack-gif-creator",
      "theme-factory",
      "web-artifacts-builder",
      "webapp-testing",
    ].map((name) => [name, name]),
  ),
  problems: [{
    path: "claude-api/SKILL.md",
    reason: "invalid-frontmatter",
    severity: "warning",
    detail: /description is 1068 characters; the Agent Skills spec allows at most 1024/,
  }],
  overLong: {
    skill: "claude-api",
    chars: 1068,
    startsWith: "Reference for the Claude API / Anthropic SDK",
    subfolder: "python/",
  },
  rich: {
    skill: "theme-factory",
    pdf: "theme-showcase.pdf",
    subfolder: "themes",
    documents: ["themes/arctic-frost.md", "themes/desert-rose.md"],
    plainFile: "LICENSE.txt",
    query: "THEME",
    completionPrefix: "the",
    descriptionStart: "Toolkit for styling artifacts with a theme",
  },
  binaries: [
    { skill: "canvas-design", path: "canvas-fonts/Lora-Regular.ttf", mediaType: "font/ttf" },
    { skill: "theme-factory", path: "theme-showcase.pdf", mediaType: "application/pdf" },
  ],
});

function corpus(label: string, path: string, facts: CorpusFacts): Corpus {
  const names = Object.keys(facts.skills).sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
  return Object.freeze({ label, path, facts, names: Object.freeze(names) });
}

/** The fixture corpus, always present. */
export const FIXTURE_CORPUS: Corpus = corpus("fixture", FIXTURE_PATH, FIXTURE_FACTS);

/**
 * Where a real-world corpus would be: `SKILLGATE_CORPUS`, else
 * `../shared/corpus/anthropic-skills` beside the checkout.
 *
 * @returns The path (which may not exist).
 */
export function realWorldCorpusPath(): string {
  const fromEnv = Deno.env.get("SKILLGATE_CORPUS");
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : BESIDE_PATH;
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

const REAL_PATH = realWorldCorpusPath();
if (Deno.env.get("SKILLGATE_CORPUS") && !isFolder(REAL_PATH)) {
  throw new Error(
    `SKILLGATE_CORPUS is "${REAL_PATH}", which is not a folder. Point it at a copy of ` +
      "Anthropic's skills repository, or unset it to run on the fixture corpus alone",
  );
}
const REAL: Corpus | null = isFolder(REAL_PATH)
  ? corpus("real-world", REAL_PATH, REAL_WORLD_FACTS)
  : null;

/** The real-world corpus when present, else null. */
export function realWorldCorpus(): Corpus | null {
  return REAL;
}

/**
 * Every corpus this run uses: the fixture corpus, then the real-world corpus
 * when present.
 *
 * @returns One or two corpora.
 */
export function corpora(): readonly Corpus[] {
  return REAL === null ? [FIXTURE_CORPUS] : [FIXTURE_CORPUS, REAL];
}

/**
 * Absolute folder of one of a corpus's skills under `root` (the corpus itself
 * or a copy of it).
 *
 * @param corpus The corpus.
 * @param root The corpus folder or a copy.
 * @param name A skill name from the corpus's facts.
 * @returns The skill folder's path.
 * @throws {Error} When the corpus has no such skill.
 */
export function skillDir(corpus: Corpus, root: string, name: string): string {
  const rel = corpus.facts.skills[name];
  if (rel === undefined) throw new Error(`The ${corpus.label} corpus has no skill "${name}"`);
  return join(root, rel);
}

/** A writable copy of a corpus in a fresh temporary folder; dispose it to delete it. */
export interface CorpusCopy extends AsyncDisposable {
  /** The temporary parent folder. */
  readonly dir: string;
  /** The copy of the corpus (`<dir>/<basename of the corpus>`). */
  readonly root: string;
  /** Absolute folder of a skill in the copy. */
  skill(name: string): string;
}

/**
 * Copies a corpus into a fresh temporary folder (`cp -R`), made writable.
 *
 * @param corpus The corpus to copy.
 * @returns The copy. Requires `--allow-run` (cp, chmod) and `--allow-write`.
 * @throws {Error} When the copy fails.
 */
export async function copyCorpus(corpus: Corpus): Promise<CorpusCopy> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-test-" });
  const copy = await new Deno.Command("cp", { args: ["-R", corpus.path, dir] }).output();
  if (!copy.success) throw new Error(`cp failed: ${new TextDecoder().decode(copy.stderr)}`);
  await new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).output();
  const root = join(dir, basename(corpus.path));
  return {
    dir,
    root,
    skill: (name) => skillDir(corpus, root, name),
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The line saying which corpora this run uses. */
export function corporaLine(): string {
  const real = REAL === null
    ? `real-world corpus not found at ${REAL_PATH} (set SKILLGATE_CORPUS to add one)`
    : `real-world (${REAL.path})`;
  return `skillgate: skills corpora used: fixture (${FIXTURE_PATH}); ${real}`;
}
