/**
 * skillgate's entry point: the trusted part. It reads the world (argv, env,
 * cwd), builds the frozen configuration, checks the roots, computes the
 * worker's permission set, and hosts the MCP server in a worker holding only
 * those permissions. Every exit goes through `exitProcess` (src/sandbox/process_exit.ts).
 *
 * Run with the flags in `src/sandbox/trusted_flags.json` (`make run` does).
 *
 * @module
 */

// Only the start record's early worker loads before anything else (issue 13): a `serve` started
// the same way as the last one creates its worker first (src/sandbox/early_start.ts), then loads
// what `serve` needs before its own prediction (src/cli/trusted_start.ts); the rest of the trusted
// part (src/cli/serve_command.ts, the one-shot commands) loads after the worker exists, while the
// worker loads its modules on its own thread.
import type { CommandIo } from "./src/cli/command_io.ts";
import type { ConfigLocation } from "./src/config/file/load_config.ts";
import type * as OnDemand from "./src/cli/on_demand.ts";
import { chooseEarlyWorker, type EarlyStart, startEarlyWorker } from "./src/sandbox/early_start.ts";
import { exitOnUncaughtErrors, exitProcess } from "./src/sandbox/process_exit.ts";
import { recordInheritedSignals } from "./src/sandbox/ignored_signals.ts";

// The signals this process was started with ignored (nohup, a background job), read before any
// second thread exists: a listener added on any thread would clear them (h11).
if (import.meta.main) recordInheritedSignals();
// Synchronous: an await here would let the main thread park before the worker exists.
const earlyStart: EarlyStart | null = import.meta.main ? startEarlyWorker() : null;
// An error no code caught ends the process through the exit that ends script groups (review r15).
if (import.meta.main) exitOnUncaughtErrors();
const {
  checkRoots,
  ConfigFileError,
  createWorkerIsolate,
  decideColumns,
  EXIT_USAGE,
  HttpStartupError,
  installDir,
  isolateEntryUrl,
  launchWords,
  loadConfig,
  loadOverrides,
  loadSetByView,
  locateConfigOnly,
  logErrorLine,
  predictWorkerPermissions,
  prepareIndexCacheDir,
  prepareScriptProcess,
  safeTerminalText,
  settleHttpToken,
  UsageError,
  VERSION,
  withRootsIndexCache,
} = await import("./src/cli/trusted_start.ts");

