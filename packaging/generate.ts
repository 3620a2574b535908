/**
 * Generates every install descriptor from the one identity file, packaging/identity.json, and
 * the version in src/version.ts:
 *   packaging/npm/package.json          the `npx skillgate` package (staged by .ci/npm_pack.sh)
 *   packaging/mcpb/manifest.json        the MCP Bundle manifest (packed by `make mcpb`)
 *   plugin/.claude-plugin/plugin.json   the Claude Code plugin
 *   plugin/.mcp.json                    the plugin's server, started relative to the plugin root
 *   server.json                         the MCP registry entry
 *
 *   deno run --allow-read --allow-write packaging/generate.ts            (make descriptors)
 *   deno run --allow-read packaging/generate.ts --check                  exit 1 when one is stale
 *   deno run --allow-read --allow-write packaging/generate.ts --release=DIR --bundle-sha256=HEX
 *       the release workflow: writes DIR/server.json with the bundle entry (its URL on the
 *       release and its SHA-256) added; the committed descriptors are not touched.
 *
 * Permissions: --allow-read (identity, version), --allow-write (the files above, or DIR).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { VERSION } from "../src/version.ts";

/** The public identity every descriptor is generated from (packaging/identity.json). */
export interface Identity {
  readonly owner: string;
  readonly repo: string;
  readonly npmName: string;
  readonly registryName: string;
  readonly imageName: string;
  readonly displayName: string;
  readonly description: string;
  readonly author: string;
  readonly license: string;
}

/** Facts only a release knows: the bundle's SHA-256 (lowercase hex, 64 digits). */
export interface ReleaseFacts {
  readonly bundleSha256: string;
}

/** The registry schema server.json is written for (tests/fixtures/registry/server.schema.json). */
export const SERVER_SCHEMA_ID =
  "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json";

/** The Deno version the npm package runs on (the `deno` npm dependency), pinned exactly. */
export const DENO_NPM_VERSION = "2.9.6";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The binaries a release builds, by MCPB platform and Node-style arch (.ci/compile.sh names). */
export const BINARIES = [
  "skillgate-linux-x64",
  "skillgate-linux-arm64",
  "skillgate-macos-x64",
  "skillgate-macos-arm64",
  "skillgate-windows-x64.exe",
] as const;

function repositoryUrl(identity: Identity): string {
  return `https://github.com/${identity.owner}/${identity.repo}`;
}

/** The bundle's file name on a release. */
export function bundleFileName(version: string): string {
  return `skillgate-${version}.mcpb`;
}

function packageJson(identity: Identity, version: string): unknown {
  return {
    name: identity.npmName,
    version,
    description: identity.description,
    license: identity.license,
    repository: { type: "git", url: `git+${repositoryUrl(identity)}.git` },
    homepage: `${repositoryUrl(identity)}#readme`,
    // The MCP registry checks npm ownership through this field.
    mcpName: identity.registryName,
    keywords: ["mcp", "model-context-protocol", "agent-skills", "skills"],
    bin: { skillgate: "bin/skillgate.cjs" },
    files: [
      "bin/skillgate.cjs",
      "main.ts",
      "src/",
      "deno.json",
      "deno.lock",
      "README.md",
      "LICENSE",
    ],
    engines: { node: ">=18" },
    dependencies: { deno: DENO_NPM_VERSION },
  };
}

function mcpbManifest(identity: Identity, version: string): unknown {
  const args = ["serve", "${user_config.skills_dir}"];
  return {
    manifest_version: "0.3",
    name: identity.npmName,
    display_name: identity.displayName,
    version,
    description: identity.description,
    author: { name: identity.author },
    repository: { type: "git", url: repositoryUrl(identity) },
    homepage: repositoryUrl(identity),
    license: identity.license,
    keywords: ["agent-skills", "skills"],
    server: {
      type: "binary",
      // Linux and macOS: a POSIX sh selector that execs the binary for this machine's arch.
      entry_point: "server/skillgate",
      mcp_config: {
        command: "${__dirname}/server/skillgate",
        args,
        env: {},
        platform_overrides: {
          win32: { command: "${__dirname}/server/skillgate-windows-x64.exe", args },
        },
      },
    },
    tools: [
      { name: "skill_list", description: "List the skills in the configured folder" },
      { name: "skill_load", description: "Load one skill's instructions and file list" },
      { name: "skill_file", description: "Read one file of a skill" },
      { name: "skill_search", description: "Search the skills by keywords" },
      { name: "skill_run", description: "Run a declared and granted script of a skill" },
    ],
    compatibility: { platforms: ["darwin", "linux", "win32"] },
    user_config: {
      skills_dir: {
        type: "directory",
        title: "Skills folder",
        description:
          "The folder holding your skills (each a folder with a SKILL.md), or one skill folder",
        required: true,
        default: "${HOME}/skills",
      },
    },
  };
}

function pluginJson(identity: Identity, version: string): unknown {
  return {
    name: identity.npmName,
    version,
    description: identity.description,
    author: { name: identity.author },
    homepage: repositoryUrl(identity),
    repository: repositoryUrl(identity),
    license: identity.license,
    keywords: ["mcp", "agent-skills", "skills"],
    userConfig: {
      skills_dir: {
        type: "directory",
        title: "Skills folder",
        description:
          "The folder holding your skills (each a folder with a SKILL.md), or one skill folder",
        required: true,
      },
    },
  };
}

