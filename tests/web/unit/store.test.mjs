// The client's state (src/web/client/store.js): built from a register response and changed by
// events, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyEvent, createStore, dmConversations, topicsOf, unreadSummary, setTopics, addMessages } from "../../../src/web/client/store.js";

function initial() {
  return {
    user_id: 1,
    realm_users: [{ user_id: 1, full_name: "Me", email: "me@x" }, { user_id: 5, full_name: "Iago", email: "iago@x" }],
    cross_realm_bots: [],
    subscriptions: [{ stream_id: 12, name: "general" }, { stream_id: 13, name: "quiet", is_muted: true }],
    streams: [],
    unread_msgs: {
      streams: [{ stream_id: 12, topic: "lunch", unread_message_ids: [3, 4] }, { stream_id: 13, topic: "x", unread_message_ids: [6] }],
      pms: [{ other_user_id: 5, unread_message_ids: [7] }],
      huddles: [],
      mentions: [4],
    },
    recent_private_conversations: [{ user_ids: [5], max_message_id: 7 }],
    user_topics: [{ stream_id: 12, topic_name: "noisy", visibility_policy: 1 }],
    user_settings: { color_scheme: 1 },
    realm_message_content_edit_limit_seconds: 600,
    drafts: [],
  };
}

const chanMsg = (id, topic = "lunch", flags = []) => ({ id, type: "stream", stream_id: 12, subject: topic, sender_id: 5, display_recipient: "general", content: "<p>x</p>", reactions: [], flags });

test("unread counts from register: per channel, muted channels excluded, DMs, mentions", () => {
  const s = createStore(initial());
  const u = unreadSummary(s);
  assert.equal(u.channels.get(12), 2);
  assert.equal(u.channels.get(13), undefined);
  assert.equal(u.dms.get("5"), 1);
  assert.equal(u.mentions, 1);
  assert.equal(u.all, 3);
  assert.equal(s.realm.message_content_edit_limit_seconds, 600);
});

test("a message event adds the message, its unread and its topic; reading removes it", () => {
  const s = createStore(initial());
  setTopics(s, 12, [{ name: "lunch", max_id: 4 }]);
  const changed = applyEvent(s, { type: "message", message: chanMsg(9, "new topic"), flags: ["mentioned"] });
  assert.ok(changed.has("messages") && changed.has("unread"));
  assert.equal(unreadSummary(s).channels.get(12), 3);
  assert.equal(unreadSummary(s).mentions, 2);
  assert.deepEqual(topicsOf(s, 12).map((t) => [t.name, t.unread]), [["new topic", 1], ["lunch", 2]]);
  applyEvent(s, { type: "update_message_flags", op: "add", flag: "read", messages: [9, 3], all: false });
  assert.equal(unreadSummary(s).channels.get(12), 1);
  assert.ok(s.messages.get(9).flags.includes("read"));
  applyEvent(s, { type: "update_message_flags", op: "add", flag: "read", messages: [], all: true });
  assert.equal(unreadSummary(s).all, 0);
});

test("muted topics are excluded from channel counts and marked", () => {
  const s = createStore(initial());
  applyEvent(s, { type: "message", message: chanMsg(20, "noisy"), flags: [] });
  assert.equal(unreadSummary(s).channels.get(12), 2);
  const noisy = topicsOf(s, 12).find((t) => t.name === "noisy");
  assert.equal(noisy.muted, true);
  applyEvent(s, { type: "user_topic", stream_id: 12, topic_name: "noisy", visibility_policy: 3 });
  assert.equal(unreadSummary(s).channels.get(12), 3);
  assert.equal(topicsOf(s, 12).find((t) => t.name === "noisy").policy, 3);
});

