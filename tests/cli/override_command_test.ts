/** `skillgate override`: its switches, the atomic write, and what it refuses. */

import assert from "node:assert/strict";
import {
  parseOverrideArgs,
  runOverrideCommand,
  splitOverrideArgs,
} from "../../src/cli/override_command.ts";
import type { CommandIo } from "../../src/cli/command_io.ts";
import { UsageError } from "../../src/config/cli.ts";
import { ConfigFileError } from "../../src/config/file/json_document.ts";
import { configuredSkillNames } from "../../src/cli/configured_skill_names.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

function io(): CommandIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    writeOut: (text) => Promise.resolve(void out.push(text)),
    writeErr: (text) => Promise.resolve(void err.push(text)),
    isTerminal: false,
    columns: 100,
    cwd: "/",
    getEnv: () => undefined,
  };
}

/** Where the override command writes: `runOverrideCommand`'s location. */
type Location = NonNullable<Parameters<typeof runOverrideCommand>[1]>;

/**
 * Runs `body` with a location whose config.json and overrides.json are in a fresh temporary
 * folder `dir` (in its sub-folder `sub` when given, not made), and removes `dir` after.
 */
async function withLocation(
  body: (location: Location, dir: string) => Promise<void>,
  sub?: string,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-override-" });
  try {
    const at = sub === undefined ? dir : `${dir}/${sub}`;
    await body({
      path: `${at}/config.json`,
      overridesPath: `${at}/overrides.json`,
      isExplicit: false,
    }, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("parseOverrideArgs() reads one name and the switches; splitOverrideArgs() keeps --config apart", () => {
  assert.deepEqual(parseOverrideArgs(["pdf", "--disable", "--no-prompt"]), {
    name: "pdf",
    changes: [["enabled", false], ["userInvocable", false]],
  });
  assert.deepEqual(parseOverrideArgs([]), { name: null, changes: [] });
  assert.throws(() => parseOverrideArgs(["pdf", "--hide"]), UsageError);
  assert.throws(() => parseOverrideArgs(["a", "b", "--disable"]), UsageError);
  assert.throws(() => parseOverrideArgs(["--disable"]), UsageError);
  assert.throws(() => parseOverrideArgs(["../x", "--disable"]), UsageError);
  assert.deepEqual(splitOverrideArgs(["pdf", "--config", "/c.json", "--disable", "--no-config"]), {
    configArgs: ["--config", "/c.json", "--no-config"],
    own: ["pdf", "--disable"],
  });
});

Deno.test("runOverrideCommand() writes overrides.json whole, by rename, and --enable removes the switch", async () => {
  await withLocation(async (location, dir) => {
    const run = (args: string[]) => runOverrideCommand(parseOverrideArgs(args), location, io());
    assert.equal(await run(["pdf", "--disable", "--hide-from-model"]), 0);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(location.overridesPath)), {
      skills: { pdf: { enabled: false, modelInvocable: false } },
    });
    assert.equal(await run(["pdf", "--enable", "--show-to-model", "--no-prompt"]), 0);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(location.overridesPath)), {
      skills: { pdf: { userInvocable: false } },
    });
    const left = [...Deno.readDirSync(`${dir}/sg`)].map((entry) => entry.name);
    assert.deepEqual(left, ["overrides.json"], "no temporary file is left behind");
    const shown = io();
    assert.equal(await runOverrideCommand(parseOverrideArgs(["pdf"]), location, shown), 0);
    assert.deepEqual(JSON.parse(shown.out.join("")), { pdf: { userInvocable: false } });
  }, "sg");
});

Deno.test("runOverrideCommand() never overwrites a broken overrides.json, and refuses under --no-config", async () => {
  await withLocation(async (location) => {
    await Deno.writeTextFile(location.overridesPath, '{ "skills": { "pdf": [ } }');
    await assert.rejects(
      runOverrideCommand(parseOverrideArgs(["pdf", "--disable"]), location, io()),
      ConfigFileError,
    );
    assert.equal(await Deno.readTextFile(location.overridesPath), '{ "skills": { "pdf": [ } }');
    const quiet = io();
    assert.equal(await runOverrideCommand(parseOverrideArgs(["pdf", "--disable"]), null, quiet), 2);
    assert.match(quiet.err.join(""), /--no-config/);
  });
});

Deno.test("attack: skill names that are Object.prototype members ('constructor', 'toString') are names to skillgate override, not switches", () => {
  for (const name of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
    assert.deepEqual(parseOverrideArgs([name, "--disable"]), {
      name,
      changes: [["enabled", false]],
    });
  }
  // Before, "color-palette toString" crashed with an internal error.
  assert.throws(() => parseOverrideArgs(["color-palette", "toString"]), UsageError);
});

