/**
 * The skill names served now under the configured roots, for
 * `skillgate override`'s note on a name no root holds (review s15 L7: an
 * override for `pfd` meant for `pdf` was written silently, and `pdf` stayed
 * served). "Configured" means what `skillgate list` with no ROOT argument
 * reads: `MCP_SKILLS_PATH` / `SKILLS_DIR`, the configuration file's `roots`
 * and `sources` (remote sources from the cache only, never the network).
 * A ROOT given to `serve` on its command line (as `claude mcp add ... serve
 * ROOT` does) is not known here, so no note is possible for it.
 *
 * @module
 */

import { loadConfig } from "../config/file/load_config.ts";
import { prepareRemote } from "../remote/remote_serve.ts";
import { buildCatalog } from "../skills/catalog.ts";
import type { CommandIo } from "./command_io.ts";

/** The configured roots and the names served under them now. */
export interface ConfiguredSkillNames {
  /** The roots looked in: a local root's absolute path, a remote source's spec. */
  readonly roots: readonly string[];
  /** Every served skill name found (before overrides: a disabled skill counts). */
  readonly names: ReadonlySet<string>;
}

/**
 * Builds the catalog of the configured roots (the discovery `list` and
 * `serve` run; nothing outside the roots is read, no script runs) and
 * returns its names. Costs one discovery: about 0.2 s for a few skills here,
 * more for a large catalog (the index cache is not used).
 *
 * @param configArgs `--config PATH`, `--config=PATH` or `--no-config`, as given to `override`.
 * @param io The working directory and the environment lookup.
 * @returns The roots and names, or null when no root is configured or the
 *   configuration or a source's cache cannot be read (the caller then says nothing).
 *
 * Requires `--allow-read` on the configuration file and the roots, and
 * `--allow-write` on the sources cache when sources are configured (the
 * trusted part holds them).
 */
export async function configuredSkillNames(
  configArgs: readonly string[],
  io: Pick<CommandIo, "cwd" | "getEnv">,
): Promise<ConfiguredSkillNames | null> {
  let config;
  try {
    ({ config } = await loadConfig({
      args: ["list", ...configArgs],
      getEnv: io.getEnv,
      cwd: io.cwd,
    }));
  } catch {
    return null; // the command itself already read the location; a broken file says so on serve
  }
  let catalog;
  try {
    if (config.remoteSources.length > 0) {
      const remote = await prepareRemote(config, io.getEnv);
      if (remote !== null && "error" in remote) return null;
      if (remote !== null) config = remote.config;
    }
    if (config.roots.length === 0) return null;
    catalog = await buildCatalog(config.roots, config.caps);
  } catch {
    return null; // the write is done; a look-up that fails says nothing rather than fail it
  }
  return {
    roots: config.roots.map((root) => root.source ?? root.path),
    names: new Set(catalog.skills.map((skill) => skill.name)),
  };
}
