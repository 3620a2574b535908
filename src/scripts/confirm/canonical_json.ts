/**
 * Canonical JSON: object keys sorted by code unit at every level, no spaces.
 * Two previews that mean the same thing serialise to the same bytes, so a
 * token signed over one verifies against the other.
 *
 * @module
 */

/**
 * Serialises a JSON value canonically.
 *
 * @param value A JSON value (objects, arrays, strings, finite numbers, booleans, null).
 * @returns The canonical text.
 * @throws {TypeError} For a value JSON cannot hold (undefined inside an array, a function, a non-finite number).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`Cannot serialise the number "${value}"`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${
      entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")
    }}`;
  }
  throw new TypeError(`Cannot serialise a value of type "${typeof value}"`);
}
