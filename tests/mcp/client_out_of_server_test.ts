/**
 * The SDK clients (1.32.x `@modelcontextprotocol/sdk/client/*` and the v2
 * `@modelcontextprotocol/client`) are test-only dependencies: they pull in
 * cross-spawn, which reads environment variables at import time, and the
 * worker may read only a few. Neither may enter the program's import graph.
 * Since the move to the v2 line (issue 12) the whole 1.x package
 * (`@modelcontextprotocol/sdk`) is test-only too: the program speaks MCP
 * through `@modelcontextprotocol/server` alone.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../support/program.ts";

/** The program's two roots: the trusted part and the worker it starts. */
const ENTRIES = ["main.ts", "src/worker/entry.ts"];
const CLIENT_MODULE = /@modelcontextprotocol\/client|@modelcontextprotocol\/sdk@/;

Deno.test("no SDK client module, no 1.x SDK module and no test file is in the import graph of main.ts or the worker", async () => {
  for (const entry of ENTRIES) {
    const info = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(info.success, new TextDecoder().decode(info.stderr));
    const graph = JSON.parse(new TextDecoder().decode(info.stdout)) as {
      modules: { specifier: string }[];
    };
    const specifiers = graph.modules.map((module) => module.specifier);
    assert.ok(specifiers.some((specifier) => specifier.includes("@modelcontextprotocol/server")));
    assert.deepEqual(specifiers.filter((specifier) => CLIENT_MODULE.test(specifier)), [], entry);
    assert.deepEqual(specifiers.filter((specifier) => specifier.includes("/tests/")), [], entry);
  }
});
