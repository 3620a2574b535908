/**
 * The trusted part's on-demand modules (src/cli/on_demand.ts): `serve`'s
 * start-up module graph holds none of the one-shot commands (issue 13: Deno
 * reads and keeps every module a literal dynamic import names), and each
 * command still loads when it runs.
 */

import assert from "node:assert/strict";
import * as onDemand from "../../src/cli/on_demand.ts";
import { isolateEntryUrl } from "../../src/entry_points.ts";
import { REPO_ROOT } from "../support/program.ts";

/** The modules a `serve` start loads in the trusted part by a literal specifier. */
const SERVE_MODULES = ["./src/cli/serve_command.ts", "./src/cli/trusted_start.ts"];

/** Every literal specifier of a dynamic `import(...)` in `source`, sorted. */
function literalDynamicImports(source: string): string[] {
  return [...source.matchAll(/\bimport\(\s*(["'`])([^"'`]+)\1\s*\)/g)].map((match) =>
    match[2] ?? ""
  )
    .sort();
}

Deno.test("serve's start-up graph: main.ts names only serve's own modules in a literal import(), the one-shot commands only through the on-demand entry", async () => {
  const main = await Deno.readTextFile(`${REPO_ROOT}main.ts`);
  assert.deepEqual(literalDynamicImports(main), SERVE_MODULES);
  assert.match(main, /import\(isolateEntryUrl\("on-demand"\)\.href\)/);
  // The on-demand module itself is named there (and in nothing main.ts loads statically) only as
  // a type, which the bundler erases and a code-only graph does not follow.
  assert.doesNotMatch(main, /^import (?!type)[^\n]*on_demand/m);
});

Deno.test("the bundled main.js names only serve's modules in a literal import(): the one-shot commands stay out of the graph Deno builds at start", async () => {
  const launcher = await Deno.readTextFile(`${REPO_ROOT}skillgate`);
  const entries = launcher.match(/^BUNDLE_ENTRIES="([^"]*)"$/m)?.[1]?.split(" ") ?? [];
  assert.ok(entries.includes("src/cli/on_demand.ts"), "the launcher bundles the on-demand entry");
  const outdir = await Deno.makeTempDir({ prefix: "skillgate-on-demand-" });
  try {
    const built = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--frozen",
        "--quiet",
        "--platform=deno",
        "--code-splitting",
        "--config",
        `${REPO_ROOT}deno.json`,
        "--outdir",
        outdir,
        ...entries,
      ],
      cwd: REPO_ROOT,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(built.success, new TextDecoder().decode(built.stderr));
    const main = await Deno.readTextFile(`${outdir}/main.js`);
    const named = literalDynamicImports(main);
    assert.equal(named.length, 2, `main.js names ${named.join(", ")}`);
    assert.ok(
      named.every((specifier) => /^\.\/(trusted_start|serve_command)-\w+\.js$/.test(specifier)),
    );
    // The one-shot commands are chunks the on-demand entry names, where the launcher puts it.
    const bundled = await Deno.readTextFile(`${outdir}/src/cli/on_demand.js`);
    for (
      const command of ["list_command", "validate_command", "permissions_command", "sync_command"]
    ) {
      assert.match(bundled, new RegExp(`import\\("\\.\\./\\.\\./${command}-\\w+\\.js"\\)`));
    }
    const inBundle = isolateEntryUrl(
      "on-demand",
      `file://${outdir}/chunk-1.js`,
      `file://${outdir}/main.js`,
    );
    assert.equal(inBundle.pathname, `${outdir}/src/cli/on_demand.js`);
  } finally {
    await Deno.remove(outdir, { recursive: true });
  }
});

Deno.test("each on-demand loader loads its command's module", async () => {
  assert.equal(typeof (await onDemand.loadHelp()).helpText, "function");
  assert.equal(typeof (await onDemand.loadListCommand()).runListCommand, "function");
  assert.equal(typeof (await onDemand.loadValidateCommand()).runValidateCommand, "function");
  assert.equal(typeof (await onDemand.loadConfigCommand()).runConfigCommand, "function");
  assert.equal(typeof (await onDemand.loadPermissionsCommand()).runPermissionsCommand, "function");
  assert.equal(typeof (await onDemand.loadSyncCommand()).runSyncCommand, "function");
  assert.equal(typeof (await onDemand.loadOverrideCommand()).runOverrideCommand, "function");
  assert.equal(typeof (await onDemand.loadHealthCommand()).runHealthCommand, "function");
  assert.equal(typeof (await onDemand.loadRemoteServe()).prepareRemote, "function");
});
