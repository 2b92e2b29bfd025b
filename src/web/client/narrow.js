// Narrows: the pure functions that turn a URL hash into a list of search terms and back
// (upstream's `#narrow/...` format), a search-box string into terms, terms into the API's
// `narrow` parameter, and that decide whether a message belongs to a narrow. No DOM here.

/** Upstream's hash component encoding: percent-encode, then `.` for `%` (and `%2E` for `.`). */
export function encodeHashComponent(text) {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, "%2E")
    .replace(/%/g, ".");
}

export function decodeHashComponent(text) {
  try {
    return decodeURIComponent(text.replace(/\./g, "%"));
  } catch {
    return text;
  }
}

const SLUG_UNSAFE = /[^\p{L}\p{N}_-]+/gu;

/** `12-general`: the channel id, a dash, then the name with unsafe characters as dashes. */
export function channelSlug(id, name) {
  return `${id}-${encodeHashComponent(String(name || "").replace(SLUG_UNSAFE, "-"))}`;
}

/** Parses `#narrow/...` into terms `[{operator, operand, negated}]`; null when not a narrow. */
export function parseHash(hash) {
  const raw = String(hash || "").replace(/^#/, "");
  if (raw === "" || raw === "all-messages" || raw === "feed") return [];
  const parts = raw.split("/");
  if (parts[0] !== "narrow") return null;
  const terms = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    let operator = decodeHashComponent(parts[i]);
    let negated = false;
    if (operator.startsWith("-")) {
      negated = true;
      operator = operator.slice(1);
    }
    if (operator === "stream") operator = "channel";
    if (operator === "subject") operator = "topic";
    if (operator === "pm-with") operator = "dm";
    const rawOperand = parts[i + 1];
    let operand = decodeHashComponent(rawOperand);
    if (operator === "channel") {
      const m = /^(\d+)(-|$)/.exec(operand);
      operand = m ? Number(m[1]) : operand;
    } else if (operator === "dm" || operator === "sender" || operator === "dm-including") {
      const m = /^([\d,]+)(-|$)/.exec(operand);
      if (m) {
        const ids = m[1].split(",").filter(Boolean).map(Number);
        operand = operator === "dm" ? ids : ids[0];
      }
    } else if (operator === "near" || operator === "id" || operator === "with") {
      operand = Number(operand);
    }
    terms.push({ operator, operand, negated });
  }
  return terms;
}

/** Builds the hash for terms; `names` gives `{channel(id), user(id)}` lookups for slugs. */
export function narrowHash(terms, names = {}) {
  if (!terms || terms.length === 0) return "#all-messages";
  const parts = ["narrow"];
  for (const t of terms) {
    parts.push(encodeHashComponent((t.negated ? "-" : "") + t.operator));
    if (t.operator === "channel" && typeof t.operand === "number") {
      parts.push(channelSlug(t.operand, names.channel ? names.channel(t.operand) : ""));
    } else if (t.operator === "dm" && Array.isArray(t.operand)) {
      const ids = t.operand.join(",");
      const label = t.operand.length === 1 && names.user ? names.user(t.operand[0]) : "group";
      parts.push(`${ids}-${encodeHashComponent(String(label || "").replace(SLUG_UNSAFE, "-"))}`);
    } else if (t.operator === "sender" && typeof t.operand === "number") {
      const label = names.user ? names.user(t.operand) : "";
      parts.push(`${t.operand}-${encodeHashComponent(String(label || "").replace(SLUG_UNSAFE, "-"))}`);
    } else {
      parts.push(encodeHashComponent(String(t.operand)));
    }
  }
  return "#" + parts.join("/");
}

/**
 * Parses the search box: `channel:general topic:"lunch plans" sender:x@y is:starred words`.
 * `lookup` resolves `{channel(name) -> id, user(emailOrName) -> id}` when it can.
 */
