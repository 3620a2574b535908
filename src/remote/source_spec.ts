/**
 * Remote source specs: `github:OWNER/REPO[/PATH][@REF][,prefix=NAME]` or
 * `https://github.com/OWNER/REPO[/tree/REF[/PATH]][,prefix=NAME]`, parsed
 * into a frozen {@linkcode GitHubSource}. Pure: no I/O.
 *
 * @module
 */

/** One parsed GitHub source. */
export interface GitHubSource {
  /** Which kind of source (`well-known` publishers are {@linkcode PublisherSource}). */
  readonly kind: "github";
  /** Canonical spec, the lock's key: `github:owner/repo[/path][@ref]` (owner, repo lowercased). */
  readonly spec: string;
  /** The text as the owner wrote it (for messages). */
  readonly given: string;
  readonly owner: string;
  readonly repo: string;
  /** Folder inside the repository searched for skills, `""` for the top. */
  readonly path: string;
  /** Branch, tag or commit; null for the repository's default branch. */
  readonly ref: string | null;
  /** Whether `ref` is a full 40-hex commit (then nothing is polled). */
  readonly isCommitPin: boolean;
  /** Served-name prefix: `PREFIX__NAME`, `skill://PREFIX/NAME/...`. */
  readonly prefix: string;
}

/** A spec that cannot be read; the message says what is wrong and how to write it. */
export class SourceSpecError extends Error {
  /** @param message What was wrong, and the accepted forms. */
  constructor(message: string) {
    super(message);
    this.name = "SourceSpecError";
  }
}

const FORMS = "write github:OWNER/REPO[/PATH][@REF][,prefix=NAME] or " +
  "https://github.com/OWNER/REPO[/tree/REF[/PATH]][,prefix=NAME]";
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const REF = /^[A-Za-z0-9._/-]{1,255}$/;
const COMMIT = /^[0-9a-f]{40}$/;
const PREFIX = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Characters of a prefix at most. */
export const MAX_PREFIX_CHARS = 64;
/** Characters of a source PATH at most. */
export const MAX_SOURCE_PATH_CHARS = 1024;

/**
 * Parses one source spec.
 *
 * @param text One spec, e.g. `github:acme/skills/catalog@v2,prefix=acme`.
 * @returns The frozen source.
 * @throws {SourceSpecError} When the form, owner, repository, path, ref or
 *   prefix is not acceptable; the message names the part and the forms.
 */
export function parseSourceSpec(text: string): GitHubSource {
  const given = text.trim();
  const [main = "", ...options] = given.split(",");
  let prefix: string | null = null;
  for (const option of options) {
    const match = /^prefix=(.*)$/.exec(option);
    if (match === null) {
      throw new SourceSpecError(`Source "${given}": unknown option "${option}"; ${FORMS}`);
    }
    prefix = match[1] ?? "";
  }
  const parts = main.startsWith("github:")
    ? shortForm(main.slice("github:".length), given)
    : main.startsWith("https://github.com/")
    ? urlForm(main.slice("https://github.com/".length), given)
    : null;
  if (parts === null) {
    throw new SourceSpecError(`Source "${given}" is not a GitHub source; ${FORMS}`);
  }
  const { owner, repo, path, ref } = parts;
  if (!OWNER.test(owner)) {
    throw new SourceSpecError(`Source "${given}": "${owner}" is not a GitHub owner name`);
  }
  if (!REPO.test(repo) || repo === "." || repo === "..") {
    throw new SourceSpecError(`Source "${given}": "${repo}" is not a GitHub repository name`);
  }
  checkPath(path, given);
  if (ref !== null) checkRef(ref, given);
  const finalPrefix = prefix ?? defaultPrefix(owner, repo);
  if (!PREFIX.test(finalPrefix) || finalPrefix.length > MAX_PREFIX_CHARS) {
    throw new SourceSpecError(
      `Source "${given}": prefix "${finalPrefix}" must be 1-${MAX_PREFIX_CHARS} characters of ` +
        "lowercase a-z, digits and single '-' (it becomes PREFIX__NAME)",
    );
  }
  const lowerOwner = owner.toLowerCase();
  const lowerRepo = repo.toLowerCase();
  const spec = `github:${lowerOwner}/${lowerRepo}${path === "" ? "" : `/${path}`}` +
    (ref === null ? "" : `@${ref}`);
  return Object.freeze({
    kind: "github" as const,
    spec,
    given,
    owner: lowerOwner,
    repo: lowerRepo,
    path,
    ref,
    isCommitPin: ref !== null && COMMIT.test(ref),
    prefix: finalPrefix,
  });
}

