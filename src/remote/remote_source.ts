/**
 * The two kinds of remote source behind one type: GitHub repositories
 * (`source_spec.ts`) and well-known publishers (`publisher_spec.ts`). One
 * parser decides which a spec is. Pure: no I/O.
 *
 * @module
 */

import { parsePublisherSpec, type PublisherSource } from "./publisher_spec.ts";
import { type GitHubSource, parseSourceSpec, SourceSpecError } from "./source_spec.ts";

/** Any configured remote source. */
export type RemoteSource = GitHubSource | PublisherSource;

/**
 * Parses a spec of either kind: `github:...` and `https://github.com/...`
 * are GitHub sources; any other `https://` (or loopback `http://`) URL is a
 * publisher.
 *
 * @param text One spec as written.
 * @returns The frozen source.
 * @throws {SourceSpecError} When neither kind accepts it; the message says which forms exist.
 */
export function parseRemoteSpec(text: string): RemoteSource {
  const given = text.trim();
  if (given.startsWith("github:") || given.startsWith("https://github.com/")) {
    return parseSourceSpec(given);
  }
  if (/^https?:\/\//i.test(given)) return parsePublisherSpec(given);
  throw new SourceSpecError(
    `Source "${given}" is not a remote source; write github:OWNER/REPO[/PATH][@REF], ` +
      "https://github.com/OWNER/REPO[/tree/REF[/PATH]] or " +
      "https://HOST[/BASE]/.well-known/agent-skills/ (then ,prefix=NAME if needed)",
  );
}

/**
 * Whether a lock or state spec names a publisher (its canonical spec is a URL).
 *
 * @param spec A canonical spec.
 * @returns True for `https://…/.well-known/agent-skills/`.
 */
export function isPublisherSpec(spec: string): boolean {
  return /^https?:\/\//.test(spec);
}

/**
 * How a served revision is named in messages: a commit's first 12 hex
 * digits, or `index sha256:` and the first 12 of a publisher index's digest.
 *
 * @param spec The source's canonical spec.
 * @param revision The commit (40 hex) or index digest (64 hex).
 * @returns E.g. `cbd72c5893c4` or `index sha256:0f3a…`.
 */
export function revisionLabel(spec: string, revision: string): string {
  return isPublisherSpec(spec) ? `index sha256:${revision.slice(0, 12)}` : revision.slice(0, 12);
}
