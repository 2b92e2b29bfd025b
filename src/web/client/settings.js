// Personal and organization settings: mountSettings(container, ctx, section) for the hashes
// #settings/<section> (profile, account, preferences, notifications) and, for administrators,
// #organization/<section> (profile, permissions, emoji, users, invites). Forms send only what
// changed (PATCH /settings, PATCH /realm, ...) and show the server's error next to the form
// (role="alert"). Values follow user_settings and realm events. Returns {unmount()}.
import { errorText, field, h, localAvatarUrl, showError, toggle, uid } from "./f_dom.js";
import { diffSettings, roleName, themeFor } from "./f_logic.js";
import { featureState } from "./f_state.js";
import { emojiGlyph, openEmojiPicker } from "./emoji_picker.js";
import { profileFieldsForm } from "./profile_fields.js";

const PERSONAL = [
  ["profile", "Profile"],
  ["account", "Account & privacy"],
  ["preferences", "Preferences"],
  ["notifications", "Notifications"],
];
const ORGANIZATION = [
  ["profile", "Organization profile"],
  ["permissions", "Organization permissions"],
  ["emoji", "Custom emoji"],
  ["users", "Users"],
  ["invites", "Invitations"],
];

// Upstream's section names (its web app's hashes) for ours.
const ALIASES = {
  settings: {
    "your-account": "account",
    "account-and-privacy": "account",
    "display-settings": "preferences",
  },
  organization: {
    "organization-profile": "profile",
    "organization-permissions": "permissions",
    "organization-settings": "permissions",
    "emoji-settings": "emoji",
    "user-list-admin": "users",
    "deactivated-users-admin": "users",
    "bot-list-admin": "users",
    "invites-list-admin": "invites",
  },
};

/**
 * Splits "settings/profile", "organization/emoji" or a bare personal section name into
 * {area, name}, mapping upstream's names ("organization/organization-profile").
 */
export function parseSection(section) {
  const text = String(section || "").replace(/^#/, "");
  const [first, second] = text.split("/");
  let area;
  let name;
  if (first === "organization" || first === "settings") {
    area = first;
    name = second || "profile";
  } else if (ALIASES.organization[first] || (ORGANIZATION.some(([n]) => n === first) && !PERSONAL.some(([n]) => n === first))) {
    area = "organization";
    name = first;
  } else {
    area = "settings";
    name = first || "profile";
  }
  return { area, name: ALIASES[area][name] || name };
}

/** Sets <html data-theme> from a color_scheme value (1 automatic, 2 dark, 3 light). */
export function applyColorScheme(colorScheme) {
  const prefersDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.setAttribute("data-theme", themeFor(colorScheme, prefersDark));
}

function isAdmin(ctx) {
  return Boolean(ctx.me && (ctx.me.is_admin || ctx.me.is_owner || Number(ctx.me.role) <= 200));
}
function isOwner(ctx) {
  return Boolean(ctx.me && (ctx.me.is_owner || Number(ctx.me.role) === 100));
}

export function mountSettings(container, ctx, section) {
  const state = featureState(ctx);
  let current = parseSection(section);
  let cleanup = [];
  const root = h("div", { class: "f-settings" });
  container.append(root);

  const render = () => {
    for (const off of cleanup) off();
    cleanup = [];
    const admin = isAdmin(ctx);
    const navLink = (area, name, label) =>
      h(
        "a",
        {
          href: `#${area}/${name}`,
          class: "f-settings-link",
          "aria-current": current.area === area && current.name === name ? "page" : false,
        },
        label,
      );
    const nav = h(
      "nav",
      { class: "f-settings-nav", "aria-label": "Settings sections" },
      h("h2", {}, "Personal settings"),
      h("ul", {}, PERSONAL.map(([n, label]) => h("li", {}, navLink("settings", n, label)))),
      admin ? h("h2", {}, "Organization settings") : null,
      admin ? h("ul", {}, ORGANIZATION.map(([n, label]) => h("li", {}, navLink("organization", n, label)))) : null,
    );
    const panel = h("section", { class: "f-settings-panel" });
    root.replaceChildren(nav, panel);
    const list = current.area === "organization" ? ORGANIZATION : PERSONAL;
    const known = list.find(([n]) => n === current.name);
    const heading = h("h1", { id: uid("f-settings-title") }, known ? known[1] : "Settings");
    panel.setAttribute("aria-labelledby", heading.id);
    panel.append(heading);
    if (!known) {
      panel.append(h("p", {}, "There is no such settings page."));
      return;
    }
    if (current.area === "organization" && !admin) {
      panel.append(h("p", { class: "f-hint" }, "Only organization administrators can change these settings."));
      return;
    }
    const sections = current.area === "organization" ? ORG_SECTIONS : PERSONAL_SECTIONS;
    const off = sections[current.name](panel, ctx, state);
    if (typeof off === "function") cleanup.push(off);
  };

  const onHash = () => {
    const match = location.hash.match(/^#((?:settings|organization)\/[\w-]+)/);
    if (!match) return;
    const next = parseSection(match[1]);
    if (next.area !== current.area || next.name !== current.name) {
      current = next;
      render();
    }
  };
  window.addEventListener("hashchange", onHash);
  render();
  return {
    unmount() {
      window.removeEventListener("hashchange", onHash);
      for (const off of cleanup) off();
      cleanup = [];
      root.remove();
    },
  };
}

// A form with an alert line and a success line; `submit` returns a promise.
function form(label, controls, submitText, submit) {
  const alert = h("p", { class: "f-error", role: "alert", hidden: true });
  const done = h("p", { class: "f-saved", role: "status" });
  const button = h("button", { type: "submit", class: "f-button f-primary" }, submitText);
  const el = h("form", { class: "f-form", "aria-label": label, novalidate: true }, controls, h("div", { class: "f-form-actions" }, button, done), alert);
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(alert, "");
    done.textContent = "";
    button.disabled = true;
    try {
      const message = await submit();
      done.textContent = message || "Saved";
    } catch (err) {
      showError(alert, errorText(err));
    } finally {
      button.disabled = false;
    }
  });
  return { el, alert, done };
}

