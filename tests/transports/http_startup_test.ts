import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCommandLine } from "../../src/config/cli.ts";
import {
  httpScriptsWarning,
  HttpStartupError,
  mcpUrlOf,
  readTokenFile,
  settleHttpToken,
} from "../../src/transports/http/http_startup.ts";
import {
  httpRunRefusal,
  NO_TOKEN_REFUSAL,
  REPLICA_REFUSAL,
} from "../../src/transports/http/http_run_refusal.ts";
import { httpReadyLine } from "../../src/transports/http/shutdown_signals.ts";
import { httpConfig, TEST_TOKEN } from "./_http.ts";
import { runProgram } from "../support/program.ts";

/** A confirmation secret long enough for the start-up rule. */
const SECRET = "shared-secret-0123456789";

async function startupError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => null, (e: unknown) => e);
  assert.ok(error instanceof HttpStartupError, `expected HttpStartupError, got ${error}`);
  return error.message;
}

Deno.test("settleHttpToken() refuses to listen beyond loopback without a token", async () => {
  for (const host of ["0.0.0.0", "::", "10.0.0.5"]) {
    const message = await startupError(settleHttpToken(httpConfig([`--host=${host}`])));
    assert.match(message, /bearer token is required/);
    assert.match(message, /SKILLGATE_HTTP_TOKEN or --http-token-file/);
  }
  for (const host of ["127.0.0.1", "localhost", "::1"]) {
    const config = await settleHttpToken(httpConfig([`--host=${host}`]));
    assert.equal(config.httpToken, null);
  }
});

Deno.test("settleHttpToken() takes the token from the environment or the file, not both", async () => {
  const fromEnv = await settleHttpToken(
    httpConfig(["--host=0.0.0.0"], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN }),
  );
  assert.equal(fromEnv.httpToken, TEST_TOKEN);
  assert.ok(Object.isFrozen(fromEnv));
  const fromFile = await settleHttpToken(
    httpConfig(["--host=0.0.0.0", "--http-token-file=/run/token"]),
    { readTokenFile: (path) => Promise.resolve(path === "/run/token" ? `${TEST_TOKEN}\n` : "") },
  );
  assert.equal(fromFile.httpToken, TEST_TOKEN);
  const both = await startupError(settleHttpToken(
    httpConfig(["--http-token-file=/run/token"], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN }),
    { readTokenFile: () => Promise.resolve(TEST_TOKEN) },
  ));
  assert.match(both, /not both/);
});

Deno.test("settleHttpToken() refuses short or unprintable tokens", async () => {
  for (const token of ["short", "has a space in the middle of it", "tab\tinside-0123456789"]) {
    await startupError(settleHttpToken(httpConfig([], { SKILLGATE_HTTP_TOKEN: token })));
  }
});

Deno.test("settleHttpToken() leaves a stdio configuration alone", async () => {
  const config = parseCommandLine({ args: ["serve", "/x"], getEnv: () => undefined, cwd: "/" });
  assert.equal(await settleHttpToken(config), config);
});

