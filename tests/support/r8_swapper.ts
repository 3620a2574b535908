/**
 * Review r8 (issue 13): a hostile skill author's process for the cold-listing
 * race attack (`tests/e2e/cold_listing_race_attack_test.ts`). For a bounded
 * time it keeps, for each attacked skill folder, swapping `SKILL.md`, a file
 * and a folder for symlinks to a folder outside the root, and rewriting a
 * file in place with other bytes of the same size; then it puts every
 * attacked file back as a regular file with its first bytes and exits.
 *
 * Skills named with a leading `+` instead get their `references` folder and
 * a symlink to the outside folder exchanged atomically (`renameat2` with
 * `RENAME_EXCHANGE`, through FFI) in a tight loop: the check-then-open window
 * of a read below that folder is hit often, so only the descriptor-location
 * check stands between the read and the outside file.
 *
 * Usage: deno run --allow-read --allow-write --allow-ffi tests/support/r8_swapper.ts ROOT OUTSIDE DURATION_MS [+]SKILL...
 *
 * @module
 */

const [root, outside, durationText, ...named] = Deno.args;
/** Skills named `+name` get the tight exchange loop (see `exchangeFolders`); the rest the steps. */
const skills = named.filter((name) => !name.startsWith("+"));
const exchanged = named.filter((name) => name.startsWith("+")).map((name) => name.slice(1));
if (root === undefined || outside === undefined || durationText === undefined) {
  throw new Error("usage: r8_swapper.ts ROOT OUTSIDE DURATION_MS SKILL...");
}
const durationMs = Number(durationText);

/** The same-size variants a file of the attacked skill may hold (64 bytes each). */
export function variant(skill: string, which: "A" | "B" | "0"): string {
  return `guide ${which} of ${skill} `.padEnd(63, ".") + "\n";
}

const replaceWithFile = (path: string, text: string) => {
  const temporary = `${path}.r8tmp`;
  Deno.writeTextFileSync(temporary, text);
  Deno.renameSync(temporary, path);
};
const replaceWithLink = (path: string, target: string) => {
  const temporary = `${path}.r8lnk`;
  try {
    Deno.removeSync(temporary);
  } catch {
    // none
  }
  Deno.symlinkSync(target, temporary);
  Deno.renameSync(temporary, path);
};
const rewriteInPlace = (path: string, text: string) => {
  try {
    using file = Deno.openSync(path, { write: true });
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  } catch {
    // The path is a link or gone at this moment: the next step puts it back.
  }
};

const skillMdOf = (skill: string) =>
  `---\nname: ${skill}\ndescription: Inside skill ${skill}\n---\n# ${skill}\n`;

const endAt = Date.now() + durationMs;
let rounds = 0;
const restoreFolder = (dir: string) => {
  try {
    if (Deno.lstatSync(`${dir}/references`).isSymlink) Deno.removeSync(`${dir}/references`);
  } catch {
    // gone
  }
  try {
    Deno.renameSync(`${dir}/references.away`, `${dir}/references`);
  } catch {
    // not away
  }
};
const libc = exchanged.length === 0 ? null : Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
});
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const cString = (text: string) => new TextEncoder().encode(`${text}\0`);
const pairs = exchanged.map((skill) => {
  const dir = `${root}/${skill}`;
  Deno.symlinkSync(`${outside}/refs`, `${dir}/references.link`);
  return { dir, real: cString(`${dir}/references`), link: cString(`${dir}/references.link`) };
});
/** Swaps each exchanged folder with its link an even number of times per call (ends as it began). */
const exchangeFolders = () => {
  for (let time = 0; time < 200; time++) {
    for (const pair of pairs) {
      libc!.symbols.renameat2(AT_FDCWD, pair.real, AT_FDCWD, pair.link, RENAME_EXCHANGE);
    }
  }
};
while (Date.now() < endAt) {
  if (pairs.length > 0) exchangeFolders();
  for (const skill of skills) {
    const dir = `${root}/${skill}`;
    const step = (rounds + skill.length) % 8;
    if (step === 0) replaceWithLink(`${dir}/references/guide.md`, `${outside}/secret.md`);
    if (step === 1) replaceWithFile(`${dir}/references/guide.md`, variant(skill, "A"));
    if (step === 2) rewriteInPlace(`${dir}/references/guide.md`, variant(skill, "B"));
    if (step === 3) {
      // The folder itself: moved away, a link to the outside folder in its place for a round.
      Deno.renameSync(`${dir}/references`, `${dir}/references.away`);
      Deno.symlinkSync(`${outside}/refs`, `${dir}/references`);
    }
    if (step === 4) restoreFolder(dir);
    if (step === 5) replaceWithLink(`${dir}/SKILL.md`, `${outside}/SKILL.md`);
    if (step === 6) replaceWithFile(`${dir}/SKILL.md`, skillMdOf(skill));
    if (step === 7) rewriteInPlace(`${dir}/references/guide.md`, variant(skill, "A"));
  }
  rounds++;
  // Let the server's threads run between rounds, on two shared cores.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
for (const skill of skills) {
  const dir = `${root}/${skill}`;
  restoreFolder(dir);
  replaceWithFile(`${dir}/SKILL.md`, skillMdOf(skill));
  replaceWithFile(`${dir}/references/guide.md`, variant(skill, "0"));
}
for (const pair of pairs) {
  // Ends with the folder in place: exchange once more if the link is where the folder belongs.
  if (Deno.lstatSync(`${pair.dir}/references`).isSymlink) {
    libc!.symbols.renameat2(AT_FDCWD, pair.real, AT_FDCWD, pair.link, RENAME_EXCHANGE);
  }
  Deno.removeSync(`${pair.dir}/references.link`);
}
libc?.close();
console.log(JSON.stringify({ rounds }));
