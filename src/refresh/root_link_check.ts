/**
 * The check for a root reached through a symlink that is re-pointed (a
 * deploy's `current` link, `ln -sfn`) or has a folder on its path renamed
 * (s16). Its watch is on the folder it led to at start, which does not
 * change, so no event says anything; and the serving worker may read only
 * what the roots led to at start (its read set), so a new place can only be
 * served after a restart. Every {@linkcode ROOT_LINK_CHECK_MS} the configured
 * path of each root reached through a link is resolved again; when it leads
 * elsewhere, the caller is told once (it reads the root again, and discovery
 * then names the restart: `discover.ts`).
 *
 * The baseline is where each root led when the server started (the trusted
 * part's `RootPaths`, from which the worker's read set was computed), and the
 * first look comes at once, so a move made before live refresh started is
 * told like any later one (CI s17 and reviews r18, r18b: a baseline taken by
 * the check's own look could meet a link mid-`rm`/`ln`). A root that led
 * nowhere then is resolved until it leads somewhere; one that was a plain
 * folder then is looked at once more here (it may be a link by now). A root
 * that is a plain folder now is told so and checked no more (a plain root
 * removed or swapped is live refresh's `Gone` case). A look that meets a root
 * leading nowhere keeps where it led before, for the next move's line.
 *
 * @module
 */

/** How often a linked root's configured path is resolved again, in ms. */
export const ROOT_LINK_CHECK_MS = 2_000;

/** A root that now leads to another folder. */
export interface MovedRoot {
  /** The root as configured. */
  readonly path: string;
  /**
   * Where it led before: when the server started, or at the last move told
   * (the last place, when it led nowhere since); null when it led nowhere
   * before (it did not resolve then), or, without a start-time baseline,
   * when it had moved before the check started.
   */
  readonly wasReal: string | null;
  /**
   * Where it leads now; null when it leads nowhere (a dangling link, a folder
   * gone); the root's own path when it is a plain folder now.
   */
  readonly nowReal: string | null;
  /** Whether this isolate may read where it leads now (else only a restart can serve it). */
  readonly isReadable: boolean;
  /**
   * Whether it leads to a folder now (review r16: a link re-pointed at a
   * file was told "restart skillgate to serve it", which no restart does).
   */
  readonly isFolder: boolean;
}

/** Options of {@linkcode startRootLinkCheck}. */
export interface RootLinkCheckOptions {
  /** The local roots as configured (remote sources are not checked). */
  readonly roots: readonly string[];
  /** Told once per move, with where the root leads now. */
  readonly onMoved: (moved: MovedRoot) => void;
  /** @default ROOT_LINK_CHECK_MS */
  readonly intervalMs?: number;
  /** Resolves a path (tests inject one). @default Deno.realPathSync, null when it throws */
  readonly realPath?: (path: string) => string | null;
  /**
   * Where each root led when the server started (the serving worker's read
   * set was computed from it; null: it did not resolve then). A root found
   * here is compared with that from the first look on, which comes at once:
   * a move made before the check started is told like any later one, with
   * where it led at start (CI s17; review r18 L1, L2: a look at the check's
   * start could meet a link mid-`rm`/`ln` and take the wrong baseline).
   * @default none: each root's baseline is this check's own look when it starts
   */
  readonly realsAtStart?: ReadonlyMap<string, string | null>;
  /** Whether this isolate may read a path. @default Deno's permission state for it */
  readonly canRead?: (path: string) => boolean;
  /**
   * Whether a root as configured leads to a folder (asked once per move).
   * @default `Deno.statSync` of it (the link followed), false when it throws
   */
  readonly isFolder?: (path: string) => boolean;
}

/** A running check; stop it when live refresh stops. */
export interface RootLinkCheck {
  stop(): void;
}

/**
 * Starts the check. Each root's baseline is `realsAtStart`'s (where it led
 * when the server started) or, without one, this check's own look now.
 * Roots that were plain folders (no link on the way) and still are are not
 * checked: a plain root removed or swapped is live refresh's `Gone` case, and
 * costs nothing here. A root that led nowhere is resolved again at each look
 * until it leads somewhere, then told once with `wasReal` null and read
 * again: a plain folder is checked no more; through a link, it is checked
 * from then on like any linked root. A linked root that turns into a plain
 * folder is told, read again and checked no more.
 *
 * @param options The roots, the callback, the interval and the seams.
 * @returns The check (no timer at all when no root is reached through a link
 *   or unresolved; the timer stops once every root left is plain).
 *
 * Requires `--allow-read` on each root as configured (the serving worker's
 * read set holds it).
 */