// Controls that save as soon as they change (preferences, notifications).
function liveSaver(ctx) {
  const alert = h("p", { class: "f-error", role: "alert", hidden: true });
  const done = h("p", { class: "f-saved", role: "status" });
  const save = async (params, after) => {
    showError(alert, "");
    done.textContent = "";
    try {
      await ctx.api.patch("settings", params);
      done.textContent = "Saved";
      if (after) after();
    } catch (err) {
      showError(alert, errorText(err));
    }
  };
  return { alert, done, save };
}

function select(options, value) {
  return h(
    "select",
    {},
    options.map(([v, label]) => h("option", { value: String(v), selected: String(v) === String(value) }, label)),
  );
}

const PERSONAL_SECTIONS = {
  profile(panel, ctx, state) {
    const me = ctx.users.get(ctx.me.user_id) || ctx.me;
    const name = field("Full name", h("input", { type: "text", value: me.full_name || "", maxlength: "60", autocomplete: "name", required: true }));
    const summaryName = h("p", { class: "f-profile-name" }, me.full_name);
    const nameForm = form("Full name", [name.row], "Save", async () => {
      const changed = diffSettings({ full_name: me.full_name }, { full_name: name.input.value.trim() });
      if (!changed.full_name) return "No changes";
      await ctx.api.patch("settings", changed);
      me.full_name = changed.full_name;
      summaryName.textContent = changed.full_name;
      return "Saved";
    });
    const avatarUrl = localAvatarUrl(me.avatar_url);
    const avatar = avatarUrl
      ? h("img", { class: "f-avatar f-avatar-large", src: avatarUrl, alt: "Your avatar" })
      : h("span", { class: "f-avatar f-avatar-large f-avatar-initial", "aria-hidden": "true" }, (me.full_name || "?").slice(0, 1));
    const s = state.statuses.get(ctx.me.user_id) || {};
    let statusEmoji = s.emoji_name
      ? { emoji_name: s.emoji_name, emoji_code: s.emoji_code, reaction_type: s.reaction_type || "unicode_emoji" }
      : null;
    const emojiButton = h("button", { type: "button", class: "f-button f-status-emoji" });
    const showEmoji = () => {
      emojiButton.replaceChildren();
      if (statusEmoji) {
        const custom = statusEmoji.reaction_type === "realm_emoji" ? state.realmEmoji[statusEmoji.emoji_code] : null;
        emojiButton.append(
          custom
            ? emojiGlyph({ reaction_type: "realm_emoji", source_url: custom.source_url })
            : emojiGlyph({ reaction_type: "unicode_emoji", emoji_code: statusEmoji.emoji_code }),
        );
        emojiButton.setAttribute("aria-label", `Status emoji: ${statusEmoji.emoji_name}`);
      } else {
        emojiButton.append("Add status emoji");
        emojiButton.removeAttribute("aria-label");
      }
    };
    showEmoji();
    emojiButton.addEventListener("click", () =>
      openEmojiPicker({
        anchor: emojiButton,
        ctx,
        onPick: (emoji) => {
          statusEmoji = emoji;
          showEmoji();
        },
      }),
    );
    const statusText = field("Status message", h("input", { type: "text", value: s.status_text || "", maxlength: "60" }));
    const statusForm = form("Status", [h("div", { class: "f-status-row" }, emojiButton, statusText.row)], "Set status", async () => {
      const params = { status_text: statusText.input.value.trim() };
      if (statusEmoji) Object.assign(params, statusEmoji);
      else params.emoji_name = "";
      await ctx.api.post("users/me/status", params);
      return "Status set";
    });
    const clear = h("button", { type: "button", class: "f-button" }, "Clear status");
    clear.addEventListener("click", async () => {
      showError(statusForm.alert, "");
      try {
        await ctx.api.post("users/me/status", { status_text: "", emoji_name: "" });
        statusText.input.value = "";
        statusEmoji = null;
        showEmoji();
        statusForm.done.textContent = "Status cleared";
      } catch (err) {
        showError(statusForm.alert, errorText(err));
      }
    });
    statusForm.el.querySelector(".f-form-actions").append(clear);
    panel.append(
      h("div", { class: "f-profile-summary" }, avatar, summaryName),
      nameForm.el,
      h("h2", {}, "Status"),
      statusForm.el,
    );
    const fieldsForm = profileFieldsForm(ctx, state.profileFields);
    if (fieldsForm) panel.append(h("h2", {}, "Profile fields"), fieldsForm);
  },

  account(panel, ctx, state) {
    const me = ctx.users.get(ctx.me.user_id) || ctx.me;
    panel.append(
      h("dl", { class: "f-profile-fields" },
        h("div", { class: "f-profile-row" }, h("dt", {}, "Role"), h("dd", {}, roleName(me))),
      ),
    );
    // The address as a read-only field named "username" so password managers file the change.
    const email = field(
      "Email",
      h("input", { type: "email", readonly: true, autocomplete: "username", value: me.delivery_email || ctx.initial.delivery_email || me.email || "" }),
      "Outpost sends no mail, so the address cannot be changed here.",
    );
    const min = Number(ctx.initial.password_min_length) || 6;
    const oldPw = field("Old password", h("input", { type: "password", autocomplete: "current-password" }));
    const newPw = field("New password", h("input", { type: "password", autocomplete: "new-password", minlength: String(min) }), `At least ${min} characters.`);
    const again = field("Confirm new password", h("input", { type: "password", autocomplete: "new-password" }));
    const pwForm = form("Change password", [email.row, oldPw.row, newPw.row, again.row], "Change password", async () => {
      if (newPw.input.value !== again.input.value) throw new Error("The new passwords do not match.");
      if (newPw.input.value.length < min) throw new Error(`The new password must have at least ${min} characters.`);
      await ctx.api.patch("settings", { old_password: oldPw.input.value, new_password: newPw.input.value });
      for (const f of [oldPw, newPw, again]) f.input.value = "";
      return "Password changed";
    });
    const privacy = liveSaver(ctx);
    const readReceipts = toggle("Let others see when I've read messages", state.settings.send_read_receipts !== false);
    readReceipts.input.addEventListener("change", () => privacy.save({ send_read_receipts: readReceipts.input.checked }));
    const typing = toggle("Let recipients see when I'm typing direct messages", state.settings.send_private_typing_notifications !== false);
    typing.input.addEventListener("change", () => privacy.save({ send_private_typing_notifications: typing.input.checked }));
    const presence = toggle("Display my availability to other users", state.settings.presence_enabled !== false);
    presence.input.addEventListener("change", () => privacy.save({ presence_enabled: presence.input.checked }));
    panel.append(h("h2", {}, "Email and password"), pwForm.el, h("h2", {}, "Privacy"), readReceipts.row, typing.row, presence.row, privacy.done, privacy.alert);
  },

  preferences(panel, ctx, state) {
    const live = liveSaver(ctx);
    const s = state.settings;
    const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    if (s.timezone && !zones.includes(s.timezone)) zones.unshift(s.timezone);
    const tz = field("Time zone", select([["", "Not set"], ...zones.map((z) => [z, z])], s.timezone || ""));
    tz.input.addEventListener("change", () => live.save({ timezone: tz.input.value }));
    const theme = field("Theme", select([[1, "Automatic (follow system)"], [2, "Dark"], [3, "Light"]], s.color_scheme || 1));
    theme.input.addEventListener("change", () => {
      const value = Number(theme.input.value);
      applyColorScheme(value);
      live.save({ color_scheme: value });
    });
    const clock = field("Time format", select([["false", "12-hour clock (5:00 PM)"], ["true", "24-hour clock (17:00)"]], String(Boolean(s.twenty_four_hour_time))));
    clock.input.addEventListener("change", () => live.save({ twenty_four_hour_time: clock.input.value === "true" }));
    const enter = toggle("Enter sends a message (Shift+Enter adds a line)", Boolean(s.enter_sends));
    enter.input.addEventListener("change", () => live.save({ enter_sends: enter.input.checked }));
    const choices = (s.emojiset_choices || []).map((c) => [c.key, c.text]);
    const emojiset = choices.length ? field("Emoji style", select(choices, s.emojiset)) : null;
    if (emojiset) emojiset.input.addEventListener("change", () => live.save({ emojiset: emojiset.input.value }));
    const reactions = toggle("Show who reacted with names", s.display_emoji_reaction_users !== false);
    reactions.input.addEventListener("change", () => live.save({ display_emoji_reaction_users: reactions.input.checked }));
    panel.append(tz.row, theme.row, clock.row, emojiset ? emojiset.row : null, enter.row, reactions.row, live.done, live.alert);
    return state.subscribe((kind) => {
      if (kind !== "user_settings") return;
      const now = state.settings;
      if (document.activeElement !== tz.input) tz.input.value = now.timezone || "";
      theme.input.value = String(now.color_scheme || 1);
      clock.input.value = String(Boolean(now.twenty_four_hour_time));
      enter.input.checked = Boolean(now.enter_sends);
      if (emojiset) emojiset.input.value = now.emojiset;
      reactions.input.checked = now.display_emoji_reaction_users !== false;
    });
  },

  notifications(panel, ctx, state) {
    const live = liveSaver(ctx);
    const items = [
      ["enable_desktop_notifications", "Desktop notifications for direct messages and mentions"],
      ["enable_sounds", "Sounds for direct messages and mentions"],
      ["pm_content_in_desktop_notifications", "Include message content in desktop notifications"],
      ["enable_stream_desktop_notifications", "Desktop notifications for all channel messages"],
      ["enable_stream_audible_notifications", "Sounds for all channel messages"],
      ["wildcard_mentions_notify", "Notify me of @all and @everyone mentions"],
      ["enable_followed_topic_desktop_notifications", "Desktop notifications for followed topics"],
      ["enable_followed_topic_audible_notifications", "Sounds for followed topics"],
      ["enable_offline_push_notifications", "Mobile notifications for direct messages and mentions"],
      ["enable_online_push_notifications", "Send mobile notifications even when I'm online"],
      ["enable_stream_push_notifications", "Mobile notifications for all channel messages"],
      ["enable_followed_topic_push_notifications", "Mobile notifications for followed topics"],
      ["enable_offline_email_notifications", "Email me about direct messages and mentions while I'm away"],
      ["enable_stream_email_notifications", "Email me about all channel messages while I'm away"],
      ["enable_followed_topic_email_notifications", "Email me about followed topics while I'm away"],
      ["enable_digest_emails", "Send me a weekly digest of what I missed while I'm away"],
    ]
      .filter(([key]) => key in state.settings)
      // The digest only where the server sends it and the organization turned it on.
      .filter(([key]) => key !== "enable_digest_emails" || (ctx.initial.settings_send_digest_emails && state.realm.digest_emails_enabled !== false));
    const toggles = items.map(([key, label]) => {
      const t = toggle(label, Boolean(state.settings[key]));
      t.input.addEventListener("change", () => live.save({ [key]: t.input.checked }));
      return [key, t];
    });
    let permission = null;
    if (typeof Notification !== "undefined" && Notification.permission === "default") {
      permission = h("button", { type: "button", class: "f-button" }, "Allow desktop notifications in this browser");
      permission.addEventListener("click", () => Notification.requestPermission().then(() => permission.remove()));
    }
    panel.append(permission, ...toggles.map(([, t]) => t.row), live.done, live.alert);
    return state.subscribe((kind) => {
      if (kind !== "user_settings") return;
      for (const [key, t] of toggles) t.input.checked = Boolean(state.settings[key]);
    });
  },
};

