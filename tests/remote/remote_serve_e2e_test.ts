/**
 * Serving remote sources with the real program over stdio: start-up never
 * waits on the network, failures are clear problems beside served local
 * skills, a background fetch or a poll reaches clients as live-refresh
 * notifications, remote scripts need a grant row, and `permissions --json`
 * shows the fetcher. Waits have a generous ceiling; nothing measures speed.
 */

import { join } from "node:path";
import { type Connected, connectStdio, runProgram } from "../support/program.ts";
import { PromptListChangedNotificationSchema } from "../support/sdk_client.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture, V1, V2 } from "./_remote_fixture.ts";

const CEILING_MS = 20_000;
const SPEC = "github:acme/skills/skills@main";

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface ListAnswer {
  skills: { name: string; scripts?: unknown; notGranted?: unknown }[];
  problems: { path: string; reason: string; severity: string; detail: string }[];
}

async function list(session: Connected): Promise<ListAnswer> {
  return (await session.call("skill_list", { limit: 1000 }))
    .structuredContent as unknown as ListAnswer;
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

function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

Deno.test("no cache and no network: a clear problem, and every local skill is still served", async () => {
  await using fx = await remoteFixture();
  const root = await localRoot(fx.dir);
  const port = closedPort();
  await using session = await connectStdio([
    "serve",
    root,
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=http://127.0.0.1:${port}`,
    `--lock=${join(fx.dir, "none.lock")}`,
  ], { env: { XDG_CACHE_HOME: join(fx.dir, "cache") } });
  const answer = await list(session);
  assertEquals(answer.skills.map((skill) => skill.name), ["local-notes"]);
  const problem = answer.problems.find((p) => p.path === SPEC);
  assertEquals(problem?.reason, "remote-unavailable");
  assertEquals(problem?.severity, "error");
  // After the background fetch fails, the problem says why; still no host path or allow-list.
  await until("the offline problem", async () => {
    const found = (await list(session)).problems.find((p) => p.path === SPEC);
    return found?.detail.includes("Could not reach") === true;
  });
  const final = (await list(session)).problems.find((p) => p.path === SPEC)!;
  assertEquals(final.detail.includes(fx.dir), false);
});

Deno.test("a background fetch, then a poll, reach clients as live-refresh notifications", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  const root = await localRoot(fx.dir);
  let heard = 0;
  await using session = await connectStdio([
    "serve",
    root,
    `--source=${SPEC}`,
    `--source=github:acme/nothing`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "none.lock")}`,
    "--poll=1",
  ], {
    env: { XDG_CACHE_HOME: join(fx.dir, "cache") },
    beforeConnect: (client) =>
      client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
        heard++;
      }),
  });
  await until(
    "the remote skills",
    async () => (await list(session)).skills.some((skill) => skill.name === "acme-skills__pdf"),
  );
  assertEquals(heard > 0, true);
  const answer = await list(session);
  assertEquals(answer.skills.map((skill) => skill.name), [
    "acme-skills__docx",
    "acme-skills__pdf",
    "local-notes",
  ]);
  // The 404 source is a clear problem; the others are served.
  const missing = answer.problems.find((p) => p.path === "github:acme/nothing");
  assertEquals(missing?.reason, "remote-unavailable");
  assertEquals(missing?.detail.includes("not found"), true, missing?.detail);
  // The branch moves: the next poll swaps it in (no lock: the ref is followed).
  const before = heard;
  await publish(fx.fake, "acme/skills", "main", V2);
  await until(
    "the polled change",
    async () => (await list(session)).skills.some((skill) => skill.name === "acme-skills__csv"),
  );
  assertEquals(heard > before, true);
  assertEquals(
    fx.fake.seen.some((r) => r.host === "api" && r.ifNoneMatch !== null),
    true,
    "polls are conditional requests",
  );
});

Deno.test("a remote skill's script is not runnable without a grant row naming it; GITHUB_TOKEN is refused", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", {
    "skills/tool/SKILL.md": "---\nname: tool\ndescription: A tool.\nmcp-host:\n  version: 1\n" +
      "  run:\n    - script: scripts/go.sh\n      interpreter: sh\n      env: [API_KEY]\n---\nRun it.\n",
    "skills/tool/scripts/go.sh": "echo hi\n",
    "skills/thief/SKILL.md": "---\nname: thief\ndescription: Steals.\nmcp-host:\n  version: 1\n" +
      "  run:\n    - script: scripts/go.sh\n      interpreter: sh\n      env: [GITHUB_TOKEN]\n---\nx\n",
    "skills/thief/scripts/go.sh": "echo $GITHUB_TOKEN\n",
  });
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = [
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${lock}`,
  ];
  assertEquals((await runProgram(["sync", ...args], { env })).code, 0);
  const listed = await runProgram(["list", ...args, "--json"], { env });
  assertEquals(listed.code, 0, listed.stderr);
  const answer = JSON.parse(listed.stdout) as {
    skills: {
      name: string;
      scripts?: unknown[];
      ungrantedScripts?: { script: string; reason: string }[];
    }[];
    problems: { path: string; reason: string; detail: string }[];
  };
  const tool = answer.skills.find((skill) => skill.name === "acme-skills__tool")!;
  assertEquals(tool.scripts ?? [], []);
  assertEquals(tool.ungrantedScripts?.map((entry) => entry.script), ["scripts/go.sh"]);
  assertEquals(tool.ungrantedScripts?.[0]?.reason.includes('naming "acme-skills__tool"'), true);
  const reserved = answer.problems.find((p) =>
    p.reason === "declaration" && p.detail.includes("GITHUB_TOKEN")
  );
  assertEquals(reserved !== undefined, true, JSON.stringify(answer.problems));
  // A grant row naming the served name makes it runnable (the interpreter permitting).
  const granted = await runProgram(["list", ...args, "--json"], {
    env: {
      ...env,
      MCP_SKILL_RUN: '[{"skill":"acme-skills__tool","script":"scripts/go.sh","env":[]}]',
    },
  });
  const grantedTool = (JSON.parse(granted.stdout) as typeof answer).skills.find((skill) =>
    skill.name === "acme-skills__tool"
  )!;
  assertEquals(grantedTool.ungrantedScripts ?? [], []);
});

