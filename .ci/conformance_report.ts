/**
 * Reads the MCP conformance suite's results (`checks.json` per scenario) and
 * decides, check by check, whether skillgate conforms. The suite's exit code
 * is not enough: a scenario whose fixture is missing can report no failure,
 * and skipped checks are not passes. Called by `.ci/conformance.sh`.
 *
 *   deno run --allow-read .ci/conformance_report.ts RESULTS_DIR EXPECTED_FAILURES_YML
 *
 * RESULTS_DIR holds `<spec>-<root>/<scenario>/.../checks.json` (a
 * `--requirements` run writes `server-<scenario>-<timestamp>/checks.json`);
 * the root `fixture` (the fixture corpus, tests/fixtures/corpus) is required
 * at every revision, the root `real-world` (the real-world corpus) is there
 * when that corpus was present. Every run is held to the same rules.
 * Expected failures are per revision (`server-<spec>` scenarios,
 * `checks-<spec>` single checks). Exit 0 when every rule holds, 1 otherwise.
 *
 * @module
 */

/** One check as the suite writes it. */
interface Check {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  readonly errorMessage?: string;
}

/** The spec revisions run, each as a `<spec>-<root>` results folder. */
const SPECS = ["2025-11-25", "2026-07-28"] as const;
type Spec = (typeof SPECS)[number];

/** The root that must be present at every revision: the fixture corpus, which every checkout has. */
const REQUIRED_ROOT = "fixture";

/** Scenarios the issues (11 and 12) require to pass on every corpus, per revision. */
const REQUIRED: Record<Spec, string[]> = {
  "2025-11-25": [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "completion-complete",
    "dns-rebinding-protection",
    "sep-2164-resource-not-found",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
  ],
  "2026-07-28": [
    "server-stateless",
    "caching",
    "tools-list",
    "resources-list",
    "prompts-list",
    "completion-complete",
    "dns-rebinding-protection",
    "sep-2164-resource-not-found",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
  ],
};

/** Checks that may be SKIPPED, and why, per revision. */
const ALLOWED_SKIPS: Record<Spec, Record<string, Record<string, string>>> = {
  "2025-11-25": {
    "sep-2640-skills-enumeration": {
      "sep-2640-skills-list-cache-attributes": "ttlMs/cacheScope belong to 2026-07-28",
      "sep-2640-skills-get-cache-attributes": "ttlMs/cacheScope belong to 2026-07-28",
    },
  },
  "2026-07-28": {
    "tasks-status-notifications": {
      "tasks-status-notifications":
        "the suite skips it itself (its harness awaits a rewrite for subscriptions/listen); " +
        "tasks extension, not declared by skillgate, not scored",
    },
  },
};

/** Checks that cannot be exercised on a given root, and where they are checked instead. */
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

/**
 * Reads the expectations file: every top-level key (`server-<spec>`,
 * `checks-<spec>`) to its entries and their reasons.
 */
function readExpectedFailures(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | null = null;
  for (const line of text.split("\n")) {
    const key = /^([A-Za-z0-9-]+):\s*(#.*)?$/.exec(line);
    if (key?.[1] !== undefined) {
      current = new Map();
      sections.set(key[1], current);
      continue;
    }
    const match = /^\s+-\s+([^\s#]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (current !== null && match?.[1] !== undefined) current.set(match[1], match[2] ?? "");
  }
  return sections;
}

/** The scenario a results folder holds: `server-<name>-<timestamp>` or `<name>`. */
function scenarioOf(dir: string): string {
  return /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1] ?? dir;
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
  const sections = readExpectedFailures(await Deno.readTextFile(expectedFile));
  const problems: string[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const passed: string[] = [];
  const expectedFailed: string[] = [];
  const ran = new Map<string, Set<string>>();
  for (const run of await listDirs(resultsDir)) {
    const spec = SPECS.find((candidate) => run.startsWith(`${candidate}-`));
    if (spec === undefined) {
      problems.push(`${run}: not a <spec>-<root> results folder`);
      continue;
    }
    const root = run.slice(spec.length + 1);
    const expected = sections.get(`server-${spec}`) ?? new Map<string, string>();
    const expectedChecks = sections.get(`checks-${spec}`) ?? new Map<string, string>();
    const seen = new Set<string>();
    ran.set(run, seen);
    for (const dir of await listDirs(`${resultsDir}/${run}`)) {
      const scenario = scenarioOf(dir);
      seen.add(scenario);
      const label = `${scenario} [${spec}, ${root}]`;
      const checks = await findChecks(`${resultsDir}/${run}/${dir}`);
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
        }
        continue;
      }
      let isPassing = true;
      for (const check of checks) {
        const notTestable = NOT_TESTABLE[root]?.[scenario]?.[check.id];
        const expectedCheck = expectedChecks.get(`${scenario}/${check.id}`);
        const isFailing = check.status === "FAILURE" || check.status === "WARNING";
        if (expectedCheck !== undefined) {
          if (isFailing) expectedFailed.push(`${label}: ${check.id} - ${expectedCheck}`);
          else problems.push(`${label}: ${check.id} listed as expected to fail but passed`);
        } else if (check.status === "WARNING") {
          warnings.push(`${label}: ${check.id} - ${check.errorMessage ?? ""}`);
        } else if (check.status === "SKIPPED") {
          const why = ALLOWED_SKIPS[spec][scenario]?.[check.id];
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
  for (const spec of SPECS) {
    if (!ran.has(`${spec}-${REQUIRED_ROOT}`)) {
      problems.push(`the ${REQUIRED_ROOT} run at ${spec} is missing`);
    }
  }
  for (const [run, scenarios] of ran) {
    const spec = SPECS.find((candidate) => run.startsWith(`${candidate}-`)) as Spec;
    const root = run.slice(spec.length + 1);
    for (const scenario of REQUIRED[spec]) {
      const label = `${scenario} [${spec}, ${root}]`;
      if (!scenarios.has(scenario)) problems.push(`${label}: required but not run`);
      else if (!passed.includes(label)) problems.push(`${label}: required but not passing`);
    }
    for (const scenario of (sections.get(`server-${spec}`) ?? new Map()).keys()) {
      if (!scenarios.has(scenario)) {
        problems.push(`${scenario} [${spec}, ${root}]: listed as an expected failure but not run`);
      }
    }
  }
  console.log(`Runs: ${[...ran.keys()].join(", ")}`);
  const section = (title: string, lines: string[]) =>
    console.log(`${title} (${lines.length}):${lines.map((line) => `\n  ${line}`).join("")}`);
  section("Passed", passed);
  section("Expected failures (need the suite's fixtures; reasons in the yml)", expectedFailed);
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
