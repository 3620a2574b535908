/**
 * The owner's grant: `MCP_SKILL_RUN`, a JSON list of
 * `{skill, script, env?, read?, write?, network?}` rows. A grant narrows what
 * skills declare: no spelling of it makes something runnable that a skill did
 * not declare, or hands a script a name it did not declare. The one place a
 * grant ADDS to a declaration is the sandbox (issue 16): `read` and `write`
 * folders and `"network": true` widen what a sandboxed script may reach.
 * They belong to the owner, not the skill, because a skill cannot know
 * where a user keeps their files, and a skill that could name host folders or
 * switch the network on for itself would make the sandbox its own choice
 * (network still needs the skill to declare `egress` too).
 * When it is absent, hosted means nothing runs and standalone means the
 * declarations stand (the person at the terminal is the owner). When it, or
 * any other script variable, holds an unsubstituted placeholder (`${VAR}`,
 * `${env:VAR}`, `{{VAR}}`, ...; see `hasPlaceholder()`), a
 * host meant to grant or configure something and did not: nothing runs, and
 * the grant says why (a placeholder never counts as "absent").
 *
 * @module
 */

/** Where the grant in force came from. */
export type GrantSource =
  | "MCP_SKILL_RUN"
  | "hosted-default"
  | "declaration"
  | "unsubstituted"
  | "blank";

/** One usable row of `MCP_SKILL_RUN`. */
export interface GrantRow {
  /** The skill's directory name (grants are keyed on it, never on frontmatter). */
  readonly skill: string;
  /** The script path exactly as declared. */
  readonly script: string;
  /** Environment names granted to the script; empty when the row names none. */
  readonly env: readonly string[];
  /** Folders (absolute, as written) the sandbox mounts read-only; checked at start-up. */
  readonly read: readonly string[];
  /** Folders (absolute, as written) the sandbox mounts read-write; checked at start-up. */
  readonly write: readonly string[];
  /** Whether the sandbox keeps the host's network (only with declared egress). */
  readonly network: boolean;
}

/**
 * Why one grant row grants nothing to the script it names, or null when it
 * is usable: the one rule the plan (`plan.ts`, what `skill_list` and the
 * worker's runs follow) and the trusted part's environment release
 * (`sandbox/env_release.ts`, which trusts no worker) both apply, so the
 * trusted bound is never wider than the plan (review r12, F1).
 *
 * @param row The row.
 * @param declaredEnv The env names the named script declares, or null when
 *   the skill does not declare that script (or its declaration was refused).
 * @param refusedFolder Why the start-up check refused one of the row's
 *   folders (`sandbox/grant_folders.ts`), or undefined.
 * @returns `"undeclared-script"`, `{ undeclared: names }` (every name the
 *   script does not declare, in row order), `{ refusedFolder }`, or null.
 */
export function rowRefusal(
  row: GrantRow,
  declaredEnv: readonly string[] | null,
  refusedFolder: string | undefined,
):
  | "undeclared-script"
  | { readonly undeclared: readonly string[] }
  | { readonly refusedFolder: string }
  | null {
  if (declaredEnv === null) return "undeclared-script";
  const undeclared = row.env.filter((name) => !declaredEnv.includes(name));
  if (undeclared.length > 0) return { undeclared };
  if (refusedFolder !== undefined) return { refusedFolder };
  return null;
}

/**
 * The row in force for one (skill, script): the FIRST row naming both that
 * {@linkcode rowRefusal} lets through; a later row for the same pair grants
 * nothing ("an earlier row grants it"). Rows refused on their own shape never
 * reach `grant.rows`.
 *
 * @param rows `grant.rows`.
 * @param target The skill's directory name and the script as declared.
 * @param declaredEnv As for {@linkcode rowRefusal}.
 * @param refusedFolder The start-up verdict of the row at an index (undefined: not refused).
 * @returns The row and its index, or null when no row is in force.
 */
export function rowInForce(
  rows: readonly GrantRow[],
  target: { readonly skill: string; readonly script: string },
  declaredEnv: readonly string[] | null,
  refusedFolder: (index: number) => string | undefined,
): { readonly row: GrantRow; readonly index: number } | null {
  for (const [index, row] of rows.entries()) {
    if (row.skill !== target.skill || row.script !== target.script) continue;
    if (rowRefusal(row, declaredEnv, refusedFolder(index)) === null) return { row, index };
  }
  return null;
}

