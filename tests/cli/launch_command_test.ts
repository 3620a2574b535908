/** What the banner and --help tell a client to start. */

import assert from "node:assert/strict";
import { launchWords } from "../../src/cli/launch_command.ts";
import { helpText } from "../../src/cli/help.ts";

Deno.test("launchWords() names the checkout's launcher when running under deno", () => {
  assert.deepEqual(
    launchWords({ execPath: "/x/.tools/node_modules/deno/deno", checkout: "/src/my skillgate" }),
    ["/src/my skillgate/skillgate", "serve"],
  );
});

Deno.test("launchWords() names the binary itself when compiled", () => {
  assert.deepEqual(
    launchWords({ execPath: "/usr/local/bin/skillgate", checkout: "/tmp/deno-compile-x" }),
    ["/usr/local/bin/skillgate", "serve"],
  );
});

Deno.test("helpText() shows the claude mcp add line with the launcher, quoted", () => {
  const text = helpText(["/src/my skillgate/skillgate", "serve"]);
  assert.match(text, /claude mcp add skills -- '\/src\/my skillgate\/skillgate' serve ~\/skills\n/);
});
