/**
 * The start record (`src/sandbox/early_start.ts`, issue 13): `serve` creates
 * its worker before the rest of the trusted part loads, with the set the last
 * start of the same command computed. The record may only decide how early a
 * worker is created: these tests attack what it is read from and what a
 * worker made from it may become.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chooseEarlyWorker,
  type EarlyStart,
  fromTemplate,
  isWorkerOption,
  readStartRecord,
  rememberStart,
  sha256HexSync,
  START_RECORD_MAX_BYTES,
  START_RECORD_MAX_ENTRIES,
  START_RECORD_VERSION,
  startEarlyWorker,
  type StartRecord,
  startRecordKey,
  startRecordKeyText,
  startRecordPath,
  startRecordText,
  toTemplate,
} from "../../src/sandbox/early_start.ts";
import type { PreparedProcess } from "../../src/sandbox/process_prep.ts";
import { createWorkerFromOption, heldWorkerOption } from "../../src/sandbox/worker_isolate.ts";
import { toWorkerOption, type WorkerPermissions } from "../../src/sandbox/worker_permissions.ts";

const PREDICTED: WorkerPermissions = {
  read: ["/skills", "/cache/skillgate/index"],
  write: ["/cache/skillgate/index"],
  run: [],
  net: [],
  env: ["LOG_TOKENS", "LOG_STREAM"],
  sys: [],
  ffi: [],
};

/** A worker entry that does nothing (a module with no code). */
const IDLE_ENTRY = new URL("data:text/javascript,export%20%7B%7D%3B");

/** A stand-in for the process preparation, counting calls. */
function countingPrepare(): { prepare: () => PreparedProcess; calls: () => number } {
  let calls = 0;
  const prepared = { scrub: "done", dumpable: "done" } as unknown as PreparedProcess;
  return { prepare: () => (calls++, prepared), calls: () => calls };
}

