import assert from "node:assert/strict";
import { readIdentity } from "../../packaging/generate.ts";
import { programEnv, REPO_ROOT } from "../support/program.ts";

/** Pinned linters, run through npx (the npm registry is reachable in CI). */
const ACTION_VALIDATOR = "@action-validator/cli@0.6.0";
const DOCKERFILE_UTILS = "dockerfile-utils@0.16.3";

const decoder = new TextDecoder();

async function npx(args: readonly string[]): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command("npx", {
    args: ["-y", ...args],
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(),
    stdin: "null",
  }).output();
  return {
    code: result.code,
    output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
  };
}

Deno.test("the release workflow passes action-validator (pinned)", async () => {
  const workflow = await Deno.readTextFile(`${REPO_ROOT}.github/workflows/release.yml`);
  // action-validator 0.6.0 (the newest on npm) bundles a workflow schema older than GitHub's
  // `attestations` permission, which actions/attest-build-provenance needs; that one line is
  // left out of the copy it checks, and nothing else.
  const lines = workflow.split("\n");
  const checked = lines.filter((line) => line.trim() !== "attestations: write");
  assert.equal(lines.length - checked.length, 1, "only the release job asks for attestations");
  const dir = await Deno.makeTempDir({ prefix: "skillgate-workflow-" });
  try {
    await Deno.mkdir(`${dir}/.github/workflows`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.github/workflows/release.yml`, checked.join("\n"));
    const result = await npx([ACTION_VALIDATOR, `${dir}/.github/workflows/release.yml`]);
    assert.equal(result.code, 0, result.output);
    await Deno.writeTextFile(
      `${dir}/broken.yml`,
      "on: push\njobs:\n  a:\n    runs-on: x\n    stepz: []\n",
    );
    const broken = await npx([ACTION_VALIDATOR, `${dir}/broken.yml`]);
    assert.notEqual(broken.code, 0, "the validator really validates");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the release workflow is thin: each run step calls a repository script that exists", async () => {
  const workflow = await Deno.readTextFile(`${REPO_ROOT}.github/workflows/release.yml`);
  const scripts = [...workflow.matchAll(/\.ci\/[\w.-]+/g)].map((match) => match[0]);
  assert.ok(scripts.includes(".ci/release_build.sh"));
  assert.ok(scripts.includes(".ci/smoke.ts"), "the one smoke script runs on each OS");
  assert.ok(scripts.includes(".ci/release_assemble.sh"));
  assert.ok(scripts.includes(".ci/release_image.sh"));
  for (const script of scripts) await Deno.stat(`${REPO_ROOT}${script}`);
  assert.match(workflow, /tags: \["v\*\.\*\.\*"\]/);
  assert.match(workflow, /actions\/attest-build-provenance/);
  for (const os of ["ubuntu-24.04-arm", "macos-13", "macos-14", "windows-2022"]) {
    assert.ok(workflow.includes(`os: ${os}`), `${os} smoke-tests its own binary`);
  }
  assert.match(workflow, /continue-on-error: \$\{\{ matrix\.experimental \}\}/);
  const build = await Deno.readTextFile(`${REPO_ROOT}.ci/release_build.sh`);
  assert.match(build, /denort_fetch\.sh/, "each target's denort zip is fetched and verified");
  assert.match(build, /SHA256SUMS/);
});

Deno.test("the Containerfile passes dockerfile-utils lint (pinned; no container engine runs here)", async () => {
  const result = await npx([DOCKERFILE_UTILS, "lint", "Containerfile"]);
  assert.equal(result.code, 0, result.output);
});

Deno.test("attack: the image is built from a tested binary, never by downloading denort or Deno, on a pinned base with no Node", async () => {
  const text = await Deno.readTextFile(`${REPO_ROOT}Containerfile`);
  const instructions = text.split("\n").filter((line) => !line.trimStart().startsWith("#"));
  const froms = instructions.filter((line) => /^FROM\s/i.test(line));
  assert.deepEqual(froms, ["FROM debian:bookworm-20251229-slim"], "one stage, an exact dated tag");
  const body = instructions.join("\n");
  assert.doesNotMatch(body, /node|npm|deno\.land|dl\.deno|denort|curl|wget|make compile/i);
  assert.match(body, /ARG BINARY=dist\/skillgate-linux-x64/);
  assert.match(body, /COPY --chmod=0755 \$\{BINARY\} \/usr\/local\/bin\/skillgate/);
  assert.match(body, /HEALTHCHECK .*\n?.*CMD \["\/usr\/local\/bin\/skillgate", "health"\]/);
  assert.match(body, /USER 10001:10001/);
  const identity = await readIdentity();
  assert.ok(body.includes(`ARG MCP_NAME=${identity.registryName}`), "label from the identity");
  assert.ok(
    body.includes(`ARG SOURCE=https://github.com/${identity.owner}/${identity.repo}`),
  );
  for (
    const label of [
      "org.opencontainers.image.source",
      "org.opencontainers.image.version",
      "org.opencontainers.image.licenses",
      "io.modelcontextprotocol.server.name",
    ]
  ) assert.ok(body.includes(label), label);
});