function pluginMcpJson(): unknown {
  return {
    mcpServers: {
      skills: {
        command: "${CLAUDE_PLUGIN_ROOT}/bin/skillgate",
        args: ["serve", "${user_config.skills_dir}"],
      },
    },
  };
}

function serverJson(identity: Identity, version: string, release: ReleaseFacts | null): unknown {
  const skillsArgument = {
    type: "positional",
    valueHint: "skills_dir",
    description:
      "The folder holding your skills (each a folder with a SKILL.md), or one skill folder",
    format: "filepath",
    isRequired: true,
  };
  const packages: unknown[] = [
    {
      registryType: "npm",
      registryBaseUrl: "https://registry.npmjs.org",
      identifier: identity.npmName,
      version,
      runtimeHint: "npx",
      transport: { type: "stdio" },
      packageArguments: [{ type: "positional", value: "serve" }, skillsArgument],
    },
    {
      registryType: "oci",
      identifier: `${identity.imageName}:${version}`,
      runtimeHint: "docker",
      transport: { type: "stdio" },
      runtimeArguments: [
        { type: "named", name: "-i", value: "" },
        { type: "named", name: "--rm", value: "" },
        { type: "named", name: "-e", value: "SKILLGATE_HTTP=off" },
        {
          type: "named",
          name: "-v",
          value: "{skills_dir}:/skills:ro",
          variables: { skills_dir: { ...skillsArgument, isRequired: true } },
        },
      ],
    },
  ];
  if (release !== null) {
    packages.push({
      registryType: "mcpb",
      identifier: `${repositoryUrl(identity)}/releases/download/v${version}/${
        bundleFileName(version)
      }`,
      version,
      fileSha256: release.bundleSha256,
      transport: { type: "stdio" },
    });
  }
  return {
    $schema: SERVER_SCHEMA_ID,
    name: identity.registryName,
    title: identity.displayName,
    description: identity.description,
    version,
    repository: { url: repositoryUrl(identity), source: "github" },
    websiteUrl: repositoryUrl(identity),
    packages,
  };
}

function text(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Renders every committed descriptor.
 *
 * @param identity The public identity (packaging/identity.json).
 * @param version skillgate's version (src/version.ts).
 * @returns Each descriptor's text, by path relative to the repository root.
 */
export function descriptors(identity: Identity, version: string): Map<string, string> {
  return new Map([
    ["packaging/npm/package.json", text(packageJson(identity, version))],
    ["packaging/mcpb/manifest.json", text(mcpbManifest(identity, version))],
    ["plugin/.claude-plugin/plugin.json", text(pluginJson(identity, version))],
    ["plugin/.mcp.json", text(pluginMcpJson())],
    ["server.json", text(serverJson(identity, version, null))],
  ]);
}

/**
 * Renders the release's server.json: the committed one plus the bundle entry.
 *
 * @param identity The public identity.
 * @param version The released version.
 * @param release The bundle's SHA-256.
 * @returns server.json's text.
 * @throws {Error} When the SHA-256 is not 64 lowercase hexadecimal digits.
 */
export function releaseServerJson(identity: Identity, version: string, release: ReleaseFacts) {
  if (!/^[0-9a-f]{64}$/.test(release.bundleSha256)) {
    throw new Error("--bundle-sha256 must be 64 lowercase hexadecimal digits");
  }
  return text(serverJson(identity, version, release));
}

/**
 * Reads packaging/identity.json.
 *
 * @returns The identity. Needs --allow-read.
 * @throws {Error} When a field is missing or not a string.
 */
export async function readIdentity(): Promise<Identity> {
  const raw = JSON.parse(await Deno.readTextFile(`${ROOT}packaging/identity.json`));
  for (
    const key of [
      "owner",
      "repo",
      "npmName",
      "registryName",
      "imageName",
      "displayName",
      "description",
      "author",
      "license",
    ]
  ) {
    if (typeof raw[key] !== "string" || raw[key].length === 0) {
      throw new Error(`packaging/identity.json: "${key}" must be a non-empty string`);
    }
  }
  if (raw.registryName !== `io.github.${raw.owner}/${raw.repo}`) {
    throw new Error(
      `packaging/identity.json: "registryName" must be io.github.${raw.owner}/${raw.repo}`,
    );
  }
  return raw as Identity;
}

async function main(args: readonly string[]): Promise<number> {
  const identity = await readIdentity();
  const release = args.find((arg) => arg.startsWith("--release="))?.slice("--release=".length);
  if (release !== undefined) {
    const sha = args.find((arg) => arg.startsWith("--bundle-sha256="))?.slice(16) ?? "";
    await Deno.mkdir(release, { recursive: true });
    await Deno.writeTextFile(
      `${release}/server.json`,
      releaseServerJson(identity, VERSION, { bundleSha256: sha }),
    );
    console.error(`generate: wrote ${release}/server.json`);
    return 0;
  }
  const check = args.includes("--check");
  let stale = 0;
  for (const [path, expected] of descriptors(identity, VERSION)) {
    let current: string | null = null;
    try {
      current = await Deno.readTextFile(`${ROOT}${path}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (current === expected) continue;
    if (check) {
      console.error(`generate: ${path} is not what packaging/identity.json generates`);
      stale++;
    } else {
      await Deno.mkdir(`${ROOT}${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${ROOT}${path}`, expected);
      console.error(`generate: wrote ${path}`);
    }
  }
  if (stale > 0) console.error("generate: run `make descriptors` and commit the result");
  return stale > 0 ? 1 : 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`generate: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
