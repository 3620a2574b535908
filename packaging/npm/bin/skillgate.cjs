#!/usr/bin/env node
// `npx skillgate`: starts skillgate from this package's sources on the Deno of the `deno` npm
// dependency (pinned), with the trusted flags of src/sandbox/trusted_flags.json, the one list
// the launcher, the tests and `make compile` use:
//   deno run --config <pkg>/deno.json <trusted flags> <pkg>/main.ts ARGS...
// Arguments pass through unchanged, and the exit status (or the ending signal) is the
// program's. Stdout carries only the MCP protocol: the first run's dependency install
// (`deno install --frozen`, from the npm registry into <pkg>/node_modules) writes to stderr.
// DENO_NO_PACKAGE_JSON=1 keeps Deno from reading this package.json (deno.json and deno.lock
// are the program's dependency list).
"use strict";
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const stamp = path.join(root, "node_modules", ".skillgate-npx-deps");

function fail(message) {
  process.stderr.write(`skillgate: ${message}\n`);
  process.exit(1);
}

let deno;
try {
  deno = require("deno/install_api.cjs").runInstall();
} catch (error) {
  fail(
    `cannot find the deno binary of the deno npm package (${error.message}); reinstall skillgate`,
  );
}

const flagsFile = JSON.parse(
  fs.readFileSync(path.join(root, "src", "sandbox", "trusted_flags.json"), "utf8"),
);
const flags = [...flagsFile.runtime, ...flagsFile.permissions];
const env = { ...process.env, DENO_NO_PACKAGE_JSON: "1" };

if (!fs.existsSync(stamp)) {
  // Output goes to stderr (fd 2), never to stdout, which belongs to the protocol.
  const install = spawnSync(
    deno,
    ["install", "--frozen", "--config", path.join(root, "deno.json")],
    {
      cwd: root,
      env,
      stdio: ["ignore", 2, 2],
    },
  );
  if (install.status !== 0) {
    fail(
      `installing skillgate's locked dependencies failed (deno install --frozen in ${root}); check that the npm registry is reachable and the folder is writable`,
    );
  }
  fs.writeFileSync(stamp, "");
}

const child = spawn(
  deno,
  [
    "run",
    "--config",
    path.join(root, "deno.json"),
    ...flags,
    path.join(root, "main.ts"),
    ...process.argv.slice(2),
  ],
  { stdio: "inherit", env },
);
// A client that ends this process ends skillgate too.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => fail(`cannot start deno: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
