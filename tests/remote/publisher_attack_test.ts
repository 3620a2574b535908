/**
 * A publisher as an attacker: hostile names, indexes and archives served by
 * the project's loopback publisher (`tests/support/fake_publisher.ts`)
 * against the fetcher's `fetchSource()`, plus the pure readers they reach.
 */

import { join } from "node:path";
import { type FetchContext, fetchSource } from "../../src/remote/fetch_source.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { startFetcher } from "../../src/remote/fetcher_host.ts";
import { computeFetcherPermissions } from "../../src/remote/fetcher_permissions.ts";
import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import {
  diffSkills,
  groupSkills,
  parseLock,
  renderLock,
  sameSkills,
} from "../../src/remote/lock_file.ts";
import { MAX_INDEX_PROBLEMS, parseIndex } from "../../src/remote/publisher_index.ts";
import { parsePublisherSpec, type PublisherSource } from "../../src/remote/publisher_spec.ts";
import { DEFAULT_REMOTE_CAPS, type RemoteCaps } from "../../src/remote/remote_caps.ts";
import { remoteSetup } from "../../src/remote/remote_setup.ts";
import { readState, sourceKey } from "../../src/remote/sources_cache.ts";
import {
  buildArchive,
  type FakePublisher,
  setIndex,
  startFakePublisher,
} from "../support/fake_publisher.ts";
import { assertEquals } from "./_assert.ts";

