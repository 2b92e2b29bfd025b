// Pure logic of the feature modules (emoji picker, user list, profile card, settings): emoji
// indexing and search ranking, presence ageing, user ordering, settings diffing. No DOM, no
// network, no globals, so that `node --test` can exercise it (tests/web/unit/features_*.test.mjs).

/** Zulip's "popular" emoji, shown first in the picker (as upstream's web app does). */
export const POPULAR_EMOJI_CODES = ["1f44d", "1f389", "1f642", "2764", "1f6e0", "1f419"];

/** The text of a Unicode emoji from Zulip's emoji_code ("1f44d", "1f1fa-1f1f8"); "" if bad. */
export function emojiCodeToText(code) {
  if (typeof code !== "string" || !/^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/i.test(code)) return "";
  try {
    return String.fromCodePoint(...code.split("-").map((part) => parseInt(part, 16)));
  } catch {
    return "";
  }
}

/**
 * Builds the picker's index from the server's `code_to_names` table and the realm's emoji
 * (register's `realm_emoji`: id -> {name, source_url, deactivated, ...}). Each entry:
 * {emoji_name (canonical), names (canonical first), emoji_code, reaction_type, source_url?}.
 * Custom emoji come first (they shadow built-in names, as on the server), then smileys, then
 * the rest in code order.
 */
export function buildEmojiIndex(codeToNames, realmEmoji) {
  const custom = [];
  const shadowed = new Set();
  for (const [id, emoji] of Object.entries(realmEmoji || {})) {
    if (!emoji || emoji.deactivated) continue;
    shadowed.add(emoji.name);
    custom.push({
      emoji_name: emoji.name,
      names: [emoji.name],
      emoji_code: String(emoji.id ?? id),
      reaction_type: "realm_emoji",
      source_url: emoji.source_url,
      still_url: emoji.still_url || null,
    });
  }
  custom.sort((a, b) => a.emoji_name.localeCompare(b.emoji_name));
  const unicode = [];
  for (const [code, rawNames] of Object.entries(codeToNames || {})) {
    const names = (rawNames || []).filter((name) => !shadowed.has(name));
    if (names.length === 0) continue;
    unicode.push({ emoji_name: names[0], names, emoji_code: code, reaction_type: "unicode_emoji" });
  }
  const smiley = (code) => {
    const first = parseInt(code.split("-")[0], 16);
    return (first >= 0x1f600 && first <= 0x1f64f) || (first >= 0x1f910 && first <= 0x1f92f);
  };
  unicode.sort((a, b) => {
    const sa = smiley(a.emoji_code) ? 0 : 1;
    const sb = smiley(b.emoji_code) ? 0 : 1;
    if (sa !== sb) return sa - sb;
    return a.emoji_code < b.emoji_code ? -1 : a.emoji_code > b.emoji_code ? 1 : 0;
  });
  return [...custom, ...unicode];
}

/** The popular entries of an index, in POPULAR_EMOJI_CODES order. */
export function popularEmoji(index) {
  const byCode = new Map(index.filter((e) => e.reaction_type === "unicode_emoji").map((e) => [e.emoji_code, e]));
  return POPULAR_EMOJI_CODES.map((code) => byCode.get(code)).filter(Boolean);
}

function matchRank(name, query) {
  if (name === query) return 0;
  if (name.startsWith(query)) return 1;
  // The start of a word inside the name ("up" in "thumbs_up").
  if (name.split(/[_-]/).some((word, i) => i > 0 && word.startsWith(query))) return 2;
  if (name.includes(query)) return 3;
  return -1;
}

/**
 * Searches the index by name and alias. Returns entries whose `emoji_name` is the alias that
 * matched best (so a search for "thumbs" offers "thumbs_up"), ranked: exact, prefix, word
 * prefix, substring; ties by shorter name, then index order. Each emoji appears once.
 * An empty query returns the index unchanged. At most `limit` results.
 */
