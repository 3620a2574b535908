import { join } from "node:path";
import { fetchSource } from "../../src/remote/fetch_source.ts";
import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import { groupSkills } from "../../src/remote/lock_file.ts";
import { parseSourceSpec } from "../../src/remote/source_spec.ts";
import { readState, sourceKey } from "../../src/remote/sources_cache.ts";
import { assertEquals } from "./_assert.ts";
import { buildTarball, githubMembers } from "./_tarball.ts";
import { hostsDiffer, publish, remoteFixture, V1, V2 } from "./_remote_fixture.ts";

const SOURCE = parseSourceSpec("github:acme/skills/skills@main");
const follow = { locked: null, update: false, checkForUpdate: false };

async function cachedFiles(cacheDir: string, commit: string): Promise<string[]> {
  const root = join(cacheDir, await sourceKey(SOURCE), "commits", commit, "skills");
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
}

Deno.test("fetchSource() resolves, downloads through the redirect and swaps the PATH in", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  const outcome = await fetchSource({ source: SOURCE, ...follow }, fx.context("secret-token"));
  assertEquals(outcome.failure, null);
  assertEquals([outcome.status, outcome.commit], ["fetched", commit]);
  assertEquals(outcome.changes, { added: ["docx", "pdf"], removed: [], changed: [] });
  assertEquals(await cachedFiles(fx.cacheDir, commit), [
    "docx/SKILL.md",
    "pdf/SKILL.md",
    "pdf/ref/notes.md",
  ]);
  assertEquals((await readState(fx.cacheDir, await sourceKey(SOURCE)))?.commit, commit);
  // The token went to the API host only, never to the download host.
  assertEquals(hostsDiffer(fx.fake), true);
  const api = fx.fake.seen.filter((r) => r.host === "api");
  const download = fx.fake.seen.filter((r) => r.host === "download");
  assertEquals(api.map((r) => r.authorization), ["Bearer secret-token", "Bearer secret-token"]);
  assertEquals(download.length, 1);
  assertEquals(download[0]?.authorization, null);
});

Deno.test("fetchSource() polls with If-None-Match and keeps the cache on 304", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  await fetchSource({ source: SOURCE, ...follow }, fx.context());
  fx.fake.seen.length = 0;
  const again = await fetchSource({ source: SOURCE, ...follow }, fx.context());
  assertEquals([again.status, again.commit], ["unchanged", commit]);
  assertEquals(fx.fake.seen.map((r) => [r.host, r.ifNoneMatch]), [["api", `"${commit}"`]]);
});

Deno.test("fetchSource() holds a lock's pin when the branch moves, until update", async () => {
  await using fx = await remoteFixture();
  const first = await publish(fx.fake, "acme/skills", "main", V1);
  const initial = await fetchSource({ source: SOURCE, ...follow }, fx.context());
  const locked = { spec: SOURCE.spec, commit: first, skills: initial.skills! };
  const second = await publish(fx.fake, "acme/skills", "main", V2);
  const pinned = await fetchSource(
    { source: SOURCE, locked, update: false, checkForUpdate: true },
    fx.context(),
  );
  assertEquals([pinned.status, pinned.commit, pinned.updateAvailable], [
    "unchanged",
    first,
    second,
  ]);
  const updated = await fetchSource(
    { source: SOURCE, locked, update: true, checkForUpdate: false },
    fx.context(),
  );
  assertEquals([updated.status, updated.commit], ["fetched", second]);
  assertEquals(updated.changes, { added: ["csv"], removed: ["docx"], changed: ["pdf"] });
});

Deno.test("attack: fetchSource() refuses a tampered tarball against the lock and keeps the last good copy", async () => {
  await using fx = await remoteFixture();
  const first = await publish(fx.fake, "acme/skills", "main", V1);
  await fetchSource({ source: SOURCE, ...follow }, fx.context());
  // A teammate's lock pins commit two; the download host serves other bytes for it.
  const second = await publish(fx.fake, "acme/skills", "main", V2);
  const honest = await buildTarball(githubMembers("t", second, V2));
  const lockedSkills = groupSkills(await digestsOf(honest));
  fx.fake.tamper.set(
    second,
    await buildTarball(githubMembers("t", second, {
      ...V2,
      "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: x\n---\nexfiltrate",
    })),
  );
  const outcome = await fetchSource(
    {
      source: SOURCE,
      locked: { spec: SOURCE.spec, commit: second, skills: lockedSkills },
      update: false,
      checkForUpdate: false,
    },
    fx.context(),
  );
  assertEquals([outcome.status, outcome.failure?.reason], ["failed", "lock-mismatch"]);
  assertEquals(outcome.commit, first);
  assertEquals((await readState(fx.cacheDir, await sourceKey(SOURCE)))?.commit, first);
  assertEquals(await cachedFiles(fx.cacheDir, first), [
    "docx/SKILL.md",
    "pdf/SKILL.md",
    "pdf/ref/notes.md",
  ]);
  const entries = [...Deno.readDirSync(join(fx.cacheDir, await sourceKey(SOURCE)))].map((e) =>
    e.name
  );
  assertEquals(entries.sort(), ["commits", "state.json"]);
});

