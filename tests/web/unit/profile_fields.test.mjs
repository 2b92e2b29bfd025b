// Own custom profile fields (src/web/client/profile_fields.js): select options, user lists
// and which changes are sent or cleared, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { profileChanges, selectOptions, userIds } from "../../../src/web/client/profile_fields.js";

test("select options follow the field's order; bad field_data gives none", () => {
  const field = { type: 3, field_data: JSON.stringify({ b: { text: "Backend", order: "2" }, f: { text: "Frontend", order: "1" } }) };
  assert.deepEqual(selectOptions(field), [["f", "Frontend"], ["b", "Backend"]]);
  assert.deepEqual(selectOptions({ type: 3, field_data: "{not json" }), []);
  assert.deepEqual(selectOptions({ type: 3, field_data: "[1,2]" }), []);
});

test("user field values are JSON lists of integer ids", () => {
  assert.deepEqual(userIds("[3, 4]"), [3, 4]);
  assert.deepEqual(userIds('["x", 5]'), [5]);
  assert.deepEqual(userIds("oops"), []);
  assert.deepEqual(userIds(""), []);
});

test("only changed fields are sent; emptied ones are cleared; text is trimmed except long text", () => {
  const fields = [{ id: 1, type: 1 }, { id: 2, type: 2 }, { id: 3, type: 4 }, { id: 4, type: 6 }, { id: 5, type: 1 }];
  const current = { 1: { value: "he/him" }, 3: { value: "1990-05-04" }, 4: { value: "[3]" } };
  const edited = { 1: " he/him ", 2: " long\n", 3: "", 4: "[3,5]", 5: "" };
  assert.deepEqual(profileChanges(fields, current, edited), {
    update: [{ id: 2, value: " long\n" }, { id: 4, value: [3, 5] }],
    clear: [3],
  });
  assert.deepEqual(profileChanges(fields, current, { 4: "[]" }), { update: [], clear: [4] });
  assert.deepEqual(profileChanges(fields, current, {}), { update: [], clear: [] });
});
