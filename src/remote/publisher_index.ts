/**
 * A publisher's `index.json`, read into entries skillgate can fetch and
 * verify. Two shapes are published under the discovery RFC's version 0.2.0:
 *
 * - discovery: `{"$schema": ".../discovery/0.2.0/schema.json", "skills":
 *   [{name, type: "skill-md" | "archive", description, url, digest}]}`; a
 *   `skill-md` entry is the SKILL.md itself, an `archive` a `.tar.gz` or
 *   `.zip` of the skill folder (SKILL.md at its root);
 * - files: `{"version": "0.2.0", "skills": [{name, description, digest,
 *   files: [{path, digest}], package?: {url, digest}}]}`; every file has its
 *   own digest and `digest` is the skill-level digest over them.
 *
 * An index without `$schema` or `version`, or with an unknown one, is read
 * entry by entry: what matches a known shape is used, the rest reported. A
 * bad entry (name, URL, digest, path) is skipped with a problem; the
 * others are served. Pure: no I/O.
 *
 * Rule source: Agent Skills Discovery via Well-Known URIs v0.2.0 ("Discovery
 * Index", "Files Array", "Integrity and Verification"); the Agent Skills
 * name rule (`isSpecName()`).
 *
 * @module
 */

import { checkPathString } from "../files/path_gate.ts";
import { quotePath } from "../files/served_name.ts";
import { specNameIssue } from "../skills/names.ts";
import { RemoteError } from "./remote_error.ts";

/** The `$schema` of the discovery shape. */
export const DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** Index versions of the files shape read as known (`0.2.p`). */
const FILES_VERSION = /^0\.2\.(?:0|[1-9]\d{0,8})$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
/**
 * Problems listed per index at most (then one line counting the rest), so
 * what is kept in `state.json` and shown as notes stays small whatever the
 * publisher serves.
 */
export const MAX_INDEX_PROBLEMS = 50;
/** Characters of a file path in the files shape at most (the path gate allows 1024). */
const MAX_FILE_PATH_CHARS = 1024;

/** A file of the files shape. */
export interface IndexFile {
  readonly path: string;
  /** `sha256:` + 64 lowercase hex of its bytes. */
  readonly digest: string;
  /** Where it is fetched when there is no package. */
  readonly url: string;
}

/** One skill the index offers, in a form the fetcher can verify. */
export type IndexEntry =
  | {
    readonly kind: "skill-md";
    readonly name: string;
    readonly url: string;
    readonly digest: string;
  }
  | {
    readonly kind: "archive";
    readonly name: string;
    readonly url: string;
    readonly digest: string;
  }
  | {
    readonly kind: "files";
    readonly name: string;
    /** The skill-level digest over `files`. */
    readonly digest: string;
    readonly files: readonly IndexFile[];
    readonly package: { readonly url: string; readonly digest: string } | null;
  };

/** A read index. */
export interface PublisherIndex {
  /** Which shape the top level declared (`unknown`: neither, or an unknown one). */
  readonly shape: "discovery" | "files" | "unknown";
  readonly entries: readonly IndexEntry[];
  /** What was skipped or doubtful, one sentence each (no host paths). */
  readonly problems: readonly string[];
}

/**
 * Reads an index.
 *
 * @param bytes The index as downloaded (UTF-8 JSON).
 * @param indexUrl The URL it came from (artifact URLs resolve against it).
 * @param maxEntries Items of `skills` examined at most, good or bad; the
 *   rest are reported as one problem. @default 10000
 * @returns The entries and at most {@linkcode MAX_INDEX_PROBLEMS} problems,
 *   plus one line counting those not listed and one for the cap.
 * @throws {RemoteError} `bad-index` when it is not JSON, not an object, or
 *   has no `skills` list.
 */
export function parseIndex(
  bytes: Uint8Array,
  indexUrl: string,
  maxEntries = 10_000,
): PublisherIndex {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new RemoteError("bad-index", "The publisher's index.json is not UTF-8 JSON");
  }
  if (!isRecord(value) || !Array.isArray(value.skills)) {
    throw new RemoteError(
      "bad-index",
      'The publisher\'s index.json has no "skills" list; it is not a discovery index',
    );
  }
  const problems: string[] = [];
  let shape: PublisherIndex["shape"] = "unknown";
  if (value.$schema === DISCOVERY_SCHEMA) shape = "discovery";
  else if (typeof value.version === "string" && FILES_VERSION.test(value.version)) shape = "files";
  else if (value.$schema !== undefined) {
    problems.push(
      `the index's $schema ${quote(value.$schema)} is not one skillgate reads ` +
        `(${DISCOVERY_SCHEMA}); entries matching a known shape are used`,
    );
  } else if (value.version !== undefined) {
    problems.push(
      `the index's version ${quote(value.version)} is not one skillgate reads (0.2.0); ` +
        "entries matching a known shape are used",
    );
  } else {
    problems.push(
      "the index has neither $schema nor version; entries matching a known shape are used",
    );
  }
  const entries: IndexEntry[] = [];
  const names = new Set<string>();
  let unlisted = 0;
  let isOverCap = false;
  const report = (problem: string) => {
    if (problems.length < MAX_INDEX_PROBLEMS) problems.push(problem);
    else unlisted++;
  };
  // Every item counts against the cap, skipped or not: a hostile index of a
  // million bad entries costs no more than one of maxEntries.
  for (const [index, raw] of value.skills.entries()) {
    if (index >= maxEntries) {
      isOverCap = true;
      break;
    }
    const label = isRecord(raw) && typeof raw.name === "string"
      ? `skill ${quote(raw.name)}`
      : `skills[${index}]`;
    try {
      const entry = readEntry(raw, shape, indexUrl);
      if (names.has(entry.name)) throw new EntryProblem("the name is listed twice");
      names.add(entry.name);
      entries.push(entry);
    } catch (error) {
      if (!(error instanceof EntryProblem)) throw error;
      report(`${label} is skipped: ${error.message}`);
    }
  }
  if (unlisted > 0) problems.push(`${unlisted} more skipped entries are not listed`);
  if (isOverCap) {
    problems.push(`the index lists more than ${maxEntries} skills; the rest are skipped`);
  }
  return { shape, entries, problems };
}