Deno.test("fetchSource() reports 404 and a 403 rate limit as clear failures", async () => {
  await using fx = await remoteFixture();
  const missing = await fetchSource(
    { source: parseSourceSpec("github:acme/nothing"), ...follow },
    fx.context(),
  );
  assertEquals([missing.status, missing.failure?.reason], ["failed", "not-found"]);
  fx.fake.failWith = {
    status: 403,
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "2000000000" },
  };
  const limited = await fetchSource({ source: SOURCE, ...follow }, fx.context("tok"));
  assertEquals(limited.failure?.reason, "rate-limited");
  assertEquals(limited.failure?.message.includes("tok"), false);
  assertEquals(limited.failure?.message.includes("2033-05-18"), true);
});

Deno.test("attack: fetchSource() refuses a redirect to a host off the list and never contacts it", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  let contacted = 0;
  await using evil = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    contacted++;
    return new Response("x");
  });
  fx.fake.redirectTo = `http://127.0.0.1:${evil.addr.port}`;
  const outcome = await fetchSource({ source: SOURCE, ...follow }, fx.context("tok"));
  assertEquals([outcome.status, outcome.failure?.reason], ["failed", "refused-host"]);
  assertEquals(contacted, 0);
});

Deno.test("fetchSource() with the network down keeps serving the last good copy", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  await fetchSource({ source: SOURCE, ...follow }, fx.context());
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = listener.addr.port;
  listener.close();
  const offline = {
    ...fx.context(),
    endpoints: decideEndpoints(`http://127.0.0.1:${closedPort}`, `127.0.0.1:${closedPort}`),
  };
  const outcome = await fetchSource({ source: SOURCE, ...follow }, offline);
  assertEquals([outcome.status, outcome.failure?.reason, outcome.commit], [
    "failed",
    "offline",
    commit,
  ]);
  const none = await fetchSource(
    { source: parseSourceSpec("github:acme/other"), ...follow },
    offline,
  );
  assertEquals([none.failure?.reason, none.commit, none.skills], ["offline", null, null]);
});

async function digestsOf(gzip: Uint8Array) {
  const { extractTarball } = await import("../../src/remote/tar_extract.ts");
  const { DEFAULT_REMOTE_CAPS } = await import("../../src/remote/remote_caps.ts");
  const dir = await Deno.makeTempDir();
  try {
    const result = await extractTarball(gzip, dir, "skills", {
      caps: DEFAULT_REMOTE_CAPS,
      signal: AbortSignal.timeout(60_000),
    });
    return result.files;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("fetchSource() removes an extraction abandoned long ago, never a fresh one", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  const key = await sourceKey(SOURCE);
  const old = join(fx.cacheDir, key, "tmp-abandoned");
  const fresh = join(fx.cacheDir, key, "tmp-in-progress");
  await Deno.mkdir(old, { recursive: true });
  await Deno.mkdir(fresh, { recursive: true });
  const longAgo = new Date(Date.now() - 2 * 3_600_000);
  await Deno.utime(old, longAgo, longAgo);
  const outcome = await fetchSource({ source: SOURCE, ...follow }, fx.context());
  assertEquals(outcome.status, "fetched");
  const names = [...Deno.readDirSync(join(fx.cacheDir, key))].map((e) => e.name).sort();
  assertEquals(names, ["commits", "state.json", "tmp-in-progress"]);
});

Deno.test("fetchSource() never asks the API about a commit pin", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  const pinned = parseSourceSpec(`github:acme/skills/skills@${commit}`);
  const outcome = await fetchSource({ source: pinned, ...follow }, fx.context());
  assertEquals([outcome.status, outcome.commit], ["fetched", commit]);
  assertEquals(fx.fake.seen.map((r) => r.path.split("/").at(-2)), ["tarball", "tar.gz"]);
  fx.fake.seen.length = 0;
  const again = await fetchSource({ source: pinned, ...follow }, fx.context());
  assertEquals([again.status, fx.fake.seen.length], ["unchanged", 0]);
});
