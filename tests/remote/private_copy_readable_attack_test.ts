// Review r14: a sources cache folder that already existed readable by other users exposed a
// private repository's files fetched with GITHUB_TOKEN. skillgate changes no mode of the user's
// folders; it makes its own 0700/0600, and with a token in use it fetches nothing into a cache
// (or a source folder in it) that others may read, saying what is wrong and the chmod to run.

import { join } from "node:path";
import { computeFetcherPermissions } from "../../src/remote/fetcher_permissions.ts";
import { startFetcher } from "../../src/remote/fetcher_host.ts";
import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import { DEFAULT_REMOTE_CAPS } from "../../src/remote/remote_caps.ts";
import { parseRemoteSpec } from "../../src/remote/remote_source.ts";
import { sourceKey } from "../../src/remote/sources_cache.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture, V1 } from "./_remote_fixture.ts";

const GIVEN = "github:acme/private-skills/skills@main";
const ORDER = { given: GIVEN, locked: null, update: false, checkForUpdate: false };

/** Every folder and file under `dir` with its permission bits (octal), sorted by path. */
function modesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string, rel: string) => {
    for (const entry of Deno.readDirSync(at)) {
      const path = join(at, entry.name);
      const info = Deno.lstatSync(path);
      const name = rel === "" ? entry.name : `${rel}/${entry.name}`;
      out.push(`${info.isDirectory ? "d" : "f"} ${((info.mode ?? 0) & 0o777).toString(8)}`);
      if (info.isDirectory) walk(path, name);
    }
  };
  walk(dir, "");
  return out;
}

Deno.test("attack: a private repository fetched with GITHUB_TOKEN into a sources cache others may read is refused (the chmod to run named, nothing fetched); skillgate's own folders and files are 0700/0600", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/private-skills", "main", V1);
  const endpoints = decideEndpoints(fx.fake.apiUrl, fx.fake.downloadHost);
  const { permissions } = computeFetcherPermissions(endpoints, [fx.cacheDir]);
  const had = Deno.env.get("GITHUB_TOKEN");
  Deno.env.set("GITHUB_TOKEN", "secret-token");
  const fetcher = startFetcher(permissions, {
    endpoints,
    cacheDir: fx.cacheDir,
    caps: DEFAULT_REMOTE_CAPS,
  });
  try {
    // The user's cache folder, readable by everyone (as `mkdir` makes it under umask 022).
    Deno.chmodSync(fx.cacheDir, 0o755);
    const [refused] = await fetcher.fetch([ORDER]);
    assertEquals(refused?.status, "failed");
    assertEquals(refused?.failure?.reason, "cache-readable");
    const message = String(refused?.failure?.message);
    assertEquals(message.includes(`chmod go-rwx '${fx.cacheDir}'`), true, message);
    assertEquals(message.includes("may be read by other users (mode 755)"), true, message);
    assertEquals(message.includes("secret-token"), false, "the token was named");
    assertEquals(fx.fake.seen.length, 0, "the private repository was fetched all the same");
    assertEquals([...Deno.readDirSync(fx.cacheDir)], [], "something was written");
    assertEquals((Deno.statSync(fx.cacheDir).mode ?? 0) & 0o777, 0o755, "the user's mode changed");

    // Once the user made it theirs alone: fetched, and all skillgate made is its owner's alone.
    Deno.chmodSync(fx.cacheDir, 0o700);
    const [fetched] = await fetcher.fetch([ORDER]);
    assertEquals([fetched?.status, fetched?.failure], ["fetched", null]);
    const modes = modesUnder(fx.cacheDir);
    assertEquals(modes.length > 4, true, modes.join(", "));
    assertEquals(modes.filter((mode) => mode !== "d 700" && mode !== "f 600"), []);

    // A source folder made readable by others since (or left so by an earlier version).
    const key = await sourceKey(parseRemoteSpec(GIVEN));
    Deno.chmodSync(join(fx.cacheDir, key), 0o755);
    fx.fake.seen.length = 0;
    const [again] = await fetcher.fetch([ORDER]);
    assertEquals(again?.failure?.reason, "cache-readable");
    assertEquals(
      String(again?.failure?.message).includes(`chmod go-rwx '${join(fx.cacheDir, key)}'`),
      true,
    );
    // The last good copy is still the one served.
    assertEquals(again?.commit, fetched?.commit);
    assertEquals(fx.fake.seen.length, 0);
  } finally {
    fetcher.close();
    if (had === undefined) Deno.env.delete("GITHUB_TOKEN");
    else Deno.env.set("GITHUB_TOKEN", had);
  }
});

Deno.test("without GITHUB_TOKEN a sources cache others may read still fetches (public content only)", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/private-skills", "main", V1);
  const endpoints = decideEndpoints(fx.fake.apiUrl, fx.fake.downloadHost);
  const { permissions } = computeFetcherPermissions(endpoints, [fx.cacheDir]);
  const fetcher = startFetcher(permissions, {
    endpoints,
    cacheDir: fx.cacheDir,
    caps: DEFAULT_REMOTE_CAPS,
    hasToken: () => false,
  });
  try {
    Deno.chmodSync(fx.cacheDir, 0o755);
    const [outcome] = await fetcher.fetch([ORDER]);
    assertEquals([outcome?.status, outcome?.failure], ["fetched", null]);
  } finally {
    fetcher.close();
  }
});
