import assert from "node:assert/strict";
import {
  DEFAULT_SCRIPT_TIMEOUT_MS,
  isReservedEnvName,
  MAX_SCRIPT_TIMEOUT_MS,
  parseDeclaration,
} from "../../src/scripts/declaration.ts";

const entry = (extra: Record<string, unknown> = {}) => ({
  script: "scripts/report.py",
  interpreter: "python3",
  ...extra,
});
const block = (run: unknown[], extra: Record<string, unknown> = {}) => ({
  "mcp-host": { version: 1, run, ...extra },
});

Deno.test("parseDeclaration() is null without an mcp-host key", () => {
  const parsed = parseDeclaration({ name: "a", description: "b" });
  assert.equal(parsed.declaration, null);
  assert.deepEqual(parsed.findings, []);
});

Deno.test("parseDeclaration() accepts the security-first anchor's block unchanged", () => {
  const parsed = parseDeclaration({
    "mcp-host": {
      version: 1,
      run: [{
        script: "scripts/report.js",
        interpreter: "node",
        env: ["WEATHER_API_KEY"],
        timeout: 30,
      }],
      env: [{ name: "WEATHER_API_KEY", secret: true, description: "key" }],
      egress: ["api.example.com"],
      state: { kind: "kv" },
    },
  });
  assert.deepEqual(parsed.findings, []);
  assert.deepEqual(parsed.declaration, {
    run: [{
      script: "scripts/report.js",
      interpreter: "node",
      env: ["WEATHER_API_KEY"],
      timeoutMs: 30_000,
    }],
    declaredEgress: ["api.example.com"],
    envProposals: ["WEATHER_API_KEY"],
    hasState: true,
  });
});

Deno.test("parseDeclaration() defaults the timeout to 60 s and clamps it to 300 s", () => {
  const parsed = parseDeclaration(block([
    entry(),
    entry({ script: "scripts/slow.py", timeout: 9_999 }),
    entry({ script: "scripts/quick.py", timeout: 0.5 }),
  ]));
  const timeouts = parsed.declaration?.run.map((script) => script.timeoutMs);
  assert.deepEqual(timeouts, [DEFAULT_SCRIPT_TIMEOUT_MS, MAX_SCRIPT_TIMEOUT_MS, 500]);
  assert.equal(parsed.findings.length, 1);
  assert.equal(parsed.findings[0]?.severity, "warning");
  assert.match(parsed.findings[0]?.detail ?? "", /clamped to 300 s/);
});

Deno.test("parseDeclaration() ignores a block with another version, costing every script", () => {
  for (const version of [2, "1", undefined, 1.5]) {
    const parsed = parseDeclaration({ "mcp-host": { version, run: [entry()] } });
    assert.deepEqual(parsed.declaration?.run, [], `version ${version}`);
    assert.equal(parsed.findings[0]?.severity, "error");
  }
  const notMapping = parseDeclaration({ "mcp-host": ["run"] });
  assert.deepEqual(notMapping.declaration?.run, []);
  assert.equal(notMapping.findings[0]?.severity, "error");
});

