/**
 * Whether a group holds another user than this one: the one rule behind
 * "a folder or file its group may write is safe only in a user private
 * group" (the owner configuration's trust check, `file/load_config.ts`, and
 * the swappable-parent check of the index cache and every mounted folder,
 * `index_cache_dir.ts`).
 *
 * @module
 */

/**
 * Whether a group holds a user other than `uid`: a member listed in
 * `/etc/group`, or a user in `/etc/passwd` whose primary group it is. When
 * either file cannot be read (no such files, a directory service), or the
 * group is not in `/etc/group`, it is taken to hold others (fail closed).
 *
 * @param gid The group id.
 * @param uid This process's user id.
 * @returns True unless the group provably holds only this user (or nobody).
 *
 * Requires `--allow-read` on `/etc/passwd` and `/etc/group` (trusted part).
 */
export function groupHoldsOthers(gid: number, uid: number): boolean {
  let passwd: string;
  let group: string;
  try {
    passwd = Deno.readTextFileSync("/etc/passwd");
    group = Deno.readTextFileSync("/etc/group");
  } catch {
    return true;
  }
  const users = passwd.split("\n").map((line) => line.split(":"));
  const myNames = new Set(users.filter((f) => f[2] === String(uid)).map((f) => f[0]));
  if (users.some((f) => f.length > 3 && f[3] === String(gid) && f[2] !== String(uid))) return true;
  const line = group.split("\n").map((row) => row.split(":")).find((f) => f[2] === String(gid));
  if (line === undefined) return true; // a group this file does not know: not provably private
  return (line[3] ?? "").split(",").map((name) => name.trim()).some((name) =>
    name !== "" && !myNames.has(name)
  );
}
