import assert from "node:assert/strict";
import { parseGrant } from "../../src/scripts/grant.ts";

Deno.test("parseGrant() without a value: hosted grants nothing, standalone lets declarations stand", () => {
  const hosted = parseGrant(null, { hosted: true, hostedBy: "MCP_DATA_DIR" });
  assert.equal(hosted.from, "hosted-default");
  assert.deepEqual(hosted.rows, []);
  assert.match(hosted.note ?? "", /MCP_DATA_DIR/);
  const standalone = parseGrant(null, { hosted: false });
  assert.equal(standalone.from, "declaration");
  assert.equal(standalone.rows, null);
  // Set but blank is not "without a value": it grants nothing (see tests/config/placeholder_test.ts).
  const blank = parseGrant("  ", { hosted: false });
  assert.equal(blank.from, "blank");
  assert.deepEqual(blank.rows, []);
});

Deno.test("parseGrant() reads rows of skill, script and env", () => {
  const grant = parseGrant(
    '[{"skill":"weather","script":"scripts/a.js","env":["K","K"]},{"skill":"x","script":"s.sh"}]',
    { hosted: true },
  );
  assert.equal(grant.from, "MCP_SKILL_RUN");
  assert.deepEqual(grant.rows, [
    { skill: "weather", script: "scripts/a.js", env: ["K"], read: [], write: [], network: false },
    { skill: "x", script: "s.sh", env: [], read: [], write: [], network: false },
  ]);
  assert.deepEqual(grant.refusedRows, []);
});

Deno.test("parseGrant() grants nothing for a value that is not a JSON list", () => {
  for (const value of ["{not json", '{"skill":"a","script":"b"}', "42", "null"]) {
    const grant = parseGrant(value, { hosted: false });
    assert.deepEqual(grant.rows, [], value);
    assert.ok(grant.error !== undefined, value);
  }
});

Deno.test("parseGrant() refuses each malformed row on its own", () => {
  const grant = parseGrant(
    JSON.stringify([
      { skill: "a", script: "s.py" },
      { skill: "a" },
      { script: "s.py" },
      { skill: "a", script: "s.py", env: "K" },
      { skill: "a", script: "s.py", env: [1] },
      { skill: "a", script: "s.py", interpreter: "bash" },
      "a/s.py",
      null,
      { skill: "a", script: "s.py", read: "/srv" },
      { skill: "a", script: "s.py", write: ["relative/folder"] },
      { skill: "a", script: "s.py", network: "yes" },
    ]),
    { hosted: false },
  );
  assert.deepEqual(grant.rows, [
    { skill: "a", script: "s.py", env: [], read: [], write: [], network: false },
  ]);
  assert.deepEqual(grant.refusedRows.map((row) => row.index), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

Deno.test("parseGrant() reads the sandbox keys read, write and network", () => {
  const grant = parseGrant(
    JSON.stringify([{
      skill: "a",
      script: "s.py",
      read: ["/srv/data", "/srv/data"],
      write: ["/srv/out"],
      network: true,
    }]),
    { hosted: true },
  );
  assert.deepEqual(grant.rows, [
    {
      skill: "a",
      script: "s.py",
      env: [],
      read: ["/srv/data"],
      write: ["/srv/out"],
      network: true,
    },
  ]);
});