/** A record file with this text and mode in a fresh folder; removed on dispose. */
async function recordFile(text: string, mode = 0o600) {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-start-record-" });
  const path = `${dir}/start-record.json`;
  await Deno.writeTextFile(path, text, { mode });
  await Deno.chmod(path, mode);
  return { dir, path, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** A record as `rememberStart` writes it, of one entry or several (most recent first). */
function recordText(key: string, option: string, ...more: [string, string][]): string {
  const entries = [[key, option], ...more].map(([k, o]) => ({ key: k, option: o }));
  return JSON.stringify({ version: START_RECORD_VERSION, entries });
}

/** This test process's key, as `startEarlyWorker` computes it. */
function thisProcessKey(): string {
  return startRecordKey(Deno.args, Deno.cwd(), Deno.env.toObject());
}

Deno.test("sha256HexSync() is SHA-256 (node:crypto's digest) at every padding boundary, and startRecordKey() hashes its text with it", () => {
  for (const size of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1_000, 70_000]) {
    const bytes = new Uint8Array(size);
    for (let at = 0; at < size; at++) bytes[at] = (at * 131 + size) & 0xff;
    assert.equal(sha256HexSync(bytes), createHash("sha256").update(bytes).digest("hex"), `${size}`);
  }
  const env = { HOME: "/home/u", SECRET: "s3cr\u00e9t" };
  const text = startRecordKeyText(["serve", "/skills"], "/work", env);
  assert.equal(
    startRecordKey(["serve", "/skills"], "/work", env),
    createHash("sha256").update(text).digest("hex"),
  );
  assert.ok(
    !startRecordKey(["serve"], "/", env).includes("s3cr"),
    "the key is a digest, not the text",
  );
});

Deno.test("startRecordKey() changes with any argument, the working folder or any variable, but not XDG_CACHE_HOME", () => {
  const env = { HOME: "/home/u", PATH: "/usr/bin", XDG_CACHE_HOME: "/tmp/a" };
  const key = startRecordKey(["serve", "/skills"], "/work", env);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(
    startRecordKey(["serve", "/skills"], "/work", { ...env, XDG_CACHE_HOME: "/tmp/b" }),
    key,
  );
  // The order variables come in does not matter; their names and values do.
  assert.equal(
    startRecordKey(["serve", "/skills"], "/work", {
      XDG_CACHE_HOME: "/x",
      PATH: "/usr/bin",
      HOME: "/home/u",
    }),
    key,
  );
  for (
    const other of [
      startRecordKey(["serve", "/skills", "--static"], "/work", env),
      startRecordKey(["serve", "/other"], "/work", env),
      startRecordKey(["serve", "/skills"], "/elsewhere", env),
      startRecordKey(["serve", "/skills"], "/work", { ...env, SKILLGATE_GRANT: "{}" }),
      startRecordKey(["serve", "/skills"], "/work", { ...env, HOME: "/home/v" }),
    ]
  ) assert.notEqual(other, key);
});

Deno.test("toTemplate() and fromTemplate(): folders under XDG_CACHE_HOME move with it, other paths never", () => {
  const option = JSON.stringify(toWorkerOption({
    ...PREDICTED,
    read: ["/tmp/a", "/tmp/ab/skills", "/tmp/a/skillgate/index"],
    write: ["/tmp/a/skillgate/index"],
  }));
  const template = toTemplate(option, "/tmp/a/");
  assert.ok(!template.includes('"/tmp/a/skillgate'), template);
  const moved = JSON.parse(fromTemplate(template, "/var/cache/u") ?? "null");
  assert.deepEqual(moved.read, ["/var/cache/u", "/tmp/ab/skills", "/var/cache/u/skillgate/index"]);
  assert.deepEqual(moved.write, ["/var/cache/u/skillgate/index"]);
  assert.equal(fromTemplate(template, "/tmp/a"), option, "the same folder gives the same option");
  // A template that needs the variable is not used without a usable one.
  for (const unusable of [undefined, "", "relative/cache", "/"]) {
    assert.equal(fromTemplate(template, unusable), null, String(unusable));
  }
  // Without a usable variable nothing is replaced (and nothing needs it back).
  assert.equal(toTemplate(option, undefined), option);
  assert.equal(toTemplate(option, "/"), option);
  assert.equal(fromTemplate(option, undefined), option);
});

Deno.test("startRecordPath(): only beside a bundle's main.js", () => {
  assert.equal(
    startRecordPath("file:///opt/skill%20gate/.bundle/abc/main.js"),
    "/opt/skill gate/.bundle/abc/start-record.json",
  );
  assert.equal(startRecordPath("file:///opt/skillgate/main.ts"), null);
  assert.equal(startRecordPath("file:///tmp/deno-compile-skillgate/main.ts"), null);
});

Deno.test("readStartRecord() reads a record of this user that no one else may write", async () => {
  await using file = await recordFile(recordText("k".repeat(64), '{"read":false}'));
  assert.deepEqual(readStartRecord(file.path), [{
    key: "k".repeat(64),
    template: '{"read":false}',
  }]);
});

Deno.test("readStartRecord() reads every command line's entry of a record, most recent first", async () => {
  const more: [string, string][] = [];
  for (let i = 1; i < START_RECORD_MAX_ENTRIES; i++) more.push([`${i}`.repeat(64), `{"n":${i}}`]);
  await using file = await recordFile(recordText("0".repeat(64), '{"n":0}', ...more));
  const entries = readStartRecord(file.path);
  assert.equal(entries?.length, START_RECORD_MAX_ENTRIES);
  assert.deepEqual(entries?.[0], { key: "0".repeat(64), template: '{"n":0}' });
  assert.deepEqual(entries?.at(-1), {
    key: `${START_RECORD_MAX_ENTRIES - 1}`.repeat(64),
    template: `{"n":${START_RECORD_MAX_ENTRIES - 1}}`,
  });
});

Deno.test("attack: readStartRecord() refuses a record its group or others may write, a symlink to a record, a FIFO, one over 64 KiB, another format", async () => {
  const text = recordText("k".repeat(64), '{"read":false}');
  for (const mode of [0o620, 0o602, 0o666]) {
    await using file = await recordFile(text, mode);
    assert.equal(readStartRecord(file.path), null, `mode ${mode.toString(8)}`);
  }
  {
    await using file = await recordFile(text);
    const link = `${file.dir}/link.json`;
    await Deno.symlink(file.path, link);
    assert.equal(readStartRecord(link), null, "a symlink");
  }
  {
    await using file = await recordFile(text);
    const fifo = `${file.dir}/fifo.json`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success);
    assert.equal(readStartRecord(fifo), null, "a FIFO (and the read did not block)");
  }
  {
    await using file = await recordFile(
      recordText("k".repeat(64), `{"pad":"${"x".repeat(START_RECORD_MAX_BYTES)}"}`),
    );
    assert.equal(readStartRecord(file.path), null, "over the cap");
  }
  const entry = { key: "k", option: "{}" };
  const tooMany = Array.from({ length: START_RECORD_MAX_ENTRIES + 1 }, (_, i) => ({
    key: `k${i}`,
    option: "{}",
  }));
  for (
    const other of [
      JSON.stringify({ version: START_RECORD_VERSION + 1, entries: [entry] }),
      // The one-command-line format of version 1.
      JSON.stringify({ version: 1, key: "k", option: "{}" }),
      JSON.stringify({ version: START_RECORD_VERSION, key: "k", option: "{}" }),
      JSON.stringify({ version: START_RECORD_VERSION, entries: [] }),
      JSON.stringify({ version: START_RECORD_VERSION, entries: entry }),
      JSON.stringify({ version: START_RECORD_VERSION, entries: tooMany }),
      // One malformed entry refuses the whole record, the well-formed ones with it.
      JSON.stringify({ version: START_RECORD_VERSION, entries: [entry, { key: 1, option: "{}" }] }),
      JSON.stringify({ version: START_RECORD_VERSION, entries: [entry, { key: "j", option: {} }] }),
      JSON.stringify({ version: START_RECORD_VERSION, entries: [entry, null] }),
      // Two entries for one command line: which one would stand is not decided, so neither does.
      JSON.stringify({
        version: START_RECORD_VERSION,
        entries: [entry, { ...entry, option: "[]" }],
      }),
      "not json",
      "null",
    ]
  ) {
    await using file = await recordFile(other);
    assert.equal(readStartRecord(file.path), null, other);
  }
  if (Deno.uid() === 0) {
    // Another user's record (only root can give a file away).
    await using file = await recordFile(text);
    await Deno.chown(file.path, 65534, 65534);
    assert.equal(readStartRecord(file.path), null, "another user's record");
  }
});

