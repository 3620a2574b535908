/**
 * The trusted part's modules that `serve` does not start with: the one-shot
 * commands (help, list, validate, config, permissions, sync, override,
 * health) and the remote sources' serving module. This is an entry module
 * of its own (bundled by the launcher as `src/cli/on_demand.js`, included by
 * `deno compile`), and `main.ts` imports it by URL
 * (`isolateEntryUrl("on-demand")`), never by a literal specifier.
 *
 * Why (issue 13: RSS at 12 skills): at start Deno builds the main module's
 * graph with every dynamic import whose specifier is a literal, reading each
 * module reached and keeping its source and analysis in the trusted part's
 * native heap for the life of the process, whether or not it ever runs. With
 * the one-shot commands named literally in `main.ts`, a `serve` kept ~960 KiB
 * of bundled source there (zod, the MCP SDK's types, the YAML parser, the
 * fetcher's code) of which it runs ~300 KiB: ~0.8 MiB of the process's
 * resident memory, the glibc main arena 3.8 -> 3.0 MiB at 12 skills
 * (`bench/results/issue13.md`, section s11-hE). Named only
 * here, those modules enter a graph when a command needs them.
 *
 * Each loader below is a fixed, relative specifier: the bundler splits each
 * target into its own chunk, and `deno compile` follows them from this module.
 *
 * @module
 */

/** `src/cli/help.ts`: `--help`. */
export const loadHelp = () => import("./help.ts");

/** `src/cli/list_command.ts`: `list` (renders the skill_list answer: zod and the MCP SDK). */
export const loadListCommand = () => import("./list_command.ts");

/** `src/cli/validate_command.ts`: `validate` (the YAML parser). */
export const loadValidateCommand = () => import("./validate_command.ts");

/** `src/cli/config_command.ts`: `config`. */
export const loadConfigCommand = () => import("./config_command.ts");

/** `src/cli/permissions_command.ts`: `permissions`. */
export const loadPermissionsCommand = () => import("./permissions_command.ts");

/** `src/cli/sync_command.ts`: `sync` (the fetcher's host). */
export const loadSyncCommand = () => import("./sync_command.ts");

/** `src/cli/override_command.ts`: `override`. */
export const loadOverrideCommand = () => import("./override_command.ts");

/** `src/cli/configured_skill_names.ts`: `override`'s look-up of the names served now. */
export const loadConfiguredSkillNames = () => import("./configured_skill_names.ts");

/** `src/cli/health_command.ts`: `health`. */
export const loadHealthCommand = () => import("./health_command.ts");

/** `src/remote/remote_serve.ts`: `serve` with remote sources configured. */
export const loadRemoteServe = () => import("../remote/remote_serve.ts");
