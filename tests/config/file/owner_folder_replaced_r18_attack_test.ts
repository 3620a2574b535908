/**
 * review r18: the owner files' watch after its configuration folder is
 * removed and made again, or swapped for another whole (a dotfile manager, a
 * restore, a sync tool's atomic folder replace: r18-4), and where inotify
 * cannot be had at all (no instance left: r18-3). A narrowing edit made then
 * must be applied, never lost silently.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import type { CatalogOverlay } from "../../../src/skills/overrides.ts";
import {
  type OwnerFilesWatch,
  watchOwnerFiles,
  type WatchOwnerFilesOptions,
} from "../../../src/config/file/watch_owner_files.ts";
import { startWatchService } from "../../../src/refresh/inotify/watch_service.ts";

const CEILING_MS = 15_000;

async function until(what: string, check: () => boolean, lines: string[]): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}; log: ${lines}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Fixture extends AsyncDisposable {
  readonly folder: string;
  readonly dir: string;
  readonly seen: CatalogOverlay[];
  readonly lines: string[];
  readonly watch: OwnerFilesWatch;
  /** Whether nothing said edits are not applied live (they were, not polled). */
  isLive(): boolean;
  /** Whether an overlay turning `name` off was posted. */
  isOff(name: string): boolean;
}

/**
 * A watch over `DIR/config/skillgate`: a folder, or (`isLinked`) a link to
 * the folder `DIR/dotfiles/v1`, as a dotfile manager makes it.
 */
async function ownerWatch(
  extra: Partial<WatchOwnerFilesOptions> = {},
  isLinked = false,
): Promise<Fixture> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-r18-owner-" });
  const folder = `${dir}/config/skillgate`;
  if (isLinked) {
    await Deno.mkdir(`${dir}/config`);
    await Deno.mkdir(`${dir}/dotfiles/v1`, { recursive: true });
    await Deno.symlink(`${dir}/dotfiles/v1`, folder);
  } else {
    await Deno.mkdir(folder, { recursive: true });
  }
  const input = { args: ["/skills"], getEnv: () => undefined, cwd: "/" };
  const running = parseCommandLine(input);
  const seen: CatalogOverlay[] = [];
  const lines: string[] = [];
  const watch = watchOwnerFiles(
    {
      input,
      running,
      location: {
        path: `${folder}/config.json`,
        overridesPath: `${folder}/overrides.json`,
        isExplicit: false,
      },
      overrides: {},
      caps: running.caps,
    },
    {
      onChange: ({ overlay }) => seen.push(overlay),
      log: (line) => lines.push(line),
      quietMs: 20,
      ...extra,
    },
  );
  assert.ok(watch !== null);
  return {
    folder,
    dir,
    seen,
    lines,
    watch,
    isLive: () => !lines.some((line) => line.includes("not applied live")),
    isOff: (name) => seen.some((overlay) => overlay.overrides[name]?.enabled === false),
    async [Symbol.asyncDispose]() {
      await watch.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const A_OFF = '{ "skills": { "a": { "enabled": false } } }';
const A_B_OFF = '{ "skills": { "a": { "enabled": false }, "b": { "enabled": false } } }';

/**
 * A narrowing edit in the folder now at the configuration folder's path is applied live, and so is
 * a later one (the watch holds that folder).
 */
async function narrowingsAppliedInNewFolder(f: Awaited<ReturnType<typeof ownerWatch>>) {
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_B_OFF);
  await until("b turned off", () => f.isOff("b"), f.lines);
  await Deno.writeTextFile(
    `${f.folder}/overrides.json`,
    '{ "skills": { "a": { "enabled": false }, "b": { "enabled": false }, "c": { "enabled": false } } }',
  );
  await until("c turned off", () => f.isOff("c"), f.lines);
  assert.ok(f.isLive(), f.lines.join("\n"));
}

Deno.test("attack (r18, r18-4): the configuration folder removed and made again: a narrowing edit in the new folder is applied live", async () => {
  await using f = await ownerWatch();
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("the first overlay", () => f.isOff("a"), f.lines);
  // The folder is replaced whole, keeping the first override, and adding a narrowing one.
  await Deno.remove(f.folder, { recursive: true });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.mkdir(f.folder);
  await narrowingsAppliedInNewFolder(f);
});

Deno.test("attack (r18, r18-4): the configuration folder swapped for another at once (mv away, mv in): a narrowing edit in the new folder is applied live", async () => {
  await using f = await ownerWatch();
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("the first overlay", () => f.isOff("a"), f.lines);
  // A sync tool's atomic replace: the new folder is in place before any event is read.
  await Deno.mkdir(`${f.folder}.new`);
  await Deno.writeTextFile(`${f.folder}.new/overrides.json`, A_OFF);
  await Deno.rename(f.folder, `${f.folder}.old`);
  await Deno.rename(`${f.folder}.new`, f.folder);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_B_OFF);
  await until("b turned off", () => f.isOff("b"), f.lines);
  // An edit in the folder moved away is not the owner's configuration any more. (Only lines said
  // after it count: a review that ran between the two moves rightly found no overrides there, a
  // widening refused, and said so.)
  const linesBefore = f.lines.length;
  await Deno.writeTextFile(`${f.folder}.old/overrides.json`, "{}");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const linesAfter = f.lines.slice(linesBefore);
  assert.ok(!linesAfter.some((line) => line.includes("restart-needed")), f.lines.join("\n"));
  assert.ok(f.isLive(), f.lines.join("\n"));
});