Deno.test("attack: isWorkerOption() refuses an option granting everything, code loading, unknown or reordered keys", () => {
  const option = toWorkerOption(PREDICTED);
  assert.equal(isWorkerOption(JSON.parse(JSON.stringify(option))), true);
  const refused: unknown[] = [
    { ...option, read: true },
    { ...option, run: true },
    { ...option, import: ["https://example.com"] },
    { ...option, import: true },
    { ...option, hrtime: true },
    { ...option, read: [] },
    { ...option, read: [1] },
    Object.fromEntries(Object.entries(option).reverse()),
    "inherit",
    null,
    [],
  ];
  for (const value of refused) assert.equal(isWorkerOption(value), false, JSON.stringify(value));
});

Deno.test("attack: chooseEarlyWorker(): a worker made from a record with rights the predicted set lacks is ended unused, and one with the predicted set is created without preparing the process again", () => {
  const wider = toWorkerOption({ ...PREDICTED, run: ["/usr/bin/bwrap"], write: ["/"] });
  const recorded: EarlyStart = {
    worker: createWorkerFromOption(IDLE_ENTRY, wider),
    prepared: { scrub: "recorded" } as unknown as PreparedProcess,
  };
  let posted = 0;
  const postMessage = recorded.worker.postMessage.bind(recorded.worker);
  recorded.worker.postMessage = ((message: unknown) => {
    posted++;
    postMessage(message);
  }) as Worker["postMessage"];
  let ended = 0;
  const terminate = recorded.worker.terminate.bind(recorded.worker);
  recorded.worker.terminate = () => {
    ended++;
    terminate();
  };
  const preparing = countingPrepare();
  const created: Worker[] = [];
  const chosen = chooseEarlyWorker(recorded, PREDICTED, {
    create: (permissions) => {
      const worker = createWorkerFromOption(IDLE_ENTRY, toWorkerOption(permissions));
      created.push(worker);
      return worker;
    },
    prepare: preparing.prepare,
  });
  try {
    assert.equal(ended, 1, "the record's worker was ended");
    assert.equal(posted, 0, "it received nothing");
    assert.equal(created.length, 1);
    assert.equal(chosen.early, created[0]);
    assert.equal(heldWorkerOption(created[0]!), JSON.stringify(toWorkerOption(PREDICTED)));
    assert.equal(preparing.calls(), 0, "prepared once, before the record's worker");
    assert.equal(chosen.prepared, recorded.prepared);
  } finally {
    for (const worker of created) worker.terminate();
  }
});

