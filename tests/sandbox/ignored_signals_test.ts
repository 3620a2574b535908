import assert from "node:assert/strict";
import {
  ignoredSignalsIn,
  inheritedIgnoredSignals,
  recordInheritedSignals,
} from "../../src/sandbox/ignored_signals.ts";
import { SHUTDOWN_SIGNALS, signalExitCode } from "../../src/transports/http/shutdown_signals.ts";

const status = (sigIgn: string) =>
  `Name:\tdeno\nSigPnd:\t0000000000000000\nSigBlk:\t0000000000000000\nSigIgn:\t${sigIgn}\n` +
  "SigCgt:\t0000000100000440\n";

Deno.test("ignoredSignalsIn() reads SigIgn's bit N-1 as signal N", () => {
  const table: [string, Deno.Signal[]][] = [
    ["0000000000001000", []], // SIGPIPE only (Deno's own)
    ["0000000000001001", ["SIGHUP"]], // nohup
    ["0000000000001006", ["SIGINT", "SIGQUIT"]], // a background job without job control
    ["0000000000004000", ["SIGTERM"]],
    ["000000000000400f", ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"]],
  ];
  for (const [mask, expected] of table) {
    assert.deepEqual(ignoredSignalsIn(status(mask), SHUTDOWN_SIGNALS), expected, mask);
  }
  assert.deepEqual(ignoredSignalsIn("Name:\tdeno\n", SHUTDOWN_SIGNALS), [], "no SigIgn line");
  assert.deepEqual(ignoredSignalsIn(status("zz"), SHUTDOWN_SIGNALS), [], "not hexadecimal");
  assert.deepEqual(
    ignoredSignalsIn(status("ffffffffffffffff"), ["SIGUSR1"]),
    [],
    "not a candidate",
  );
});

Deno.test("inheritedIgnoredSignals() reports none when the status cannot be read (not Linux)", () => {
  const unreadable = () => {
    throw new Deno.errors.NotFound("/proc/self/status");
  };
  assert.deepEqual(inheritedIgnoredSignals(SHUTDOWN_SIGNALS, unreadable), []);
});

Deno.test("inheritedIgnoredSignals() sees SIGHUP ignored in a process started by a real nohup", async () => {
  const code = 'import { inheritedIgnoredSignals } from "' +
    new URL("../../src/sandbox/ignored_signals.ts", import.meta.url).href +
    '"; console.log(JSON.stringify(inheritedIgnoredSignals(["SIGHUP", "SIGTERM"])));';
  const run = async (command: string, args: string[]) => {
    const output = await new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    return JSON.parse(new TextDecoder().decode(output.stdout).trim());
  };
  const denoArgs = ["eval", "--no-config", "--allow-all", code];
  assert.deepEqual(await run("nohup", [Deno.execPath(), ...denoArgs]), ["SIGHUP"]);
  assert.deepEqual(await run(Deno.execPath(), denoArgs), [], "without nohup nothing is ignored");
});

Deno.test("signalExitCode() is 128 + the signal's number for every shutdown signal", () => {
  assert.deepEqual(
    SHUTDOWN_SIGNALS.map((signal) => [signal, signalExitCode(signal)]),
    [
      ["SIGTERM", 143],
      ["SIGINT", 130],
      ["SIGHUP", 129],
      ["SIGQUIT", 131],
      ["SIGALRM", 142],
      ["SIGUSR2", 140],
      ["SIGVTALRM", 154],
      ["SIGPROF", 155],
      ["SIGXCPU", 152],
      ["SIGXFSZ", 153],
      ["SIGPWR", 158],
      ["SIGSTKFLT", 144],
      ["SIGIO", 157],
      ["SIGSYS", 159],
    ],
  );
});

Deno.test("attack: a worker that adds a SIGHUP listener before the trusted part reads its ignored signals does not make nohup's SIGHUP look handled (the reading main.ts takes first is kept)", async () => {
  const module = new URL("../../src/sandbox/ignored_signals.ts", import.meta.url).href;
  // A worker whose first act is a SIGHUP listener (none does today; the order must not depend on it).
  const worker = "Deno.addSignalListener('SIGHUP', () => {}); postMessage('added');";
  const code = (records: boolean) =>
    `import { inheritedIgnoredSignals, recordInheritedSignals } from "${module}";\n` +
    (records ? "recordInheritedSignals();\n" : "") +
    `const url = "data:application/javascript," + encodeURIComponent(${
      JSON.stringify(worker)
    });\n` +
    "const w = new Worker(url, { type: 'module' });\n" +
    "await new Promise((done) => { w.onmessage = done; });\n" +
    "console.log(JSON.stringify(inheritedIgnoredSignals(['SIGHUP', 'SIGTERM'])));\n" +
    "w.terminate();";
  const run = async (records: boolean) => {
    const output = await new Deno.Command("nohup", {
      args: [Deno.execPath(), "eval", "--no-config", "--allow-all", code(records)],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    return JSON.parse(new TextDecoder().decode(output.stdout).trim());
  };
  // Read after the worker's listener (the order main had: the read in `serve`, long after the
  // early worker started): the listener cleared the bit, SIGHUP looks handled.
  assert.deepEqual(await run(false), [], "the hazard: a late read misses the ignored SIGHUP");
  // Recorded first, as main.ts does before any worker: still ignored.
  assert.deepEqual(await run(true), ["SIGHUP"]);
});

Deno.test("main.ts records the inherited signals before it creates any worker", () => {
  const main = Deno.readTextFileSync(new URL("../../main.ts", import.meta.url));
  const recordAt = main.indexOf("recordInheritedSignals();");
  const firstWorkerAt = main.indexOf("startEarlyWorker()");
  assert.ok(recordAt > 0 && firstWorkerAt > 0);
  assert.ok(recordAt < firstWorkerAt, "the early worker is created before the read");
  // Nothing between them but comments and the read itself.
  const between = main.slice(recordAt, firstWorkerAt).split("\n").slice(1)
    .filter((line) => !line.trimStart().startsWith("//"));
  assert.deepEqual(between, ["const earlyStart: EarlyStart | null = import.meta.main ? "]);
});

Deno.test("recordInheritedSignals() keeps its first reading; an unreadable status reports none", () => {
  // This test process recorded nothing yet: an explicit reader is always read now.
  const status = "Name:\tx\nSigIgn:\t0000000000000001\n";
  assert.deepEqual(inheritedIgnoredSignals(["SIGHUP"], () => status), ["SIGHUP"]);
  recordInheritedSignals(() => status);
  recordInheritedSignals(() => "SigIgn:\t0000000000000000\n");
  assert.deepEqual(inheritedIgnoredSignals(["SIGHUP", "SIGINT"]), ["SIGHUP"]);
});
