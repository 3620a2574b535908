/**
 * SEP-2640 skill entries: `{uri, frontmatter, resources}` for one served
 * skill, and the per-snapshot view of which skills the extension lists, in
 * `skills/list` order (by SKILL.md URI, code-unit order).
 *
 * @module
 */

import { extensionExclusion } from "../../skills/extension_eligibility.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { skillFileUri } from "../resources/skill_uri.ts";
import type { DigestCache } from "./digest_cache.ts";
import { logErrorLine } from "../../cli/terminal_text.ts";
import { isMomentaryReadFailure } from "../../files/bounded_read.ts";

/** One file of an entry's manifest. */
export interface SkillResourceEntry {
  readonly uri: string;
  /** `sha256:` and 64 lowercase hexadecimal characters. */
  readonly digest: string;
  /** Bytes the digest covers. */
  readonly size: number;
}

/** One skill entry, as `skills/list` and `skills/get` carry it (protocol 2025-11-25). */
export interface SkillEntry {
  /** The SKILL.md URI. */
  readonly uri: string;
  /** The parsed frontmatter, as JSON values, verbatim. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Every listed file, SKILL.md included, in path order. */
  readonly resources: readonly SkillResourceEntry[];
}

/** The skills the extension lists in one snapshot. */
export interface ExtensionView {
  /** Listed skills sorted by SKILL.md URI (code-unit order). */
  readonly skills: readonly Skill[];
  /** The SKILL.md URI of each skill in {@linkcode ExtensionView.skills}, same order. */
  readonly uris: readonly string[];
  /** Listed skills by SKILL.md URI. */
  readonly byUri: ReadonlyMap<string, Skill>;
  /**
   * Served skills the extension leaves out, by SKILL.md URI: the skill's
   * name and why (`extensionExclusion`: how it breaks which rule), so
   * `skills/get` can say so instead of "no skill is served".
   */
  readonly excludedByUri: ReadonlyMap<string, { readonly name: string; readonly why: string }>;
}

const views = new WeakMap<Catalog, ExtensionView>();

/**
 * Entries already built, per digest cache and per skill object (issue 13: a
 * repeated full listing at 10,000 skills rebuilt 40,000 resource entries,
 * cache keys and URIs included, about 2 ms a page). An entry is kept only
 * when every one of its digests is the one the cache holds for the version
 * the skill lists (`DigestCache.digestListed`): exactly what a later call
 * would answer from memory, with no file-system call. Why that stays true:
 * a `Skill` is frozen, and live refresh gives a skill a new object whenever
 * it loads it again (an edit, a new or removed file, a file swapped for a
 * link), so the next listing misses here and goes through the digest cache
 * (and, for a new version, the gate) again; unchanged skills keep their
 * object across refreshes and their entry with it. A file whose digest came
 * from another version than the listed one (it changed while read), or
 * that was left out, keeps its skill out of this memo. Serving a file's
 * bytes never looks here: `resources/read` always goes through the gate.
 */
const built = new WeakMap<DigestCache, WeakMap<Skill, SkillEntry>>();

function builtEntries(cache: DigestCache): WeakMap<Skill, SkillEntry> {
  let known = built.get(cache);
  if (known === undefined) {
    known = new WeakMap();
    built.set(cache, known);
  }
  return known;
}

/**
 * Whether a skill's entry was built already for this digest cache (no
 * file-system call): the hash-ahead skips such skills.
 *
 * @param skill A skill of the current snapshot.
 * @param cache The digest cache.
 * @returns True when {@linkcode skillEntries} answers it from memory.
 */
export function isEntryBuilt(skill: Skill, cache: DigestCache): boolean {
  return built.get(cache)?.has(skill) ?? false;
}

/**
 * Files in flight at most while building entries. Resolving and hashing are
 * synchronous; each file in flight holds one open descriptor while its
 * location is checked, and the locator sends the checks of all of them in
 * one or two messages (a page of 50 skills has about 200 files; issue 13:
 * 128 instead of 64 made a cold page's median about a quarter shorter at
 * 10,000 skills). Bounded so that a few listings at once (sessions, the
 * page hashed ahead) stay far below a 1,024-descriptor limit.
 */
const DIGEST_CONCURRENCY = 128;

/**
 * The SKILL.md URI of a skill: `skill://<name>/SKILL.md`.
 *
 * @param skill A served skill.
 * @returns The URI, built as the resources family builds every skill file URI.
 *
 * Source: SEP-2640, "Resource Mapping".
 */
