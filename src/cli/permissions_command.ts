/**
 * `skillgate permissions [ROOT...] [--json]`: shows each wall's Deno
 * permissions, each entry with the reason it is there: the trusted part's
 * static flags (`src/sandbox/trusted_flags.json`, the same list `make run`,
 * the tests and `make compile` use), the serving worker's set and the
 * declaration reader's set (and the fetcher's with remote sources), computed
 * from this configuration exactly as `serve` computes them.
 *
 * @module
 */

import { withRootsIndexCache } from "../config/index_cache_key.ts";
import type { Config } from "../config/config.ts";
import { TRUSTED_FLAG_REASONS, trustedRunFlags } from "../sandbox/trusted_flags.ts";
import type { ExplainedPermissions } from "../sandbox/worker_permissions.ts";
import type { ScriptContainment } from "../sandbox/script_boot.ts";
import { buildCatalog } from "../skills/catalog.ts";
import { computeWorkerSet } from "../sandbox/worker_set.ts";
import { type CommandIo, EXIT_USAGE } from "./command_io.ts";
import { jsonForTerminal, oneLine, padEnd } from "./terminal_text.ts";
import { usableRoots } from "./usable_roots.ts";
import { prepareRemote } from "../remote/remote_serve.ts";

/** The kinds of worker permission shown, in order. */
export const WORKER_PERMISSION_KINDS = ["read", "run", "env", "net", "write", "sys"] as const;

/** One kind of worker permission. */
export type WorkerPermissionKind = typeof WORKER_PERMISSION_KINDS[number];

/**
 * The `--json` shape. `reasons` is keyed by the trusted flag itself (e.g.
 * `--allow-read`) and by `kind:value` for worker entries (e.g.
 * `read:/srv/skills`, `env:LOG_TOKENS`).
 */
export interface PermissionsReport {
  readonly trusted: { readonly flags: string[] };
  readonly worker: Record<WorkerPermissionKind, string[]>;
  /**
   * The fetcher worker's set when remote sources are configured (its reasons
   * are keyed `fetcher:kind:value`); absent otherwise.
   */
  readonly fetcher?: Record<WorkerPermissionKind, string[]>;
  /**
   * The declaration reader's set (`src/sandbox/declared_env_host.ts`: the
   * isolate that re-reads a script's declared environment names per run; its
   * reasons are keyed `declarations:kind:value`); absent when not computed.
   */
  readonly declarations?: Record<WorkerPermissionKind, string[]>;
  /**
   * The digest isolate's set (`src/sandbox/digest_isolate_host.ts`: the
   * isolate that hashes a large cold catalog's files for `skills/list` on
   * the second core; its reasons are keyed `digests:kind:value`); absent
   * when not computed.
   */
  readonly digests?: Record<WorkerPermissionKind, string[]>;
  readonly reasons: Record<string, string>;
  /** How scripts are contained here (`sandbox`, `pid-namespace` or `process-group`), and why. */
  readonly isolation?: { readonly mode: string; readonly note: string };
  /** Each script granted at start-up: its namespaces, network and (sandbox) mounts. */
  readonly scripts?: readonly ScriptContainment[];
}

/**
 * Runs `skillgate permissions`: checks the roots and computes the worker set
 * with `computeWorkerSet`, the very function `serve` starts the worker with
 * (so it also does the script start-up work: environ scrub, interpreter
 * look-up, isolation probe). Requires `--allow-all`, as the trusted part.
 *
 * @param config The frozen configuration.
 * @param io Outputs and the environment lookup.
 * @returns 0 once printed, or 2 when a root is missing, unreadable or not a folder.
 */
