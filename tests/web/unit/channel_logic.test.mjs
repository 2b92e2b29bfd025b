// Channel rules (src/web/client/channel_logic.js): effective notification switches, the
// "Browse channels" list and new channel names, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { browseList, channelNameError, subscriptionSetting } from "../../../src/web/client/channel_logic.js";

test("a null notification setting follows the user's default; true/false win", () => {
  const settings = { enable_stream_desktop_notifications: true, enable_stream_email_notifications: false };
  assert.equal(subscriptionSetting({ desktop_notifications: null }, "desktop_notifications", settings), true);
  assert.equal(subscriptionSetting({ desktop_notifications: false }, "desktop_notifications", settings), false);
  assert.equal(subscriptionSetting({ email_notifications: null }, "email_notifications", settings), false);
  assert.equal(subscriptionSetting({ push_notifications: true }, "push_notifications", {}), true);
});

test("browse list: archived left out, filtered by name or description, sorted, subscribed marked", () => {
  const streams = [
    { stream_id: 2, name: "zeta", description: "last" },
    { stream_id: 1, name: "Alpha", description: "lunch talk" },
    { stream_id: 3, name: "old", is_archived: true },
  ];
  const subs = new Map([[2, {}]]);
  assert.deepEqual(browseList(streams, subs).map((s) => [s.name, s.subscribed]), [["Alpha", false], ["zeta", true]]);
  assert.deepEqual(browseList(streams, subs, "LUNCH").map((s) => s.name), ["Alpha"]);
  assert.deepEqual(browseList(streams, subs, "nothing"), []);
});

test("new channel names: empty, too long, control characters and duplicates are refused", () => {
  const streams = [{ name: "General" }];
  assert.match(channelNameError("  ", streams), /Enter/);
  assert.match(channelNameError("x".repeat(61), streams), /at most 60/);
  assert.match(channelNameError("a\u0007b", streams), /control/);
  assert.match(channelNameError("general", streams), /already exists/);
  assert.equal(channelNameError("design", streams), null);
});
