// What a person can do to one message: the per-message toolbar (Add reaction, Edit, Move,
// Delete, Star, Quote and reply), reaction toggling, the inline editor, and the move and
// delete dialogs. Permission checks follow the realm settings the register response gave.
import { h, namesFor } from "./render.js";
import { isResolved, narrowHash } from "./narrow.js";
import { quoteBlock } from "./compose.js";
import { openEmojiPicker } from "./emoji_picker.js";

/** Whether `me` may still edit the content of a message (sender, realm policy, time limit). */
export function canEdit(message, me, realm, now = Date.now() / 1000) {
  if (message.sender_id !== me) return false;
  if (realm.allow_message_editing === false) return false;
  const limit = realm.message_content_edit_limit_seconds;
  if (limit === null || limit === undefined || limit === 0) return true;
  return now - message.timestamp <= limit + 5;
}

export function createActions(app) {
  const store = () => app.store;

  function toggleReaction(message, emoji) {
    const mine = (message.reactions || []).some((r) => r.user_id === store().me && r.emoji_code === emoji.emoji_code && r.reaction_type === emoji.reaction_type);
    const params = { emoji_name: emoji.emoji_name, emoji_code: emoji.emoji_code, reaction_type: emoji.reaction_type };
    const call = mine ? app.api.del(`messages/${message.id}/reactions`, params) : app.api.post(`messages/${message.id}/reactions`, params);
    call.catch((err) => app.toast(`Reaction failed: ${err.message}`));
  }

  function react(message, anchor) {
    openEmojiPicker({ anchor, ctx: app.ctx, onPick: (emoji) => toggleReaction(message, emoji) });
  }

  function edit(message, article) {
    if (article.querySelector(".edit-form")) return;
    const content = article.querySelector(".message-content");
    const area = h("textarea", { class: "edit-text", "aria-label": "Edit message", rows: "4", disabled: true }, "");
    const status = h("p", { class: "compose-error", role: "alert" });
    const bar = article.querySelector(".message-actions");
    const close = () => {
      form.remove();
      content.hidden = false;
      if (bar) bar.hidden = false;
      article.focus();
    };
    const form = h("form", { class: "edit-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await app.api.patch(`messages/${message.id}`, { content: area.value });
        close();
      } catch (err) {
        status.textContent = `Could not save: ${err.message}`;
      }
    } }, area, status, h("div", { class: "edit-buttons" },
      h("button", { type: "submit", class: "primary" }, "Save"),
      h("button", { type: "button", onclick: close }, "Cancel")));
    area.addEventListener("keydown", (e) => {
      if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); close(); }
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
    });
    content.hidden = true;
    if (bar) bar.hidden = true;
    content.after(form);
    app.api.get(`messages/${message.id}`, { apply_markdown: false }).then((answer) => {
      area.value = answer.raw_content !== undefined ? answer.raw_content : answer.message.content;
      area.disabled = false;
      area.focus();
    }).catch((err) => {
      status.textContent = `Could not load the message: ${err.message}`;
    });
  }

  function dialog(label, body, onConfirm, confirmText) {
    const status = h("p", { class: "compose-error", role: "alert" });
    const dlg = h("dialog", { class: "dialog", "aria-label": label },
      h("form", { method: "dialog", onsubmit: async (e) => {
        e.preventDefault();
        try {
          await onConfirm();
          dlg.close();
        } catch (err) {
          status.textContent = err.message;
        }
      } }, h("h2", {}, label), body, status,
      h("div", { class: "dialog-buttons" },
        h("button", { type: "submit", class: "primary" }, confirmText),
        h("button", { type: "button", onclick: () => dlg.close() }, "Cancel"))));
    const returnTo = document.activeElement;
    dlg.addEventListener("close", () => {
      dlg.remove();
      if (returnTo && returnTo.focus) returnTo.focus();
    });
    document.body.append(dlg);
    dlg.showModal();
    return dlg;
  }

  function move(message) {
    if (message.type !== "stream") {
      app.toast("Direct messages cannot be moved.");
      return;
    }
    const channel = h("select", { id: "move-channel" },
      ...[...store().subs.values()].map((s) => h("option", { value: s.stream_id, selected: s.stream_id === message.stream_id }, s.name)));
    const topic = h("input", { id: "move-topic", value: message.subject, maxlength: "60" });
    const mode = h("select", { id: "move-mode" },
      h("option", { value: "change_all" }, "Move all messages in this topic"),
      h("option", { value: "change_later" }, "Move this and all following messages"),
      h("option", { value: "change_one" }, "Move only this message"));
    const body = h("div", { class: "dialog-fields" },
      h("label", { for: "move-channel" }, "Channel"), channel,
      h("label", { for: "move-topic" }, "Topic"), topic,
      h("label", { for: "move-mode" }, "Which messages"), mode);
    dialog("Move messages", body, async () => {
      const params = { propagate_mode: mode.value };
      if (topic.value !== message.subject) params.topic = topic.value;
      if (Number(channel.value) !== message.stream_id) params.stream_id = Number(channel.value);
      if (params.topic === undefined && params.stream_id === undefined) return;
      await app.api.patch(`messages/${message.id}`, params);
      const terms = app.terms || [];
      if (terms.some((t) => t.operator === "topic")) {
        app.navigate(narrowHash([{ operator: "channel", operand: params.stream_id || message.stream_id }, { operator: "topic", operand: params.topic ?? message.subject }], namesFor(store())));
      }
    }, "Move");
    topic.focus();
  }

  function remove(message) {
    dialog("Delete message", h("p", {}, "Delete this message for everyone? This cannot be undone."),
      () => app.api.del(`messages/${message.id}`), "Delete");
  }

  function star(message) {
    const starred = (message.flags || []).includes("starred");
    app.api.post("messages/flags", { messages: [message.id], op: starred ? "remove" : "add", flag: "starred" })
      .catch((err) => app.toast(`Could not star: ${err.message}`));
  }

  async function quote(message) {
    try {
      const answer = await app.api.get(`messages/${message.id}`, { apply_markdown: false });
      const raw = answer.raw_content !== undefined ? answer.raw_content : answer.message.content;
      const s = store();
      const names = namesFor(s);
      const near = message.type === "stream"
        ? narrowHash([{ operator: "channel", operand: message.stream_id }, { operator: "topic", operand: message.subject }, { operator: "near", operand: message.id }], names)
        : narrowHash([{ operator: "dm", operand: (message.display_recipient || []).map((u) => u.id).filter((id) => id !== s.me) }, { operator: "near", operand: message.id }], names);
      const sender = (s.users.get(message.sender_id) || {}).full_name || message.sender_full_name;
      app.compose.replyTo(message);
      app.compose.insert(quoteBlock(sender, raw, near));
    } catch (err) {
      app.toast(`Could not quote: ${err.message}`);
    }
  }

  /** Marks a topic resolved (the "✔ " prefix) or unresolved, for all its messages. */
  function toggleResolved(message) {
    if (!message || message.type !== "stream") return;
    const topic = isResolved(message.subject) ? message.subject.replace(/^(✔ )+/, "") : `✔ ${message.subject}`;
    app.api.patch(`messages/${message.id}`, { topic, propagate_mode: "change_all" }).then(() => {
      if ((app.terms || []).some((t) => t.operator === "topic")) {
        app.navigate(narrowHash([{ operator: "channel", operand: message.stream_id }, { operator: "topic", operand: topic }], namesFor(store())));
      }
    }).catch((err) => app.toast(`Could not change the topic: ${err.message}`));
  }

  function toolbar(message) {
    const s = store();
    const starred = (message.flags || []).includes("starred");
    const mine = message.sender_id === s.me;
    const me = s.users.get(s.me) || {};
    const btn = (label, icon, onclick, extra = {}) => h("button", { type: "button", class: "action", "aria-label": label, title: label, onclick, ...extra },
      h("span", { "aria-hidden": "true" }, icon));
    const article = () => bar.closest("article");
    const bar = h("div", { class: "message-actions", role: "toolbar", "aria-label": "Message actions" },
      btn("Add reaction", "☺", (e) => react(message, e.currentTarget)),
      btn("Quote and reply", "❝", () => quote(message)),
      btn("Star message", starred ? "★" : "☆", () => star(message), { "aria-pressed": starred ? "true" : "false" }),
      canEdit(message, s.me, s.realm) ? btn("Edit message", "✎", () => edit(message, article())) : null,
      message.type === "stream" && (mine || me.is_admin) ? btn("Move message", "⇄", () => move(message)) : null,
      mine || me.is_admin ? btn("Delete message", "✕", () => remove(message)) : null);
    return bar;
  }

  return { toolbar, toggleResolved, toggleReaction, react, edit, move, remove, star, quote };
}
