/**
 * Newcomer (review r16): the Claude Code plugin's launcher sends a user who
 * hits its error to "the README's X section". Every such X must be a heading
 * of README.md, or the user is sent nowhere (on main: "Install" is not one).
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../support/program.ts";

Deno.test("every README section the plugin launcher's messages name exists", async () => {
  const launcher = await Deno.readTextFile(`${REPO_ROOT}plugin/bin/skillgate`);
  const headings = new Set(
    (await Deno.readTextFile(`${REPO_ROOT}README.md`)).split("\n")
      .filter((line) => /^#{1,4} /.test(line))
      .map((line) => line.replace(/^#+ /, "").trim().toLowerCase()),
  );
  const named = [...launcher.matchAll(/the README's (.+?) section/g)].map((match) =>
    match[1]!.replace(/^\\?"|\\?"$/g, "")
  );
  assert.ok(named.length > 0, "the launcher names README sections");
  const missing = named.filter((name) => !headings.has(name.toLowerCase()));
  assert.deepEqual(missing, [], "README sections the plugin launcher names that do not exist");
});
