/**
 * Test helper: a large in-memory catalog that counts how it is looked at, so
 * a test can prove a method used the index (a `Map` lookup, the snapshot's
 * precomputed name lists) and did not scan or compare against every skill.
 *
 * @module
 */

import type { Catalog, Skill } from "../../src/skills/skill.ts";
import { testCatalog } from "./resources/_catalog.ts";

/** What the catalog saw since the last reset. */
export interface CatalogCounts {
  /** Reads of an element of `catalog.skills` (each scan step is one). */
  skillReads: number;
  /** Reads of a skill's `name` or `description` (each comparison is one). */
  fieldReads: number;
  /** `byName.get` / `byName.has` calls. */
  mapLookups: number;
}

/** A counting catalog. */
export interface CountingCatalog {
  readonly catalog: Catalog;
  readonly counts: CatalogCounts;
  /** Zeroes the counts. */
  reset(): void;
}

/**
 * Builds `size` skills named `skill-00000`... with one file each, counting
 * every element read, name or description read, and map lookup.
 *
 * @param size Skills, e.g. 10,000 (the default skill cap).
 * @returns The catalog and its counts.
 */
export function countingCatalog(size: number): CountingCatalog {
  const plain = testCatalog(
    Array.from({ length: size }, (_, index) => ({
      name: `skill-${String(index).padStart(5, "0")}`,
      files: ["references/guide.md"],
    })),
  );
  const counts: CatalogCounts = { skillReads: 0, fieldReads: 0, mapLookups: 0 };
  const watched = plain.skills.map((skill) =>
    new Proxy(skill, {
      get(target, key, receiver) {
        if (key === "name" || key === "description") counts.fieldReads++;
        return Reflect.get(target, key, receiver);
      },
    })
  );
  const skills = new Proxy(watched, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) counts.skillReads++;
      return Reflect.get(target, key, receiver);
    },
  });
  class CountingMap extends Map<string, Skill> {
    override get(key: string): Skill | undefined {
      counts.mapLookups++;
      return super.get(key);
    }
    override has(key: string): boolean {
      counts.mapLookups++;
      return super.has(key);
    }
  }
  const byName = new CountingMap(watched.map((skill) => [skill.name, skill]));
  const catalog: Catalog = { roots: plain.roots, skills, byName, problems: [] };
  return {
    catalog,
    counts,
    reset: () => {
      counts.skillReads = 0;
      counts.fieldReads = 0;
      counts.mapLookups = 0;
    },
  };
}
