// The client's state and the pure functions that change it: built from the register
// response, updated by each server event (applyEvent returns what changed so views can
// redraw), and queried for unread counts, topics and DM conversations. No DOM, no network.
import { dmKey, dmRecipients } from "./narrow.js";

const MENTION_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "wildcard_mentioned"];

export function isMentioned(flags) {
  return (flags || []).some((f) => MENTION_FLAGS.includes(f));
}

/** Builds the state from a register response. */
export function createStore(initial) {
  const me = initial.user_id;
  const s = {
    me,
    initial,
    messages: new Map(),
    unread: new Map(),
    subs: new Map(),
    streams: new Map(),
    users: new Map(),
    userTopics: new Map(),
    topics: new Map(),
    dms: new Map(),
    starred: new Set(initial.starred_messages || []),
    settings: { ...(initial.user_settings || {}) },
    realm: {},
    typing: new Map(),
    drafts: new Map(),
    mutedUsers: new Set((initial.muted_users || []).map((m) => m.id)),
  };
  for (const [k, v] of Object.entries(initial)) {
    if (k.startsWith("realm_")) s.realm[k.slice(6)] = v;
  }
  for (const st of initial.streams || []) s.streams.set(st.stream_id, st);
  for (const sub of initial.subscriptions || []) {
    s.subs.set(sub.stream_id, { ...sub });
    if (!s.streams.has(sub.stream_id)) s.streams.set(sub.stream_id, sub);
  }
  for (const u of [...(initial.realm_users || []), ...(initial.cross_realm_bots || [])]) s.users.set(u.user_id, { ...u });
  for (const u of initial.realm_non_active_users || []) s.users.set(u.user_id, { ...u });
  for (const t of initial.user_topics || []) setUserTopic(s, t);
  for (const d of initial.drafts || []) s.drafts.set(d.id, d);
  for (const c of initial.recent_private_conversations || []) {
    s.dms.set(dmKey(c.user_ids, me), c.max_message_id);
  }
  const u = initial.unread_msgs || {};
  const mentions = new Set(u.mentions || []);
  for (const e of u.streams || []) {
    for (const id of e.unread_message_ids) {
      s.unread.set(id, { stream_id: e.stream_id, topic: e.topic, mentioned: mentions.has(id) });
    }
  }
  for (const e of u.pms || []) {
    const other = e.other_user_id !== undefined ? e.other_user_id : e.sender_id;
    for (const id of e.unread_message_ids) s.unread.set(id, { dm: dmKey([other], me), mentioned: mentions.has(id) });
  }
  for (const e of u.huddles || []) {
    const ids = e.user_ids_string.split(",").map(Number);
    for (const id of e.unread_message_ids) s.unread.set(id, { dm: dmKey(ids, me), mentioned: mentions.has(id) });
  }
  for (const id of mentions) if (!s.unread.has(id)) s.unread.set(id, { mentioned: true });
  return s;
}

function topicKey(streamId, topic) {
  return `${streamId}:${String(topic).toLowerCase()}`;
}

function setUserTopic(s, t) {
  const key = topicKey(t.stream_id, t.topic_name);
  if (!t.visibility_policy) s.userTopics.delete(key);
  else s.userTopics.set(key, t.visibility_policy);
}

/** 0 none, 1 muted, 2 unmuted, 3 followed (upstream's visibility policies). */
export function topicPolicy(s, streamId, topic) {
  return s.userTopics.get(topicKey(streamId, topic)) || 0;
}

export function isTopicMuted(s, streamId, topic) {
  const policy = topicPolicy(s, streamId, topic);
  if (policy === 1) return true;
  if (policy === 2 || policy === 3) return false;
  const sub = s.subs.get(streamId);
  return !!(sub && sub.is_muted);
}

/** Records messages fetched from the server (keeps the newest copy). */
export function addMessages(s, messages) {
  for (const m of messages) {
    s.messages.set(m.id, m);
    noteMessage(s, m);
  }
}

function noteMessage(s, m) {
  if (m.type === "stream") {
    const list = s.topics.get(m.stream_id);
    if (list) {
      const found = list.find((t) => t.name.toLowerCase() === String(m.subject).toLowerCase());
      if (found) found.max_id = Math.max(found.max_id, m.id);
      else list.push({ name: m.subject, max_id: m.id });
    }
  } else {
    const key = dmRecipients(m, s.me).join(",");
    s.dms.set(key, Math.max(s.dms.get(key) || 0, m.id));
  }
}