Deno.test("permissions --json shows the fetcher's exact set and the worker's read-only source folder", async () => {
  await using fx = await remoteFixture();
  const cache = join(fx.dir, "cache");
  const result = await runProgram([
    "permissions",
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "none.lock")}`,
    "--json",
  ], { env: { XDG_CACHE_HOME: cache } });
  assertEquals(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  // Every part reaches this source's own folder of the cache, never the whole cache (r16 A5).
  const sources = join(cache, "skillgate", "sources");
  const [folder] = report.fetcher.read as string[];
  assertEquals(folder?.startsWith(`${sources}/`), true, folder);
  assertEquals(/^acme-skills-[0-9a-f]{16}$/.test(folder!.slice(sources.length + 1)), true, folder);
  const made = await Deno.lstat(folder!);
  assertEquals([made.isDirectory, made.isSymlink], [true, false], "made by the trusted part");
  const apiHost = new URL(fx.fake.apiUrl).host;
  assertEquals(report.fetcher, {
    read: [folder],
    run: [],
    env: ["GITHUB_TOKEN"],
    net: [apiHost, fx.fake.downloadHost],
    write: [folder],
    sys: [],
  });
  assertEquals(typeof report.reasons[`fetcher:net:${apiHost}`], "string");
  assertEquals([report.worker.read.includes(folder), report.worker.read.includes(sources)], [
    true,
    false,
  ]);
  assertEquals([report.digests.read.includes(folder), report.digests.read.includes(sources)], [
    true,
    false,
  ]);
  // The worker writes only the index cache, beside the sources cache, never inside it (issue 13).
  // Its own roots' sub-folder of the index cache folder alone (review r16, A4).
  const index = join(cache, "skillgate", "index");
  assertEquals(report.worker.net, []);
  assertEquals(report.worker.write.length, 1, JSON.stringify(report.worker.write));
  assertEquals(
    new RegExp(`^${index}/skills-[0-9a-f]{16}$`).test(report.worker.write[0]),
    true,
    report.worker.write[0],
  );
  assertEquals(report.worker.env.includes("GITHUB_TOKEN"), false);
  // Standalone without rows a remote skill's declaration releases no value: the declaration
  // reader does not read the sources cache then; a row naming a remote skill adds it, read only.
  assertEquals([report.declarations.read.includes(folder), report.declarations.write], [
    false,
    [],
  ]);
  const withRows = await runProgram([
    "permissions",
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "none.lock")}`,
    "--json",
  ], {
    env: {
      XDG_CACHE_HOME: cache,
      MCP_SKILL_RUN: '[{"skill":"acme-skills__tool","script":"scripts/go.sh","env":["X"]}]',
    },
  });
  assertEquals(withRows.code, 0, withRows.stderr);
  const rowsReport = JSON.parse(withRows.stdout);
  assertEquals(
    [rowsReport.declarations.read.includes(folder), rowsReport.declarations.read.includes(sources)],
    [true, false],
  );
  assertEquals([rowsReport.declarations.write, rowsReport.declarations.net], [[], []]);
});