/** Keys a grant row may carry. */
export const GRANT_ROW_KEYS: readonly string[] = Object.freeze([
  "skill",
  "script",
  "env",
  "read",
  "write",
  "network",
]);

/** Folders per `read` or `write` list at most. */
export const MAX_GRANT_FOLDERS = 32;

/** A row that grants nothing, and why. */
export interface RefusedGrantRow {
  /** 0-based index of the row in the list. */
  readonly index: number;
  readonly detail: string;
}

/** The grant in force. */
export interface Grant {
  readonly from: GrantSource;
  /**
   * The usable rows; null when the declarations stand (standalone, no grant).
   * An empty list grants nothing.
   */
  readonly rows: readonly GrantRow[] | null;
  /** A sentence for `skill_list` about what the grant means here. */
  readonly note?: string;
  /** Why the whole value grants nothing (unparseable), for `skill_list`. */
  readonly error?: string;
  /** Rows refused on their own shape, before skills are consulted. */
  readonly refusedRows: readonly RefusedGrantRow[];
}

/** Rows read from `MCP_SKILL_RUN` at most; the rest are refused. */
export const MAX_GRANT_ROWS = 10_000;

/**
 * Reads the grant from the raw `MCP_SKILL_RUN` value. Never throws: a value
 * that is not JSON, or not a list, grants nothing and carries `error`; a row
 * that is not `{skill: string, script: string, env?: string[], read?:
 * string[], write?: string[], network?: boolean}` (no other keys; folders
 * absolute, at most 32 per list) grants nothing and is listed in
 * `refusedRows`. Whether the folders exist and may be granted is checked at
 * start-up in the trusted part (`sandbox/grant_folders.ts`). Whether a row names a
 * served skill, a declared script and declared env names is decided later
 * against the catalog (`plan.ts`).
 *
 * @param json The raw value, or null when unset. Set but blank (empty or white space)
 *   grants nothing (`from: "blank"`): it is what a host produces when it substitutes a
 *   variable the owner did not set (`-e MCP_SKILL_RUN=$GRANT`, `${env:GRANT}`), so, as for a
 *   placeholder, the owner meant to set it and skillgate fails closed.
 * @param options `hosted`, the variable that made the server hosted, and the
 *   script variables that held an unsubstituted placeholder (any one grants
 *   nothing, whatever `json` says). @default unsubstituted `[]`
 * @returns The grant, frozen.
 *
 * Source: the security-first anchor's grant (anchors.md); issue 4, "Grant".
 */
