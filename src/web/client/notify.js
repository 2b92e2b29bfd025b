// Browser notifications: when the tab is hidden and permission was granted, a new direct
// message, a mention, a message in a channel whose desktop notifications are on (not in a
// muted topic) or in a followed topic (when that setting is on), never from me or a muted
// user, raises a Notification; clicking it focuses the tab and opens the conversation. The
// same conversations, judged by the audible settings, play a chime while the window is not in
// use (`wantsSound`).
import { narrowHash } from "./narrow.js";
import { isMentioned, isTopicMuted, topicPolicy } from "./store.js";
import { namesFor } from "./render.js";
import { subscriptionSetting } from "./channel_logic.js";

/** Whether a message event deserves a notification (pure). */
export function wantsNotification(message, flags, me, { hidden, mutedUsers, channelDesktop, followedDesktop, topicMuted } = {}) {
  if (!hidden || message.sender_id === me) return false;
  if (mutedUsers && mutedUsers.has(message.sender_id)) return false;
  if (message.type === "private" || isMentioned(flags)) return true;
  if (message.type !== "stream") return false;
  if (followedDesktop) return true;
  return !!channelDesktop && !topicMuted;
}

/**
 * Whether a message event deserves a sound (pure): the same conversations as a notification,
 * judged by the audible settings (`enable_sounds` for direct messages and mentions, the
 * channel's audible setting, followed topics'), only while the window is not in use, and never
 * with `notification_sound` "none".
 */
export function wantsSound(message, flags, me, { unfocused, mutedUsers, sound, personalSounds, channelAudible, followedAudible, topicMuted } = {}) {
  if (!sound || sound === "none") return false;
  if (!unfocused || message.sender_id === me) return false;
  if (mutedUsers && mutedUsers.has(message.sender_id)) return false;
  if (message.type === "private" || isMentioned(flags)) return !!personalSounds;
  if (message.type !== "stream") return false;
  if (followedAudible) return true;
  return !!channelAudible && !topicMuted;
}

let audio = null;

/** A short two-note chime, synthesized (no sound file to fetch). */
export function playChime() {
  const Ctx = typeof window !== "undefined" && (window.AudioContext || window.webkitAudioContext);
  if (!Ctx) return;
  try {
    audio = audio || new Ctx();
    const t = audio.currentTime;
    for (const [i, freq] of [[0, 880], [1, 1320]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const start = t + i * 0.12;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.2, start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.3);
    }
  } catch (err) {
    console.error(err);
  }
}

export function soundMessage(app, ev) {
  const m = ev.message;
  const s = app.store;
  const sub = m.type === "stream" ? s.subs.get(m.stream_id) : null;
  const options = {
    unfocused: document.hidden || !document.hasFocus(),
    mutedUsers: s.mutedUsers,
    sound: s.settings.notification_sound || "zulip",
    personalSounds: s.settings.enable_sounds !== false,
    channelAudible: !!sub && subscriptionSetting(sub, "audible_notifications", s.settings),
    followedAudible: !!sub && topicPolicy(s, m.stream_id, m.subject) === 3 && s.settings.enable_followed_topic_audible_notifications !== false,
    topicMuted: !!sub && isTopicMuted(s, m.stream_id, m.subject),
  };
  if (wantsSound(m, ev.flags, s.me, options)) playChime();
}

export function notificationsAvailable() {
  return typeof Notification !== "undefined";
}

export function notifyMessage(app, ev) {
  if (!notificationsAvailable() || Notification.permission !== "granted") return;
  const m = ev.message;
  const s = app.store;
  const sub = m.type === "stream" ? s.subs.get(m.stream_id) : null;
  const options = {
    hidden: document.hidden,
    mutedUsers: s.mutedUsers,
    channelDesktop: !!sub && subscriptionSetting(sub, "desktop_notifications", s.settings),
    followedDesktop: !!sub && topicPolicy(s, m.stream_id, m.subject) === 3 && s.settings.enable_followed_topic_desktop_notifications !== false,
    topicMuted: !!sub && isTopicMuted(s, m.stream_id, m.subject),
  };
  if (!wantsNotification(m, ev.flags, s.me, options)) return;
  const text = new DOMParser().parseFromString(m.content || "", "text/html").body.textContent || "";
  const title = m.type === "stream" ? `${m.sender_full_name} (#${m.display_recipient} > ${m.subject})` : m.sender_full_name;
  const n = new Notification(title, { body: text.slice(0, 300), tag: String(m.id) });
  n.onclick = () => {
    window.focus();
    const names = namesFor(app.store);
    const terms = m.type === "stream"
      ? [{ operator: "channel", operand: m.stream_id }, { operator: "topic", operand: m.subject }]
      : [{ operator: "dm", operand: (m.display_recipient || []).map((u) => u.id).filter((id) => id !== app.store.me) }];
    app.navigate(narrowHash(terms, names));
    n.close();
  };
}
