/**
 * Reads the MCP conformance suite's results (`checks.json` per scenario) and
 * decides, check by check, whether skillgate conforms. The suite's exit code
 * is not enough: a scenario whose fixture is missing can report no failure,
 * and skipped checks are not passes. Called by `.ci/conformance.sh`.
 *
 *   deno run --allow-read .ci/conformance_report.ts RESULTS_DIR EXPECTED_FAILURES_YML
 *
 * RESULTS_DIR holds `<run>/<scenario>/.../checks.json`; the run `fixture` (the
 * fixture corpus, tests/fixtures/corpus) is required, the run `real-world` (the
 * real-world corpus) is there when that corpus was present. Every run is held to
 * the same rules. Exit 0 when every rule holds, 1 otherwise.
 *
 * @module
 */

/** One check as the suite writes it. */
interface Check {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  readonly errorMessage?: string;
}

/** The run that must be present: the fixture corpus, which every checkout has. */
const REQUIRED_RUN = "fixture";

/** Scenarios the issue requires to pass on every corpus. */
const REQUIRED = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
  "sep-2640-skills-enumeration",
  "sep-2640-skills-manifest",
  "sep-2640-skills-directory",
];

/** Checks that may be SKIPPED, and why. */
const ALLOWED_SKIPS: Record<string, Record<string, string>> = {
  "sep-2640-skills-enumeration": {
    "sep-2640-skills-list-cache-attributes": "ttlMs/cacheScope belong to 2026-07-28",
    "sep-2640-skills-get-cache-attributes": "ttlMs/cacheScope belong to 2026-07-28",
  },
};

/** Checks that cannot be exercised on a given run, and where they are checked instead. */
const NOT_TESTABLE: Record<string, Record<string, Record<string, string>>> = {
  "real-world": {
    "sep-2640-skills-directory": {
      "sep-2640-directory-read-subdir-mimetype":
        "the real-world corpus's first skill has no subfolder; checked on the fixture run",
    },
  },
};

/** Scenarios that pass without their fixture, so a pass proves less than it says. */
const SHAPE_ONLY: Record<string, string> = {
  "completion-complete":
    "asks to complete the fixture prompt test_prompt_with_arguments; only the answer's shape is checked",
};

function readExpectedFailures(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  let isServerList = false;
  for (const line of text.split("\n")) {
    if (/^\S/.test(line)) isServerList = /^server:\s*(#.*)?$/.test(line);
    const match = /^\s+-\s+([^\s#]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (isServerList && match?.[1] !== undefined) entries.set(match[1], match[2] ?? "");
  }
  return entries;
}

async function findChecks(dir: string): Promise<Check[] | null> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isFile && entry.name === "checks.json") {
        return JSON.parse(await Deno.readTextFile(path)) as Check[];
      }
      if (entry.isDirectory) {
        const found = await findChecks(path);
        if (found !== null) return found;
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return null;
}

async function listDirs(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) if (entry.isDirectory) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

async function main(resultsDir: string, expectedFile: string): Promise<number> {
  const expected = readExpectedFailures(await Deno.readTextFile(expectedFile));
  const problems: string[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const passed: string[] = [];
  const expectedFailed: string[] = [];
  const runs = await listDirs(resultsDir);
  for (const run of runs) {
    for (const scenario of await listDirs(`${resultsDir}/${run}`)) {
      const label = `${scenario} (${run})`;
      const checks = await findChecks(`${resultsDir}/${run}/${scenario}`);
      if (checks === null) {
        problems.push(`${label}: no results (the scenario did not run)`);
        continue;
      }
      const reason = expected.get(scenario);
      if (reason !== undefined) {
        const failing = checks.filter((check) =>
          check.status === "FAILURE" || check.status === "WARNING"
        );
        if (failing.length === 0) {
          problems.push(`${label}: listed as an expected failure but passed; remove it`);
        } else {
          expectedFailed.push(`${label} - ${reason}`);
          for (const check of failing.filter((check) => check.status === "WARNING")) {
            warnings.push(`${label}: ${check.id} - ${check.errorMessage ?? ""}`);
          }
        }
        continue;
      }
      let isPassing = true;
      for (const check of checks) {
        const notTestable = NOT_TESTABLE[run]?.[scenario]?.[check.id];
        if (check.status === "WARNING") {
          warnings.push(`${label}: ${check.id} - ${check.errorMessage ?? ""}`);
        } else if (check.status === "SKIPPED") {
          const why = ALLOWED_SKIPS[scenario]?.[check.id];
          if (why === undefined) {
            isPassing = false;
            problems.push(`${label}: ${check.id} was SKIPPED - ${check.errorMessage ?? ""}`);
          } else notes.push(`${label}: ${check.id} skipped (${why})`);
        } else if (check.status === "FAILURE") {
          if (notTestable !== undefined) {
            notes.push(`${label}: ${check.id} not testable (${notTestable})`);
          } else {
            isPassing = false;
            problems.push(`${label}: ${check.id} FAILED - ${check.errorMessage ?? ""}`);
          }
        }
      }
      if (isPassing) {
        passed.push(label);
        const shape = SHAPE_ONLY[scenario];
        if (shape !== undefined) notes.push(`${label}: passes without its fixture (${shape})`);
      }
    }
  }
  if (!runs.includes(REQUIRED_RUN)) problems.push(`the ${REQUIRED_RUN} run is missing`);
  for (const run of runs) {
    const ran = new Set(await listDirs(`${resultsDir}/${run}`));
    for (const scenario of REQUIRED) {
      const label = `${scenario} (${run})`;
      if (!ran.has(scenario)) problems.push(`${label}: required but not run`);
      else if (!passed.includes(label)) problems.push(`${label}: required but not passing`);
    }
    for (const scenario of expected.keys()) {
      if (!ran.has(scenario)) {
        problems.push(`${scenario} (${run}): listed as an expected failure but not run`);
      }
    }
  }
  console.log(`Runs: ${runs.join(", ")}`);
  const section = (title: string, lines: string[]) =>
    console.log(`${title} (${lines.length}):${lines.map((line) => `\n  ${line}`).join("")}`);
  section("Passed", passed);
  section("Expected failures (fixtures of the SDK example server)", expectedFailed);
  section("Warnings", warnings);
  section("Notes", notes);
  if (problems.length > 0) {
    section("PROBLEMS", problems);
    return 1;
  }
  console.log("Conformance: OK");
  return 0;
}

if (import.meta.main) {
  const [resultsDir, expectedFile] = Deno.args;
  if (resultsDir === undefined || expectedFile === undefined) {
    console.error("usage: conformance_report.ts RESULTS_DIR EXPECTED_FAILURES_YML");
    Deno.exit(2);
  }
  Deno.exit(await main(resultsDir, expectedFile));
}
