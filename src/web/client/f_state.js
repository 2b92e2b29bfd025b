// Live state the feature modules share and the core client does not keep: presence, user
// statuses, realm emoji, the user's settings, realm settings, custom profile fields and
// deactivated users. Built once per ctx from ctx.initial (register) and kept current by
// ctx.onEvent; listeners are told of changes by kind ("presence", "user_status", ...).
import {
  applyRealmEvent,
  applyUserSettingsEvent,
  mergePresence,
  presenceEventUpdates,
  presenceStatus,
  presencesFromRegister,
} from "./f_logic.js";

const states = new WeakMap();

/** Presence status of a user as the feature modules show it (the viewer counts as active). */
export function userPresence(ctx, user, nowSecs = Date.now() / 1000) {
  const state = featureState(ctx);
  if (ctx.me && user.user_id === ctx.me.user_id && state.settings.presence_enabled !== false) return "active";
  return presenceStatus(state.presence.get(user.user_id), nowSecs, state.offlineAfter);
}

/** The shared feature state of a ctx (created and subscribed on first use). */
export function featureState(ctx) {
  let state = states.get(ctx);
  if (!state) {
    state = createState(ctx);
    states.set(ctx, state);
  }
  return state;
}

function createState(ctx) {
  const initial = ctx.initial || {};
  const listeners = new Set();
  const emailToId = (email) => {
    for (const user of ctx.users.values()) if (user.email === email) return user.user_id;
    return null;
  };
  const realm = {};
  for (const [key, value] of Object.entries(initial)) {
    if (key.startsWith("realm_")) realm[key.slice("realm_".length)] = value;
  }
  const state = {
    presence: presencesFromRegister(initial.presences, emailToId),
    offlineAfter: Number(initial.server_presence_offline_threshold_seconds) || 140,
    statuses: new Map(Object.entries(initial.user_status || {}).map(([id, s]) => [Number(id), { ...s }])),
    realmEmoji: { ...(initial.realm_emoji || {}) },
    settings: { ...(initial.user_settings || {}) },
    realm,
    profileFields: [...(initial.custom_profile_fields || [])],
    nonActive: new Map((initial.realm_non_active_users || []).map((u) => [u.user_id, { ...u }])),
    /** Calls `fn(kind)` after each change; returns an unsubscribe function. */
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
  const notify = (kind) => {
    for (const fn of [...listeners]) {
      try {
        fn(kind);
      } catch (err) {
        console.error(err);
      }
    }
  };
  ctx.onEvent("presence", (event) => {
    for (const [id, update] of presenceEventUpdates(event)) {
      state.presence.set(id, mergePresence(state.presence.get(id), update));
    }
    notify("presence");
  });
  ctx.onEvent("user_status", (event) => {
    const id = Number(event.user_id);
    const status = { ...(state.statuses.get(id) || {}) };
    for (const key of ["away", "status_text", "emoji_name", "emoji_code", "reaction_type"]) {
      if (key in event) status[key] = event[key];
    }
    if (!status.status_text) delete status.status_text;
    if (!status.emoji_name) {
      delete status.emoji_name;
      delete status.emoji_code;
      delete status.reaction_type;
    }
    state.statuses.set(id, status);
    notify("user_status");
  });
  ctx.onEvent("realm_emoji", (event) => {
    if (event.realm_emoji) state.realmEmoji = { ...event.realm_emoji };
    notify("realm_emoji");
  });
  const onSettings = (event) => {
    state.settings = applyUserSettingsEvent(state.settings, event);
    notify("user_settings");
  };
  ctx.onEvent("user_settings", onSettings);
  ctx.onEvent("update_display_settings", onSettings);
  ctx.onEvent("update_global_notifications", onSettings);
  ctx.onEvent("realm", (event) => {
    state.realm = applyRealmEvent(state.realm, event);
    notify("realm");
  });
  ctx.onEvent("custom_profile_fields", (event) => {
    if (Array.isArray(event.fields)) state.profileFields = [...event.fields];
    notify("custom_profile_fields");
  });
  ctx.onEvent("realm_user", (event) => {
    // ctx.users is the core's; remember deactivated people for organization/users.
    const person = event.person || {};
    if (event.op === "update" && person.is_active === false) {
      const user = ctx.users.get(person.user_id) || state.nonActive.get(person.user_id);
      if (user) state.nonActive.set(person.user_id, { ...user, is_active: false });
    } else if (event.op === "update" && person.is_active === true) {
      state.nonActive.delete(person.user_id);
    } else if (event.op === "remove") {
      const user = ctx.users.get(person.user_id);
      if (user) state.nonActive.set(person.user_id, { ...user, is_active: false });
    } else if (event.op === "add") {
      state.nonActive.delete(person.user_id);
    }
    // Let the core update ctx.users first (its handler may run after ours).
    queueMicrotask(() => notify("realm_user"));
  });
  return state;
}
