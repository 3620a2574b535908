/**
 * The `mcp-host` declaration block in a skill's frontmatter: which scripts may
 * be run, with which interpreter, which environment names each asks for, and
 * its timeout. Scripts are declared, never inferred (not from an extension,
 * not from a shebang). A declaration only narrows: it never grants anything by
 * itself (see `grant.ts`).
 *
 * Accepted exactly as the security-first anchor writes it:
 *
 * ```yaml
 * mcp-host:
 *   version: 1
 *   run:
 *     - script: scripts/report.js
 *       interpreter: node
 *       env: [WEATHER_API_KEY]
 *       timeout: 30
 *   env: [{ name: WEATHER_API_KEY, secret: true }]   # proposals, never handed to a script
 *   egress: [api.example.com]                       # shown as declaredEgress
 *   state: {}                                       # accepted, not used
 * ```
 *
 * @module
 */

import { checkPathString } from "../files/path_gate.ts";

/** The declaration block's version this server understands. */
export const DECLARATION_VERSION = 1;
/** A script's timeout when the declaration names none, in ms. */
export const DEFAULT_SCRIPT_TIMEOUT_MS = 60_000;
/** The longest timeout a declaration may ask for, in ms; longer ones are clamped. */
export const MAX_SCRIPT_TIMEOUT_MS = 300_000;
/** Characters of one environment variable name at most. */
export const MAX_ENV_NAME_CHARS = 128;

/**
 * The interpreters a declaration may name. `exec` runs the script file itself
 * (it must be executable and start with a shebang).
 */
export const INTERPRETER_NAMES = ["python3", "node", "bash", "sh", "deno", "exec"] as const;

/** One of {@linkcode INTERPRETER_NAMES}. */
export type InterpreterName = typeof INTERPRETER_NAMES[number];

/** One declared script. */
export interface DeclaredScript {
  /** Path relative to the skill folder, as declared (passes the path rule). */
  readonly script: string;
  readonly interpreter: InterpreterName;
  /** Environment names the script asks for, deduplicated, in declared order. */
  readonly env: readonly string[];
  /** Wall-clock budget in ms: default 60 000, at most 300 000. */
  readonly timeoutMs: number;
}

/** What a skill's `mcp-host` block declares, after refusals. */
export interface Declaration {
  /** The accepted run entries, in declared order. */
  readonly run: readonly DeclaredScript[];
  /** Host names the skill says it reaches (`egress`); informational. */
  readonly declaredEgress: readonly string[];
  /** Names from the top-level `env` list: proposals for the owner, never handed to a script. */
  readonly envProposals: readonly string[];
  /** Whether the block carries a `state` key (accepted, not used). */
  readonly hasState: boolean;
}

/** One thing wrong with a declaration. An `error` costs a script (or all of them). */
export interface DeclarationFinding {
  readonly severity: "error" | "warning";
  readonly detail: string;
}

/** What {@linkcode parseDeclaration} found. */
export interface ParsedDeclaration {
  /** The declaration, or null when the frontmatter has no `mcp-host` key. */
  readonly declaration: Declaration | null;
  readonly findings: readonly DeclarationFinding[];
}

/** Names a declaration may never ask for (besides every `LD_*` and `DYLD_*`). */
export const RESERVED_ENV_NAMES: ReadonlySet<string> = new Set([
  "MCP_SKILLS_PATH",
  "MCP_SKILL_RUN",
  "SKILLS_DIR",
  "MCP_HOST_METER_FILE",
  "MCP_BLOB_BASE_URL",
  "MCP_BLOB_SIGNING_KEY",
  "NODE_OPTIONS",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "NODE_REPL_EXTERNAL_MODULE",
  "MCP_CONFIRM_SECRET",
  "MCP_CONFIRM_MODE",
  "MCP_CONFIRM_TTL_SECONDS",
  "MCP_SKILL_ALLOW_UNSCRUBBED",
  "GITHUB_TOKEN",
  // A JavaScript object's prototype key: every record of environment values (the trusted part's
  // release, the worker's host facts, the script's env) would drop it silently (s15 hM review);
  // refused here with the other reserved names, so the author is told.
  "__proto__",
]);

/** Prefixes a declaration may never ask for: the loader's and skillgate's own settings. */
export const RESERVED_ENV_PREFIXES: readonly string[] = Object.freeze([
  "LD_",
  "DYLD_",
  "SKILLGATE_",
]);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST_NAME = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;
const BLOCK_KEYS = new Set(["version", "run", "env", "egress", "state"]);
const RUN_KEYS = new Set(["script", "interpreter", "env", "timeout"]);

