/**
 * reviewOwnerFiles(): what a live edit of the owner's files may change.
 * Narrowing overrides and lowered caps apply; everything else is reported
 * `restart-needed`; a broken edit is `config-invalid` with its place and
 * keeps the last good state.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { parseConfigFile } from "../../../src/config/file/config_file.ts";
import { type LiveConfigState, reviewOwnerFiles } from "../../../src/config/file/live_config.ts";
import { readOwnerFile } from "../../../src/config/file/load_config.ts";
import { ConfigFileError } from "../../../src/config/file/json_document.ts";

const LOCATION = {
  path: "/c/skillgate/config.json",
  overridesPath: "/c/skillgate/overrides.json",
  isExplicit: false,
};
const START = JSON.stringify({ roots: ["/skills"], maxSkills: 100, maxCallBytes: 65536 });

function state(env: Record<string, string> = {}): LiveConfigState {
  const input = { args: [], getEnv: (name: string) => env[name], cwd: "/work" };
  const running = parseCommandLine({ ...input, file: parseConfigFile(LOCATION.path, START) });
  return { input, running, location: LOCATION, overrides: {}, caps: running.caps };
}

const edit = (changes: Record<string, unknown>) =>
  JSON.stringify({ ...JSON.parse(START), ...changes });

Deno.test("reviewOwnerFiles(): the same files change nothing", () => {
  const review = reviewOwnerFiles(state(), START, null);
  assert.deepEqual(review.problems, []);
  assert.deepEqual(review.overrides, {});
  assert.equal(review.caps.maxSkills, 100);
});

Deno.test("reviewOwnerFiles(): a lowered cap applies; a raised one is reported and not applied", () => {
  const lowered = reviewOwnerFiles(state(), edit({ maxSkills: 5, maxCallBytes: 4096 }), null);
  assert.deepEqual(lowered.problems, []);
  assert.equal(lowered.caps.maxSkills, 5);
  assert.equal(lowered.caps.maxCallBytes, 4096);
  const raised = reviewOwnerFiles(
    { ...state(), caps: lowered.caps },
    edit({ maxSkills: 50 }),
    null,
  );
  assert.equal(raised.caps.maxSkills, 5, "the lowest value stays in force");
  assert.equal(raised.problems.length, 2, "maxSkills raised from 5; maxCallBytes from 4096");
  assert.ok(
    raised.problems.every((p) => p.reason === "restart-needed" && p.path === "config.json"),
  );
  assert.match(raised.problems[0]!.detail, /^"maxSkills" changed: this widens/);
  assert.match(raised.ownerDetails[0]!, /"maxSkills" changed from 5 to 50: this widens/);
});

Deno.test("attack: a live edit cannot open a listen address, relax isolation, add origins or roots", () => {
  const review = reviewOwnerFiles(
    state(),
    edit({
      http: 8080,
      isolation: "group",
      allowedOrigins: ["https://evil.example"],
      roots: ["/skills", "/elsewhere"],
    }),
    null,
  );
  const details = review.problems.map((p) => p.detail).join("\n");
  for (const key of ["http", "isolation", "allowedOrigins"]) {
    assert.match(details, new RegExp(`"${key}" changed: this widens`));
  }
  assert.doesNotMatch(details, /evil\.example|elsewhere|8080/, "clients never see the values");
  assert.match(review.ownerDetails.join("\n"), /evil\.example/, "the owner's terminal does");
  assert.match(details, /the roots changed/);
  assert.ok(review.problems.every((p) => p.reason === "restart-needed"));
});

Deno.test("reviewOwnerFiles(): a narrowing option that only a start applies is reported as such", () => {
  const review = reviewOwnerFiles(state(), edit({ tools: "never" }), null);
  assert.equal(review.problems.length, 1);
  assert.match(
    review.problems[0]!.detail,
    /"tools" changed: this narrows, but applies only at the next start/,
  );
});

Deno.test("reviewOwnerFiles(): a flag or variable still wins over the edited file", () => {
  const review = reviewOwnerFiles(
    state({ SKILLGATE_TOOLS: "always" }),
    edit({ tools: "never" }),
    null,
  );
  assert.deepEqual(
    review.problems,
    [],
    "the variable decides tools; the file's edit changes nothing",
  );
});

Deno.test("reviewOwnerFiles(): overrides narrow at once; turning one back on waits for a restart", () => {
  const first = reviewOwnerFiles(state(), START, '{ "skills": { "pdf": { "enabled": false } } }');
  assert.deepEqual(first.overrides, { pdf: { enabled: false } });
  assert.deepEqual(first.problems, []);
  const back = reviewOwnerFiles({ ...state(), overrides: first.overrides }, START, "{}");
  assert.deepEqual(back.overrides, { pdf: { enabled: false } });
  assert.equal(back.problems[0]?.reason, "restart-needed");
  assert.equal(back.problems[0]?.path, "overrides.json");
  assert.doesNotMatch(
    back.problems[0]!.detail,
    /pdf/,
    "clients are not told a disabled skill's name",
  );
  assert.match(back.ownerDetails[0]!, /pdf\.enabled/);
});

Deno.test("reviewOwnerFiles(): a broken edit is config-invalid with its place; the last good state stays", () => {
  const current = { ...state(), overrides: { pdf: { enabled: false } } };
  const review = reviewOwnerFiles(current, '{\n  "maxSkills": "ten"\n}', '{ "skills": [ }');
  assert.deepEqual(review.overrides, { pdf: { enabled: false } });
  assert.equal(review.caps.maxSkills, 100);
  const [config, overrides] = review.problems;
  assert.deepEqual(
    { path: config?.path, reason: config?.reason, line: config?.line, column: config?.column },
    { path: "config.json", reason: "config-invalid", line: 2, column: 16 },
  );
  assert.match(
    config!.detail,
    /"maxSkills" must be a whole number .*; the last good configuration/,
  );
  assert.doesNotMatch(config!.detail, /\/c\/skillgate/, "the client sees no host path");
  assert.doesNotMatch(config!.detail, /got/, "what the owner typed stays on the owner's terminal");
  assert.match(review.ownerDetails[0]!, /got a string/);
  assert.equal(overrides?.path, "overrides.json");
  assert.equal(overrides?.reason, "config-invalid");
});

Deno.test("attack: overrides.json swapped for a FIFO is a config-invalid problem without blocking, and the next valid narrowing edit applies", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-live-" });
  try {
    const made = await new Deno.Command("mkfifo", { args: [`${dir}/overrides.json`] }).output();
    assert.ok(made.success);
    const refused = await readOwnerFile(`${dir}/overrides.json`).catch((error) => error);
    assert.ok(refused instanceof ConfigFileError);
    const first = reviewOwnerFiles(state(), START, refused);
    assert.equal(first.problems.length, 1);
    assert.equal(first.problems[0]?.reason, "config-invalid");
    assert.equal(first.problems[0]?.path, "overrides.json");
    assert.match(String(first.problems[0]?.detail), /not a regular file \(it is a FIFO\)/);
    assert.deepEqual(first.overrides, {});
    await Deno.writeTextFile(`${dir}/next.json`, '{ "skills": { "pdf": { "enabled": false } } }');
    await Deno.rename(`${dir}/next.json`, `${dir}/overrides.json`);
    const text = await readOwnerFile(`${dir}/overrides.json`);
    const second = reviewOwnerFiles({ ...state(), overrides: first.overrides }, START, text);
    assert.deepEqual(second.overrides, { pdf: { enabled: false } });
    assert.deepEqual(second.problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reviewOwnerFiles(): a broken file says what is in force: the last good configuration once a read was accepted, else that nothing is answered (serve's first read, s13 hA)", () => {
  const broken = "{ roots: [";
  const kept = reviewOwnerFiles(state(), broken, "{");
  const refused = reviewOwnerFiles(state(), broken, "{", false);
  for (const review of [kept, refused]) {
    assert.deepEqual(review.problems.map((p) => [p.path, p.reason]), [
      ["config.json", "config-invalid"],
      ["overrides.json", "config-invalid"],
    ]);
  }
  for (const text of [...kept.problems.map((p) => p.detail), ...kept.ownerDetails]) {
    assert.match(text, /; the last good configuration stays in force$/);
  }
  for (const text of [...refused.problems.map((p) => p.detail), ...refused.ownerDetails]) {
    assert.match(text, /; no request is answered until it is fixed or removed$/);
    assert.doesNotMatch(text, /stays in force/);
  }
});