Deno.test("readTokenFile() reads a small text file, refuses empty, huge or missing ones, and says how to create a missing or empty one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    await Deno.writeTextFile(join(dir, "token"), `${TEST_TOKEN}\n`);
    assert.equal(await readTokenFile(join(dir, "token")), `${TEST_TOKEN}\n`);
    await Deno.writeTextFile(join(dir, "empty"), " \n");
    assert.match(
      await startupError(readTokenFile(join(dir, "empty"))),
      /is empty; put a token in it: openssl rand -hex 32 > \S+empty && chmod 600 \S+empty$/,
    );
    await Deno.writeTextFile(join(dir, "huge"), "x".repeat(5000));
    assert.match(await startupError(readTokenFile(join(dir, "huge"))), /larger than 4096 bytes/);
    // Missing is what a newcomer meets first (README's example names ~/.config/skillgate/token):
    // the message says how to create it.
    const missing = join(dir, "missing");
    assert.equal(
      await startupError(readTokenFile(missing)),
      `The HTTP token file "${missing}" does not exist; create it: ` +
        `openssl rand -hex 32 > ${missing} && chmod 600 ${missing}`,
    );
    assert.match(
      await startupError(readTokenFile(join(dir, "sg", "token"))),
      /create it: mkdir -p \S+\/sg && openssl rand -hex 32 > \S+\/sg\/token && chmod 600 /,
    );
    const spaced = join(dir, "my token");
    assert.match(
      await startupError(readTokenFile(spaced)),
      /create it: openssl rand -hex 32 > '[^']+\/my token' && chmod 600 '[^']+\/my token'$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: readTokenFile() refuses a token file others may write, or in a folder others may write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    const path = join(dir, "token");
    await Deno.writeTextFile(path, `${TEST_TOKEN}\n`);
    for (const mode of [0o666, 0o620, 0o602]) {
      await Deno.chmod(path, mode);
      const message = await startupError(readTokenFile(path));
      assert.match(message, /is writable by (its group|others|group and others), who could/);
      assert.ok(message.includes(`chmod 600 ${path}`), message);
    }
    await Deno.chmod(path, 0o600);
    await Deno.chmod(dir, 0o777);
    const inOpenFolder = await startupError(readTokenFile(path));
    assert.ok(inOpenFolder.includes(`chmod go-w ${dir}`), inOpenFolder);
    await Deno.chmod(dir, 0o1777); // sticky, like /tmp: others cannot swap the file
    assert.equal(await readTokenFile(path), `${TEST_TOKEN}\n`);
    await Deno.chmod(dir, 0o700);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readTokenFile() warns when group or others can read the token, and reads it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    const path = join(dir, "token");
    await Deno.writeTextFile(path, `${TEST_TOKEN}\n`);
    await Deno.chmod(path, 0o644);
    const warnings: string[] = [];
    const text = await readTokenFile(path, { onWarning: (line) => warnings.push(line) });
    assert.equal(text, `${TEST_TOKEN}\n`);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /readable by group and others/);
    assert.ok((warnings[0] ?? "").includes(`chmod 600 ${path}`));
    await Deno.chmod(path, 0o600);
    warnings.length = 0;
    await readTokenFile(path, { onWarning: (line) => warnings.push(line) });
    assert.deepEqual(warnings, [], "a 600 file is read silently");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: settleHttpToken() refuses a world-writable --http-token-file and warns on a readable one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    const path = join(dir, "token");
    await Deno.writeTextFile(path, `${TEST_TOKEN}\n`);
    await Deno.chmod(path, 0o666);
    const warnings: string[] = [];
    const onWarning = (line: string) => warnings.push(line);
    const refused = await startupError(
      settleHttpToken(httpConfig([`--http-token-file=${path}`]), { onWarning }),
    );
    assert.match(refused, /writable by group and others/);
    await Deno.chmod(path, 0o640);
    const config = await settleHttpToken(httpConfig([`--http-token-file=${path}`]), { onWarning });
    assert.equal(config.httpToken, TEST_TOKEN);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /readable by its group/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readTokenFile() says a folder is a folder, not a file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    assert.match(await startupError(readTokenFile(dir)), /is a folder, not a file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: readTokenFile() refuses a token file owned by another user", {
  ignore: Deno.uid() !== 0,
}, async () => {
  // Only root can give a file away; as root, uid 65534 (nobody) owns it.
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    const path = join(dir, "token");
    await Deno.writeTextFile(path, `${TEST_TOKEN}\n`, { mode: 0o600 });
    await Deno.chown(path, 65534, null);
    assert.match(await startupError(readTokenFile(path)), /belongs to another user/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcpUrlOf() brackets IPv6 listen addresses", () => {
  assert.equal(mcpUrlOf({ host: "::1", port: 8080 }), "http://[::1]:8080/mcp");
  assert.equal(mcpUrlOf({ host: "127.0.0.1", port: 3000 }), "http://127.0.0.1:3000/mcp");
});

Deno.test("httpRunRefusal(): a local user without the token cannot run scripts over loopback HTTP", async () => {
  for (const flags of [[], ["--stateless"], ["--host=localhost"]]) {
    for (const env of [{}, { MCP_CONFIRM_MODE: "auto" }, { MCP_CONFIRM_SECRET: SECRET }]) {
      const refusal = httpRunRefusal(await settleHttpToken(httpConfig(flags, env)));
      assert.equal(refusal, NO_TOKEN_REFUSAL, `${flags.join(" ")} ${JSON.stringify(env)}`);
    }
  }
  assert.equal(
    NO_TOKEN_REFUSAL.message,
    "skill_run over HTTP needs a bearer token (SKILLGATE_HTTP_TOKEN or --http-token-file): " +
      "any local user can reach a loopback port",
  );
  const stdio = parseCommandLine({ args: ["serve", "/x"], getEnv: () => undefined, cwd: "/" });
  assert.equal(httpRunRefusal(stdio), null, "stdio has no port to reach");
});

Deno.test("httpRunRefusal() lets skill_run through once a token is settled, from the variable or the file", async () => {
  const fromEnv = await settleHttpToken(httpConfig([], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN }));
  assert.equal(httpRunRefusal(fromEnv), null);
  const fromFile = await settleHttpToken(httpConfig(["--http-token-file=/run/token"]), {
    readTokenFile: () => Promise.resolve(`${TEST_TOKEN}\n`),
  });
  assert.equal(httpRunRefusal(fromFile), null, "the token file counts once settled");
});

