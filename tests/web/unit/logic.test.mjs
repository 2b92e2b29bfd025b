// Small pure pieces of the client: event-loop back-off, typing throttle, upload and quote
// text, edit permission, notification choice, list grouping and row lookup, themes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nextDelay } from "../../../src/web/client/events.js";
import { quoteBlock, shouldSendStart, uploadLink } from "../../../src/web/client/compose.js";
import { canEdit } from "../../../src/web/client/message_actions.js";
import { wantsNotification, wantsSound } from "../../../src/web/client/notify.js";
import { rowAt, sameConversation } from "../../../src/web/client/message_list.js";
import { groupReactions } from "../../../src/web/client/render.js";

test("back-off doubles from 1 s to 30 s", () => {
  const seen = [];
  let d = 0;
  for (let i = 0; i < 8; i++) seen.push((d = nextDelay(d)));
  assert.deepEqual(seen, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test("typing start is sent at most every 10 s", () => {
  assert.equal(shouldSendStart(0, 1000), true);
  assert.equal(shouldSendStart(1000, 5000), false);
  assert.equal(shouldSendStart(1000, 11000), true);
});

test("upload links and quote blocks", () => {
  assert.equal(uploadLink("a [b].png", "/user_uploads/1/x/a.png"), "[a \\[b\\].png](/user_uploads/1/x/a.png)");
  assert.equal(quoteBlock("Iago", "hi", "#narrow/near/3"), "@_**Iago** [said](#narrow/near/3):\n```quote\nhi\n```\n");
  assert.ok(quoteBlock("Iago", "```x```", "#").includes("````quote"));
});

test("editing is allowed to the sender within the limit", () => {
  const m = { sender_id: 1, timestamp: 1000 };
  assert.equal(canEdit(m, 1, { message_content_edit_limit_seconds: 600 }, 1500), true);
  assert.equal(canEdit(m, 1, { message_content_edit_limit_seconds: 600 }, 1700), false);
  assert.equal(canEdit(m, 1, { message_content_edit_limit_seconds: null }, 99999), true);
  assert.equal(canEdit(m, 2, { message_content_edit_limit_seconds: null }, 1001), false);
  assert.equal(canEdit(m, 1, { allow_message_editing: false }, 1001), false);
});

test("notifications only for DMs and mentions from others while hidden", () => {
  const dm = { type: "private", sender_id: 5 };
  const chan = { type: "stream", sender_id: 5 };
  assert.equal(wantsNotification(dm, [], 1, { hidden: true }), true);
  assert.equal(wantsNotification(dm, [], 1, { hidden: false }), false);
  assert.equal(wantsNotification(chan, [], 1, { hidden: true }), false);
  assert.equal(wantsNotification(chan, ["mentioned"], 1, { hidden: true }), true);
  assert.equal(wantsNotification(chan, ["mentioned"], 5, { hidden: true }), false);
  assert.equal(wantsNotification(dm, [], 1, { hidden: true, mutedUsers: new Set([5]) }), false);
});

test("grouping and the row under a scroll offset", () => {
  const a = { type: "stream", stream_id: 1, subject: "Lunch" };
  assert.equal(sameConversation(a, { type: "stream", stream_id: 1, subject: "lunch" }), true);
  assert.equal(sameConversation(a, { type: "stream", stream_id: 2, subject: "lunch" }), false);
  assert.equal(sameConversation(null, a), false);
  const tops = [0, 50, 100, 180, 200];
  assert.equal(rowAt(tops, 0), 0);
  assert.equal(rowAt(tops, 60), 1);
  assert.equal(rowAt(tops, 199), 3);
  assert.equal(rowAt(tops, 5000), 3);
  assert.equal(rowAt(tops, -10), 0);
});

test("reactions group by emoji with my own marked", () => {
  const g = groupReactions([
    { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji", user_id: 1 },
    { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji", user_id: 2 },
    { emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji", user_id: 2 },
  ], 1);
  assert.deepEqual(g.map((x) => [x.emoji_name, x.count, x.mine]), [["+1", 2, true], ["tada", 1, false]]);
});

test("themes follow color_scheme", async () => {
  const { themeFor } = await import("../../../src/web/client/theme.js");
  assert.equal(themeFor(2, false), "dark");
  assert.equal(themeFor(3, true), "light");
  assert.equal(themeFor(1, true), "dark");
  assert.equal(themeFor(1, false), "light");
});

test("channel notifications: a channel's desktop setting, followed topics, and muted topics", () => {
  const chan = { id: 2, type: "stream", sender_id: 5, stream_id: 12, subject: "x" };
  assert.equal(wantsNotification(chan, [], 1, { hidden: true, channelDesktop: true }), true);
  assert.equal(wantsNotification(chan, [], 1, { hidden: true, channelDesktop: true, topicMuted: true }), false);
  assert.equal(wantsNotification(chan, [], 1, { hidden: true, followedDesktop: true }), true);
  assert.equal(wantsNotification(chan, ["mentioned"], 1, { hidden: true, topicMuted: true }), true);
  assert.equal(wantsNotification(chan, [], 1, { hidden: false, channelDesktop: true }), false);
  assert.equal(wantsNotification(chan, [], 1, { hidden: true, channelDesktop: true, mutedUsers: new Set([5]) }), false);
});

test("sounds follow the audible settings while the window is not in use", () => {
  const dm = { type: "private", sender_id: 5 };
  const chan = { type: "stream", sender_id: 5 };
  const on = { unfocused: true, sound: "zulip", personalSounds: true };
  assert.equal(wantsSound(dm, [], 1, on), true);
  assert.equal(wantsSound(dm, [], 1, { ...on, unfocused: false }), false);
  assert.equal(wantsSound(dm, [], 1, { ...on, sound: "none" }), false);
  assert.equal(wantsSound(dm, [], 1, { ...on, personalSounds: false }), false);
  assert.equal(wantsSound(dm, [], 5, on), false);
  assert.equal(wantsSound(chan, [], 1, on), false);
  assert.equal(wantsSound(chan, ["mentioned"], 1, on), true);
  assert.equal(wantsSound(chan, [], 1, { ...on, channelAudible: true }), true);
  assert.equal(wantsSound(chan, [], 1, { ...on, channelAudible: true, topicMuted: true }), false);
  assert.equal(wantsSound(chan, [], 1, { ...on, followedAudible: true }), true);
  assert.equal(wantsSound(dm, [], 1, { ...on, mutedUsers: new Set([5]) }), false);
});