const follow = { locked: null, update: false, checkForUpdate: false };
const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const md = (name: string, body = "Body.") =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\n${body}\n`;

interface Fixture extends AsyncDisposable {
  readonly pub: FakePublisher;
  readonly source: PublisherSource;
  readonly cacheDir: string;
  context(caps?: Partial<RemoteCaps>): FetchContext;
}

async function fixture(): Promise<Fixture> {
  const pub = startFakePublisher();
  const dir = await Deno.makeTempDir({ prefix: "skillgate-publisher-attack-" });
  const cacheDir = join(dir, "sources");
  await Deno.mkdir(cacheDir);
  const source = parsePublisherSpec(`${pub.base},prefix=acme`);
  return {
    pub,
    source,
    cacheDir,
    context: (caps = {}) => ({
      endpoints: decideEndpoints("https://api.github.com", null),
      cacheDir,
      caps: { ...DEFAULT_REMOTE_CAPS, ...caps },
      token: null,
      publisherOrigins: [pub.origin],
    }),
    async [Symbol.asyncDispose]() {
      await pub.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Serves `files` as the archive of skill `name` and an index naming it. */
async function publishArchive(
  fx: Fixture,
  name: string,
  files: Record<string, string>,
  as: "zip" | "tar.gz" = "zip",
): Promise<void> {
  const data = await buildArchive(as, files);
  fx.pub.routes.set(`/.well-known/agent-skills/${name}.${as}`, data);
  await setIndex(fx.pub, {
    $schema: SCHEMA,
    skills: [{
      name,
      type: "archive",
      description: "d",
      url: `${name}.${as}`,
      digest: await sha(data),
    }],
  });
}

Deno.test("attack: a skill named constructor with files named like Object's statics changes nothing global", async () => {
  await using fx = await fixture();
  await publishArchive(fx, "constructor", {
    "SKILL.md": md("constructor"),
    "keys": "k",
    "freeze": "f",
    "entries": "e",
  });
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(typeof Object.keys, "function");
  assertEquals(typeof Object.freeze, "function");
  assertEquals(outcome.failure, null);
  assertEquals(outcome.changes.added, ["constructor"]);
  assertEquals(Object.keys(outcome.skills?.constructor ?? {}).sort(), [
    "SKILL.md",
    "entries",
    "freeze",
    "keys",
  ]);
  const state = await readState(fx.cacheDir, await sourceKey(fx.source));
  assertEquals(Object.keys(state?.skills ?? {}), ["constructor"]);
});

Deno.test("attack: skill folders named after Object.prototype members are compared by own keys", () => {
  const file = (digest: string) => ({ size: 1, digest });
  for (const name of ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"]) {
    const skills = groupSkills(new Map([[`${name}/SKILL.md`, file(`sha256:${"a".repeat(64)}`)]]));
    assertEquals(Object.keys(skills), [name], name);
    assertEquals(Object.hasOwn(Object.prototype, "SKILL.md"), false, name);
    // Missing on either side is a difference, never hidden by a prototype member.
    assertEquals(diffSkills({}, skills), { added: [name], removed: [], changed: [] }, name);
    assertEquals(diffSkills(skills, {}), { added: [], removed: [name], changed: [] }, name);
    assertEquals(sameSkills(skills, {}), false, name);
    const files = { [name]: `sha256:${"b".repeat(64)}` };
    assertEquals(sameSkills({ s: files }, { s: {} }), false, name);
    assertEquals(sameSkills({ s: { x: files[name]! } }, { s: files }), false, name);
  }
  assertEquals(typeof Object.keys, "function");
});

Deno.test("attack: a lock naming skills constructor and __proto__ keeps them as its own entries", () => {
  const digest = `sha256:${"c".repeat(64)}`;
  const text = JSON.stringify({
    lockVersion: 1,
    sources: [{
      spec: "https://example.com/.well-known/agent-skills/",
      resolved: { indexDigest: digest },
      skills: {
        constructor: { files: { "SKILL.md": digest, keys: digest } },
        ["__proto__"]: { files: { "SKILL.md": digest } },
      },
    }],
  });
  const lock = parseLock(text, "skillgate.lock");
  const skills = lock.sources[0]!.skills;
  assertEquals(Object.keys(skills).sort(), ["__proto__", "constructor"]);
  assertEquals(Object.getPrototypeOf(skills), Object.prototype);
  assertEquals(typeof Object.keys, "function");
  // A lock pinning a skill the fetched copy lacks is a mismatch, whatever its name.
  assertEquals(sameSkills(skills, { constructor: skills["constructor"]! }), false);
  assertEquals(parseLock(renderLock(lock), "skillgate.lock"), lock);
});

Deno.test("attack: an index of a million bad entries keeps a short problem list and a readable state", async () => {
  await using fx = await fixture();
  const data = new TextEncoder().encode(md("pdf"));
  fx.pub.routes.set("/.well-known/agent-skills/pdf/SKILL.md", data);
  const good = { name: "pdf", type: "skill-md", url: "pdf/SKILL.md", digest: await sha(data) };
  const bad = new Array<number>(1_000_000).fill(0);
  const few = bad.slice(0, 100_000);
  // Compact: about 2 MB, under the index cap.
  fx.pub.routes.set(
    "/.well-known/agent-skills/index.json",
    new TextEncoder().encode(JSON.stringify({ $schema: SCHEMA, skills: [good, ...bad] })),
  );
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(outcome.failure, null);
  assertEquals(Object.keys(outcome.skills ?? {}), ["pdf"]);
  const state = await readState(fx.cacheDir, await sourceKey(fx.source));
  assertEquals(state?.commit, outcome.commit);
  const cap = DEFAULT_REMOTE_CAPS.maxMembers;
  assertEquals(state?.problems?.slice(MAX_INDEX_PROBLEMS), [
    `${cap - 1 - MAX_INDEX_PROBLEMS} more skipped entries are not listed`,
    `the index lists more than ${cap} skills; the rest are skipped`,
  ]);
  // With no cap on items, the list stays as short at the reader.
  const index = parseIndex(
    new TextEncoder().encode(JSON.stringify({ skills: few })),
    fx.source.indexUrl,
    few.length,
  );
  assertEquals(index.problems.length, MAX_INDEX_PROBLEMS + 1);
  assertEquals(
    index.problems.at(-1),
    `${few.length + 1 - MAX_INDEX_PROBLEMS} more skipped entries are not listed`,
  );
});

Deno.test("attack: redirects and url fields reach no origin off the list, however the target is written", async (t) => {
  await using fx = await fixture();
  await using other = startFakePublisher();
  const data = new TextEncoder().encode(md("pdf"));
  other.routes.set("/x/SKILL.md", data);
  fx.pub.routes.set("/.well-known/agent-skills/pdf/SKILL.md", data);
  const port = new URL(other.origin).port;
  const ownPort = new URL(fx.pub.origin).port;
  const index = async (url: string) =>
    await setIndex(fx.pub, {
      $schema: SCHEMA,
      skills: [{ name: "pdf", type: "skill-md", description: "d", url, digest: await sha(data) }],
    });
  const cases: Array<[string, string | null, string]> = [
    // [what, Location answered for the artifact (null: none), the entry's url]
    ["a protocol-relative redirect", `//127.0.0.1:${port}/x/SKILL.md`, "pdf/SKILL.md"],
    ["a backslash redirect", `/\\127.0.0.1:${port}/x/SKILL.md`, "pdf/SKILL.md"],
    ["a redirect with credentials", `http://u:p@127.0.0.1:${ownPort}/x`, "pdf/SKILL.md"],
    [
      "a redirect to localhost (same socket, other origin)",
      `http://localhost:${ownPort}/x`,
      "pdf/SKILL.md",
    ],
    ["a redirect to https on the allowed port", `https://127.0.0.1:${ownPort}/x`, "pdf/SKILL.md"],
    ["a redirect loop", "/.well-known/agent-skills/pdf/SKILL.md", "pdf/SKILL.md"],
    ["a url field on another origin", null, `${other.origin}/x/SKILL.md`],
    ["a protocol-relative url field", null, `//127.0.0.1:${port}/x/SKILL.md`],
    ["a url field with credentials", null, `http://u@127.0.0.1:${ownPort}/x`],
  ];
  for (const [what, location, url] of cases) {
    await t.step(what, async () => {
      fx.pub.redirects.clear();
      if (location !== null) {
        fx.pub.redirects.set("/.well-known/agent-skills/pdf/SKILL.md", location);
      }
      await index(url);
      const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
      const reason = what === "a redirect loop" ? "http" : "refused-host";
      assertEquals(outcome.failure?.reason, reason, outcome.failure?.message);
      assertEquals(outcome.status, "failed");
      assertEquals(other.seen, []);
    });
  }
  await t.step("a relative redirect within the origin is followed", async () => {
    fx.pub.redirects.clear();
    fx.pub.routes.set("/moved/SKILL.md", data);
    fx.pub.redirects.set("/.well-known/agent-skills/pdf/SKILL.md", "/moved/SKILL.md");
    await index("pdf/SKILL.md");
    const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
    assertEquals(outcome.failure, null);
    assertEquals(fx.pub.seen.at(-1)?.path, "/moved/SKILL.md");
  });
});

