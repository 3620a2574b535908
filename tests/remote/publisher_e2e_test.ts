/**
 * The real program with a well-known publisher and a GitHub source side by
 * side under one lock file: `sync` pins both, `permissions` shows the
 * fetcher reaching exactly the allowed origins, and `serve --frozen` (both
 * hosts down) serves both sources' skills to a real SDK client; a served
 * publisher is polled conditionally and its changes reach clients. Waits
 * have a generous ceiling; nothing measures speed.
 */

import { join } from "node:path";
import { connectStdio, runProgram } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { PromptListChangedNotificationSchema } from "../support/sdk_client.ts";
import { publishSkills, startFakePublisher } from "../support/fake_publisher.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture, V1 } from "./_remote_fixture.ts";

const GITHUB = "github:acme/skills/skills@main";
const md = (name: string, body: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\n${body}\n`;

Deno.test("a publisher and a GitHub source under one lock: sync, permissions, serve --frozen offline", async () => {
  await using fx = await remoteFixture();
  await using pub = startFakePublisher();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  const indexDigest = await publishSkills(pub, [
    {
      name: "brand",
      as: "zip",
      files: { "SKILL.md": md("brand", "Use the logo."), "logo.txt": "L" },
    },
    { name: "style", as: "skill-md", files: { "SKILL.md": md("style", "Write plainly.") } },
  ]);
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = [
    `--source=${GITHUB}`,
    `--source=${pub.base}`,
    "--github-allow=acme",
    `--well-known-allow=${pub.origin}`,
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${lock}`,
  ];
  const sync = await runProgram(["sync", ...args], { env });
  assertEquals(sync.code, 0, sync.stderr);
  assertEquals(sync.stdout.split("\n").slice(0, 2), [
    `${GITHUB}: pinned ${commit.slice(0, 12)} (2 skills)`,
    `${pub.base}: pinned index sha256:${indexDigest.slice(7, 19)} (2 skills)`,
  ]);
  const locked = JSON.parse(await Deno.readTextFile(lock));
  assertEquals(
    locked.sources.map((s: { spec: string; resolved: unknown }) => [s.spec, s.resolved]),
    [
      [GITHUB, { commit }],
      [pub.base, { indexDigest }],
    ],
  );
  assertEquals(Object.keys(locked.sources[1].skills), ["brand", "style"]);
  assertEquals(Object.keys(locked.sources[1].skills.brand.files), ["SKILL.md", "logo.txt"]);
  // A second sync --frozen: pinned and cached, so nothing is asked; the lock is unchanged.
  const seenBefore = pub.seen.length;
  const again = await runProgram(["sync", ...args, "--frozen"], { env });
  assertEquals(again.code, 0, again.stderr);
  assertEquals(again.stdout.includes("is up to date"), true, again.stdout);
  assertEquals(pub.seen.slice(seenBefore).map((r) => r.path), []);

  // The fetcher's net permission: the GitHub hosts and exactly the allowed publisher origin.
  const permissions = await runProgram(["permissions", "--json", ...args], { env });
  assertEquals(permissions.code, 0, permissions.stderr);
  const report = JSON.parse(permissions.stdout);
  const apiHost = new URL(fx.fake.apiUrl).host;
  assertEquals(report.fetcher.net, [apiHost, fx.fake.downloadHost, new URL(pub.origin).host]);
  assertEquals(report.worker.net ?? [], []);

  // Both hosts go down: serve --frozen serves both sources from the cache to an SDK client.
  await pub.stop();
  await fx.fake[Symbol.asyncDispose]();
  await using session = await connectStdio(["serve", ...args, "--frozen"], { env });
  const list = toolJson(await session.call("skill_list", {})) as {
    skills: { name: string; source: string }[];
    roots: { path: string; from: string; prefix?: string }[];
  };
  assertEquals(list.roots, [
    { path: GITHUB, from: "remote", prefix: "acme-skills" },
    { path: pub.base, from: "remote", prefix: "127-0-0-1" },
  ]);
  assertEquals(list.skills.map((skill) => [skill.name, skill.source]), [
    ["127-0-0-1__brand", pub.base],
    ["127-0-0-1__style", pub.base],
    ["acme-skills__docx", GITHUB],
    ["acme-skills__pdf", GITHUB],
  ]);
  assertEquals(JSON.stringify(list).includes(join(fx.dir, "cache")), false);
  const read = await session.client.readResource({ uri: "skill://127-0-0-1/style/SKILL.md" });
  assertEquals((read.contents[0] as { text?: string }).text, md("style", "Write plainly."));
  const loaded = toolJson(await session.call("skill_load", { name: "127-0-0-1__brand" })) as {
    body: string;
    files: { path: string }[];
  };
  assertEquals(loaded.body.includes("Use the logo."), true);
  assertEquals(loaded.files.map((file) => file.path).sort(), ["SKILL.md", "logo.txt"]);
});

