/**
 * Where the program's isolates load from, in both forms skillgate runs in:
 * from source (`deno run main.ts`, tests, `deno compile`) and bundled (the
 * launcher runs `.bundle/<hash>/main.js`, built by `deno bundle` from these
 * same sources; see the launcher). A bundle keeps the source tree's layout
 * for its entry modules (`main.js`, `src/worker/entry.js`, ...) but puts the
 * shared code in chunks at its root, so no module can find a sibling through
 * its own `import.meta.url`: every isolate's entry URL is decided here.
 *
 * @module
 */

/**
 * The entry modules skillgate loads by URL: each isolate's (the worker, the
 * declaration reader, the fetcher, the digest isolate), and `on-demand`, the
 * trusted part's modules `serve` does not start with (`src/cli/on_demand.ts`
 * says why it is loaded by URL).
 */
export type IsolateEntry = "worker" | "declaration-reader" | "fetcher" | "digests" | "on-demand";

/** Each entry module's path under `src/` (source form: `.ts`; bundled: the same path, `.js`). */
const ENTRY_PATHS: Readonly<Record<IsolateEntry, string>> = {
  "worker": "worker/entry",
  "declaration-reader": "sandbox/declared_env_entry",
  "fetcher": "remote/fetcher_entry",
  "digests": "mcp/skills_extension/digest_entry",
  "on-demand": "cli/on_demand",
};

/**
 * The form this code runs in: `bundled` with the bundle's root folder (the
 * folder of the bundled `main.js`), or `source`. Pure.
 *
 * @param here This module's URL (`import.meta.url`: a `.ts` file from
 *   source, a `.js` chunk in a bundle).
 * @param mainModule The main module's URL (`Deno.mainModule`); in the
 *   bundled form it is the bundle's `main.js`.
 * @returns The form.
 */
export function programForm(
  here: string,
  mainModule: string,
): { readonly bundled: false } | { readonly bundled: true; readonly root: URL } {
  if (!here.endsWith(".js")) return { bundled: false };
  return { bundled: true, root: new URL(".", mainModule) };
}

/**
 * The URL of an entry module: an isolate's, for `new Worker(...)`, or the
 * trusted part's on-demand modules, for `import()`.
 *
 * @param entry Which entry module.
 * @param here @default `import.meta.url` of this module (tests pass others).
 * @param mainModule @default `Deno.mainModule`.
 * @returns `src/<entry>.ts` beside this module from source, or
 *   `<bundle>/src/<entry>.js` in the bundled form.
 */
export function isolateEntryUrl(
  entry: IsolateEntry,
  here: string = import.meta.url,
  mainModule: string = Deno.mainModule,
): URL {
  const form = programForm(here, mainModule);
  const path = ENTRY_PATHS[entry];
  return form.bundled ? new URL(`src/${path}.js`, form.root) : new URL(`./${path}.ts`, here);
}

/**
 * The folder skillgate is installed in: the checkout (or, compiled, the
 * binary's embedded tree), which holds the sources and the bundle alike
 * (`<checkout>/.bundle/<hash>/`). Grants may not name it.
 *
 * @param here @default `import.meta.url` of this module.
 * @param mainModule @default `Deno.mainModule`.
 * @returns Its absolute path, ending in `/`.
 */
export function installDir(
  here: string = import.meta.url,
  mainModule: string = Deno.mainModule,
): string {
  const form = programForm(here, mainModule);
  return form.bundled ? new URL("../../", form.root).pathname : new URL("../", here).pathname;
}
