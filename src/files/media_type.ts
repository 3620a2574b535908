/**
 * Media types of skill files, from the file name alone (never sniffed).
 *
 * @module
 */

const BY_EXTENSION: ReadonlyMap<string, string> = new Map(Object.entries({
  // Text and documents
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  text: "text/plain",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  xml: "application/xml",
  json: "application/json",
  jsonl: "application/jsonl",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  pdf: "application/pdf",
  // Code
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  jsx: "text/jsx",
  ts: "text/typescript",
  mts: "text/typescript",
  cts: "text/typescript",
  tsx: "text/tsx",
  py: "text/x-python",
  sh: "application/x-sh",
  bash: "application/x-sh",
  rb: "text/x-ruby",
  go: "text/x-go",
  java: "text/x-java",
  cs: "text/x-csharp",
  php: "text/x-php",
  rs: "text/x-rust",
  c: "text/x-c",
  h: "text/x-c",
  cpp: "text/x-c++",
  cc: "text/x-c++",
  hpp: "text/x-c++",
  sql: "application/sql",
  // Images
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/vnd.microsoft.icon",
  // Archives
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  tar: "application/x-tar",
  // Fonts
  ttf: "font/ttf",
  otf: "font/otf",
  woff: "font/woff",
  woff2: "font/woff2",
  // Audio and video
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
}));

/** Plain-text names without an extension: `LICENSE`, `LICENSE-MIT`, `COPYING`, `Makefile`, ... */
const PLAIN_TEXT_NAME =
  /^(?:licen[cs]e|copying|notice|readme|authors|contributors|changelog|changes|patents|version|makefile|dockerfile)(?:[-_].*)?$/i;

/** The fallback for names that tell nothing. */
export const UNKNOWN_MEDIA_TYPE = "application/octet-stream";

/**
 * Picks a media type from a file's extension (case-insensitive).
 *
 * @param path A file name or a relative POSIX path; only the last segment
 *   counts. A leading dot does not start an extension (`.env` has none).
 * @returns The media type without parameters, e.g. `text/markdown`; names
 *   like `LICENSE` or `Makefile` without an extension are `text/plain`;
 *   anything else is `application/octet-stream`.
 *
 * Source: IANA media types, with common `text/x-*` names for source code.
 */
export function mediaTypeFor(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot > 0) {
    return BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) ?? UNKNOWN_MEDIA_TYPE;
  }
  return PLAIN_TEXT_NAME.test(name) ? "text/plain" : UNKNOWN_MEDIA_TYPE;
}
