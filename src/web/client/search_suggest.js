// Suggestions for the search box as the user types: operator names (channel:, topic:,
// sender:, is:, dm:, has:) and, after an operator, the channels, topics, users or values it
// can take. Pure: `suggest(text, data)` returns `[{value, label}]` where `value` is the whole
// new search text. `data` = {channels: [name], topics(channelName) -> [name], users: [{email,
// full_name}]}.

const OPERATORS = [
  ["channel", "Messages in a channel"],
  ["topic", "Messages in a topic"],
  ["sender", "Messages sent by a user"],
  ["dm", "Direct messages with a user"],
  ["is", "Starred, mentioned, unread, direct or resolved"],
  ["has", "Links, images or attachments"],
];
const IS_VALUES = [["starred", "Starred messages"], ["mentioned", "Mentions"], ["unread", "Unread messages"],
  ["dm", "Direct messages"], ["resolved", "Resolved topics"]];
const HAS_VALUES = [["link", "Messages with links"], ["image", "Messages with images"], ["attachment", "Messages with attachments"]];
const LIMIT = 8;

function quote(v) {
  return /\s/.test(v) ? `"${v}"` : v;
}

/** Splits off the word being typed: `{head, token}` (a quoted operand counts as one word). */
export function lastToken(text) {
  const s = String(text || "");
  const m = /(?:^|\s)((?:-?[a-z-]+:)?(?:"[^"]*"?|[^\s"]*))$/i.exec(s);
  if (!m) return { head: s, token: "" };
  return { head: s.slice(0, s.length - m[1].length), token: m[1] };
}

function matches(candidate, partial) {
  const c = candidate.toLowerCase();
  return c.startsWith(partial) || c.split(/[\s._@-]+/).some((w) => w.startsWith(partial));
}

export function suggest(text, data = {}) {
  const { head, token } = lastToken(text);
  const out = [];
  const op = /^(-?)([a-z-]+):(.*)$/i.exec(token);
  if (!op) {
    if (token === "" || token === "-") return [];
    const partial = token.replace(/^-/, "").toLowerCase();
    const neg = token.startsWith("-") ? "-" : "";
    for (const [name, hint] of OPERATORS) {
      if (name.startsWith(partial)) out.push({ value: `${head}${neg}${name}:`, label: `${neg}${name}:`, hint });
    }
    return out.slice(0, LIMIT);
  }
  const neg = op[1];
  let operator = op[2].toLowerCase();
  if (operator === "stream") operator = "channel";
  if (operator === "subject") operator = "topic";
  const partial = op[3].replace(/^"|"$/g, "").toLowerCase();
  const push = (v, hint) => out.push({ value: `${head}${neg}${operator}:${quote(v)} `, label: `${neg}${operator}:${v}`, hint });
  if (operator === "channel") {
    for (const name of data.channels || []) if (matches(name, partial)) push(name);
  } else if (operator === "topic") {
    const ch = /(?:^|\s)(?:channel|stream):("([^"]*)"|\S+)/i.exec(head);
    const channel = ch ? (ch[2] !== undefined ? ch[2] : ch[1]) : null;
    const topics = data.topics ? data.topics(channel) : [];
    for (const t of topics) if (matches(t, partial)) push(t);
  } else if (operator === "sender" || operator === "dm" || operator === "dm-including") {
    for (const u of data.users || []) {
      if (matches(u.full_name, partial) || u.email.toLowerCase().startsWith(partial)) push(u.email, u.full_name);
    }
  } else if (operator === "is") {
    for (const [v, hint] of IS_VALUES) if (v.startsWith(partial)) push(v, hint);
  } else if (operator === "has") {
    for (const [v, hint] of HAS_VALUES) if (v.startsWith(partial)) push(v, hint);
  }
  // An exact, complete operand needs no suggestion of itself alone.
  const filtered = out.filter((o) => o.value.trimEnd() !== String(text).trimEnd());
  return filtered.slice(0, LIMIT);
}
