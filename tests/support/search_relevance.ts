/**
 * The `skill_search` relevance set (issue 14): a dedicated fixture catalog of
 * realistic skills, skills planted into 10,000 generated ones, and queries
 * with the skill each must rank first. Shared by
 * tests/search/relevance_test.ts (asserts precision thresholds) and
 * bench/search_relevance.ts (prints the table).
 *
 * @module
 */

import { SkillSearchIndex } from "../../src/search/skill_index.ts";
import type { Catalog, Skill } from "../../src/skills/skill.ts";
import {
  generatedMemorySkills,
  memoryCatalog,
  memorySkill,
  type SkillText,
} from "./memory_catalog.ts";

/** One query of the set. */
export interface RelevanceQuery {
  readonly query: string;
  /** The skill that must rank first (precision at 1) or in the top 3 (at 3). */
  readonly expected: string;
  /** Skills that must not be returned at all (hidden or unrelated decoys). */
  readonly neverReturned?: readonly string[];
  /** What the query exercises. */
  readonly why: string;
}

const HIDDEN = { "disable-model-invocation": true };

/** The dedicated fixture catalog: realistic skills (names, descriptions, bodies). */
export const FIXTURE_SKILLS: readonly SkillText[] = [
  {
    name: "pdf-form-filler",
    description: "Fill in PDF forms and extract the values of their form fields.",
    body: "# PDF forms\n\nList the fields with `scripts/fields.py`, then write the values. " +
      "Flatten the form when the user wants a read-only copy.",
  },
  {
    name: "docx-editor",
    description: "Create and edit Word documents (.docx), including tracked changes and comments.",
    body: "# Word documents\n\nUse python-docx. Keep the styles of the original document; " +
      "accept or reject tracked changes only when asked.",
  },
  {
    name: "xlsx-analyst",
    description: "Read, clean and chart spreadsheets (.xlsx and .csv files) with formulas.",
    body: "# Spreadsheets\n\nLoad with openpyxl; recalculate formulas; pivot tables on request.",
  },
  {
    name: "pptx-builder",
    description: "Build slide decks and presentations from an outline.",
    body: "# Slides\n\nOne idea per slide. Speaker notes go under each slide.",
  },
  {
    name: "cv-reviewer",
    description: "Review a résumé or curriculum vitae and suggest concrete improvements.",
    body: "# Résumé review\n\nCheck dates, quantify achievements, cut filler words.",
  },
  {
    name: "json-schema-validator",
    description: "Validate JSON documents against a JSON Schema and explain each violation.",
    body: "# Validation\n\nUse draft 2020-12 unless the schema says otherwise.",
  },
  {
    name: "git-commit-writer",
    description: "Write conventional commit messages from the staged diff.",
    body: "# Commits\n\nSubject in the imperative, at most 72 characters; body says why.",
  },
  {
    name: "sql-migration-planner",
    description: "Plan safe database schema migrations with a rollback for every step.",
    body: "# Migrations\n\nNever drop a column in the same release that stops writing it.",
  },
  {
    name: "image-resizer",
    description: "Resize, crop and convert images (PNG, JPEG, WebP) in bulk.",
    body: "# Images\n\nKeep the aspect ratio unless told otherwise; strip EXIF metadata.",
  },
  {
    name: "log-triage",
    description: "Triage application logs: group errors and find the first failure.",
    body: "# Logs\n\nSort by timestamp, then cluster stack traces by their top frame.",
  },
  {
    name: "openapi-client-generator",
    description: "Generate a typed HTTP client from an OpenAPI specification.",
    body: "# Clients\n\nOne method per operation; retries with exponential backoff.",
  },
  {
    name: "release-notes-writer",
    description: "Draft release notes from the pull requests merged since the last tag.",
    body: "# Release notes\n\nGroup by feature, fix and breaking change.",
  },
  {
    name: "brand-guidelines",
    description: "Apply the company's brand colours and typography to documents and slides.",
    body: "# Brand\n\nPrimary colour #0A84FF; headings in Inter.",
  },
  {
    name: "webapp-testing",
    description: "Test local web applications with Playwright and capture screenshots.",
    body: "# Web testing\n\nStart the dev server first; wait for network idle.",
  },
  {
    name: "invoice-parser",
    description: "Extract totals, dates and line items from supplier invoices.",
    body: "# Invoices\n\nAmounts keep two decimals; VAT is a separate line.",
  },
  {
    name: "kubernetes-debugger",
    description: "Diagnose failing Kubernetes pods and deployments.",
    body: "# Pods\n\nFor CrashLoopBackOff read the previous container's logs; for OOMKilled " +
      "compare the memory limit with the working set.",
  },
  {
    name: "translation-helper",
    description: "Translate user interface strings while keeping their placeholders.",
    body: "# i18n\n\nNever translate ICU placeholders such as {count}.",
  },
  {
    name: "accessibility-auditor",
    description: "Audit web pages for accessibility problems against WCAG 2.2.",
    body: "# Audit\n\nCheck contrast, focus order and what a screen reader announces.",
  },
  {
    name: "data-anonymizer",
    description: "Remove personal data from datasets before they are shared.",
    body: "# Anonymisation\n\nHash e-mail addresses; drop free-text fields that may hold PII " +
      "under GDPR.",
  },
  {
    name: "meeting-notes",
    description: "Summarise a meeting into notes, decisions and action items.",
    body: "# Notes\n\nStart from the agenda; one owner per action item.",
  },
  {
    name: "secret-scanner",
    description: "Scan a repository for leaked API keys, tokens and credentials.",
    body: "# Secrets\n\nRun only when the owner asks; never print a secret.",
    frontmatter: HIDDEN,
  },
  {
    name: "credential-rotation",
    description: "Rotate API keys and service credentials on a schedule.",
    body: "# Rotation\n\nIssue the new key before revoking the old one.",
  },
  {
    name: "concatenate-csv",
    description: "Join several CSV files into one, keeping a single header row.",
    body: "# Join\n\nCheck that every file has the same columns.",
  },
];

