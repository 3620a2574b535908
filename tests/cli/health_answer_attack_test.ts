/**
 * Attack (r12): whatever listens where `skillgate health` looks (a co-tenant
 * that took 127.0.0.1:3000 while skillgate was down, a `--url` of someone
 * else's, or a redirect from either) writes its answer body into the owner's
 * terminal. Text from outside reaches a terminal only escaped
 * (`src/cli/terminal_text.ts`): an OSC 52 sequence would set the clipboard, a
 * CSI sequence could rewrite the line to "healthy".
 */
import assert from "node:assert/strict";
import { runHealthCommand } from "../../src/cli/health_command.ts";

const HOSTILE_BODY = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[2K\rskillgate: healthy";

Deno.test("attack: a hostile health answer's escape sequences never reach the terminal", async () => {
  for (const status of [200, 503]) {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(HOSTILE_BODY, { status }),
    );
    try {
      const lines: string[] = [];
      await runHealthCommand(new URL(`http://127.0.0.1:${server.addr.port}/healthz`), (text) => {
        lines.push(text);
        return Promise.resolve();
      });
      const written = lines.join("");
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