export function startRootLinkCheck(options: RootLinkCheckOptions): RootLinkCheck {
  const realPath = options.realPath ?? realPathOrNull;
  const canRead = options.canRead ?? isReadable;
  const isFolder = options.isFolder ?? isFolderNow;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isStopped = false;
  /** Roots reached through a link: where each led at the last look, and its last place. */
  const linked = new Map<string, { now: string | null; last: string | null }>();
  /** Roots that led nowhere at their baseline: not known yet to be linked or plain. */
  const unresolved = new Set<string>();
  /** Roots that had moved before the check started, without a start-time baseline. */
  const movedBefore: string[] = [];
  /** Whether a baseline came from the server's start: then the first look comes at once. */
  let isLookedAtOnce = false;
  for (const path of options.roots) {
    const atStart = options.realsAtStart?.get(path);
    if (atStart !== undefined) {
      if (atStart === null) unresolved.add(path);
      else if (atStart !== path) linked.set(path, { now: atStart, last: atStart });
      else {
        // A plain folder at start may be a link by now (a first deploy's `mv; ln`, review r18b
        // M1): then it is checked, its move from the plain folder told at the first look.
        const real = realPath(path);
        if (real !== null && real !== path) linked.set(path, { now: path, last: path });
      }
      isLookedAtOnce ||= linked.has(path);
      continue;
    }
    const real = realPath(path);
    if (real === null) unresolved.add(path);
    if (real === null || real === path) continue;
    linked.set(path, { now: real, last: real });
    // Live refresh starts after the first answer: a move before it shows only as a place the
    // worker's read set (computed at start) does not hold.
    if (!canRead(real)) movedBefore.push(path);
  }
  if (linked.size === 0 && unresolved.size === 0) return { stop: () => {} };
  for (const path of movedBefore) {
    const nowReal = linked.get(path)?.now ?? null;
    queueMicrotask(() => {
      if (!isStopped) {
        options.onMoved({
          path,
          wasReal: null,
          nowReal,
          isReadable: false,
          isFolder: isFolder(path),
        });
      }
    });
  }
  const check = () => {
    timer = undefined;
    if (isStopped) return;
    for (const path of unresolved) {
      const nowReal = realPath(path);
      if (nowReal === null) continue;
      unresolved.delete(path);
      if (nowReal !== path) linked.set(path, { now: nowReal, last: nowReal });
      options.onMoved({
        path,
        wasReal: null,
        nowReal,
        isReadable: canRead(nowReal),
        isFolder: isFolder(path),
      });
    }
    for (const [path, state] of linked) {
      const nowReal = realPath(path);
      if (nowReal === state.now) continue;
      const wasReal = state.last;
      state.now = nowReal;
      if (nowReal !== null) state.last = nowReal;
      // A plain folder now: the Gone case from here on (review r18b L2).
      if (nowReal === path) linked.delete(path);
      options.onMoved({
        path,
        wasReal,
        nowReal,
        isReadable: nowReal !== null && canRead(nowReal),
        isFolder: nowReal !== null && isFolder(path),
      });
    }
    if (isStopped || (linked.size === 0 && unresolved.size === 0)) return;
    timer = setTimeout(check, options.intervalMs ?? ROOT_LINK_CHECK_MS);
  };
  timer = setTimeout(check, isLookedAtOnce ? 0 : options.intervalMs ?? ROOT_LINK_CHECK_MS);
  return {
    stop() {
      isStopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * The one stderr line for a moved root.
 *
 * @param moved The move.
 * @returns What happened, and what to do when only a restart can serve it.
 */
export function movedRootLine(moved: MovedRoot): string {
  const was = moved.wasReal !== null
    ? `it led to "${moved.wasReal}"`
    : moved.nowReal === moved.path
    ? "it led nowhere a moment ago"
    : moved.isReadable
    ? "it led nowhere before"
    : "not where it led when this server started";
  if (moved.nowReal === moved.path) {
    return moved.isFolder
      ? `skillgate: the root "${moved.path}" is a plain folder now (${was}); it is read again`
      : `skillgate: the root "${moved.path}" is there again but is not a folder (${was}); its ` +
        "skills are not served until it is one";
  }
  if (moved.nowReal !== null && moved.nowReal === moved.wasReal) {
    // Back where it led before a look met it leading nowhere (an `rm; ln` caught in between).
    const head = `skillgate: the root "${moved.path}" leads to "${moved.nowReal}" again`;
    if (!moved.isFolder) return `${head}; its skills are not served until it leads to a folder`;
    return moved.isReadable
      ? `${head}; it is read again`
      : `${head}; restart skillgate to serve it`;
  }
  const now = moved.nowReal === null ? "leads nowhere now" : `now leads to "${moved.nowReal}"`;
  const head = `skillgate: the root "${moved.path}" ${now} (${was})`;
  if (moved.nowReal === null || !moved.isFolder) {
    return `${head}; its skills are not served until it leads to a folder`;
  }
  if (moved.isReadable) return `${head}; it is read again`;
  return `${head}; this server may read only what its roots led to when it started: restart ` +
    "skillgate to serve it (its skills are not served until then)";
}

function realPathOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

function isFolderNow(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function isReadable(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}
