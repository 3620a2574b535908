import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { programEnv, REPO_ROOT } from "../support/program.ts";
import { networkEnv } from "../support/launcher.ts";
import { VERSION } from "../../src/version.ts";

const decoder = new TextDecoder();

async function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd,
    clearEnv: true,
    // The registry is reached as this machine reaches it (a proxy's CA: newcomer n9, F9).
    env: programEnv(networkEnv()),
    stdin: "null",
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Packs the package with .ci/npm_pack.sh and installs the tarball into an empty folder. */
async function packAndInstall(
  body: (installed: string, tarball: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-npx-" });
  try {
    const packed = await run("sh", [".ci/npm_pack.sh", `${dir}/pack`], REPO_ROOT);
    assert.equal(packed.code, 0, packed.stderr);
    const tarball = packed.stdout.trim();
    const installed = `${dir}/empty`;
    await Deno.mkdir(installed);
    const install = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball],
      installed,
    );
    assert.equal(install.code, 0, install.stderr);
    await body(installed, tarball);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("npx skillgate from the packed tarball: the sources and the lock, never node_modules; --version, exit codes and an MCP session through it", async () => {
  await packAndInstall(async (installed, tarball) => {
    const listing = await run("tar", ["-tzf", tarball], REPO_ROOT);
    const files = listing.stdout.trim().split("\n");
    for (
      const file of [
        "package/package.json",
        "package/bin/skillgate.cjs",
        "package/main.ts",
        "package/deno.json",
        "package/deno.lock",
        "package/src/sandbox/trusted_flags.json",
        "package/src/worker/entry.ts",
      ]
    ) assert.ok(files.includes(file), `${file} is in the package`);
    assert.ok(!files.some((file) => file.includes("node_modules")), "no node_modules");
    assert.ok(!files.some((file) => file.startsWith("package/tests/")), "no tests");

    const version = await run("npx", ["skillgate", "--version"], installed);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout, `skillgate ${VERSION}\n`, "stdout is the program's alone");

    const usage = await run("npx", ["skillgate", "--no-such-option"], installed);
    assert.equal(usage.code, 2, "the program's exit code passes through");
    assert.equal(usage.stdout, "");
    assert.match(usage.stderr, /Unknown option "--no-such-option"/);

    const transport = new StdioClientTransport({
      command: "npx",
      args: ["skillgate", "serve", `${REPO_ROOT}examples/skills`],
      env: programEnv(networkEnv()),
      cwd: installed,
      stderr: "pipe",
    });
    transport.stderr?.on("data", () => {});
    const client = new Client({ name: "skillgate-tests", version: "1.0.0" });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, "skillgate");
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes("skill_list") && tools.includes("skill_load"));
      const list = await client.callTool({ name: "skill_list", arguments: {} });
      const names = (list.structuredContent as { skills: { name: string }[] }).skills
        .map((skill) => skill.name);
      assert.ok(names.includes("release-notes"), names.join(","));
      const load = await client.callTool({
        name: "skill_load",
        arguments: { name: "release-notes" },
      });
      assert.notEqual(load.isError, true);
      assert.match((load.structuredContent as { body: string }).body, /\S/);
    } finally {
      await client.close();
    }
  });
});

Deno.test("the packed npm package's package.json is the generated one, with deno pinned exactly", async () => {
  const pkg = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}packaging/npm/package.json`));
  assert.equal(pkg.name, "skillgate");
  assert.equal(pkg.version, VERSION);
  assert.deepEqual(pkg.dependencies, { deno: "2.9.6" });
  assert.deepEqual(pkg.bin, { skillgate: "bin/skillgate.cjs" });
  assert.ok(!pkg.files.some((entry: string) => entry.includes("node_modules")));
  const bin = await Deno.readTextFile(`${REPO_ROOT}packaging/npm/bin/skillgate.cjs`);
  assert.match(bin, /trusted_flags\.json/, "the bin takes the flags from the one list");
});
