import assert from "node:assert/strict";
import { fold, indexTerms, queryTerms, stem } from "../../src/search/terms.ts";

Deno.test("fold() ignores case and accents (NFKD, marks removed) and compatibility forms", () => {
  for (
    const [word, folded] of <[string, string][]> [
      ["Résumé", "resume"],
      ["NAÏVE", "naive"],
      ["Ångström", "angstrom"],
      ["ﬁle", "file"],
      ["plain", "plain"],
    ]
  ) assert.equal(fold(word), folded, word);
});

Deno.test("stem() gives English word forms one term (Porter)", () => {
  const forms = ["validate", "validating", "validates", "validation", "validated"];
  assert.deepEqual(new Set(forms.map(stem)).size, 1, forms.map(stem).join(","));
  assert.equal(stem("spreadsheets"), stem("spreadsheet"));
  assert.equal(stem("v2"), "v2", "a word with a digit is kept");
});

Deno.test("indexTerms() splits names on hyphens and drops stop words", () => {
  assert.deepEqual(indexTerms("pdf-form-filler"), ["pdf", "form", "filler"]);
  assert.deepEqual(indexTerms("How to fill the form"), ["fill", "form"]);
});

Deno.test("queryTerms() matches the last word and very short words as prefixes", () => {
  assert.deepEqual(queryTerms("fill a pd"), [
    { term: "fill", isPrefix: false },
    { term: "pd", isPrefix: true },
  ]);
  assert.deepEqual(queryTerms("the"), [{ term: "the", isPrefix: true }], "only stop words: kept");
  assert.deepEqual(queryTerms("--- !!!"), []);
  assert.deepEqual(queryTerms("form forms FORM").length, 1, "repeats are one term");
});
