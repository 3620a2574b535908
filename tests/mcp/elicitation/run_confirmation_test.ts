import assert from "node:assert/strict";
import {
  readRunConfirmation,
  RUN_CONFIRMATION_SCHEMA,
  withSchemaDefaults,
} from "../../../src/mcp/elicitation/run_confirmation.ts";

Deno.test("readRunConfirmation() applies the schema's default run: true to empty content", () => {
  assert.equal(readRunConfirmation({ action: "accept", content: {} }), "accept");
  assert.equal(readRunConfirmation({ action: "accept" }), "accept");
  assert.equal(readRunConfirmation({ action: "accept", content: undefined }), "accept");
});

Deno.test("readRunConfirmation() reads an explicit answer over the default", () => {
  const table: [Record<string, unknown> | undefined, string][] = [
    [{ run: true }, "accept"],
    [{ run: false }, "decline"],
    [{ run: "true" }, "decline"],
    [{ run: 1 }, "decline"],
    [{ run: null }, "decline"],
    [{ other: "x" }, "accept"],
  ];
  for (const [content, expected] of table) {
    assert.equal(readRunConfirmation({ action: "accept", content }), expected, String(content));
  }
});

Deno.test("readRunConfirmation() never turns a decline or cancel into a run", () => {
  assert.equal(readRunConfirmation({ action: "decline", content: { run: true } }), "decline");
  assert.equal(readRunConfirmation({ action: "cancel", content: { run: true } }), "cancel");
  assert.equal(readRunConfirmation({ action: "decline" }), "decline");
});

Deno.test("withSchemaDefaults() fills only absent properties that have a default", () => {
  const schema = {
    type: "object" as const,
    properties: {
      run: { type: "boolean" as const, default: true },
      note: { type: "string" as const },
      count: { type: "integer" as const, default: 3 },
    },
  };
  assert.deepEqual(withSchemaDefaults(schema, { count: 0 }), { count: 0, run: true });
  assert.deepEqual(withSchemaDefaults(schema, undefined), { run: true, count: 3 });
  assert.deepEqual(withSchemaDefaults(schema, { run: false }), { run: false, count: 3 });
});

Deno.test("RUN_CONFIRMATION_SCHEMA does not require run, so an untouched form validates", () => {
  assert.equal(RUN_CONFIRMATION_SCHEMA.required, undefined);
  assert.equal(RUN_CONFIRMATION_SCHEMA.properties.run?.default, true);
});
