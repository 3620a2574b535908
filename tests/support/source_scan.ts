/**
 * The source scan: finds every use of a file-system, process or code-loading
 * door in TypeScript source, so a test can hold them to the one path gate,
 * the one runner and an explicit list of modules. A small lexer drops
 * comments (and, for API names, string and regex contents) first, so a doc
 * comment that names `Deno.open` is not a use, while a call inside a template
 * literal's `${...}` is.
 *
 * @module
 */

/** The doors the scan looks for. `Sync` variants count as their async name. */
export const SCANNED_APIS = [
  "Deno.open",
  "Deno.readFile",
  "Deno.readTextFile",
  "Deno.stat",
  "Deno.lstat",
  "Deno.realPath",
  "Deno.readDir",
  "Deno.readLink",
  "Deno.Command",
  "Deno.ChildProcess",
  "node:fs",
  "node:child_process",
  "node:module",
  "Deno.dlopen",
  // A watcher: Deno's watcher thread opens each event's path holding the lock every watchFs (and
  // close) of its isolate takes, so a FIFO there holds the caller for good (watch isolates only).
  "Deno.watchFs",
  // Ending the process: only src/sandbox/process_exit.ts, which first ends the scripts' groups.
  "Deno.exit",
  "import()",
  "Deno (indirect)",
] as const;

/** One scanned door. */
export type ScannedApi = typeof SCANNED_APIS[number];

/** One use of a door in a source text; `line` and `column` are 1-based. */
export interface SourceUse {
  readonly api: ScannedApi;
  readonly line: number;
  readonly column: number;
}

const DENO_MEMBERS: ReadonlySet<string> = new Set(
  SCANNED_APIS.filter((api) => api.startsWith("Deno.")).map((api) => api.slice(5)),
);
const NODE_MODULES: Readonly<Record<string, ScannedApi>> = {
  "fs": "node:fs",
  "fs/promises": "node:fs",
  "child_process": "node:child_process",
  "module": "node:module",
};
const REGEX_BEFORE = new Set("(,=:[!&|?{};+-*%<>~^".split(""));
const REGEX_AFTER_WORDS = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
]);

/** Two views of a source text, both the same length with newlines kept. */
export interface LexedSource {
  /** Comments blanked; strings, templates and regexes kept. */
  readonly withStrings: string;
  /** Comments, string contents, template text and regex bodies blanked. */
  readonly codeOnly: string;
}

/**
 * Blanks comments (and, in one view, literal contents) of TypeScript source,
 * keeping every newline so offsets map to the same lines. Template literals
 * nest: code inside `${...}` stays code. A `/` starts a regex where a value
 * cannot end (after an operator, `(`, `,`, a keyword such as `return`, or at
 * the start).
 *
 * @param source TypeScript text.
 * @returns The two views.
 */
export function lexSource(source: string): LexedSource {
  const keep: string[] = [...source];
  const code: string[] = [...source];
  const blank = (view: string[], at: number) => {
    if (view[at] !== "\n") view[at] = " ";
  };
  const templateDepth: number[] = [];
  let lastSignificant = "";
  let lastWord = "";
  let i = 0;
  const n = source.length;
  const skipString = (quote: string) => {
    i++;
    while (i < n && source[i] !== quote && source[i] !== "\n") {
      if (source[i] === "\\") blank(code, i++);
      blank(code, i++);
    }
    i++;
  };
  const skipTemplateText = () => {
    // At the first character after "`" or after the "}" closing an expression.
    while (i < n) {
      const char = source[i];
      if (char === "\\") {
        blank(code, i++);
        blank(code, i++);
      } else if (char === "`") {
        i++;
        return;
      } else if (char === "$" && source[i + 1] === "{") {
        i += 2;
        templateDepth.push(0);
        return;
      } else blank(code, i++);
    }
  };
  while (i < n) {
    const char = source[i] as string;
    const next = source[i + 1];
    if (char === "/" && next === "/") {
      while (i < n && source[i] !== "\n") {
        blank(keep, i);
        blank(code, i++);
      }
      continue;
    }
    if (char === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      for (; i < stop; i++) {
        blank(keep, i);
        blank(code, i);
      }
      continue;
    }
    if (char === "'" || char === '"') {
      skipString(char);
      lastSignificant = char;
      lastWord = "";
      continue;
    }
    if (char === "`") {
      i++;
      skipTemplateText();
      lastSignificant = "`";
      lastWord = "";
      continue;
    }
    if (char === "{" && templateDepth.length > 0) {
      templateDepth[templateDepth.length - 1]! += 1;
    } else if (char === "}" && templateDepth.length > 0) {
      if (templateDepth.at(-1) === 0) {
        templateDepth.pop();
        i++;
        skipTemplateText();
        lastSignificant = "`";
        lastWord = "";
        continue;
      }
      templateDepth[templateDepth.length - 1]! -= 1;
    }
    if (
      char === "/" &&
      (lastSignificant === "" || REGEX_BEFORE.has(lastSignificant) ||
        REGEX_AFTER_WORDS.has(lastWord))
    ) {
      i++;
      let inClass = false;
      while (i < n && source[i] !== "\n") {
        const inner = source[i];
        if (inner === "\\") {
          blank(code, i++);
          blank(code, i++);
          continue;
        }
        if (inner === "[") inClass = true;
        else if (inner === "]") inClass = false;
        else if (inner === "/" && !inClass) break;
        blank(code, i++);
      }
      i++;
      lastSignificant = "/";
      lastWord = "";
      continue;
    }
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (/[A-Za-z0-9_$]/.test(char)) {
      let end = i;
      while (end < n && /[A-Za-z0-9_$]/.test(source[end] as string)) end++;
      lastWord = source.slice(i, end);
      lastSignificant = "a";
      i = end;
      continue;
    }
    lastSignificant = char;
    lastWord = "";
    i++;
  }
  return { withStrings: keep.join(""), codeOnly: code.join("") };
}

