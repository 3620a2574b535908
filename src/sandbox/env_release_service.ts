/**
 * Wires the trusted part's environment release: the owner's rule
 * (`env_release.ts`) over the declaration reader (`declared_env_host.ts`),
 * as `serve` hands it to the worker host.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import { isolateEntryUrl } from "../entry_points.ts";
import type { Grant } from "../scripts/grant.ts";
import { isDisabled, type SkillOverrides } from "../skills/overrides.ts";
import type { FolderVerdict } from "../scripts/sandbox/grant_folders.ts";
import { createDeclaredEnvReader, type DeclaredEnvReader } from "./declared_env_host.ts";
import { type EnvReleaseRequest, releaseEnv } from "./env_release.ts";
import type { WorkerSet } from "./worker_set.ts";

/** The release function the worker host calls per run, and the reader to stop at exit. */
export interface EnvReleaseService {
  readonly release: (request: EnvReleaseRequest) => Promise<Readonly<Record<string, string>>>;
  readonly reader: DeclaredEnvReader;
}

/**
 * Creates the per-run release for a worker set.
 *
 * @param set The worker set (its grant, the reader's permissions and bases;
 *   without grant rows the sources cache is no base, so a remote skill's
 *   declaration alone releases nothing).
 * @param options `caps`: the SKILL.md read cap the catalog uses; `getEnv`:
 *   the trusted part's environment lookup; `overrides`: the overrides in force
 *   now (start-up's, narrowed by every live edit): a skill they disable gets
 *   nothing, as the plan does not serve it (review r13: a worker that asked
 *   for a disabled skill's values got them). Required, so no caller forgets it.
 * @returns The release function and its declaration reader (started on the
 *   first request that has a name to release).
 *
 * Requires `--unstable-worker-options` and the permissions handed to the reader.
 */
export function createEnvReleaseService(
  set: Pick<WorkerSet, "declarationReader" | "declarationBases" | "declarationSourcesBase"> & {
    readonly scripts: {
      readonly grant: Grant;
      readonly folderVerdicts: readonly FolderVerdict[];
      /** False when every run is blocked (the plan's rule): nothing is released then. */
      readonly mayRun: boolean;
    };
  },
  options: {
    readonly caps: Caps;
    readonly getEnv: (name: string) => string | undefined;
    readonly overrides: () => SkillOverrides;
  },
): EnvReleaseService {
  // Without grant rows the declarations stand, but only local ones: a remote skill's (the
  // publisher's words) grants nothing without a row naming it, so its folder is no base then.
  const bases = set.scripts.grant.rows === null
    ? set.declarationBases.filter((base) => base.path !== set.declarationSourcesBase)
    : set.declarationBases;
  const reader = createDeclaredEnvReader(
    isolateEntryUrl("declaration-reader"),
    set.declarationReader.permissions,
    { bases, maxSkillMdBytes: options.caps.maxSkillMdBytes },
  );
  return {
    reader,
    release: (request) =>
      !set.scripts.mayRun || isDisabled(options.overrides(), request.skill)
        ? Promise.resolve(Object.freeze({}))
        : releaseEnv(
          set.scripts.grant,
          request,
          {
            getEnv: options.getEnv,
            declaredEnv: (asked) => reader.declaredEnv(asked),
            refusedFolder: (index) => {
              const verdict = set.scripts.folderVerdicts.find((candidate) =>
                candidate.index === index
              );
              return verdict !== undefined && "refused" in verdict ? verdict.refused : undefined;
            },
          },
        ),
  };
}
