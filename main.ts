/**
 * skillgate's entry point: the trusted part. It reads the world (argv, env,
 * cwd), builds the frozen configuration, checks the roots, computes the
 * worker's permission set, and hosts the MCP server in a worker holding only
 * those permissions. It is the only place that exits the process.
 *
 * Run with the flags in `src/sandbox/trusted_flags.json` (`make run` does).
 *
 * @module
 */

import { bannerText } from "./src/cli/banner.ts";
import { type CommandIo, decideColumns, EXIT_USAGE } from "./src/cli/command_io.ts";
import { helpText } from "./src/cli/help.ts";
import { healthUrl, HealthUsageError, runHealthCommand } from "./src/cli/health_command.ts";
import { launchWords } from "./src/cli/launch_command.ts";
import { logErrorLine, safeTerminalText } from "./src/cli/terminal_text.ts";
import { startLine } from "./src/cli/start_line.ts";
import { UsageError } from "./src/config/cli.ts";
import { ConfigFileError } from "./src/config/file/json_document.ts";
import {
  type ConfigLocation,
  loadConfig,
  loadOverrides,
  loadSetByView,
  locateConfigOnly,
} from "./src/config/file/load_config.ts";
import { type OwnerFilesWatch, watchOwnerFiles } from "./src/config/file/watch_owner_files.ts";
import { keptSetByView } from "./src/config/file/live_config.ts";
import { createViewOverrideWriter } from "./src/config/file/view_override_write.ts";
import { runConfigCommand } from "./src/cli/config_command.ts";
import {
  parseOverrideArgs,
  runOverrideCommand,
  splitOverrideArgs,
} from "./src/cli/override_command.ts";
import { checkRoots } from "./src/config/root_check.ts";
import { prepareIndexCacheDir } from "./src/config/index_cache_dir.ts";
import { createEnvReleaseService } from "./src/sandbox/env_release_service.ts";
import { createWorkerIsolate, startWorker } from "./src/sandbox/worker_host.ts";
import { createDigestIsolateHost } from "./src/sandbox/digest_isolate_host.ts";
import {
  computeWorkerSet,
  predictWorkerPermissions,
  sameWorkerOption,
} from "./src/sandbox/worker_set.ts";
import { VERSION } from "./src/version.ts";
import { installDir, isolateEntryUrl } from "./src/entry_points.ts";
import {
  httpScriptsWarning,
  HttpStartupError,
  settleHttpToken,
} from "./src/transports/http/http_startup.ts";
import { httpReadyLine, listenForShutdownSignals } from "./src/transports/http/shutdown_signals.ts";
import { HTTP_DRAIN_TIMEOUT_MS } from "./src/caps.ts";

