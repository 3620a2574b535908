/**
 * The trusted part's watch over the owner's two files (the configuration
 * file and `overrides.json`, in one folder): after an edit settles, both are
 * read again, reviewed (`live_config.ts`) and, when the outcome changed, the
 * new overlay is handed to the worker and each new problem is said on
 * stderr. The worker cannot read these files; it only receives the overlay.
 *
 * @module
 */

import { basename, dirname } from "node:path";
import type { Caps } from "../../caps.ts";
import { createPathDebouncer } from "../../refresh/debounce.ts";
import type { CatalogOverlay } from "../../skills/overrides.ts";
import type { Problem } from "../../skills/problem.ts";
import { type LiveConfigState, overlayOf, reviewOwnerFiles } from "./live_config.ts";
import { readOwnerFile } from "./load_config.ts";
import { ConfigFileError } from "./json_document.ts";

/** A running watch; `close()` stops it. */
export interface OwnerFilesWatch extends AsyncDisposable {
  close(): Promise<void>;
}

/** Options of {@linkcode watchOwnerFiles}. */
export interface WatchOwnerFilesOptions {
  /** Receives each new overlay and the caps in force (post them to the worker). */
  readonly onChange: (update: { overlay: CatalogOverlay; caps: Caps }) => void;
  /** Receives one line per new problem (print it to stderr). */
  readonly log: (line: string) => void;
  /** Quiet period after the last event, in ms. @default 200 */
  readonly quietMs?: number;
}

/**
 * Watches the folder of the configuration file. Returns null when the
 * folder does not exist or cannot be watched (the files are then read at
 * the next start only).
 *
 * @param state What is in force at start-up.
 * @param options Where overlays and problem lines go.
 * @returns The running watch, or null.
 *
 * Requires `--allow-read` on the configuration folder (trusted part only).
 */
export function watchOwnerFiles(
  state: LiveConfigState,
  options: WatchOwnerFilesOptions,
): OwnerFilesWatch | null {
  const folder = dirname(state.location.path);
  const names = new Set([basename(state.location.path), basename(state.location.overridesPath)]);
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(folder, { recursive: false });
  } catch {
    return null;
  }
  let current = state;
  let lastPosted = JSON.stringify({
    overlay: overlayOf({ overrides: state.overrides, caps: state.caps, problems: [] }),
    caps: state.caps,
  });
  let reported = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let isClosed = false;
  const review = async () => {
    let configText: string | null;
    let overridesText: string | null;
    try {
      configText = await readOwnerFile(state.location.path);
      overridesText = await readOwnerFile(state.location.overridesPath);
    } catch (error) {
      if (!(error instanceof ConfigFileError)) throw error;
      options.log(`skillgate: ${error.message}; the last good configuration stays in force`);
      return;
    }
    const outcome = reviewOwnerFiles(current, configText, overridesText);
    current = { ...current, overrides: outcome.overrides, caps: outcome.caps };
    const update = { overlay: overlayOf(outcome), caps: outcome.caps };
    const text = JSON.stringify(update);
    if (text === lastPosted || isClosed) return;
    lastPosted = text;
    const lines = new Set(outcome.problems.map(problemLine));
    for (const line of lines) if (!reported.has(line)) options.log(line);
    reported = lines;
    options.onChange(update);
  };
  const debouncer = createPathDebouncer(() => {
    running = running.then(review).catch((error: unknown) => {
      options.log(`skillgate: could not read the configuration again: ${String(error)}`);
    });
  }, { quietMs: options.quietMs ?? 200 });
  const pump = (async () => {
    for await (const event of watcher) {
      if (event.kind === "access") continue;
      if (event.paths.some((path) => names.has(basename(path)))) debouncer.add(event.paths);
    }
  })().catch(() => {});
  const close = async () => {
    if (isClosed) return;
    isClosed = true;
    debouncer.close();
    watcher.close();
    await pump;
    await running;
  };
  return { close, [Symbol.asyncDispose]: close };
}

/** One stderr line for a problem: `skillgate: FILE:LINE:COLUMN: reason: detail`. */
export function problemLine(problem: Problem): string {
  const place = problem.line === undefined
    ? problem.path
    : `${problem.path}:${problem.line}:${problem.column ?? 1}`;
  return `skillgate: ${place}: ${problem.reason}: ${problem.detail}`;
}
