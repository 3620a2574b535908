/**
 * What `main.ts` needs before `serve` creates the worker (configuration,
 * roots, index cache folder, the prediction and the worker's creation) and
 * for its one-shot commands' dispatch. `main.ts` imports it dynamically, once
 * a worker from the start record exists (`src/sandbox/early_start.ts`), so
 * that worker's modules load on their own thread while these load on the
 * main one (issue 13). The rest of `serve` (src/cli/serve_command.ts) loads
 * after the worker's creation, as before.
 *
 * @module
 */

export { decideColumns, EXIT_USAGE } from "./command_io.ts";
export { launchWords } from "./launch_command.ts";
export { logErrorLine, safeTerminalText } from "./terminal_text.ts";
export { UsageError } from "../config/cli.ts";
export { ConfigFileError } from "../config/file/json_document.ts";
export {
  loadConfig,
  loadOverrides,
  loadSetByView,
  locateConfigOnly,
} from "../config/file/load_config.ts";
export { checkRoots } from "../config/root_check.ts";
export { prepareIndexCacheDir } from "../config/index_cache_dir.ts";
export { withRootsIndexCache } from "../config/index_cache_key.ts";
export { prepareScriptProcess } from "../sandbox/process_prep.ts";
export { createWorkerIsolate } from "../sandbox/worker_isolate.ts";
export { predictWorkerPermissions } from "../sandbox/worker_prediction.ts";
export { VERSION } from "../version.ts";
export { installDir, isolateEntryUrl } from "../entry_points.ts";
export { HttpStartupError, settleHttpToken } from "../transports/http/http_startup.ts";
