/**
 * The one source of truth for the trusted part's static Deno flags: the same
 * list is used by the launcher `./skillgate` (which `make run` calls; it reads
 * this JSON file with the same `sed` rule as `make print-flags`), by the end-to-end
 * tests and by `make compile`, which embeds them in the binary.
 *
 * @module
 */

import flags from "./trusted_flags.json" with { type: "json" };

/** Runtime flags (not permissions), e.g. `--cached-only`. */
export const TRUSTED_RUNTIME_FLAGS: readonly string[] = Object.freeze([...flags.runtime]);
/** Permission flags of the trusted part, e.g. `--allow-read`. */
export const TRUSTED_PERMISSION_FLAGS: readonly string[] = Object.freeze([...flags.permissions]);
/** Why each flag is there, keyed by flag. */
export const TRUSTED_FLAG_REASONS: Readonly<Record<string, string>> = Object.freeze({
  ...flags.reasons,
});

/**
 * The full `deno run` argument list for the trusted part, in order: runtime
 * flags, then permission flags.
 *
 * @returns A new array of flags, e.g. `["--cached-only", ..., "--allow-read"]`.
 */
export function trustedRunFlags(): string[] {
  return [...TRUSTED_RUNTIME_FLAGS, ...TRUSTED_PERMISSION_FLAGS];
}