Deno.test("parseDeclaration() refuses one bad entry and keeps the others", () => {
  const cases: [string, unknown][] = [
    ["not a mapping", "scripts/a.py"],
    ["unknown key", entry({ script: "scripts/b.py", shell: true })],
    ["no script", { interpreter: "python3" }],
    ["path with ..", entry({ script: "../outside.py" })],
    ["absolute path", entry({ script: "/usr/bin/env" })],
    ["backslash", entry({ script: "scripts\\c.py" })],
    ["unknown interpreter", entry({ script: "scripts/d.rb", interpreter: "ruby" })],
    ["interpreter guessed", entry({ script: "scripts/e.py", interpreter: undefined })],
    ["env not a list", entry({ script: "scripts/f.py", env: "KEY" })],
    ["env not an identifier", entry({ script: "scripts/g.py", env: ["A-B"] })],
    ["reserved env", entry({ script: "scripts/h.py", env: ["OK", "LD_PRELOAD"] })],
    ["reserved prefix", entry({ script: "scripts/i.py", env: ["DYLD_INSERT_LIBRARIES"] })],
    ["own settings", entry({ script: "scripts/j.py", env: ["SKILLGATE_HTTP_TOKEN"] })],
    ["confirm secret", entry({ script: "scripts/k.py", env: ["MCP_CONFIRM_SECRET"] })],
    ["prototype key", entry({ script: "scripts/p.py", env: ["__proto__"] })],
    ["negative timeout", entry({ script: "scripts/l.py", timeout: -1 })],
    ["text timeout", entry({ script: "scripts/m.py", timeout: "30" })],
    ["declared twice", entry()],
  ];
  const parsed = parseDeclaration(block([entry(), ...cases.map(([, value]) => value)]));
  assert.deepEqual(parsed.declaration?.run.map((script) => script.script), ["scripts/report.py"]);
  const errors = parsed.findings.filter((finding) => finding.severity === "error");
  assert.equal(errors.length, cases.length);
  assert.match(
    errors.find((error) => error.detail.includes("__proto__"))?.detail ?? "",
    /reserved environment name "__proto__"/,
    "an env name that no record of values could carry is refused, not dropped",
  );
  for (const [index, [label]] of cases.entries()) {
    assert.match(errors[index]?.detail ?? "", new RegExp(`run\\[${index + 1}\\]`), label);
    const consequence = label === "declared twice"
      ? /this entry is ignored/
      : /that script cannot run/;
    assert.match(errors[index]?.detail ?? "", consequence, label);
  }
});

Deno.test("parseDeclaration() warns about unknown block keys and bad proposals without refusing", () => {
  const parsed = parseDeclaration(block([entry({ env: ["A", "A", "B"] })], {
    network: "none",
    egress: ["api.example.com", "not a host", 7],
    env: ["PROPOSED", { name: "ALSO" }, { secret: true }],
  }));
  assert.deepEqual(parsed.declaration?.run[0]?.env, ["A", "B"]);
  assert.deepEqual(parsed.declaration?.declaredEgress, ["api.example.com"]);
  assert.deepEqual(parsed.declaration?.envProposals, ["PROPOSED", "ALSO"]);
  assert.ok(parsed.findings.every((finding) => finding.severity === "warning"));
  assert.equal(parsed.findings.length, 4);
});

Deno.test("isReservedEnvName() covers the anchor's list and every LD_/DYLD_ name", () => {
  for (
    const name of [
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
      "LD_AUDIT",
      "LD_BIND_NOW",
      "DYLD_LIBRARY_PATH",
    ]
  ) assert.ok(isReservedEnvName(name), name);
  for (const name of ["WEATHER_API_KEY", "ld_preload", "OLD_PRELOAD", "PATH"]) {
    assert.ok(!isReservedEnvName(name), name);
  }
});

Deno.test("parseDeclaration() says a second entry for one script is ignored, not that the script cannot run", () => {
  const parsed = parseDeclaration(block([entry(), entry({ interpreter: "bash" })]));
  assert.deepEqual(parsed.declaration?.run.map((declared) => declared.interpreter), ["python3"]);
  assert.equal(parsed.findings.length, 1);
  const detail = parsed.findings[0]?.detail ?? "";
  assert.match(detail, /"mcp-host\.run\[1\]" declares "scripts\/report\.py" a second time/);
  assert.match(detail, /this entry is ignored \(the first one declaring it stands\)/);
  assert.doesNotMatch(detail, /cannot run/);
});

Deno.test("parseDeclaration() names every reason one entry is refused at once, so an author fixes them in one round", () => {
  const { declaration, findings } = parseDeclaration({
    "mcp-host": {
      version: 1,
      run: [{
        script: "scripts/x.sh",
        interpreter: "sh",
        env: ["LD_PRELOAD", "MY_KEY", "SKILLGATE_HTTP_TOKEN", "bad-name"],
        timeout: 9999,
      }],
    },
  });
  assert.deepEqual(declaration?.run, []);
  const refusal = findings.find((finding) => finding.severity === "error")?.detail ?? "";
  assert.match(refusal, /not an identifier: "bad-name"/);
  assert.match(refusal, /reserved environment names "LD_PRELOAD", "SKILLGATE_HTTP_TOKEN"/);
  assert.equal(findings.filter((finding) => finding.severity === "error").length, 1);
  assert.ok(findings.some((finding) => /clamped to 300 s/.test(finding.detail)));
});