Deno.test("chooseEarlyWorker(): a record's worker holding exactly the predicted set is kept; without a prediction it is ended", () => {
  const preparing = countingPrepare();
  const make = {
    create: (): Worker => {
      throw new Error("no second worker may be created");
    },
    prepare: preparing.prepare,
  };
  const prepared = { scrub: "recorded" } as unknown as PreparedProcess;
  const exact: EarlyStart = {
    worker: createWorkerFromOption(
      IDLE_ENTRY,
      JSON.parse(JSON.stringify(toWorkerOption(PREDICTED))),
    ),
    prepared,
  };
  try {
    const kept = chooseEarlyWorker(exact, PREDICTED, make);
    assert.equal(kept.early, exact.worker);
    assert.equal(kept.prepared, prepared);
  } finally {
    exact.worker.terminate();
  }
  let ended = 0;
  const unpredicted: EarlyStart = {
    worker: { terminate: () => void ended++ } as unknown as Worker,
    prepared,
  };
  const none = chooseEarlyWorker(unpredicted, null, make);
  assert.equal(none.early, null);
  assert.equal(ended, 1);
  assert.equal(none.prepared, prepared, "the preparation done is passed on, never repeated");
  // No record: the process is prepared once, then the predicted worker created.
  const fresh = chooseEarlyWorker(null, PREDICTED, {
    create: (permissions) => createWorkerFromOption(IDLE_ENTRY, toWorkerOption(permissions)),
    prepare: preparing.prepare,
  });
  try {
    assert.equal(preparing.calls(), 1);
    assert.notEqual(fresh.early, null);
  } finally {
    fresh.early?.terminate();
  }
  assert.deepEqual(chooseEarlyWorker(null, null, make), { early: null, prepared: undefined });
});

Deno.test("startRecordText(): this command line's entry first, the others kept in order, the oldest dropped past the entry cap and the size cap", () => {
  const entry = (n: number, pad = 0): StartRecord => ({
    key: `${n}`.padStart(64, "0"),
    template: `{"n":${n},"pad":"${"x".repeat(pad)}"}`,
  });
  const parse = (
    text: string | null,
  ) => (JSON.parse(text ?? "null") as { version: number; entries: { key: string }[] });
  const one = parse(startRecordText(entry(1), []));
  assert.equal(one.version, START_RECORD_VERSION);
  assert.deepEqual(one.entries.map(({ key }) => key), [entry(1).key]);
  // The same command line again: its entry replaced and moved first, never twice.
  const again = parse(startRecordText(entry(2), [entry(1), entry(2), entry(3)]));
  assert.deepEqual(again.entries.map(({ key }) => key), [entry(2).key, entry(1).key, entry(3).key]);
  // A full record: the oldest (last) is dropped.
  const full = Array.from({ length: START_RECORD_MAX_ENTRIES }, (_, i) => entry(i + 1));
  const next = parse(startRecordText(entry(99), full));
  assert.equal(next.entries.length, START_RECORD_MAX_ENTRIES);
  assert.equal(next.entries[0]!.key, entry(99).key);
  assert.ok(!next.entries.some(({ key }) => key === entry(START_RECORD_MAX_ENTRIES).key));
  // Large options: the oldest are dropped until the text fits the cap readStartRecord reads.
  const large = Array.from({ length: 4 }, (_, i) => entry(i + 1, 20_000));
  const fitted = startRecordText(entry(0, 20_000), large);
  assert.ok(new TextEncoder().encode(fitted ?? "").length <= START_RECORD_MAX_BYTES);
  assert.deepEqual(parse(fitted).entries.map(({ key }) => key), [
    entry(0).key,
    entry(1).key,
    entry(2).key,
  ]);
  // An entry over the cap by itself: nothing to write.
  assert.equal(startRecordText(entry(0, START_RECORD_MAX_BYTES), [entry(1)]), null);
});

Deno.test("two command lines started in turn: rememberStart() keeps the other's entry beside this one's, writes nothing when this one's is recorded, and writes a record readStartRecord() uses (0600)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-start-record-lines-" });
  try {
    const path = `${dir}/start-record.json`;
    const other: StartRecord = { key: "f".repeat(64), template: '{"read":["/other"]}' };
    await Deno.writeTextFile(path, recordText(other.key, other.template), { mode: 0o600 });
    // This process's command line is not recorded: no early worker (nor any process preparation).
    const mainModule = new URL(`file://${dir}/main.js`).href;
    assert.equal(startEarlyWorker(mainModule), null);
    const option = JSON.stringify(toWorkerOption(PREDICTED));
    rememberStart(option);
    const written = readStartRecord(path);
    assert.deepEqual(written, [{ key: thisProcessKey(), template: option }, other]);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    // Recorded now: a second call (the same start's) writes nothing.
    const { ino } = await Deno.stat(path);
    rememberStart(option);
    assert.equal((await Deno.stat(path)).ino, ino, "rewritten though already recorded");
    // The other command line started meanwhile and recorded a narrower set: kept, not lost.
    const narrowed: StartRecord = { key: other.key, template: '{"read":["/other/narrow"]}' };
    await Deno.writeTextFile(
      path,
      recordText(narrowed.key, narrowed.template, [thisProcessKey(), option]),
      { mode: 0o600 },
    );
    const changed = JSON.stringify(toWorkerOption({ ...PREDICTED, read: ["/skills"] }));
    rememberStart(changed);
    assert.deepEqual(readStartRecord(path), [
      { key: thisProcessKey(), template: changed },
      narrowed,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