export function parseSearch(text, lookup = {}) {
  const terms = [];
  const words = [];
  const re = /(-?)([a-z-]+):("([^"]*)"|\S+)|"([^"]*)"|(\S+)/gi;
  let m;
  while ((m = re.exec(String(text || ""))) !== null) {
    if (m[2]) {
      let operator = m[2].toLowerCase();
      let operand = m[4] !== undefined ? m[4] : m[3];
      if (operator === "stream") operator = "channel";
      if (operator === "subject") operator = "topic";
      if (operator === "pm-with") operator = "dm";
      const known = ["channel", "topic", "sender", "is", "dm", "has", "near", "id", "dm-including", "in", "channels", "search"];
      if (!known.includes(operator)) {
        words.push(m[0]);
        continue;
      }
      if (operator === "search") {
        words.push(operand);
        continue;
      }
      if (operator === "channel" && lookup.channel) {
        const id = lookup.channel(operand);
        if (id !== undefined && id !== null) operand = id;
      } else if ((operator === "sender" || operator === "dm-including") && lookup.user) {
        const id = lookup.user(operand);
        if (id !== undefined && id !== null) operand = id;
      } else if (operator === "dm") {
        const ids = operand.split(",").map((p) => (lookup.user ? lookup.user(p) : null));
        if (ids.every((id) => id !== undefined && id !== null)) operand = ids;
      } else if (operator === "near" || operator === "id") {
        operand = Number(operand);
      }
      terms.push({ operator, operand, negated: m[1] === "-" });
    } else {
      words.push(m[5] !== undefined ? m[5] : m[6]);
    }
  }
  if (words.length) terms.push({ operator: "search", operand: words.join(" "), negated: false });
  return terms;
}

/** The search-box text for terms (inverse of parseSearch, using names where known). */
export function searchText(terms, names = {}) {
  return (terms || [])
    .map((t) => {
      if (t.operator === "search") return t.operand;
      let operand = t.operand;
      if (t.operator === "channel" && typeof operand === "number" && names.channel) operand = names.channel(operand);
      if (t.operator === "sender" && typeof operand === "number" && names.email) operand = names.email(operand);
      if (t.operator === "dm" && Array.isArray(operand)) {
        operand = operand.map((id) => (names.email ? names.email(id) : id)).join(",");
      }
      operand = String(operand);
      if (/\s/.test(operand)) operand = `"${operand}"`;
      return `${t.negated ? "-" : ""}${t.operator}:${operand}`;
    })
    .join(" ");
}

/** The API's `narrow` parameter for terms. */
export function apiNarrow(terms) {
  return (terms || []).map((t) => ({ operator: t.operator, operand: t.operand, negated: !!t.negated }));
}

/** The sorted list of the other participants of a direct message (without me, unless alone). */
export function dmRecipients(message, myId) {
  const ids = (Array.isArray(message.display_recipient) ? message.display_recipient : []).map((u) => u.id);
  const others = ids.filter((id) => id !== myId);
  return (others.length ? others : [myId]).sort((a, b) => a - b);
}

/** A stable key for a DM conversation: the sorted user ids of the others, comma-joined. */
export function dmKey(userIds, myId) {
  const others = userIds.filter((id) => id !== myId);
  return (others.length ? others : [myId]).slice().sort((a, b) => a - b).join(",");
}

/**
 * Whether a message (with its `flags`) is in the narrow, when decidable locally; search terms
 * and unknown operators answer `null` (ask the server).
 */
export function messageMatches(terms, message, myId) {
  for (const t of terms || []) {
    let ok;
    switch (t.operator) {
      case "channel":
        ok = message.type === "stream" &&
          (message.stream_id === t.operand || message.display_recipient === t.operand);
        break;
      case "topic":
        ok = message.type === "stream" &&
          String(message.subject).toLowerCase() === String(t.operand).toLowerCase();
        break;
      case "dm": {
        if (message.type !== "private") { ok = false; break; }
        const want = Array.isArray(t.operand) ? t.operand : [];
        ok = dmKey(want, myId) === dmRecipients(message, myId).join(",");
        break;
      }
      case "dm-including":
        ok = message.type === "private" &&
          (message.display_recipient || []).some((u) => u.id === t.operand);
        break;
      case "sender":
        ok = message.sender_id === t.operand || message.sender_email === t.operand;
        break;
      case "is": {
        const flags = message.flags || [];
        if (t.operand === "dm" || t.operand === "private") ok = message.type === "private";
        else if (t.operand === "starred") ok = flags.includes("starred");
        else if (t.operand === "mentioned") {
          ok = flags.some((f) => ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "wildcard_mentioned"].includes(f));
        } else if (t.operand === "unread") ok = !flags.includes("read");
        else if (t.operand === "resolved") ok = message.type === "stream" && String(message.subject).startsWith("✔ ");
        else return null;
        break;
      }
      default:
        return null;
    }
    if (t.negated) ok = !ok;
    if (!ok) return false;
  }
  return true;
}

/** A short human title for a narrow, for the heading and the document title. */
export function narrowTitle(allTerms, names = {}) {
  const terms = (allTerms || []).filter((t) => t.operator !== "near" && t.operator !== "with");
  if (terms.length === 0) return "All messages";
  const one = terms.length === 1 ? terms[0] : null;
  if (one && one.operator === "is" && one.operand === "starred") return "Starred messages";
  if (one && one.operator === "is" && one.operand === "mentioned") return "Mentions";
  if (one && one.operator === "is" && (one.operand === "dm" || one.operand === "private")) return "Direct messages";
  const channel = terms.find((t) => t.operator === "channel");
  const topic = terms.find((t) => t.operator === "topic");
  const dm = terms.find((t) => t.operator === "dm");
  if (channel && terms.length <= 2) {
    const name = typeof channel.operand === "number" && names.channel ? names.channel(channel.operand) : channel.operand;
    return topic ? `#${name} > ${topic.operand}` : `#${name}`;
  }
  if (dm && terms.length === 1 && Array.isArray(dm.operand)) {
    return dm.operand.map((id) => (names.user ? names.user(id) : id)).join(", ");
  }
  return "Search results";
}

/** Whether the topic name is resolved (upstream's "✔ " prefix). */
export function isResolved(topic) {
  return String(topic || "").startsWith("✔ ");
}
