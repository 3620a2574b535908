// Issue 13: the worker loads, before it can answer `initialize`, only the modules that answer
// needs; what later requests need (the tools, the views, search, the HTTP transport, the YAML
// parser, node:crypto's hasher) is loaded on first use. Read from Deno's own module graph.

import assert from "node:assert/strict";
import { REPO_ROOT } from "../support/program.ts";

interface InfoDependency {
  readonly code?: { readonly specifier: string };
  readonly isDynamic?: boolean;
}

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly InfoDependency[];
}

/** The specifiers the entry reaches through static value imports (type-only and dynamic left out). */
async function staticGraph(entry: string): Promise<Set<string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${REPO_ROOT}deno.json`, `${REPO_ROOT}${entry}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const bySpecifier = new Map(info.modules.map((module) => [module.specifier, module]));
  const reached = new Set<string>();
  const queue = [...info.roots];
  while (queue.length > 0) {
    const specifier = queue.pop() as string;
    if (reached.has(specifier)) continue;
    reached.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.code !== undefined && dependency.isDynamic !== true) {
        queue.push(dependency.code.specifier);
      }
    }
  }
  return reached;
}

function local(path: string): string {
  return new URL(path, `file://${REPO_ROOT}`).href;
}

Deno.test("the worker's static module graph leaves out what only later requests need", async () => {
  const graph = await staticGraph("src/worker/entry.ts");
  // It is the graph that answers: the catalog build and the server are in it.
  for (
    const needed of [
      "src/skills/catalog.ts",
      "src/skills/frontmatter_quick.ts",
      "src/mcp/server.ts",
    ]
  ) {
    assert.ok(graph.has(local(needed)), needed);
  }
  const late = [
    "src/mcp/tool_list.ts",
    "src/mcp/apps/views.generated.ts",
    "src/search/search_skills.ts",
    "src/transports/http/serve.ts",
    "src/skills/frontmatter.ts",
    // Loaded only when the grant can let a script run.
    "src/scripts/service.ts",
    "src/scripts/plan.ts",
  ];
  for (const path of late) assert.ok(!graph.has(local(path)), `${path} is loaded statically`);
  const npmOrNode = [...graph].filter((specifier) => !specifier.startsWith("file:"));
  assert.ok(!npmOrNode.some((specifier) => /^npm:\/?yaml@/.test(specifier)), "npm:yaml");
  assert.ok(!npmOrNode.includes("node:crypto"), "node:crypto");
  assert.ok(!npmOrNode.includes("node:fs"), "node:fs");
});

Deno.test("no module of the program takes zod's `z` object (the bundle would keep all of zod in the worker's first chunk)", async () => {
  // deno bundle's code splitting puts every part of zod that the `z` namespace object reaches
  // (all locales, the JSON-schema reader: ~550 KB) in the chunk the worker loads first.
  const taken: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".generated.ts")) {
        const text = await Deno.readTextFile(path);
        const zodImports = text.matchAll(/^import\s+(type\s+)?([^;]*?)\s+from\s+"zod[^"]*";/gms);
        for (const [, , names] of zodImports) {
          if (!/^\*\s+as\s+\w+$/.test(names ?? "")) taken.push(`${path}: ${names}`);
        }
      }
    }
  };
  await walk(`${REPO_ROOT}src`);
  assert.deepEqual(taken, [], 'Import zod as a namespace: import * as z from "zod"');
});
