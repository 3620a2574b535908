/**
 * Attack (r11 on s25): `skill_settings_write` from a client that cannot ask
 * the user writes nothing, and the command line it suggests to the owner
 * instead is safe to paste: a skill whose name holds `$(...)` or backticks
 * (served, with a naming-rule warning) must come out as one literal word.
 * The suggested words are run through `sh -c` with `printf` in place of
 * skillgate: what `sh` passes on must be exactly the skill's name.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../../support/program.ts";

const UI_ONLY = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};
const NAMES = ["e$(echo${IFS}INJECTED)f", "c`echo INJECTED`d", "q'uo\"te"];

Deno.test("attack: the override line suggested to a client without elicitation pastes as the literal skill name", async () => {
  const root = await Deno.makeTempDir({ prefix: "r11-hint-" });
  const config = await Deno.makeTempDir({ prefix: "r11-hint-config-" });
  try {
    for (const name of NAMES) {
      await Deno.mkdir(join(root, name));
      await Deno.writeTextFile(
        join(root, name, "SKILL.md"),
        `---\nname: '${name.replaceAll("'", "''")}'\ndescription: x\n---\nbody\n`,
      );
    }
    await using session = await connectStdio(["serve", root], {
      env: { XDG_CONFIG_HOME: config },
      capabilities: UI_ONLY as never,
    });
    for (const name of NAMES) {
      const result = await session.call("skill_settings_write", {
        name,
        switch: "enabled",
        value: false,
      });
      assert.equal(result.isError, true, `written without confirmation: ${JSON.stringify(result)}`);
      const body = JSON.parse((result.content as { text: string }[])[0]!.text) as { hint?: string };
      const command = /skillgate override (.*)$/.exec(body.hint ?? "")?.[1];
      if (command === undefined) continue; // no line suggested: nothing to paste
      const shell = await new Deno.Command("sh", {
        args: ["-c", `printf '%s\\n' ${command}`],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const words = new TextDecoder().decode(shell.stdout).split("\n");
      assert.equal(words[0], name, `pasted line: skillgate override ${command}`);
    }
    await assert.rejects(
      Deno.stat(join(config, "skillgate", "overrides.json")),
      Deno.errors.NotFound,
      "nothing was written",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(config, { recursive: true });
  }
});