/**
 * The default prefix: `OWNER-REPO` lowercased, every run of characters other
 * than `a-z0-9` made one `-`, trimmed, cut to 64 characters.
 *
 * @param owner Repository owner.
 * @param repo Repository name.
 * @returns A prefix matching the Agent Skills name rule (`remote` if nothing is left).
 */
export function defaultPrefix(owner: string, repo: string): string {
  const slug = `${owner}-${repo}`.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(
    0,
    MAX_PREFIX_CHARS,
  )
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "remote" : slug;
}

interface Parts {
  owner: string;
  repo: string;
  path: string;
  ref: string | null;
}

function shortForm(rest: string, given: string): Parts {
  const at = rest.lastIndexOf("@");
  const ref = at < 0 ? null : rest.slice(at + 1);
  const location = at < 0 ? rest : rest.slice(0, at);
  const [owner = "", repo = "", ...path] = location.split("/");
  if (ref === "") throw new SourceSpecError(`Source "${given}": empty REF after "@"; ${FORMS}`);
  return { owner, repo, path: path.join("/"), ref };
}

function urlForm(rest: string, given: string): Parts {
  if (/[?#]/.test(rest)) {
    throw new SourceSpecError(`Source "${given}": a query or fragment is not allowed; ${FORMS}`);
  }
  const [owner = "", repoPart = "", kind, ref, ...path] = rest.replace(/\/+$/, "").split("/");
  const repo = repoPart.replace(/\.git$/, "");
  if (kind === undefined) return { owner, repo, path: "", ref: null };
  if (kind !== "tree" || ref === undefined || ref === "") {
    throw new SourceSpecError(
      `Source "${given}": expected /tree/REF after the repository; ${FORMS}`,
    );
  }
  return { owner, repo, path: path.join("/"), ref };
}

function checkPath(path: string, given: string): void {
  if (path === "") return;
  const bad = path.length > MAX_SOURCE_PATH_CHARS ||
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f\\%@]/.test(path) ||
    path.split("/").some((segment) => segment === "" || segment === "." || segment === "..");
  if (bad) {
    throw new SourceSpecError(
      `Source "${given}": PATH "${path}" must be folder names separated by single '/' ` +
        "(no '.', '..', '\\', '%', '@' or control characters)",
    );
  }
}

function checkRef(ref: string, given: string): void {
  const bad = !REF.test(ref) || ref.includes("..") || ref.includes("//") ||
    ref.startsWith("/") || ref.endsWith("/") || ref.startsWith(".") || ref.endsWith(".lock");
  if (bad) {
    throw new SourceSpecError(
      `Source "${given}": REF "${ref}" is not a branch, tag or commit name skillgate accepts ` +
        "(letters, digits, '.', '_', '-', '/'; no '..')",
    );
  }
}

/**
 * Splits `SKILLGATE_SOURCES` (whitespace-separated specs) into specs.
 *
 * @param value The variable's value.
 * @returns The non-empty entries in order.
 */
export function splitSourceList(value: string): string[] {
  return value.split(/\s+/).filter((entry) => entry !== "");
}

/**
 * Whether an owner is on the default-deny allowlist (GitHub owner names are
 * case-insensitive).
 *
 * @param owner The source's owner.
 * @param allowed `--github-allow` entries.
 * @returns True when listed.
 */
export function isOwnerAllowed(owner: string, allowed: readonly string[]): boolean {
  const lower = owner.toLowerCase();
  return allowed.some((entry) => entry.trim().toLowerCase() === lower);
}
