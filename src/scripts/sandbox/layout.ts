/**
 * What a sandboxed script sees, as data: the mounts and namespaces of one
 * run, and the bubblewrap (`bwrap`) arguments that build exactly them. Pure:
 * the file-system facts (which system folders exist, the interpreters' real
 * installation prefixes, the granted folders' real paths) are gathered once
 * in the trusted part (`system_mounts.ts`, `grant_folders.ts`) and handed in.
 *
 * A run gets: read-only system folders and the few `/etc` files an
 * interpreter needs, the interpreter's own installation prefix when it lives
 * outside them, the script's skill folder (read-only), the grant row's
 * `read` folders (read-only) and `write` folders (read-write), a fresh
 * private `/tmp` (a tmpfs, which is also `HOME` and `TMPDIR`, gone when the
 * sandbox ends), a fresh `/proc` and a minimal `/dev`; new user, PID, IPC,
 * UTS, cgroup and network namespaces (the network one left out only when the
 * skill declares egress AND the grant row says `"network": true`); no
 * capability; killed with its parent; a new session (no terminal to inject
 * keystrokes into with `TIOCSTI`).
 *
 * Source: issue 16 ("What a sandboxed run gets"); bwrap(1).
 *
 * @module
 */

/** One mount of a sandbox, in the order bwrap applies them. */
export interface Mount {
  /**
   * `ro` read-only bind, `rw` read-write bind, `symlink` (`source` is the
   * link's target), `tmpfs` fresh memory folder, `hide` an empty read-only
   * memory folder over a folder inside an earlier `rw` bind (a mount point, so
   * the script can neither read, write, rename nor remove what it covers),
   * `proc` fresh `/proc` of the PID namespace, `dev` minimal `/dev`.
   */
  readonly kind: "ro" | "rw" | "symlink" | "tmpfs" | "hide" | "proc" | "dev";
  /** The path inside the sandbox (the same as on the host for binds). */
  readonly path: string;
  /** `symlink`: the link target. */
  readonly source?: string;
  /** Whether a missing source is skipped (bwrap `--ro-bind-try`). @default false */
  readonly optional?: boolean;
  /** `tmpfs`: its size cap in bytes (bwrap `--size`); absent: the kernel's default. */
  readonly maxBytes?: number;
  /** Why it is there, for `skillgate permissions`. */
  readonly why: string;
}

/** Facts of this host, gathered once at start-up (see `system_mounts.ts`). */
export interface SandboxBase {
  /** Absolute real path of `bwrap`: the one program the worker may spawn. */
  readonly bwrapPath: string;
  /** System folders (binds or the `/bin -> usr/bin` style links) and `/etc` files, always. */
  readonly system: readonly Mount[];
  /** `/etc` files for name resolution and CA certificates: only with network. */
  readonly network: readonly Mount[];
  /**
   * Extra read-only folders per interpreter program (its literal path as
   * spawned): the installation prefix when it lives outside the system folders.
   */
  readonly interpreterFolders: Readonly<Record<string, readonly string[]>>;
  /**
   * Real path of the host's data folder (`MCP_DATA_DIR`), mounted read-write;
   * null when unset, missing or refused by the grant folders' check.
   */
  readonly dataDir: string | null;
  /** Why `MCP_DATA_DIR` is not mounted (names no path), or null. @default null */
  readonly dataDirProblem?: string | null;
  /**
   * Real paths of folders inside `dataDir` that every sandbox hides (`hide`
   * mounts): the top folder holding skillgate's index cache there (hosted,
   * `$MCP_DATA_DIR/skillgate`), so no script can forge its entries. @default none
   */
  readonly dataHidden?: readonly string[];
}

/** What one script's sandbox is made of, besides the host's facts. */
export interface SandboxRequest {
  /**
   * Real path of the skill folder (read-only, the working directory); null
   * for the start-up probe (nothing of a skill is mounted, `/` is the working directory).
   */
  readonly skillDir: string | null;
  /** The program spawned (its interpreter folders are added). */
  readonly program: string;
  /** Real paths of folders granted read-only. */
  readonly read: readonly string[];
  /** Real paths of folders granted read-write. */
  readonly write: readonly string[];
  /** Whether the network namespace is shared (egress declared AND granted). */
  readonly network: boolean;
}

/** One script's sandbox. */
export interface SandboxLayout {
  readonly mounts: readonly Mount[];
  /** Namespaces unshared, e.g. `user`, `pid`, `net`. */
  readonly namespaces: readonly string[];
  readonly network: boolean;
  /** The working directory inside (the skill folder). */
  readonly cwd: string;
}

/** The private temporary folder inside every sandbox (also HOME and TMPDIR). */
export const SANDBOX_TMP = "/tmp";

/**
 * Bytes the sandbox's private temporary folder may hold at most (bwrap
 * `--size`). A tmpfs lives in memory: without a size the kernel's default is
 * half the RAM, so four runs at once could fill memory until the OOM killer
 * picks a process, skillgate or its client among them (newcomer n9, F7). A
 * write past it fails with ENOSPC inside the script.
 */
