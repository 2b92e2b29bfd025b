// The left sidebar (<nav aria-label="Channels">): the views (All messages, Mentions, Starred
// messages, Direct messages), subscribed channels with unread counts, the topics of the open
// channel (resolved ✔, muted, followed as upstream marks them) and recent DM conversations.
// Each channel and topic has an options button (and a right-click menu) handled in main.js
// through the `channel-options` / `topic-options` classes and their data attributes.
import { h, namesFor } from "./render.js";
import { narrowHash, isResolved } from "./narrow.js";
import { dmConversations, sortedSubs, topicsOf, unreadSummary } from "./store.js";

function count(n, label) {
  return n ? h("span", { class: "unread-count", "aria-label": `${n} unread${label ? " " + label : ""}` }, String(n)) : null;
}

function isCurrent(hash, current) {
  return hash === current ? "page" : null;
}

export function renderSidebar(nav, app) {
  const s = app.store;
  const names = namesFor(s);
  const summary = unreadSummary(s);
  const current = app.currentHash();
  const terms = app.terms || [];
  const openChannel = terms.find((t) => t.operator === "channel" && !t.negated);
  const openTopic = terms.find((t) => t.operator === "topic" && !t.negated);

  const view = (label, hash, n, icon) => h("li", {},
    h("a", { href: hash, class: "view-link", "aria-current": isCurrent(hash, current) },
      h("span", { class: "icon", "aria-hidden": "true" }, icon), h("span", { class: "label" }, label), count(n)));

  const views = h("ul", { class: "views" },
    view("All messages", "#all-messages", summary.all, "≡"),
    view("Mentions", "#narrow/is/mentioned", summary.mentions, "@"),
    view("Starred messages", "#narrow/is/starred", 0, "★"),
    view("Direct messages", "#narrow/is/dm", summary.dmTotal, "✉"),
    view("Drafts", "#drafts", 0, "✎"));

  const channels = h("ul", { class: "channels" });
  for (const sub of sortedSubs(s)) {
    const hash = narrowHash([{ operator: "channel", operand: sub.stream_id }], names);
    const isOpen = openChannel && openChannel.operand === sub.stream_id;
    const swatch = h("span", { class: "swatch", "aria-hidden": "true" }, sub.invite_only ? "🔒" : "#");
    if (sub.color) swatch.style.setProperty("--channel-color", sub.color);
    const item = h("li", { class: "channel" + (sub.is_muted ? " muted" : "") + (isOpen ? " open" : ""), dataset: { streamId: sub.stream_id } },
      h("a", { href: hash, "aria-current": isOpen && !openTopic ? "page" : null },
        h("span", { class: "label" }, sub.name), swatch, count(summary.channels.get(sub.stream_id))),
      h("button", { type: "button", class: "side-options channel-options", "aria-haspopup": "menu",
        "aria-label": `Channel options for ${sub.name}`, title: "Channel options", dataset: { streamId: sub.stream_id } },
      h("span", { "aria-hidden": "true" }, "⋮")));
    // The name must come first in the link text; the swatch is placed before it by CSS order.
    if (isOpen) {
      const topics = h("ul", { class: "topics" });
      for (const t of topicsOf(s, sub.stream_id).slice(0, 30)) {
        const thash = narrowHash([{ operator: "channel", operand: sub.stream_id }, { operator: "topic", operand: t.name }], names);
        const resolved = isResolved(t.name);
        const display = t.name === "" ? (s.realm.empty_topic_display_name || "general chat") : t.name;
        const cls = ["topic"];
        if (t.muted) cls.push("muted");
        if (t.policy === 3) cls.push("followed");
        if (resolved) cls.push("resolved");
        const cur = openTopic && String(openTopic.operand).toLowerCase() === t.name.toLowerCase();
        topics.append(h("li", { class: cls.join(" "), dataset: { streamId: sub.stream_id, topic: t.name } },
          h("a", { href: thash, "aria-current": cur ? "page" : null },
            h("span", { class: "label" }, display),
            t.muted ? h("span", { class: "topic-state", title: "Muted topic" }, h("span", { class: "sr-only" }, " (muted)"), "🔇") : null,
            t.policy === 3 ? h("span", { class: "topic-state", title: "Followed topic" }, h("span", { class: "sr-only" }, " (followed)"), "👁") : null,
            t.muted ? null : count(t.unread)),
          h("button", { type: "button", class: "side-options topic-options", "aria-haspopup": "menu",
            "aria-label": `Topic options for ${display}`, title: "Topic options", dataset: { streamId: sub.stream_id, topic: t.name } },
          h("span", { "aria-hidden": "true" }, "⋮"))));
      }
      if (!topics.children.length) topics.append(h("li", { class: "empty" }, "No topics yet"));
      item.append(topics);
    }
    channels.append(item);
  }
  if (!channels.children.length) channels.append(h("li", { class: "empty" }, "You are not subscribed to any channel."));

  const dms = h("ul", { class: "dms" });
  for (const c of dmConversations(s).slice(0, 20)) {
    const label = c.user_ids.map((id) => names.user(id) || `user ${id}`).join(", ");
    const hash = narrowHash([{ operator: "dm", operand: c.user_ids }], names);
    dms.append(h("li", {}, h("a", { href: hash, "aria-current": isCurrent(hash, current) },
      h("span", { class: "label" }, label), count(c.unread))));
  }

  // Re-rendering must not take keyboard focus away from the sidebar: find the same control again.
  const focused = nav.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = focused && (focused.getAttribute("aria-label") || focused.getAttribute("href"));
  nav.replaceChildren(
    views,
    h("h2", { class: "sidebar-heading" }, "Channels"),
    channels,
    h("p", { class: "browse-channels" }, h("a", { href: "#channels", "aria-current": isCurrent("#channels", current) }, "Browse channels")),
    h("h2", { class: "sidebar-heading" }, "Direct messages"),
    dms.children.length ? dms : h("p", { class: "empty" }, "No direct messages yet."));
  if (focusKey) {
    const again = [...nav.querySelectorAll("a, button")].find((el) =>
      (el.getAttribute("aria-label") || el.getAttribute("href")) === focusKey);
    if (again) again.focus({ preventScroll: true });
  }
}
