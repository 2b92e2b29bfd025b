// The profile card: openProfileCard(userId, ctx). A dialog labelled "User profile" with the
// avatar, name, email (as far as the viewer may see it), role, time zone and local time,
// status, the realm's custom profile fields with the user's values, and buttons "Send direct
// message" and "View messages" (ctx.navigate to the DM and sender narrows). Esc closes.
import { h, localAvatarUrl, openModal } from "./f_dom.js";
import { localTimeIn, profileFieldText, roleName, userSlug } from "./f_logic.js";
import { featureState, userPresence } from "./f_state.js";
import { emojiGlyph } from "./emoji_picker.js";

let closeOpen = null;

/** Opens the card of a user (closing any open one). Returns {close}. */
export function openProfileCard(userId, ctx) {
  if (closeOpen) closeOpen();
  const state = featureState(ctx);
  const user = ctx.users.get(Number(userId)) || state.nonActive.get(Number(userId));
  const opener = document.activeElement;
  const titleId = `f-profile-title-${userId}`;
  const dialog = h("div", { class: "f-profile-card", role: "dialog", "aria-label": "User profile" });
  if (!user) {
    dialog.append(h("p", {}, "This user is not known."), closeButton());
  } else {
    fill(dialog, user, ctx, state, titleId);
  }
  let tick = null;
  const close = openModal(dialog, {
    returnFocus: opener,
    onClose: () => {
      clearInterval(tick);
      closeOpen = null;
    },
  });
  closeOpen = close;
  function closeButton() {
    return h("button", { type: "button", class: "f-close", "aria-label": "Close", onclick: () => close() }, "×");
  }
  dialog.prepend(closeButton());
  // Keep the local time current while the card is open.
  tick = setInterval(() => {
    const time = dialog.querySelector(".f-local-time");
    if (time && user) time.textContent = localTimeText(user, state);
  }, 30000);
  for (const button of dialog.querySelectorAll("button[data-nav]")) {
    button.addEventListener("click", () => {
      close();
      ctx.navigate(button.getAttribute("data-nav"));
    });
  }
  return { close };
}

function localTimeText(user, state) {
  return localTimeIn(user.timezone, new Date(), Boolean(state.settings.twenty_four_hour_time)) || "";
}

function fill(dialog, user, ctx, state, titleId) {
  const status = user.is_bot ? null : userPresence(ctx, user);
  const avatarUrl = localAvatarUrl(user.avatar_url);
  const avatar = avatarUrl
    ? h("img", { class: "f-avatar", src: avatarUrl, alt: "" })
    : h("span", { class: "f-avatar f-avatar-initial", "aria-hidden": "true" }, (user.full_name || "?").slice(0, 1));
  const header = h(
    "div",
    { class: "f-profile-head" },
    avatar,
    h(
      "div",
      {},
      h("h2", { id: titleId, class: "f-profile-name" }, user.full_name),
      status
        ? h("p", { class: `f-profile-presence presence-${status}` },
            h("span", { class: `f-presence-dot presence-${status}`, "aria-hidden": "true" }),
            status[0].toUpperCase() + status.slice(1))
        : null,
    ),
  );
  dialog.setAttribute("aria-describedby", titleId);
  const rows = h("dl", { class: "f-profile-fields" });
  const row = (label, value) => {
    if (value == null || value === "") return;
    rows.append(h("div", { class: "f-profile-row" }, h("dt", {}, label), h("dd", {}, value)));
  };
  // Without delivery_email the viewer may not see the real address: `email` is then the
  // server's stand-in (user<id>@<realm host>), which is no use to show.
  const email = user.delivery_email || (/^user\d+@/.test(user.email || "") ? null : user.email);
  row("Email", email);
  row("Role", user.is_active === false ? `${roleName(user)} (deactivated)` : roleName(user));
  if (user.is_bot && user.bot_owner_id != null) {
    const owner = ctx.users.get(user.bot_owner_id);
    row("Owner", owner ? owner.full_name : null);
  }
  if (user.timezone) {
    row("Time zone", user.timezone);
    row("Local time", h("span", { class: "f-local-time" }, localTimeText(user, state)));
  }
  const s = state.statuses.get(user.user_id);
  if (s && (s.status_text || s.emoji_name)) {
    const value = h("span", { class: "f-profile-status" });
    if (s.emoji_name) {
      if (s.reaction_type === "realm_emoji" && state.realmEmoji[s.emoji_code]) {
        value.append(emojiGlyph({ reaction_type: "realm_emoji", source_url: state.realmEmoji[s.emoji_code].source_url }));
      } else if (s.reaction_type !== "realm_emoji") {
        value.append(emojiGlyph({ reaction_type: "unicode_emoji", emoji_code: s.emoji_code }));
      }
      value.append(h("span", { class: "f-visually-hidden" }, `:${s.emoji_name}: `));
    }
    if (s.status_text) value.append(` ${s.status_text}`);
    row("Status", value);
  }
  if (user.date_joined) row("Joined", new Date(user.date_joined).toLocaleDateString());
  const data = user.profile_data || {};
  const fields = [...state.profileFields].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  for (const field of fields) {
    const entry = data[field.id] ?? data[String(field.id)];
    if (!entry || entry.value == null || entry.value === "") continue;
    const text = profileFieldText(field, entry.value, (id) => ctx.users.get(id)?.full_name);
    if (Number(field.type) === 5 && /^https?:\/\//i.test(text)) {
      row(field.name, h("a", { href: text, target: "_blank", rel: "noopener noreferrer" }, text));
    } else if (Number(field.type) === 7) {
      row(field.name, externalAccount(field, text));
    } else {
      row(field.name, text);
    }
  }
  const slug = userSlug(user);
  const actions = h(
    "div",
    { class: "f-profile-actions" },
    h("button", { type: "button", class: "f-button f-primary", "data-nav": `#narrow/dm/${slug}` }, "Send direct message"),
    h("button", { type: "button", class: "f-button", "data-nav": `#narrow/sender/${slug}` }, "View messages"),
  );
  dialog.append(header, rows, actions);
}

function externalAccount(field, value) {
  try {
    const data = JSON.parse(field.field_data || "{}");
    const pattern = data.url_pattern || { github: "https://github.com/%(username)s", twitter: "https://twitter.com/%(username)s" }[data.subtype];
    if (pattern && /^[\w.-]+$/.test(value)) {
      const url = pattern.replace("%(username)s", encodeURIComponent(value));
      if (/^https?:\/\//i.test(url)) return h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, value);
    }
  } catch {
    // Fall back to text.
  }
  return value;
}
