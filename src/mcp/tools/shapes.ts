/**
 * zod shapes shared by the tools' output schemas.
 *
 * @module
 */

import * as z from "zod";
import { PROBLEM_REASONS } from "../../skills/problem.ts";

/** A problem as clients see it. */
export const problemShape = z.object({
  path: z.string(),
  reason: z.enum(PROBLEM_REASONS),
  severity: z.enum(["error", "warning"]),
  detail: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});
