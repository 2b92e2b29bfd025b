// Unit tests of the feature modules' pure logic (src/web/client/f_logic.js): emoji codepoints,
// index and search ranking, presence normalising and ageing, user ordering and filtering,
// settings diffing and event application, slugs, roles, local time, profile field values.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ACTIVE_WINDOW_SECS,
  applyRealmEvent,
  applyUserSettingsEvent,
  buildEmojiIndex,
  diffSettings,
  emojiCodeToText,
  localTimeIn,
  mergePresence,
  normalizePresence,
  popularEmoji,
  presenceEventUpdates,
  presencesFromRegister,
  presenceStatus,
  profileFieldText,
  roleName,
  searchEmoji,
  sortUsers,
  themeFor,
  userMatches,
  userSlug,
} from "../../../src/web/client/f_logic.js";

const TABLE = {
  "1f44d": ["+1", "thumbs_up", "like"],
  "1f44e": ["-1", "thumbs_down"],
  "1f389": ["tada"],
  "1f642": ["slight_smile"],
  "2764": ["heart", "love", "love_you"],
  "1f600": ["grinning", "happy"],
  "1f1fa-1f1f8": ["flag_united_states"],
  "1f3d3": ["ping_pong"],
  "1f38a": ["party_ball"],
};
const REALM = {
  7: { id: "7", name: "party_parrot", source_url: "/user_avatars/2/emoji/images/7.png", deactivated: false },
  8: { id: "8", name: "gone", source_url: "/x.png", deactivated: true },
  9: { id: "9", name: "tada", source_url: "/tada.png", deactivated: false },
};

test("emoji codes become text, bad codes become nothing", () => {
  assert.equal(emojiCodeToText("1f44d"), "\u{1f44d}");
  assert.equal(emojiCodeToText("1f1fa-1f1f8"), "\u{1f1fa}\u{1f1f8}");
  assert.equal(emojiCodeToText("0023-20e3"), "#\u20e3");
  assert.equal(emojiCodeToText("zzz"), "");
  assert.equal(emojiCodeToText("110000"), "");
  assert.equal(emojiCodeToText(undefined), "");
});

test("the index lists active custom emoji first, shadows built-in names, drops deactivated ones", () => {
  const index = buildEmojiIndex(TABLE, REALM);
  assert.deepEqual(
    index.slice(0, 2).map((e) => [e.emoji_name, e.reaction_type, e.emoji_code]),
    [
      ["party_parrot", "realm_emoji", "7"],
      ["tada", "realm_emoji", "9"],
    ],
  );
  assert.ok(!index.some((e) => e.emoji_name === "gone"));
  assert.ok(!index.some((e) => e.reaction_type === "unicode_emoji" && e.names.includes("tada")));
  // Smileys come before other Unicode emoji.
  const unicode = index.filter((e) => e.reaction_type === "unicode_emoji");
  assert.equal(unicode[0].emoji_code, "1f600");
  assert.equal(index.find((e) => e.emoji_code === "1f44d").emoji_name, "+1");
});

test("popular emoji come in upstream's order and skip what is missing", () => {
  const index = buildEmojiIndex(TABLE, {});
  assert.deepEqual(popularEmoji(index).map((e) => e.emoji_code), ["1f44d", "1f389", "1f642", "2764"]);
});

test("search ranks exact, prefix, word prefix, then substring, and names the alias that matched", () => {
  const index = buildEmojiIndex(TABLE, REALM);
  assert.deepEqual(searchEmoji(index, "thumbs").map((e) => e.emoji_name), ["thumbs_up", "thumbs_down"]);
  assert.deepEqual(searchEmoji(index, "+1").map((e) => [e.emoji_name, e.emoji_code]), [["+1", "1f44d"]]);
  assert.deepEqual(searchEmoji(index, "like")[0].emoji_code, "1f44d");
  assert.deepEqual(searchEmoji(index, "pa").map((e) => e.emoji_name), ["party_ball", "party_parrot"]);
  assert.deepEqual(searchEmoji(index, "ong").map((e) => e.emoji_name), ["ping_pong"]);
  assert.deepEqual(searchEmoji(index, "pong").map((e) => e.emoji_name), ["ping_pong"]);
  assert.deepEqual(searchEmoji(index, "united states").map((e) => e.emoji_name), ["flag_united_states"]);
  assert.deepEqual(searchEmoji(index, ":heart:").map((e) => e.emoji_name), ["heart"]);
  assert.equal(searchEmoji(index, "TADA")[0].reaction_type, "realm_emoji");
  assert.deepEqual(searchEmoji(index, "nothing-like-this"), []);
  assert.equal(searchEmoji(index, "").length, index.length);
  assert.equal(searchEmoji(index, "a", 2).length, 2);
  // Each emoji once even when several aliases match.
  assert.equal(searchEmoji(index, "lo").filter((e) => e.emoji_code === "2764").length, 1);
});

