// Narrow hashes and search strings (src/web/client/narrow.js), under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  apiNarrow, decodeHashComponent, encodeHashComponent, messageMatches, narrowHash, narrowTitle, parseHash, parseSearch, searchText,
} from "../../../src/web/client/narrow.js";

const names = { channel: (id) => ({ 12: "general", 3: "design team" })[id], user: (id) => ({ 5: "Iago", 6: "Cordelia" })[id], email: (id) => `u${id}@x.org` };

test("hash components use upstream's dot encoding", () => {
  assert.equal(encodeHashComponent("project x.y"), "project.20x.2Ey");
  assert.equal(decodeHashComponent("project.20x.2Ey"), "project x.y");
  assert.equal(decodeHashComponent(encodeHashComponent("✔ done/100%")), "✔ done/100%");
});

test("channel and topic hashes parse to terms", () => {
  assert.deepEqual(parseHash("#narrow/channel/12-general/topic/lunch"), [
    { operator: "channel", operand: 12, negated: false },
    { operator: "topic", operand: "lunch", negated: false },
  ]);
  assert.deepEqual(parseHash("#narrow/stream/12-general/subject/lunch.20plans")[1], { operator: "topic", operand: "lunch plans", negated: false });
});

test("dm, is and search hashes parse", () => {
  assert.deepEqual(parseHash("#narrow/dm/5-Iago"), [{ operator: "dm", operand: [5], negated: false }]);
  assert.deepEqual(parseHash("#narrow/dm/5,6-group")[0].operand, [5, 6]);
  assert.deepEqual(parseHash("#narrow/is/starred"), [{ operator: "is", operand: "starred", negated: false }]);
  assert.deepEqual(parseHash("#narrow/search/hello.20world"), [{ operator: "search", operand: "hello world", negated: false }]);
  assert.deepEqual(parseHash("#narrow/-is/resolved")[0], { operator: "is", operand: "resolved", negated: true });
  assert.deepEqual(parseHash(""), []);
  assert.deepEqual(parseHash("#all-messages"), []);
  assert.equal(parseHash("#settings/profile"), null);
});

test("terms build the same hashes back", () => {
  for (const hash of ["#narrow/channel/12-general/topic/lunch", "#narrow/dm/5-Iago", "#narrow/is/starred", "#narrow/is/mentioned", "#narrow/search/hello.20world"]) {
    assert.equal(narrowHash(parseHash(hash), names), hash);
  }
  assert.equal(narrowHash([{ operator: "channel", operand: 3 }], names), "#narrow/channel/3-design-team");
  assert.equal(narrowHash([], names), "#all-messages");
});

test("search strings parse into terms with lookups", () => {
  const lookup = { channel: (n) => (n === "general" ? 12 : null), user: (t) => (t === "iago@x.org" ? 5 : null) };
  assert.deepEqual(parseSearch('channel:general topic:"lunch plans" sender:iago@x.org is:starred pizza time', lookup), [
    { operator: "channel", operand: 12, negated: false },
    { operator: "topic", operand: "lunch plans", negated: false },
    { operator: "sender", operand: 5, negated: false },
    { operator: "is", operand: "starred", negated: false },
    { operator: "search", operand: "pizza time", negated: false },
  ]);
  assert.deepEqual(parseSearch("-is:resolved stream:nowhere", lookup), [
    { operator: "is", operand: "resolved", negated: true },
    { operator: "channel", operand: "nowhere", negated: false },
  ]);
  assert.deepEqual(parseSearch("   "), []);
  assert.equal(searchText([{ operator: "channel", operand: 12 }, { operator: "topic", operand: "a b" }, { operator: "search", operand: "x" }], names), 'channel:general topic:"a b" x');
});

test("apiNarrow keeps operator, operand and negated", () => {
  assert.deepEqual(apiNarrow([{ operator: "dm", operand: [5] }]), [{ operator: "dm", operand: [5], negated: false }]);
});

test("messages match narrows locally", () => {
  const me = 1;
  const chan = { id: 10, type: "stream", stream_id: 12, subject: "Lunch", sender_id: 5, flags: ["mentioned"] };
  const dm = { id: 11, type: "private", display_recipient: [{ id: 1 }, { id: 5 }], sender_id: 5, flags: ["read", "starred"] };
  assert.equal(messageMatches(parseHash("#narrow/channel/12-general/topic/lunch"), chan, me), true);
  assert.equal(messageMatches(parseHash("#narrow/channel/13-x"), chan, me), false);
  assert.equal(messageMatches(parseHash("#narrow/dm/5-Iago"), dm, me), true);
  assert.equal(messageMatches(parseHash("#narrow/dm/6-Cordelia"), dm, me), false);
  assert.equal(messageMatches(parseHash("#narrow/is/starred"), dm, me), true);
  assert.equal(messageMatches(parseHash("#narrow/is/mentioned"), chan, me), true);
  assert.equal(messageMatches(parseHash("#narrow/is/dm"), chan, me), false);
  assert.equal(messageMatches(parseHash("#narrow/search/x"), chan, me), null);
  assert.equal(messageMatches([], chan, me), true);
});

test("titles", () => {
  assert.equal(narrowTitle([], names), "All messages");
  assert.equal(narrowTitle(parseHash("#narrow/channel/12-general/topic/lunch"), names), "#general > lunch");
  assert.equal(narrowTitle(parseHash("#narrow/is/starred"), names), "Starred messages");
  assert.equal(narrowTitle(parseHash("#narrow/dm/5-Iago"), names), "Iago");
});
