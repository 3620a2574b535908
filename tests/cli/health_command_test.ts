import assert from "node:assert/strict";
import { healthUrl, HealthUsageError, runHealthCommand } from "../../src/cli/health_command.ts";
import { REPO_ROOT, runProgram } from "../support/program.ts";
import { startHttpProgram } from "../support/http_program.ts";

const noEnv = () => undefined;

Deno.test("healthUrl() probes 127.0.0.1 on SKILLGATE_HTTP's port, else --http's default 3000", () => {
  assert.equal(
    healthUrl([], (name) => name === "SKILLGATE_HTTP" ? "8080" : undefined).href,
    "http://127.0.0.1:8080/healthz",
  );
  assert.equal(healthUrl([], noEnv).href, "http://127.0.0.1:3000/healthz");
  assert.equal(healthUrl([], () => "on").href, "http://127.0.0.1:3000/healthz");
  assert.equal(
    healthUrl(["--url=http://10.0.0.5:9000/healthz"], noEnv).href,
    "http://10.0.0.5:9000/healthz",
  );
});

Deno.test("healthUrl() refuses an unknown argument and a URL that is not http(s)", () => {
  assert.throws(() => healthUrl(["--port=1"], noEnv), HealthUsageError);
  assert.throws(() => healthUrl(["--url=file:///etc/passwd"], noEnv), /http:\/\/ or https:\/\//);
  assert.throws(() => healthUrl(["--url=not a url"], noEnv), HealthUsageError);
});

Deno.test("runHealthCommand() exits 0 on a 200 answer and 1 on any other, saying why", async () => {
  let status = 200;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(status === 200 ? "ok" : "draining", { status }),
  );
  try {
    const url = new URL(`http://127.0.0.1:${server.addr.port}/healthz`);
    const lines: string[] = [];
    const writeErr = (text: string) => {
      lines.push(text);
      return Promise.resolve();
    };
    assert.equal(await runHealthCommand(url, writeErr), 0);
    assert.match(lines.at(-1)!, /healthy .*: ok/);
    status = 503;
    assert.equal(await runHealthCommand(url, writeErr), 1);
    assert.match(lines.at(-1)!, /unhealthy: .* answered 503/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("runHealthCommand() exits 1 when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const lines: string[] = [];
  const code = await runHealthCommand(new URL(`http://127.0.0.1:${port}/healthz`), (text) => {
    lines.push(text);
    return Promise.resolve();
  });
  assert.equal(code, 1);
  assert.match(
    lines[0]!,
    /unhealthy: nothing answers at 127\.0\.0\.1:\d+ \(.*\); is skillgate serve --http running there\? Pass --url=URL, or set SKILLGATE_HTTP to its port/,
  );
});

Deno.test("skillgate health exits 2 on a bad argument, with nothing on stdout", async () => {
  const result = await runProgram(["health", "--bogus"]);
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /health takes only --url=URL/);
});

Deno.test("`--help` / `-h` after health or override prints the help and exits 0, like every other command", async () => {
  for (const args of [["health", "--help"], ["override", "-h"], ["override", "pdf", "--help"]]) {
    const result = await runProgram(args);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr, "", args.join(" "));
    assert.match(result.stdout, /skillgate override NAME --disable/, args.join(" "));
    assert.match(result.stdout, /skillgate health \[--url=URL\]/, args.join(" "));
  }
});

Deno.test("skillgate health answers 0 for a running --http skillgate (SKILLGATE_HTTP gives the port, no token needed)", async () => {
  await using server = await startHttpProgram(["serve", `${REPO_ROOT}examples/skills`]);
  const byEnv = await runProgram(["health"], { env: { SKILLGATE_HTTP: String(server.port) } });
  assert.equal(byEnv.code, 0, byEnv.stderr);
  assert.equal(byEnv.stdout, "");
  assert.match(
    byEnv.stderr,
    /skillgate: healthy \(http:\/\/127\.0\.0\.1:\d+\/healthz: \{"status":"ok"\}\)/,
  );
  const byUrl = await runProgram(["health", `--url=${server.base}/healthz`]);
  assert.equal(byUrl.code, 0, byUrl.stderr);
});

Deno.test("skillgate health --url with the server's base URL or its /mcp endpoint (what clients are given) probes its /healthz", async () => {
  assert.equal(
    healthUrl(["--url=http://10.0.0.5:9000"], noEnv).href,
    "http://10.0.0.5:9000/healthz",
  );
  assert.equal(
    healthUrl(["--url=http://10.0.0.5:9000/mcp"], noEnv).href,
    "http://10.0.0.5:9000/healthz",
  );
  assert.equal(healthUrl(["--url=http://h/other"], noEnv).href, "http://h/other");
  await using server = await startHttpProgram(["serve", `${REPO_ROOT}examples/skills`], {
    env: { SKILLGATE_HTTP_TOKEN: "health-token-0123456789abcdef0123" },
  });
  for (const url of [server.base, server.url]) {
    const result = await runProgram(["health", `--url=${url}`]);
    assert.equal(result.code, 0, `${url}: ${result.stderr}`);
  }
  const other = await runProgram(["health", `--url=${server.base}/readyz/x`]);
  assert.equal(other.code, 1);
  assert.match(
    other.stderr,
    /answered \d+ \(is that skillgate's \/healthz\? it needs no token: --url=http:\/\/127\.0\.0\.1:\d+\/healthz\)/,
  );
});
