import assert from "node:assert/strict";
import {
  bwrapArgs,
  isInsideLayout,
  SANDBOX_TMP,
  SANDBOX_TMP_MAX_BYTES,
  type SandboxBase,
  sandboxLayout,
} from "../../../src/scripts/sandbox/layout.ts";
import { findMissingMount, missingMountNote } from "../../../src/scripts/sandbox/missing_mount.ts";
import { hiddenInData } from "../../../src/scripts/sandbox/system_mounts.ts";

const BASE: SandboxBase = {
  bwrapPath: "/usr/bin/bwrap",
  system: [
    { kind: "ro", path: "/usr", why: "system" },
    { kind: "symlink", path: "/bin", source: "usr/bin", why: "link" },
    { kind: "ro", path: "/etc/ld.so.cache", optional: true, why: "linking" },
  ],
  network: [{ kind: "ro", path: "/etc/resolv.conf", optional: true, why: "dns" }],
  interpreterFolders: { "/opt/venv/bin/python3": ["/opt/venv"] },
  dataDir: null,
};

Deno.test("sandboxLayout() mounts the system, the interpreter, the skill and the granted folders in order", () => {
  const layout = sandboxLayout(BASE, {
    skillDir: "/srv/skills/a",
    program: "/opt/venv/bin/python3",
    read: ["/data/in"],
    write: ["/data/out"],
    network: false,
  });
  assert.deepEqual(layout.mounts.map((mount) => `${mount.kind} ${mount.path}`), [
    "ro /usr",
    "symlink /bin",
    "ro /etc/ld.so.cache",
    "proc /proc",
    "dev /dev",
    "tmpfs /tmp",
    "ro /opt/venv",
    "ro /srv/skills/a",
    "ro /data/in",
    "rw /data/out",
  ]);
  assert.deepEqual(layout.namespaces, ["user", "ipc", "pid", "net", "uts", "cgroup"]);
  assert.equal(layout.cwd, "/srv/skills/a");
});

Deno.test("sandboxLayout() adds name resolution and keeps the network only when granted", () => {
  const layout = sandboxLayout(BASE, {
    skillDir: "/srv/skills/a",
    program: "/usr/bin/sh",
    read: [],
    write: [],
    network: true,
  });
  assert.ok(layout.mounts.some((mount) => mount.path === "/etc/resolv.conf"));
  assert.ok(!layout.namespaces.includes("net"));
  assert.ok(bwrapArgs(layout).includes("--share-net"));
});

Deno.test("bwrapArgs() unshares everything, drops capabilities, dies with its parent, ends in --", () => {
  const args = bwrapArgs(sandboxLayout(BASE, {
    skillDir: "/srv/skills/a",
    program: "/usr/bin/sh",
    read: [],
    write: ["/data/out"],
    network: false,
  }));
  for (const flag of ["--unshare-all", "--die-with-parent", "--new-session"]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.ok(!args.includes("--share-net"));
  assert.deepEqual(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2), [
    "--cap-drop",
    "ALL",
  ]);
  assert.deepEqual(args.slice(args.indexOf("--bind"), args.indexOf("--bind") + 3), [
    "--bind",
    "/data/out",
    "/data/out",
  ]);
  assert.deepEqual(args.slice(args.indexOf("--symlink"), args.indexOf("--symlink") + 3), [
    "--symlink",
    "usr/bin",
    "/bin",
  ]);
  assert.ok(args.includes("--ro-bind-try"));
  assert.deepEqual(args.slice(-3), ["--chdir", "/srv/skills/a", "--"]);
});

Deno.test("isInsideLayout() counts binds and links, not the private /tmp", () => {
  const layout = sandboxLayout(BASE, {
    skillDir: "/tmp/skills/a",
    program: "/usr/bin/sh",
    read: [],
    write: [],
    network: false,
  });
  assert.equal(isInsideLayout(layout, "/usr/lib/x.so"), true);
  assert.equal(isInsideLayout(layout, "/tmp/skills/a/data.txt"), true);
  assert.equal(isInsideLayout(layout, "/tmp/skills/b/data.txt"), false);
  assert.equal(isInsideLayout(layout, "/usrx/y"), false);
  assert.equal(isInsideLayout(layout, "/home/me/.ssh/id_rsa"), false);
});