/**
 * Bounds the message cache of a long-running tab: above `max` messages, the oldest ones not in
 * `keep` (the open narrow's) are dropped until `max * 3/4` remain. Unread state, topics and DM
 * lists are kept apart and stay. Returns how many were dropped.
 */
export function pruneMessages(s, keep, max = 5000) {
  if (s.messages.size <= max) return 0;
  const target = Math.floor((max * 3) / 4);
  const ids = [...s.messages.keys()].sort((a, b) => a - b);
  let dropped = 0;
  for (const id of ids) {
    if (s.messages.size <= target) break;
    if (keep.has(id)) continue;
    s.messages.delete(id);
    dropped += 1;
  }
  return dropped;
}

/** Sets the topic list of a channel from GET users/me/{id}/topics. */
export function setTopics(s, streamId, topics) {
  const list = topics.map((t) => ({ name: t.name, max_id: t.max_id }));
  for (const m of s.messages.values()) {
    if (m.type === "stream" && m.stream_id === streamId) {
      const found = list.find((t) => t.name.toLowerCase() === String(m.subject).toLowerCase());
      if (!found) list.push({ name: m.subject, max_id: m.id });
    }
  }
  s.topics.set(streamId, list);
}

/** Topics of a channel, newest first, with unread counts and policy. */
export function topicsOf(s, streamId) {
  const list = (s.topics.get(streamId) || []).map((t) => ({ ...t }));
  const byName = new Map(list.map((t) => [t.name.toLowerCase(), t]));
  for (const [id, u] of s.unread) {
    if (u.stream_id !== streamId) continue;
    const key = String(u.topic).toLowerCase();
    if (!byName.has(key)) {
      const t = { name: u.topic, max_id: id };
      list.push(t);
      byName.set(key, t);
    }
  }
  for (const t of list) {
    t.unread = unreadCount(s, (u) => u.stream_id === streamId && String(u.topic).toLowerCase() === t.name.toLowerCase());
    t.policy = topicPolicy(s, streamId, t.name);
    t.muted = isTopicMuted(s, streamId, t.name);
  }
  return list.sort((a, b) => b.max_id - a.max_id);
}

export function unreadCount(s, predicate) {
  let n = 0;
  for (const u of s.unread.values()) if (predicate(u)) n += 1;
  return n;
}

/** Unread counts for the sidebar: per channel (unmuted topics), DMs, mentions, total. */
export function unreadSummary(s) {
  const channels = new Map();
  const dms = new Map();
  let mentions = 0;
  let all = 0;
  for (const u of s.unread.values()) {
    if (u.mentioned) mentions += 1;
    if (u.stream_id !== undefined) {
      if (isTopicMuted(s, u.stream_id, u.topic)) continue;
      channels.set(u.stream_id, (channels.get(u.stream_id) || 0) + 1);
      all += 1;
    } else if (u.dm !== undefined) {
      dms.set(u.dm, (dms.get(u.dm) || 0) + 1);
      all += 1;
    }
  }
  let dmTotal = 0;
  for (const n of dms.values()) dmTotal += n;
  return { channels, dms, mentions, all, dmTotal };
}

/** DM conversations, newest first: `[{key, user_ids, max_id, unread}]`. */
export function dmConversations(s) {
  const summary = unreadSummary(s);
  return [...s.dms.entries()]
    .map(([key, max_id]) => ({ key, user_ids: key.split(",").map(Number), max_id, unread: summary.dms.get(key) || 0 }))
    .sort((a, b) => b.max_id - a.max_id);
}

/** Subscribed channels sorted by name (pinned first). */
export function sortedSubs(s) {
  return [...s.subs.values()].sort((a, b) =>
    (b.pin_to_top ? 1 : 0) - (a.pin_to_top ? 1 : 0) || a.name.localeCompare(b.name));
}

function unreadInfo(s, m, flags) {
  const mentioned = isMentioned(flags);
  if (m.type === "stream") return { stream_id: m.stream_id, topic: m.subject, mentioned };
  return { dm: dmRecipients(m, s.me).join(","), mentioned };
}

/**
 * Applies one server event. Returns a set of change tags among: "messages", "unread",
 * "subs", "users", "topics", "typing", "settings", "drafts", "realm", "dms".
 * For message events the affected ids are in `changed.ids`.
 */
