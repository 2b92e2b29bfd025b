// The user list (right sidebar): mountUserList(container, ctx). Active humans with their
// presence (active, idle, offline: a class presence-* and a text alternative), ordered active
// first then by name, bots in a group of their own, a "Filter users" box. Live on presence,
// realm_user and user_status events; presence ages on a timer. Clicking a name opens the
// profile card. Returns {unmount()}.
import { h, uid } from "./f_dom.js";
import { sortUsers, userMatches } from "./f_logic.js";
import { featureState, userPresence } from "./f_state.js";
import { openProfileCard } from "./profile_card.js";
import { emojiGlyph } from "./emoji_picker.js";

const STATUS_TEXT = { active: "Active", idle: "Idle", offline: "Offline" };
const AGE_INTERVAL_MS = 15000;

export function mountUserList(container, ctx) {
  const state = featureState(ctx);
  let root = container;
  if (container.tagName !== "ASIDE") {
    root = h("aside", { "aria-label": "Users", class: "f-user-aside" });
    container.append(root);
  } else if (!container.hasAttribute("aria-label")) {
    container.setAttribute("aria-label", "Users");
  }
  root.classList.add("f-user-list");
  const idPrefix = uid("f-users");
  const filter = h("input", {
    type: "search",
    class: "f-user-filter",
    "aria-label": "Filter users",
    placeholder: "Filter users",
    autocomplete: "off",
  });
  const lists = h("div", { class: "f-user-groups" });
  const wrapper = h("div", { class: "f-user-list-inner" }, filter, lists);
  root.append(wrapper);

  const userRow = (user, withPresence) => {
    const status = withPresence ? userPresence(ctx, user) : null;
    const name = h("button", { type: "button", class: "f-user-name", "data-user-id": user.user_id }, user.full_name);
    name.addEventListener("click", () => openProfileCard(user.user_id, ctx));
    const item = h("li", { class: `f-user${status ? ` presence-${status}` : ""}`, "data-user-id": user.user_id });
    if (status) {
      item.append(
        h("span", { class: `f-presence-dot presence-${status}`, "aria-hidden": "true" }),
        name,
        h("span", { class: "f-visually-hidden" }, ` (${STATUS_TEXT[status]})`),
      );
      item.title = `${user.full_name}: ${STATUS_TEXT[status]}`;
    } else {
      item.append(h("span", { class: "f-presence-dot f-bot-dot", "aria-hidden": "true" }), name);
    }
    const userStatus = state.statuses.get(user.user_id);
    if (userStatus && (userStatus.emoji_name || userStatus.status_text)) {
      const label = [userStatus.emoji_name ? `:${userStatus.emoji_name}:` : "", userStatus.status_text || ""]
        .filter(Boolean)
        .join(" ");
      const badge = h("span", { class: "f-user-status", title: label });
      if (userStatus.emoji_name) {
        const glyph = statusGlyph(userStatus);
        if (glyph) badge.append(glyph);
      }
      badge.append(h("span", { class: "f-visually-hidden" }, `Status: ${label}`));
      item.append(badge);
    }
    return item;
  };

  const statusGlyph = (s) => {
    if (s.reaction_type === "realm_emoji") {
      const emoji = state.realmEmoji[s.emoji_code];
      return emoji ? emojiGlyph({ reaction_type: "realm_emoji", source_url: emoji.source_url }) : null;
    }
    if (s.reaction_type === "unicode_emoji" || !s.reaction_type) {
      return emojiGlyph({ reaction_type: "unicode_emoji", emoji_code: s.emoji_code });
    }
    return null;
  };

  const group = (label, users, withPresence) => {
    const headingId = `${idPrefix}-${label.toLowerCase()}`;
    return h(
      "section",
      { class: "f-user-group", "aria-labelledby": headingId },
      h("h2", { id: headingId, class: "f-user-group-title" }, `${label} (${users.length})`),
      users.length
        ? h("ul", { class: "f-user-rows" }, users.map((u) => userRow(u, withPresence)))
        : h("p", { class: "f-empty" }, filter.value ? "No matches" : "None"),
    );
  };

  const render = () => {
    const now = Date.now() / 1000;
    const all = [...ctx.users.values()].filter((u) => u.is_active !== false && userMatches(u, filter.value));
    const humans = sortUsers(
      all.filter((u) => !u.is_bot),
      (u) => userPresence(ctx, u, now),
    ).map((x) => x.user);
    const bots = all
      .filter((u) => u.is_bot && !u.is_system_bot)
      .sort((a, b) => (a.full_name || "").localeCompare(b.full_name || ""));
    const hadFocus = root.contains(document.activeElement) && document.activeElement !== filter
      ? document.activeElement.getAttribute("data-user-id")
      : null;
    lists.replaceChildren(group("Users", humans, true), bots.length ? group("Bots", bots, false) : "");
    if (hadFocus) {
      const again = lists.querySelector(`button[data-user-id="${CSS.escape(hadFocus)}"]`);
      if (again) again.focus();
    }
  };

  filter.addEventListener("input", render);
  filter.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && filter.value) {
      event.stopPropagation();
      filter.value = "";
      render();
    } else if (event.key === "Enter") {
      const first = lists.querySelector("button.f-user-name");
      if (first) first.click();
    }
  });
  const unsubscribers = [
    state.subscribe((kind) => {
      if (["presence", "realm_user", "user_status", "realm_emoji", "user_settings"].includes(kind)) render();
    }),
  ];
  const timer = setInterval(render, AGE_INTERVAL_MS);
  render();
  return {
    unmount() {
      clearInterval(timer);
      for (const off of unsubscribers) if (typeof off === "function") off();
      wrapper.remove();
      if (root !== container) root.remove();
    },
  };
}