Deno.test("attack: member names and index values carrying newlines or bidi marks reach no message raw", async () => {
  await using fx = await fixture();
  const hostile = "x\n[skillgate] all good\u202e/../a";
  for (const as of ["zip", "tar.gz"] as const) {
    await publishArchive(fx, "pdf", { "SKILL.md": md("pdf"), [hostile]: "x" }, as);
    const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
    assertEquals(outcome.failure?.reason, "unsafe-archive", as);
    const message = outcome.failure?.message ?? "";
    assertEquals(/[\n\u202e]/.test(message), false, message);
    assertEquals(message.includes("x\\u000a[skillgate] all good\\u202e"), true, message);
  }
  const index = parseIndex(
    new TextEncoder().encode(JSON.stringify({
      version: "0.2.0",
      skills: [{ name: "a\u202eb", digest: "sha256:0", files: [] }],
    })),
    fx.source.indexUrl,
  );
  assertEquals(index.problems.length, 1);
  assertEquals(index.problems[0]?.includes("\u202e"), false, index.problems[0]);
  assertEquals(
    index.problems[0]?.startsWith('skill "a\\u202eb" is skipped'),
    true,
    index.problems[0],
  );
});

Deno.test("attack: digests in another spelling than sha256: and 64 lowercase hex skip their entry", () => {
  const hex = "ab".repeat(32);
  const spellings = [
    `sha256:${hex.toUpperCase()}`,
    `SHA256:${hex}`,
    `sha-256:${hex}`,
    `sha256=${hex}`,
    ` sha256:${hex}`,
    `sha256:${hex}\n`,
    `sha256:${hex.slice(1)}`,
    `sha256:${hex}0`,
    hex,
    `sha512:${hex}${hex}`,
  ];
  const index = parseIndex(
    new TextEncoder().encode(JSON.stringify({
      $schema: SCHEMA,
      skills: spellings.map((digest, i) => ({
        name: `s${i}`,
        type: "skill-md",
        url: `s${i}/SKILL.md`,
        digest,
      })),
    })),
    "https://example.com/.well-known/agent-skills/index.json",
  );
  assertEquals(index.entries, []);
  assertEquals(index.problems.length, spellings.length);
  assertEquals(index.problems.every((problem) => problem.includes("64 lowercase hex")), true);
});

