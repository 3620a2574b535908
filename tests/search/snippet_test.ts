import assert from "node:assert/strict";
import { cutSnippet, SNIPPET_CHARS } from "../../src/search/snippet.ts";
import { queryTerms } from "../../src/search/terms.ts";

function matcher(query: string) {
  const terms = queryTerms(query);
  return {
    matchOf: (term: string) =>
      terms.findIndex((t) => t.term === term || (t.isPrefix && term.startsWith(t.term))),
    termCount: terms.length,
  };
}

function snippet(query: string, source: { description: string; body: string }): string {
  const { matchOf, termCount } = matcher(query);
  return cutSnippet(source, matchOf, termCount);
}

Deno.test("cutSnippet() wraps every matched word form in guillemets", () => {
  const text = snippet("validating résumé", {
    description: "Validate a Resume and the validation rules.",
    body: "",
  });
  assert.equal(text, "«Validate» a «Resume» and the «validation» rules.");
});

Deno.test("cutSnippet() picks the body passage holding the most query terms", () => {
  const body = "Intro words. ".repeat(50) + "Here the kafka consumer lag is tuned. " +
    "Outro words. ".repeat(50);
  const text = snippet("kafka lag", { description: "Tunes things.", body });
  assert.match(text, /^….*«kafka» consumer «lag» is tuned.*…$/);
  assert.ok(text.replaceAll(/[«»…]/g, "").length <= SNIPPET_CHARS, text);
});

Deno.test("cutSnippet() prefers the description on a tie and marks a prefix match", () => {
  const text = snippet("transl", {
    description: "Translate strings.",
    body: "Translation notes.",
  });
  assert.equal(text, "«Translate» strings.");
});

Deno.test("attack: guillemets and control characters in a skill cannot forge or break marks", () => {
  const text = snippet("secret", {
    description: "«fake» match\u0007 and the secret\u001b[31m here",
    body: "",
  });
  assert.equal(text, "‹fake› match and the «secret» [31m here");
});

Deno.test("cutSnippet() without a matched word shows the description's start, unmarked", () => {
  assert.equal(snippet("zebra", { description: "Short.", body: "Nothing." }), "Short.");
});