/**
 * Finds every use of a scanned door in one source text: `Deno.<api>` (and
 * its `Sync` form, also as `globalThis.Deno.<api>`) in code, any other use of
 * the `Deno` global that is not a plain member access (`Deno["open"]`,
 * `const { open } = Deno`, `const d = Deno`), static or dynamic imports and
 * `require` of `fs`, `fs/promises`, `child_process` and `module` (with or
 * without `node:`), and every dynamic `import(`. It guards against accidents,
 * not against code written to hide: a global reached by a computed string
 * (`globalThis["De" + "no"]`) is not seen; review catches that.
 *
 * @param source TypeScript text.
 * @returns The uses in source order.
 */
export function findSourceUses(source: string): SourceUse[] {
  const { withStrings, codeOnly } = lexSource(source);
  const found: { api: ScannedApi; offset: number }[] = [];
  for (const match of codeOnly.matchAll(/(?<![\w$])Deno\b(\s*\.\s*([A-Za-z_$][\w$]*))?/g)) {
    const member = match[2];
    if (member === undefined) {
      found.push({ api: "Deno (indirect)", offset: match.index });
      continue;
    }
    const base = member.endsWith("Sync") ? member.slice(0, -4) : member;
    if (DENO_MEMBERS.has(base)) {
      found.push({ api: `Deno.${base}` as ScannedApi, offset: match.index });
    }
  }
  for (const match of codeOnly.matchAll(/(?<![\w$.])import\s*\(/g)) {
    found.push({ api: "import()", offset: match.index });
  }
  const specifier =
    /(?<![\w$.])(?:from|import\s*\(?|require\s*\()\s*(["'`])(?:node:)?(fs|fs\/promises|child_process|module)\1/g;
  for (const match of withStrings.matchAll(specifier)) {
    const api = NODE_MODULES[match[2] as string];
    if (api !== undefined) found.push({ api, offset: match.index });
  }
  found.sort((a, b) => a.offset - b.offset);
  const lineStarts = [0];
  for (let at = source.indexOf("\n"); at >= 0; at = source.indexOf("\n", at + 1)) {
    lineStarts.push(at + 1);
  }
  return found.map(({ api, offset }) => {
    let line = 0;
    while (line + 1 < lineStarts.length && (lineStarts[line + 1] as number) <= offset) line++;
    return { api, line: line + 1, column: offset - (lineStarts[line] as number) + 1 };
  });
}

/** Where a door may be used: a folder (any module in it) or one listed module. */
export interface ScanAllowance {
  /** Repository-relative folder ending in `/`, or a module path. */
  readonly path: string;
  /** The doors allowed there. */
  readonly apis: readonly ScannedApi[];
  /** Why this place needs them. */
  readonly reason: string;
}

/** A use outside every allowance. */
export interface ScanViolation extends SourceUse {
  /** Repository-relative module path. */
  readonly path: string;
}

/**
 * Checks source texts against the allowances: a use is allowed when an
 * allowance whose path is the module, or a folder holding it, lists its door.
 *
 * @param sources Repository-relative module path to source text.
 * @param allowances The allowed places.
 * @returns Every use that no allowance covers, by path then position.
 */
export function findViolations(
  sources: ReadonlyMap<string, string>,
  allowances: readonly ScanAllowance[],
): ScanViolation[] {
  const violations: ScanViolation[] = [];
  for (const [path, source] of [...sources].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    const applicable = allowances.filter((allowance) =>
      allowance.path === path || (allowance.path.endsWith("/") && path.startsWith(allowance.path))
    );
    for (const use of findSourceUses(source)) {
      if (!applicable.some((allowance) => allowance.apis.includes(use.api))) {
        violations.push({ path, ...use });
      }
    }
  }
  return violations;
}
