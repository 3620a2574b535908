/**
 * A hostile process for the discovery exchange attack
 * (`tests/skills/discovery_group_exchange_attack_test.ts`,
 * `tests/e2e/discovery_group_exchange_attack_test.ts`): for a bounded time it
 * exchanges two paths atomically (`renameat2` with `RENAME_EXCHANGE`, through
 * FFI) in a tight loop, an even number of times a round, so every moment of a
 * reader's open, read and checks may meet either arrangement; it ends with
 * the paths as they began.
 *
 * Usage: deno run --allow-read --allow-write --allow-ffi tests/support/folder_exchanger.ts A B DURATION_MS
 *
 * @module
 */

const [first, second, durationText] = Deno.args;
if (first === undefined || second === undefined || durationText === undefined) {
  throw new Error("usage: folder_exchanger.ts A B DURATION_MS");
}
const libc = Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
});
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const cString = (text: string) => new TextEncoder().encode(`${text}\0`);
const a = cString(first);
const b = cString(second);
const endAt = Date.now() + Number(durationText);
let exchanges = 0;
while (Date.now() < endAt) {
  for (let time = 0; time < 200; time++) {
    if (libc.symbols.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) === 0) exchanges++;
  }
  // Let the reader's threads run between rounds, on two shared cores.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
if (exchanges % 2 === 1) libc.symbols.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
libc.close();
console.log(JSON.stringify({ exchanges }));