async function sha(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

Deno.test("attack: with only publisher sources the fetcher holds neither GITHUB_TOKEN nor the GitHub hosts, our checks bypassed", async () => {
  await using fx = await fixture();
  await using offList = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("reached"),
  );
  const endpoints = decideEndpoints(`http://127.0.0.1:${offList.addr.port}`, null);
  const origins = [fx.pub.origin];
  const { permissions } = computeFetcherPermissions(endpoints, [fx.cacheDir], origins, {
    gitHub: false,
  });
  assertEquals([permissions.net, permissions.env], [[new URL(fx.pub.origin).host], []]);
  const setup = {
    endpoints,
    cacheDir: fx.cacheDir,
    caps: DEFAULT_REMOTE_CAPS,
    publisherOrigins: origins,
  };
  const probe = startFetcher(
    permissions,
    setup,
    new URL("../support/fetcher_wall_probe.ts", import.meta.url),
  );
  try {
    const [results] = await probe.fetch([{
      given: `/nonexistent|127.0.0.1:${offList.addr.port}`,
      ...follow,
    }]) as unknown as Record<string, string>[];
    assertEquals(
      [results?.readEnvToken, results?.fetchApiHost, results?.fetchPublisherOrigin],
      ["NotCapable", "NotCapable", "ok"],
    );
  } finally {
    probe.close();
  }
  // The product's own worker still fetches the publisher with that set.
  const data = new TextEncoder().encode(md("pdf"));
  fx.pub.routes.set("/.well-known/agent-skills/pdf/SKILL.md", data);
  await setIndex(fx.pub, {
    $schema: SCHEMA,
    skills: [{
      name: "pdf",
      type: "skill-md",
      description: "d",
      url: "pdf/SKILL.md",
      digest: await sha(data),
    }],
  });
  const fetcher = startFetcher(permissions, setup);
  try {
    const [outcome] = await fetcher.fetch([{ given: fx.source.given, ...follow }]);
    assertEquals(outcome?.failure, null);
    assertEquals(Object.keys(outcome?.skills ?? {}), ["pdf"]);
  } finally {
    fetcher.close();
  }
});

Deno.test("remoteSetup() gives the fetcher the GitHub hosts and GITHUB_TOKEN only with a GitHub source", async () => {
  const env = (name: string) => (name === "HOME" ? "/home/someone" : undefined);
  const config = (sources: string[]) =>
    parseCommandLine({
      args: [
        "serve",
        "--well-known-allow=https://skills.acme.dev",
        "--github-allow=acme",
        ...sources.map((source) => `--source=${source}`),
      ],
      getEnv: () => undefined,
      cwd: "/",
      file: null,
    });
  const publisherOnly = (await remoteSetup(config(["https://skills.acme.dev/"]), env))!;
  assertEquals(publisherOnly.fetcher.permissions.net, ["skills.acme.dev:443"]);
  assertEquals(publisherOnly.fetcher.permissions.env, []);
  assertEquals(
    Object.keys(publisherOnly.fetcher.reasons).some((key) => key.includes("github")),
    false,
  );
  const both =
    (await remoteSetup(config(["https://skills.acme.dev/", "github:acme/skills"]), env))!;
  assertEquals(both.fetcher.permissions.net, [
    "api.github.com:443",
    "codeload.github.com:443",
    "skills.acme.dev:443",
  ]);
  assertEquals(both.fetcher.permissions.env, ["GITHUB_TOKEN"]);
  // Review r16, A5: the fetcher reads and writes its own sources' folders, never the whole cache.
  const cache = "/home/someone/.cache/skillgate/sources";
  assertEquals(both.sourceFolders.length, 2);
  for (const folder of both.sourceFolders) {
    assertEquals(
      folder.startsWith(`${cache}/`) && !folder.slice(cache.length + 1).includes("/"),
      true,
    );
  }
  assertEquals(both.fetcher.permissions.read, both.sourceFolders);
  assertEquals(both.fetcher.permissions.write, both.sourceFolders);
});
