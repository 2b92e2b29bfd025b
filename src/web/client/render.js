// DOM building blocks shared by the views: the `h` element helper (no innerHTML of text),
// avatars, and one message row (recipient bar, sender line, sanitised content, reactions)
// as the message list shows it, with its times from dates.js.
import { sanitizeHtml } from "./sanitize.js";
import { narrowHash, isResolved } from "./narrow.js";
import { formatDate, formatFull, formatTime } from "./dates.js";

/** Creates an element: `h("a", {class: "x", href: "#", onclick: fn, "aria-label": "y"}, child...)`. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value") el.value = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function isSameOrigin(url) {
  try {
    return new URL(url, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

/** An avatar: the user's image when there is one, else a coloured initial. */
export function avatar(user, name, size = "small") {
  const url = user && user.avatar_url;
  if (url && isSameOrigin(url)) return h("img", { class: `avatar avatar-${size}`, src: url, alt: "", loading: "lazy" });
  const label = String(name || (user && user.full_name) || "?").trim();
  const el = h("span", { class: `avatar avatar-${size} avatar-letter`, "aria-hidden": "true", text: label.charAt(0).toUpperCase() || "?" });
  const id = user ? user.user_id : 0;
  el.dataset.hue = String((id * 47) % 12);
  return el;
}

/** The header text of the conversation a message belongs to. */
export function recipientLabel(message, store) {
  if (message.type === "stream") {
    const st = store.streams.get(message.stream_id);
    return { channel: st ? st.name : message.display_recipient, topic: message.subject };
  }
  const others = (message.display_recipient || []).filter((u) => u.id !== store.me);
  return { dm: (others.length ? others : message.display_recipient || []).map((u) => u.full_name).join(", ") };
}

export function namesFor(store) {
  return {
    channel: (id) => (store.streams.get(id) || {}).name || "",
    user: (id) => (store.users.get(id) || {}).full_name || "",
    email: (id) => (store.users.get(id) || {}).email || String(id),
  };
}

/** The bar above a group of messages: `#channel > topic` or the DM participants. */
export function recipientBar(message, store, matchSubject) {
  const label = recipientLabel(message, store);
  const names = namesFor(store);
  if (label.channel !== undefined) {
    const channelTerms = [{ operator: "channel", operand: message.stream_id }];
    const topicTerms = [...channelTerms, { operator: "topic", operand: message.subject }];
    const sub = store.subs.get(message.stream_id);
    const bar = h("div", { class: "recipient-bar" },
      h("a", { class: "recipient-channel", href: narrowHash(channelTerms, names) }, `#${label.channel}`),
      h("span", { class: "recipient-sep", "aria-hidden": "true" }, "›"),
      h("a", { class: "recipient-topic" + (isResolved(message.subject) ? " resolved" : ""), href: narrowHash(topicTerms, names) },
        matchSubject ? sanitizeHtml(matchSubject)
          : message.subject === "" ? (store.realm.empty_topic_display_name || "general chat") : message.subject),
      h("button", {
        type: "button",
        class: "topic-options",
        dataset: { streamId: message.stream_id, topic: message.subject },
        "aria-label": "Topic options",
        "aria-haspopup": "menu",
        title: "Topic options",
      }, h("span", { "aria-hidden": "true" }, "⋯")),
      h("button", {
        type: "button",
        class: "resolve-topic",
        dataset: { messageId: message.id },
        "aria-label": isResolved(message.subject) ? "Mark as unresolved" : "Mark as resolved",
        title: isResolved(message.subject) ? "Mark as unresolved" : "Mark as resolved",
      }, h("span", { "aria-hidden": "true" }, "✔")),
      h("span", { class: "recipient-date" }, formatDate(message.timestamp, store.settings)));
    if (sub && sub.color) bar.style.setProperty("--channel-color", sub.color);
    return bar;
  }
  const ids = (message.display_recipient || []).map((u) => u.id).filter((id) => id !== store.me);
  return h("div", { class: "recipient-bar recipient-dm" },
    h("a", { href: narrowHash([{ operator: "dm", operand: ids.length ? ids : [store.me] }], names) }, `Direct messages with ${label.dm}`),
    h("span", { class: "recipient-date" }, formatDate(message.timestamp, store.settings)));
}

/** The reactions of a message grouped by emoji: `[{emoji_name, emoji_code, reaction_type, count, mine, users}]`. */
export function groupReactions(reactions, me) {
  const groups = new Map();
  for (const r of reactions || []) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    let g = groups.get(key);
    if (!g) {
      g = { emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, count: 0, mine: false, users: [] };
      groups.set(key, g);
    }
    g.count += 1;
    g.users.push(r.user_id);
    if (r.user_id === me) g.mine = true;
  }
  return [...groups.values()];
}

