/**
 * A moment without a free descriptor (`EMFILE`, `ENFILE`), told apart from a
 * process that cannot get one at all (review r6, s11-hG, s13): a large cold
 * build's readers (the digest isolate's listing pass, both hashers, a page's
 * reads) hold hundreds of descriptors for a moment each, and under a lower
 * `ulimit -n` a read that met such a moment must wait for a free one, not
 * report its file unreadable (which hid skills or their files).
 *
 * How long it waits is the mechanism: a shortage is waited out while
 * descriptors keep being had by any reader that shares this process's
 * progress count (the serving worker and its digest isolate, through one
 * `SharedArrayBuffer`): their reads finish and give theirs back, so the
 * shortage is contention and ends. It is given up after a whole window
 * ({@linkcode DESCRIPTOR_SHORTAGE_TRIES} tries, ~2 s) in which no read got
 * one (nothing is being given back: the limit is too low for the catalog),
 * or after {@linkcode DESCRIPTOR_SHORTAGE_MAX_WAIT_MS} in all (a bound on
 * any one read's wait). Session 12's CI saw 93 of 1,100 skills left out of
 * the first `skills/list` under `ulimit -n 256` on a loaded machine: the old
 * fixed 2 s ran out while the other readers were still progressing.
 *
 * @module
 */

/** Tries in one window without progress before a shortage is given up (the first included). */
export const DESCRIPTOR_SHORTAGE_TRIES = 40;
/** Wait between two tries, in ms (40 tries: a window of about 2 s). */
export const DESCRIPTOR_SHORTAGE_WAIT_MS = 50;
/** Longest one read waits for a descriptor in all, however much progress others make, in ms. */
export const DESCRIPTOR_SHORTAGE_MAX_WAIT_MS = 30_000;

/**
 * Reads that got their descriptor (succeeded through
 * {@linkcode retryingOnDescriptorShortage}), counted in a shared buffer so an
 * isolate handed it ({@linkcode shareDescriptorProgress}) counts into the same
 * one. Only compared for change; wraps around harmlessly.
 */
let progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

/**
 * This isolate's progress count's buffer, to hand to an isolate whose reads
 * share this process's descriptors (the serving worker hands it to its
 * digest isolate).
 *
 * @returns A 4-byte `SharedArrayBuffer` (one Int32).
 *
 * Needs no Deno permission.
 */
export function descriptorProgressBuffer(): SharedArrayBuffer {
  return progress.buffer as SharedArrayBuffer;
}

/**
 * Counts this isolate's reads into `buffer` from now on (the one
 * {@linkcode descriptorProgressBuffer} gave in another isolate), so a
 * shortage here is waited out while reads there get descriptors, and the
 * other way round. Anything else (not a `SharedArrayBuffer` of at least 4
 * bytes, as a message may carry) is ignored: this isolate keeps its own.
 *
 * @param buffer The shared buffer.
 *
 * Needs no Deno permission.
 */
export function shareDescriptorProgress(buffer: unknown): void {
  if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < Int32Array.BYTES_PER_ELEMENT) {
    return;
  }
  progress = new Int32Array(buffer, 0, 1);
}

/**
 * Runs a gated read again while it fails only because this process has no
 * descriptor left ({@linkcode isDescriptorShortage}): every `waitMs`, for as
 * long as some read sharing the progress count got a descriptor within the
 * last `tries` tries, at most `maxWaitMs` in all. Any other failure is thrown
 * at once.
 *
 * @param read The read (resolve included or not); called again from the start.
 * @param tries Tries in a window without progress before giving up, >= 1.
 *   @default DESCRIPTOR_SHORTAGE_TRIES
 * @param waitMs Wait between calls in ms, >= 0. @default DESCRIPTOR_SHORTAGE_WAIT_MS
 * @param maxWaitMs Longest wait in all, in ms. @default DESCRIPTOR_SHORTAGE_MAX_WAIT_MS
 * @returns What `read` returned.
 * @throws Whatever `read` threw last (a shortage no read progressed through, or
 *   that outlasted `maxWaitMs`; or any other error).
 *
 * Needs no Deno permission of its own.
 */
export async function retryingOnDescriptorShortage<T>(
  read: () => Promise<T>,
  tries: number = DESCRIPTOR_SHORTAGE_TRIES,
  waitMs: number = DESCRIPTOR_SHORTAGE_WAIT_MS,
  maxWaitMs: number = DESCRIPTOR_SHORTAGE_MAX_WAIT_MS,
): Promise<T> {
  const startedMs = performance.now();
  let triesInWindow = 0;
  let seenAtWindowStart = Atomics.load(progress, 0);
  for (;;) {
    try {
      const result = await read();
      Atomics.add(progress, 0, 1);
      return result;
    } catch (error) {
      if (!isDescriptorShortage(error)) throw error;
      triesInWindow++;
      if (triesInWindow >= tries) {
        const seen = Atomics.load(progress, 0);
        if (seen === seenAtWindowStart || performance.now() - startedMs >= maxWaitMs) {
          shortagesGivenUp++;
          throw error;
        }
        // Others got descriptors meanwhile: contention, which ends; another window.
        seenAtWindowStart = seen;
        triesInWindow = 0;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** Reads {@linkcode retryingOnDescriptorShortage} gave up on, in this isolate, so far. */
let shortagesGivenUp = 0;

/**
 * How many reads {@linkcode retryingOnDescriptorShortage} gave up on in this
 * isolate so far (a shortage no read progressed through). A caller compares
 * it before and after a piece of work: when it moved, what that work found
 * missing or unreadable may only have lacked a descriptor, so its result
 * must not replace what is served (live refresh then tries again: hG).
 *
 * @returns A count that only grows.
 *
 * Needs no Deno permission.
 */
export function descriptorShortagesGivenUp(): number {
  return shortagesGivenUp;
}

/**
 * Whether an error, or its cause (four levels at most: the gate wraps the
 * kernel's error as a `PathRefusedError`'s cause), is the kernel saying this
 * process has no descriptor left (`EMFILE`, `ENFILE`): a moment's shortage,
 * not a property of the file.
 *
 * @param error Anything thrown.
 * @returns True for `EMFILE` or `ENFILE` on the error or its causes.
 *
 * Needs no Deno permission.
 */
export function isDescriptorShortage(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; depth++) {
    const code = (at as { code?: unknown }).code;
    if (code === "EMFILE" || code === "ENFILE") return true;
    at = at.cause;
  }
  return false;
}

/**
 * What a folder that could not be read only for want of a free descriptor
 * says in its problem: the cause and what to do (raise the limit), never
 * "unreadable", which blames the folder.
 */
export const NO_DESCRIPTOR_FREE =
  "EMFILE: no file descriptor was free; raise skillgate's open-file limit (ulimit -n) and " +
  "start it again";

/**
 * The error a reader throws when an answer said `busy` (no descriptor was
 * free for an open made on its behalf: the trusted part's open of a folder
 * by path), so that {@linkcode retryingOnDescriptorShortage} waits it out as
 * its own `EMFILE`.
 *
 * @returns An `Error` whose `code` is `EMFILE`.
 *
 * Needs no Deno permission.
 */
export function noDescriptorFree(): Error {
  return Object.assign(new Error("No descriptor free"), { code: "EMFILE" });
}
