/**
 * The SDK door (src/mcp/sdk.ts) must give real types under `deno check`:
 * without its `@ts-types` directives the SDK's deep imports degrade to `any`
 * and a wrong call would type-check silently.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/program.ts";

async function checkSource(source: string): Promise<{ success: boolean; output: string }> {
  const dir = await Deno.makeTempDir({ dir: join(REPO_ROOT, "tests"), prefix: ".sdk-check-" });
  try {
    const file = join(dir, "probe.ts");
    await Deno.writeTextFile(file, source);
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      success: result.success,
      output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("deno check catches a type error in an SDK call made through the SDK door", async () => {
  const wrong = await checkSource(
    'import { Server } from "../../src/mcp/sdk.ts";\n' +
      'new Server({ name: 42, version: "1" });\n',
  );
  assert.equal(wrong.success, false);
  assert.match(wrong.output, /TS2322/);
  assert.match(wrong.output, /number.*not assignable to.*string/s);
});

Deno.test("deno check accepts a correct SDK call made through the SDK door", async () => {
  const right = await checkSource(
    'import { Server } from "../../src/mcp/sdk.ts";\n' +
      'new Server({ name: "x", version: "1" });\n',
  );
  assert.equal(right.success, true, right.output);
});