test("reactions are added once and removed", () => {
  const s = createStore(initial());
  addMessages(s, [chanMsg(30)]);
  const r = { type: "reaction", message_id: 30, user_id: 5, emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" };
  applyEvent(s, { ...r, op: "add" });
  applyEvent(s, { ...r, op: "add" });
  assert.equal(s.messages.get(30).reactions.length, 1);
  applyEvent(s, { ...r, op: "remove" });
  assert.equal(s.messages.get(30).reactions.length, 0);
});

test("edits, moves and deletes update messages and unreads", () => {
  const s = createStore(initial());
  addMessages(s, [chanMsg(3), chanMsg(4)]);
  applyEvent(s, { type: "update_message", message_id: 3, message_ids: [3], rendered_content: "<p>new</p>", edit_timestamp: 5 });
  assert.equal(s.messages.get(3).content, "<p>new</p>");
  applyEvent(s, { type: "update_message", message_id: 3, message_ids: [3, 4], stream_id: 12, orig_subject: "lunch", subject: "✔ lunch", propagate_mode: "change_all" });
  assert.equal(s.messages.get(4).subject, "✔ lunch");
  assert.equal(s.unread.get(4).topic, "✔ lunch");
  applyEvent(s, { type: "delete_message", message_ids: [3], message_type: "stream" });
  assert.equal(s.messages.has(3), false);
  assert.equal(s.unread.has(3), false);
});

test("subscriptions, users, settings and typing follow events", () => {
  const s = createStore(initial());
  applyEvent(s, { type: "subscription", op: "add", subscriptions: [{ stream_id: 14, name: "new" }] });
  assert.ok(s.subs.has(14));
  applyEvent(s, { type: "subscription", op: "remove", subscriptions: [{ stream_id: 14, name: "new" }] });
  assert.ok(!s.subs.has(14));
  applyEvent(s, { type: "subscription", op: "update", stream_id: 13, property: "is_muted", value: false });
  assert.equal(unreadSummary(s).channels.get(13), 1);
  applyEvent(s, { type: "realm_user", op: "update", person: { user_id: 5, full_name: "Iago Z" } });
  assert.equal(s.users.get(5).full_name, "Iago Z");
  applyEvent(s, { type: "realm_user", op: "add", person: { user_id: 8, full_name: "New", email: "n@x" } });
  assert.ok(s.users.has(8));
  applyEvent(s, { type: "user_settings", op: "update", property: "color_scheme", value: 2 });
  assert.equal(s.settings.color_scheme, 2);
  applyEvent(s, { type: "typing", op: "start", message_type: "direct", sender: { user_id: 5 }, recipients: [{ user_id: 1 }, { user_id: 5 }] });
  assert.ok(s.typing.get("dm:5").has(5));
  applyEvent(s, { type: "typing", op: "stop", message_type: "direct", sender: { user_id: 5 }, recipients: [{ user_id: 1 }, { user_id: 5 }] });
  assert.ok(!s.typing.has("dm:5"));
});

test("DM conversations are listed newest first with unread counts", () => {
  const s = createStore(initial());
  applyEvent(s, { type: "message", message: { id: 40, type: "private", sender_id: 8, display_recipient: [{ id: 1 }, { id: 8 }], flags: [] }, flags: [] });
  assert.deepEqual(dmConversations(s).map((c) => [c.key, c.unread]), [["8", 1], ["5", 1]]);
});

test("the message cache is bounded: the oldest messages outside the open narrow go first", async () => {
  const { pruneMessages } = await import("../../../src/web/client/store.js");
  const s = createStore(initial());
  addMessages(s, Array.from({ length: 100 }, (_, i) => chanMsg(i + 1)));
  assert.equal(pruneMessages(s, new Set(), 200), 0);
  const keep = new Set([1, 2, 3]);
  const dropped = pruneMessages(s, keep, 40);
  assert.equal(s.messages.size, 30);
  assert.equal(dropped, 70);
  for (const id of keep) assert.ok(s.messages.has(id));
  assert.ok(s.messages.has(100));
  assert.ok(!s.messages.has(4));
  // unread state is kept apart from the cache: message 4 is gone from it but still unread
  assert.ok(s.unread.has(4));
  assert.equal(unreadSummary(s).channels.get(12), 2);
});

test("a realm_user event with custom_profile_field updates and clears profile_data", () => {
  const s = createStore(initial());
  applyEvent(s, { type: "realm_user", op: "update", person: { user_id: 5, custom_profile_field: { id: 2, value: "he/him" } } });
  assert.deepEqual(s.users.get(5).profile_data, { 2: { value: "he/him", rendered_value: undefined } });
  applyEvent(s, { type: "realm_user", op: "update", person: { user_id: 5, custom_profile_field: { id: 2, value: null } } });
  assert.deepEqual(s.users.get(5).profile_data, {});
});
