// What muting hides, as pure functions over the store: muted topics and muted channels drop
// out of "All messages" (and muted topics out of their channel's view) as upstream's feed
// does, messages of muted users are collapsed, and the visibility policy a topic action asks
// the server for (POST /user_topics), and the first unread message a narrow shows (where a
// view opens). No DOM, no network.
import { isTopicMuted, topicPolicy } from "./store.js";
import { dmKey } from "./narrow.js";

export const POLICY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 };

/** Whether a message is left out of the narrow `terms` because of topic or channel muting. */
export function hiddenByMute(s, terms, m) {
  if (!m || m.type !== "stream") return false;
  const live = (terms || []).filter((t) => t.operator !== "near" && t.operator !== "with" && t.operator !== "id");
  if (live.length === 0) return isTopicMuted(s, m.stream_id, m.subject);
  const onlyChannel = live.length === 1 && live[0].operator === "channel" && !live[0].negated;
  if (onlyChannel) return topicPolicy(s, m.stream_id, m.subject) === POLICY.MUTED;
  return false;
}

/** Whether the message's sender is muted by me (my own messages never are). */
export function senderMuted(s, m) {
  return !!m && m.sender_id !== s.me && !!s.mutedUsers && s.mutedUsers.has(m.sender_id);
}

/**
 * The visibility_policy for a topic action: "mute", "unmute", "follow", "unfollow".
 * Unmuting a topic of a muted channel needs the explicit "unmuted" policy.
 */
export function policyFor(action, channelMuted) {
  switch (action) {
    case "mute":
      return POLICY.MUTED;
    case "unmute":
      return channelMuted ? POLICY.UNMUTED : POLICY.INHERIT;
    case "follow":
      return POLICY.FOLLOWED;
    case "unfollow":
      return channelMuted ? POLICY.UNMUTED : POLICY.INHERIT;
    default:
      throw new Error(`unknown topic action ${action}`);
  }
}

/** The actions a topic menu offers now: `[{action, label}]` (mute/unmute, follow/unfollow). */
export function topicActions(s, streamId, topic) {
  const policy = topicPolicy(s, streamId, topic);
  const muted = isTopicMuted(s, streamId, topic);
  return [
    muted ? { action: "unmute", label: "Unmute topic" } : { action: "mute", label: "Mute topic" },
    policy === POLICY.FOLLOWED ? { action: "unfollow", label: "Unfollow topic" } : { action: "follow", label: "Follow topic" },
  ];
}

/**
 * The first unread message the narrow would show, from the unread state alone: an id, null
 * when it has none, or undefined when the narrow cannot be decided locally (search, starred,
 * senders...): then the server's `first_unread` anchor decides. Muted topics and channels are
 * skipped where the narrow hides them, so the view does not open at a hidden message.
 */
export function firstVisibleUnread(s, terms) {
  const live = (terms || []).filter((t) => t.operator !== "near" && t.operator !== "with");
  if (live.some((t) => t.negated)) return undefined;
  const by = (op) => live.find((t) => t.operator === op);
  const channel = by("channel");
  const topic = by("topic");
  const dm = by("dm");
  const is = by("is");
  let accept;
  if (live.length === 0) {
    accept = (u) => u.dm !== undefined || (u.stream_id !== undefined && !hiddenByMute(s, live, { type: "stream", stream_id: u.stream_id, subject: u.topic }));
  } else if (channel && typeof channel.operand === "number" && live.length === 1) {
    accept = (u) => u.stream_id === channel.operand && !hiddenByMute(s, live, { type: "stream", stream_id: u.stream_id, subject: u.topic });
  } else if (channel && typeof channel.operand === "number" && topic && live.length === 2) {
    const want = String(topic.operand).toLowerCase();
    accept = (u) => u.stream_id === channel.operand && String(u.topic).toLowerCase() === want;
  } else if (dm && Array.isArray(dm.operand) && live.length === 1) {
    const key = dmKey(dm.operand, s.me);
    accept = (u) => u.dm === key;
  } else if (is && live.length === 1 && (is.operand === "dm" || is.operand === "private")) {
    accept = (u) => u.dm !== undefined;
  } else if (is && live.length === 1 && is.operand === "mentioned") {
    accept = (u) => !!u.mentioned;
  } else {
    return undefined;
  }
  let first = null;
  for (const [id, u] of s.unread) if ((first === null || id < first) && accept(u)) first = id;
  return first;
}
