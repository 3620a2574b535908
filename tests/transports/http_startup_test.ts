import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCommandLine } from "../../src/config/cli.ts";
import {
  HttpStartupError,
  mcpUrlOf,
  readTokenFile,
  settleHttpToken,
} from "../../src/transports/http/http_startup.ts";
import { replicaConfirmationRefusal } from "../../src/transports/http/replicas.ts";
import { httpConfig, TEST_TOKEN } from "./_http.ts";

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

Deno.test("readTokenFile() reads a small text file and refuses empty, huge or missing ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-token-" });
  try {
    await Deno.writeTextFile(join(dir, "token"), `${TEST_TOKEN}\n`);
    assert.equal(await readTokenFile(join(dir, "token")), `${TEST_TOKEN}\n`);
    await Deno.writeTextFile(join(dir, "empty"), " \n");
    assert.match(await startupError(readTokenFile(join(dir, "empty"))), /is empty/);
    await Deno.writeTextFile(join(dir, "huge"), "x".repeat(5000));
    assert.match(await startupError(readTokenFile(join(dir, "huge"))), /larger than 4096 bytes/);
    assert.match(await startupError(readTokenFile(join(dir, "missing"))), /does not exist/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcpUrlOf() brackets IPv6 listen addresses", () => {
  assert.equal(mcpUrlOf({ host: "::1", port: 8080 }), "http://[::1]:8080/mcp");
  assert.equal(mcpUrlOf({ host: "127.0.0.1", port: 3000 }), "http://127.0.0.1:3000/mcp");
});

Deno.test("replicaConfirmationRefusal() refuses skill_run on stateless replicas without a shared secret", () => {
  assert.match(replicaConfirmationRefusal(httpConfig(["--stateless"])) ?? "", /MCP_CONFIRM_SECRET/);
  assert.equal(
    replicaConfirmationRefusal(
      httpConfig(["--stateless"], { MCP_CONFIRM_SECRET: "shared-secret" }),
    ),
    null,
  );
  assert.equal(replicaConfirmationRefusal(httpConfig()), null, "sessions keep confirmations");
  assert.equal(
    replicaConfirmationRefusal(httpConfig(["--stateless"], { MCP_CONFIRM_MODE: "refuse" })),
    null,
  );
});
