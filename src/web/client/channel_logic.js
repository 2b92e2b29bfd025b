// Pure rules for channels: a subscription's effective notification switch (null means the
// user's default, as upstream's notification_settings_null capability sends it), and the
// "Browse channels" list (sorting, filtering, validating a new channel's name). No DOM.

/** [subscription property, label, user-setting default] for the notification switches. */
export const NOTIFICATION_PROPS = [
  ["desktop_notifications", "Desktop notifications", "enable_stream_desktop_notifications"],
  ["audible_notifications", "Audible notifications", "enable_stream_audible_notifications"],
  ["push_notifications", "Mobile notifications", "enable_stream_push_notifications"],
  ["email_notifications", "Email notifications", "enable_stream_email_notifications"],
];

/** The effective value of a subscription's notification property. */
export function subscriptionSetting(sub, property, settings = {}) {
  const v = sub[property];
  if (v === true || v === false) return v;
  const row = NOTIFICATION_PROPS.find(([p]) => p === property);
  return !!(row && settings[row[2]]);
}

/** Channels for "Browse channels": not archived, filtered by name/description, sorted by name. */
export function browseList(streams, subs, filter = "") {
  const f = String(filter).trim().toLowerCase();
  return [...streams]
    .filter((st) => !st.is_archived)
    .filter((st) => !f || st.name.toLowerCase().includes(f) || String(st.description || "").toLowerCase().includes(f))
    .map((st) => ({ ...st, subscribed: subs.has(st.stream_id) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** An error text for a new channel name, or null when it may be sent. */
export function channelNameError(name, streams, maxLength = 60) {
  const n = String(name || "").trim();
  if (!n) return "Enter a channel name.";
  if (n.length > maxLength) return `Channel names are at most ${maxLength} characters.`;
  if (/[\u0000-\u001f\u007f]/.test(n)) return "Channel names cannot contain control characters.";
  if ([...streams].some((st) => st.name.toLowerCase() === n.toLowerCase())) return `A channel named ${n} already exists.`;
  return null;
}
