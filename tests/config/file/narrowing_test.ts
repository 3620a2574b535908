/** narrows(): the one narrower-or-equal rule, per kind of `narrowing` in the option table. */

import assert from "node:assert/strict";
import { narrows } from "../../../src/config/file/narrowing.ts";
import { OPTIONS, type OptionSpec } from "../../../src/config/options.ts";

const option = (flag: string): OptionSpec => OPTIONS.find((o) => o.flag === flag)!;

Deno.test("narrows() follows each option's narrowing rule", () => {
  const cases: [string, unknown, unknown, boolean][] = [
    ["max-skills", 10, 100, true],
    ["max-skills", 100, 10, false],
    ["max-skills", 10, 10, true],
    ["allowed-origins", ["https://a.example"], ["https://a.example", "https://b.example"], true],
    ["allowed-origins", ["https://c.example"], ["https://a.example"], false],
    ["allowed-origins", [], ["https://a.example"], true],
    ["tools", "never", "auto", true],
    ["tools", "always", "auto", false],
    ["static", true, false, true],
    ["static", false, true, false],
    ["http", null, 3000, true],
    ["http", 3000, null, false],
    ["http", 4000, 3000, false],
    ["isolation", "auto", "group", true],
    ["isolation", "group", "auto", false],
    // No narrowing rule: every change widens (the safe default for an option added later).
    ["host", "127.0.0.1", "0.0.0.0", false],
    ["catalog", "tool-description", "instructions", false],
    ["catalog", "instructions", "instructions", true],
  ];
  for (const [flag, candidate, current, expected] of cases) {
    assert.equal(
      narrows(option(flag), candidate, current),
      expected,
      `${flag}: ${JSON.stringify(candidate)} from ${JSON.stringify(current)}`,
    );
  }
});