test("presence in both register formats normalises to active and idle timestamps", () => {
  assert.deepEqual(
    normalizePresence({
      aggregated: { client: "website", status: "active", timestamp: 100 },
      website: { client: "website", status: "active", timestamp: 100, pushable: false },
      ZulipMobile: { client: "ZulipMobile", status: "idle", timestamp: 150, pushable: false },
    }),
    { active_timestamp: 100, idle_timestamp: 150 },
  );
  assert.deepEqual(normalizePresence({ active_timestamp: 5, idle_timestamp: 9 }), { active_timestamp: 5, idle_timestamp: 9 });
  assert.deepEqual(normalizePresence(null), { active_timestamp: 0, idle_timestamp: 0 });
  const map = presencesFromRegister(
    { "a@x": { website: { status: "idle", timestamp: 10 } }, 12: { active_timestamp: 20, idle_timestamp: 20 }, "who@x": {} },
    (email) => (email === "a@x" ? 3 : null),
  );
  assert.deepEqual([...map.entries()], [
    [12, { active_timestamp: 20, idle_timestamp: 20 }],
    [3, { active_timestamp: 0, idle_timestamp: 10 }],
  ]);
});

test("presence events of both formats give updates that only move forward", () => {
  const legacy = presenceEventUpdates({
    type: "presence",
    user_id: 4,
    email: "h@x",
    server_timestamp: 50,
    presence: { website: { client: "website", status: "active", timestamp: 50, pushable: false } },
  });
  assert.deepEqual(legacy, [[4, { active_timestamp: 50, idle_timestamp: 50 }]]);
  const modern = presenceEventUpdates({ type: "presence", presences: { 9: { active_timestamp: 1, idle_timestamp: 2 } } });
  assert.deepEqual(modern, [[9, { active_timestamp: 1, idle_timestamp: 2 }]]);
  assert.deepEqual(presenceEventUpdates({ type: "presence" }), []);
  assert.deepEqual(mergePresence({ active_timestamp: 60, idle_timestamp: 70 }, { active_timestamp: 50, idle_timestamp: 80 }), {
    active_timestamp: 60,
    idle_timestamp: 80,
  });
});

test("presence ages: active within 140 s, idle until the offline threshold, then offline", () => {
  const now = 10_000;
  const active = { active_timestamp: now - ACTIVE_WINDOW_SECS, idle_timestamp: now - ACTIVE_WINDOW_SECS };
  assert.equal(ACTIVE_WINDOW_SECS, 140);
  assert.equal(presenceStatus(active, now, 200), "active");
  assert.equal(presenceStatus(active, now + 1, 200), "idle");
  assert.equal(presenceStatus(active, now + 60, 200), "idle");
  assert.equal(presenceStatus(active, now + 61, 200), "offline");
  const idleOnly = { active_timestamp: 0, idle_timestamp: now - 10 };
  assert.equal(presenceStatus(idleOnly, now, 200), "idle");
  assert.equal(presenceStatus(undefined, now, 200), "offline");
  // A threshold below the active window: active for the whole window, then offline at once.
  assert.equal(presenceStatus(active, now, 60), "active");
  assert.equal(presenceStatus(active, now + 1, 60), "offline");
});

test("users sort active first, then idle, then offline, each by name", () => {
  const users = [
    { user_id: 1, full_name: "zed" },
    { user_id: 2, full_name: "Amy" },
    { user_id: 3, full_name: "bob" },
    { user_id: 4, full_name: "Carl" },
    { user_id: 5, full_name: "amy" },
  ];
  const status = { 1: "active", 2: "offline", 3: "idle", 4: "active", 5: "offline" };
  const sorted = sortUsers(users, (u) => status[u.user_id]);
  assert.deepEqual(sorted.map((x) => x.user.user_id), [4, 1, 3, 2, 5]);
  assert.deepEqual(sorted.map((x) => x.status), ["active", "active", "idle", "offline", "offline"]);
});

test("user filter matches name and email, case-insensitively", () => {
  const user = { full_name: "King Hamlet", email: "hamlet@example.com" };
  assert.ok(userMatches(user, ""));
  assert.ok(userMatches(user, "ham"));
  assert.ok(userMatches(user, "KING h"));
  assert.ok(userMatches(user, "example.com"));
  assert.ok(!userMatches(user, "othello"));
});

