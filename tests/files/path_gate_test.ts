import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_PATH_CHARS } from "../../src/caps.ts";
import { checkPathString, PathRefusedError, resolveSkillFile } from "../../src/files/path_gate.ts";

/** Awaits a promise that must reject with a {@linkcode PathRefusedError}, and returns it. */
async function refusalOf(promise: Promise<unknown>, input: string): Promise<PathRefusedError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  if (!(error instanceof PathRefusedError)) {
    throw new Error(`Served or threw something else for ${JSON.stringify(input)}: ${error}`);
  }
  return error;
}

// Hand-picked inputs the string check must refuse, each a known attack shape.
const HAND_PICKED: readonly string[] = [
  "",
  "/",
  "/etc/passwd",
  "//etc/passwd",
  "/dev/null",
  "/proc/self/environ",
  "/..",
  "..",
  ".",
  "./",
  "../",
  "...",
  ".../x",
  "../../etc/passwd",
  "a/..",
  "a/../b",
  "a/./b",
  "./a",
  "a/.",
  "a//b",
  "a/",
  "a\\b",
  "..\\x",
  "..\\..\\windows\\win.ini",
  "\\",
  "\\\\server\\share\\x",
  "C:\\Windows\\win.ini",
  "C:/Windows/win.ini",
  "c:",
  "C:foo",
  "z:/x",
  "file:///etc/passwd",
  "%2e%2e%2f",
  "%2e%2e/secret.txt",
  "..%2fsecret.txt",
  "%2F",
  "%2f..%2f",
  "%00",
  "a%00.md",
  "%252e%252e%252f",
  "%c0%ae%c0%ae/secret.txt",
  "%u002e%u002e/x",
  "SKILL.md%20",
  "a\0b",
  "\0",
  "x.md\0.png",
  "\n",
  "a\nb",
  "a\rb",
  "a\tb",
  "\x7f",
  "\x1b[31mred",
  "a\u0085b",
  "a\u009bb",
  "\u2028",
  "a\u2029b",
  "\u202Eevil.md",
  "a\u2066b",
  "\u200Fx",
  " ",
  "a/ /b",
  "\t/x",
  "\u3000",
  "a/\u00a0",
  "\uFEFF",
  ".env",
  ".git/config",
  "a/.hidden",
  ".ssh/id_rsa",
  "~/.ssh/id_rsa",
  "..;/x",
  "....//....//etc/passwd",
  "node_modules/x/index.js",
  "a/node_modules/b",
  "NODE_MODULES/x",
  "Node_Modules",
  "x".repeat(MAX_PATH_CHARS + 1),
  "a/".repeat(600) + "b",
  "../".repeat(400) + "etc/passwd",
  "\uD800",
  "a\uDC00b",
  "\uDBFF/x",
];

const PREFIXES = ["", "a/", "refs/deep/", "SKILL.md/"];
const TRAVERSALS = [
  "..",
  "../..",
  "../../..",
  "../secret.txt",
  "../../outside/secret.txt",
  ".",
  "./x",
  "..\\secret.txt",
  "%2e%2e/secret.txt",
  "..%2fsecret.txt",
  "%2e%2e%5csecret.txt",
  "/etc/passwd",
  "//x",
  "x/",
  ".hidden",
  "..\0",
  "\0../x",
];
const SUFFIXES = ["", "/", "/x.md"];

/** Prefixes x traversal payloads x suffixes: each a refused string. */
function generatedRefused(): string[] {
  const out: string[] = [];
  for (const prefix of PREFIXES) {
    for (const traversal of TRAVERSALS) {
      for (const suffix of SUFFIXES) out.push(prefix + traversal + suffix);
    }
  }
  return out;
}

// Look-alike dots and slashes are ordinary characters: refused or not found, never followed.
const LOOKALIKE_DOTS = ["\u2024", "\uFF0E", "\uFE52", "\u2027"];
const LOOKALIKE_SLASHES = ["\u2215", "\uFF0F", "\u2044", "\u29F8", "\u2571", "/"];

function generatedLookalikes(): string[] {
  const out: string[] = [];
  for (const d of LOOKALIKE_DOTS) {
    for (const s of LOOKALIKE_SLASHES) {
      out.push(`${d}${d}${s}secret.txt`);
      out.push(`refs${s}${d}${d}${s}${d}${d}${s}${d}${d}${s}secret.txt`);
      out.push(`${d}${d}${s}${d}${d}${s}outside${s}secret.txt`);
    }
  }
  out.push("\u2025/secret.txt", "\u2025\u2215secret.txt", "\uFF33\uFF2B\uFF29\uFF2C\uFF2C.md");
  out.push("..\u2215secret.txt", "\u2024.", "~/secret.txt", "SKILL.md\u200B");
  return out;
}

