import assert from "node:assert/strict";
import { type DeclaredScript, INTERPRETER_NAMES } from "../../src/scripts/declaration.ts";
import { parseGrant } from "../../src/scripts/grant.ts";
import { lookUpInterpreters } from "../../src/scripts/interpreters.ts";
import {
  envToCapture,
  planScripts,
  type PlanSkill,
  programsToPermit,
  type ScriptHost,
} from "../../src/scripts/plan.ts";
import { seededRandom } from "../support/seeded_random.ts";

const INTERPRETERS = lookUpInterpreters("/usr/bin", {
  isExecutable: (path) => path !== "/usr/bin/deno",
});

function host(overrides: Partial<ScriptHost> = {}): ScriptHost {
  return {
    interpreters: INTERPRETERS,
    permittedPrograms: null,
    capturedEnv: null,
    environ: { scrubbed: true, method: "proc-self-mem", note: "overwritten" },
    hosted: false,
    allowUnscrubbed: false,
    confirmMode: "ask-user",
    ...overrides,
  };
}

function skill(name: string, run: DeclaredScript[], missing: string[] = []): PlanSkill {
  const usable = run.filter((script) => !missing.includes(script.script));
  return {
    name,
    scripts: {
      declaration: { run, declaredEgress: [], envProposals: [], hasState: false },
      scripts: usable,
      realPaths: Object.fromEntries(usable.map((s) => [s.script, `/real/${name}/${s.script}`])),
    },
  };
}

const script = (path: string, env: string[] = [], interpreter = "python3"): DeclaredScript => ({
  script: path,
  interpreter: interpreter as DeclaredScript["interpreter"],
  env,
  timeoutMs: 60_000,
});

const WEATHER = skill("weather", [
  script("scripts/forecast.py", ["WEATHER_API_KEY", "EXTRA"]),
  script("scripts/geocode.sh", [], "bash"),
]);

Deno.test("planScripts() standalone without a grant lets the declaration stand and warns", () => {
  const plan = planScripts([WEATHER], parseGrant(null, { hosted: false }), host());
  const [forecast, geocode] = plan.bySkill.get("weather") ?? [];
  assert.equal(forecast?.state, "runnable");
  assert.deepEqual(forecast?.grantedEnv, ["WEATHER_API_KEY", "EXTRA"]);
  assert.match(forecast?.envWarning ?? "", /WEATHER_API_KEY, EXTRA from your environment/);
  assert.equal(geocode?.state, "runnable");
  assert.equal(geocode?.envWarning, undefined);
  assert.equal(plan.grant.from, "declaration");
});

Deno.test("planScripts() hosted without a grant runs nothing", () => {
  const plan = planScripts([WEATHER], parseGrant(null, { hosted: true }), host({ hosted: true }));
  assert.ok(plan.bySkill.get("weather")?.every((planned) => planned.state === "ungranted"));
  assert.equal(plan.grant.from, "hosted-default");
});

Deno.test("planScripts() narrows to the granted rows and their env names", () => {
  const grant = parseGrant(
    JSON.stringify([{ skill: "weather", script: "scripts/forecast.py", env: ["WEATHER_API_KEY"] }]),
    { hosted: true },
  );
  const plan = planScripts([WEATHER], grant, host({ hosted: true }));
  const [forecast, geocode] = plan.bySkill.get("weather") ?? [];
  assert.equal(forecast?.state, "runnable");
  assert.deepEqual(forecast?.grantedEnv, ["WEATHER_API_KEY"]);
  assert.equal(forecast?.envWarning, undefined);
  assert.equal(geocode?.state, "ungranted");
  assert.deepEqual(plan.problems, []);
});

Deno.test("planScripts() refuses rows naming a missing skill, an undeclared script or env name", () => {
  const grant = parseGrant(
    JSON.stringify([
      { skill: "nope", script: "scripts/forecast.py" },
      { skill: "weather", script: "scripts/evil.py" },
      { skill: "weather", script: "scripts/forecast.py", env: ["WEATHER_API_KEY", "AWS_SECRET"] },
      { skill: "weather", script: "scripts/geocode.sh" },
      { skill: "weather", script: "scripts/geocode.sh" },
      { skill: "Weather", script: "scripts/geocode.sh" },
    ]),
    { hosted: false },
  );
  const plan = planScripts([WEATHER], grant, host());
  const [forecast, geocode] = plan.bySkill.get("weather") ?? [];
  assert.equal(forecast?.state, "ungranted");
  assert.equal(geocode?.state, "runnable");
  const details = plan.problems.map((problem) => problem.detail);
  assert.equal(plan.problems.length, 5);
  assert.ok(plan.problems.every((problem) => problem.reason === "grant"));
  assert.match(details[0] ?? "", /Row 0 .* no such skill/);
  assert.match(details[1] ?? "", /Row 1 .* does not declare that script/);
  assert.match(details[2] ?? "", /Row 2 .* "AWS_SECRET"/);
  assert.match(details[3] ?? "", /Row 4 .* earlier row/);
  assert.match(details[4] ?? "", /Row 5 .* no such skill/);
});