Deno.test("attack: skillgate override __proto__ is refused (it would name the prototype, and the entry be lost)", () => {
  assert.throws(() => parseOverrideArgs(["__proto__", "--disable"]), UsageError);
});

Deno.test("attack: skillgate override writes and prints Object.prototype member names ('constructor', 'toString', 'valueOf', 'hasOwnProperty') as skills, never as inherited members", async () => {
  await withLocation(async (location) => {
    const names = ["constructor", "toString", "valueOf", "hasOwnProperty"];
    // Before, printing "valueOf" with no overrides.json answered {} (the inherited function).
    for (const name of names) {
      const shown = io();
      assert.equal(await runOverrideCommand(parseOverrideArgs([name]), location, shown), 0);
      assert.equal(shown.out.join(""), `${JSON.stringify({ [name]: {} }, null, 2)}\n`);
    }
    // A file whose setByView holds another skill: "constructor" was read from Object.prototype
    // there, and `.filter` crashed on it ("byView[name].filter is not a function").
    await Deno.writeTextFile(
      location.overridesPath,
      JSON.stringify({ skills: { pdf: { enabled: false } }, setByView: { pdf: ["enabled"] } }),
    );
    for (const name of names) {
      const out = io();
      const run = (args: string[]) => runOverrideCommand(parseOverrideArgs(args), location, out);
      assert.equal(await run([name, "--disable"]), 0);
      assert.equal(await run([name, "--hide-from-model"]), 0);
      assert.match(out.out.join(""), new RegExp(`^${name}: disabled, hidden from the model`, "m"));
    }
    const written = JSON.parse(await Deno.readTextFile(location.overridesPath));
    assert.deepEqual(written.skills, {
      constructor: { enabled: false, modelInvocable: false },
      hasOwnProperty: { enabled: false, modelInvocable: false },
      pdf: { enabled: false },
      toString: { enabled: false, modelInvocable: false },
      valueOf: { enabled: false, modelInvocable: false },
    });
    assert.deepEqual(written.setByView, { pdf: ["enabled"] }, "another skill's ledger is kept");
    for (const name of names) {
      const shown = io();
      assert.equal(await runOverrideCommand(parseOverrideArgs([name]), location, shown), 0);
      assert.deepEqual(JSON.parse(shown.out.join("")), {
        [name]: { enabled: false, modelInvocable: false },
      });
    }
  });
});

Deno.test("parseOverrideArgs() refuses two switches that contradict each other, naming both", () => {
  const pairs = [
    ["--enable", "--disable"],
    ["--disable", "--enable"],
    ["--hide-from-model", "--show-to-model"],
    ["--prompt", "--no-prompt"],
  ];
  for (const [first, second] of pairs) {
    assert.throws(
      () => parseOverrideArgs(["pdf", first!, second!]),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message.includes(first!) && error.message.includes(second!),
    );
  }
  // A repeat is no contradiction.
  assert.deepEqual(parseOverrideArgs(["pdf", "--disable", "--disable"]).changes, [
    ["enabled", false],
    ["enabled", false],
  ]);
});

Deno.test("runOverrideCommand() writes a name no configured root holds and says so in one stderr line; a served name and no configured root get none", async () => {
  await using tree = await makeTree({
    "skills/pdf/SKILL.md": skillMd("pdf"),
    "cfg": { dir: true },
  });
  const location = {
    path: tree.at("cfg/config.json"),
    overridesPath: tree.at("cfg/overrides.json"),
    isExplicit: false,
  };
  const run = async (name: string, env: Record<string, string>) => {
    const at = { ...io(), getEnv: (variable: string) => env[variable] };
    const servedNames = () => configuredSkillNames(["--no-config"], at);
    assert.equal(
      await runOverrideCommand(parseOverrideArgs([name, "--disable"]), location, at, {
        servedNames,
      }),
      0,
    );
    return at;
  };
  const typo = await run("pfd", { SKILLS_DIR: tree.at("skills") });
  assert.match(typo.out.join(""), /^pfd: disabled/);
  assert.deepEqual(typo.err, [
    `skillgate: no skill named "pfd" is under the configured roots now ("${
      tree.at("skills")
    }"); the override is written and applies if one appears (names are exact: skillgate list ` +
    "shows them)\n",
  ]);
  assert.deepEqual((await run("pdf", { SKILLS_DIR: tree.at("skills") })).err, []);
  assert.deepEqual((await run("other", {})).err, [], "no configured root: nothing to say");
  const written = JSON.parse(await Deno.readTextFile(location.overridesPath));
  assert.deepEqual(Object.keys(written.skills), ["other", "pdf", "pfd"]);
});