/** Queries over {@linkcode FIXTURE_SKILLS}. */
export const FIXTURE_QUERIES: readonly RelevanceQuery[] = [
  { query: "fill a pdf form", expected: "pdf-form-filler", why: "name and description" },
  { query: "word document tracked changes", expected: "docx-editor", why: "description" },
  { query: "spreadsheet formulas", expected: "xlsx-analyst", why: "inflection (spreadsheets)" },
  { query: "presentation slides", expected: "pptx-builder", why: "inflection" },
  { query: "resume", expected: "cv-reviewer", why: "accent: resume finds résumé" },
  { query: "validating json", expected: "json-schema-validator", why: "validating -> validate" },
  { query: "commit message", expected: "git-commit-writer", why: "inflection (messages)" },
  { query: "database migration rollback", expected: "sql-migration-planner", why: "multi-word" },
  { query: "convert jpeg to webp", expected: "image-resizer", why: "description words" },
  { query: "find the first failure in logs", expected: "log-triage", why: "stop words dropped" },
  { query: "openapi", expected: "openapi-client-generator", why: "name" },
  { query: "write release notes", expected: "release-notes-writer", why: "name words" },
  { query: "colours typography", expected: "brand-guidelines", why: "description only" },
  { query: "playwright screenshot", expected: "webapp-testing", why: "inflection" },
  { query: "CrashLoopBackOff", expected: "kubernetes-debugger", why: "a term only in a body" },
  { query: "screen reader", expected: "accessibility-auditor", why: "body phrase" },
  { query: "GDPR", expected: "data-anonymizer", why: "a term only in a body, upper case" },
  {
    query: "action items",
    expected: "meeting-notes",
    why: "description",
  },
  {
    query: "leaked api keys credentials",
    expected: "credential-rotation",
    neverReturned: ["secret-scanner"],
    why: "decoy: the exact match is hidden from the model (disable-model-invocation)",
  },
  {
    query: "cat",
    expected: "cat-care",
    neverReturned: ["concatenate-csv"],
    why: "decoy: no match inside a word (concatenate)",
  },
  { query: "transl", expected: "translation-helper", why: "prefix of the last word" },
  { query: "invoices vat", expected: "invoice-parser", why: "name inflection + body" },
];

/** A fixture skill added so the `cat` query has a right answer. */
const CAT_CARE: SkillText = {
  name: "cat-care",
  description: "Answer questions about feeding and grooming a cat.",
  body: "# Cats\n\nKittens eat four times a day.",
};