/**
 * Whether an environment name is reserved: one of
 * {@linkcode RESERVED_ENV_NAMES} or starting with a
 * {@linkcode RESERVED_ENV_PREFIXES} entry (case-sensitive, as the OS is).
 *
 * @param name An environment variable name.
 * @returns True when no script may be handed it.
 *
 * Source: the anchor's reserved list (anchors.md); `LD_*`/`DYLD_*` because
 * they change what the interpreter loads (and Deno demands unrestricted
 * `--allow-run` for any child that has one).
 */
export function isReservedEnvName(name: string): boolean {
  return RESERVED_ENV_NAMES.has(name) ||
    RESERVED_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * Whether a string is a usable environment variable name: an identifier
 * (`[A-Za-z_][A-Za-z0-9_]*`) of at most {@linkcode MAX_ENV_NAME_CHARS} characters.
 *
 * @param name Any string.
 * @returns True for an identifier.
 */
export function isEnvName(name: string): boolean {
  return name.length <= MAX_ENV_NAME_CHARS && ENV_NAME.test(name);
}

/**
 * Reads the `mcp-host` block of a parsed frontmatter. Never throws: every
 * refusal is a finding. A block that is not a mapping or has a `version`
 * other than 1 is ignored whole (error: the skill has no scripts). A run
 * entry that is not a mapping, has an unknown key, a script path that fails
 * the path rule or is declared twice, an interpreter outside
 * {@linkcode INTERPRETER_NAMES}, an env list that is not identifiers, a
 * reserved env name, or a timeout that is not a positive number of seconds is
 * refused (error: the skill loses that script). An unknown block key, a bad
 * `egress` or top-level `env` entry, or a timeout above 300 s (clamped) is a
 * warning. The instructions are never affected.
 *
 * @param frontmatter The parsed frontmatter (JSON values).
 * @returns The declaration (null when there is no `mcp-host` key) and the findings.
 *
 * Source: the `mcp-host` block of the security-first anchor
 * (`/work/shared/notes/anchors.md`); issue 4, "Declaration".
 */
export function parseDeclaration(
  frontmatter: Readonly<Record<string, unknown>>,
): ParsedDeclaration {
  if (!Object.hasOwn(frontmatter, "mcp-host")) return { declaration: null, findings: [] };
  const findings: DeclarationFinding[] = [];
  const error = (detail: string) => findings.push({ severity: "error", detail });
  const warn = (detail: string) => findings.push({ severity: "warning", detail });
  const empty: Declaration = { run: [], declaredEgress: [], envProposals: [], hasState: false };
  const block = frontmatter["mcp-host"];
  if (!isRecord(block)) {
    error(`"mcp-host" is ${kindOf(block)}, not a mapping; no script of this skill can run`);
    return { declaration: empty, findings };
  }
  if (block.version !== DECLARATION_VERSION) {
    error(
      `"mcp-host.version" is ${describe(block.version)}; this server understands version ` +
        `${DECLARATION_VERSION}, so no script of this skill can run`,
    );
    return { declaration: empty, findings };
  }
  for (const key of Object.keys(block)) {
    if (!BLOCK_KEYS.has(key)) warn(`Unknown key "mcp-host.${clip(key)}" is ignored`);
  }
  const declaration: Declaration = {
    run: readRun(block.run, error, warn),
    declaredEgress: readEgress(block.egress, warn),
    envProposals: readEnvProposals(block.env, warn),
    hasState: Object.hasOwn(block, "state"),
  };
  return { declaration, findings };
}

function readRun(
  value: unknown,
  error: (detail: string) => void,
  warn: (detail: string) => void,
): DeclaredScript[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    error(`"mcp-host.run" is ${kindOf(value)}, not a list; no script of this skill can run`);
    return [];
  }
  const accepted: DeclaredScript[] = [];
  value.forEach((entry: unknown, index) => {
    const at = `"mcp-host.run[${index}]"`;
    const refuse = (why: string) => error(`${at} ${why}; that script cannot run`);
    if (!isRecord(entry)) return refuse(`is ${kindOf(entry)}, not a mapping`);
    const unknown = Object.keys(entry).filter((key) => !RUN_KEYS.has(key));
    if (unknown.length > 0) {
      return refuse(`has unknown key${unknown.length === 1 ? "" : "s"} ${quoteList(unknown)}`);
    }
    const script = entry.script;
    if (typeof script !== "string") return refuse(`has no "script" path (got ${kindOf(script)})`);
    const pathRefusal = checkPathString(script);
    if (pathRefusal !== null) return refuse(`names a script that is not usable: ${pathRefusal}`);
    const first = accepted.findIndex((earlier) => earlier.script === script);
    if (first !== -1) {
      // Review n7: "that script cannot run" was wrong here; the first entry still runs.
      return error(
        `${at} declares "${clip(script)}" a second time; this entry is ignored (the first ` +
          "one declaring it stands). Remove the duplicate entry",
      );
    }
    // Every reason this entry is refused, at once: an author fixes them in one round (n9, F5).
    const reasons: string[] = [];
    const interpreter = entry.interpreter;
    if (!isInterpreterName(interpreter)) {
      reasons.push(
        `names interpreter ${describe(interpreter)}; use one of ${INTERPRETER_NAMES.join(", ")}`,
      );
    }
    const env = readScriptEnv(entry.env);
    if (typeof env === "string") reasons.push(env);
    const timeoutMs = readTimeout(entry.timeout);
    if (typeof timeoutMs === "string") reasons.push(timeoutMs);
    else if (timeoutMs > MAX_SCRIPT_TIMEOUT_MS) {
      warn(
        `${at} asks for a ${entry.timeout} s timeout; clamped to ${MAX_SCRIPT_TIMEOUT_MS / 1000} s`,
      );
    }
    if (reasons.length > 0 || !isInterpreterName(interpreter)) return refuse(reasons.join("; "));
    if (typeof env === "string" || typeof timeoutMs === "string") return;
    accepted.push(Object.freeze({
      script,
      interpreter,
      env: Object.freeze(env),
      timeoutMs: Math.min(timeoutMs, MAX_SCRIPT_TIMEOUT_MS),
    }));
  });
  return accepted;
}

