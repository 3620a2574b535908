/**
 * Where skillgate's source may use a file-system, process or code-loading
 * door (see `source_scan.ts`): the one path gate, the one runner, and the
 * modules listed here, each with the doors it needs and why. A new module
 * that needs one must be added here with its reason, in review.
 *
 * @module
 */

import type { ScanAllowance, ScannedApi } from "./source_scan.ts";

const FILE_DOORS: readonly ScannedApi[] = [
  "Deno.open",
  "Deno.readFile",
  "Deno.readTextFile",
  "Deno.stat",
  "Deno.lstat",
  "Deno.realPath",
  "Deno.readDir",
  "Deno.readLink",
  "node:fs",
];
const PROCESS_DOORS: readonly ScannedApi[] = [
  "Deno.Command",
  "Deno.ChildProcess",
  "node:child_process",
];

/**
 * The doors that open or read a file's content (as opposed to stat, realpath
 * or listing a folder).
 */
export const CONTENT_DOORS: readonly ScannedApi[] = [
  "Deno.open",
  "Deno.readFile",
  "Deno.readTextFile",
  "node:fs",
];

/**
 * Every module that may open or read a file's content, and what it reads.
 * Skill content (every SKILL.md and every file of a skill, at start-up in the
 * trusted part, in the worker, on every rebuild, and in the digest isolate,
 * `src/mcp/skills_extension/digest_entry.ts`, which hashes a large cold
 * build's files through `digest_files.ts` and has no door of its own) is
 * opened ONLY by the path gate's verified open in `src/files/bounded_read.ts` (no-follow,
 * non-blocking, location-checked); the others read fixed host files that
 * are never inside a skill.
 */
export const CONTENT_READERS: Readonly<Record<string, string>> = {
  "src/files/bounded_read.ts": "the one gated open: every byte of skill content (and the " +
    "listing's no-follow folder and entry descriptors, O_PATH where known, which read none)",
  "src/sandbox/environ_scrub.ts": "/proc/self/stat, /proc/self/mem, /proc/self/environ",
  "src/sandbox/group_killer.ts": "/proc/<pid>/stat",
  "src/skills/_index_file.ts": "the worker's own index cache files (never inside a skill root; " +
    "an entry is used only while the file version it names matches exactly)",
  "src/config/file/load_config.ts": "the owner's configuration file and overrides.json",
  "src/config/group_members.ts": "/etc/passwd and /etc/group (whether a group that may write " +
    "a folder or file skillgate trusts holds another user)",
  "src/files/folder_beneath.ts": "/proc/self/fdinfo/<fd> (the mount id of a folder descriptor " +
    "it opened O_PATH, where openat2 is missing; never a file's content)",
  "src/files/regular_file.ts": "owner-named files (the lock file, the owner's " +
    "--http-token-file), opened " +
    "O_NONBLOCK so a FIFO cannot hold the open, judged by fstat",
  "src/remote/sources_cache.ts": "the sources cache's own state.json (never a skill file)",
  "src/sandbox/ignored_signals.ts": "/proc/self/status (which shutdown signals the process " +
    "was started with ignored)",
  "src/sandbox/early_start.ts": "the trusted part's own start record beside the bundle's " +
    "main.js (never inside a skill root; it only decides how early the worker is created)",
};

