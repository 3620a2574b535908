/**
 * Problems: what discovery, parsing, validation and the grant found wrong.
 * The set of reasons is stable and additive (documented in README.md,
 * "Problem reasons"); a client may switch on `reason`.
 *
 * @module
 */

/** How bad a problem is: an `error` keeps the thing out, a `warning` does not. */
export type Severity = "error" | "warning";

/** Every reason a problem can carry. Add new ones at the end; never rename. */
export const PROBLEM_REASONS = [
  "root-unreadable",
  "no-skill-md",
  "unreadable-skill-md",
  "malformed-frontmatter",
  "declaration",
  "duplicate-name",
  "name-mismatch",
  "unusable-name",
  "declared-script-missing",
  "symlink-escape",
  "unusable-path",
  "file-limit",
  "skill-limit",
  "grant",
  "environ-unscrubbed",
  "invalid-frontmatter",
  "nested-skill",
  "skill-md-case",
  "skill-md-truncated",
  "folder-limit",
  "extension-excluded",
  "file-not-served",
  "symlink-loop",
  "symlink-alias",
  "restart-needed",
  "config-invalid",
  "prefix-collision",
  "remote-unavailable",
  "remote-stale",
  "remote-update",
  "remote-lock-mismatch",
  "remote-index",
  "depth-limit",
  "override-unmatched",
] as const;

/** One of {@linkcode PROBLEM_REASONS}. */
export type ProblemReason = typeof PROBLEM_REASONS[number];

/**
 * One finding. `path` is the file or folder it is about, as discovered under
 * its root (never a real path outside a root); `line`/`column` are 1-based
 * and present when the finding has a place in a file.
 */
export interface Problem {
  readonly path: string;
  readonly reason: ProblemReason;
  readonly severity: Severity;
  readonly detail: string;
  readonly line?: number;
  readonly column?: number;
}
