/**
 * TEST-ONLY entry: prints on stderr, once, which skills corpora a test run
 * uses (the fixture corpus, and the real-world one when present). `make test`
 * and `make unit` run it just before `deno test`.
 *
 *   deno run --allow-read --allow-env=SKILLGATE_CORPUS tests/support/say_corpora.ts
 *
 * @module
 */

import { corporaLine } from "./corpora.ts";

console.error(corporaLine());
