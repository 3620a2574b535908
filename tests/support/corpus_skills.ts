/**
 * What the test corpus (`CORPUS` in `program.ts`, a copy of Anthropic's
 * public skills repository) holds, for tests that check every skill is served.
 *
 * @module
 */

/** The names of the corpus's skills, sorted as the catalog sorts them. */
export const CORPUS_SKILLS: readonly string[] = Object.freeze([
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
]);