/** The allowances, folders first. Paths are relative to the repository root. */
export const SCAN_ALLOWANCES: readonly ScanAllowance[] = [
  {
    path: "src/files/",
    apis: FILE_DOORS,
    reason: "the one path gate: turns a client's relative path into a checked file and reads " +
      "it within caps (path_gate.ts, bounded_read.ts)",
  },
  {
    path: "src/scripts/runner/",
    apis: [...PROCESS_DOORS, "Deno.stat", "Deno.lstat", "Deno.realPath"],
    reason: "the one runner: spawns granted scripts (argv array, allowlisted environment, own " +
      "process group) and resolves the interpreter and script it runs",
  },
  {
    path: "src/config/group_members.ts",
    apis: ["Deno.readTextFile"],
    reason: "trusted part: reads /etc/passwd and /etc/group (fixed paths, never a client's) to " +
      "tell a user private group from a shared one, for the configuration's trust check and " +
      "the swappable-parent check of the index cache and every mounted folder",
  },
  {
    path: "src/files/regular_file.ts",
    apis: ["import()"],
    reason: "loads node:fs (the fixed specifier) on first use: Deno's open has no O_NONBLOCK, " +
      "and start-up without a lock or token file does not pay for node:fs (issue 13)",
  },
  {
    path: "src/remote/sources_cache.ts",
    apis: ["Deno.lstat", "Deno.readTextFile", "Deno.readDir"],
    reason: "the sources cache's own files: state.json (lstat-checked, size-capped) and the " +
      "commit folders it prunes; fixed names under the cache, never a client path",
  },
  {
    path: "src/remote/remote_roots.ts",
    apis: ["Deno.readDir", "Deno.realPath"],
    reason: "trusted part, --frozen: walks a cached commit's folders (links refused, file " +
      "count capped) to re-hash its files, each read through the path gate, against the lock",
  },
  {
    path: "src/sandbox/environ_scrub.ts",
    apis: ["Deno.open", "Deno.readFile", "Deno.readTextFile"],
    reason: "trusted part at boot: reads /proc/self/stat for the environment block's range, " +
      "overwrites it through /proc/self/mem and reads /proc/self/environ back; fixed paths",
  },
  {
    path: "src/sandbox/ignored_signals.ts",
    apis: ["Deno.readTextFile"],
    reason: "trusted part at serve start: reads /proc/self/status (a fixed path) for the " +
      "signals started ignored (nohup), which then get no listener",
  },
  {
    path: "src/sandbox/process_exit.ts",
    apis: ["Deno.exit"],
    reason: "the one exit of the trusted part: ends every registered script process group " +
      "first, so no exit path (signal, deadline, internal error) leaves scripts running",
  },
  {
    path: "src/sandbox/early_start.ts",
    apis: ["Deno.lstat", "Deno.open"],
    reason: "trusted part at boot: reads its own start record beside the bundle's main.js " +
      "(lstat: a regular file; the open handle's owner, mode, size and identity checked), a " +
      "fixed name in the bundle folder, never a client path; what it says only decides how " +
      "early the worker is created (kept only with exactly the computed set)",
  },
  {
    path: "src/sandbox/non_dumpable.ts",
    apis: ["Deno.dlopen"],
    reason: "trusted part at boot: calls prctl(PR_SET_DUMPABLE, 0) in libc (fixed library " +
      "names, one fixed symbol) so scripts cannot open skillgate's /proc/<pid>/fd",
  },
  {
    path: "src/sandbox/inherited_fds.ts",
    apis: ["Deno.dlopen", "Deno.readDir"],
    reason: "trusted part at boot: lists /proc/self/fd and calls fcntl(F_SETFD, FD_CLOEXEC) in " +
      "libc (fixed library, one fixed symbol) so no script inherits a descriptor skillgate was " +
      "started with",
  },
  {
    path: "src/scripts/sandbox/system_mounts.ts",
    apis: ["Deno.lstat", "Deno.readLink", "Deno.realPath"],
    reason: "trusted part at start-up: finds which system folders exist (and which are links) " +
      "and each interpreter's real installation prefix for the sandbox; fixed paths and the " +
      "interpreters found on PATH, never client input",
  },
  {
    path: "src/scripts/sandbox/grant_folders.ts",
    apis: ["Deno.realPath", "Deno.stat", "Deno.readDir"],
    reason: "trusted part at start-up: resolves the owner's granted read/write folders to real " +
      "paths (so none is a root, a home, skillgate's own folder or /) and lists /home; the " +
      "owner's MCP_SKILL_RUN, never client input",
  },
  {
    path: "src/scripts/isolation.ts",
    apis: ["Deno.realPath"],
    reason: "trusted part at start-up: resolves bwrap's real path, the one program the worker " +
      "may spawn in sandbox mode",
  },
  {
    path: "src/sandbox/group_killer.ts",
    apis: ["Deno.readTextFile"],
    reason: "trusted part: reads /proc/<pid>/stat to verify that a process group the worker " +
      "asks to end is led by a child of this process; the pid is a number, never a path",
  },
  {
    path: "src/skills/declared_env.ts",
    apis: ["Deno.lstat"],
    reason: "declaration reader: looks whether SKILL.md exists in the skill folder " +
      "skill_folder_claim.ts checked; SKILL.md itself is read through the path gate",
  },
  {
    path: "src/skills/skill_folder_claim.ts",
    apis: ["Deno.realPath"],
    reason: "resolves the skill folder the serving worker named to check it lies inside a root " +
      "with the skill's prefix and carries the skill's name (declaration reader, settings-view " +
      "writer); reads nothing in it",
  },
  {
    path: "src/config/file/view_override_write.ts",
    apis: ["Deno.lstat"],
    reason: "trusted part, a settings view's write: whether the checked skill folder holds a " +
      "SKILL.md (a regular file) before a name overrides.json lacks is written; reads nothing in it",
  },
  {
    path: "src/sandbox/worker_prediction.ts",
    apis: ["Deno.realPath"],
    reason: "trusted part at start-up (realPathOr, used by worker_set.ts too): the sources " +
      "cache folder's real path (owner's configuration), a base the declaration reader checks " +
      "skill folders against, and bwrap's real path in the system folders for the predicted " +
      "run permission",
  },
  {
    path: "src/config/index_cache_dir.ts",
    apis: ["Deno.lstat", "Deno.realPath"],
    reason: "trusted part at start-up: creates the index cache folder and checks it (and, by its " +
      "real path, every folder above it) is of this user or root and that others cannot write " +
      "or swap it, and that it (or the remote sources cache) is not at a skill root; it never " +
      "reads inside",
  },
  {
    path: "src/config/index_cache_key.ts",
    apis: ["Deno.realPath"],
    reason: "trusted part at start-up: the roots' real paths, to leave a configured index " +
      "cache folder at a root as configured (refused by the start-up check) instead of " +
      "narrowing it to a sub-folder beside the roots (review r16, A4)",
  },
  {
    path: "src/skills/_index_file.ts",
    apis: ["Deno.lstat", "Deno.open"],
    reason: "the worker reads its own index cache files (regular files in the cache folder, " +
      "written atomically by skillgate); never skill content",
  },
  {
    path: "src/config/root_check.ts",
    apis: ["Deno.stat", "Deno.realPath"],
    reason: "trusted part at start-up: checks that each configured root is a readable folder " +
      "and resolves its real path for the worker's read list; no client input",
  },
  {
    path: "src/skills/_fs.ts",
    apis: ["Deno.readDir"],
    reason: "folders under the owner's roots read by path only where no descriptor can be " +
      "located (no /proc: discovery's and the listing's fallback), and the start-up estimate's " +
      "count; paths come from the walk, never from a client. Synchronous (readDirSync, half the " +
      "cost of the async call); the catalog yields between folders (src/skills/_time_slice.ts)",
  },
  {
    path: "src/skills/discover.ts",
    apis: ["Deno.stat", "Deno.realPath"],
    reason: "discovery: resolves roots, containers and symlinked folders and checks they stay " +
      "inside their root's real path. Synchronous (statSync, realPathSync), with a yield to the " +
      "event loop between folders",
  },
  {
    path: "src/skills/folder_estimate.ts",
    apis: ["Deno.stat", "Deno.lstat"],
    reason: "worker, before a large catalog's early `initialize` answer: stats each configured " +
      "root and its skill containers (link counts estimate their sub-folders; lstat: a " +
      "container that is a symlink is not counted); never opens anything, and only a count " +
      "leaves it",
  },
  {
    path: "src/skills/_load_skill.ts",
    apis: ["Deno.lstat"],
    reason: "warm start: compares SKILL.md's identity (lstat: a regular file, device, inode, " +
      "size, mtime, ctime) with the index cache's entry for it; never reads it (SKILL.md is " +
      "read through the path gate, when it changed and when its body is asked for)",
  },
  {
    path: "src/skills/_list_files.ts",
    apis: ["Deno.lstat", "Deno.realPath"],
    reason: "discovery: a skill's files, each folder read through its descriptor " +
      "(src/files/fd_listing.ts, opened by bounded_read.ts; review r10); realPathSync for " +
      "symlinks only (each target then opened no-follow and located); lstatSync only where no " +
      "/proc answers (another OS: the path-based walk, each folder checked after its walk)",
  },
  {
    path: "src/skills/rebuild_catalog.ts",
    apis: ["Deno.stat", "Deno.realPath"],
    reason: "live refresh: re-resolves a changed skill folder and compares its SKILL.md size " +
      "and mtime; paths come from the catalog and the file watcher, never from a client. " +
      "Synchronous (statSync, realPathSync), with a yield to the event loop between skills",
  },
  {
    path: "src/refresh/catch_up.ts",
    apis: ["Deno.stat", "Deno.readDir"],
    reason: "live refresh: after a watch set up once the first answer went out, stats each " +
      "skill's folders and lists their sub-folders to find entries added or removed since the " +
      "build began; folder names and times only, never a file read, paths from the catalog, " +
      "never from a client",
  },
  {
    path: "src/refresh/root_link_check.ts",
    apis: ["Deno.realPath", "Deno.stat"],
    reason: "live refresh: resolves each root reached through a symlink every 2 s to find it " +
      "re-pointed (no event comes: its watch is on the folder it led to), and stats it once per " +
      "move (a folder, or a file no restart serves); paths from the configuration only, never " +
      "from a client, nothing read",
  },
  {
    path: "src/refresh/watch_paths.ts",
    apis: ["Deno.realPath"],
    reason: "live refresh: resolves each root's real path to find symlinked skill folders to " +
      "watch; no client input",
  },
  {
    path: "src/refresh/live_refresh.ts",
    apis: ["Deno.readDir", "Deno.stat"],
    reason: "live refresh: lists the sub-folders of each folder a split watch watches flat, to " +
      "plan again only when they change, and stats them (device, inode, birth time) to tell a " +
      "folder made again under a removed name; folder names and identities only, never a file " +
      "read, paths from the roots and the watch plan, never from a client",
  },
  {
    path: "src/refresh/inotify/libc.ts",
    apis: ["Deno.dlopen"],
    reason: "live refresh's watch (FFI is a door): the ONLY module of the watcher that loads " +
      "libc (fixed library names, fixed symbols: inotify, openat, openat2 through syscall, " +
      "read/write/close, eventfd, poll; openat/openat2 also for the trusted part's no-follow " +
      "folder opens, src/files/folder_beneath.ts, review r17 hC-1); loaded by the trusted part " +
      "(and main-thread tests) only, the serving worker's set holds no ffi",
  },
  {
    path: "src/refresh/inotify/watch_tree.ts",
    apis: ["Deno.readLink", "Deno.stat"],
    reason:
      "trusted part: reads /proc/self/fd/<fd> of a folder it just opened anchored (no-follow, " +
      "O_PATH) and watched, to keep the watch only where the kernel says the folder is (the " +
      "root's real path + names), and stats two such descriptors to tell one folder reached " +
      "by two real paths (a bind mount, review r18 r18-2); never a file's content, never a " +
      "client path",
  },
  {
    path: "src/refresh/inotify/watch_service.ts",
    apis: ["Deno.realPath", "Deno.stat", "Deno.lstat"],
    reason:
      "trusted part: resolves the folders a watch is asked for (the roots, by the worker or " +
      "the owner files' watch) to confine them to the allowed roots' real paths, and tells a " +
      "folder from a file; lstats the entry of a folder asked for that does not resolve, " +
      "where its parent resolves inside the roots, to tell it gone (s15 hX); never reads content",
  },
  {
    path: "src/refresh/watch_plan.ts",
    apis: ["Deno.readDir"],
    reason: "live refresh: lists the sub-folders of a folder a recursive watch refused (an " +
      "unreadable folder under a root), to watch the rest; folder names only, never a file " +
      "read, paths from the roots and the watcher's error, never from a client",
  },
  {
    path: "src/transports/http/http_startup.ts",
    apis: ["Deno.stat", "Deno.realPath"],
    reason: "trusted part at start-up: reads the owner's HTTP token file (--http-token-file) " +
      "within a byte cap, before the worker starts (the worker never reads it), after checking " +
      "it and the folder that really holds it are the user's and no one else can write them",
  },
  {
    path: "src/config/file/load_config.ts",
    apis: ["node:fs", "Deno.stat", "Deno.realPath", "import()"],
    reason: "trusted part: reads the owner's configuration file and overrides.json (at start-up " +
      "and after an edit) within a byte cap, opened O_NONBLOCK through node:fs so a FIFO cannot " +
      "block it; paths come from --config, SKILLGATE_CONFIG or XDG, never from a client, and the " +
      "worker never reads them. A stat (which never blocks) first: node:fs is loaded (import of " +
      "the fixed specifier node:fs) only when a file is there, so start-up without one does not " +
      "pay for it (issue 13). Before using the configuration it stats (and realpaths) the file " +
      "and its folders and, only when a group may write them, asks group_members.ts whether " +
      "that group holds another user (a writable configuration is refused)",
  },
  {
    path: "src/config/file/watch_owner_files.ts",
    apis: ["Deno.stat"],
    reason: "trusted part: finds the nearest existing folder of the owner's configuration folder " +
      "to watch until it is created; the path comes from --config or XDG, never from a client",
  },
  {
    path: "src/mcp/apps/view_resources.ts",
    apis: ["import()"],
    reason: "worker: loads the MCP Apps page (about 800 KB, kept gzip-compressed in " +
      "views.generated.ts) on the first ui:// read instead of at start-up; a fixed, relative " +
      "module specifier in the module graph (no read permission, deno compile includes it)",
  },
  {
    path: "main.ts",
    apis: ["import()"],
    reason: "trusted part: loads what serve needs before its prediction " +
      "(src/cli/trusted_start.ts) only after the start record's worker was created, and " +
      "serve's own remainder (src/cli/serve_command.ts) only once the worker was created, so " +
      "both load at once (fixed, relative module specifiers that deno compile includes); the " +
      "one-shot commands and the remote sources' modules only through src/cli/on_demand.ts, " +
      "loaded by its entry URL (entry_points.ts, never a client's string) so that Deno's " +
      "start-up module graph of serve holds none of them (issue 13)",
  },
  {
    path: "src/cli/on_demand.ts",
    apis: ["import()"],
    reason: "trusted part: the one-shot commands (list, validate, permissions, sync, config, " +
      "override, health, help: with them zod, the MCP SDK, the YAML parser, the fetcher's code) " +
      "and the remote sources' serving module, each loaded only when it runs; fixed, relative " +
      "module specifiers (bundled as their own chunks, followed by deno compile from this " +
      "entry module, which .ci/compile.sh includes)",
  },
  {
    path: "src/worker/entry.ts",
    apis: ["import()"],
    reason: "worker: loads the HTTP transport only under --http, and the script service only " +
      "when the grant can let a script run, so a stdio server answers `initialize` without " +
      "them (issue 13); fixed, relative module specifiers in the module graph (no read " +
      "permission, deno compile includes them)",
  },
  {
    path: "src/mcp/tools_handler.ts",
    apis: ["import()"],
    reason: "worker: loads the tools' modules (their schemas, the runner's planning) on the " +
      "first tools/list or tools/call, not before the first answer (issue 13); a fixed, " +
      "relative module specifier in the module graph",
  },
  {
    path: "src/search/search_lazy.ts",
    apis: ["import()"],
    reason: "worker: loads the search engine (index, stemmer, snippets) on the first search or " +
      "the background warm-up, not before the first answer (issue 13); a fixed, relative " +
      "module specifier in the module graph",
  },
  {
    path: "src/files/bounded_read.ts",
    apis: ["import()"],
    reason: "the gate's reader loads node:fs (its no-follow, non-blocking open) on the first " +
      "gated read, not with the worker's modules (issue 13); the fixed specifier node:fs",
  },
  {
    path: "src/mcp/skills_extension/digest_cache.ts",
    apis: ["import()"],
    reason:
      "worker: loads node:crypto's hasher on the first digest (skills/list), not before the " +
      "first answer (issue 13); the fixed specifier node:crypto, no file or client input",
  },
  {
    path: "src/mcp/skills_extension/digest_helper.ts",
    apis: ["import()"],
    reason: "worker: loads the digest isolate's listing pass (digest_listing.ts, node:crypto " +
      "with it) on the first batch the worker lists itself during a large cold build " +
      "(sharesListing, s9-h4), not with the modules of the first answer; a fixed, relative " +
      "module specifier in the module graph",
  },
  {
    path: "src/skills/_load_skill.ts",
    apis: ["import()"],
    reason: "catalog build: loads the YAML frontmatter parser (npm:yaml) on the first SKILL.md " +
      "neither the index cache nor the plain-block fast path answers, so a warm start, and a " +
      "cold one of plain blocks, never load it (issue 13); a fixed, relative module specifier " +
      "in the module graph",
  },
  {
    path: "src/skills/_read_skill_md.ts",
    apis: ["import()"],
    reason: "catalog build: loads node:crypto's hasher on the first SKILL.md digest, not with " +
      "the worker's modules (a warm start reads no SKILL.md; issue 13); the fixed specifier " +
      "node:crypto, no file or client input",
  },
];
