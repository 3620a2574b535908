/** The start-up banner a person sees at a terminal, and its absence on pipes. */

import assert from "node:assert/strict";
import { bannerText } from "../../src/cli/banner.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { VERSION } from "../../src/version.ts";
import { programCommand, programEnv, REPO_ROOT, runProgram } from "../support/program.ts";
import { shellCommand } from "../../src/cli/shell_quote.ts";

Deno.test("bannerText() shows version, roots, skill count, problems and how to add a client", () => {
  const config = parseCommandLine({
    args: ["serve", "/s/one", "/s/two"],
    getEnv: () => undefined,
    cwd: "/",
  });
  const text = bannerText(config, {
    type: "ready",
    skillCount: 7,
    errorCount: 1,
    warningCount: 2,
    problemLines: ["error duplicate-name: /s/one/a: also in /s/two/a"],
  }, ["skillgate", "serve"]);
  assert.match(text, new RegExp(`skillgate ${VERSION.replaceAll(".", "\\.")}: serving 7 skills`));
  assert.match(text, /\/s\/one \(argument\)/);
  assert.match(text, /1 error, 2 warnings/);
  assert.match(text, /duplicate-name/);
  assert.match(text, /claude mcp add skills -- skillgate serve \/s\/one \/s\/two/);
});

Deno.test("bannerText() quotes a launcher path and a root holding a space for the shell", () => {
  const config = parseCommandLine({
    args: ["serve", "/s/my skills"],
    getEnv: () => undefined,
    cwd: "/",
  });
  const text = bannerText(config, {
    type: "ready",
    skillCount: 1,
    errorCount: 0,
    warningCount: 0,
    problemLines: [],
  }, ["/opt/it's here/skillgate", "serve"]);
  assert.match(
    text,
    /claude mcp add skills -- '\/opt\/it'\\''s here\/skillgate' serve '\/s\/my skills'\n/,
  );
});

Deno.test("a client start (stdin a pipe) prints one summary line to stderr and no banner", async () => {
  const { code, stdout, stderr } = await runProgram(["serve", "examples/skills"], { stdin: "" });
  assert.equal(code, 0);
  assert.equal(stdout, "");
  const lines = stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, stderr);
  assert.match(
    lines[0]!,
    /^skillgate \S+: serving 2 skills over stdio from \/\S+\/examples\/skills \(argument\); problems: 0 errors, 0 warnings$/,
  );
  assert.doesNotMatch(stderr, /claude mcp add/);
});

Deno.test("bannerText() says 1 skill and 1 warning in the singular (newcomer review)", () => {
  const config = parseCommandLine({ args: ["serve", "/s/one"], getEnv: () => undefined, cwd: "/" });
  const text = bannerText(config, {
    type: "ready",
    skillCount: 1,
    errorCount: 0,
    warningCount: 1,
    problemLines: ["warning file-not-served: /s/one/a/x: not served"],
  }, ["skillgate", "serve"]);
  assert.match(text, /: serving 1 skill over stdio\n/);
  assert.match(text, /Problems \(0 errors, 1 warning\):/);
});

Deno.test("bannerText()'s claude mcp add line keeps the options the server was started with", () => {
  const config = parseCommandLine({
    args: [
      "serve",
      "/s/my skills",
      "--static",
      "--max-file-bytes",
      "2097152",
      "--tools=never",
      "--http-token-file=tok",
    ],
    getEnv: () => undefined,
    cwd: "/home/me",
  });
  const text = bannerText(config, {
    type: "ready",
    skillCount: 1,
    errorCount: 0,
    warningCount: 0,
    problemLines: [],
  }, ["skillgate", "serve"]);
  assert.match(
    text,
    /claude mcp add skills -- skillgate serve '\/s\/my skills' --static --max-file-bytes=2097152 --tools=never --http-token-file=\/home\/me\/tok\n/,
  );
});