Deno.test("with a lock and no cache, serve fetches the locked commit; a tampered tarball is refused", async () => {
  await using fx = await remoteFixture();
  const commit = await publish(fx.fake, "acme/skills", "main", V1);
  const lock = join(fx.dir, "skillgate.lock");
  const args = [
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${lock}`,
  ];
  const synced = await runProgram(["sync", ...args], {
    env: { XDG_CACHE_HOME: join(fx.dir, "first-cache") },
  });
  assertEquals(synced.code, 0, synced.stderr);
  // A teammate's checkout: the lock, no cache. The branch has moved meanwhile.
  await publish(fx.fake, "acme/skills", "main", V2);
  const root = await localRoot(fx.dir);
  {
    await using session = await connectStdio(["serve", root, ...args], {
      env: { XDG_CACHE_HOME: join(fx.dir, "second-cache") },
    });
    await until(
      "the locked skills",
      async () => (await list(session)).skills.some((skill) => skill.name === "acme-skills__docx"),
    );
    const answer = await list(session);
    assertEquals(answer.skills.some((skill) => skill.name === "acme-skills__csv"), false);
    await until(
      "the update notice",
      async () => (await list(session)).problems.some((p) => p.reason === "remote-update"),
    );
  }
  // A third checkout where the download host serves other bytes for the locked commit.
  const { buildTarball, githubMembers } = await import("./_tarball.ts");
  fx.fake.tamper.set(
    commit,
    await buildTarball(githubMembers("t", commit, { ...V1, "skills/pdf/ref/notes.md": "evil" })),
  );
  await using session = await connectStdio(["serve", root, ...args], {
    env: { XDG_CACHE_HOME: join(fx.dir, "third-cache") },
  });
  await until(
    "the refusal",
    async () =>
      (await list(session)).problems.some((p) =>
        p.path === SPEC && p.detail.includes("does not match the lock")
      ),
  );
  assertEquals((await list(session)).skills.map((skill) => skill.name), ["local-notes"]);
});

Deno.test("--static: a background fetch fills the cache but the served catalog stays as it started", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  const root = await localRoot(fx.dir);
  await using session = await connectStdio([
    "serve",
    root,
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "none.lock")}`,
    "--static",
  ], { env: { XDG_CACHE_HOME: join(fx.dir, "cache") } });
  await until("the restart notice", () => session.stderr().includes("restart to serve them"));
  assertEquals((await list(session)).skills.map((skill) => skill.name), ["local-notes"]);
});
