/**
 * The real program against the loopback GitHub: `sync` writes the lock,
 * `serve --frozen` over stdio lists remote skills beside local ones (with the
 * network down), a moved branch holds under the lock until `sync --update`.
 */

import { join } from "node:path";
import { connectStdio, runProgram } from "../support/program.ts";
import { toolJson } from "../support/tool_answer.ts";
import { looseRequest } from "../support/loose_request.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture, V1, V2 } from "./_remote_fixture.ts";

const SPEC = "github:acme/skills/skills@main";

function remoteArgs(apiUrl: string, downloadHost: string, lock: string): string[] {
  return [
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${apiUrl}`,
    `--github-download-host=${downloadHost}`,
    `--lock=${lock}`,
  ];
}

async function localRoot(dir: string): Promise<string> {
  const root = join(dir, "local");
  await Deno.mkdir(join(root, "local-notes"), { recursive: true });
  await Deno.writeTextFile(
    join(root, "local-notes", "SKILL.md"),
    "---\nname: local-notes\ndescription: Local notes.\n---\nBody.\n",
  );
  return root;
}

Deno.test("sync writes the lock; serve --frozen lists remote skills beside local ones with the network down", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = remoteArgs(fx.fake.apiUrl, fx.fake.downloadHost, lock);
  const sync = await runProgram(["sync", ...args], {
    env: { ...env, GITHUB_TOKEN: "ghp_test_token" },
  });
  assertEquals(sync.code, 0, sync.stderr);
  // The token went to the API host only; never to the download host, never printed.
  const api = fx.fake.seen.filter((r) => r.host === "api").map((r) => r.authorization);
  const download = fx.fake.seen.filter((r) => r.host === "download").map((r) => r.authorization);
  assertEquals([api, download], [["Bearer ghp_test_token", "Bearer ghp_test_token"], [null]]);
  assertEquals(`${sync.stdout}${sync.stderr}`.includes("ghp_test_token"), false);
  assertEquals(sync.stdout.includes(`${SPEC}: pinned ${commit.slice(0, 12)} (2 skills)`), true);
  const locked = JSON.parse(await Deno.readTextFile(lock));
  assertEquals(locked.lockVersion, 1);
  assertEquals(locked.sources[0].spec, SPEC);
  assertEquals(locked.sources[0].resolved.commit, commit);
  assertEquals(Object.keys(locked.sources[0].skills), ["docx", "pdf"]);
  assertEquals(Object.keys(locked.sources[0].skills.pdf.files), ["SKILL.md", "ref/notes.md"]);

  // The network goes down: the cache is served, local skills too.
  const root = await localRoot(fx.dir);
  await fx.fake[Symbol.asyncDispose]();
  await using session = await connectStdio(["serve", root, ...args, "--frozen"], { env });
  const list = toolJson(await session.call("skill_list", {})) as {
    skills: { name: string; source: string }[];
    roots: { path: string; from: string; prefix?: string }[];
  };
  // A remote source shows as its spec, never as its cache folder.
  assertEquals(list.roots, [
    { path: root, from: "argument" },
    { path: SPEC, from: "remote", prefix: "acme-skills" },
  ]);
  assertEquals(list.skills[0]?.source, SPEC);
  assertEquals(JSON.stringify(list).includes(join(fx.dir, "cache")), false);
  assertEquals(list.skills.map((skill) => skill.name), [
    "acme-skills__docx",
    "acme-skills__pdf",
    "local-notes",
  ]);
  const read = await session.client.readResource({ uri: "skill://acme-skills/pdf/SKILL.md" });
  const first = read.contents[0] as { uri: string; text?: string };
  assertEquals(first.uri, "skill://acme-skills/pdf/SKILL.md");
  assertEquals(first.text, V1["skills/pdf/SKILL.md"]);
  // SEP-2640: the remote skill is listed and fetched at skill://PREFIX/NAME/SKILL.md.
  const listed = await looseRequest(session.client, "skills/list", {});
  const uris = (listed.skills as { uri: string }[]).map((skill) => skill.uri);
  assertEquals(uris.includes("skill://acme-skills/pdf/SKILL.md"), true, JSON.stringify(uris));
  const got = await looseRequest(session.client, "skills/get", {
    uri: "skill://acme-skills/pdf/SKILL.md",
  });
  assertEquals((got.skill as { frontmatter: { name: string } }).frontmatter.name, "pdf");
  // Once the background check fails, the source says it is served from its last good copy.
  const deadline = Date.now() + 20_000;
  let stale: { reason: string; severity: string; detail: string } | undefined;
  while (stale === undefined && Date.now() < deadline) {
    const answer = toolJson(await session.call("skill_list", {})) as {
      problems: { path: string; reason: string; severity: string; detail: string }[];
    };
    stale = answer.problems.find((p) => p.path === SPEC && p.reason === "remote-stale");
    if (stale === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assertEquals(stale?.severity, "warning");
  assertEquals(stale?.detail.includes(`last good copy (${commit.slice(0, 12)})`), true);
  // Still served after the change was applied.
  const after = toolJson(await session.call("skill_list", {})) as { skills: { name: string }[] };
  assertEquals(after.skills.length, 3);
});

Deno.test("a moved branch holds under the lock until sync --update, which prints the change", async () => {
  await using fx = await remoteFixture();
  const first = await publish(fx.fake, "acme/skills", "main", V1);
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = remoteArgs(fx.fake.apiUrl, fx.fake.downloadHost, lock);
  assertEquals((await runProgram(["sync", ...args], { env })).code, 0);
  const second = await publish(fx.fake, "acme/skills", "main", V2);
  const again = await runProgram(["sync", ...args], { env });
  assertEquals(again.code, 0, again.stderr);
  assertEquals(again.stdout.includes(`${first.slice(0, 12)} unchanged`), true);
  assertEquals(JSON.parse(await Deno.readTextFile(lock)).sources[0].resolved.commit, first);
  const frozen = await runProgram(["sync", ...args, "--update", "--frozen"], { env });
  assertEquals(frozen.code, 1);
  const update = await runProgram(["sync", ...args, "--update"], { env });
  assertEquals(update.code, 0, update.stderr);
  assertEquals(
    update.stdout.includes(
      `${SPEC}: ${first.slice(0, 12)} -> ${second.slice(0, 12)}: +csv -docx ~pdf`,
    ),
    true,
    update.stdout,
  );
  assertEquals(JSON.parse(await Deno.readTextFile(lock)).sources[0].resolved.commit, second);
});

Deno.test("a source whose owner is not allowed is refused at start and never fetched", async () => {
  await using fx = await remoteFixture();
  const lock = join(fx.dir, "skillgate.lock");
  const result = await runProgram([
    "sync",
    `--source=${SPEC}`,
    "--github-allow=someone-else",
    `--github-api=${fx.fake.apiUrl}`,
    `--lock=${lock}`,
  ], { env: { XDG_CACHE_HOME: join(fx.dir, "cache") } });
  assertEquals(result.code, 2);
  assertEquals(result.stderr.includes('owner "acme" is not allowed'), true, result.stderr);
  assertEquals(result.stderr.includes("someone-else"), false);
  assertEquals(fx.fake.seen.length, 0);
});

Deno.test("serve without a lock records the first content seen, and sync pins that (trust on first use)", async () => {
  await using fx = await remoteFixture();
  const first = await publish(fx.fake, "acme/skills", "main", V1);
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = remoteArgs(fx.fake.apiUrl, fx.fake.downloadHost, lock);
  const root = await localRoot(fx.dir);
  {
    await using session = await connectStdio(["serve", root, ...args], { env });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const names = (toolJson(await session.call("skill_list", {})) as {
        skills: { name: string }[];
      }).skills.map((skill) => skill.name);
      if (names.includes("acme-skills__pdf")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await publish(fx.fake, "acme/skills", "main", V2);
  const sync = await runProgram(["sync", ...args], { env });
  assertEquals(sync.code, 0, sync.stderr);
  assertEquals(JSON.parse(await Deno.readTextFile(lock)).sources[0].resolved.commit, first);
});

Deno.test("attack: --frozen re-hashes the cached copy and refuses one edited on disk; sync repairs it", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = remoteArgs(fx.fake.apiUrl, fx.fake.downloadHost, lock);
  assertEquals((await runProgram(["sync", ...args], { env })).code, 0);
  const names = async (extra: string[]) => {
    const result = await runProgram(["list", ...args, ...extra, "--json"], { env });
    const answer = JSON.parse(result.stdout) as {
      skills: { name: string }[];
      problems: { reason: string }[];
    };
    return [answer.skills.map((s) => s.name), answer.problems.map((p) => p.reason)];
  };
  assertEquals(await names(["--frozen"]), [["acme-skills__docx", "acme-skills__pdf"], []]);
  const sources = join(fx.dir, "cache", "skillgate", "sources");
  const [key] = [...Deno.readDirSync(sources)].map((entry) => entry.name);
  const [commit] = [...Deno.readDirSync(join(sources, key!, "commits"))].map((e) => e.name);
  await Deno.writeTextFile(
    join(sources, key!, "commits", commit!, "skills", "pdf", "ref", "notes.md"),
    "x",
  );
  assertEquals(await names(["--frozen"]), [[], ["remote-lock-mismatch"]]);
  // sync notices the damaged copy and fetches the locked commit again.
  const repaired = await runProgram(["sync", ...args], { env });
  assertEquals(repaired.code, 0, repaired.stderr);
  assertEquals(await names(["--frozen"]), [["acme-skills__docx", "acme-skills__pdf"], []]);
  // Damaged again: serve --frozen starts without it and fetches the locked commit again.
  await Deno.writeTextFile(
    join(sources, key!, "commits", commit!, "skills", "pdf", "SKILL.md"),
    "x",
  );
  await using session = await connectStdio(["serve", ...args, "--frozen"], { env });
  const deadline = Date.now() + 20_000;
  let served: string[] = [];
  while (served.length < 2 && Date.now() < deadline) {
    served = (toolJson(await session.call("skill_list", {})) as { skills: { name: string }[] })
      .skills.map((skill) => skill.name);
    if (served.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assertEquals(served, ["acme-skills__docx", "acme-skills__pdf"]);
});

Deno.test("a source whose PATH is itself a skill is served under that folder's name", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = [
    "--source=github:acme/skills/skills/pdf@main",
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "skillgate.lock")}`,
  ];
  const sync = await runProgram(["sync", ...args], { env });
  assertEquals(sync.code, 0, sync.stderr);
  const lock = JSON.parse(await Deno.readTextFile(join(fx.dir, "skillgate.lock")));
  assertEquals(Object.keys(lock.sources[0].skills), ["."]);
  const listed = await runProgram(["list", ...args, "--json"], { env });
  const answer = JSON.parse(listed.stdout) as { skills: { name: string }[] };
  assertEquals(answer.skills.map((skill) => skill.name), ["acme-skills__pdf"]);
});