/** The script's env list, or a refusal reason naming every offending name. */
function readScriptEnv(value: unknown): string[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return `has an "env" that is ${kindOf(value)}, not a list of names`;
  const names: string[] = [];
  const notNames: string[] = [];
  const reserved: string[] = [];
  for (const name of value as unknown[]) {
    if (typeof name !== "string" || !isEnvName(name)) notNames.push(describe(name));
    else if (isReservedEnvName(name)) reserved.push(`"${name}"`);
    else if (!names.includes(name)) names.push(name);
  }
  const reasons = [
    ...(notNames.length === 0 ? [] : [
      `asks for ${notNames.length === 1 ? "an environment name" : "environment names"} that ${
        notNames.length === 1 ? "is" : "are"
      } not an identifier: ${notNames.join(", ")}`,
    ]),
    ...(reserved.length === 0 ? [] : [
      `asks for the reserved environment name${reserved.length === 1 ? "" : "s"} ${
        reserved.join(", ")
      }`,
    ]),
  ];
  return reasons.length > 0 ? reasons.join("; ") : names;
}

/** The timeout in ms (not yet clamped), or a refusal reason. */
function readTimeout(value: unknown): number | string {
  if (value === undefined || value === null) return DEFAULT_SCRIPT_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    return `has a "timeout" of ${describe(value)}; give a positive number of seconds`;
  }
  return Math.max(1, Math.round(value * 1000));
}

function readEgress(value: unknown, warn: (detail: string) => void): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warn(`"mcp-host.egress" is ${kindOf(value)}, not a list of host names; it is ignored`);
    return [];
  }
  const hosts: string[] = [];
  for (const host of value as unknown[]) {
    if (typeof host !== "string" || host.length > 253 || !HOST_NAME.test(host)) {
      warn(`"mcp-host.egress" entry ${describe(host)} is not a host name; it is ignored`);
    } else if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

function readEnvProposals(value: unknown, warn: (detail: string) => void): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warn(`"mcp-host.env" is ${kindOf(value)}, not a list; it is ignored`);
    return [];
  }
  const names: string[] = [];
  (value as unknown[]).forEach((entry, index) => {
    const name = isRecord(entry) ? entry.name : entry;
    if (typeof name !== "string" || !isEnvName(name)) {
      warn(`"mcp-host.env[${index}]" has no usable name; it is ignored`);
    } else if (!names.includes(name)) names.push(name);
  });
  return names;
}

function isInterpreterName(value: unknown): value is InterpreterName {
  return typeof value === "string" && (INTERPRETER_NAMES as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return "missing";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

function describe(value: unknown): string {
  if (typeof value === "string") return `"${clip(value)}"`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return kindOf(value);
}

function quoteList(keys: readonly string[]): string {
  return keys.slice(0, 5).map((key) => `"${clip(key)}"`).join(", ");
}

function clip(text: string): string {
  const printable = JSON.stringify(text).slice(1, -1);
  return printable.length > 80 ? `${printable.slice(0, 80)}…` : printable;
}