/** Skills planted into the 10,000 generated ones. */
export const PLANTED_SKILLS: readonly SkillText[] = [
  {
    name: "payload-validator",
    description: "Validate webhook payloads against their signatures before processing them.",
    body: "# Webhooks\n\nCompare the HMAC in constant time.",
  },
  {
    name: "webhook-relay",
    description: "Forward incoming webhooks to a local development server.",
    body: "# Relay\n\nThe relay keeps the original headers.",
  },
  {
    name: "cv-formatter",
    description: "Format a résumé so applicant tracking systems can read it.",
    body: "# Résumé layout\n\nOne column; no tables; standard section titles.",
  },
  {
    name: "loan-calculator",
    description: "Compute loan repayments and total interest.",
    body: "# Loans\n\nPrint the amortization schedule month by month.",
  },
  {
    name: "kafka-consumer-tuner",
    description: "Reduce lag in event streams by rebalancing partitions.",
    body: "# Tuning\n\nRaise max.poll.records only after measuring.",
  },
  {
    name: "kafka-admin-secrets",
    description: "Reduce consumer lag with kafka partitions using the admin credentials.",
    body: "# Admin\n\nUses the cluster's admin secret.",
    frontmatter: HIDDEN,
  },
  {
    name: "chart-legend-fixer",
    description: "Fix overlapping chart legends and axis labels.",
    body: "# Legends\n\nMove the legend outside the plot area.",
  },
  {
    name: "naïve-bayes-trainer",
    description: "Train a naïve Bayes text classifier on labelled examples.",
    body: "# Training\n\nUse Laplace smoothing.",
  },
  {
    name: "concatenate-reports",
    description: "Concatenate many PDF reports into one file with a table of contents.",
    body: "# Merge\n\nKeep bookmarks.",
  },
  {
    name: "timezone-converter",
    description: "Convert meeting times between time zones, daylight saving included.",
    body: "# Zones\n\nUse IANA names such as Europe/Paris.",
  },
];

/** Queries over the generated catalog with {@linkcode PLANTED_SKILLS}. */
export const GENERATED_QUERIES: readonly RelevanceQuery[] = [
  { query: "validating webhook payloads", expected: "payload-validator", why: "inflection" },
  { query: "validates signatures", expected: "payload-validator", why: "inflection" },
  { query: "resume applicant tracking", expected: "cv-formatter", why: "accent + multi-word" },
  { query: "amortization schedule", expected: "loan-calculator", why: "terms only in a body" },
  {
    query: "kafka partitions lag",
    expected: "kafka-consumer-tuner",
    neverReturned: ["kafka-admin-secrets"],
    why: "words spread over name and description; hidden decoy",
  },
  { query: "chart legend", expected: "chart-legend-fixer", why: "common + rare word" },
  { query: "naive bayes", expected: "naïve-bayes-trainer", why: "accent in the name" },
  {
    query: "cat",
    expected: "cat-care",
    neverReturned: ["concatenate-reports"],
    why: "decoy: no match inside a word",
  },
  { query: "time zones", expected: "timezone-converter", why: "description inflection" },
  { query: "forward webhooks locally", expected: "webhook-relay", why: "description" },
  { query: "daylight", expected: "timezone-converter", why: "prefix-free rare word" },
  { query: "kafka consumer tuner", expected: "kafka-consumer-tuner", why: "exact name" },
];

/** The fixture catalog (with `cat-care`). */
export function fixtureCatalog(): Catalog {
  return memoryCatalog([...FIXTURE_SKILLS, CAT_CARE].map(memorySkill));
}

/**
 * 10,000 generated skills (seed 1, as `make bench`) plus the planted ones
 * (and `cat-care`).
 *
 * @param generated Generated skills (default 10,000).
 * @returns The catalog.
 */
export function plantedCatalog(generated = 10_000): Catalog {
  const planted: Skill[] = [...PLANTED_SKILLS, CAT_CARE].map(memorySkill);
  return memoryCatalog([...generatedMemorySkills(generated), ...planted]);
}

/** One row of the relevance table. */
export interface RelevanceRow {
  readonly set: "fixture" | "generated";
  readonly query: RelevanceQuery;
  /** The top three names returned. */
  readonly got: readonly string[];
  /** Decoys that were returned although they must not be. */
  readonly leaked: readonly string[];
}

/**
 * Runs every query of a set against a fresh index of `catalog`.
 *
 * @param set Which set.
 * @param catalog Its catalog.
 * @param queries Its queries.
 * @returns One row per query.
 */
export function runRelevance(
  set: RelevanceRow["set"],
  catalog: Catalog,
  queries: readonly RelevanceQuery[],
): RelevanceRow[] {
  const index = new SkillSearchIndex();
  index.sync(catalog);
  return queries.map((query) => {
    const all = index.search(query.query, 10_000).hits.map((hit) => hit.skill.name);
    const leaked = (query.neverReturned ?? []).filter((name) => all.includes(name));
    return { set, query, got: all.slice(0, 3), leaked };
  });
}

/**
 * Precision at 1 and at 3 of some rows (a row with a leaked decoy counts as a
 * miss at both).
 *
 * @param rows Rows from {@linkcode runRelevance}.
 * @returns The two shares, 0 to 1.
 */
export function precision(rows: readonly RelevanceRow[]): { at1: number; at3: number } {
  const ok = (row: RelevanceRow, k: number) =>
    row.leaked.length === 0 && row.got.slice(0, k).includes(row.query.expected);
  return {
    at1: rows.filter((row) => ok(row, 1)).length / rows.length,
    at3: rows.filter((row) => ok(row, 3)).length / rows.length,
  };
}
