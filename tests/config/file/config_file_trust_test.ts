/**
 * Attack: a configuration file another user can write. Standalone, the file
 * decides what is served and how scripts run (roots, `isolation`, HTTP,
 * origins, caps), so a file or folder another user owns or may write is
 * refused with the command that fixes it (as `--http-token-file` is); hosted,
 * where the file only narrows, it is read with a warning. A group write bit
 * counts only when the group holds another user.
 */

import assert from "node:assert/strict";
import { ConfigFileError } from "../../../src/config/file/json_document.ts";
import { loadConfig, untrustedBecause } from "../../../src/config/file/load_config.ts";
import { runProgram } from "../../support/program.ts";

async function withConfig(
  run: (paths: { dir: string; folder: string; file: string }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-config-trust-" });
  try {
    const folder = `${dir}/xdg/skillgate`;
    await Deno.mkdir(folder, { recursive: true });
    await Deno.chmod(folder, 0o755);
    const file = `${folder}/config.json`;
    await Deno.writeTextFile(file, '{ "isolation": "group" }');
    await Deno.chmod(file, 0o644);
    await run({ dir, folder, file });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function load(dir: string, extra: Record<string, string> = {}) {
  const env: Record<string, string> = { XDG_CONFIG_HOME: `${dir}/xdg`, ...extra };
  return loadConfig({ args: ["/r"], getEnv: (name) => env[name], cwd: "/" });
}

/** A group holding a user other than this one (a user whose primary group it is), or null. */
function sharedGroup(): number | null {
  const me = Deno.uid();
  for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
    const fields = line.split(":");
    if (fields.length < 4 || fields[2] === String(me)) continue;
    const gid = Number(fields[3]);
    if (Number.isInteger(gid) && gid !== Deno.gid()) return gid;
  }
  return null;
}

Deno.test("attack: a world-writable config.json (or its folder) is refused standalone, naming the chmod", async () => {
  await withConfig(async ({ dir, folder, file }) => {
    assert.equal(untrustedBecause(file), null, "a file of one's own is trusted");
    assert.equal((await load(dir)).config.options.isolation, "group");
    await Deno.chmod(file, 0o666);
    await assert.rejects(load(dir), (error: unknown) => {
      assert.ok(error instanceof ConfigFileError);
      assert.match(error.message, /is writable by others.*run: chmod go-w /);
      return true;
    });
    await Deno.chmod(file, 0o644);
    await Deno.chmod(folder, 0o777);
    await assert.rejects(load(dir), /folder .* is writable by others.*chmod go-w/);
    // A sticky folder (as /tmp): no one may rename another's entry.
    await Deno.chmod(folder, 0o1777);
    assert.equal((await load(dir)).config.options.isolation, "group");
  });
});

Deno.test("attack: a config.json whose parent folder others may write (so they could swap its folder) is refused standalone, naming the chmod", async () => {
  await withConfig(async ({ dir, folder }) => {
    // The file and its own folder are fine; the folder above is everyone's to write.
    await Deno.chmod(`${dir}/xdg`, 0o777);
    await assert.rejects(load(dir), (error: unknown) => {
      assert.ok(error instanceof ConfigFileError);
      assert.match(
        error.message,
        new RegExp(`its folder "${folder}" lies under "${dir}/xdg", where another user could`),
      );
      assert.match(error.message, new RegExp(`run: chmod go-w ${dir}/xdg`));
      return true;
    });
    // Sticky (as /tmp): no one may rename another's entry.
    await Deno.chmod(`${dir}/xdg`, 0o1777);
    assert.equal((await load(dir)).config.options.isolation, "group");
    await Deno.chmod(`${dir}/xdg`, 0o755);
    assert.equal((await load(dir)).config.options.isolation, "group");
  });
});

Deno.test("attack: a config.json another user owns is refused standalone", {
  ignore: Deno.uid() !== 0,
}, async () => {
  await withConfig(async ({ dir, file }) => {
    await Deno.chown(file, 1000, 1000);
    await assert.rejects(load(dir), /belongs to another user \(uid 1000\)/);
  });
});

Deno.test("attack: a group-writable config.json is refused when the group holds another user, read when it is one's own", async () => {
  await withConfig(async ({ dir, file }) => {
    await Deno.chmod(file, 0o664);
    // Group of this user (the umask 002 norm with user-private groups): read.
    const own = untrustedBecause(file);
    const shared = sharedGroup();
    if (Deno.uid() === 0 && shared !== null) {
      assert.equal(own, null, "root's own group holds no one else here");
      await Deno.chown(file, null, shared);
      await assert.rejects(load(dir), /writable by its group \(gid \d+\), which holds other users/);
    } else {
      console.error("skipped the shared-group half: needs root and a user in another group");
    }
  });
});

Deno.test("attack: hosted, a writable config.json is read (it only narrows) with one warning", async () => {
  await withConfig(async ({ dir, file }) => {
    await Deno.chmod(file, 0o666);
    const loaded = await load(dir, { MCP_DATA_DIR: `${dir}/data` });
    assert.ok(
      loaded.config.notices.some((notice) =>
        /writable by others.*hosted, the file only narrows/.test(notice)
      ),
      loaded.config.notices.join("\n"),
    );
  });
});

Deno.test("attack: skillgate serve with a world-writable config.json exits 2 with what to do, serving nothing", async () => {
  await withConfig(async ({ dir, file }) => {
    await Deno.mkdir(`${dir}/skills`);
    await Deno.chmod(file, 0o666);
    const result = await runProgram(["serve", `${dir}/skills`], {
      env: { XDG_CONFIG_HOME: `${dir}/xdg` },
      stdin: "",
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /config\.json:1:1: its file .* is writable by others.*chmod go-w/);
  });
});

Deno.test("attack: a config.json renamed away between its read and its trust check is refused, not trusted (the check fails closed)", async () => {
  await withConfig(async ({ folder, file }) => {
    // The read happened; whoever could rename the folder on the way moves it before the check.
    await Deno.rename(folder, `${folder}-away`);
    const because = untrustedBecause(file);
    assert.notEqual(because, null, "a file the check cannot look at is not trusted");
    assert.match(because!, /could not be checked \(NotFound\)/);
  });
});
