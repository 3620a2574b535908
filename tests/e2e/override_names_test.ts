/**
 * `skillgate override` through the real program: names that are
 * `Object.prototype` members, contradictory switches, and a name no
 * configured root holds (review s15, M1 and L7).
 */

import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

Deno.test("attack: skillgate override constructor --disable writes the row (it crashed), and list then leaves constructor out", async () => {
  await using tree = await makeTree({
    "skills/constructor/SKILL.md": skillMd("constructor"),
    "skills/tostring/SKILL.md": skillMd("tostring"),
    "xdg": { dir: true },
  });
  const env = { XDG_CONFIG_HOME: tree.at("xdg") };
  for (const args of [["constructor", "--disable"], ["constructor", "--hide-from-model"]]) {
    const run = await runProgram(["override", ...args], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /internal error/);
  }
  const proto = await runProgram(["override", "__proto__", "--disable"], { env });
  assert.equal(proto.code, 2, "__proto__ would name the prototype, not an entry: refused");
  assert.match(proto.stderr, /"__proto__" cannot be a skill's name/);
  const shown = await runProgram(["override", "valueOf"], { env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.deepEqual(JSON.parse(shown.stdout), { valueOf: {} }, "not {} (the inherited function)");
  const listed = await runProgram(["list", tree.at("skills"), "--json"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const answer = JSON.parse(listed.stdout) as { skills: { name: string }[] };
  assert.deepEqual(answer.skills.map((skill) => skill.name), ["tostring"]);
});

Deno.test("skillgate override refuses --enable --disable with a usage error naming both, and writes nothing", async () => {
  await using tree = await makeTree({ "xdg": { dir: true } });
  const env = { XDG_CONFIG_HOME: tree.at("xdg") };
  const run = await runProgram(["override", "pdf", "--enable", "--disable"], { env });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--enable and --disable contradict each other; give one of them/);
  assert.deepEqual([...Deno.readDirSync(tree.at("xdg"))], [], "no overrides.json is written");
});

Deno.test("skillgate override for a name no configured root holds writes it and says so on stderr, once", async () => {
  await using tree = await makeTree({
    "skills/pdf/SKILL.md": skillMd("pdf"),
    "xdg/skillgate/config.json": JSON.stringify({ roots: ["../../skills"] }),
  });
  const env = { XDG_CONFIG_HOME: tree.at("xdg") };
  const typo = await runProgram(["override", "pfd", "--disable"], { env });
  assert.equal(typo.code, 0, typo.stderr);
  assert.match(typo.stdout, /^pfd: disabled/);
  const lines = typo.stderr.trim().split("\n");
  assert.equal(lines.length, 1, typo.stderr);
  assert.match(lines[0]!, /^skillgate: no skill named "pfd" is under the configured roots now/);
  assert.ok(lines[0]!.includes(JSON.stringify(tree.at("skills"))), typo.stderr);
  const written = JSON.parse(await Deno.readTextFile(tree.at("xdg/skillgate/overrides.json")));
  assert.deepEqual(written.skills.pfd, { enabled: false }, "pre-configuring a skill still works");
  const served = await runProgram(["override", "pdf", "--disable"], { env });
  assert.equal(served.code, 0, served.stderr);
  assert.equal(served.stderr, "", "a served name gets no note");
});
