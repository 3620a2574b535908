/**
 * The serving worker's side of the digest isolate (issue 13): while a large
 * cold catalog is built, each loaded skill's files whose listed version has
 * no digest yet are sent, in batches, to a second isolate that reads them
 * through the same gate and hashes them on the other core; the first
 * `skills/list` then finds their digests held. A lookup of a file sent and
 * not answered yet awaits the answer (`DigestCache.hashElsewhere`); a file
 * still waiting here when a page needs it is read by the page itself (and
 * skipped here later), so both cores share what is left after the build.
 *
 * The isolate is started through the trusted part (the worker may not read
 * the module, and the trusted part answers the isolate's descriptor
 * locations exactly as the worker's): the worker posts `digest-isolate` with
 * its end of a channel. Once the build is done and every batch is answered,
 * it asks the trusted part to end the isolate. If the isolate fails, does
 * not answer in time, or the trusted part starts none, every file not
 * answered is read here, and one warning is logged. With `sharesListing`,
 * the worker lists and hashes some folders itself (the isolate's own code,
 * `listAndHashSkills`) while the isolate is two jobs ahead, so neither thread
 * waits for the other during the build (s9-h4).
 *
 * @module
 */

import type {
  DigestIsolateStartMessage,
  DigestIsolateStopMessage,
} from "../../sandbox/messages.ts";
import { extensionExclusion } from "../../skills/extension_eligibility.ts";
import { compareCodeUnits } from "../../skills/_fs.ts";
import { type FileListing, internListedPath, type ListCaps } from "../../skills/_list_files.ts";
import type { Subtree } from "../../skills/_read_folder.ts";
import type { SkillCandidate } from "../../skills/discover.ts";
import type { Problem } from "../../skills/problem.ts";
import type { Skill, SkillFile } from "../../skills/skill.ts";
import { descriptorProgressBuffer } from "../../files/descriptor_shortage.ts";
import type { DigestCache } from "./digest_cache.ts";
import {
  type DescriptorProgressMessage,
  type DigestJobFile,
  type DigestJobMessage,
  type DigestListJobMessage,
  type DigestSeen,
  isPlausibleListing,
  type ListedSkill,
  type ListJobFolder,
  type ListJobSkill,
  parseDigestReply,
  parseListReply,
} from "./digest_messages.ts";

/** Files per job sent to the isolate. */
export const DIGEST_BATCH_FILES = 64;
/**
 * Jobs sent and not answered at most: enough that the isolate never waits
 * for the worker's build to yield (every 10 ms) for more, few enough that a
 * page reaching the files still here reads them itself rather than waiting.
 */
export const DIGEST_BATCHES_IN_FLIGHT = 4;
/**
 * Skill folders per listing job at most (`listRemotely`): requests made in
 * one turn of the event loop go together, up to this many.
 */
export const LIST_BATCH_SKILLS = 16;
/**
 * Listing jobs the isolate has not answered from which, with
 * {@linkcode DigestHelperOptions.sharesListing}, the next batch is listed and
 * hashed in the worker's own thread instead: one job being worked on and one
 * queued behind it keep the isolate busy, and a worker whose loads all wait
 * for listings would otherwise stand idle (s9-h4: at 10,000 skills the
 * isolate was the cold build's critical path, the worker asleep ~20-25% of
 * it).
 */
export const LIST_JOBS_AHEAD = 2;
/**
 * The share of the listed skill folders at most that the worker lists itself
 * (`sharesListing`). Measured at 10,000 real-shaped skills (s9-h4): with a
 * quarter the worker's own thread over the build stayed about as busy as with
 * none (a listing taken in from the isolate costs it the message's copy and
 * checks), the isolate's fell by a third; at ~40% the worker became the
 * build's critical path (the isolate asleep for much of it).
 */