export function skillMdUri(skill: Skill): string {
  return skillFileUri(skill.name, skill.skillMdFile);
}

/**
 * The skills the extension lists in a snapshot, computed once per snapshot.
 *
 * @param catalog The snapshot.
 * @returns The view: skills that pass `extensionExclusion`, sorted by URI,
 *   and the ones it leaves out, by URI.
 *
 * Source: SEP-2640, "Listing Skills" (stable order for pagination).
 */
export function extensionView(catalog: Catalog): ExtensionView {
  const known = views.get(catalog);
  if (known !== undefined) return known;
  const pairs: { uri: string; skill: Skill }[] = [];
  const excludedByUri = new Map<string, { readonly name: string; readonly why: string }>();
  for (const skill of catalog.skills) {
    const why = extensionExclusion(skill);
    if (why === null) pairs.push({ uri: skillMdUri(skill), skill });
    else excludedByUri.set(skillMdUri(skill), Object.freeze({ name: skill.name, why }));
  }
  pairs.sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  const view: ExtensionView = Object.freeze({
    skills: Object.freeze(pairs.map((pair) => pair.skill)),
    uris: Object.freeze(pairs.map((pair) => pair.uri)),
    byUri: new Map(pairs.map((pair) => [pair.uri, pair.skill])),
    excludedByUri,
  });
  views.set(catalog, view);
  return view;
}

/** Entries a listed file was left out of (see {@linkcode isManifestComplete}). */
const leftOutEntries = new WeakSet<SkillEntry>();

/**
 * Whether an entry's `resources` lists every file of the snapshot's skill.
 * SEP-2640 ("Resources") says an array MUST be complete and has no mark for
 * an incomplete one, so an entry this says false of is never sent: the
 * listing leaves it out (a partial listing is allowed) and `skills/get`
 * answers an internal error saying to ask again after the refresh.
 *
 * @param entry An entry from {@linkcode skillEntries}.
 * @returns False when a listed file could not be hashed (it vanished, became
 *   unreadable or a link since the snapshot was taken).
 */
export function isManifestComplete(entry: SkillEntry): boolean {
  return !leftOutEntries.has(entry);
}

/**
 * Entries a listed file was left out of only for a moment's reason, through
 * every try (`isMomentaryReadFailure`: no descriptor free, or the location
 * check unanswered in time): nothing is known to have changed, so no refresh
 * will follow to bring the skill back (s11-hG).
 */
const leftOutForNowEntries = new WeakSet<SkillEntry>();

/**
 * Whether an incomplete entry ({@linkcode isManifestComplete} false) lacks a
 * file only because this process had no descriptor free (`EMFILE`,
 * `ENFILE`) while it was read, or its location check was not answered in
 * time (`isMomentaryReadFailure`), through every try: nothing about the skill
 * changed, so leaving it out of a listing would tell the client it is gone
 * with no `list_changed` to follow. The caller answers an error instead
 * (ask again); the entry is not memoized, so the next request reads the file
 * again.
 *
 * @param entry An entry from {@linkcode skillEntries}.
 * @returns True when a file was left out for such a moment's reason.
 */
export function isLeftOutForNow(entry: SkillEntry): boolean {
  return leftOutForNowEntries.has(entry);
}

/**
 * Builds the entries of several skills, hashing their files through the
 * digest cache with bounded concurrency. A version the cache holds answers
 * from memory (the manifest describes the snapshot); a file that must be
 * hashed but vanished, became unreadable or changed type since the snapshot
 * was taken is left out of its manifest (live refresh is about to swap in a
 * snapshot without it), logged, and the entry marked incomplete
 * ({@linkcode isManifestComplete}: never sent as it is). A descriptor
 * shortage is waited out first (the digest cache's miss path retries the
 * gate's open); one that outlasts every try marks the entry
 * {@linkcode isLeftOutForNow} as well.
 *
 * @param skills The skills, in answer order.
 * @param cache The digest cache.
 * @param options `logsLeftOut`: log each file left out (default true; the
 *   page hashed ahead passes false, the request that answers it logs).
 * @returns One entry per skill, same order.
 *
 * Requires `--allow-read` on the skill folders.
 *
 * Source: SEP-2640, "Skill Entries" (frontmatter verbatim; `resources`
 * complete, SKILL.md included, each with digest and size).
 */