export function parseGrant(
  json: string | null,
  options: {
    hosted: boolean;
    hostedBy?: string | null;
    unsubstituted?: readonly string[];
  },
): Grant {
  const unsubstituted = options.unsubstituted ?? [];
  if (unsubstituted.length > 0) return unsubstitutedGrant(unsubstituted);
  if (json !== null && json.trim() === "") return blankGrant();
  if (json === null) {
    if (options.hosted) {
      return Object.freeze({
        from: "hosted-default",
        rows: Object.freeze([]),
        note: `Hosted (${options.hostedBy ?? "a host variable is set"}) and MCP_SKILL_RUN is ` +
          "not set, so no script may run. The owner grants scripts through MCP_SKILL_RUN",
        refusedRows: Object.freeze([]),
      });
    }
    return Object.freeze({
      from: "declaration",
      rows: null,
      note: "Standalone and MCP_SKILL_RUN is not set, so every declared script may run " +
        "(after confirmation) with the environment names its skill declares",
      refusedRows: Object.freeze([]),
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return refusedWhole(`MCP_SKILL_RUN is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) {
    return refusedWhole("MCP_SKILL_RUN must be a JSON list of {skill, script, env} rows");
  }
  const rows: GrantRow[] = [];
  const refusedRows: RefusedGrantRow[] = [];
  (value as unknown[]).forEach((row, index) => {
    if (index >= MAX_GRANT_ROWS) {
      if (index === MAX_GRANT_ROWS) {
        refusedRows.push({ index, detail: `Rows after the first ${MAX_GRANT_ROWS} are ignored` });
      }
      return;
    }
    const read = readRow(row);
    if (typeof read === "string") refusedRows.push({ index, detail: read });
    else rows.push(read);
  });
  return Object.freeze({
    from: "MCP_SKILL_RUN",
    rows: Object.freeze(rows),
    note: "MCP_SKILL_RUN is set: only the rows it lists may run, each narrowed to what its " +
      "skill declares",
    refusedRows: Object.freeze(refusedRows),
  });
}

/**
 * Whether a grant can let any script run at all: the declarations stand, or
 * it has at least one usable row (which the plan may still narrow to nothing).
 *
 * @param grant The grant in force.
 * @returns False when it grants nothing whatever the skills declare.
 */
export function grantsAnything(grant: Grant): boolean {
  return grant.rows === null || grant.rows.length > 0;
}

/**
 * The grant when script variables were left as placeholders. The error names
 * only the variables (never a value), so clients may see it as it is.
 */
function unsubstitutedGrant(names: readonly string[]): Grant {
  const list = names.join(", ");
  return Object.freeze({
    from: "unsubstituted",
    rows: Object.freeze([]),
    error: `${list} ${names.length === 1 ? "holds" : "hold"} an unsubstituted placeholder ` +
      "(${...}, {{...}} or a bare $NAME) or nothing at all: the host meant to set it and did " +
      "not, so no " +
      "script may run. The owner substitutes the value (or removes the variable) and " +
      "restarts skillgate",
    note: "A script variable was left as a placeholder, so no script may run",
    refusedRows: Object.freeze([]),
  });
}

/** The grant when `MCP_SKILL_RUN` is set but blank: nothing runs, and the error says why. */
function blankGrant(): Grant {
  return Object.freeze({
    from: "blank",
    rows: Object.freeze([]),
    error: "MCP_SKILL_RUN is set but empty, which is what a host writes when it substitutes a " +
      "variable that was not set, so no script may run. Set it to [] (no script) or to the " +
      "rows to grant; unset it to let standalone declarations stand as their grant",
    note: "MCP_SKILL_RUN is set but empty, so no script may run",
    refusedRows: Object.freeze([]),
  });
}

function refusedWhole(error: string): Grant {
  return Object.freeze({
    from: "MCP_SKILL_RUN",
    rows: Object.freeze([]),
    error,
    note: "The grant could not be read, so no script may run",
    refusedRows: Object.freeze([]),
  });
}

function readRow(row: unknown): GrantRow | string {
  if (typeof row !== "object" || row === null || Array.isArray(row)) {
    return "The row is not an object of the form {skill, script, env, read, write, network}";
  }
  const record = row as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !GRANT_ROW_KEYS.includes(key));
  if (extra.length > 0) {
    return `The row has unknown key ${JSON.stringify(extra[0]).slice(0, 80)}`;
  }
  if (typeof record.skill !== "string" || record.skill === "") {
    return 'The row has no "skill" name';
  }
  if (typeof record.script !== "string" || record.script === "") {
    return 'The row has no "script" path';
  }
  let env: string[] = [];
  if (record.env !== undefined) {
    if (!Array.isArray(record.env) || !record.env.every((name) => typeof name === "string")) {
      return 'The row\'s "env" is not a list of names';
    }
    env = [...new Set(record.env as string[])];
  }
  const read = readFolders(record.read, "read");
  if (typeof read === "string") return read;
  const write = readFolders(record.write, "write");
  if (typeof write === "string") return write;
  if (record.network !== undefined && typeof record.network !== "boolean") {
    return 'The row\'s "network" is not true or false';
  }
  return Object.freeze({
    skill: record.skill,
    script: record.script,
    env: Object.freeze(env),
    read: Object.freeze(read),
    write: Object.freeze(write),
    network: record.network === true,
  });
}

/** A row's `read` or `write` list: absolute paths without NUL, or why not. */
function readFolders(value: unknown, key: "read" | "write"): string[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string")) {
    return `The row's "${key}" is not a list of folders`;
  }
  if (value.length > MAX_GRANT_FOLDERS) {
    return `The row's "${key}" names more than ${MAX_GRANT_FOLDERS} folders`;
  }
  for (const [at, folder] of (value as string[]).entries()) {
    if (!folder.startsWith("/") || folder.includes("\0")) {
      return `The row's "${key}" folder #${at} is not an absolute path`;
    }
  }
  return [...new Set(value as string[])];
}
