/**
 * The messages between the trusted part and the declaration reader
 * (`declared_env_entry.ts`). Besides these, the reader asks where an opened
 * file really is (`locate-fd`, `locate-fds`, as the serving worker does).
 *
 * @module
 */

import type { DeclarationBase, DeclaredEnvRequest } from "../skills/declared_env.ts";

/** Trusted part to reader: which names does this script declare? */
export interface DeclaredEnvQuestion {
  readonly type: "declared-env";
  readonly id: number;
  readonly request: DeclaredEnvRequest;
  /** The folders (with their prefixes) a skill folder must lie inside, and the SKILL.md read cap in bytes. */
  readonly options: {
    readonly bases: readonly DeclarationBase[];
    readonly maxSkillMdBytes: number;
  };
}

/** Reader to trusted part: the declared names (empty when anything did not hold). */
export interface DeclaredEnvReply {
  readonly type: "declared-env-reply";
  readonly id: number;
  readonly names: readonly string[];
}
