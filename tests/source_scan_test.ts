import assert from "node:assert/strict";
import { relative } from "node:path";
import { REPO_ROOT } from "./support/program.ts";
import { findSourceUses, findViolations, lexSource } from "./support/source_scan.ts";
import { CONTENT_DOORS, CONTENT_READERS, SCAN_ALLOWANCES } from "./support/source_scan_policy.ts";

async function readSources(): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && /\.(ts|tsx|js|mjs)$/.test(entry.name)) {
        sources.set(relative(REPO_ROOT, path), await Deno.readTextFile(path));
      }
    }
  };
  await walk(`${REPO_ROOT}src`);
  sources.set("main.ts", await Deno.readTextFile(`${REPO_ROOT}main.ts`));
  return sources;
}

function apis(source: string): string[] {
  return findSourceUses(source).map((use) => use.api);
}

Deno.test("source scan: every file, process and import door in src/ and main.ts is allowed", async () => {
  const violations = findViolations(await readSources(), SCAN_ALLOWANCES);
  assert.deepEqual(
    violations.map((v) => `${v.path}:${v.line}:${v.column}: ${v.api}`),
    [],
    "Use the path gate (src/files/) or the runner (src/scripts/runner/), or list the module " +
      "with its reason in tests/support/source_scan_policy.ts",
  );
});

Deno.test("source scan: every listed module exists and still uses each door it is allowed", async () => {
  const sources = await readSources();
  for (const allowance of SCAN_ALLOWANCES) {
    if (allowance.path.endsWith("/")) continue;
    const source = sources.get(allowance.path);
    assert.ok(source !== undefined, `${allowance.path} is listed but does not exist`);
    const used = new Set(apis(source));
    for (const api of allowance.apis) {
      assert.ok(used.has(api), `${allowance.path} is allowed ${api} but no longer uses it`);
    }
  }
});

Deno.test("source scan: nothing but the path gate's verified open reads skill content (start-up, serving, rebuilds)", async () => {
  const sources = await readSources();
  const readers = [...sources]
    .filter(([, source]) => findSourceUses(source).some((use) => CONTENT_DOORS.includes(use.api)))
    .map(([path]) => path)
    .sort();
  assert.deepEqual(
    readers,
    Object.keys(CONTENT_READERS).sort(),
    "Only src/files/bounded_read.ts opens skill content: read through resolveSkillFile() and " +
      "readBounded()/readWhole()",
  );
  // The gate's folder may hold no second opener either: one gated open, one place.
  const gate = sources.get("src/files/bounded_read.ts") ?? "";
  assert.equal(gate.match(/\bopenSync\(/g)?.length, 1, "bounded_read.ts opens in one place");
  // The catalog (start-up in the trusted part and the worker, and rebuilds) reads SKILL.md
  // through the gate.
  const skillMd = sources.get("src/skills/_read_skill_md.ts") ?? "";
  assert.match(skillMd, /resolveSkillFile\(/);
  assert.match(skillMd, /readBounded\(/);
});

Deno.test("findViolations() fails a new module that reads a file or spawns a process", () => {
  const source = [
    'import { join } from "node:path";',
    "export async function leak(dir: string): Promise<string> {",
    '  return await Deno.readTextFile(join(dir, "secret"));',
    "}",
    'export const child = new Deno.Command("sh");',
  ].join("\n");
  const violations = findViolations(new Map([["src/new_feature.ts", source]]), SCAN_ALLOWANCES);
  assert.deepEqual(violations, [
    { path: "src/new_feature.ts", api: "Deno.readTextFile", line: 3, column: 16 },
    { path: "src/new_feature.ts", api: "Deno.Command", line: 5, column: 26 },
  ]);
});

Deno.test("findViolations() allows the path gate's folder and a listed module's own doors only", () => {
  const read = "export const f = () => Deno.realPath('/x');";
  const spawn = "export const g = () => new Deno.Command('ls');";
  const violations = findViolations(
    new Map([
      ["src/files/new_gate_part.ts", read],
      ["src/config/root_check.ts", read + "\n" + spawn],
      ["src/scripts/runner/spawn.ts", spawn],
    ]),
    SCAN_ALLOWANCES,
  );
  assert.deepEqual(violations.map((v) => `${v.path}:${v.line}: ${v.api}`), [
    "src/config/root_check.ts:2: Deno.Command",
  ]);
});

Deno.test("findSourceUses() finds node:fs, child_process and module imports in every form", () => {
  const source = [
    'import { promises } from "node:fs";',
    "import * as fsp from 'fs/promises';",
    'export { spawn } from "node:child_process";',
    'import "fs";',
    'const req = require("child_process");',
    'import { createRequire } from "node:module";',
  ].join("\n");
  assert.deepEqual(findSourceUses(source).map((use) => `${use.line}: ${use.api}`), [
    "1: node:fs",
    "2: node:fs",
    "3: node:child_process",
    "4: node:fs",
    "5: node:child_process",
    "6: node:module",
  ]);
});

Deno.test("findSourceUses() finds dynamic import, Sync forms and indirect Deno access", () => {
  const source = [
    "const mod = await import(`./${name}.ts`);",
    "const text = Deno.readTextFileSync(path);",
    'const open = Deno["open"];',
    "const { readFile } = Deno;",
    "const info = globalThis.Deno.lstat(path);",
    "const stat = Deno\n  .stat(path);",
  ].join("\n");
  assert.deepEqual(findSourceUses(source).map((use) => `${use.line}: ${use.api}`), [
    "1: import()",
    "2: Deno.readTextFile",
    "3: Deno (indirect)",
    "4: Deno (indirect)",
    "5: Deno.lstat",
    "6: Deno.stat",
  ]);
});

Deno.test("findSourceUses() ignores comments and string text but not template expressions", () => {
  const source = [
    "/** Reads with `Deno.readFile` (see import() docs). */",
    "// Deno.Command would be wrong here",
    'const message = "Deno.open failed";',
    "const fromTemplate = `text Deno.stat ${await Deno.realPath(p)} more`;",
    "const re = /\\/\\/[^/]*/; const n = await Deno.readDir(d);",
    "const half = total / 2; const m = Deno.lstat(p); // 1 / 2",
    "const meta = import.meta.url;",
  ].join("\n");
  assert.deepEqual(findSourceUses(source).map((use) => `${use.line}:${use.column}: ${use.api}`), [
    "4:46: Deno.realPath",
    "5:41: Deno.readDir",
    "6:35: Deno.lstat",
  ]);
});

Deno.test("lexSource() keeps offsets and newlines so positions map to the same lines", () => {
  const source = "a /* x\ny */ b // z\n'c' `d${e}f`";
  const { withStrings, codeOnly } = lexSource(source);
  assert.equal(withStrings.length, source.length);
  assert.equal(codeOnly.length, source.length);
  assert.equal(withStrings, "a     \n     b     \n'c' `d${e}f`");
  assert.equal(codeOnly, "a     \n     b     \n' ' ` ${e} `");
});
