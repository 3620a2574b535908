import assert from "node:assert/strict";
import { programEnv, REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";

const decoder = new TextDecoder();

async function run(
  command: string,
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(),
    stdin: "null",
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("make mcpb packs a bundle from a stand-in binary whose entry point passes the smoke test", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-mcpb-" });
  try {
    // The stand-in: an executable that runs this checkout's launcher, as a binary would run.
    await Deno.mkdir(`${dir}/bin`);
    const standIn = `${dir}/bin/skillgate-linux-x64`;
    await Deno.writeTextFile(standIn, `#!/bin/sh\nexec '${REPO_ROOT}skillgate' "$@"\n`);
    await Deno.chmod(standIn, 0o755);
    const packed = await run("make", ["-s", "mcpb", `BINDIR=${dir}/bin`, `MCPB_OUT=${dir}/out`]);
    assert.equal(packed.code, 0, packed.stderr);
    const bundle = `${dir}/out/skillgate-${VERSION}.mcpb`;
    assert.equal(packed.stdout.trim(), bundle);
    assert.match(packed.stderr, /no skillgate-windows-x64\.exe in .*: the bundle will not start/);
    const listing = await run("unzip", ["-Z1", bundle]);
    assert.deepEqual(listing.stdout.trim().split("\n").sort(), [
      "LICENSE",
      "README.md",
      "manifest.json",
      "server/skillgate",
      "server/skillgate-linux-x64",
    ]);
    const unpacked = `${dir}/unpacked`;
    const unzip = await run("unzip", ["-q", bundle, "-d", unpacked]);
    assert.equal(unzip.code, 0, unzip.stderr);
    const manifest = JSON.parse(await Deno.readTextFile(`${unpacked}/manifest.json`));
    assert.equal(manifest.server.type, "binary");
    assert.equal(manifest.server.mcp_config.command, "${__dirname}/server/skillgate");
    // The host runs what the manifest names, with the user's folder in place of the setting.
    const smoke = await run(Deno.execPath(), [
      "run",
      "--allow-all",
      ".ci/smoke.ts",
      "--",
      `${unpacked}/server/skillgate`,
    ]);
    assert.equal(smoke.code, 0, smoke.stderr);
    assert.match(smoke.stderr, /smoke: PASSED/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("make mcpb refuses a folder without any skillgate binary", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-mcpb-" });
  try {
    const packed = await run("make", ["-s", "mcpb", `BINDIR=${dir}`, `MCPB_OUT=${dir}/out`]);
    assert.notEqual(packed.code, 0);
    assert.match(packed.stderr, /mcpb: no skillgate binary in .*; run make compile first/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the plugin's bin/skillgate (its .mcp.json command) runs a binary placed beside it and passes the smoke test", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-plugin-" });
  try {
    const copy = await run("cp", ["-R", `${REPO_ROOT}plugin`, `${dir}/plugin`]);
    assert.equal(copy.code, 0, copy.stderr);
    const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
    const standIn = `${dir}/plugin/bin/skillgate-linux-${arch}`;
    await Deno.writeTextFile(standIn, `#!/bin/sh\nexec '${REPO_ROOT}skillgate' "$@"\n`);
    await Deno.chmod(standIn, 0o755);
    const mcp = JSON.parse(await Deno.readTextFile(`${dir}/plugin/.mcp.json`));
    assert.equal(mcp.mcpServers.skills.command, "${CLAUDE_PLUGIN_ROOT}/bin/skillgate");
    const smoke = await run(Deno.execPath(), [
      "run",
      "--allow-all",
      ".ci/smoke.ts",
      "--",
      `${dir}/plugin/bin/skillgate`,
    ]);
    assert.equal(smoke.code, 0, smoke.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: the plugin's bin/skillgate without a binary beside it refuses and names the file to place; it never runs npx of an unowned registry name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-plugin-" });
  try {
    const copy = await run("cp", ["-R", `${REPO_ROOT}plugin`, `${dir}/plugin`]);
    assert.equal(copy.code, 0, copy.stderr);
    // An npx first on PATH that leaves a mark: the old fallback ran `npx -y skillgate@VERSION`.
    await Deno.mkdir(`${dir}/path`);
    await Deno.writeTextFile(`${dir}/path/npx`, `#!/bin/sh\ntouch '${dir}/npx-ran'\n`);
    await Deno.chmod(`${dir}/path/npx`, 0o755);
    const output = await new Deno.Command(`${dir}/plugin/bin/skillgate`, {
      args: ["serve", "/nowhere"],
      env: { PATH: `${dir}/path:/usr/bin:/bin` },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 1);
    assert.equal(output.stdout.length, 0, "stdout stays the protocol's: nothing on it");
    const stderr = new TextDecoder().decode(output.stderr);
    assert.match(
      stderr,
      /skillgate-(linux|macos)-(x64|arm64) is missing .*copy .* from a skillgate release/,
    );
    const ran = await Deno.lstat(`${dir}/npx-ran`).then(() => true, () => false);
    assert.equal(ran, false, "npx never ran");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
