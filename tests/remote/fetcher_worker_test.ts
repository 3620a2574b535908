/**
 * The fetcher worker, started by the product's own host code with the
 * product's computed permission set: it can fetch (the set is enough), and a
 * test-only entry that bypasses every check of ours proves the wall.
 */

import { join } from "node:path";
import { computeFetcherPermissions } from "../../src/remote/fetcher_permissions.ts";
import { startFetcher } from "../../src/remote/fetcher_host.ts";
import { decideEndpoints } from "../../src/remote/github_hosts.ts";
import { DEFAULT_REMOTE_CAPS } from "../../src/remote/remote_caps.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture, V1 } from "./_remote_fixture.ts";
import { publishSkills, startFakePublisher } from "../support/fake_publisher.ts";

Deno.test("the fetcher worker fetches a source with exactly its permission set", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  const endpoints = decideEndpoints(fx.fake.apiUrl, fx.fake.downloadHost);
  const { permissions } = computeFetcherPermissions(endpoints, [fx.cacheDir]);
  assertEquals(permissions.env, ["GITHUB_TOKEN"]);
  assertEquals([permissions.run, permissions.sys, permissions.ffi], [[], [], []]);
  const fetcher = startFetcher(permissions, {
    endpoints,
    cacheDir: fx.cacheDir,
    caps: DEFAULT_REMOTE_CAPS,
  });
  try {
    const [outcome] = await fetcher.fetch([
      {
        given: "github:acme/skills/skills@main",
        locked: null,
        update: false,
        checkForUpdate: false,
      },
    ]);
    assertEquals(outcome?.failure, null);
    assertEquals([outcome?.status, outcome?.commit], ["fetched", commit]);
  } finally {
    fetcher.close();
  }
});

Deno.test("attack: the fetcher cannot read a skill root, write outside its cache or reach a port beside an allowed publisher, our checks bypassed", async () => {
  await using fx = await remoteFixture();
  const root = join(fx.dir, "skills", "local");
  await Deno.mkdir(root, { recursive: true });
  await Deno.writeTextFile(join(root, "SKILL.md"), "---\nname: local\n---\n");
  await using offList = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("reached"),
  );
  await using publisher = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("publisher"),
  );
  const publisherOrigins = [`http://127.0.0.1:${publisher.addr.port}`];
  const endpoints = decideEndpoints(fx.fake.apiUrl, fx.fake.downloadHost);
  const { permissions } = computeFetcherPermissions(endpoints, [fx.cacheDir], publisherOrigins);
  const fetcher = startFetcher(
    permissions,
    { endpoints, cacheDir: fx.cacheDir, caps: DEFAULT_REMOTE_CAPS, publisherOrigins },
    new URL("../support/fetcher_wall_probe.ts", import.meta.url),
  );
  try {
    const [results] = await fetcher.fetch([{
      given: `${root}|127.0.0.1:${offList.addr.port}`,
      locked: null,
      update: false,
      checkForUpdate: false,
    }]);
    assertEquals(results, {
      writeInsideCache: "ok",
      readInsideCache: "ok",
      readSkillRoot: "NotCapable",
      listSkillRoot: "NotCapable",
      writeSkillRoot: "NotCapable",
      writeBesideCache: "NotCapable",
      writeTmp: "NotCapable",
      readEtcPasswd: "NotCapable",
      readEnvToken: "ok",
      readEnvHome: "NotCapable",
      fetchApiHost: "ok",
      fetchPublisherOrigin: "ok",
      fetchOffList: "NotCapable",
      spawnShell: "NotCapable",
      listen: "NotCapable",
    });
    assertEquals(await Deno.readTextFile(join(root, "SKILL.md")), "---\nname: local\n---\n");
  } finally {
    fetcher.close();
  }
});

Deno.test("the fetcher worker fetches a publisher source with exactly its permission set", async () => {
  await using fx = await remoteFixture();
  await using pub = startFakePublisher();
  await publishSkills(pub, [{
    name: "style",
    as: "tar.gz",
    files: { "SKILL.md": "---\nname: style\ndescription: d\n---\nBody\n" },
  }]);
  const endpoints = decideEndpoints(fx.fake.apiUrl, fx.fake.downloadHost);
  const publisherOrigins = [pub.origin];
  const { permissions } = computeFetcherPermissions(endpoints, [fx.cacheDir], publisherOrigins);
  assertEquals(permissions.net.includes(new URL(pub.origin).host), true);
  const fetcher = startFetcher(permissions, {
    endpoints,
    cacheDir: fx.cacheDir,
    caps: DEFAULT_REMOTE_CAPS,
    publisherOrigins,
  });
  try {
    const [outcome] = await fetcher.fetch([
      { given: pub.base, locked: null, update: false, checkForUpdate: false },
    ]);
    assertEquals(outcome?.failure, null);
    assertEquals(Object.keys(outcome?.skills ?? {}), ["style"]);
  } finally {
    fetcher.close();
  }
});