export async function runPermissionsCommand(given: Config, io: CommandIo): Promise<number> {
  const remote = await prepareRemote(given, io.getEnv);
  if (remote !== null && "error" in remote) {
    await io.writeErr(`skillgate: ${remote.error}\n`);
    return EXIT_USAGE;
  }
  const config = withRootsIndexCache(remote?.config ?? given);
  const paths = await usableRoots(config.roots.filter((root) => root.from !== "remote"), io);
  if (paths === null) return EXIT_USAGE;
  // The one-shot command reads the skills to describe each granted script's containment;
  // the set itself is decided from the grant alone, exactly as for `serve`.
  const describe = await buildCatalog(config.roots, config.caps);
  const { scripts, explained, declarationReader, digestIsolate, indexCacheProblem } =
    await computeWorkerSet(
      config,
      [...paths, ...remote?.paths ?? []],
      {
        getEnv: io.getEnv,
        describe,
        ...(remote === null ? {} : {
          sourcesCache: remote.setup.cacheDir,
          sourceFolders: remote.setup.sourceFolders,
        }),
      },
    );
  if (scripts.refusal !== null) {
    await io.writeErr(`skillgate: ${scripts.refusal}\n`);
    return EXIT_USAGE;
  }
  if (scripts.warning !== null) await io.writeErr(`skillgate: ${scripts.warning}\n`);
  if (scripts.dataDirProblem !== null) await io.writeErr(`skillgate: ${scripts.dataDirProblem}\n`);
  if (indexCacheProblem !== null) await io.writeErr(`skillgate: ${indexCacheProblem}\n`);
  for (const line of scripts.grantProblems) {
    await io.writeErr(`skillgate: MCP_SKILL_RUN ${oneLine(line)}\n`);
  }
  const isolation = scripts.facts.isolation;
  const report = permissionsReport(explained, {
    isolation: { mode: isolation.mode, note: isolation.note },
    scripts: scripts.containment,
    fetcher: remote?.setup.fetcher ?? null,
    declarations: declarationReader,
    digests: digestIsolate,
  });
  await io.writeOut(
    config.options.json ? `${jsonForTerminal(report)}\n` : renderPermissions(report),
  );
  return 0;
}

/**
 * Builds the report from the static flags and a computed worker set. Pure.
 *
 * @param worker The worker's permissions and reasons (from `computeWorkerSet`).
 * @param extras The isolation in force and each granted script's
 *   containment (from the script boot), and `fetcher`: the fetcher worker's
 *   set (`computeFetcherPermissions`), or null when no remote source is
 *   configured; `declarations`: the declaration reader's set (from
 *   `computeWorkerSet`), or null when not computed; `digests`: the digest
 *   isolate's set (from `computeWorkerSet`), or null when not computed.
 *   @default absent
 * @returns The `--json` shape; a worker kind that is empty is `[]`.
 * @throws {Error} When the worker set holds an `ffi` entry: the report has
 *   no place for it, and showing a set without it would be a lie.
 */
export function permissionsReport(
  worker: ExplainedPermissions,
  extras: Pick<PermissionsReport, "isolation" | "scripts"> & {
    readonly fetcher?: ExplainedPermissions | null;
    readonly declarations?: ExplainedPermissions | null;
    readonly digests?: ExplainedPermissions | null;
  } = {},
): PermissionsReport {
  const { fetcher = null, declarations = null, digests = null, ...scripts } = extras;
  const parts = [
    ["worker", worker],
    ["declaration reader", declarations],
    ["digest isolate", digests],
  ] as const;
  for (const [part, set] of parts) {
    if (set !== null && set.permissions.ffi.length > 0) {
      throw new Error(
        `The ${part}'s permission set holds ffi entries ("${set.permissions.ffi.join('", "')}") ` +
          "that skillgate permissions cannot show",
      );
    }
  }
  const flags = trustedRunFlags();
  const reasons: Record<string, string> = {};
  for (const flag of flags) reasons[flag] = TRUSTED_FLAG_REASONS[flag] ?? "no reason recorded";
  const set = worker.permissions;
  for (const kind of WORKER_PERMISSION_KINDS) {
    for (const value of set[kind]) {
      reasons[`${kind}:${value}`] = worker.reasons[`${kind}:${value}`] ?? "no reason recorded";
    }
  }
  const kinds = (permissions: ExplainedPermissions["permissions"]) => ({
    read: [...permissions.read],
    run: [...permissions.run],
    env: [...permissions.env],
    net: [...permissions.net],
    write: [...permissions.write],
    sys: [...permissions.sys],
  });
  if (fetcher !== null) {
    for (const kind of WORKER_PERMISSION_KINDS) {
      for (const value of fetcher.permissions[kind]) {
        reasons[`fetcher:${kind}:${value}`] = fetcher.reasons[`${kind}:${value}`] ??
          "no reason recorded";
      }
    }
  }
  if (declarations !== null) {
    for (const kind of WORKER_PERMISSION_KINDS) {
      for (const value of declarations.permissions[kind]) {
        reasons[`declarations:${kind}:${value}`] = declarations.reasons[`${kind}:${value}`] ??
          "no reason recorded";
      }
    }
  }
  if (digests !== null) {
    for (const kind of WORKER_PERMISSION_KINDS) {
      for (const value of digests.permissions[kind]) {
        reasons[`digests:${kind}:${value}`] = digests.reasons[`${kind}:${value}`] ??
          "no reason recorded";
      }
    }
  }
  return {
    trusted: { flags },
    worker: kinds(set),
    ...(fetcher === null ? {} : { fetcher: kinds(fetcher.permissions) }),
    ...(declarations === null ? {} : { declarations: kinds(declarations.permissions) }),
    ...(digests === null ? {} : { digests: kinds(digests.permissions) }),
    reasons,
    ...scripts,
  };
}