Deno.test("a publisher whose origin is not allowed is refused at start and never fetched", async () => {
  await using pub = startFakePublisher();
  const dir = await Deno.makeTempDir({ prefix: "skillgate-pub-e2e-" });
  try {
    const result = await runProgram([
      "sync",
      `--source=${pub.base}`,
      "--well-known-allow=http://127.0.0.1:1",
      `--lock=${join(dir, "skillgate.lock")}`,
    ], { env: { XDG_CACHE_HOME: join(dir, "cache") } });
    assertEquals(result.code, 2);
    assertEquals(
      result.stderr.includes(`its origin ${pub.origin} is not allowed`),
      true,
      result.stderr,
    );
    assertEquals(result.stderr.includes("127.0.0.1:1"), false);
    assertEquals(pub.seen, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: a publisher's change reaches clients by a conditional poll; a removed skill goes", async () => {
  await using pub = startFakePublisher();
  const dir = await Deno.makeTempDir({ prefix: "skillgate-pub-serve-" });
  try {
    await publishSkills(pub, [
      { name: "brand", as: "files+tar.gz", files: { "SKILL.md": md("brand", "v1") } },
      { name: "style", as: "files", files: { "SKILL.md": md("style", "v1") } },
    ]);
    let heard = 0;
    await using session = await connectStdio([
      "serve",
      `--source=${pub.base},prefix=pub`,
      `--well-known-allow=${pub.origin}`,
      `--lock=${join(dir, "none.lock")}`,
      "--poll=1",
    ], {
      env: { XDG_CACHE_HOME: join(dir, "cache") },
      beforeConnect: (client) =>
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
          heard++;
        }),
    });
    const names = async () =>
      ((await session.call("skill_list", {})).structuredContent as { skills: { name: string }[] })
        .skills.map((skill) => skill.name);
    await until("the publisher's skills", async () => (await names()).length === 2);
    assertEquals(await names(), ["pub__brand", "pub__style"]);
    // Unchanged: polls are answered 304 and fetch nothing else.
    await until("a 304 poll", () => pub.seen.some((r) => r.status === 304));
    const artifacts = pub.seen.filter((r) => !r.path.endsWith("/index.json")).length;
    const polls = pub.seen.length;
    await until("another poll", () => pub.seen.length > polls);
    assertEquals(pub.seen.filter((r) => !r.path.endsWith("/index.json")).length, artifacts);
    // The publisher drops style and adds csv: the next poll swaps the new index in.
    const before = heard;
    await publishSkills(pub, [
      { name: "brand", as: "files+tar.gz", files: { "SKILL.md": md("brand", "v1") } },
      { name: "csv", as: "files+zip", files: { "SKILL.md": md("csv", "v1") } },
    ]);
    await until("the polled change", async () => (await names()).includes("pub__csv"));
    assertEquals(await names(), ["pub__brand", "pub__csv"]);
    assertEquals(heard > before, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
