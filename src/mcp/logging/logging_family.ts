/**
 * The logging family: declares the `logging` capability, so a client may set
 * the level of the log messages it wants (`logging/setLevel`, remembered per
 * session) and skillgate may send `notifications/message` through the SDK's
 * `Server.sendLoggingMessage()`, which drops messages below that level.
 *
 * @module
 */

import type { MethodFamily } from "../family.ts";

/**
 * The logging family (capability `logging: {}`). It installs no handler of
 * its own: the SDK's `Server` registers `logging/setLevel` whenever the
 * capability is declared.
 *
 * Source: MCP 2025-11-25, "Utilities / Logging".
 */
export const loggingFamily: MethodFamily = {
  name: "logging",
  capabilities: () => ({ logging: {} }),
  install: () => {},
};
