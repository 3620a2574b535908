import assert from "node:assert/strict";
import { parseEnvRange, scrubEnviron } from "../../src/sandbox/environ_scrub.ts";

const STAT_TAIL = Array.from({ length: 46 }, (_, index) => String(index)).join(" ");

Deno.test("scrubEnviron() re-homes every variable before it zeroes the block", () => {
  const calls: string[] = [];
  const status = scrubEnviron({
    os: "linux",
    readStat: () => `1 (a) b) S ${STAT_TAIL} 4096 4160 0`,
    entries: () => [["A", "1"], ["B", "2"]],
    setEnv: (name) => calls.push(`set ${name}`),
    writeMemory: (address, bytes) => calls.push(`zero ${address} ${bytes.length}`),
    readEnviron: () => new Uint8Array(64),
  });
  assert.deepEqual(calls, ["set A", "set B", "zero 4096 64"]);
  assert.equal(status.scrubbed, true);
  assert.equal(status.method, "proc-self-mem");
});

Deno.test("scrubEnviron() reports failure without throwing", () => {
  const base = {
    os: "linux",
    readStat: () => `1 (a) S ${STAT_TAIL} 4096 4160 0`,
    entries: () => [] as [string, string][],
    setEnv: () => {},
    writeMemory: () => {
      throw new Deno.errors.PermissionDenied("no");
    },
    readEnviron: () => new Uint8Array([65]),
  };
  assert.equal(scrubEnviron(base).scrubbed, false);
  assert.equal(scrubEnviron({ ...base, writeMemory: () => {} }).scrubbed, false);
  assert.equal(scrubEnviron({ ...base, os: "darwin" }).method, "none");
  assert.equal(parseEnvRange("1 (a) S 1 2 3"), null);
});

Deno.test("after the scrub a child cannot read a secret from /proc/<ppid>/environ", async () => {
  const probe = new URL("../fixtures/scripts/scrub_probe.ts", import.meta.url);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--cached-only", probe.pathname],
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", SCRUB_SENTINEL: "scrub-sentinel-42", HOME: "/tmp" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const result = JSON.parse(stdout);
  assert.equal(result.status.scrubbed, true);
  assert.equal(result.child, "absent");
  assert.equal(result.stillReadable, "scrub-sentinel-42");
});