async function main(): Promise<number> {
  // `--help` / `-h` after any command prints the help (the command line parser below answers it);
  // these two commands parse their own arguments, so they are asked first.
  const asksHelp = Deno.args.some((arg) => arg === "--help" || arg === "-h");
  if (Deno.args[0] === "override" && !asksHelp) return await overrideCommand(Deno.args.slice(1));
  if (Deno.args[0] === "health" && !asksHelp) return await healthCommand(Deno.args.slice(1));
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
    const { helpText } = await (await onDemand()).loadHelp();
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
    const { runListCommand } = await (await onDemand()).loadListCommand();
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
    const { runValidateCommand } = await (await onDemand()).loadValidateCommand();
    return await runValidateCommand(config, commandIo());
  }
  if (config.command === "config") {
    const { runConfigCommand } = await (await onDemand()).loadConfigCommand();
    return await runConfigCommand(config, location, commandIo());
  }
  if (config.command === "permissions") {
    const { runPermissionsCommand } = await (await onDemand()).loadPermissionsCommand();
    return await runPermissionsCommand(config, commandIo());
  }
  if (config.command === "sync") {
    const { runSyncCommand } = await (await onDemand()).loadSyncCommand();
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
    setByView = await loadSetByView(location);
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    logErrorLine(`skillgate: ${error.message}`);
    return EXIT_USAGE;
  }
  // Remote sources become roots from the cache alone: start-up never waits on the network.
  // Loaded only when sources are configured: a local catalog starts without the remote modules.
  const remoteServe = config.remoteSources.length === 0
    ? null
    : await (await onDemand()).loadRemoteServe();
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
  const rootPaths = [...paths, ...remote?.paths ?? []];
  // This set of roots' own sub-folder of the shared cache: the worker may read and write it alone.
  config = withRootsIndexCache(config);
  const cacheDir = prepareIndexCacheDir(
    config.indexCacheDir,
    rootPaths.flatMap((root) => root.realPath === null ? [] : [root.realPath]),
  );
  if (cacheDir.warning !== null) logErrorLine(`skillgate: ${cacheDir.warning}`);
  if (cacheDir.dir !== config.indexCacheDir) config = { ...config, indexCacheDir: cacheDir.dir };
  const sourcesCache = remote === null ? {} : { sourceFolders: remote.setup.sourceFolders };
  // The worker is created now, with the predicted set (issue 13): its modules load on their own
  // thread while this one loads the rest of the trusted part and runs the isolation probe. It is
  // used only if that set equals the computed one (serve_command.ts; else ended unused). The
  // process is prepared first: the environ scrub must not race a second thread.
  const predicted = predictWorkerPermissions(config, rootPaths, sourcesCache);
  // The start record's worker is kept only when it holds exactly the predicted set (and, like any
  // early worker, serves only when that is the computed one); else one is created with it.
  const { early, prepared } = chooseEarlyWorker(earlyStart, predicted, {
    create: (permissions) => createWorkerIsolate(isolateEntryUrl("worker"), permissions),
    prepare: prepareScriptProcess,
  });
  const { serveCommand } = await import("./src/cli/serve_command.ts");
  return await serveCommand({
    config,
    location,
    overrides,
    setByView,
    rootPaths,
    remote: remote === null || remoteServe === null
      ? null
      : { module: remoteServe, prepared: remote },
    predicted,
    early,
    ...(prepared === undefined ? {} : { prepared }),
    launchCommand,
  });
}

/** `skillgate override NAME --disable|...`: the owner's only writer of overrides.json. */
async function overrideCommand(args: readonly string[]): Promise<number> {
  const { parseOverrideArgs, runOverrideCommand, splitOverrideArgs } = await (await onDemand())
    .loadOverrideCommand();
  try {
    const { configArgs, own } = splitOverrideArgs(args);
    const request = parseOverrideArgs(own);
    const location = locateConfigOnly({
      args: ["config", ...configArgs],
      getEnv: (name) => Deno.env.get(name),
      cwd: Deno.cwd(),
    });
    const io = commandIo();
    // A name no configured root holds gets a note (a typo would leave the skill meant served);
    // the discovery it runs is loaded only after a write.
    const servedNames = async () =>
      (await (await onDemand()).loadConfiguredSkillNames()).configuredSkillNames(configArgs, io);
    return await runOverrideCommand(request, location, io, { servedNames });
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
  const { healthUrl, HealthUsageError, runHealthCommand } = await (await onDemand())
    .loadHealthCommand();
  const writeErr = (text: string) => writeAll(Deno.stderr, safeTerminalText(text));
  try {
    return await runHealthCommand(healthUrl(args, (name) => Deno.env.get(name)), writeErr);
  } catch (error) {
    if (!(error instanceof HealthUsageError)) throw error;
    logErrorLine(`skillgate: ${error.message}`);
    return EXIT_USAGE;
  }
}

/**
 * The trusted part's modules `serve` does not start with (the one-shot commands, the remote
 * sources' serving module), loaded by URL, never by a literal specifier: Deno's start-up graph
 * would read and keep all of them (src/cli/on_demand.ts; issue 13, RSS at 12 skills).
 */
function onDemand(): Promise<typeof OnDemand> {
  return import(isolateEntryUrl("on-demand").href);
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
    exitProcess(await main());
  } catch (error) {
    logErrorLine(`skillgate: internal error: ${error instanceof Error ? error.message : error}`);
    // Scripts in their own process groups end with skillgate on this path too (review r13).
    exitProcess(1);
  }
}
