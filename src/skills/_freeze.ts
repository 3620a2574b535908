/**
 * Making a catalog an immutable snapshot: the one place that freezes one,
 * shared by a full build, an incremental rebuild and the worker's adoption
 * of the catalog the trusted part sent it.
 *
 * @module
 */

import type { Problem } from "./problem.ts";
import type { Catalog, Root, Skill } from "./skill.ts";

/**
 * Freezes a value and everything reachable from it. An object already
 * frozen is taken as frozen through and through and not descended into
 * (every skill this module's callers freeze was frozen whole), and freezing
 * before descending makes a cycle harmless.
 *
 * @param value Any value; primitives are returned as they are.
 * @returns `value`, frozen in place.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Builds a frozen catalog from its parts, with `byName` derived from
 * `skills` so that both hold the very same skill objects.
 *
 * @param roots The roots, in priority order (frozen in place).
 * @param skills The served skills, already sorted by name (frozen in place).
 * @param problems Every problem, in the order to report them (frozen in place).
 * @returns The snapshot.
 *
 * Source: ARCHITECTURE.md, "the catalog is an immutable snapshot".
 */
export function freezeCatalog(
  roots: readonly Root[],
  skills: readonly Skill[],
  problems: readonly Problem[],
): Catalog {
  return Object.freeze({
    roots: deepFreeze(roots),
    skills: deepFreeze(skills),
    byName: Object.freeze(new Map(skills.map((skill) => [skill.name, skill]))),
    problems: deepFreeze(problems),
  });
}
