/**
 * `make bench`: runs every registered section (or those named with
 * `--only`) and prints one Markdown report to stdout, with the machine, the
 * Deno version and the date; progress goes to stderr. Fixtures are deleted at
 * the end, also after an error or Ctrl-C.
 *
 * Usage: `deno run --frozen --cached-only --allow-all bench/main.ts
 * [--quick] [--only=ID[,ID]] [--list]`. `BENCH_TMPDIR` picks where generated
 * skills are written.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { VERSION } from "../src/version.ts";
import { REPO_ROOT } from "../tests/support/program.ts";
import { type BenchContext, createBenchContext } from "./context.ts";
import { renderTable } from "./support/markdown_table.ts";
import { SECTIONS } from "./sections/registry.ts";
import type { BenchSection } from "./sections/section.ts";

/** Exit code for a bad command line. */
const EXIT_USAGE = 2;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: {
        quick: { type: "boolean", default: false },
        only: { type: "string" },
        list: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    return EXIT_USAGE;
  }
  if (values.help || values.list) {
    const lines = SECTIONS.map((s) => `  ${s.id.padEnd(14)} issue ${s.issue}: ${s.summary}`);
    console.log(
      (values.help
        ? "Usage: bench/main.ts [--quick] [--only=ID[,ID]] [--list]\n\nSections:\n"
        : "") + lines.join("\n"),
    );
    return 0;
  }
  const selected = selectSections(values.only);
  if (typeof selected === "string") {
    console.error(`bench: ${selected}`);
    return EXIT_USAGE;
  }
  // skillgate is spawned through its launcher, as users run it: its bundle is built here, once,
  // so no measured spawn includes building it.
  const setup = await new Deno.Command(`${REPO_ROOT}skillgate`, {
    env: { SKILLGATE_SETUP_ONLY: "1" },
    stdout: "null",
  }).output();
  if (!setup.success) {
    console.error("bench: ./skillgate could not set up Deno, its dependencies or its bundle");
    return 1;
  }
  const tempParent = Deno.env.get("BENCH_TMPDIR");
  await using owned = createBenchContext({
    isQuick: values.quick,
    ...(tempParent === undefined || tempParent === "" ? {} : { tempParent }),
  });
  const onSignal = () => {
    console.error("bench: interrupted; deleting fixtures");
    Promise.resolve(owned[Symbol.asyncDispose]()).finally(() => Deno.exit(130));
  };
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    const startedAt = performance.now();
    const out: string[] = [await header(owned.context)];
    let failed = 0;
    for (const section of selected) {
      owned.context.log(`section ${section.id} (issue ${section.issue})`);
      out.push(`## ${section.title} (issue ${section.issue})\n`);
      try {
        const report = await section.run(owned.context);
        for (const table of report.tables) out.push(renderTable(table));
        if (report.notes.length > 0) {
          out.push(report.notes.map((note) => `- ${note}`).join("\n") + "\n");
        }
      } catch (error) {
        // One broken section must not cost the others their figures.
        failed++;
        const message = describeError(error);
        owned.context.log(`section ${section.id} failed: ${message}`);
        out.push(`Failed: ${message}\n`);
      }
      // Print each section as soon as it is done, so a long run shows results early.
      await writeStdout(out.splice(0).join("\n") + "\n");
    }
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(0);
    const load = await loadAverage();
    await writeStdout(`Ran in ${seconds} s; load average at the end: ${load ?? "unknown"}.\n`);
    owned.context.log(`done in ${seconds} s${failed > 0 ? `, ${failed} section(s) failed` : ""}`);
    return failed > 0 ? 1 : 0;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
  }
}

/** An error as one short line: no ANSI colours, at most 300 characters. */
function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\s+/g, " ").trim();
  return plain.length > 300 ? `${plain.slice(0, 300)}...` : plain;
}

function selectSections(only: string | undefined): readonly BenchSection[] | string {
  if (only === undefined) return SECTIONS;
  const ids = only.split(",").map((id) => id.trim()).filter((id) => id !== "");
  const unknown = ids.filter((id) => !SECTIONS.some((section) => section.id === id));
  if (unknown.length > 0) {
    return `Unknown section "${unknown.join(",")}"; known: ${SECTIONS.map((s) => s.id).join(", ")}`;
  }
  return SECTIONS.filter((section) => ids.includes(section.id));
}

async function header(context: BenchContext): Promise<string> {
  const cores = navigator.hardwareConcurrency;
  const cpu = await firstMatch("/proc/cpuinfo", /^model name\s*:\s*(.+)$/m);
  const nproc = await commandOutput("nproc", []);
  const commit = await commandOutput("git", ["-C", REPO_ROOT, "rev-parse", "--short", "HEAD"]);
  const dirty = await commandOutput("git", ["-C", REPO_ROOT, "status", "--porcelain"]);
  const load = await loadAverage();
  const lines = [
    "# skillgate benchmark",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${nproc ?? cores} cores (nproc; ${cores} logical CPUs seen by Deno)` +
    `${cpu === null ? "" : `, ${cpu}`}, ${Deno.build.os} ${Deno.osRelease()}, ` +
    `${(Deno.systemMemoryInfo().total / 1073741824).toFixed(1)} GiB RAM`,
    `- Deno ${Deno.version.deno} (V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript})` +
    `, ${Deno.execPath()}`,
    `- skillgate ${VERSION}` +
    (commit === null
      ? ""
      : ` at ${commit}${dirty === null || dirty === "" ? "" : " + uncommitted changes"}`),
    `- Load average at start: ${load ?? "unknown"} (other work on the machine shows up as noise)`,
    `- Repetitions: ${context.isQuick ? "--quick (rough figures)" : "full"}`,
    "",
  ];
  return lines.join("\n");
}

/** The 1, 5 and 15 minute load averages, e.g. `2.00, 5.99, 4.67`, or null. */
async function loadAverage(): Promise<string | null> {
  return (await firstMatch("/proc/loadavg", /^(\S+ \S+ \S+)/))?.replaceAll(" ", ", ") ?? null;
}

async function firstMatch(path: string, pattern: RegExp): Promise<string | null> {
  try {
    return pattern.exec(await Deno.readTextFile(path))?.[1]?.trim() ?? null;
  } catch {
    return null;
  }
}

async function commandOutput(command: string, args: string[]): Promise<string | null> {
  try {
    const output = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" })
      .output();
    return output.success ? new TextDecoder().decode(output.stdout).trim() : null;
  } catch {
    return null;
  }
}

async function writeStdout(text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (error) {
    console.error("bench: failed:", error instanceof Error ? error.stack ?? error.message : error);
    Deno.exit(1);
  }
}