export const SANDBOX_TMP_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Namespaces every sandbox unshares (bwrap `--unshare-all`; user and cgroup
 * are best effort, which bwrap calls `-try`).
 */
export const SANDBOX_NAMESPACES: readonly string[] = Object.freeze([
  "user",
  "ipc",
  "pid",
  "net",
  "uts",
  "cgroup",
]);

/**
 * Composes one script's sandbox.
 *
 * @param base The host's facts.
 * @param request The skill folder, program, granted folders and network.
 * @returns The mounts in order and the namespaces.
 */
export function sandboxLayout(base: SandboxBase, request: SandboxRequest): SandboxLayout {
  const mounts: Mount[] = [
    ...base.system,
    ...(request.network ? base.network : []),
    { kind: "proc", path: "/proc", why: "a fresh /proc showing only the sandbox's processes" },
    { kind: "dev", path: "/dev", why: "a minimal /dev (null, zero, random, tty, ...)" },
    {
      kind: "tmpfs",
      path: SANDBOX_TMP,
      maxBytes: SANDBOX_TMP_MAX_BYTES,
      why: `a private temporary folder, also HOME and TMPDIR, at most ${
        SANDBOX_TMP_MAX_BYTES / 1024 / 1024
      } MiB, gone after the run`,
    },
  ];
  for (const folder of base.interpreterFolders[request.program] ?? []) {
    mounts.push({ kind: "ro", path: folder, why: "the interpreter's installation" });
  }
  if (request.skillDir !== null) {
    mounts.push({ kind: "ro", path: request.skillDir, why: "the script's own skill folder" });
  }
  if (base.dataDir !== null) {
    mounts.push({ kind: "rw", path: base.dataDir, optional: true, why: "the host's MCP_DATA_DIR" });
    for (const hidden of base.dataHidden ?? []) {
      mounts.push({
        kind: "hide",
        path: hidden,
        why:
          "hides skillgate's index cache inside MCP_DATA_DIR (empty, read-only, cannot be moved)",
      });
    }
  }
  for (const folder of request.read) {
    mounts.push({ kind: "ro", path: folder, why: "granted read (MCP_SKILL_RUN read)" });
  }
  for (const folder of request.write) {
    mounts.push({ kind: "rw", path: folder, why: "granted write (MCP_SKILL_RUN write)" });
  }
  return Object.freeze({
    mounts: Object.freeze(mounts),
    namespaces: Object.freeze(
      SANDBOX_NAMESPACES.filter((name) => request.network ? name !== "net" : true),
    ),
    network: request.network,
    cwd: request.skillDir ?? "/",
  });
}

/**
 * The bwrap arguments for a layout, before the program and its arguments.
 *
 * @param layout A sandbox layout.
 * @returns Arguments ending in `--`; the caller appends the program and its arguments.
 */
export function bwrapArgs(layout: SandboxLayout): string[] {
  const args = [
    "--unshare-all",
    ...(layout.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
  ];
  for (const mount of layout.mounts) {
    switch (mount.kind) {
      case "ro":
        args.push(mount.optional ? "--ro-bind-try" : "--ro-bind", mount.path, mount.path);
        break;
      case "rw":
        args.push(mount.optional ? "--bind-try" : "--bind", mount.path, mount.path);
        break;
      case "symlink":
        args.push("--symlink", mount.source ?? "", mount.path);
        break;
      case "tmpfs":
        if (mount.maxBytes !== undefined) args.push("--size", String(mount.maxBytes));
        args.push("--tmpfs", mount.path);
        break;
      case "hide":
        args.push("--tmpfs", mount.path, "--remount-ro", mount.path);
        break;
      case "proc":
        args.push("--proc", mount.path);
        break;
      case "dev":
        args.push("--dev", mount.path);
        break;
    }
  }
  args.push("--chdir", layout.cwd, "--");
  return args;
}

/**
 * Whether a path is a host path the layout shows (inside a bind or a link,
 * or `/proc` and `/dev`), lexically. A path under the private `/tmp` that no
 * bind covers counts as outside: it names a host file the sandbox hides (a
 * temporary file of the script's own that went missing is the rarer case).
 *
 * @param layout A sandbox layout.
 * @param path An absolute path.
 * @returns True when a mount other than the private temporary folder covers it.
 */
export function isInsideLayout(layout: SandboxLayout, path: string): boolean {
  const covers = (mount: Mount) =>
    path === mount.path ||
    path.startsWith(mount.path.endsWith("/") ? mount.path : `${mount.path}/`);
  // The deepest mount covering the path decides: a hidden folder inside a bind shows nothing.
  let deepest: Mount | null = null;
  for (const mount of layout.mounts) {
    if (covers(mount) && (deepest === null || mount.path.length >= deepest.path.length)) {
      deepest = mount;
    }
  }
  return deepest !== null && deepest.kind !== "tmpfs" && deepest.kind !== "hide";
}
