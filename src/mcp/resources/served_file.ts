/**
 * Finding skills and files in a catalog snapshot by position, in the order
 * `resources/list` serves them: skills by name, then files by path, both in
 * code-unit order (the order `Catalog.skills` and `Skill.files` keep).
 *
 * @module
 */

import { quotePath } from "../../files/path_gate.ts";
import type { Catalog, Skill, SkillFile } from "../../skills/skill.ts";

/** A file the catalog serves, with its skill. */
export interface ServedFile {
  readonly skill: Skill;
  readonly file: SkillFile;
}

/**
 * Index of the first item whose key is not below `key` (code-unit order).
 *
 * @param items Items sorted by `keyOf` in code-unit order.
 * @param key The key to place.
 * @param keyOf The sort key of an item.
 * @returns An index in `0..items.length`.
 */
export function lowerBound<T>(
  items: readonly T[],
  key: string,
  keyOf: (item: T) => string,
): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyOf(items[middle] as T) < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Index of the first item whose key is above `key` (code-unit order): where
 * a page continues after a cursor that names `key`, whether or not an item
 * with that key is still there.
 *
 * @param items Items sorted by `keyOf` in code-unit order, keys distinct.
 * @param key The key of the last item served.
 * @param keyOf The sort key of an item.
 * @returns An index in `0..items.length`.
 */
export function upperBound<T>(
  items: readonly T[],
  key: string,
  keyOf: (item: T) => string,
): number {
  const index = lowerBound(items, key, keyOf);
  const found = items[index];
  return found !== undefined && keyOf(found) === key ? index + 1 : index;
}

/**
 * Finds a file in a skill's listing (`Skill.files`, code-unit order) by
 * binary search.
 *
 * @param skill The skill from the snapshot the request works on.
 * @param path The relative path exactly as listed, e.g. `references/guide.md`.
 * @returns The listed file, or null when the listing does not hold `path`
 *   (never listed, past the listing's cap, or created after the snapshot).
 */
export function findListedFile(skill: Skill, path: string): SkillFile | null {
  const file = skill.files[lowerBound(skill.files, path, (entry) => entry.path)];
  return file !== undefined && file.path === path ? file : null;
}

/**
 * Looks up a served file by skill name and relative path.
 *
 * @param catalog The snapshot the request works on.
 * @param name The skill's name.
 * @param path The relative path as listed, e.g. `themes/arctic-frost.md`.
 * @returns The skill and file, or a client-safe reason (sentence case) why
 *   the catalog does not serve it.
 */
export function findServedFile(
  catalog: Catalog,
  name: string,
  path: string,
): ServedFile | { readonly reason: string } {
  const skill = catalog.byName.get(name);
  if (skill === undefined) return { reason: `No skill named ${quotePath(name)} is served` };
  const file = findListedFile(skill, path);
  if (file === null) {
    return { reason: `Skill ${quotePath(name)} lists no file ${quotePath(path)}` };
  }
  return { skill, file };
}