export function applyEvent(s, ev) {
  const changed = new Set();
  changed.ids = [];
  switch (ev.type) {
    case "message": {
      const m = { ...ev.message, flags: ev.flags || ev.message.flags || [] };
      s.messages.set(m.id, m);
      noteMessage(s, m);
      if (!m.flags.includes("read")) {
        s.unread.set(m.id, unreadInfo(s, m, m.flags));
        changed.add("unread");
      }
      changed.add("messages").add("topics").add("dms");
      changed.ids.push(m.id);
      break;
    }
    case "update_message": {
      const ids = ev.message_ids || (ev.message_id ? [ev.message_id] : []);
      const newTopic = ev.subject !== undefined ? ev.subject : ev.topic;
      for (const id of ids) {
        const m = s.messages.get(id);
        if (m) {
          const copy = { ...m };
          if (id === ev.message_id && ev.rendered_content !== undefined) {
            copy.content = ev.rendered_content;
            copy.last_edit_timestamp = ev.edit_timestamp;
          }
          if (newTopic !== undefined) copy.subject = newTopic;
          if (ev.new_stream_id !== undefined) {
            copy.stream_id = ev.new_stream_id;
            const st = s.streams.get(ev.new_stream_id);
            if (st) copy.display_recipient = st.name;
          }
          s.messages.set(id, copy);
          noteMessage(s, copy);
        }
        const u = s.unread.get(id);
        if (u && u.stream_id !== undefined) {
          if (newTopic !== undefined) u.topic = newTopic;
          if (ev.new_stream_id !== undefined) u.stream_id = ev.new_stream_id;
        }
        changed.ids.push(id);
      }
      if (newTopic !== undefined || ev.new_stream_id !== undefined) {
        const oldStream = ev.stream_id;
        if (oldStream !== undefined && s.topics.has(oldStream)) {
          const orig = String(ev.orig_subject || "").toLowerCase();
          const stillThere = [...s.messages.values()].some((m) =>
            m.type === "stream" && m.stream_id === oldStream && String(m.subject).toLowerCase() === orig);
          if (!stillThere && ev.propagate_mode !== "change_one") {
            s.topics.set(oldStream, s.topics.get(oldStream).filter((t) => t.name.toLowerCase() !== orig));
          }
        }
        changed.add("topics").add("unread");
      }
      changed.add("messages");
      break;
    }
    case "delete_message": {
      const ids = ev.message_ids || [ev.message_id];
      for (const id of ids) {
        s.messages.delete(id);
        if (s.unread.delete(id)) changed.add("unread");
        s.starred.delete(id);
        changed.ids.push(id);
      }
      changed.add("messages").add("topics");
      break;
    }
    case "reaction": {
      const m = s.messages.get(ev.message_id);
      if (m) {
        let reactions = (m.reactions || []).slice();
        const same = (r) => r.user_id === ev.user_id && r.emoji_code === ev.emoji_code && r.reaction_type === ev.reaction_type;
        if (ev.op === "add" && !reactions.some(same)) {
          reactions.push({ emoji_name: ev.emoji_name, emoji_code: ev.emoji_code, reaction_type: ev.reaction_type, user_id: ev.user_id });
        } else if (ev.op === "remove") {
          reactions = reactions.filter((r) => !same(r));
        }
        s.messages.set(m.id, { ...m, reactions });
        changed.ids.push(m.id);
        changed.add("messages");
      }
      break;
    }
    case "update_message_flags": {
      const add = ev.op === "add";
      const ids = ev.all ? [...s.unread.keys()] : ev.messages || [];
      for (const id of ids) {
        const m = s.messages.get(id);
        if (m) {
          const flags = (m.flags || []).filter((f) => f !== ev.flag);
          if (add) flags.push(ev.flag);
          s.messages.set(id, { ...m, flags });
          changed.ids.push(id);
        }
        if (ev.flag === "read") {
          if (add) s.unread.delete(id);
          else if (m) s.unread.set(id, unreadInfo(s, m, m.flags));
          else if (ev.message_details && ev.message_details[id]) {
            const d = ev.message_details[id];
            const info = d.type === "stream"
              ? { stream_id: d.stream_id, topic: d.topic, mentioned: !!d.mentioned }
              : { dm: dmKey(d.user_ids || [], s.me), mentioned: !!d.mentioned };
            s.unread.set(id, info);
          }
          changed.add("unread");
        }
        if (ev.flag === "starred") {
          if (add) s.starred.add(id);
          else s.starred.delete(id);
        }
      }
      changed.add("messages");
      break;
    }
    case "subscription": {
      if (ev.op === "add") {
        for (const sub of ev.subscriptions) {
          s.subs.set(sub.stream_id, { ...sub });
          s.streams.set(sub.stream_id, { ...(s.streams.get(sub.stream_id) || {}), ...sub });
        }
      } else if (ev.op === "remove") {
        for (const sub of ev.subscriptions) s.subs.delete(sub.stream_id);
      } else if (ev.op === "update") {
        const sub = s.subs.get(ev.stream_id);
        if (sub) {
          const prop = ev.property === "in_home_view" ? "is_muted" : ev.property;
          sub[prop] = ev.property === "in_home_view" ? !ev.value : ev.value;
        }
      }
      changed.add("subs").add("unread");
      break;
    }
    case "stream": {
      if (ev.op === "create") for (const st of ev.streams) s.streams.set(st.stream_id, st);
      else if (ev.op === "delete") {
        for (const st of ev.streams) {
          const id = st.stream_id !== undefined ? st.stream_id : st.id;
          s.streams.delete(id);
          s.subs.delete(id);
        }
      } else if (ev.op === "update") {
        for (const target of [s.streams.get(ev.stream_id), s.subs.get(ev.stream_id)]) {
          if (target) {
            target[ev.property] = ev.value;
            if (ev.property === "description" && ev.rendered_description !== undefined) {
              target.rendered_description = ev.rendered_description;
            }
          }
        }
      }
      changed.add("subs");
      break;
    }
    case "realm_user": {
      const p = ev.person;
      if (ev.op === "add") s.users.set(p.user_id, { ...p });
      else if (ev.op === "remove") {
        const u = s.users.get(p.user_id);
        if (u) u.is_active = false;
      } else if (ev.op === "update") {
        const u = s.users.get(p.user_id);
        if (u) {
          for (const [k, v] of Object.entries(p)) {
            if (k === "role") {
              u.role = v;
              u.is_admin = v === 100 || v === 200;
              u.is_owner = v === 100;
              u.is_guest = v === 600;
            } else if (k === "custom_profile_field" && v && v.id !== undefined) {
              u.profile_data = { ...(u.profile_data || {}) };
              if (v.value === null || v.value === undefined || v.value === "") delete u.profile_data[v.id];
              else u.profile_data[v.id] = { value: v.value, rendered_value: v.rendered_value };
            } else if (k !== "user_id") u[k] = v;
          }
        }
      }
      changed.add("users");
      break;
    }
    case "typing": {
      const key = ev.message_type === "stream"
        ? `stream:${ev.stream_id}:${String(ev.topic).toLowerCase()}`
        : `dm:${dmKey((ev.recipients || []).map((r) => r.user_id), s.me)}`;
      const set = s.typing.get(key) || new Map();
      if (ev.op === "start") set.set(ev.sender.user_id, Date.now());
      else set.delete(ev.sender.user_id);
      if (set.size) s.typing.set(key, set);
      else s.typing.delete(key);
      changed.add("typing");
      break;
    }
    case "user_topic":
      setUserTopic(s, ev);
      changed.add("topics").add("unread");
      break;
    case "user_settings":
      if (ev.op === "update") s.settings[ev.property] = ev.value;
      changed.add("settings");
      break;
    case "update_display_settings":
    case "update_global_notifications":
      s.settings[ev.setting_name] = ev.setting;
      changed.add("settings");
      break;
    case "drafts":
      if (ev.op === "add") for (const d of ev.drafts) s.drafts.set(d.id, d);
      else if (ev.op === "update") s.drafts.set(ev.draft.id, ev.draft);
      else if (ev.op === "remove") s.drafts.delete(ev.draft_id);
      changed.add("drafts");
      break;
    case "realm_emoji":
      s.realm.emoji = ev.realm_emoji || {};
      changed.add("realm");
      break;
    case "muted_users":
      s.mutedUsers = new Set((ev.muted_users || []).map((m) => m.id));
      changed.add("messages");
      break;
    case "realm":
      if (ev.op === "update") s.realm[ev.property] = ev.value;
      else if (ev.op === "update_dict") Object.assign(s.realm, ev.data || {});
      changed.add("realm");
      break;
    default:
      break;
  }
  return changed;
}

/** Who is typing where: `[user_id]` for a stream topic or DM conversation key. */
export function typingIn(s, key, now = Date.now(), expiryMs = 45000) {
  const set = s.typing.get(key);
  if (!set) return [];
  return [...set.entries()].filter(([id, at]) => id !== s.me && now - at < expiryMs).map(([id]) => id);
}