/**
 * The skill-level digest of the files shape: SHA-256 over the lines
 * `{path}\0{hex}\n`, sorted by path in byte order.
 *
 * @param files Path -> `sha256:HEX`.
 * @returns `sha256:` + 64 hex.
 *
 * Rule source: discovery RFC v0.2.0, "Skill-Level Digest".
 */
export async function skillLevelDigest(files: Readonly<Record<string, string>>): Promise<string> {
  const encoder = new TextEncoder();
  const paths = Object.keys(files).sort(compareBytes);
  const manifest = paths.map((path) => `${path}\0${files[path]!.slice("sha256:".length)}\n`)
    .join("");
  return await sha256Of(encoder.encode(manifest));
}

/**
 * SHA-256 of bytes as `sha256:HEX`.
 *
 * @param data The bytes.
 * @returns `sha256:` + 64 lowercase hex.
 */
export async function sha256Of(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

class EntryProblem extends Error {}

function readEntry(
  raw: unknown,
  shape: PublisherIndex["shape"],
  indexUrl: string,
): IndexEntry {
  if (!isRecord(raw)) throw new EntryProblem("it is not an object");
  if (typeof raw.name !== "string") throw new EntryProblem("it has no name");
  const issue = specNameIssue(raw.name);
  if (issue !== null) {
    throw new EntryProblem(`its name breaks the Agent Skills name rule: ${issue}`);
  }
  const looksDiscovery = typeof raw.type === "string" || typeof raw.url === "string";
  const looksFiles = Array.isArray(raw.files);
  const kind = shape === "discovery"
    ? "discovery"
    : shape === "files"
    ? "files"
    : looksFiles
    ? "files"
    : looksDiscovery
    ? "discovery"
    : null;
  if (kind === null) {
    throw new EntryProblem("it matches no known entry shape (type/url/digest, or files)");
  }
  const digest = checkedDigest(raw.digest, "its digest");
  if (kind === "discovery") {
    if (raw.type !== "skill-md" && raw.type !== "archive") {
      throw new EntryProblem(`its type ${quote(raw.type)} is not "skill-md" or "archive"`);
    }
    return { kind: raw.type, name: raw.name, url: resolveUrl(raw.url, indexUrl), digest };
  }
  if (!Array.isArray(raw.files) || raw.files.length === 0) {
    throw new EntryProblem("its files list is missing or empty");
  }
  const files: IndexFile[] = [];
  const seen = new Set<string>();
  const skillUrl = new URL(`${encodeURIComponent(raw.name)}/`, indexUrl);
  for (const file of raw.files) {
    if (typeof file === "string") {
      throw new EntryProblem(
        "its files are plain paths (index v0.1.0): without digests they cannot be verified",
      );
    }
    if (!isRecord(file) || typeof file.path !== "string") {
      throw new EntryProblem("a file entry has no path");
    }
    const path = file.path;
    const badRfc = /[^\x20-\x7e]|[\\?#[\]]/.test(path) || path.length > MAX_FILE_PATH_CHARS;
    const refusal = badRfc ? "characters the discovery RFC forbids" : checkPathString(path);
    if (refusal !== null) {
      throw new EntryProblem(`file path ${quote(path)} is refused (${refusal})`);
    }
    if (seen.has(path)) throw new EntryProblem(`file path ${quote(path)} is listed twice`);
    seen.add(path);
    const url = new URL(path.split("/").map(encodeURIComponent).join("/"), skillUrl).href;
    files.push({ path, digest: checkedDigest(file.digest, `the digest of ${quote(path)}`), url });
  }
  if (!seen.has("SKILL.md")) throw new EntryProblem("its files do not include SKILL.md");
  let pkg: { url: string; digest: string } | null = null;
  if (raw.package !== undefined && raw.package !== null) {
    if (!isRecord(raw.package)) throw new EntryProblem("its package is not an object");
    pkg = {
      url: resolveUrl(raw.package.url, indexUrl),
      digest: checkedDigest(raw.package.digest, "its package digest"),
    };
  }
  return { kind: "files", name: raw.name, digest, files, package: pkg };
}

function checkedDigest(value: unknown, what: string): string {
  if (typeof value !== "string" || !DIGEST.test(value)) {
    throw new EntryProblem(`${what} is not sha256: and 64 lowercase hex digits`);
  }
  return value;
}

function resolveUrl(value: unknown, indexUrl: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new EntryProblem("it has no url");
  let url: URL;
  try {
    url = new URL(value, indexUrl);
  } catch {
    throw new EntryProblem(`its url ${quote(value)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new EntryProblem(`its url is not http(s)`);
  }
  url.hash = "";
  return url.href;
}

/** A value from the index for a problem: cut to 80 characters, controls and bidi escaped. */
function quote(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return quotePath(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
