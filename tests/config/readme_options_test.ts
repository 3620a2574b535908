/** README.md documents every option the parser accepts, with its variable. */

import assert from "node:assert/strict";
import { OPTIONS } from "../../src/config/options.ts";
import { PROBLEM_REASONS } from "../../src/skills/problem.ts";
import { REPO_ROOT } from "../support/program.ts";

const readme = await Deno.readTextFile(`${REPO_ROOT}README.md`);

Deno.test("README's options table names every flag and its SKILLGATE_* variable", () => {
  for (const option of OPTIONS) {
    assert.ok(readme.includes(`\`--${option.flag}`), `README documents --${option.flag}`);
    assert.ok(readme.includes(`\`${option.env}\``), `README documents ${option.env}`);
  }
});

Deno.test("README's problem table names every problem reason", () => {
  for (const reason of PROBLEM_REASONS) {
    assert.match(readme, new RegExp(`\\| \`${reason}\` +\\|`), `README documents ${reason}`);
  }
});