Deno.test("hiddenInData() names the data folder's child holding each index cache inside it, nothing else", () => {
  assert.deepEqual(hiddenInData("/data", ["/data/skillgate/index"]), ["/data/skillgate"]);
  assert.deepEqual(hiddenInData("/data/", ["/data/a/b/c", "/data/a/d"]), ["/data/a"]);
  assert.deepEqual(
    hiddenInData("/data", ["/data"]),
    [],
    "the data folder itself is refused elsewhere",
  );
  assert.deepEqual(hiddenInData("/data", ["/database/index", "/elsewhere/index"]), []);
  assert.deepEqual(hiddenInData(null, ["/data/skillgate/index"]), []);
});

Deno.test("attack: a script reads or writes the index cache inside MCP_DATA_DIR: the layout hides its folder behind an empty read-only mount after the data bind", () => {
  const layout = sandboxLayout({ ...BASE, dataDir: "/data", dataHidden: ["/data/skillgate"] }, {
    skillDir: "/srv/skills/a",
    program: "/usr/bin/sh",
    read: [],
    write: [],
    network: false,
  });
  const kinds = layout.mounts.map((mount) => `${mount.kind} ${mount.path}`);
  assert.ok(kinds.indexOf("hide /data/skillgate") > kinds.indexOf("rw /data"), kinds.join(", "));
  const args = bwrapArgs(layout);
  const at = args.indexOf("/data/skillgate");
  assert.deepEqual(args.slice(at - 1, at + 3), [
    "--tmpfs",
    "/data/skillgate",
    "--remount-ro",
    "/data/skillgate",
  ]);
  assert.equal(isInsideLayout(layout, "/data/notes.txt"), true);
  assert.equal(isInsideLayout(layout, "/data/skillgate/index/skills-1.parses"), false);
  assert.equal(isInsideLayout(layout, "/data/skillgate"), false);
});

Deno.test("findMissingMount() names the first path outside the sandbox on a failure line", () => {
  const layout = sandboxLayout(BASE, {
    skillDir: "/srv/skills/a",
    program: "/usr/bin/sh",
    read: [],
    write: [],
    network: false,
  });
  const table: [string, string | null][] = [
    ["cat: /home/me/notes.txt: No such file or directory", "/home/me/notes.txt"],
    ["PermissionError: [Errno 13] Permission denied: '/srv/data/x.csv'", "/srv/data/x.csv"],
    ["fatal: cannot change to '/home/me/repo': No such file or directory", "/home/me/repo"],
    [
      "Error: ENOENT: no such file or directory, open '/var/lib/app/db.json'",
      "/var/lib/app/db.json",
    ],
    ["cat: /srv/skills/a/missing.txt: No such file or directory", null],
    ["everything failed at /home/me/x but not with a file error", null],
    ["hello world", null],
  ];
  for (const [stderr, expected] of table) {
    assert.equal(findMissingMount(stderr, layout), expected, stderr);
  }
  const note = missingMountNote("cat: /home/me/notes.txt: No such file or directory", layout, {
    skill: "a",
    script: "scripts/x.sh",
  });
  assert.match(note ?? "", /"\/home\/me\/notes\.txt"/);
  assert.match(
    note ?? "",
    /If it is a folder: \{"skill":"a","script":"scripts\/x\.sh","read":\["\/home\/me\/notes\.txt"\]\}; if it is a file, the folder that holds it: \{"skill":"a","script":"scripts\/x\.sh","read":\["\/home\/me"\]\}/,
    "a grant names folders: the path itself first (a folder's parent would grant its siblings), " +
      "then the folder holding it",
  );
  const top = missingMountNote("cat: /notes: No such file or directory", layout, {
    skill: "a",
    script: "scripts/x.sh",
  });
  assert.match(top ?? "", /"read":\["\/notes"\]\}/, "never / itself");
});

Deno.test("attack: a script fills its private /tmp: the sandbox's tmpfs has a size cap", () => {
  const layout = sandboxLayout(BASE, {
    skillDir: "/srv/skills/a",
    program: "/usr/bin/sh",
    read: [],
    write: [],
    network: false,
  });
  const args = bwrapArgs(layout);
  const at = args.indexOf("--tmpfs");
  assert.deepEqual(args.slice(at - 2, at + 2), [
    "--size",
    String(SANDBOX_TMP_MAX_BYTES),
    "--tmpfs",
    SANDBOX_TMP,
  ]);
});
