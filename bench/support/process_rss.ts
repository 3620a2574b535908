/**
 * Resident memory of a process tree, read from `/proc` (Linux only): the
 * process itself plus every descendant alive at the moment of reading, so
 * script runs and helpers a server starts are counted too.
 *
 * @module
 */

/** Resident memory of a process tree, in KiB. */
export interface TreeRss {
  /** Sum of `VmRSS` over the tree. */
  readonly rssKib: number;
  /** Sum of `VmHWM` (each process's peak RSS) over the tree. */
  readonly peakKib: number;
  /** Processes counted (1 when the process has no children). */
  readonly processes: number;
}

/**
 * Reads the resident memory of `pid` and its descendants.
 *
 * @param pid The root process id.
 * @returns The sums over the tree, or null when `pid` is gone or `/proc` is
 *   not readable (not Linux).
 *
 * Requires `--allow-all` (Deno requires it for every `/proc` read).
 */
export async function readTreeRss(pid: number): Promise<TreeRss | null> {
  const root = await readStatus(pid);
  if (root === null) return null;
  const children = await childrenByParent();
  let rssKib = root.rssKib;
  let peakKib = root.peakKib;
  let processes = 1;
  const queue = [...(children.get(pid) ?? [])];
  const seen = new Set([pid]);
  while (queue.length > 0) {
    const next = queue.shift() as number;
    if (seen.has(next)) continue;
    seen.add(next);
    const status = await readStatus(next);
    if (status === null) continue;
    rssKib += status.rssKib;
    peakKib += status.peakKib;
    processes++;
    queue.push(...(children.get(next) ?? []));
  }
  return { rssKib, peakKib, processes };
}

async function readStatus(pid: number): Promise<{ rssKib: number; peakKib: number } | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(`/proc/${pid}/status`);
  } catch {
    return null;
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1]);
  const rssKib = field("VmRSS");
  const peakKib = field("VmHWM");
  if (!Number.isFinite(rssKib)) return null;
  return { rssKib, peakKib: Number.isFinite(peakKib) ? peakKib : rssKib };
}

/** Maps each parent pid to its children, from `/proc/<pid>/stat`. */
async function childrenByParent(): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
    } catch {
      continue;
    }
    // The command name (field 2) may hold spaces and parentheses: parse after the last ')'.
    const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const parent = Number(after[1]);
    if (!Number.isInteger(parent)) continue;
    const list = map.get(parent) ?? [];
    list.push(Number(entry.name));
    map.set(parent, list);
  }
  return map;
}