Deno.test("httpRunRefusal() refuses skill_run on stateless replicas without a shared secret", () => {
  const token = { SKILLGATE_HTTP_TOKEN: TEST_TOKEN };
  assert.equal(httpRunRefusal(httpConfig(["--stateless"], token)), REPLICA_REFUSAL);
  assert.match(REPLICA_REFUSAL.message, /MCP_CONFIRM_SECRET/);
  assert.equal(
    httpRunRefusal(httpConfig(["--stateless"], { ...token, MCP_CONFIRM_SECRET: SECRET })),
    null,
  );
  assert.equal(httpRunRefusal(httpConfig([], token)), null, "sessions keep confirmations");
  assert.equal(
    httpRunRefusal(httpConfig(["--stateless"], { ...token, MCP_CONFIRM_MODE: "refuse" })),
    null,
  );
});

Deno.test("httpScriptsWarning() warns at start-up over HTTP without a token: any local user reads every skill, and skill_run is refused", async () => {
  const bare = await settleHttpToken(httpConfig());
  const readers =
    /no bearer token, so any local user .* can read every skill served here.*SKILLGATE_HTTP_TOKEN/;
  assert.match(httpScriptsWarning(bare, { mayRunScripts: true }) ?? "", readers);
  assert.match(
    httpScriptsWarning(bare, { mayRunScripts: true }) ?? "",
    /skill_run is refused over HTTP too/,
  );
  assert.match(httpScriptsWarning(bare, { mayRunScripts: false }) ?? "", readers, "reads still");
  assert.doesNotMatch(httpScriptsWarning(bare, { mayRunScripts: false }) ?? "", /skill_run/);
  const withToken = httpConfig([], { SKILLGATE_HTTP_TOKEN: TEST_TOKEN });
  assert.equal(httpScriptsWarning(withToken, { mayRunScripts: true }), null);
  const refusing = httpConfig([], { MCP_CONFIRM_MODE: "refuse" });
  assert.match(httpScriptsWarning(refusing, { mayRunScripts: true }) ?? "", readers);
  const stdio = parseCommandLine({ args: ["serve", "/x"], getEnv: () => undefined, cwd: "/" });
  assert.equal(httpScriptsWarning(stdio, { mayRunScripts: true }), null);
});

Deno.test("httpReadyLine() on a wildcard address prints the listen address and how to connect, not http://0.0.0.0", () => {
  const ready = {
    type: "ready",
    skillCount: 3,
    errorCount: 0,
    warningCount: 0,
    problemLines: [],
  } as const;
  const token = { SKILLGATE_HTTP_TOKEN: TEST_TOKEN };
  const wildcard = httpReadyLine(httpConfig(["--host=0.0.0.0"], token), ready);
  assert.ok(!wildcard.includes("http://0.0.0.0"), wildcard);
  assert.match(wildcard, /over Streamable HTTP at 0\.0\.0\.0:39871, all interfaces/);
  assert.match(wildcard, /this machine's name or http:\/\/127\.0\.0\.1:39871\/mcp/);
  assert.match(wildcard, /bearer token required/);
  const v6 = httpReadyLine(httpConfig(["--host=::"], token), ready);
  assert.match(v6, /at \[::\]:39871, all interfaces: .* http:\/\/\[::1\]:39871\/mcp/);
  assert.equal(
    httpReadyLine(httpConfig(), ready),
    "skillgate: serving 3 skills over Streamable HTTP at http://127.0.0.1:39871/mcp " +
      "(sessions, no token)",
  );
});

Deno.test("httpReadyLine() says 1 skill, 1 error in the singular (newcomer review)", () => {
  const ready = {
    type: "ready",
    skillCount: 1,
    errorCount: 1,
    warningCount: 0,
    problemLines: [],
  } as const;
  assert.equal(
    httpReadyLine(httpConfig(), ready),
    "skillgate: serving 1 skill over Streamable HTTP at http://127.0.0.1:39871/mcp " +
      "(sessions, no token); 1 error, 0 warnings (skillgate list shows them)",
  );
});

Deno.test("a token file given through a link: the refusal and the warning name the link's target, whose mode must change", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-link-" });
  try {
    const target = join(dir, "secrets", "token");
    await Deno.mkdir(join(dir, "secrets"), { mode: 0o700 });
    await Deno.writeTextFile(target, `${TEST_TOKEN}\n`);
    const link = join(dir, "token-link");
    await Deno.symlink(target, link);
    const named = `"${target}" (given as the link "${link}")`;

    await Deno.chmod(target, 0o640);
    const warnings: string[] = [];
    await settleHttpToken(httpConfig([`--http-token-file=${link}`]), {
      onWarning: (line) => warnings.push(line),
    });
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0]?.includes(named), warnings[0]);
    assert.ok(warnings[0]?.endsWith(`run: chmod 600 ${target}`), warnings[0]);

    // Through the real command: the start is refused with the target's chmod.
    await Deno.chmod(target, 0o666);
    const run = await runProgram(["serve", dir, "--http=38123", `--http-token-file=${link}`]);
    assert.notEqual(run.code, 0);
    assert.ok(run.stderr.includes(named), run.stderr);
    assert.ok(run.stderr.includes(`run: chmod 600 ${target}`), run.stderr);
    assert.ok(!run.stderr.includes(`chmod 600 ${link}`), run.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