/** The visible glyph of an emoji code (`1f44d` or `1f1fa-1f1f8`), or null for realm emoji. */
export function emojiGlyph(reaction) {
  if (reaction.reaction_type !== "unicode_emoji") return null;
  try {
    return String.fromCodePoint(...reaction.emoji_code.split("-").map((c) => parseInt(c, 16)));
  } catch {
    return null;
  }
}

/** Replaces `:name:` text of server emoji spans (`span.emoji.emoji-1f604`) by the glyph. */
export function showEmojiGlyphs(root) {
  for (const span of root.querySelectorAll("span.emoji")) {
    const m = /(?:^|\s)emoji-([0-9a-f]+(?:-[0-9a-f]+)*)(?:\s|$)/.exec(span.className);
    if (!m) continue;
    const glyph = emojiGlyph({ reaction_type: "unicode_emoji", emoji_code: m[1] });
    if (glyph) span.textContent = glyph;
  }
}

/** The visible part of a reaction button: the glyph, a realm emoji image, or `:name:`. */
function reactionFace(g, glyph, store) {
  if (glyph) return h("span", { class: "reaction-emoji", "aria-hidden": "true" }, glyph);
  const realmEmoji = (store.realm.emoji || {})[g.emoji_code];
  const url = realmEmoji && (realmEmoji.still_url || realmEmoji.source_url);
  if (url && isSameOrigin(url)) return h("img", { class: "reaction-emoji realm-emoji", src: url, alt: "" });
  return h("span", { class: "reaction-emoji", "aria-hidden": "true" }, `:${g.emoji_name}:`);
}

/**
 * One message as an article. `opts`: {showSender, store, toolbar(message) -> element,
 * onReaction(message, group), local}.
 */
export function messageArticle(message, opts) {
  const { store } = opts;
  const hidden = !!opts.mutedSender;
  const sender = hidden ? null : store.users.get(message.sender_id);
  const name = hidden ? "Muted user" : sender ? sender.full_name : message.sender_full_name;
  const time = h("time", {
    datetime: new Date(message.timestamp * 1000).toISOString(),
    title: formatFull(message.timestamp, store.settings),
  }, formatTime(message.timestamp, store.settings));
  const flags = message.flags || [];
  const classes = ["message"];
  if (opts.showSender) classes.push("first-of-sender");
  if (opts.local) classes.push("local-echo");
  if (flags.includes("mentioned") || flags.includes("stream_wildcard_mentioned") || flags.includes("topic_wildcard_mentioned") || flags.includes("wildcard_mentioned")) classes.push("mentioned");
  if (flags.includes("starred")) classes.push("starred");
  if (!flags.includes("read") && !opts.local) classes.push("unread");
  const content = h("div", { class: "message-content" });
  if (opts.local) content.append(h("p", { class: "local-text" }, message.raw_content || ""));
  else if (hidden) {
    content.classList.add("muted-sender");
    content.append(h("p", { class: "muted-hint" }, "This message was hidden because you have muted the sender. ",
      h("button", { type: "button", class: "reveal-message", dataset: { messageId: message.id } }, "Show message")));
  } else {
    content.append(sanitizeHtml(opts.matchContent || message.content || ""));
    showEmojiGlyphs(content);
  }
  const header = opts.showSender
    ? h("div", { class: "message-header" },
      avatar(sender, name),
      hidden ? h("span", { class: "sender-name" }, name)
        : h("button", { type: "button", class: "sender-name", dataset: { userId: message.sender_id } }, name),
      time,
      message.last_edit_timestamp ? h("span", { class: "edited" }, "(edited)") : null)
    : h("div", { class: "message-header compact" },
      h("span", { class: "sender-name sr-only" }, name),
      time);
  if (!opts.showSender && message.last_edit_timestamp) content.append(h("span", { class: "edited" }, " (edited)"));
  const article = h("article", {
    class: classes.join(" "),
    tabindex: "-1",
    "aria-label": `${name}, ${time.textContent}`,
    dataset: { messageId: message.id },
  }, header, content);
  if (opts.local) {
    article.append(h("p", { class: "echo-status", role: "status" }, opts.failed ? "Not sent. " : "Sending…"));
  }
  const groups = hidden ? [] : groupReactions(message.reactions, store.me);
  if (groups.length) {
    const row = h("div", { class: "reactions" });
    for (const g of groups) {
      const glyph = emojiGlyph(g);
      const names = g.users.map((id) => (store.users.get(id) || {}).full_name || "someone").join(", ");
      row.append(h("button", {
        type: "button",
        class: "reaction" + (g.mine ? " reacted" : ""),
        "aria-label": `${g.emoji_name} ${g.count}`,
        "aria-pressed": g.mine ? "true" : "false",
        title: `${names} reacted with :${g.emoji_name}:`,
        onclick: () => opts.onReaction && opts.onReaction(message, g),
      }, reactionFace(g, glyph, store),
      h("span", { class: "reaction-count", "aria-hidden": "true" }, String(g.count))));
    }
    article.append(row);
  }
  if (!opts.local && opts.toolbar) article.append(opts.toolbar(message));
  return article;
}
