import assert from "node:assert/strict";
import { ignoredSignalsIn, inheritedIgnoredSignals } from "../../src/sandbox/ignored_signals.ts";
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
