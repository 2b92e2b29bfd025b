// Search suggestions (src/web/client/search_suggest.js): operators while typing a word,
// operands after an operator, the rest of the text kept, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lastToken, suggest } from "../../../src/web/client/search_suggest.js";

const data = {
  channels: ["general", "design team"],
  topics: (channel) => (channel === "general" ? ["lunch", "build failures"] : channel === null ? ["open topic"] : []),
  users: [{ email: "iago@x.org", full_name: "Iago Smith" }, { email: "hamlet@x.org", full_name: "Hamlet" }],
};
const values = (text) => suggest(text, data).map((s) => s.value);

test("the word being typed is split off, quoted operands included", () => {
  assert.deepEqual(lastToken("pizza channel:gen"), { head: "pizza ", token: "channel:gen" });
  assert.deepEqual(lastToken('topic:"build f'), { head: "", token: 'topic:"build f' });
  assert.deepEqual(lastToken("a "), { head: "a ", token: "" });
});

test("operator names complete from their first letters, negation kept", () => {
  assert.deepEqual(values("ch"), ["channel:"]);
  assert.deepEqual(values("pizza s"), ["pizza sender:"]);
  assert.deepEqual(values("-i"), ["-is:"]);
  assert.deepEqual(values("zzz"), []);
});

test("operands: channels, topics of the named channel (or the open one), users by name or email, is: values", () => {
  assert.deepEqual(values("channel:"), ["channel:general ", 'channel:"design team" ']);
  assert.deepEqual(values("stream:te"), ['channel:"design team" ']);
  assert.deepEqual(values("channel:general topic:bu"), ['channel:general topic:"build failures" ']);
  assert.deepEqual(values("topic:"), ['topic:"open topic" ']);
  assert.deepEqual(values("sender:smi"), ["sender:iago@x.org "]);
  assert.deepEqual(values("dm:ham"), ["dm:hamlet@x.org "]);
  assert.deepEqual(values("pizza is:st"), ["pizza is:starred "]);
  assert.deepEqual(values("has:im"), ["has:image "]);
});

test("a complete operand does not suggest itself; at most 8 suggestions", () => {
  assert.deepEqual(values("channel:general "), []);
  const many = { users: Array.from({ length: 20 }, (_, i) => ({ email: `u${i}@x`, full_name: `User ${i}` })) };
  assert.equal(suggest("sender:u", many).length, 8);
});
