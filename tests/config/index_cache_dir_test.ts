import assert from "node:assert/strict";
import { prepareIndexCacheDir } from "../../src/config/index_cache_dir.ts";
import { makeTree } from "../skills/_tree.ts";

Deno.test("prepareIndexCacheDir() creates an owner-only folder and uses it", async () => {
  await using tree = await makeTree({});
  const dir = tree.at("cache/skillgate/index");
  const prepared = prepareIndexCacheDir(dir);
  assert.deepEqual(prepared, { dir, warning: null });
  assert.equal((Deno.statSync(dir).mode ?? 0) & 0o777, 0o700);
});

Deno.test("attack: an index cache folder others may write is not used (they could plant a forged cache)", async () => {
  await using tree = await makeTree({});
  const dir = tree.at("index");
  Deno.mkdirSync(dir);
  Deno.chmodSync(dir, 0o777);
  const prepared = prepareIndexCacheDir(dir);
  assert.equal(prepared.dir, null);
  assert.match(prepared.warning ?? "", /may be written by other users; running without it/);
});

Deno.test("attack: an index cache folder under a folder others may write (no sticky bit) is not used: they could swap in a folder of theirs", async () => {
  await using tree = await makeTree({});
  const shared = tree.at("shared");
  Deno.mkdirSync(shared);
  Deno.chmodSync(shared, 0o777);
  const prepared = prepareIndexCacheDir(`${shared}/skillgate/index`);
  assert.equal(prepared.dir, null);
  assert.match(
    prepared.warning ?? "",
    /lies under .*shared, where another user could put a folder/,
  );
  // With the sticky bit (as /tmp has) only an entry's owner may rename it: then it is used.
  Deno.chmodSync(shared, 0o1777);
  const sticky = prepareIndexCacheDir(`${shared}/skillgate/index`);
  assert.equal(sticky.dir, `${shared}/skillgate/index`);
  assert.equal(sticky.warning, null);
});

Deno.test("prepareIndexCacheDir() given a file says it is a file and to pass a folder, not AlreadyExists (newcomer review)", async () => {
  await using tree = await makeTree({ "cache.json": "{}" });
  for (const dir of [tree.at("cache.json"), tree.at("cache.json/index")]) {
    const prepared = prepareIndexCacheDir(dir);
    assert.equal(prepared.dir, null);
    assert.doesNotMatch(prepared.warning ?? "", /AlreadyExists|NotADirectory/);
    assert.match(
      prepared.warning ?? "",
      /is a file \(or lies under one\), not a folder; pass a folder/,
    );
  }
});

Deno.test("a folder its group may write is safe when that group holds no other user (umask 002 with user private groups), refused when it does", async () => {
  await using tree = await makeTree({});
  const uid = Deno.uid();
  const gid = Deno.gid();
  const grouped = tree.at("grouped");
  Deno.mkdirSync(grouped);
  Deno.chmodSync(grouped, 0o775);
  // Whether this process's own primary group holds anyone else decides; read it as the rule does.
  const passwd = Deno.readTextFileSync("/etc/passwd").split("\n").map((line) => line.split(":"));
  const own = passwd.find((fields) => Number(fields[2]) === uid)?.[0];
  const group = Deno.readTextFileSync("/etc/group").split("\n").map((line) => line.split(":"))
    .find((fields) => Number(fields[2]) === gid);
  const shared = passwd.some((fields) => Number(fields[3]) === gid && fields[0] !== own) ||
    (group?.[3] ?? "").split(",").some((name) => name !== "" && name !== own);
  const prepared = prepareIndexCacheDir(`${grouped}/skillgate/index`);
  assert.equal(prepared.dir === null, shared, JSON.stringify(prepared));
  // A group with another user in it (daemon's primary group): refused. Needs root to chown.
  const daemon = passwd.find((fields) => fields[0] === "daemon");
  if (uid === 0 && daemon !== undefined) {
    const other = tree.at("other");
    Deno.mkdirSync(other);
    Deno.chownSync(other, 0, Number(daemon[3]));
    Deno.chmodSync(other, 0o775);
    assert.equal(prepareIndexCacheDir(`${other}/skillgate/index`).dir, null);
  }
});