export async function skillEntries(
  skills: readonly Skill[],
  cache: DigestCache,
  options: { readonly logsLeftOut?: boolean } = {},
): Promise<SkillEntry[]> {
  const memo = builtEntries(cache);
  const answers = skills.map((skill) => memo.get(skill));
  const jobs = skills.flatMap((skill, index) =>
    answers[index] === undefined ? skill.files.map((file) => ({ index, skill, file })) : []
  );
  if (jobs.length === 0) return answers as SkillEntry[];
  const digests = new Array<SkillResourceEntry | null>(jobs.length).fill(null);
  // Digests held for the listed versions are taken at once, without a promise per file (issue
  // 13: after a cold build every digest of a first full listing is held, 40,000 at 10,000
  // skills); only the others go the asynchronous way below (a read through the gate).
  const misses: number[] = [];
  jobs.forEach((job, at) => {
    const held = cache.heldListed(job.skill.realDir, job.file);
    if (held === null) misses.push(at);
    else {
      digests[at] = Object.freeze({
        uri: skillFileUri(job.skill.name, job.file.path),
        digest: held.digest,
        size: held.size,
      });
    }
  });
  const complete = skills.map(() => true);
  const leftOut = skills.map(() => false);
  const leftOutForNow = skills.map(() => false);
  /** Files whose read met a descriptor shortage through every try, read again at the end. */
  const deferred: number[] = [];
  /** Marks a file left out of its entry, and logs why unless told not to. */
  const leaveOut = (at: number, error: unknown, isShortage: boolean): void => {
    const job = jobs[at];
    if (job === undefined) return;
    complete[job.index] = false;
    leftOut[job.index] = true;
    if (isShortage) leftOutForNow[job.index] = true;
    if (options.logsLeftOut === false) return;
    const why = error instanceof Error ? error.message : String(error);
    logErrorLine(`skillgate: skills extension leaves out a file of "${job.skill.name}": ${why}`);
  };
  /** Hashes one file; with `defers`, a descriptor shortage defers it instead of leaving it out. */
  const hash = async (at: number, defers: boolean): Promise<unknown> => {
    const job = jobs[at];
    if (job === undefined) return null;
    try {
      const { found, isListed } = await cache.digestListed(job.skill.realDir, job.file);
      digests[at] = Object.freeze({
        uri: skillFileUri(job.skill.name, job.file.path),
        digest: found.digest,
        size: found.size,
      });
      if (!isListed) complete[job.index] = false;
      return null;
    } catch (error) {
      const isShortage = isMomentaryReadFailure(error);
      if (isShortage && defers) deferred.push(at);
      else leaveOut(at, error, isShortage);
      return isShortage ? error : null;
    }
  };
  let next = 0;
  let working = Math.min(DIGEST_CONCURRENCY, misses.length);
  async function worker(): Promise<void> {
    while (next < misses.length) {
      const at = misses[next++];
      if (at === undefined) return;
      // A reader that met a shortage ends (one always goes on): the call then holds fewer
      // descriptors at once, and the process's other readers get theirs back sooner (s11-hG).
      if ((await hash(at, true)) !== null && working > 1) {
        working--;
        return;
      }
    }
  }
  if (misses.length > 0) await Promise.all(Array.from({ length: working }, worker));
  // A shortage that outlasted the miss path's tries while this call's own reads held up to
  // `DIGEST_CONCURRENCY` descriptors (s11-hG: under `ulimit -n 256`, the page, the page hashed
  // ahead and the digest isolate's readers together hold more than the limit, and a read
  // waiting 50 ms between tries lost each freed descriptor to a reader that never waited): read
  // again one at a time, once this call holds none, each with the tries afresh.
  // A shortage that lasts through that too leaves the rest out at once (the caller answers an
  // error, `isLeftOutForNow`), not after the tries of each.
  let lasting: unknown = null;
  for (const at of deferred.splice(0)) {
    if (lasting !== null) leaveOut(at, lasting, true);
    else lasting = await hash(at, false);
  }
  const resources: SkillResourceEntry[][] = skills.map(() => []);
  jobs.forEach((job, at) => {
    const digest = digests[at];
    if (digest != null) resources[job.index]?.push(digest);
  });
  return skills.map((skill, index) => {
    const known = answers[index];
    if (known !== undefined) return known;
    const entry: SkillEntry = Object.freeze({
      uri: skillMdUri(skill),
      frontmatter: skill.frontmatter,
      resources: Object.freeze(resources[index] ?? []),
    });
    if (complete[index] === true) memo.set(skill, entry);
    if (leftOut[index] === true) leftOutEntries.add(entry);
    if (leftOutForNow[index] === true) leftOutForNowEntries.add(entry);
    return entry;
  });
}
