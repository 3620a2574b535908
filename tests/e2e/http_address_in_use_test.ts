/** `serve --http=PORT` on a port another program holds: a setting to change, said so. */

import assert from "node:assert/strict";
import { REPO_ROOT, runProgram } from "../support/program.ts";

Deno.test("serve --http on a port in use exits 2 (a setting, not an internal error) and says to stop the other program or pick another port", async () => {
  using holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  const result = await runProgram(["serve", `${REPO_ROOT}examples/skills`, `--http=${port}`]);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, "");
  assert.match(
    result.stderr,
    new RegExp(`Cannot listen on 127\\.0\\.0\\.1 port ${port}: the address is in use`),
  );
  assert.match(result.stderr, /pick another port with --http=PORT/);
});