// System groups by name (role:members ...), for the permission selects.
const GROUP_LABELS = {
  "role:nobody": "Nobody",
  "role:owners": "Owners",
  "role:administrators": "Administrators",
  "role:moderators": "Administrators and moderators",
  "role:fullmembers": "Full members",
  "role:members": "Members",
  "role:everyone": "Everyone, including guests",
};
const GROUP_SETTINGS = [
  ["can_invite_users_group", "Who can invite users to this organization"],
  ["create_multiuse_invite_group", "Who can create reusable invitation links"],
  ["can_create_public_channel_group", "Who can create public channels"],
  ["can_create_private_channel_group", "Who can create private channels"],
  ["can_create_groups", "Who can create user groups"],
  ["can_add_custom_emoji_group", "Who can add custom emoji"],
  ["can_create_bots_group", "Who can create bots"],
  ["direct_message_permission_group", "Who can take part in direct messages"],
  ["direct_message_initiator_group", "Who can start direct messages"],
];
const LIMITS = [
  ["message_content_edit_limit_seconds", "Time limit for editing messages"],
  ["move_messages_within_stream_limit_seconds", "Time limit for moving messages between topics"],
  ["move_messages_between_streams_limit_seconds", "Time limit for moving messages between channels"],
];
const LIMIT_CHOICES = [
  ["unlimited", "Any time"],
  ["120", "2 minutes"],
  ["600", "10 minutes"],
  ["3600", "1 hour"],
  ["86400", "1 day"],
  ["259200", "3 days"],
  ["604800", "1 week"],
];

