/**
 * Attack (r12): a prompt-injected model asks to run `deploy.sh --dry-run`,
 * spelling the flag with look-alike characters (U+2010 HYPHEN, U+2212 MINUS
 * SIGN, U+FF0D FULLWIDTH HYPHEN-MINUS, a Cyrillic letter) or an argument of
 * HANGUL FILLER (U+3164, a letter that draws as nothing). The user's dialog
 * (`confirmationMessage()`, `src/mcp/tools/skill_run.ts`) is where they check
 * what will run; it escapes control, format and separator characters, but
 * these are letters, dashes and symbols, so the dialog shows the honest
 * command while the script receives something it does not recognise (and
 * runs for real). The argv passed stays exact; only what the user reads must
 * tell the two apart.
 */
import assert from "node:assert/strict";
import { confirmationMessage } from "../../../src/mcp/tools/skill_run.ts";
import type { RunPreview } from "../../../src/scripts/prepare_run.ts";

function preview(args: string[]): RunPreview {
  return {
    willRun: {
      skill: "deploy",
      script: "scripts/deploy.sh",
      interpreter: "sh",
      argv: ["/usr/bin/sh", "/srv/skills/deploy/scripts/deploy.sh", ...args],
      cwd: "/srv/skills/deploy",
      envNames: ["HOME", "PATH"],
      timeoutMs: 60_000,
    },
    note: "Runs with no shell",
  };
}

/** Each spoof with the honest argument it imitates. */
const SPOOFS: Record<string, [string, string]> = {
  "U+2010 hyphens": ["\u2010\u2010dry-run", "--dry-run"],
  "U+2212 minus signs": ["\u2212\u2212dry-run", "--dry-run"],
  "U+FF0D fullwidth hyphen-minus": ["\uff0d\uff0ddry-run", "--dry-run"],
  "Cyrillic o (U+043E)": ["--f\u043erce-check", "--force-check"],
  "U+3164 HANGUL FILLER as the whole argument": ["\u3164", " "],
};

Deno.test("attack: a look-alike argument never shows in the confirmation dialog as the honest one", () => {
  for (const [label, [spoof, honestArg]] of Object.entries(SPOOFS)) {
    const honest = confirmationMessage(preview([honestArg]));
    const shown = confirmationMessage(preview([spoof]));
    // What a reader sees: the text drawn with each look-alike as the character it imitates.
    const drawn = shown.replace(/[\u2010\u2212\uff0d]/g, "-").replace(/\u043e/g, "o")
      .replace(/\u3164/g, " ");
    assert.notEqual(
      drawn,
      honest,
      `${label}: the dialog reads exactly like the honest command:\n${shown}`,
    );
  }
});

Deno.test("the dialog's second spelling of a word with a control character is headed as such, not as 'beyond ASCII' only", () => {
  const shown = confirmationMessage(preview(["tab\there"]));
  assert.match(
    shown,
    /Command words holding characters beyond printable ASCII \(control characters/,
  );
  assert.match(shown, /word 3: /);
});
