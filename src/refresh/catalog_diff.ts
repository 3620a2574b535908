/**
 * What changed between two catalog snapshots, in the terms clients are told
 * about: the prompt list, the resource list, the model's catalog text, and
 * the URIs of files whose content changed, appeared or went away.
 *
 * @module
 */

import { findListedFile } from "../mcp/resources/served_file.ts";
import { skillFileUri } from "../mcp/resources/skill_uri.ts";
import { renderSkillCatalog } from "../mcp/model_catalog/model_catalog.ts";
import type { Catalog, Skill } from "../skills/skill.ts";
import { relative, sep } from "node:path";

/** The differences clients hear about. */
export interface CatalogChange {
  /** Whether the set of skills or any skill's frontmatter changed (`prompts/list_changed`). */
  readonly promptsChanged: boolean;
  /** Whether the set of file URIs changed (`resources/list_changed`). */
  readonly resourcesChanged: boolean;
  /** Whether the model's `<available_skills>` text changed (tool-description mode). */
  readonly modelCatalogChanged: boolean;
  /** Whether anything served changed at all. */
  readonly anyChanged: boolean;
  /** URIs of files added, removed or changed, plus changed paths that map to a file URI. */
  readonly updatedUris: ReadonlySet<string>;
}

/**
 * Compares two snapshots.
 *
 * @param previous The snapshot that was served.
 * @param next The snapshot swapped in.
 * @param changedPaths The watcher's paths; a path inside a skill folder of
 *   either snapshot adds its file URI to `updatedUris` (so a subscriber hears
 *   of a write even when size and mtime look the same, or when the skill is
 *   kept at its last good version).
 * @returns The change.
 *
 * Source: MCP 2025-11-25, "Resources" (list_changed, updated) and "Prompts"
 * (list_changed).
 */
export function diffCatalogs(
  previous: Catalog,
  next: Catalog,
  changedPaths: readonly string[] = [],
): CatalogChange {
  const updatedUris = new Set<string>();
  let promptsChanged = false;
  let resourcesChanged = false;
  // The model's catalog text is made of the set of skills, their frontmatter and the
  // names of their SKILL.md files: rendered again only when one of those changed.
  let modelInputsChanged = false;
  let anyChanged = previous.problems !== next.problems && !sameProblems(previous, next);
  const names = new Set([...previous.byName.keys(), ...next.byName.keys()]);
  for (const name of names) {
    const before = previous.byName.get(name);
    const after = next.byName.get(name);
    if (before === after) continue;
    anyChanged = true;
    if (before === undefined || after === undefined) {
      promptsChanged = true;
      resourcesChanged = true;
      modelInputsChanged = true;
      for (const file of (before ?? after as Skill).files) {
        updatedUris.add(skillFileUri(name, file.path));
      }
      continue;
    }
    if (
      JSON.stringify(before.frontmatter) !== JSON.stringify(after.frontmatter) ||
      JSON.stringify(before.override) !== JSON.stringify(after.override)
    ) {
      promptsChanged = true;
      modelInputsChanged = true;
    }
    if (before.skillMdFile !== after.skillMdFile) modelInputsChanged = true;
    const old = new Map(before.files.map((file) => [file.path, file]));
    for (const file of after.files) {
      const was = old.get(file.path);
      if (was === undefined) resourcesChanged = true;
      if (was === undefined || was.size !== file.size || was.mtimeMs !== file.mtimeMs) {
        updatedUris.add(skillFileUri(name, file.path));
      }
      old.delete(file.path);
    }
    for (const gone of old.keys()) {
      resourcesChanged = true;
      updatedUris.add(skillFileUri(name, gone));
    }
  }
  for (const path of changedPaths) {
    for (const catalog of [previous, next]) {
      const uri = uriOfPath(catalog, path);
      if (uri !== null) updatedUris.add(uri);
    }
  }
  const modelCatalogChanged = modelInputsChanged &&
    renderSkillCatalog(previous) !== renderSkillCatalog(next);
  return { promptsChanged, resourcesChanged, modelCatalogChanged, anyChanged, updatedUris };
}

function sameProblems(a: Catalog, b: Catalog): boolean {
  return JSON.stringify(a.problems) === JSON.stringify(b.problems);
}

/** The file URI of an absolute path inside a served skill's folder, when the skill lists it. */
function uriOfPath(catalog: Catalog, path: string): string | null {
  for (const skill of catalog.skills) {
    for (const base of [skill.dir, skill.realDir]) {
      if (!path.startsWith(base + sep)) continue;
      const rel = relative(base, path).split(sep).join("/");
      if (findListedFile(skill, rel) !== null) return skillFileUri(skill.name, rel);
    }
  }
  return null;
}