function limitChoices(value) {
  const choices = [...LIMIT_CHOICES];
  if (value != null && !choices.some(([v]) => v === String(value))) choices.push([String(value), `${Math.round(value / 60)} minutes`]);
  return choices;
}

const LANGUAGES = [
  ["en", "English"],
  ["de", "Deutsch"],
  ["es", "Español"],
  ["fr", "Français"],
  ["it", "Italiano"],
  ["nl", "Nederlands"],
  ["pl", "Polski"],
  ["pt", "Português"],
  ["ru", "Русский"],
  ["ja", "日本語"],
  ["zh-hans", "简体中文"],
];
const ANNOUNCEMENT_CHANNELS = [
  ["new_stream_announcements_stream_id", "New channel announcements"],
  ["signup_announcements_stream_id", "New user announcements"],
  ["zulip_update_announcements_stream_id", "Outpost update announcements"],
  ["moderation_request_channel_id", "Moderation requests"],
];

const ORG_SECTIONS = {
  profile(panel, ctx, state) {
    const name = field("Organization name", h("input", { type: "text", value: state.realm.name || "", maxlength: "40", required: true }));
    const description = field("Organization description", h("textarea", { rows: "4", maxlength: "1000" }));
    description.input.value = state.realm.description || "";
    const languages = [...LANGUAGES];
    const currentLanguage = state.realm.default_language || "en";
    if (!languages.some(([code]) => code === currentLanguage)) languages.push([currentLanguage, currentLanguage]);
    const language = field("Default language", select(languages, currentLanguage));
    const channels = (ctx.initial.streams || []).filter((c) => !c.is_archived).sort((a, b) => a.name.localeCompare(b.name));
    const channelFields = ANNOUNCEMENT_CHANNELS.filter(([key]) => key in state.realm).map(([key, label]) => {
      const f = field(label, select([[-1, "Disabled"], ...channels.map((c) => [c.stream_id, `#${c.name}`])], state.realm[key] ?? -1));
      return [key, f];
    });
    const original = () => {
      const o = { name: state.realm.name || "", description: state.realm.description || "", default_language: state.realm.default_language || "en" };
      for (const [key] of channelFields) o[key] = Number(state.realm[key] ?? -1);
      return o;
    };
    const f = form(
      "Organization profile",
      [name.row, description.row, language.row, channelFields.length ? h("h2", {}, "Announcement channels") : null, channelFields.map(([, c]) => c.row)],
      "Save changes",
      async () => {
        const values = { name: name.input.value.trim(), description: description.input.value, default_language: language.input.value };
        for (const [key, c] of channelFields) values[key] = Number(c.input.value);
        const changed = diffSettings(original(), values);
        if (Object.keys(changed).length === 0) return "No changes";
        await ctx.api.patch("realm", changed);
        Object.assign(state.realm, changed);
        return "Saved";
      },
    );
    panel.append(f.el);
    return state.subscribe((kind) => {
      if (kind !== "realm") return;
      if (document.activeElement !== name.input) name.input.value = state.realm.name || "";
      if (document.activeElement !== description.input) description.input.value = state.realm.description || "";
    });
  },

  permissions(panel, ctx, state) {
    const groups = (ctx.initial.realm_user_groups || []).filter((g) => g.is_system_group && GROUP_LABELS[g.name] && g.name !== "role:internet");
    const named = (ctx.initial.realm_user_groups || []).filter((g) => !g.is_system_group && !g.deactivated);
    const groupOptions = [...groups.map((g) => [g.id, GROUP_LABELS[g.name]]), ...named.map((g) => [g.id, g.name])];
    const original = () => {
      const o = {};
      for (const [key] of GROUP_SETTINGS) if (key in state.realm) o[key] = groupId(state.realm[key]);
      for (const [key] of LIMITS) if (key in state.realm) o[key] = state.realm[key] == null ? "unlimited" : String(state.realm[key]);
      o.allow_message_editing = Boolean(state.realm.allow_message_editing);
      o.waiting_period_threshold = String(state.realm.waiting_period_threshold ?? 0);
      if ("digest_emails_enabled" in state.realm) o.digest_emails_enabled = Boolean(state.realm.digest_emails_enabled);
      if ("digest_weekday" in state.realm) o.digest_weekday = String(state.realm.digest_weekday);
      return o;
    };
    const start = original();
    const controls = {};
    const rows = [];
    for (const [key, label] of GROUP_SETTINGS) {
      if (!(key in start)) continue;
      const options = groupOptions.some(([id]) => id === start[key]) ? groupOptions : [...groupOptions, [start[key], "A custom group"]];
      const f = field(label, select(options, start[key]));
      controls[key] = () => Number(f.input.value);
      rows.push(f.row);
    }
    const editing = toggle("Allow message editing", start.allow_message_editing);
    controls.allow_message_editing = () => editing.input.checked;
    rows.push(editing.row);
    for (const [key, label] of LIMITS) {
      if (!(key in start)) continue;
      const f = field(label, select(limitChoices(start[key] === "unlimited" ? null : Number(start[key])), start[key]));
      controls[key] = () => f.input.value;
      rows.push(f.row);
    }
    const waiting = field(
      "Waiting period before new members become full members (days)",
      h("input", { type: "number", min: "0", max: "1000", step: "1", value: start.waiting_period_threshold }),
    );
    controls.waiting_period_threshold = () => waiting.input.value;
    rows.push(waiting.row);
    if ("digest_emails_enabled" in start) {
      const digest = toggle("Send weekly digest emails to inactive users", start.digest_emails_enabled);
      controls.digest_emails_enabled = () => digest.input.checked;
      rows.push(digest.row);
    }
    if ("digest_weekday" in start) {
      const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].map((d, i) => [String(i), d]);
      const weekday = field("Day of the week to send digests (UTC)", select(days, start.digest_weekday));
      controls.digest_weekday = () => weekday.input.value;
      rows.push(weekday.row);
    }
    const f = form("Organization permissions", rows, "Save changes", async () => {
      const values = {};
      for (const [key, get] of Object.entries(controls)) values[key] = get();
      const changed = diffSettings(original(), values);
      if (Object.keys(changed).length === 0) return "No changes";
      const params = {};
      for (const [key, value] of Object.entries(changed)) {
        if (GROUP_SETTINGS.some(([k]) => k === key)) params[key] = { new: value };
        else if (key === "waiting_period_threshold") {
          if (!/^\d+$/.test(value)) throw new Error("The waiting period must be a whole number of days.");
          params[key] = Number(value);
        } else if (key === "digest_weekday") params[key] = Number(value);
        else if (LIMITS.some(([k]) => k === key)) params[key] = value === "unlimited" ? "unlimited" : Number(value);
        else params[key] = value;
      }
      await ctx.api.patch("realm", params);
      for (const [key, value] of Object.entries(params)) {
        state.realm[key] = value && typeof value === "object" && "new" in value ? value.new : value === "unlimited" ? null : value;
      }
      return "Saved";
    });
    panel.append(f.el);
  },

  emoji(panel, ctx, state) {
    const list = h("ul", { class: "f-emoji-admin" });
    const listAlert = h("p", { class: "f-error", role: "alert", hidden: true });
    const renderList = () => {
      const active = Object.values(state.realmEmoji).filter((e) => !e.deactivated).sort((a, b) => a.name.localeCompare(b.name));
      list.replaceChildren(
        ...active.map((e) => {
          const author = e.author_id != null ? ctx.users.get(e.author_id) : null;
          const remove = h("button", { type: "button", class: "f-button f-danger", "aria-label": `Deactivate ${e.name}` }, "Deactivate");
          remove.addEventListener("click", async () => {
            showError(listAlert, "");
            remove.disabled = true;
            try {
              await ctx.api.del(`realm/emoji/${encodeURIComponent(e.name)}`);
              e.deactivated = true;
              renderList();
            } catch (err) {
              remove.disabled = false;
              showError(listAlert, errorText(err));
            }
          });
          return h(
            "li",
            { class: "f-emoji-admin-row" },
            emojiGlyph({ reaction_type: "realm_emoji", source_url: e.source_url }),
            h("span", { class: "f-emoji-admin-name" }, `:${e.name}:`),
            h("span", { class: "f-muted" }, author ? `added by ${author.full_name}` : ""),
            remove,
          );
        }),
      );
      if (active.length === 0) list.append(h("li", { class: "f-empty" }, "No custom emoji yet."));
    };
    const name = field("Emoji name", h("input", { type: "text", pattern: "[a-z0-9_-]+", maxlength: "60", autocomplete: "off" }), "Lower-case letters, digits, - and _.");
    const file = field("Emoji image", h("input", { type: "file", accept: "image/png,image/gif,image/jpeg,image/webp" }));
    const upload = form("Add custom emoji", [name.row, file.row], "Add emoji", async () => {
      const emojiName = name.input.value.trim();
      if (!/^[a-z0-9_-]+$/.test(emojiName)) throw new Error("Give the emoji a name of lower-case letters, digits, - or _.");
      const chosen = file.input.files && file.input.files[0];
      if (!chosen) throw new Error("Choose an image file.");
      const data = new FormData();
      data.append("file", chosen, chosen.name);
      await ctx.api.post(`realm/emoji/${encodeURIComponent(emojiName)}`, data);
      name.input.value = "";
      file.input.value = "";
      return `Added :${emojiName}:`;
    });
    renderList();
    panel.append(h("h2", {}, "Add a new emoji"), upload.el, h("h2", {}, "Custom emoji"), listAlert, list);
    return state.subscribe((kind) => {
      if (kind === "realm_emoji") renderList();
    });
  },

  users(panel, ctx, state) {
    const alert = h("p", { class: "f-error", role: "alert", hidden: true });
    const done = h("p", { class: "f-saved", role: "status" });
    const filter = h("input", { type: "search", "aria-label": "Filter organization users", placeholder: "Filter by name or email" });
    const body = h("tbody");
    const table = h(
      "table",
      { class: "f-table", "aria-label": "Users" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Email"), h("th", { scope: "col" }, "Role"), h("th", { scope: "col" }, "Actions"))),
      body,
    );
    let users = [];
    const roles = [[100, "Owner"], [200, "Administrator"], [300, "Moderator"], [400, "Member"], [600, "Guest"]];
    const act = async (promise, message) => {
      showError(alert, "");
      done.textContent = "";
      try {
        await promise();
        done.textContent = message;
        await load();
      } catch (err) {
        showError(alert, errorText(err));
        renderRows();
      }
    };
    const renderRows = () => {
      const q = filter.value.trim().toLowerCase();
      const shown = users
        .filter((u) => !u.is_bot || u.bot_type != null)
        .filter((u) => !q || (u.full_name || "").toLowerCase().includes(q) || (u.delivery_email || u.email || "").toLowerCase().includes(q))
        .sort((a, b) => Number(b.is_active) - Number(a.is_active) || (a.full_name || "").localeCompare(b.full_name || ""));
      body.replaceChildren(
        ...shown.map((u) => {
          const self = u.user_id === ctx.me.user_id;
          let roleCell = roleName(u);
          if (!u.is_bot && u.is_active && !self) {
            const options = isOwner(ctx) ? roles : roles.filter(([r]) => r !== 100 || Number(u.role) === 100);
            const s = select(options, u.role);
            s.setAttribute("aria-label", `Role of ${u.full_name}`);
            if (Number(u.role) === 100 && !isOwner(ctx)) s.disabled = true;
            s.addEventListener("change", () => act(() => ctx.api.patch(`users/${u.user_id}`, { role: Number(s.value) }), `${u.full_name} is now ${roleName({ role: Number(s.value) })}`));
            roleCell = s;
          }
          let action = null;
          if (!self) {
            action = u.is_active
              ? h("button", { type: "button", class: "f-button f-danger", "aria-label": `Deactivate ${u.full_name}` }, "Deactivate")
              : h("button", { type: "button", class: "f-button", "aria-label": `Reactivate ${u.full_name}` }, "Reactivate");
            action.addEventListener("click", () => {
              if (u.is_active) {
                if (!window.confirm(`Deactivate ${u.full_name}? They will be logged out at once.`)) return;
                act(() => ctx.api.del(u.is_bot ? `bots/${u.user_id}` : `users/${u.user_id}`), `${u.full_name} deactivated`);
              } else {
                act(() => ctx.api.post(`users/${u.user_id}/reactivate`), `${u.full_name} reactivated`);
              }
            });
          }
          return h(
            "tr",
            { class: u.is_active ? "" : "f-deactivated" },
            h("td", {}, u.full_name, u.is_bot ? h("span", { class: "f-muted" }, " (bot)") : null, u.is_active ? null : h("span", { class: "f-muted" }, " (deactivated)")),
            h("td", {}, u.delivery_email || u.email),
            h("td", {}, roleCell),
            h("td", { class: "f-actions" }, action),
          );
        }),
      );
    };
    const load = async () => {
      try {
        const answer = await ctx.api.get("users", { client_gravatar: false, include_custom_profile_fields: false });
        users = answer.members || [];
      } catch (err) {
        users = [...ctx.users.values(), ...state.nonActive.values()].filter((u) => !u.is_system_bot);
        showError(alert, errorText(err));
      }
      renderRows();
    };
    filter.addEventListener("input", renderRows);
    panel.append(filter, alert, done, h("div", { class: "f-table-wrap" }, table));
    load();
    let pending = null;
    return state.subscribe((kind) => {
      if (kind !== "realm_user") return;
      clearTimeout(pending);
      pending = setTimeout(load, 200);
    });
  },

  invites(panel, ctx, state) {
    const roles = [[400, "Members"], [600, "Guests"], [300, "Moderators"], [200, "Administrators"]];
    if (isOwner(ctx)) roles.push([100, "Owners"]);
    const expiry = [["1440", "1 day"], ["4320", "3 days"], ["14400", "10 days"], ["43200", "30 days"], ["null", "Never expires"]];
    const channels = (ctx.initial.streams || ctx.initial.subscriptions || []).filter((s) => !s.is_archived);
    const channelBoxes = channels.map((s) => toggle(`#${s.name}`, (ctx.initial.realm_default_streams || []).some((d) => (d.stream_id ?? d) === s.stream_id)));
    const channelField = channels.length
      ? h("fieldset", { class: "f-fieldset" }, h("legend", {}, "Channels they join"), channelBoxes.map((b) => b.row))
      : null;
    const emails = field("Emails", h("textarea", { rows: "3", placeholder: "one@example.com, two@example.com" }), "Separate addresses with commas or new lines.");
    const inviteAs = field("Invite as", select(roles, 400));
    const expires = field("Invitation expires after", select(expiry, "14400"));
    const streamIds = () => channels.filter((_, i) => channelBoxes[i].input.checked).map((s) => s.stream_id);
    const common = () => {
      const minutes = expires.input.value === "null" ? null : Number(expires.input.value);
      return { invite_as: Number(inviteAs.input.value), invite_expires_in_minutes: minutes, stream_ids: streamIds() };
    };
    const linkOut = h("div", { class: "f-invite-link", "aria-live": "polite" });
    const sendForm = form("Invite users", [emails.row, inviteAs.row, expires.row, channelField], "Send invitations", async () => {
      const list = emails.input.value.split(/[\s,;]+/).map((e) => e.trim()).filter(Boolean);
      if (list.length === 0) throw new Error("Enter at least one email address.");
      await ctx.api.post("invites", { invitee_emails: list.join(","), ...common() });
      emails.input.value = "";
      await load();
      return list.length === 1 ? "Invitation sent" : `${list.length} invitations sent`;
    });
    const linkButton = h("button", { type: "button", class: "f-button" }, "Create invite link");
    linkButton.addEventListener("click", async () => {
      showError(sendForm.alert, "");
      linkButton.disabled = true;
      try {
        const answer = await ctx.api.post("invites/multiuse", common());
        const input = h("input", { type: "text", readonly: true, value: answer.invite_link, "aria-label": "Invite link" });
        const copy = h("button", { type: "button", class: "f-button" }, "Copy link");
        copy.addEventListener("click", () => {
          input.select();
          const ok = navigator.clipboard ? navigator.clipboard.writeText(input.value) : Promise.reject(new Error("no clipboard"));
          ok.then(() => (copy.textContent = "Copied"), () => document.execCommand && document.execCommand("copy"));
        });
        linkOut.replaceChildren(input, copy);
        input.select();
        await load();
      } catch (err) {
        showError(sendForm.alert, errorText(err));
      } finally {
        linkButton.disabled = false;
      }
    });
    sendForm.el.querySelector(".f-form-actions").append(linkButton);
    const listAlert = h("p", { class: "f-error", role: "alert", hidden: true });
    const body = h("tbody");
    const table = h(
      "table",
      { class: "f-table", "aria-label": "Invitations" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Invitee"), h("th", { scope: "col" }, "Invited by"), h("th", { scope: "col" }, "Role"), h("th", { scope: "col" }, "Expires"), h("th", { scope: "col" }, "Actions"))),
      body,
    );
    const load = async () => {
      try {
        const answer = await ctx.api.get("invites");
        const invites = (answer.invites || []).sort((a, b) => b.invited - a.invited);
        body.replaceChildren(
          ...invites.map((inv) => {
            const by = ctx.users.get(inv.invited_by_user_id);
            const who = inv.is_multiuse ? h("span", {}, "Invite link ", h("code", {}, inv.link_url || "")) : inv.email;
            const label = inv.is_multiuse ? `reusable link ${inv.id}` : inv.email;
            const revoke = h("button", { type: "button", class: "f-button f-danger", "aria-label": `Revoke ${label}` }, "Revoke");
            revoke.addEventListener("click", async () => {
              showError(listAlert, "");
              revoke.disabled = true;
              try {
                await ctx.api.del(inv.is_multiuse ? `invites/multiuse/${inv.id}` : `invites/${inv.id}`);
                await load();
              } catch (err) {
                revoke.disabled = false;
                showError(listAlert, errorText(err));
              }
            });
            return h(
              "tr",
              {},
              h("td", { class: "f-break" }, who),
              h("td", {}, by ? by.full_name : ""),
              h("td", {}, roleName({ role: inv.invited_as })),
              h("td", {}, inv.expiry_date ? new Date(inv.expiry_date * 1000).toLocaleString() : "Never"),
              h("td", { class: "f-actions" }, revoke),
            );
          }),
        );
        if (invites.length === 0) body.append(h("tr", {}, h("td", { colspan: "5", class: "f-empty" }, "No open invitations.")));
      } catch (err) {
        showError(listAlert, errorText(err));
      }
    };
    panel.append(sendForm.el, linkOut, h("h2", {}, "Open invitations"), listAlert, h("div", { class: "f-table-wrap" }, table));
    load();
    return ctx.onEvent("invites_changed", () => load());
  },
};

function groupId(value) {
  if (value && typeof value === "object") return value.id ?? null;
  return value;
}
