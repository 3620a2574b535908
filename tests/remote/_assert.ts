/**
 * TEST-ONLY: the few assertions these tests use, over `node:assert/strict`
 * (jsr:@std/assert is unreachable here). `assertRejects` returns the error so
 * a test can check its reason.
 *
 * @module
 */

import assert from "node:assert/strict";

/** Deep strict equality. */
export function assertEquals<T>(actual: unknown, expected: T, message?: string): void {
  assert.deepStrictEqual(actual, expected, message);
}

/** `fn` throws an instance of `type`; returns it. */
export function assertThrows<E extends Error>(
  fn: () => unknown,
  type: new (...args: never[]) => E,
  _unused?: undefined,
  message?: string,
): E {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof type, `${message ?? ""}: threw ${error}`);
    return error;
  }
  assert.fail(`expected a throw: ${message ?? ""}`);
}

/** `fn` rejects with an instance of `type`; returns it. */
export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  type: new (...args: never[]) => E,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof type, `threw ${error}`);
    return error;
  }
  assert.fail("expected a rejection");
}
