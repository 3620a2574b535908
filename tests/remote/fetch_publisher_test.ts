/**
 * A publisher source end to end in-process: the fetcher's `fetchSource()`
 * against the project's loopback publisher (`tests/support/fake_publisher.ts`).
 */

import { join } from "node:path";
import { type FetchContext, fetchSource } from "../../src/remote/fetch_source.ts";
import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import { parsePublisherSpec, type PublisherSource } from "../../src/remote/publisher_spec.ts";
import { DEFAULT_REMOTE_CAPS, type RemoteCaps } from "../../src/remote/remote_caps.ts";
import { remoteRoots } from "../../src/remote/remote_roots.ts";
import { readState, sourceKey } from "../../src/remote/sources_cache.ts";
import {
  buildArchive,
  type FakePublisher,
  publishSkills,
  setIndex,
  startFakePublisher,
} from "../support/fake_publisher.ts";
import { buildZip } from "../support/zip_builder.ts";
import { assertEquals } from "./_assert.ts";
import { buildTarball, type TarMember } from "./_tarball.ts";

const follow = { locked: null, update: false, checkForUpdate: false };
const md = (name: string, body = "Body.") =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\n${body}\n`;

interface Fixture extends AsyncDisposable {
  readonly pub: FakePublisher;
  readonly source: PublisherSource;
  readonly cacheDir: string;
  context(caps?: Partial<RemoteCaps>, origins?: string[]): FetchContext;
  served(): Promise<string[]>;
}

async function fixture(): Promise<Fixture> {
  const pub = startFakePublisher();
  const dir = await Deno.makeTempDir({ prefix: "skillgate-publisher-" });
  const cacheDir = join(dir, "sources");
  await Deno.mkdir(cacheDir);
  const source = parsePublisherSpec(`${pub.base},prefix=acme`);
  const context = (caps: Partial<RemoteCaps> = {}, origins = [pub.origin]): FetchContext => ({
    endpoints: decideEndpoints("https://api.github.com", null),
    cacheDir,
    caps: { ...DEFAULT_REMOTE_CAPS, ...caps },
    token: null,
    publisherOrigins: origins,
  });
  const served = async () => {
    const key = await sourceKey(source);
    const state = await readState(cacheDir, key);
    if (state === null) return [];
    const root = join(cacheDir, key, "commits", state.commit, "agent-skills");
    const out: string[] = [];
    const walk = async (rel: string) => {
      for await (const entry of Deno.readDir(join(root, rel))) {
        const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory) await walk(path);
        else out.push(path);
      }
    };
    await walk("");
    return out.sort();
  };
  return {
    pub,
    source,
    cacheDir,
    context,
    served,
    async [Symbol.asyncDispose]() {
      await pub.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("fetchSource() serves a $schema discovery index: skill-md, .tar.gz and .zip entries", async () => {
  await using fx = await fixture();
  const digest = await publishSkills(fx.pub, [
    { name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } },
    { name: "docx", as: "tar.gz", files: { "SKILL.md": md("docx"), "ref/notes.md": "n" } },
    { name: "csv", as: "zip", files: { "SKILL.md": md("csv"), "scripts/split.py": "print()" } },
  ]);
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(outcome.failure, null);
  assertEquals([outcome.status, outcome.commit], ["fetched", digest.slice(7)]);
  assertEquals(outcome.changes.added, ["csv", "docx", "pdf"]);
  assertEquals(await fx.served(), [
    "csv/SKILL.md",
    "csv/scripts/split.py",
    "docx/SKILL.md",
    "docx/ref/notes.md",
    "pdf/SKILL.md",
  ]);
  assertEquals(Object.keys(outcome.skills?.docx ?? {}), ["SKILL.md", "ref/notes.md"]);
});

Deno.test("fetchSource() serves a version 0.2.0 index: per-file digests, .tar.gz and .zip packages", async () => {
  await using fx = await fixture();
  await publishSkills(fx.pub, [
    { name: "wrangler", as: "files", files: { "SKILL.md": md("wrangler"), "ref/a.md": "a" } },
    { name: "review", as: "files+tar.gz", files: { "SKILL.md": md("review"), "b.md": "b" } },
    { name: "deploy", as: "files+zip", files: { "SKILL.md": md("deploy"), "c/d.md": "d" } },
  ]);
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(outcome.failure, null);
  assertEquals(await fx.served(), [
    "deploy/SKILL.md",
    "deploy/c/d.md",
    "review/SKILL.md",
    "review/b.md",
    "wrangler/SKILL.md",
    "wrangler/ref/a.md",
  ]);
  // Packages were used: no per-file request for the packaged skills.
  const paths = fx.pub.seen.map((request) => request.path);
  assertEquals(paths.some((path) => path.includes("/review/")), false);
  assertEquals(paths.includes("/.well-known/agent-skills/review.tar.gz"), true);
  assertEquals(paths.includes("/.well-known/agent-skills/wrangler/ref/a.md"), true);
});

Deno.test("attack: a digest mismatch is refused before writing and the last good copy is kept", async () => {
  await using fx = await fixture();
  await publishSkills(fx.pub, [{ name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } }]);
  const good = await fetchSource({ source: fx.source, ...follow }, fx.context());
  for (
    const [as, path] of [
      ["skill-md", "/.well-known/agent-skills/pdf/SKILL.md"],
      ["zip", "/.well-known/agent-skills/pdf.zip"],
      ["files", "/.well-known/agent-skills/pdf/SKILL.md"],
      ["files+tar.gz", "/.well-known/agent-skills/pdf.tar.gz"],
    ] as const
  ) {
    await publishSkills(fx.pub, [{
      name: "pdf",
      as,
      files: { "SKILL.md": md("pdf", `v2 ${as}`) },
    }]);
    const tampered = as === "files+tar.gz" || as === "zip"
      ? await buildArchive(as === "zip" ? "zip" : "tar.gz", { "SKILL.md": md("pdf", "evil") })
      : new TextEncoder().encode(md("pdf", "evil"));
    fx.pub.routes.set(path, tampered);
    const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
    assertEquals(outcome.failure?.reason, "digest-mismatch", `${as}: ${outcome.failure?.message}`);
    assertEquals([outcome.status, outcome.commit], ["failed", good.commit]);
    assertEquals(await fx.served(), ["pdf/SKILL.md"]);
    const key = await sourceKey(fx.source);
    const text = await Deno.readTextFile(
      join(fx.cacheDir, key, "commits", good.commit!, "agent-skills", "pdf", "SKILL.md"),
    );
    assertEquals(text, md("pdf"));
    // Nothing half-written is left beside the good copy.
    const left = [];
    for await (const entry of Deno.readDir(join(fx.cacheDir, key))) left.push(entry.name);
    assertEquals(left.filter((name) => name.startsWith("tmp-")), []);
  }
});

Deno.test("attack: a package whose file is not in the files list, or lacks one, is refused", async () => {
  await using fx = await fixture();
  await publishSkills(fx.pub, [
    { name: "pdf", as: "files+zip", files: { "SKILL.md": md("pdf"), "a.md": "a" } },
  ]);
  const index = JSON.parse(
    new TextDecoder().decode(fx.pub.routes.get("/.well-known/agent-skills/index.json")),
  );
  index.skills[0].files = index.skills[0].files.filter((f: { path: string }) => f.path !== "a.md");
  await setIndex(fx.pub, index);
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(outcome.failure?.reason, "digest-mismatch", outcome.failure?.message);
  assertEquals(await fx.served(), []);
});

Deno.test("attack: an archive without a root SKILL.md is refused (.tar.gz and .zip)", async () => {
  for (const as of ["tar.gz", "zip"] as const) {
    await using fx = await fixture();
    await publishSkills(fx.pub, [
      { name: "pdf", as, files: { "pdf/SKILL.md": md("pdf"), "README.md": "r" } },
    ]);
    const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
    assertEquals(outcome.failure?.reason, "bad-archive", outcome.failure?.message);
    assertEquals(outcome.failure?.message.includes("no SKILL.md at its root"), true);
    assertEquals(await fx.served(), []);
  }
});

const SKILL = { name: "SKILL.md", data: md("pdf") };
const HOSTILE_TAR: Array<[string, TarMember[], string]> = [
  ["a ../x member", [SKILL, { name: "../x", data: "x" }], "unsafe-archive"],
  ["an absolute member", [SKILL, { name: "/tmp/x", data: "x" }], "unsafe-archive"],
  [
    "a symbolic link",
    [SKILL, { name: "l", type: "symlink", linkname: "/etc/passwd" }],
    "unsafe-archive",
  ],
  ["a hard link", [SKILL, { name: "h", type: "hardlink", linkname: "SKILL.md" }], "unsafe-archive"],
  ["an oversize member", [SKILL, { name: "big", data: new Uint8Array(4096) }], "too-large"],
];

Deno.test("attack: ../x, absolute, link and oversize members are refused in both archive kinds", async (t) => {
  for (const [what, members, reason] of HOSTILE_TAR) {
    for (const kind of ["tar.gz", "zip"] as const) {
      await t.step(`${what} in a .${kind}`, async () => {
        await using fx = await fixture();
        const archive = kind === "tar.gz" ? await buildTarball(members) : await buildZip(
          members.map((m) => ({
            name: m.name,
            data: (m.type === "symlink" || m.type === "hardlink" ? m.linkname : m.data) ?? "",
            type: m.type === "symlink" || m.type === "hardlink" ? "symlink" : "file",
          })),
        );
        const digest = `sha256:${await sha(archive)}`;
        fx.pub.routes.set(`/.well-known/agent-skills/pdf.${kind}`, archive);
        await setIndex(fx.pub, {
          $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
          skills: [{ name: "pdf", type: "archive", description: "d", url: `pdf.${kind}`, digest }],
        });
        const outcome = await fetchSource(
          { source: fx.source, ...follow },
          fx.context({ maxMemberBytes: 1024 }),
        );
        assertEquals(outcome.failure?.reason, reason, outcome.failure?.message);
        assertEquals(await fx.served(), []);
        // Nothing escaped next to the cache.
        const outside = [];
        for await (const entry of Deno.readDir(join(fx.cacheDir, ".."))) outside.push(entry.name);
        assertEquals(outside, ["sources"]);
      });
    }
  }
});

Deno.test("attack: a redirect to an origin off the list is refused and never requested", async () => {
  await using fx = await fixture();
  await using other = startFakePublisher();
  await publishSkills(other, [{ name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } }]);
  await publishSkills(fx.pub, [{ name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } }]);
  fx.pub.redirects.set(
    "/.well-known/agent-skills/pdf/SKILL.md",
    `${other.base}pdf/SKILL.md`,
  );
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(outcome.failure?.reason, "refused-host", outcome.failure?.message);
  assertEquals(outcome.failure?.message.includes(fx.pub.origin), false);
  assertEquals(other.seen, []);
  // The same redirect to an allowed origin is followed.
  const allowed = await fetchSource(
    { source: fx.source, ...follow },
    fx.context({}, [fx.pub.origin, other.origin]),
  );
  assertEquals(allowed.failure, null);
  assertEquals(other.seen.map((r) => r.path), ["/.well-known/agent-skills/pdf/SKILL.md"]);
  // The index itself redirected off the list: refused, the copy fetched above is kept.
  fx.pub.redirects.set("/.well-known/agent-skills/index.json", `${other.base}index.json`);
  const seenBefore = other.seen.length;
  const index = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals([index.failure?.reason, index.commit], ["refused-host", allowed.commit]);
  assertEquals(other.seen.length, seenBefore);
});

Deno.test("fetchSource() re-polls with If-None-Match; a 304 does no other work", async () => {
  await using fx = await fixture();
  const digest = await publishSkills(fx.pub, [
    { name: "pdf", as: "tar.gz", files: { "SKILL.md": md("pdf") } },
  ]);
  await fetchSource({ source: fx.source, ...follow }, fx.context());
  const before = fx.pub.seen.length;
  const key = await sourceKey(fx.source);
  const stateBefore = await readState(fx.cacheDir, key);
  const again = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals([again.status, again.commit, again.failure], ["unchanged", digest.slice(7), null]);
  const polled = fx.pub.seen.slice(before);
  assertEquals(polled.map((r) => [r.path, r.status]), [[
    "/.well-known/agent-skills/index.json",
    304,
  ]]);
  assertEquals(polled[0]!.ifNoneMatch !== null, true);
  assertEquals(polled[0]!.ifModifiedSince !== null, true);
  const stateAfter = await readState(fx.cacheDir, key);
  assertEquals(stateAfter?.commit, stateBefore?.commit);
  assertEquals(stateAfter?.skills, stateBefore?.skills);
});

Deno.test("fetchSource() prunes a skill removed from the index after the sync succeeds", async () => {
  await using fx = await fixture();
  await publishSkills(fx.pub, [
    { name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } },
    { name: "docx", as: "skill-md", files: { "SKILL.md": md("docx") } },
  ]);
  const first = await fetchSource({ source: fx.source, ...follow }, fx.context());
  await publishSkills(fx.pub, [{ name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } }]);
  const second = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(second.changes, { added: [], removed: ["docx"], changed: [] });
  assertEquals(Object.keys(second.skills ?? {}), ["pdf"]);
  assertEquals(await fx.served(), ["pdf/SKILL.md"]);
  // A third revision: the first one (the last to hold docx) is gone from the cache.
  await publishSkills(fx.pub, [{
    name: "pdf",
    as: "skill-md",
    files: { "SKILL.md": md("pdf", "3") },
  }]);
  await fetchSource({ source: fx.source, ...follow }, fx.context());
  const key = await sourceKey(fx.source);
  const revisions = [];
  for await (const entry of Deno.readDir(join(fx.cacheDir, key, "commits"))) {
    revisions.push(entry.name);
  }
  assertEquals(revisions.includes(first.commit!), false);
  assertEquals(revisions.length, 2);
});

Deno.test("with the publisher down at start the cache is served, marked stale", async () => {
  await using fx = await fixture();
  await publishSkills(fx.pub, [{ name: "pdf", as: "zip", files: { "SKILL.md": md("pdf") } }]);
  const good = await fetchSource({ source: fx.source, ...follow }, fx.context());
  await fx.pub.stop();
  const down = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals([down.status, down.failure?.reason, down.commit], [
    "failed",
    "offline",
    good.commit,
  ]);
  const options = { cacheDir: fx.cacheDir, lock: null, frozen: false, caps: DEFAULT_REMOTE_CAPS };
  const [atStart] = await remoteRoots([fx.source], options);
  assertEquals([atStart?.isUnavailable, atStart?.prefix], [undefined, "acme"]);
  assertEquals(atStart?.path.endsWith(join(good.commit!, "agent-skills")), true);
  const [after] = await remoteRoots([fx.source], options, new Map([[fx.source.spec, down]]));
  assertEquals(after?.notes?.map((n) => n.reason), ["remote-stale"]);
  assertEquals(
    after?.notes?.[0]?.detail.includes(`index sha256:${good.commit!.slice(0, 12)}`),
    true,
  );
});

Deno.test("an index with skipped entries serves the rest and reports them as remote-index", async () => {
  await using fx = await fixture();
  const data = new TextEncoder().encode(md("pdf"));
  fx.pub.routes.set("/.well-known/agent-skills/pdf/SKILL.md", data);
  await setIndex(fx.pub, {
    skills: [
      { name: "pdf", type: "skill-md", url: "pdf/SKILL.md", digest: `sha256:${await sha(data)}` },
      { name: "Bad Name", type: "skill-md", url: "x", digest: `sha256:${"0".repeat(64)}` },
    ],
  });
  const outcome = await fetchSource({ source: fx.source, ...follow }, fx.context());
  assertEquals(outcome.failure, null);
  assertEquals(Object.keys(outcome.skills ?? {}), ["pdf"]);
  const [root] = await remoteRoots([fx.source], {
    cacheDir: fx.cacheDir,
    lock: null,
    frozen: false,
    caps: DEFAULT_REMOTE_CAPS,
  });
  assertEquals(root?.notes?.map((n) => n.reason), ["remote-index", "remote-index"]);
  assertEquals(root?.notes?.[1]?.detail.includes('skill "Bad Name" is skipped'), true);
});

Deno.test("with a lock, a changed index is reported as an update and nothing moves until --update", async () => {
  await using fx = await fixture();
  await publishSkills(fx.pub, [{ name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf") } }]);
  const first = await fetchSource({ source: fx.source, ...follow }, fx.context());
  const locked = { spec: fx.source.spec, commit: first.commit!, skills: first.skills! };
  const next = await publishSkills(fx.pub, [
    { name: "pdf", as: "skill-md", files: { "SKILL.md": md("pdf", "v2") } },
  ]);
  const before = fx.pub.seen.length;
  const pinned = await fetchSource(
    { source: fx.source, locked, update: false, checkForUpdate: false },
    fx.context(),
  );
  assertEquals([pinned.status, pinned.commit], ["unchanged", first.commit]);
  assertEquals(fx.pub.seen.length, before); // pinned and cached: no request at all
  const polled = await fetchSource(
    { source: fx.source, locked, update: false, checkForUpdate: true },
    fx.context(),
  );
  assertEquals([polled.status, polled.updateAvailable], ["unchanged", next.slice(7)]);
  const moved = await fetchSource(
    { source: fx.source, locked, update: true, checkForUpdate: false },
    fx.context(),
  );
  assertEquals([moved.status, moved.commit, moved.changes.changed], ["fetched", next.slice(7), [
    "pdf",
  ]]);
});

async function sha(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
