import assert from "node:assert/strict";
import { cutAtUtf8Boundary, decodeStrictUtf8, encodeBase64 } from "../../src/files/text.ts";

const bytes = (...values: number[]) => new Uint8Array(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

Deno.test("decodeStrictUtf8() accepts valid UTF-8 and refuses NUL and malformed bytes", () => {
  const table: [string, Uint8Array, string | null][] = [
    ["empty", bytes(), ""],
    ["ascii", utf8("hello\n"), "hello\n"],
    ["multi-byte", utf8("café ☕ 😀"), "café ☕ 😀"],
    ["BOM kept", bytes(0xef, 0xbb, 0xbf, 0x61), "\uFEFFa"],
    ["NUL", bytes(0x61, 0x00, 0x62), null],
    ["lone continuation", bytes(0x80), null],
    ["cut 2-byte", bytes(0xc3), null],
    ["cut 4-byte", bytes(0xf0, 0x9f, 0x98), null],
    ["overlong slash", bytes(0xc0, 0xaf), null],
    ["overlong dot", bytes(0xc0, 0xae), null],
    ["surrogate", bytes(0xed, 0xa0, 0x80), null],
    ["above U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80), null],
    ["0xFF", bytes(0xff), null],
    ["latin-1", bytes(0x63, 0x61, 0x66, 0xe9), null],
    ["PNG header", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), null],
  ];
  for (const [name, input, expected] of table) {
    assert.equal(decodeStrictUtf8(input), expected, name);
  }
});

Deno.test("encodeBase64() matches RFC 4648 vectors and round-trips", () => {
  const vectors: [string, string][] = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [text, expected] of vectors) assert.equal(encodeBase64(utf8(text)), expected);
  assert.equal(encodeBase64(bytes(0xff, 0xfe, 0xfd)), "//79");
  const all = new Uint8Array(256 * 4 + 3).map((_, i) => (i * 7) % 256);
  assert.deepEqual(Uint8Array.from(atob(encodeBase64(all)), (c) => c.charCodeAt(0)), all);
  const view = all.subarray(5, 10);
  assert.equal(encodeBase64(view), btoa(String.fromCharCode(...view)));
});

Deno.test("cutAtUtf8Boundary() never splits a multi-byte sequence", () => {
  const text = utf8("a\u00e9\u20ac\u{1F600}"); // 1 + 2 + 3 + 4 bytes
  const table: [number, number][] = [
    // [maxBytes, kept bytes]
    [0, 0],
    [1, 1],
    [2, 1],
    [3, 3],
    [4, 3],
    [5, 3],
    [6, 6],
    [7, 6],
    [8, 6],
    [9, 6],
    [10, 10],
    [11, 10],
  ];
  for (const [maxBytes, kept] of table) {
    const cut = cutAtUtf8Boundary(text, maxBytes);
    assert.equal(cut.length, kept, `maxBytes ${maxBytes}`);
    assert.notEqual(decodeStrictUtf8(cut), null, `maxBytes ${maxBytes}`);
  }
});

Deno.test("cutAtUtf8Boundary() cuts invalid bytes at maxBytes and validates maxBytes", () => {
  assert.equal(cutAtUtf8Boundary(bytes(0x80, 0x80, 0x80, 0x80, 0x80), 4).length, 4);
  assert.equal(cutAtUtf8Boundary(bytes(0x80, 0x80), 1).length, 1);
  assert.equal(cutAtUtf8Boundary(bytes(0xff, 0xff, 0xff), 2).length, 2);
  const input = utf8("abc");
  assert.equal(cutAtUtf8Boundary(input, 3), input);
  assert.throws(() => cutAtUtf8Boundary(input, -1), RangeError);
  assert.throws(() => cutAtUtf8Boundary(input, 0.5), RangeError);
});
