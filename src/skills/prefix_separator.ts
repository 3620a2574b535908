/**
 * The separator of a root's prefix and a folder name in a served name, in a
 * module of its own: the configuration checks prefixes against it, and the
 * trusted part's start-up then loads no discovery code (issue 13).
 *
 * @module
 */

/** Between a root's prefix and a folder name in a served name: `PREFIX__NAME`. */
export const PREFIX_SEPARATOR = "__";