export const LIST_HERE_SHARE = 0.25;
/** How long the isolate may go without answering a job while one is pending, in ms. */
export const DIGEST_REPLY_TIMEOUT_MS = 20_000;
/**
 * How long the isolate may go without any sign of life (an answer or its heartbeat, every
 * `DIGEST_HEARTBEAT_MS`) while a job is pending, once it said it was alive, in ms: its thread
 * stopped (blocked in a call, or looping), so the files sent are read in the worker at once
 * rather than after {@linkcode DIGEST_REPLY_TIMEOUT_MS}. Generous against a loaded machine's
 * scheduling: a wrong guess costs only the worker's own hashing.
 */
export const DIGEST_SILENCE_MS = 3_000;

/** Where the worker asks the trusted part to start and end the isolate (in the worker: `self`). */
export interface DigestParentPort {
  postMessage(
    message: DigestIsolateStartMessage | DigestIsolateStopMessage,
    transfer?: Transferable[],
  ): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/** Options of {@linkcode createDigestHelper}. */
export interface DigestHelperOptions {
  /** Files per job. @default DIGEST_BATCH_FILES */
  readonly batchFiles?: number;
  /** Jobs in flight at most. @default DIGEST_BATCHES_IN_FLIGHT */
  readonly batchesInFlight?: number;
  /** No answer for this long while a job is pending ends the isolate, in ms. @default DIGEST_REPLY_TIMEOUT_MS */
  readonly replyTimeoutMs?: number;
  /**
   * No sign of life (answer or heartbeat) for this long while a job is pending, once the
   * isolate said it was alive, ends it, in ms. @default DIGEST_SILENCE_MS
   */
  readonly silenceMs?: number;
  /** Where the one warning goes. @default console.error */
  readonly warn?: (line: string) => void;
  /**
   * Asked once, after `decideAfterSkills` skills were offered (or at
   * `finish()`), whether the isolate is worth starting: the worker answers
   * from the index cache's parse hits, so a warm start (its digests held)
   * neither starts it nor looks a digest up during the build. Skills offered
   * before are held (no file-system call, no lookup) until then. @default always
   */
  readonly isWorthStarting?: () => boolean;
  /** Skills offered before {@linkcode DigestHelperOptions.isWorthStarting} is asked. @default 64 */
  readonly decideAfterSkills?: number;
  /**
   * Whether a listing batch made while the isolate has {@linkcode LIST_JOBS_AHEAD}
   * jobs unanswered is listed and hashed in this thread instead (`listAndHashSkills`:
   * the same walk, located opens, location checks and hashing as the isolate's, one
   * batch at a time so this thread holds at most `MAX_LISTING_HANDLES` listing
   * descriptors), its answer taken in exactly as the isolate's; at most
   * {@linkcode LIST_HERE_SHARE} of the folders listed. A caller that wants batches to
   * form while the isolate is that far ahead keeps more than `LIST_JOBS_AHEAD` x
   * `LIST_BATCH_SKILLS` loads in flight. @default false
   */
  readonly sharesListing?: boolean;
}

/** Feeds the digest isolate; see {@linkcode createDigestHelper}. */
export interface DigestHelper {
  /**
   * Queues the files of a skill the extension lists (those whose listed
   * version has a digest held or in flight by then are skipped when a job
   * is made); starts the isolate with the first job.
   *
   * @param skill A skill just loaded by the build.
   */
  offer(skill: Skill): void;
  /**
   * Starts the isolate now, before any skill is offered, for a build that
   * will use it (s10-h8: a cold large build; its start-up then overlaps
   * discovery instead of following the first loads). No effect while skills
   * are held for `isWorthStarting`, or once declined, failed or finished.
   * Ended as any started isolate is (`finish`, `close`).
   */
  startEarly(): void;
  /** No more skills will be offered: the isolate is ended once every job is answered. */
  finish(): void;
  /** Ends the isolate now; files not answered are read in the worker's thread. */
  close(): void;
  /**
   * Asks the isolate to list a skill folder and hash its files in the same
   * pass (issue 13: the build's `stat` of each file, then the isolate's
   * walk, open and `fstat` of the same file, became one open; the walk
   * leaves the worker's thread). Sent at once (with the other requests of
   * this turn); each digest answered is stored as the isolate's answers to
   * `offer` are (`DigestCache.hashElsewhere`: under the version its gate saw).
   *
   * @param candidate The skill folder, as discovery found it.
   * @param caps Files and folders per skill at most.
   * @returns Null when the isolate is not used now (not decided yet,
   *   declined, failed or finished): list it here. Otherwise a promise of
   *   the listing, completed with the SKILL.md entry the worker's gate read
   *   (exactly what `listSkillFiles` gives with it), or of null when the
   *   isolate did not list it (it failed, or its answer was malformed).
   */
  listRemotely(
    candidate: SkillCandidate,
    caps: ListCaps,
  ): Promise<((skillMd: SkillFile) => FileListing) | null> | null;
  /** Whether the isolate failed (the worker hashes in its own thread from then). */
  readonly hasFailed: boolean;
  /** Files sent to the isolate so far, for tests and benchmarks. */
  readonly sent: number;
  /** Skill folders sent to the isolate to be listed so far, for tests and benchmarks. */
  readonly listed: number;
  /**
   * Skill folders listed and hashed in this thread instead (`sharesListing`) so far, for
   * tests and benchmarks.
   */
  readonly listedHere: number;
}

interface Queued {
  readonly dir: string;
  readonly file: SkillFile;
}

interface Pending {
  readonly files: readonly DigestJobFile[];
  readonly answer: ((seen: DigestSeen | null) => void)[];
}

/**
 * Creates the helper; nothing starts until a skill with an unhashed file is offered.
 *
 * @param cache The digest cache the answers are stored in (the one `skills/list` uses).
 * @param parent Where to ask the trusted part for the isolate (in the worker: `self`).
 * @param options Batch size (default 64 files), jobs in flight (default 4),
 *   reply timeout (default 20,000 ms), warning output, and when to decide
 *   whether to start at all.
 * @returns The helper.
 *
 * Requires `--allow-read` on the skill folders: a file the isolate does not
 * answer (it failed, or refused the file) is read here through the gate.
 */
export function createDigestHelper(
  cache: DigestCache,
  parent: DigestParentPort,
  options: DigestHelperOptions = {},
): DigestHelper {
  const batchFiles = options.batchFiles ?? DIGEST_BATCH_FILES;
  const batchesInFlight = options.batchesInFlight ?? DIGEST_BATCHES_IN_FLIGHT;
  const replyTimeoutMs = options.replyTimeoutMs ?? DIGEST_REPLY_TIMEOUT_MS;
  const silenceMs = options.silenceMs ?? DIGEST_SILENCE_MS;
  const warn = options.warn ?? ((line: string) => console.error(line));
  // Files waiting, `queue[head]` to `queue[queue.length - 1]`. While the build runs, jobs take
  // them from the front (the order skills load in); once it is done, from the back, while the
  // listing, which pages through in about that order, reads the front itself: they meet in the
  // middle (with both from the front, every page waited on the isolate's jobs and the worker's
  // thread stood idle).
  const queue: Queued[] = [];
  let head = 0;
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let channel: MessagePort | null = null;
  let hasFailed = false;
  let isFinished = false;
  let isStopped = false;
  let sent = 0;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  /** Armed while a job is pending, once the isolate said it was alive; re-armed by each sign. */
  let silence: ReturnType<typeof setTimeout> | undefined;
  let hasSaidAlive = false;
  // Listing requests of this turn, and listing jobs sent and not answered.
  let listBatch: { skill: ListJobSkill; answer: (listed: ListedSkill | null) => void }[] = [];
  let listCaps: ListCaps | null = null;
  let isListFlushQueued = false;
  const listPending = new Map<number, ((listed: ListedSkill | null) => void)[]>();
  let listed = 0;
  let listedHere = 0;
  /** Whether a batch is being listed in this thread now (`sharesListing`: one at a time). */
  let isListingHere = false;
  const decideAfterSkills = options.decideAfterSkills ?? 64;
  let held: Skill[] | null = options.isWorthStarting === undefined ? null : [];
  let isDeclined = false;
  /**
   * Queues a skill's files. Whether each is still unhashed is asked once, when a job takes it
   * (`hashElsewhere`), not here too: the worker's thread is the cold build's critical path.
   */
  const enqueue = (skill: Skill) => {
    for (const file of skill.files) queue.push({ dir: skill.realDir, file });
  };
  /** Asks `isWorthStarting` once; queues the skills held meanwhile, or drops them. */
  const decide = () => {
    if (held === null) return;
    const waiting = held;
    held = null;
    if (options.isWorthStarting?.() === false) isDeclined = true;
    else waiting.forEach(enqueue);
  };

  const armWatchdog = () => {
    clearTimeout(watchdog);
    watchdog = pending.size + listPending.size === 0 ? undefined : setTimeout(() => {
      fail(`the digest isolate answered nothing for ${replyTimeoutMs} ms`);
    }, replyTimeoutMs);
  };
  /** (Re-)arms the silence timer: a sign of life was just seen, or a job was just sent. */
  const armSilence = () => {
    clearTimeout(silence);
    silence = !hasSaidAlive || pending.size + listPending.size === 0
      ? undefined
      : setTimeout(() => {
        fail(`the digest isolate stopped answering (no sign of life for ${silenceMs} ms)`);
      }, silenceMs);
  };
  /** Settles every job still out with null (read here) and forgets the queue. */
  const release = () => {
    for (const job of pending.values()) job.answer.forEach((answer) => answer(null));
    pending.clear();
    for (const answers of listPending.values()) answers.forEach((answer) => answer(null));
    listPending.clear();
    const unsent = listBatch;
    listBatch = [];
    unsent.forEach((request) => request.answer(null));
    queue.length = 0;
    head = 0;
    clearTimeout(watchdog);
    watchdog = undefined;
    clearTimeout(silence);
    silence = undefined;
  };
  const stop = () => {
    if (channel === null || isStopped) return;
    isStopped = true;
    clearTimeout(silence);
    silence = undefined;
    channel.close();
    parent.removeEventListener("message", onParent);
    parent.postMessage({ type: "digest-isolate-stop" });
  };
  const fail = (why: string) => {
    if (hasFailed) return;
    hasFailed = true;
    release();
    stop();
    warn(`skillgate: ${why}; skills/list digests are computed in the serving worker instead`);
  };
  function onParent(event: MessageEvent) {
    const data = event.data as { type?: unknown; reason?: unknown } | null;
    if (data?.type !== "digest-isolate-ended") return;
    fail(typeof data.reason === "string" ? data.reason : "the digest isolate ended");
  }
  const onReply = (event: MessageEvent) => {
    const type = (event.data as { type?: unknown } | null)?.type;
    if (type === "digest-alive") {
      hasSaidAlive = true;
      if (!hasFailed && !isStopped) armSilence();
      return;
    }
    if (type === "list-skills-reply") {
      onListReply(event.data);
      return;
    }
    const id = (event.data as { id?: unknown } | null)?.id;
    const job = typeof id === "number" ? pending.get(id) : undefined;
    if (job === undefined) return;
    pending.delete(id as number);
    const reply = parseDigestReply(event.data, job.files.length);
    job.answer.forEach((answer, index) => answer(reply?.results[index] ?? null));
    armWatchdog();
    armSilence();
    pump();
  };
  const onListReply = (data: unknown) => {
    const id = (data as { id?: unknown } | null)?.id;
    const answers = typeof id === "number" ? listPending.get(id) : undefined;
    if (answers === undefined) return;
    listPending.delete(id as number);
    const reply = parseListReply(data, answers.length);
    answers.forEach((answer, index) => answer(reply?.results[index] ?? null));
    armWatchdog();
    armSilence();
    pump();
  };
  /** Sends the listing requests of this turn as one job. */
  const flushList = () => {
    isListFlushQueued = false;
    if (listBatch.length === 0 || listCaps === null) return;
    const batch = listBatch;
    listBatch = [];
    if (hasFailed || isStopped) {
      batch.forEach((request) => request.answer(null));
      return;
    }
    if (
      options.sharesListing === true && !isListingHere && listPending.size >= LIST_JOBS_AHEAD &&
      listedHere < LIST_HERE_SHARE * (listed + listedHere)
    ) {
      listHere(batch, listCaps);
      return;
    }
    channel ??= start();
    const id = nextId++;
    listPending.set(id, batch.map((request) => request.answer));
    const job: DigestListJobMessage = {
      type: "list-skills",
      id,
      caps: listCaps,
      skills: batch.map((request) => request.skill),
    };
    channel.postMessage(job);
    listed += batch.length;
    if (watchdog === undefined) armWatchdog();
    if (silence === undefined) armSilence();
  };
  /**
   * Lists and hashes a batch in this thread (the isolate is far enough ahead): the isolate's
   * own code, through this thread's gate and locator; each answer goes the way the isolate's
   * does (the plausibility check, then `toListing`). A throw answers null: listed by the build.
   */
  const listHere = (
    batch: readonly { skill: ListJobSkill; answer: (listed: ListedSkill | null) => void }[],
    caps: ListCaps,
  ) => {
    isListingHere = true;
    listedHere += batch.length;
    // Loaded on the first such batch: node:crypto stays out of the worker's first answer.
    import("./digest_listing.ts")
      .then(({ listAndHashSkills }) =>
        listAndHashSkills(batch.map((request) => request.skill), caps)
      )
      .then(
        (results) => batch.forEach((request, index) => request.answer(results[index] ?? null)),
        () => batch.forEach((request) => request.answer(null)),
      )
      .finally(() => {
        isListingHere = false;
      });
  };
  /**
   * Turns the isolate's listing into the build's: paths shared as the build's are, each
   * digest stored as any other of the isolate's, SKILL.md's entry put in its sorted place.
   */
  const toListing = (realDir: string, answer: ListedSkill) => {
    const files: SkillFile[] = answer.files.map((file) => ({
      path: internListedPath(file.path),
      size: file.size,
      mtimeMs: file.mtimeMs,
      ctimeMs: file.ctimeMs,
      dev: file.dev,
      ino: file.ino,
    }));
    answer.digests.forEach((seen, index) => {
      const file = files[index];
      if (seen !== null && file !== undefined) {
        cache.storeFromElsewhere(realDir, file, seen);
      }
    });
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    return (skillMd: SkillFile): FileListing => ({
      files: [skillMd, ...files].sort((a, b) => compareCodeUnits(a.path, b.path)),
      bytes: bytes + skillMd.size,
      truncated: answer.truncated,
      problems: answer.problems.map((found) => ({ ...found }) as Problem),
    });
  };
  const start = (): MessagePort => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = onReply;
    parent.addEventListener("message", onParent);
    const message: DigestIsolateStartMessage = { type: "digest-isolate", port: port2 };
    parent.postMessage(message, [port2]);
    // The isolate's reads share this one's descriptors: a shortage on either side is waited out
    // while the other's reads get theirs (src/files/descriptor_shortage.ts). Before any job.
    const progress: DescriptorProgressMessage = {
      type: "descriptor-progress",
      buffer: descriptorProgressBuffer(),
    };
    port1.postMessage(progress);
    return port1;
  };
  /** Sends jobs while fewer than `batchesInFlight` are out; ends the isolate once all is done. */
  const pump = () => {
    if (hasFailed || isStopped) return;
    while (pending.size < batchesInFlight && head < queue.length) {
      const files: DigestJobFile[] = [];
      const answer: ((seen: DigestSeen | null) => void)[] = [];
      while (files.length < batchFiles && head < queue.length) {
        const item = isFinished ? queue.pop()! : queue[head++]!;
        // A page may have read it meanwhile (or another skill lists the same version).
        let settle: (seen: DigestSeen | null) => void = () => {};
        const seen = new Promise<DigestSeen | null>((resolve) => (settle = resolve));
        if (!cache.hashElsewhere(item.dir, item.file, seen)) continue;
        files.push({ dir: item.dir, path: item.file.path });
        answer.push(settle);
      }
      if (head >= queue.length) {
        queue.length = 0;
        head = 0;
      }
      if (files.length === 0) break;
      channel ??= start();
      const id = nextId++;
      pending.set(id, { files, answer });
      const job: DigestJobMessage = { type: "digest-files", id, files };
      channel.postMessage(job);
      sent += files.length;
      if (watchdog === undefined) armWatchdog();
      if (silence === undefined) armSilence();
    }
    if (
      isFinished && pending.size === 0 && head >= queue.length && listPending.size === 0 &&
      listBatch.length === 0
    ) stop();
  };
  return {
    offer(skill) {
      if (hasFailed || isFinished || isDeclined || extensionExclusion(skill) !== null) return;
      if (held !== null) {
        held.push(skill);
        if (held.length < decideAfterSkills) return;
        decide();
        if (isDeclined) return;
      } else enqueue(skill);
      pump();
    },
    startEarly() {
      if (held !== null || isDeclined || hasFailed || isStopped || isFinished) return;
      channel ??= start();
    },
    finish() {
      decide();
      isFinished = true;
      pump();
    },
    close() {
      held = null;
      isFinished = true;
      release();
      stop();
    },
    get hasFailed() {
      return hasFailed;
    },
    get sent() {
      return sent;
    },
    get listed() {
      return listed;
    },
    get listedHere() {
      return listedHere;
    },
    listRemotely(candidate, caps) {
      if (held !== null || isDeclined || hasFailed || isStopped || isFinished) return null;
      const realDir = candidate.realDir;
      const skill: ListJobSkill = {
        name: candidate.name,
        dir: candidate.dir,
        realDir,
        skillMdFile: candidate.skillMdFile,
        entries: candidate.entries.map((entry) => ({
          name: entry.name,
          isFile: entry.isFile,
          isDirectory: entry.isDirectory,
          isSymlink: entry.isSymlink,
        })),
        ...(candidate.subtree === undefined ? {} : { subfolders: jobFolders(candidate.subtree) }),
      };
      listCaps ??= {
        maxFilesPerSkill: caps.maxFilesPerSkill,
        maxFoldersPerSkill: caps.maxFoldersPerSkill,
      };
      const answered = new Promise<ListedSkill | null>((answer) =>
        listBatch.push({ skill, answer })
      );
      if (listBatch.length >= LIST_BATCH_SKILLS) flushList();
      else if (!isListFlushQueued) {
        isListFlushQueued = true;
        queueMicrotask(flushList);
      }
      // A listing the worker's own walk could not have given is not used (review r6).
      return answered.then((answer) =>
        answer === null || !isPlausibleListing(answer, skill, listCaps!)
          ? null
          : toListing(realDir, answer)
      );
    },
  };
}

/**
 * The sub-folders discovery read exactly with a skill folder, as a list job
 * carries them (s17): names and kinds only (the isolate takes each file's
 * version from its own handle), none that was not read.
 */
function jobFolders(subtree: Subtree): ListJobFolder[] {
  const folders: ListJobFolder[] = [];
  for (const [rel, read] of subtree) {
    if (typeof read !== "object" || read === null || read.tooManyEntries !== undefined) continue;
    folders.push({
      rel,
      location: read.location,
      entries: read.entries.map((entry) => ({
        name: entry.name,
        isFile: entry.kind === "file",
        isDirectory: entry.kind === "dir",
        isSymlink: entry.kind === "symlink",
      })),
    });
  }
  return folders;
}