test("settings diff keeps only changed values, compared by value", () => {
  assert.deepEqual(diffSettings({ a: 1, b: "x", c: { new: 3 } }, { a: 1, b: "y", c: { new: 3 } }), { b: "y" });
  assert.deepEqual(diffSettings({ a: 1 }, { a: 1, d: false }), { d: false });
  assert.deepEqual(diffSettings({ a: null }, { a: "unlimited" }), { a: "unlimited" });
  assert.deepEqual(diffSettings({}, {}), {});
});

test("user_settings and realm events update copies without touching the originals", () => {
  const settings = { color_scheme: 1, enter_sends: false };
  const next = applyUserSettingsEvent(settings, { type: "user_settings", op: "update", property: "color_scheme", value: 2 });
  assert.deepEqual(next, { color_scheme: 2, enter_sends: false });
  assert.equal(settings.color_scheme, 1);
  assert.deepEqual(
    applyUserSettingsEvent(settings, { type: "update_display_settings", setting_name: "enter_sends", setting: true }),
    { color_scheme: 1, enter_sends: true },
  );
  assert.equal(applyUserSettingsEvent(settings, { type: "user_settings", op: "other" }), settings);
  const realm = { name: "Old", description: "" };
  assert.deepEqual(applyRealmEvent(realm, { type: "realm", op: "update_dict", property: "default", data: { name: "New" } }), {
    name: "New",
    description: "",
  });
  assert.deepEqual(applyRealmEvent(realm, { type: "realm", op: "update", property: "description", value: "d" }), {
    name: "Old",
    description: "d",
  });
  assert.equal(realm.name, "Old");
});

test("color_scheme maps to a theme", () => {
  assert.equal(themeFor(2, false), "dark");
  assert.equal(themeFor(3, true), "light");
  assert.equal(themeFor(1, true), "dark");
  assert.equal(themeFor(1, false), "light");
  assert.equal(themeFor("2", false), "dark");
});

test("slugs, roles, local time and profile field values", () => {
  assert.equal(userSlug({ user_id: 5, full_name: "Othello Moor" }), "5-Othello-Moor");
  assert.equal(userSlug({ user_id: 6, full_name: "  Ünïcode & co. " }), "6-Ünïcode-co");
  assert.equal(userSlug({ user_id: 7, full_name: "!!!" }), "7");
  assert.deepEqual([100, 200, 300, 400, 600].map((role) => roleName({ role })), ["Owner", "Administrator", "Moderator", "Member", "Guest"]);
  assert.equal(roleName({ role: 400, is_bot: true }), "Bot");
  const noon = new Date(Date.UTC(2026, 0, 15, 12, 5));
  assert.equal(localTimeIn("Europe/Copenhagen", noon, true), "13:05");
  assert.equal(localTimeIn("Europe/Copenhagen", noon, false), "1:05 PM");
  assert.equal(localTimeIn("Not/AZone", noon, true), null);
  assert.equal(localTimeIn("", noon, true), null);
  const select = { type: 3, field_data: JSON.stringify({ 0: { text: "Vim", order: "1" }, 1: { text: "Emacs", order: "2" } }) };
  assert.equal(profileFieldText(select, "1", () => null), "Emacs");
  const users = { type: 6, field_data: "" };
  assert.equal(profileFieldText(users, "[3,4]", (id) => ({ 3: "Iago", 4: "Hamlet" })[id]), "Iago, Hamlet");
  assert.equal(profileFieldText({ type: 1 }, "he/him", () => null), "he/him");
  assert.equal(profileFieldText({ type: 1 }, "", () => null), "");
});

test("settings sections: ours, bare personal names and upstream's hash names", async () => {
  const { parseSection } = await import("../../../src/web/client/settings.js");
  assert.deepEqual(parseSection("settings/account"), { area: "settings", name: "account" });
  assert.deepEqual(parseSection("#settings/preferences"), { area: "settings", name: "preferences" });
  assert.deepEqual(parseSection("profile"), { area: "settings", name: "profile" });
  assert.deepEqual(parseSection("organization/profile"), { area: "organization", name: "profile" });
  assert.deepEqual(parseSection("organization"), { area: "organization", name: "profile" });
  assert.deepEqual(parseSection("organization/organization-profile"), { area: "organization", name: "profile" });
  assert.deepEqual(parseSection("organization/organization-permissions"), { area: "organization", name: "permissions" });
  assert.deepEqual(parseSection("organization/emoji-settings"), { area: "organization", name: "emoji" });
  assert.deepEqual(parseSection("organization/user-list-admin"), { area: "organization", name: "users" });
  assert.deepEqual(parseSection("settings/account-and-privacy"), { area: "settings", name: "account" });
  assert.deepEqual(parseSection("invites"), { area: "organization", name: "invites" });
  assert.deepEqual(parseSection("settings/nonsense"), { area: "settings", name: "nonsense" });
});