export function searchEmoji(index, query, limit = 500) {
  const q = String(query || "").trim().toLowerCase().replace(/^:|:$/g, "").replace(/ /g, "_");
  if (!q) return index.slice(0, limit);
  const hits = [];
  index.forEach((entry, position) => {
    let best = null;
    for (const name of entry.names) {
      const rank = matchRank(name.toLowerCase(), q);
      if (rank < 0) continue;
      if (!best || rank < best.rank || (rank === best.rank && name.length < best.name.length)) {
        best = { rank, name };
      }
    }
    if (best) hits.push({ entry, rank: best.rank, name: best.name, position });
  });
  hits.sort((a, b) => a.rank - b.rank || a.name.length - b.name.length || a.position - b.position);
  return hits.slice(0, limit).map((hit) => ({ ...hit.entry, emoji_name: hit.name }));
}

/** Seconds a user counts as active after their last active report (upstream's web app: 140). */
export const ACTIVE_WINDOW_SECS = 140;

/**
 * Normalises one user's presence, in either of register's formats (legacy: per client
 * {status, timestamp} plus "aggregated"; modern: {active_timestamp, idle_timestamp}), to
 * {active_timestamp, idle_timestamp} (seconds, 0 when never).
 */
export function normalizePresence(raw) {
  if (!raw || typeof raw !== "object") return { active_timestamp: 0, idle_timestamp: 0 };
  if ("active_timestamp" in raw || "idle_timestamp" in raw) {
    return { active_timestamp: Number(raw.active_timestamp) || 0, idle_timestamp: Number(raw.idle_timestamp) || 0 };
  }
  let active = 0;
  let idle = 0;
  for (const info of Object.values(raw)) {
    if (!info || typeof info !== "object") continue;
    const ts = Number(info.timestamp) || 0;
    if (info.status === "active") active = Math.max(active, ts);
    idle = Math.max(idle, ts);
  }
  return { active_timestamp: active, idle_timestamp: idle };
}

/** Merges a newer presence report into an older one (timestamps only move forward). */
export function mergePresence(old, update) {
  const a = old || { active_timestamp: 0, idle_timestamp: 0 };
  return {
    active_timestamp: Math.max(a.active_timestamp, update.active_timestamp),
    idle_timestamp: Math.max(a.idle_timestamp, update.idle_timestamp),
  };
}

/**
 * Register's `presences` (keyed by email in the legacy format, by user id in the modern one)
 * as a Map user_id -> {active_timestamp, idle_timestamp}. `emailToId` resolves legacy keys.
 */
export function presencesFromRegister(presences, emailToId) {
  const out = new Map();
  for (const [key, raw] of Object.entries(presences || {})) {
    const id = /^\d+$/.test(key) ? Number(key) : emailToId(key);
    if (id == null) continue;
    out.set(id, normalizePresence(raw));
  }
  return out;
}

/**
 * The updates a `presence` event carries, as [user_id, {active_timestamp, idle_timestamp}]
 * pairs: legacy events ({user_id, presence: {client: {...}}}) and modern ones
 * ({presences: {user_id: {...}}}).
 */
export function presenceEventUpdates(event) {
  if (!event) return [];
  if (event.presences && typeof event.presences === "object") {
    return Object.entries(event.presences).map(([id, raw]) => [Number(id), normalizePresence(raw)]);
  }
  if (event.user_id != null && event.presence) {
    return [[Number(event.user_id), normalizePresence(event.presence)]];
  }
  return [];
}

/**
 * "active" when the last active report is within ACTIVE_WINDOW_SECS, "idle" when any report is
 * within `offlineAfter` seconds (the server's presence offline threshold), else "offline".
 */
export function presenceStatus(presence, nowSecs, offlineAfter = ACTIVE_WINDOW_SECS) {
  if (!presence) return "offline";
  const activeWindow = Math.max(ACTIVE_WINDOW_SECS, 0);
  if (presence.active_timestamp && nowSecs - presence.active_timestamp <= activeWindow) return "active";
  const last = Math.max(presence.active_timestamp || 0, presence.idle_timestamp || 0);
  if (last && nowSecs - last <= Math.max(offlineAfter, activeWindow)) return "idle";
  return "offline";
}

const STATUS_ORDER = { active: 0, idle: 1, offline: 2 };

/**
 * Orders users for the user list: active, then idle, then offline; within each by full name
 * (case-insensitive), then user id. `statusOf(user)` gives the presence status.
 */
