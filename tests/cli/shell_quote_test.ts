/** Quoting suggested commands so they paste into a POSIX shell as they are. */

import assert from "node:assert/strict";
import { shellCommand, shellQuote } from "../../src/cli/shell_quote.ts";

Deno.test("shellQuote() leaves plain words alone and single-quotes the rest", () => {
  const table: Array<[string, string]> = [
    ["/opt/skillgate/skillgate", "/opt/skillgate/skillgate"],
    ["--max-skills=10", "--max-skills=10"],
    ["/home/me/my skills", "'/home/me/my skills'"],
    ["it's", "'it'\\''s'"],
    ["$HOME", "'$HOME'"],
    ["a;rm -rf /", "'a;rm -rf /'"],
    ["~/skills", "'~/skills'"],
    ["", "''"],
  ];
  for (const [word, quoted] of table) assert.equal(shellQuote(word), quoted, word);
});

Deno.test("shellCommand() output is read back by sh as the same words", async () => {
  const words = ["/tmp/a b/skillgate", "serve", "it's", "$(touch /tmp/never)", "x\ty", "`id`"];
  const output = await new Deno.Command("sh", {
    args: ["-c", `printf '%s\\n' ${shellCommand(words)}`],
    stdout: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(output.stdout), words.map((w) => `${w}\n`).join(""));
});
