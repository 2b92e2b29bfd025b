// Browser notifications: when the tab is hidden and permission was granted, a new direct
// message or a mention (not from me, not muted) raises a Notification; clicking it focuses
// the tab and opens the conversation.
import { narrowHash } from "./narrow.js";
import { isMentioned } from "./store.js";
import { namesFor } from "./render.js";

/** Whether a message event deserves a notification (pure). */
export function wantsNotification(message, flags, me, { hidden, mutedUsers } = {}) {
  if (!hidden || message.sender_id === me) return false;
  if (mutedUsers && mutedUsers.has(message.sender_id)) return false;
  return message.type === "private" || isMentioned(flags);
}

export function notificationsAvailable() {
  return typeof Notification !== "undefined";
}

export function notifyMessage(app, ev) {
  if (!notificationsAvailable() || Notification.permission !== "granted") return;
  const m = ev.message;
  if (!wantsNotification(m, ev.flags, app.store.me, { hidden: document.hidden, mutedUsers: app.store.mutedUsers })) return;
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