let collator = null;
export function sortUsers(users, statusOf) {
  if (!collator) collator = new Intl.Collator(undefined, { sensitivity: "base" });
  return [...users]
    .map((user) => ({ user, status: statusOf(user) }))
    .sort(
      (a, b) =>
        STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
        collator.compare(a.user.full_name || "", b.user.full_name || "") ||
        a.user.user_id - b.user.user_id,
    );
}

/** Does the user match a user-list filter text (any word of name or email starts with it)? */
export function userMatches(user, filter) {
  const q = String(filter || "").trim().toLowerCase();
  if (!q) return true;
  const name = (user.full_name || "").toLowerCase();
  const email = (user.delivery_email || user.email || "").toLowerCase();
  return name.includes(q) || email.includes(q);
}

/**
 * The fields of `current` that differ from `original` (by JSON value), as a new object; keys
 * only in `current` count as changed. Used to send only what a form changed.
 */
export function diffSettings(original, current) {
  const changed = {};
  for (const [key, value] of Object.entries(current || {})) {
    if (JSON.stringify(value) !== JSON.stringify((original || {})[key])) changed[key] = value;
  }
  return changed;
}

/** Applies a `user_settings` (op update) or legacy update_display_settings/update_global_notifications event. */
export function applyUserSettingsEvent(settings, event) {
  if (!event) return settings;
  if (event.type === "user_settings" && event.op === "update") {
    return { ...settings, [event.property]: event.value };
  }
  if (event.type === "update_display_settings" || event.type === "update_global_notifications") {
    const key = event.setting_name || event.notification_name;
    if (key) return { ...settings, [key]: event.setting };
  }
  return settings;
}

/** Applies a `realm` event (op update or update_dict) to a map of realm settings (keys without "realm_"). */
export function applyRealmEvent(realm, event) {
  if (!event || event.type !== "realm") return realm;
  if (event.op === "update") return { ...realm, [event.property]: event.value };
  if (event.op === "update_dict" && event.data) return { ...realm, ...event.data };
  return realm;
}

/** The `data-theme` for a color_scheme (1 automatic, 2 dark, 3 light) given the OS preference. */
export function themeFor(colorScheme, prefersDark) {
  if (Number(colorScheme) === 2) return "dark";
  if (Number(colorScheme) === 3) return "light";
  return prefersDark ? "dark" : "light";
}

/** A Zulip narrow slug for a user ("5-Othello-Moor"), as upstream's hash links spell them. */
export function userSlug(user) {
  const name = String(user.full_name || "")
    .trim()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return name ? `${user.user_id}-${name}` : String(user.user_id);
}

/** Role names as Zulip shows them. */
export function roleName(user) {
  if (user.is_bot) return "Bot";
  switch (Number(user.role)) {
    case 100:
      return "Owner";
    case 200:
      return "Administrator";
    case 300:
      return "Moderator";
    case 600:
      return "Guest";
    default:
      return "Member";
  }
}

/** Local time in a time zone as text ("14:05" or "2:05 PM"); null if the zone is unknown. */
export function localTimeIn(timezone, date, twentyFour) {
  if (!timezone) return null;
  try {
    return new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hour: "numeric",
      minute: "2-digit",
      hour12: !twentyFour,
    }).format(date);
  } catch {
    return null;
  }
}

/**
 * Display text of a custom profile field value. `field` is one of register's
 * custom_profile_fields, `value` the stored string; `nameOf(id)` names users.
 */
export function profileFieldText(field, value, nameOf) {
  if (value == null || value === "") return "";
  switch (Number(field.type)) {
    case 3: {
      // SELECT: field_data maps option keys to {text, order}.
      try {
        const options = JSON.parse(field.field_data || "{}");
        return options[value]?.text ?? String(value);
      } catch {
        return String(value);
      }
    }
    case 6: {
      // USER: a JSON list of user ids.
      try {
        const ids = Array.isArray(value) ? value : JSON.parse(value);
        return ids.map((id) => nameOf(Number(id)) || `user ${id}`).join(", ");
      } catch {
        return String(value);
      }
    }
    default:
      return String(value);
  }
}