/**
 * Renders the report for a person: the trusted flags, then each worker kind
 * with its entries (or `none`), every entry followed by its reason.
 *
 * @param report The report.
 * @returns Lines ending in a newline.
 */
export function renderPermissions(report: PermissionsReport): string {
  const lines: string[] = [
    "Trusted part (main.ts, run bundled by the launcher: reads the configuration, checks roots, " +
    "starts the worker)",
    "  static flags, from src/sandbox/trusted_flags.json:",
  ];
  const flagWidth = Math.max(...report.trusted.flags.map((flag) => flag.length));
  for (const flag of report.trusted.flags) {
    lines.push(`    ${padEnd(flag, flagWidth)}  ${report.reasons[flag] ?? ""}`);
  }
  lines.push(
    "",
    "Worker (handles every client request), computed from this configuration:",
  );
  pushKinds(lines, report.worker, report.reasons, "");
  if (report.isolation !== undefined) {
    lines.push("", `Scripts run in isolation mode: ${report.isolation.mode}`);
    lines.push(`  ${oneLine(report.isolation.note)}`);
  }
  for (const script of report.scripts ?? []) {
    lines.push(
      `  ${oneLine(script.skill)} ${oneLine(script.script)}: namespaces ` +
        `${script.namespaces.join(", ") || "none"}; network ${script.network ? "yes" : "no"}`,
    );
    for (const mount of script.mounts) {
      const target = mount.kind === "symlink" ? ` -> ${oneLine(mount.source ?? "")}` : "";
      lines.push(`    ${padEnd(mount.kind, 7)} ${oneLine(mount.path)}${target}`);
    }
  }
  if (report.declarations !== undefined) {
    lines.push(
      "",
      "Declaration reader (re-reads one script's declared environment names before a run):",
    );
    pushKinds(lines, report.declarations, report.reasons, "declarations:");
  }
  if (report.digests !== undefined) {
    lines.push(
      "",
      "Digest isolate (hashes skill files for skills/list while a catalog of 1,000 or more " +
        "skills is first built):",
    );
    pushKinds(lines, report.digests, report.reasons, "digests:");
  }
  if (report.fetcher !== undefined) {
    lines.push("", "Fetcher (remote sources: the only part that reaches the network):");
    pushKinds(lines, report.fetcher, report.reasons, "fetcher:");
  }
  return lines.map((line) => `${line}\n`).join("");
}

/** Appends one part's kinds, each entry followed by its reason (keyed `PREFIXkind:value`). */
function pushKinds(
  lines: string[],
  set: Record<WorkerPermissionKind, string[]>,
  reasons: Record<string, string>,
  prefix: string,
): void {
  for (const kind of WORKER_PERMISSION_KINDS) {
    const values = set[kind];
    if (values.length === 0) {
      lines.push(`  ${padEnd(kind, 5)}  none`);
      continue;
    }
    for (const value of values) {
      lines.push(`  ${padEnd(kind, 5)}  ${oneLine(value)}`);
      lines.push(`         ${oneLine(reasons[`${prefix}${kind}:${value}`] ?? "")}`);
    }
  }
  lines.push(`  ${padEnd("ffi", 5)}  none`);
}
