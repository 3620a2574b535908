import assert from "node:assert/strict";
import { type SandboxBase, sandboxLayout } from "../../../src/scripts/sandbox/layout.ts";
import {
  missingInterpreterNote,
  parseShebang,
} from "../../../src/scripts/sandbox/missing_interpreter.ts";

const BASE: SandboxBase = {
  bwrapPath: "/usr/bin/bwrap",
  system: [
    { kind: "ro", path: "/usr", why: "system" },
    { kind: "symlink", path: "/bin", source: "usr/bin", why: "link" },
  ],
  network: [],
  interpreterFolders: {},
  dataDir: null,
};
const LAYOUT = sandboxLayout(BASE, {
  skillDir: "/srv/skills/a",
  program: "/srv/skills/a/run",
  read: [],
  write: [],
  network: false,
});
const RUN = { skill: "a", script: "run" };
const EXECVP = "bwrap: execvp /srv/skills/a/run: No such file or directory\n";
const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("parseShebang() reads the interpreter and its one argument, and nothing without #!", () => {
  const cases: Array<[string, ReturnType<typeof parseShebang>]> = [
    ["#!/bin/sh\necho", { interpreter: "/bin/sh", argument: null }],
    ["#! /usr/bin/env  python3 -u\r\nx", { interpreter: "/usr/bin/env", argument: "python3 -u" }],
    ["#!/opt/x/bin/ruby", { interpreter: "/opt/x/bin/ruby", argument: null }],
    ["#!\n", null],
    ["echo no shebang\n", null],
    ["", null],
  ];
  for (const [text, expected] of cases) assert.deepEqual(parseShebang(bytes(text)), expected, text);
});

Deno.test("missingInterpreterNote() names an interpreter outside the sandbox, says it was not mounted, and the row that mounts its folder", () => {
  const note = missingInterpreterNote(EXECVP, LAYOUT, {
    ...RUN,
    shebang: { interpreter: "/opt/tool/bin/interp", argument: null },
  }) ?? "";
  assert.match(note, /"\/opt\/tool\/bin\/interp", which is outside its sandbox/);
  assert.match(note, /sandbox did not mount it/);
  assert.ok(note.includes('{"skill":"a","script":"run","read":["/opt/tool/bin"]}'), note);
});

Deno.test("missingInterpreterNote() says an interpreter in a mounted folder is missing on this machine", () => {
  const note = missingInterpreterNote(EXECVP, LAYOUT, {
    ...RUN,
    shebang: { interpreter: "/usr/bin/nonexistent", argument: null },
  }) ?? "";
  assert.match(note, /mounts its folder, but no such program is there/);
});

Deno.test("missingInterpreterNote() names a #!/usr/bin/env program missing from the sandbox's PATH", () => {
  const note = missingInterpreterNote(
    "/usr/bin/env: 'mytool': No such file or directory\n",
    LAYOUT,
    { ...RUN, shebang: { interpreter: "/usr/bin/env", argument: "mytool" } },
  ) ?? "";
  assert.match(note, /runs "mytool" through "\/usr\/bin\/env"/);
});

Deno.test("missingInterpreterNote() stays silent for other failures and scripts without #!", () => {
  const shebang = { interpreter: "/opt/tool/bin/interp", argument: null };
  assert.equal(missingInterpreterNote("Traceback: boom\n", LAYOUT, { ...RUN, shebang }), null);
  assert.equal(missingInterpreterNote(EXECVP, LAYOUT, { ...RUN, shebang: null }), null);
  assert.equal(
    missingInterpreterNote("/usr/bin/env: 'other': No such file or directory", LAYOUT, {
      ...RUN,
      shebang: { interpreter: "/usr/bin/env", argument: "mytool" },
    }),
    null,
  );
});

Deno.test("missingInterpreterNote() says an interpreter present in the sandbox but not executable could not be run, and how to fix it", () => {
  const denied = "bwrap: execvp /srv/skills/a/run: Permission denied\n";
  const note = missingInterpreterNote(denied, LAYOUT, {
    ...RUN,
    shebang: { interpreter: "/usr/bin/interp", argument: null },
  }) ?? "";
  assert.match(note, /"\/usr\/bin\/interp", which is in its sandbox but could not be run/);
  assert.match(note, /Permission denied: it is not executable/);
  assert.ok(note.includes('chmod +x "/usr/bin/interp"'), note);
  const throughEnv =
    missingInterpreterNote("/usr/bin/env: ‘interp2’: Permission denied\n", LAYOUT, {
      ...RUN,
      shebang: { interpreter: "/usr/bin/env", argument: "interp2" },
    }) ?? "";
  assert.match(throughEnv, /runs "interp2" through "\/usr\/bin\/env".*could not be run/);
  // Any other failure of the script is not this.
  assert.equal(
    missingInterpreterNote("python3: can't open file\n", LAYOUT, {
      ...RUN,
      shebang: { interpreter: "/usr/bin/interp", argument: null },
    }),
    null,
  );
});