Deno.test("attack (r18, r18-4): the configuration folder's parent swapped while the folder is waited for: the folder made there later is watched", async () => {
  await using f = await ownerWatch();
  const parent = `${f.dir}/config`;
  await Deno.remove(f.folder);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // The parent waited on is moved away and another put in its place.
  await Deno.mkdir(`${parent}.new`);
  await Deno.rename(parent, `${parent}.old`);
  await Deno.rename(`${parent}.new`, parent);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.mkdir(f.folder);
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("a turned off", () => f.isOff("a"), f.lines);
  assert.ok(f.isLive(), f.lines.join("\n"));
});

Deno.test("attack (r18, r18-4): the configuration folder and its parent removed, then made again: a narrowing edit there is applied live", async () => {
  await using f = await ownerWatch();
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("the first overlay", () => f.isOff("a"), f.lines);
  await Deno.remove(`${f.dir}/config`, { recursive: true });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.mkdir(`${f.dir}/config`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.mkdir(f.folder);
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_B_OFF);
  await until("b turned off", () => f.isOff("b"), f.lines);
  assert.ok(f.isLive(), f.lines.join("\n"));
});

/**
 * A service of the test's own whose `afterResolve` seam runs `act` once, for
 * the first path asked that ends with `suffix`: right after the service
 * resolved it, before it found it a folder and watched it. A path gone there
 * is answered with no watch and no loss (as a file of the skill-file list).
 */
function serviceActingOnce(suffix: string, act: (path: string) => void) {
  let hasActed = false;
  const service = startWatchService({
    afterResolve: (path) => {
      if (hasActed || !path.endsWith(suffix)) return;
      hasActed = true;
      act(path);
    },
  });
  assert.ok(service !== null);
  return { service, hasActed: () => hasActed };
}

/**
 * Once the service acted at the arming and the watch holds one kernel watch again (the folder's
 * parent), the configuration folder made again with a narrowing edit in it: applied live.
 */
async function narrowingAppliedInRemadeFolder(
  f: Awaited<ReturnType<typeof ownerWatch>>,
  armed: ReturnType<typeof serviceActingOnce>,
): Promise<void> {
  await until("the service's act at the arming", armed.hasActed, f.lines);
  await until("the parent watched", () => armed.service.watchCount === 1, f.lines);
  await Deno.mkdir(f.folder);
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("a turned off", () => f.isOff("a"), f.lines);
  assert.ok(f.isLive(), f.lines.join("\n"));
}

Deno.test("attack (r18-4, s14 hW): the configuration folder removed while its watch is armed (resolved, not yet watched): the folder made again is watched", async () => {
  const { service, hasActed } = serviceActingOnce("/config/skillgate", (path) => {
    Deno.removeSync(path);
  });
  try {
    await using f = await ownerWatch({ service });
    // The service answered a watch that holds nothing; the watch must find out and wait for the
    // folder from its parent (one kernel watch again), or it is deaf for good.
    await narrowingAppliedInRemadeFolder(f, { service, hasActed });
  } finally {
    await service.close();
  }
});

Deno.test("attack (r18-4, s14 hW): the parent waited on swapped while its watch is armed (the old one moved away after it was resolved, the new one in before the answer is read): the folder made there is watched", async () => {
  const { service, hasActed } = serviceActingOnce("/config", (parent) => {
    // Moved away before the service looks at it (nothing watched), and another one in place
    // once the service answered, before the watch reads that answer.
    Deno.renameSync(parent, `${parent}.old`);
    queueMicrotask(() => Deno.renameSync(`${parent}.new`, parent));
  });
  try {
    await using f = await ownerWatch({ service });
    await until("the folder watched", () => service.watchCount === 1, f.lines);
    await Deno.mkdir(`${f.dir}/config.new`);
    await Deno.remove(f.folder);
    await narrowingAppliedInRemadeFolder(f, { service, hasActed });
  } finally {
    await service.close();
  }
});

Deno.test("attack (r18-4, s14 hW): the configuration folder is a link re-pointed at another folder (ln -sfn, no event at the folder watched): a narrowing edit in the new one is applied live", async () => {
  await using f = await ownerWatch({ pollMs: 200 }, true);
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("the first overlay", () => f.isOff("a"), f.lines);
  // A new link renamed over the old one: the old target is neither moved nor removed.
  await Deno.mkdir(`${f.dir}/dotfiles/v2`);
  await Deno.writeTextFile(`${f.dir}/dotfiles/v2/overrides.json`, A_OFF);
  await Deno.symlink(`${f.dir}/dotfiles/v2`, `${f.folder}.new`);
  await Deno.rename(`${f.folder}.new`, f.folder);
  await narrowingsAppliedInNewFolder(f);
});

Deno.test("attack (r18, r18-3): no inotify to be had (the user's instances spent): both files are read periodically, a narrowing edit applied, said once", async () => {
  // `service: null` is what `startWatchService` answers when inotify_init1 is refused (EMFILE
  // at fs.inotify.max_user_instances); serve's own starter takes the same path.
  await using f = await ownerWatch({ service: null, pollMs: 100 });
  await until("the not-live line", () => f.lines.length > 0, f.lines);
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_OFF);
  await until("a turned off", () => f.isOff("a"), f.lines);
  await Deno.writeTextFile(`${f.folder}/overrides.json`, A_B_OFF);
  await until("b turned off", () => f.isOff("b"), f.lines);
  assert.equal(f.lines.length, 1, f.lines.join("\n"));
  assert.match(f.lines[0]!, /not applied live .*read again every 0\.1 s/);
});