Deno.test("planScripts() reports an unparseable grant and runs nothing", () => {
  const plan = planScripts([WEATHER], parseGrant("[{", { hosted: false }), host());
  assert.ok(plan.bySkill.get("weather")?.every((planned) => planned.state === "ungranted"));
  assert.equal(plan.problems[0]?.reason, "grant");
  assert.ok(plan.grant.error !== undefined);
});

Deno.test("planScripts() marks a missing interpreter and later additions unavailable", () => {
  const skills = [
    WEATHER,
    skill("tool", [script("bin/run.ts", [], "deno"), script("bin/go", ["TOKEN"], "exec")]),
  ];
  const grant = parseGrant(null, { hosted: false });
  const start = planScripts(skills, grant, host());
  assert.equal(start.bySkill.get("tool")?.[0]?.state, "unavailable");
  assert.match(start.bySkill.get("tool")?.[0]?.reason ?? "", /not found on PATH/);
  assert.deepEqual(programsToPermit(start).map((program) => program.path), [
    "/usr/bin/python3",
    "/usr/bin/bash",
    "/real/tool/bin/go",
  ]);
  assert.deepEqual(envToCapture(start), ["EXTRA", "TOKEN", "WEATHER_API_KEY"]);
  const later = planScripts(
    skills,
    grant,
    host({
      permittedPrograms: ["/usr/bin/python3"],
      capturedEnv: ["WEATHER_API_KEY"],
    }),
  );
  const [forecast, geocode] = later.bySkill.get("weather") ?? [];
  assert.match(forecast?.reason ?? "", /Restart needed: the environment name EXTRA was not/);
  assert.match(geocode?.reason ?? "", /Restart needed: this script's program/);
});

Deno.test("planScripts() refuses everything when hosted and the environ is not scrubbed", () => {
  const unscrubbed = { scrubbed: false, method: "none", note: "no /proc" } as const;
  const grant = parseGrant(JSON.stringify([{ skill: "weather", script: "scripts/geocode.sh" }]), {
    hosted: true,
  });
  const refused = planScripts([WEATHER], grant, host({ hosted: true, environ: unscrubbed }));
  assert.equal(refused.bySkill.get("weather")?.[1]?.state, "unavailable");
  assert.equal(refused.problems[0]?.reason, "environ-unscrubbed");
  const accepted = planScripts(
    [WEATHER],
    grant,
    host({ hosted: true, environ: unscrubbed, allowUnscrubbed: true }),
  );
  assert.equal(accepted.bySkill.get("weather")?.[1]?.state, "runnable");
  assert.deepEqual(accepted.problems, []);
  const standalone = planScripts([WEATHER], grant, host({ environ: unscrubbed }));
  assert.equal(standalone.bySkill.get("weather")?.[1]?.state, "runnable");
});

Deno.test("planScripts() runs nothing when the confirmation mode is refuse", () => {
  const plan = planScripts(
    [WEATHER],
    parseGrant(null, { hosted: false }),
    host({
      confirmMode: "refuse",
    }),
  );
  assert.ok(plan.bySkill.get("weather")?.every((planned) => planned.state === "unavailable"));
});

Deno.test("planScripts() never lets anything run that is not both declared and granted", () => {
  const random = seededRandom(0x5eed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const names = ["a", "b", "c", "d"];
  const paths = ["s/1.py", "s/2.sh", "s/3", "s/4.js"];
  const envNames = ["K1", "K2", "K3", "K4", "K5"];
  const subset = <T>(items: readonly T[]) => items.filter(() => random() < 0.4);
  let runnableSeen = 0;
  for (let round = 0; round < 3000; round++) {
    const skills = subset(names).map((name) => {
      const run = subset(paths).map((path) =>
        script(path, subset(envNames), pick(INTERPRETER_NAMES))
      );
      return skill(name, run, subset(run.map((entry) => entry.script)));
    });
    const rows = Array.from({ length: Math.floor(random() * 6) }, () => ({
      skill: pick([...names, "zz"]),
      script: pick([...paths, "s/evil"]),
      ...(random() < 0.7 ? { env: subset([...envNames, "SECRET"]) } : {}),
    }));
    const standalone = random() < 0.2;
    const grant = parseGrant(standalone ? null : JSON.stringify(rows), { hosted: !standalone });
    const plan = planScripts(skills, grant, host({ hosted: !standalone }));
    for (const [skillName, planned] of plan.bySkill) {
      const declaredSkill = skills.find((candidate) => candidate.name === skillName);
      for (const entry of planned.filter((candidate) => candidate.state === "runnable")) {
        runnableSeen++;
        const declared = declaredSkill?.scripts?.scripts.find((s) => s.script === entry.script);
        assert.ok(declared !== undefined, "runnable but not declared (or its file is missing)");
        assert.ok(
          entry.grantedEnv.every((name) => declared.env.includes(name)),
          "env not declared",
        );
        if (standalone) continue;
        const grantingRows = rows.filter((candidate) =>
          candidate.skill === skillName && candidate.script === entry.script
        );
        assert.ok(grantingRows.length > 0, "runnable but not granted");
        assert.ok(
          grantingRows.some((row) => entry.grantedEnv.every((name) => row.env?.includes(name))),
          "env not granted",
        );
      }
    }
  }
  assert.ok(runnableSeen > 100, `the generator must produce runnable scripts (${runnableSeen})`);
});

Deno.test("planScripts() gives the network only when egress is declared AND the row grants it", () => {
  const withEgress = (name: string): PlanSkill => {
    const base = skill(name, [script("scripts/fetch.sh", [], "bash")]);
    const scripts = base.scripts as NonNullable<PlanSkill["scripts"]>;
    return {
      name,
      scripts: {
        ...scripts,
        declaration: { ...scripts.declaration, declaredEgress: ["a.example"] },
      },
    };
  };
  const skills = [
    withEgress("declared"),
    skill("silent", [script("scripts/fetch.sh", [], "bash")]),
  ];
  const grant = parseGrant(
    JSON.stringify([
      { skill: "declared", script: "scripts/fetch.sh", network: true },
      { skill: "silent", script: "scripts/fetch.sh", network: true },
    ]),
    { hosted: true },
  );
  const plan = planScripts(skills, grant, host({ hosted: true }));
  assert.equal(plan.bySkill.get("declared")?.[0]?.network, true);
  assert.equal(plan.bySkill.get("silent")?.[0]?.network, false);
  assert.equal(plan.bySkill.get("silent")?.[0]?.state, "runnable");
  const warning = plan.problems.find((problem) => problem.severity === "warning");
  assert.match(
    warning?.detail ?? "",
    /Row 1 .* grants the network, but the skill declares no egress/,
  );
  const ungranted = planScripts(
    skills,
    parseGrant('[{"skill":"declared","script":"scripts/fetch.sh"}]', { hosted: true }),
    host({ hosted: true }),
  );
  assert.equal(ungranted.bySkill.get("declared")?.[0]?.network, false);
});

Deno.test("planScripts() refuses a row whose folders the start-up check refused, and mounts the rest", () => {
  const grant = parseGrant(
    JSON.stringify([
      { skill: "weather", script: "scripts/forecast.py", read: ["/"] },
      { skill: "weather", script: "scripts/geocode.sh", write: ["/data/out"] },
    ]),
    { hosted: true },
  );
  const plan = planScripts(
    [WEATHER],
    grant,
    host({
      hosted: true,
      folderVerdicts: [
        { index: 0, refused: "its read folder #0 is refused: it is /, the whole file system" },
        { index: 1, read: [], write: ["/data/out"] },
      ],
    }),
  );
  const [forecast, geocode] = plan.bySkill.get("weather") ?? [];
  assert.equal(forecast?.state, "ungranted");
  assert.match(
    plan.problems[0]?.detail ?? "",
    /Row 0 .* grants nothing: its read folder #0 is refused/,
  );
  assert.equal(geocode?.state, "runnable");
  assert.deepEqual(geocode?.write, ["/data/out"]);
  assert.deepEqual(geocode?.read, []);
});