Deno.test("bannerText() adds no option a variable set (only the command line's own)", () => {
  const config = parseCommandLine({
    args: ["serve", "/s/one"],
    getEnv: (name) => name === "SKILLGATE_STATIC" ? "1" : undefined,
    cwd: "/",
  });
  const text = bannerText(config, {
    type: "ready",
    skillCount: 1,
    errorCount: 0,
    warningCount: 0,
    problemLines: [],
  }, ["skillgate", "serve"]);
  assert.match(text, /claude mcp add skills -- skillgate serve \/s\/one\n/);
});

Deno.test("bannerText()'s claude mcp add line makes a --root-prefix path absolute like the root", () => {
  const config = parseCommandLine({
    args: ["serve", "./skills", "--root-prefix=team=./skills", "--static"],
    getEnv: () => undefined,
    cwd: "/tmp/b",
  });
  const text = bannerText(config, {
    type: "ready",
    skillCount: 0,
    errorCount: 0,
    warningCount: 0,
    problemLines: [],
  }, ["skillgate", "serve"]);
  assert.match(
    text,
    /claude mcp add skills -- skillgate serve \/tmp\/b\/skills --root-prefix=team=\/tmp\/b\/skills --static\n/,
  );
  // The line parses back, from another directory, to the same roots and prefixes.
  const words = ["serve", "/tmp/b/skills", "--root-prefix=team=/tmp/b/skills", "--static"];
  const again = parseCommandLine({ args: words, getEnv: () => undefined, cwd: "/" });
  assert.deepEqual(again.roots, config.roots);
});

Deno.test("bannerText() states a cut problem list: the lines shown, then how many more and where to see them", () => {
  const config = parseCommandLine({ args: ["serve", "/s/one"], getEnv: () => undefined, cwd: "/" });
  const problemLines = Array.from({ length: 10 }, (_, n) => `/s/one/e${n}: error x: bad`);
  const text = bannerText(config, {
    type: "ready",
    skillCount: 1,
    errorCount: 10,
    warningCount: 4,
    problemLines,
  }, ["skillgate", "serve"]);
  assert.match(
    text,
    /Problems \(10 errors, 4 warnings\):\n( {2}\/s\/one\/e\d: error x: bad\n){10} {2}\.\.\. and 4 more problems \(skillgate list shows them all\)\n/,
  );
  const whole = bannerText(config, {
    type: "ready",
    skillCount: 1,
    errorCount: 1,
    warningCount: 0,
    problemLines: ["/s/one/e: error x: bad"],
  }, ["skillgate", "serve"]);
  assert.doesNotMatch(whole, /more problem/);
});

/** `script` (util-linux) gives the program a terminal on stdin, as a person's shell does. */
const hasScript = (() => {
  try {
    return Deno.statSync("/usr/bin/script").isFile;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "the banner at a terminal lists errors before warnings and states the cut (review hR M2)",
  ignore: !hasScript,
  fn: async () => {
    // broken-skills: 12 errors and 7 warnings; in path order warnings ("Bad_Rule/...") came first
    // and the list stopped at 10 without a word, hiding errors (skills not served).
    const words = [Deno.execPath(), ...programCommand(["serve", "tests/fixtures/broken-skills"])];
    const output = await new Deno.Command("/usr/bin/script", {
      args: ["-qec", shellCommand(words), "/dev/null"],
      cwd: REPO_ROOT,
      clearEnv: true,
      env: programEnv(),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout).replaceAll("\r", "");
    const header = text.match(/Problems \((\d+) errors, (\d+) warnings\):\n/);
    assert.ok(header !== null, text);
    const total = Number(header[1]) + Number(header[2]);
    assert.ok(Number(header[1]) >= 10 && total > 10, text);
    const lines = text.slice(header.index! + header[0].length).split("\n");
    const shown = lines.slice(0, 10);
    for (const line of shown) assert.match(line, /^ {2}\/\S.*: error [a-z-]+: /, text);
    assert.equal(
      lines[10],
      `  ... and ${total - 10} more problems (skillgate list shows them all)`,
      text,
    );
  },
});
