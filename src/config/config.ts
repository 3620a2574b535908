/**
 * The frozen configuration the trusted part hands to the worker. Built once by
 * `parseCommandLine()` from argv and the environment; nothing else reads the
 * world.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import type { Root } from "../skills/skill.ts";

/** What the command line asked for. */
export type Command = "serve" | "help" | "version";

/** Everything the program needs to know, decided at start-up. Frozen. */
export interface Config {
  readonly command: Command;
  /** Skill roots, absolute, in the order given, without duplicates. */
  readonly roots: readonly Root[];
  /**
   * Whether a host runner started us (MCP_SKILLS_PATH, MCP_HOST_METER_FILE,
   * MCP_DATA_DIR or MCP_BLOB_BASE_URL set). Hosted moves defaults closed.
   */
  readonly hosted: boolean;
  /** Which variable marked the server hosted, when it is. */
  readonly hostedBy: string | null;
  readonly caps: Caps;
}
