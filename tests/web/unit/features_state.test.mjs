// Unit tests of the feature modules' shared live state (src/web/client/f_state.js) with a fake
// ctx: register's initial values, then presence, user_status, realm_emoji, user_settings,
// realm and realm_user events as the core's event loop hands them over.
import { test } from "node:test";
import assert from "node:assert/strict";
import { featureState, userPresence } from "../../../src/web/client/f_state.js";

function fakeCtx(initial) {
  const handlers = new Map();
  const users = new Map((initial.realm_users || []).map((u) => [u.user_id, u]));
  return {
    initial,
    me: { user_id: 3 },
    users,
    onEvent(type, fn) {
      if (!handlers.has(type)) handlers.set(type, []);
      handlers.get(type).push(fn);
      return () => {};
    },
    emit(event) {
      for (const fn of handlers.get(event.type) || []) fn(event);
    },
  };
}

const NOW = 1_800_000_000;
const initial = {
  realm_users: [
    { user_id: 3, email: "iago@x", full_name: "Iago", is_active: true },
    { user_id: 4, email: "hamlet@x", full_name: "Hamlet", is_active: true },
    { user_id: 5, email: "othello@x", full_name: "Othello", is_active: true },
  ],
  realm_non_active_users: [{ user_id: 9, email: "gone@x", full_name: "Gone", is_active: false }],
  presences: { "hamlet@x": { website: { client: "website", status: "active", timestamp: NOW - 30, pushable: false } } },
  server_presence_offline_threshold_seconds: 200,
  user_status: { 4: { status_text: "Lunch", emoji_name: "pizza", emoji_code: "1f355", reaction_type: "unicode_emoji" } },
  realm_emoji: { 1: { id: "1", name: "parrot", source_url: "/p.png", deactivated: false } },
  user_settings: { color_scheme: 1, presence_enabled: true },
  realm_name: "Org",
  realm_description: "",
};

test("state starts from register and follows events; listeners hear of each kind", async () => {
  const ctx = fakeCtx(structuredClone(initial));
  const state = featureState(ctx);
  assert.equal(featureState(ctx), state, "one state per ctx");
  const heard = [];
  state.subscribe((kind) => heard.push(kind));

  // Presence: legacy keys by email; the viewer is always active; ageing by time.
  const hamlet = ctx.users.get(4);
  const othello = ctx.users.get(5);
  assert.equal(userPresence(ctx, hamlet, NOW), "active");
  assert.equal(userPresence(ctx, hamlet, NOW + 150), "idle");
  assert.equal(userPresence(ctx, hamlet, NOW + 400), "offline");
  assert.equal(userPresence(ctx, othello, NOW), "offline");
  assert.equal(userPresence(ctx, ctx.users.get(3), NOW + 10_000), "active");
  ctx.emit({
    type: "presence",
    user_id: 5,
    email: "othello@x",
    server_timestamp: NOW,
    presence: { website: { client: "website", status: "idle", timestamp: NOW, pushable: false } },
  });
  assert.equal(userPresence(ctx, othello, NOW + 5), "idle");
  ctx.emit({ type: "presence", presences: { 5: { active_timestamp: NOW + 10, idle_timestamp: NOW + 10 } } });
  assert.equal(userPresence(ctx, othello, NOW + 20), "active");

  // Status: partial updates merge; clearing the text removes it.
  ctx.emit({ type: "user_status", user_id: 4, status_text: "" });
  assert.deepEqual(state.statuses.get(4), { emoji_name: "pizza", emoji_code: "1f355", reaction_type: "unicode_emoji" });
  ctx.emit({ type: "user_status", user_id: 4, emoji_name: "", emoji_code: "", reaction_type: "" });
  assert.deepEqual(state.statuses.get(4), {});

  ctx.emit({ type: "realm_emoji", op: "update", realm_emoji: { 2: { id: "2", name: "cat", source_url: "/c.png", deactivated: false } } });
  assert.deepEqual(Object.keys(state.realmEmoji), ["2"]);

  ctx.emit({ type: "user_settings", op: "update", property: "color_scheme", value: 2 });
  assert.equal(state.settings.color_scheme, 2);
  assert.equal(ctx.initial.user_settings.color_scheme, 1, "ctx.initial is kept as received");

  ctx.emit({ type: "realm", op: "update_dict", property: "default", data: { name: "New org" } });
  assert.equal(state.realm.name, "New org");

  // Deactivation moves a user to the non-active map; reactivation takes them out.
  assert.ok(state.nonActive.has(9));
  ctx.emit({ type: "realm_user", op: "update", person: { user_id: 5, is_active: false } });
  assert.equal(state.nonActive.get(5).full_name, "Othello");
  ctx.emit({ type: "realm_user", op: "add", person: { user_id: 5, full_name: "Othello", is_active: true } });
  assert.ok(!state.nonActive.has(5));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(heard, ["presence", "presence", "user_status", "user_status", "realm_emoji", "user_settings", "realm", "realm_user", "realm_user"]);
});

test("a viewer who hides their presence is shown by their reports like anyone else", () => {
  const ctx = fakeCtx({ ...structuredClone(initial), user_settings: { presence_enabled: false } });
  assert.equal(userPresence(ctx, ctx.users.get(3), NOW), "offline");
});
