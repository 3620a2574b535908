/** `skillgate --help`: what each option's value must be. */

import assert from "node:assert/strict";
import { helpText } from "../../src/cli/help.ts";
import { OPTIONS } from "../../src/config/options.ts";

Deno.test("helpText() names what every string and list option takes (a folder, a file, a URL), never a bare VALUE", () => {
  const text = helpText(["skillgate"]);
  assert.match(text, /--index-cache=DIR /);
  assert.match(text, /--config=FILE /);
  assert.match(text, /--allowed-origins=ORIGIN,\.\.\. /);
  for (const option of OPTIONS) {
    if (option.kind.type !== "string" && option.kind.type !== "list") continue;
    assert.ok(option.valueName !== undefined, `--${option.flag} needs a valueName for --help`);
    assert.ok(text.includes(`--${option.flag}=${option.valueName} `), option.flag);
  }
  assert.doesNotMatch(text, /=VALUE/);
});
