import assert from "node:assert/strict";
import { buildScriptEnv } from "../../src/scripts/script_env.ts";

const VALUES = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  TZ: "UTC",
  API_KEY: "k",
  OTHER_SECRET: "s",
  LD_PRELOAD: "/evil.so",
};

Deno.test("buildScriptEnv() hands only base names, MCP_DATA_DIR and granted names", () => {
  const { env, names } = buildScriptEnv(VALUES, {
    granted: ["API_KEY", "MISSING"],
    dataDir: "/data",
    interpreter: "node",
  });
  assert.deepEqual(env, {
    PATH: "/usr/bin",
    HOME: "/home/u",
    TZ: "UTC",
    API_KEY: "k",
    MCP_DATA_DIR: "/data",
  });
  assert.deepEqual(names, ["API_KEY", "HOME", "MCP_DATA_DIR", "PATH", "TZ"]);
});

Deno.test("buildScriptEnv() sets UTF-8 for Python only", () => {
  const python = buildScriptEnv(VALUES, { granted: [], dataDir: null, interpreter: "python3" });
  assert.equal(python.env.PYTHONUTF8, "1");
  assert.equal(python.env.PYTHONIOENCODING, "utf-8");
  const shell = buildScriptEnv(VALUES, { granted: [], dataDir: null, interpreter: "sh" });
  assert.equal(shell.env.PYTHONUTF8, undefined);
  assert.equal(shell.env.MCP_DATA_DIR, undefined);
});
