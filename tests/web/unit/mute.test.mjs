// Muting rules (src/web/client/mute.js): what muted topics, channels and users hide, and the
// visibility policy each topic action sends, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createStore, applyEvent } from "../../../src/web/client/store.js";
import { firstVisibleUnread, hiddenByMute, policyFor, senderMuted, topicActions } from "../../../src/web/client/mute.js";

function store() {
  return createStore({
    user_id: 1,
    realm_users: [{ user_id: 1, full_name: "Me", email: "me@x" }, { user_id: 5, full_name: "Iago", email: "iago@x" }],
    subscriptions: [{ stream_id: 12, name: "general" }, { stream_id: 13, name: "quiet", is_muted: true }],
    user_topics: [{ stream_id: 12, topic_name: "Noisy", visibility_policy: 1 }, { stream_id: 13, topic_name: "kept", visibility_policy: 2 }],
    muted_users: [{ id: 5, timestamp: 0 }],
  });
}
const msg = (stream_id, subject, sender_id = 5) => ({ id: 1, type: "stream", stream_id, subject, sender_id });
const all = [];
const channel = (id) => [{ operator: "channel", operand: id, negated: false }];

test("All messages hides muted topics (any case) and muted channels unless the topic is unmuted", () => {
  const s = store();
  assert.equal(hiddenByMute(s, all, msg(12, "noisy")), true);
  assert.equal(hiddenByMute(s, all, msg(12, "lunch")), false);
  assert.equal(hiddenByMute(s, all, msg(13, "anything")), true);
  assert.equal(hiddenByMute(s, all, msg(13, "kept")), false);
  assert.equal(hiddenByMute(s, all, { id: 2, type: "private", sender_id: 5 }), false);
  // a `near` term does not change what All messages shows
  assert.equal(hiddenByMute(s, [{ operator: "near", operand: 4 }], msg(12, "noisy")), true);
});

test("a channel's view hides its muted topics but shows a muted channel; topic and search views hide nothing", () => {
  const s = store();
  assert.equal(hiddenByMute(s, channel(12), msg(12, "Noisy")), true);
  assert.equal(hiddenByMute(s, channel(13), msg(13, "anything")), false);
  assert.equal(hiddenByMute(s, [...channel(12), { operator: "topic", operand: "noisy" }], msg(12, "Noisy")), false);
  assert.equal(hiddenByMute(s, [{ operator: "search", operand: "x" }], msg(12, "Noisy")), false);
});

test("user_topic and subscription events change what is hidden", () => {
  const s = store();
  applyEvent(s, { type: "user_topic", stream_id: 12, topic_name: "noisy", visibility_policy: 0 });
  assert.equal(hiddenByMute(s, all, msg(12, "Noisy")), false);
  applyEvent(s, { type: "subscription", op: "update", stream_id: 12, property: "is_muted", value: true });
  assert.equal(hiddenByMute(s, all, msg(12, "lunch")), true);
  applyEvent(s, { type: "user_topic", stream_id: 12, topic_name: "lunch", visibility_policy: 3 });
  assert.equal(hiddenByMute(s, all, msg(12, "lunch")), false);
});

test("messages of muted users are collapsed, never my own", () => {
  const s = store();
  assert.equal(senderMuted(s, msg(12, "x", 5)), true);
  assert.equal(senderMuted(s, msg(12, "x", 1)), false);
  applyEvent(s, { type: "muted_users", muted_users: [] });
  assert.equal(senderMuted(s, msg(12, "x", 5)), false);
});

test("topic actions and the policies they send", () => {
  const s = store();
  assert.deepEqual(topicActions(s, 12, "noisy").map((a) => a.label), ["Unmute topic", "Follow topic"]);
  assert.deepEqual(topicActions(s, 12, "lunch").map((a) => a.label), ["Mute topic", "Follow topic"]);
  assert.deepEqual(topicActions(s, 13, "other").map((a) => a.label), ["Unmute topic", "Follow topic"]);
  applyEvent(s, { type: "user_topic", stream_id: 12, topic_name: "lunch", visibility_policy: 3 });
  assert.deepEqual(topicActions(s, 12, "lunch").map((a) => a.label), ["Mute topic", "Unfollow topic"]);
  assert.equal(policyFor("mute", false), 1);
  assert.equal(policyFor("unmute", false), 0);
  assert.equal(policyFor("unmute", true), 2);
  assert.equal(policyFor("follow", false), 3);
  assert.equal(policyFor("unfollow", false), 0);
  assert.equal(policyFor("unfollow", true), 2);
  assert.throws(() => policyFor("explode", false));
});

test("the first unread message a view shows skips what muting hides there", () => {
  const s = store();
  s.unread.clear();
  s.unread.set(10, { stream_id: 12, topic: "noisy", mentioned: false });
  s.unread.set(11, { stream_id: 13, topic: "anything", mentioned: false });
  s.unread.set(12, { stream_id: 12, topic: "lunch", mentioned: true });
  s.unread.set(14, { dm: "5", mentioned: false });
  assert.equal(firstVisibleUnread(s, all), 12);
  assert.equal(firstVisibleUnread(s, channel(12)), 12);
  assert.equal(firstVisibleUnread(s, channel(13)), 11);
  assert.equal(firstVisibleUnread(s, [...channel(12), { operator: "topic", operand: "Noisy" }]), 10);
  assert.equal(firstVisibleUnread(s, [{ operator: "dm", operand: [5] }]), 14);
  assert.equal(firstVisibleUnread(s, [{ operator: "is", operand: "dm" }]), 14);
  assert.equal(firstVisibleUnread(s, [{ operator: "is", operand: "mentioned" }]), 12);
  assert.equal(firstVisibleUnread(s, [{ operator: "dm", operand: [7] }]), null);
  // not decidable from the unread state: the server's first_unread decides
  assert.equal(firstVisibleUnread(s, [{ operator: "is", operand: "starred" }]), undefined);
  assert.equal(firstVisibleUnread(s, [{ operator: "sender", operand: 5 }]), undefined);
  assert.equal(firstVisibleUnread(s, [{ operator: "channel", operand: 12, negated: true }]), undefined);
});