const REFUSED = [...HAND_PICKED, ...generatedRefused()];
const LOOKALIKES = generatedLookalikes();

interface Fixture {
  readonly tmp: string;
  readonly skillDir: string;
}

/** `tmp/secret.txt`, `tmp/outside/secret.txt`, skill `tmp/root/b`, sibling `tmp/root/bc`. */
async function makeFixture(): Promise<Fixture> {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_gate_" }));
  const skillDir = join(tmp, "root", "b");
  await Deno.mkdir(join(skillDir, "refs", "deep"), { recursive: true });
  await Deno.mkdir(join(tmp, "outside"));
  await Deno.mkdir(join(tmp, "root", "bc"));
  await Deno.writeTextFile(join(tmp, "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(tmp, "outside", "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(tmp, "root", "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(tmp, "root", "bc", "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(skillDir, "SKILL.md"), "---\nname: b\n---\n");
  return { tmp, skillDir };
}

/** Characters a client-facing message must never carry raw. */
const UNSAFE_IN_MESSAGE = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

function assertClientSafe(error: PathRefusedError, fixture: Fixture, input: string): void {
  const shown = JSON.stringify(input);
  assert(!error.message.includes(fixture.tmp), `message leaks the temp dir for ${shown}`);
  assert(
    !UNSAFE_IN_MESSAGE.test(error.message),
    `message carries a control character for ${shown}`,
  );
  assert(error.message.length < 200, `message echoes an overlong path for ${shown}`);
  assert(!error.message.endsWith("."), `message ends with a period for ${shown}`);
}

Deno.test("hostile table holds well over 200 inputs", () => {
  assert(REFUSED.length + LOOKALIKES.length > 300, `${REFUSED.length + LOOKALIKES.length}`);
  assert(new Set([...REFUSED, ...LOOKALIKES]).size > 300);
});

Deno.test("checkPathString() refuses traversal, encodings, controls, absolute and hidden paths", () => {
  for (const input of REFUSED) {
    assert.notEqual(checkPathString(input), null, `accepted ${JSON.stringify(input)}`);
  }
});

Deno.test("resolveSkillFile() refuses every hostile string as bad-path", async () => {
  const fixture = await makeFixture();
  try {
    for (const input of REFUSED) {
      const error = await refusalOf(resolveSkillFile(fixture.skillDir, input), input);
      assert.equal(error.code, "bad-path", JSON.stringify(input));
      assertClientSafe(error, fixture, input);
    }
  } finally {
    await Deno.remove(fixture.tmp, { recursive: true });
  }
});

Deno.test("resolveSkillFile() treats unicode look-alike dots and slashes as ordinary characters", async () => {
  const fixture = await makeFixture();
  try {
    // Sanity: a real traversal would reach a secret that exists.
    await Deno.stat(join(fixture.skillDir, "..", "secret.txt"));
    for (const input of LOOKALIKES) {
      const error = await refusalOf(resolveSkillFile(fixture.skillDir, input), input);
      assert(
        error.code === "bad-path" || error.code === "not-found",
        `${JSON.stringify(input)} gave ${error.code}`,
      );
      assertClientSafe(error, fixture, input);
    }
  } finally {
    await Deno.remove(fixture.tmp, { recursive: true });
  }
});

Deno.test("checkPathString() passes ordinary relative paths as-is", () => {
  const valid = [
    "SKILL.md",
    "refs/api.md",
    "a b/c d.md",
    "ünïcödé/文件.md",
    "a..b",
    "a.",
    "x/y..",
    "file~",
    "C/x",
    "scripts/report.js",
    "deep/er/and/deeper/file.tar.gz",
    "\u2024\u2024/x",
    "x".repeat(MAX_PATH_CHARS),
    "😀.md",
  ];
  for (const input of valid) {
    assert.equal(checkPathString(input), null, JSON.stringify(input));
  }
});

Deno.test("checkPathString() messages quote the path and never echo an overlong one", () => {
  assert.equal(checkPathString("../x"), `Path "../x" has a ".." segment`);
  assert.equal(checkPathString("a\0b"), `Path "a\\u0000b" contains a NUL character`);
  assert.equal(checkPathString(".env"), `Path ".env" names a hidden entry ".env"`);
  assert.equal(
    checkPathString("y".repeat(5000)),
    `Path is longer than ${MAX_PATH_CHARS} characters (got 5000)`,
  );
});
