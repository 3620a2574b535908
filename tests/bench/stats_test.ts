import assert from "node:assert/strict";
import { percentile, summarise } from "../../bench/support/stats.ts";

Deno.test("summarise() takes the middle sample of an odd series and ignores order", () => {
  const summary = summarise([5, 1, 3]);
  assert.equal(summary.count, 3);
  assert.equal(summary.median, 3);
  assert.equal(summary.min, 1);
  assert.equal(summary.max, 5);
});

Deno.test("summarise() averages the two middle samples of an even series", () => {
  assert.equal(summarise([4, 1, 2, 3]).median, 2.5);
});

Deno.test("summarise() p95 is the nearest-rank sample, the largest below 20 samples", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(summarise(hundred).p95, 95);
  assert.equal(summarise([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).p95, 10);
});

Deno.test("summarise() does not reorder the caller's array", () => {
  const samples = [3, 1, 2];
  summarise(samples);
  assert.deepEqual(samples, [3, 1, 2]);
});

Deno.test("summarise() refuses an empty series and non-finite samples", () => {
  assert.throws(() => summarise([]), RangeError);
  assert.throws(() => summarise([1, Number.NaN]), /"NaN"/);
  assert.throws(() => summarise([Infinity]), RangeError);
});

Deno.test("percentile() refuses a rank outside (0, 100]", () => {
  assert.throws(() => percentile([1], 0), RangeError);
  assert.throws(() => percentile([1], 101), RangeError);
  assert.equal(percentile([1, 2], 100), 2);
  assert.equal(percentile([1, 2], 50), 1);
});
