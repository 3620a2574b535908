/**
 * The fetcher over HTTPS with exactly its permission set: the real program's
 * `sync` against a loopback API and download host serving TLS (a leaf
 * certificate for `localhost` from a test CA in `tls/`, the CA trusted
 * through `DENO_CERT`; the CA's key was thrown away), as against
 * api.github.com and codeload.github.com.
 */

import { join } from "node:path";
import { runProgram } from "../support/program.ts";
import { assertEquals } from "./_assert.ts";
import { startFakeGitHub } from "./_fake_github.ts";
import { publish, V1 } from "./_remote_fixture.ts";

const TLS_DIR = new URL("./tls/", import.meta.url).pathname;

Deno.test("sync fetches over HTTPS through the redirect, with the fetcher's permissions only", async () => {
  await using fake = startFakeGitHub({
    tls: {
      cert: await Deno.readTextFile(join(TLS_DIR, "cert.pem")),
      key: await Deno.readTextFile(join(TLS_DIR, "key.pem")),
    },
  });
  const commit = await publish(fake, "acme/skills", "main", V1);
  const dir = await Deno.makeTempDir({ prefix: "skillgate-https-" });
  try {
    const result = await runProgram([
      "sync",
      "--source=github:acme/skills/skills@main",
      "--github-allow=acme",
      `--github-api=${fake.apiUrl}`,
      `--github-download-host=${fake.downloadHost}`,
      `--lock=${join(dir, "skillgate.lock")}`,
    ], {
      env: { XDG_CACHE_HOME: join(dir, "cache"), DENO_CERT: join(TLS_DIR, "ca.pem") },
    });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(fake.apiUrl.startsWith("https://localhost:"), true);
    const lock = JSON.parse(await Deno.readTextFile(join(dir, "skillgate.lock")));
    assertEquals(lock.sources[0].resolved.commit, commit);
    assertEquals(fake.seen.map((r) => r.host), ["api", "api", "download"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