/** A loopback port nothing listens on (opened, then closed). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("offline sync names the failure plainly, writes no empty lock and never says up to date", async () => {
  await using fx = await remoteFixture();
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const port = closedPort();
  const offline = remoteArgs(`http://127.0.0.1:${port}`, `127.0.0.1:${port}`, lock);
  const first = await runProgram(["sync", ...offline], { env });
  assertEquals(first.code, 1, first.stderr);
  assertEquals(
    first.stderr.includes(`Could not reach 127.0.0.1:${port} (no network`),
    true,
    first.stderr,
  );
  assertEquals(first.stderr.includes("TypeError"), false, first.stderr);
  assertEquals(first.stderr.includes("no lock written: no source could be pinned"), true);
  assertEquals(first.stdout.includes("wrote"), false, first.stdout);
  assertEquals(await Deno.stat(lock).then(() => true, () => false), false, "no empty lock");

  const frozen = await runProgram(["sync", ...offline, "--frozen"], { env });
  assertEquals(frozen.code, 1, frozen.stderr);
  assertEquals(frozen.stdout.includes("up to date"), false, frozen.stdout);

  // With a lock from a sync that worked, a failed --update keeps it and says so.
  await publish(fx.fake, "acme/skills", "main", V1);
  const online = remoteArgs(fx.fake.apiUrl, fx.fake.downloadHost, lock);
  assertEquals((await runProgram(["sync", ...online], { env })).code, 0);
  const before = await Deno.readTextFile(lock);
  const again = await runProgram(["sync", ...offline, "--update"], { env });
  assertEquals(again.code, 1, again.stderr);
  assertEquals(again.stdout.includes("up to date"), false, again.stdout);
  assertEquals(again.stdout.includes("is unchanged (1 source failed"), true, again.stdout);
  assertEquals(await Deno.readTextFile(lock), before);
});
