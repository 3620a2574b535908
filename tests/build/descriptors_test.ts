import assert from "node:assert/strict";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import {
  descriptors,
  readIdentity,
  releaseServerJson,
  SERVER_SCHEMA_ID,
} from "../../packaging/generate.ts";
import { programEnv, REPO_ROOT } from "../support/program.ts";
import { VERSION } from "../../src/version.ts";

/** Pinned validators, run through npx (the npm registry is reachable in CI). */
const MCPB = "@anthropic-ai/mcpb@2.1.2";

const decoder = new TextDecoder();

/** The parts of server.json the tests read. */
interface ServerJson {
  name: string;
  packages: { registryType: string; identifier: string; version: string }[];
}

async function run(
  command: string,
  args: readonly string[],
  cwd = REPO_ROOT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd,
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

async function serverSchemaValidator() {
  const schema = JSON.parse(
    await Deno.readTextFile(`${REPO_ROOT}tests/fixtures/registry/server.schema.json`),
  );
  assert.equal(schema.$id, SERVER_SCHEMA_ID, "server.json names the schema kept as the fixture");
  // strict: false lets the OpenAPI `discriminator` annotation pass; oneOf still decides.
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv.compile(schema);
}

Deno.test("every committed descriptor is what packaging/identity.json generates (make descriptors)", async () => {
  const identity = await readIdentity();
  for (const [path, expected] of descriptors(identity, VERSION)) {
    assert.equal(await Deno.readTextFile(`${REPO_ROOT}${path}`), expected, `${path} is current`);
  }
});

Deno.test("server.json validates against the registry's server.schema.json, with the npm entry for npx", async () => {
  const validate = await serverSchemaValidator();
  const server: ServerJson = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}server.json`));
  const valid = validate(structuredClone(server));
  assert.ok(valid, JSON.stringify(validate.errors));
  const identity = await readIdentity();
  assert.equal(server.name, identity.registryName);
  const npm = server.packages.find((entry: { registryType: string }) =>
    entry.registryType === "npm"
  );
  assert.ok(npm !== undefined, "an npm entry");
  assert.equal(npm.identifier, identity.npmName);
  assert.equal(npm.version, VERSION);
});

Deno.test("the release's server.json (bundle entry with its SHA-256 added) validates too", async () => {
  const validate = await serverSchemaValidator();
  const identity = await readIdentity();
  const release: ServerJson = JSON.parse(
    releaseServerJson(identity, VERSION, { bundleSha256: "ab".repeat(32) }),
  );
  const valid = validate(structuredClone(release));
  assert.ok(valid, JSON.stringify(validate.errors));
  const kinds = release.packages.map((entry: { registryType: string }) => entry.registryType);
  assert.deepEqual(kinds, ["npm", "oci", "mcpb"]);
  assert.throws(
    () => releaseServerJson(identity, VERSION, { bundleSha256: "not-a-sum" }),
    /64 lowercase hexadecimal digits/,
  );
});

Deno.test("attack: a server.json with a malformed registry name or a 'latest' npm version fails the schema", async () => {
  const validate = await serverSchemaValidator();
  const server = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}server.json`));
  assert.ok(!validate({ ...server, name: "no-slash" }));
  const latest = structuredClone(server);
  latest.packages[0].version = "latest";
  assert.ok(!validate(latest));
});

Deno.test("manifest.json passes mcpb validate (pinned @anthropic-ai/mcpb)", async () => {
  const result = await run("npx", ["-y", MCPB, "validate", "packaging/mcpb/manifest.json"]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout + result.stderr, /Manifest (schema validation passes|is valid)/i);
});

Deno.test("attack: mcpb validate refuses a manifest whose server type is not one it knows", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-mcpb-" });
  try {
    const manifest = JSON.parse(
      await Deno.readTextFile(`${REPO_ROOT}packaging/mcpb/manifest.json`),
    );
    manifest.server.type = "deno";
    await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify(manifest));
    const result = await run("npx", ["-y", MCPB, "validate", `${dir}/manifest.json`]);
    assert.notEqual(result.code, 0, "the validator really validates");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
