// What muting hides, as pure functions over the store: muted topics and muted channels drop
// out of "All messages" (and muted topics out of their channel's view) as upstream's feed
// does, messages of muted users are collapsed, and the visibility policy a topic action asks
// the server for (POST /user_topics). No DOM, no network.
import { isTopicMuted, topicPolicy } from "./store.js";

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
