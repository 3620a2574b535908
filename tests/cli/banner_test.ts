/** The start-up banner a person sees at a terminal, and its absence on pipes. */

import assert from "node:assert/strict";
import { bannerText } from "../../src/cli/banner.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { VERSION } from "../../src/version.ts";
import { runProgram } from "../support/program.ts";

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