async function main(): Promise<number> {
  if (Deno.args[0] === "override") return await overrideCommand(Deno.args.slice(1));
  if (Deno.args[0] === "health") return await healthCommand(Deno.args.slice(1));
  let config;
  let location: ConfigLocation | null;
  try {
    ({ config, location } = await loadConfig({
      args: Deno.args,
      getEnv: (name) => Deno.env.get(name),
      cwd: Deno.cwd(),
    }));
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigFileError) {
      logErrorLine(`skillgate: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
  for (const notice of config.notices) logErrorLine(`skillgate: ${notice}`);
  if (config.command === "help") {
    await writeStdout(helpText(launchCommand()));
    return 0;
  }
  if (config.command === "version") {
    await writeStdout(`skillgate ${VERSION}\n`);
    return 0;
  }
  if (config.command === "list") {
    // Loaded only for `list`: it renders the skill_list answer, which pulls in zod and the
    // MCP SDK; serving and the other commands keep the trusted part free of both.
    const { runListCommand } = await import("./src/cli/list_command.ts");
    try {
      return await runListCommand(config, commandIo(), await loadOverrides(location));
    } catch (error) {
      if (!(error instanceof ConfigFileError)) throw error;
      logErrorLine(`skillgate: ${error.message}`);
      return EXIT_USAGE;
    }
  }
  // One-shot commands load their modules only when they run (serve starts without them: the
  // YAML parser and the fetcher's code are the worker's and the sync command's to load).
  if (config.command === "validate") {
    const { runValidateCommand } = await import("./src/cli/validate_command.ts");
    return await runValidateCommand(config, commandIo());
  }
  if (config.command === "config") return await runConfigCommand(config, location, commandIo());
  if (config.command === "permissions") {
    const { runPermissionsCommand } = await import("./src/cli/permissions_command.ts");
    return await runPermissionsCommand(config, commandIo());
  }
  if (config.command === "sync") {
    const { runSyncCommand } = await import("./src/cli/sync_command.ts");
    return await runSyncCommand(config, commandIo());
  }
  try {
    config = await settleHttpToken(config); // --http: the token in force, read here only
  } catch (error) {
    if (!(error instanceof HttpStartupError)) throw error;
    logErrorLine(`skillgate: ${error.message}`);
    return EXIT_USAGE;
  }
  let overrides;
  let setByView;
  try {
    overrides = await loadOverrides(location); // overrides.json: narrows what the worker serves
    setByView = keptSetByView(await loadSetByView(location), overrides);
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    logErrorLine(`skillgate: ${error.message}`);
    return EXIT_USAGE;
  }
  // Remote sources become roots from the cache alone: start-up never waits on the network.
  // Loaded only when sources are configured: a local catalog starts without the remote modules.
  const remoteServe = config.remoteSources.length === 0
    ? null
    : await import("./src/remote/remote_serve.ts");
  const remote = remoteServe === null
    ? null
    : await remoteServe.prepareRemote(config, (name) => Deno.env.get(name));
  if (remote !== null && "error" in remote) {
    logErrorLine(`skillgate: ${remote.error}`);
    return EXIT_USAGE;
  }
  if (remote !== null) config = remote.config;
  const { paths, failures } = await checkRoots(
    config.roots.filter((root) => root.from !== "remote"),
  );
  if (failures.length > 0) {
    for (const failure of failures) logErrorLine(`skillgate: ${failure.message}`);
    return EXIT_USAGE;
  }
  const cacheDir = prepareIndexCacheDir(config.indexCacheDir);
  if (cacheDir.warning !== null) logErrorLine(`skillgate: ${cacheDir.warning}`);
  if (cacheDir.dir !== config.indexCacheDir) config = { ...config, indexCacheDir: cacheDir.dir };
  const rootPaths = [...paths, ...remote?.paths ?? []];
  const sourcesCache = remote === null ? {} : { sourcesCache: remote.setup.cacheDir };
  // The worker's modules load while the isolation probe runs (issue 13), in a worker created
  // with the predicted set; it is used only if that equals the computed set (else replaced).
  const predicted = predictWorkerPermissions(config, rootPaths, sourcesCache);
  let early: Worker | null = null;
  const workerSet = await computeWorkerSet(config, rootPaths, {
    getEnv: (name) => Deno.env.get(name),
    ...sourcesCache,
    beforeProbe: () => {
      if (predicted !== null) early = createWorkerIsolate(isolateEntryUrl("worker"), predicted);
    },
  });
  const { scripts, explained, indexCacheDir } = workerSet;
  if (scripts.refusal !== null) {
    (early as Worker | null)?.terminate();
    logErrorLine(`skillgate: ${scripts.refusal}`);
    return EXIT_USAGE;
  }
  if (scripts.warning !== null) logErrorLine(`skillgate: ${scripts.warning}`);
  if (scripts.dataDirProblem !== null) logErrorLine(`skillgate: ${scripts.dataDirProblem}`);
  if (indexCacheDir !== config.indexCacheDir) {
    logErrorLine(
      "skillgate: the index cache folder lies inside MCP_DATA_DIR, which sandboxed scripts may " +
        "write; running without it (set --index-cache to a folder outside MCP_DATA_DIR)",
    );
    config = { ...config, indexCacheDir };
  }
  const httpWarning = httpScriptsWarning(config, { mayRunScripts: scripts.run.length > 0 });
  if (httpWarning !== null) logErrorLine(`skillgate: ${httpWarning}`);
  const { permissions } = explained;
  // Granted values leave this part per run, bounded by the declaration read again (issue 13).
  const envRelease = createEnvReleaseService(workerSet, {
    caps: config.caps,
    getEnv: (name) => Deno.env.get(name),
  });
  // The owner's files are watched here, never by the worker: it only receives what narrows.
  let ownerWatch: OwnerFilesWatch | null = null;
  // A settings view's write: checked and written here (the worker may only ask).
  const writeOverride = (request: unknown) =>
    createViewOverrideWriter(location, ownerWatch)(request);
  const preloaded = early !== null && predicted !== null && sameWorkerOption(predicted, permissions)
    ? early
    : null;
  if (preloaded === null) (early as Worker | null)?.terminate();
  const session = startWorker(
    isolateEntryUrl("worker"),
    config,
    permissions,
    // The worker builds the catalog (the only build); granted values are released per run.
    {
      scripts: scripts.facts,
      groupKiller: scripts.groupKiller,
      releaseEnv: envRelease.release,
      overlay: { overrides, problems: [], setByView },
      writeOverride,
      // Hashes skills/list digests on the second core during a large cold build (issue 13).
      digestIsolate: createDigestIsolateHost(
        isolateEntryUrl("digests"),
        workerSet.digestIsolate.permissions,
      ),
      ...(preloaded === null ? {} : { worker: preloaded }),
    },
  );
  ownerWatch = location === null || config.options.static ? null : watchOwnerFiles(
    {
      input: { args: Deno.args, getEnv: (name) => Deno.env.get(name), cwd: Deno.cwd() },
      running: config,
      location,
      overrides,
      caps: config.caps,
      setByView,
    },
    { onChange: (update) => session.postOverlay(update), log: logErrorLine },
  );
  if (config.options.http !== null) {
    const httpConfig = config;
    session.ready.then((ready) => logErrorLine(httpReadyLine(httpConfig, ready)));
    // Signals reach this part, not the worker: relay the first, exit on the second.
    listenForShutdownSignals({
      onFirst: () => {
        session.shutdown();
        const deadline = setTimeout(() => Deno.exit(1), HTTP_DRAIN_TIMEOUT_MS + 5_000);
        Deno.unrefTimer(deadline);
      },
      onRepeat: (signal) => Deno.exit(signal === "SIGINT" ? 130 : 143),
    });
  } else if (Deno.stdin.isTerminal()) {
    const isolation = scripts.facts.isolation;
    session.ready.then((ready) =>
      logErrorLine(
        bannerText(config, ready, launchCommand(), scripts.run.length > 0 ? isolation.mode : null),
      )
    );
  } else {
    // Started by a client: one line for its log (what was served), never on stdout.
    session.ready.then((ready) => logErrorLine(startLine(config, ready)));
  }
  const remoteRefresh = remote === null || remoteServe === null
    ? null
    : remoteServe.startRemoteRefresh(remote, {
      updateRemoteRoots: (roots) => session.updateRemoteRoots(roots),
      log: (line) => logErrorLine(`skillgate: ${line}`),
    });
  const exit = await session.exited;
  // Not closed: the process exits next, and closing a watcher can block (see LiveRefresh.abandon).
  void ownerWatch;
  remoteRefresh?.close();
  envRelease.reader.close();
  if (exit.message !== undefined) logErrorLine(`skillgate: ${exit.message}`);
  return exit.code;
}

/** `skillgate override NAME --disable|...`: the owner's only writer of overrides.json. */
async function overrideCommand(args: readonly string[]): Promise<number> {
  try {
    const { configArgs, own } = splitOverrideArgs(args);
    const request = parseOverrideArgs(own);
    const location = locateConfigOnly({
      args: ["config", ...configArgs],
      getEnv: (name) => Deno.env.get(name),
      cwd: Deno.cwd(),
    });
    return await runOverrideCommand(request, location, commandIo());
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigFileError) {
      logErrorLine(`skillgate: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** `skillgate health [--url=URL]`: the container's HEALTHCHECK (probes /healthz). */
async function healthCommand(args: readonly string[]): Promise<number> {
  const writeErr = (text: string) => writeAll(Deno.stderr, safeTerminalText(text));
  try {
    return await runHealthCommand(healthUrl(args, (name) => Deno.env.get(name)), writeErr);
  } catch (error) {
    if (!(error instanceof HealthUsageError)) throw error;
    logErrorLine(`skillgate: ${error.message}`);
    return EXIT_USAGE;
  }
}

/** What a one-shot command may write to and know about the terminal. */
function commandIo(): CommandIo {
  const isTerminal = Deno.stdout.isTerminal();
  let terminalColumns: number | null = null;
  if (isTerminal) {
    try {
      terminalColumns = Deno.consoleSize().columns;
    } catch {
      terminalColumns = null;
    }
  }
  return {
    // The boundary escape: whatever a command renders, no raw control character reaches the
    // terminal (JSON output is already escaped by jsonForTerminal, so this changes nothing there).
    writeOut: (text) => writeStdout(safeTerminalText(text)),
    writeErr: (text) => writeAll(Deno.stderr, safeTerminalText(text)),
    isTerminal,
    columns: decideColumns(terminalColumns, Deno.env.get("COLUMNS")),
    cwd: Deno.cwd(),
    getEnv: (name) => Deno.env.get(name),
  };
}

async function writeAll(stream: { write(p: Uint8Array): Promise<number> }, text: string) {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await stream.write(bytes.subarray(written));
}

/** How a client would start this same program: the binary, or this checkout's launcher. */
function launchCommand(): string[] {
  const checkout = installDir().replace(/\/$/, "");
  return launchWords({ execPath: Deno.execPath(), checkout });
}

function writeStdout(text: string): Promise<void> {
  return writeAll(Deno.stdout, text);
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (error) {
    logErrorLine(`skillgate: internal error: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
