// The compose box: channel + topic (with topic suggestions) or direct-message recipients,
// the message textarea, Markdown preview (POST messages/render), drafts kept on the server
// (drafts API), typing notices throttled as upstream (start every 10 s, stop after 5 s idle),
// local echo (local_id + queue_id) and file uploads by picker or drag-and-drop.
import { h } from "./render.js";
import { sanitizeHtml } from "./sanitize.js";

export const TYPING_START_EVERY_MS = 10000;
export const TYPING_STOP_AFTER_MS = 5000;

/** Pure typing throttle: given the last start time and now, whether to send "start". */
export function shouldSendStart(lastStart, now) {
  return !lastStart || now - lastStart >= TYPING_START_EVERY_MS;
}

/** Markdown link text for an uploaded file (brackets in the name escaped). */
export function uploadLink(name, url) {
  return `[${String(name).replace(/[[\]]/g, "\\$&")}](${url})`;
}

/** A quote block as upstream builds it for "Quote and reply". */
export function quoteBlock(senderName, raw, link) {
  const fence = raw.includes("```") ? "````" : "```";
  return `@_**${senderName}** [said](${link}):\n${fence}quote\n${raw}\n${fence}\n`;
}

let localCounter = 0;

export class Compose {
  constructor(app) {
    this.app = app;
    this.mode = "stream";
    this.draftId = null;
    this.lastTypingStart = 0;
    this.typingTimer = null;
    this.typingTo = null;
    const id = (x) => `compose-${x}`;
    this.channel = h("input", { id: id("channel"), list: id("channels"), autocomplete: "off", onchange: () => this.loadTopics() });
    this.channelList = h("datalist", { id: id("channels") });
    this.topic = h("input", { id: id("topic"), list: id("topics"), autocomplete: "off", maxlength: "60" });
    this.topicList = h("datalist", { id: id("topics") });
    this.to = h("input", { id: id("to"), list: id("users"), autocomplete: "off", placeholder: "Names or emails, comma-separated" });
    this.userList = h("datalist", { id: id("users") });
    this.text = h("textarea", { id: id("text"), rows: "3", placeholder: "Write a message (Markdown)", onkeydown: (e) => this.onKey(e), oninput: () => this.onInput() });
    this.file = h("input", { id: id("file"), type: "file", multiple: true, class: "sr-only", "aria-label": "Upload files", onchange: () => this.uploadFiles(this.file.files) });
    this.preview = h("div", { class: "compose-preview", hidden: true, "aria-label": "Preview", role: "region" });
    this.error = h("p", { class: "compose-error", role: "alert" });
    this.streamMode = h("button", { type: "button", class: "mode", "aria-pressed": "true", onclick: () => this.setMode("stream") }, "Channel message");
    this.dmMode = h("button", { type: "button", class: "mode", "aria-pressed": "false", onclick: () => this.setMode("private") }, "Direct message");
    this.previewButton = h("button", { type: "button", "aria-pressed": "false", onclick: () => this.togglePreview() }, "Preview");
    this.streamFields = h("div", { class: "compose-fields" },
      h("label", { for: id("channel") }, "Channel"), this.channel, this.channelList,
      h("label", { for: id("topic") }, "Topic"), this.topic, this.topicList);
    this.dmFields = h("div", { class: "compose-fields", hidden: true },
      h("label", { for: id("to") }, "To"), this.to, this.userList);
    this.form = h("form", { class: "compose", "aria-label": "Compose", onsubmit: (e) => { e.preventDefault(); this.send(); } },
      h("div", { class: "compose-modes", role: "group", "aria-label": "Message type" }, this.streamMode, this.dmMode),
      this.streamFields, this.dmFields,
      h("label", { for: id("text"), class: "sr-only" }, "Message"),
      this.text, this.preview, this.error,
      h("div", { class: "compose-buttons" },
        h("button", { type: "button", onclick: () => this.file.click() }, "Upload files"), this.file,
        this.previewButton,
        h("span", { class: "compose-hint" }, ""),
        h("button", { type: "submit", class: "primary" }, "Send")));
    this.hint = this.form.querySelector(".compose-hint");
    // Enter in a recipient field moves on to the next field instead of sending.
    for (const [field, next] of [[this.channel, this.topic], [this.topic, this.text], [this.to, this.text]]) {
      field.addEventListener("keydown", (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          next.focus();
        }
      });
    }
    this.form.addEventListener("dragover", (e) => { e.preventDefault(); this.form.classList.add("dragging"); });
    this.form.addEventListener("dragleave", () => this.form.classList.remove("dragging"));
    this.form.addEventListener("drop", (e) => {
      e.preventDefault();
      this.form.classList.remove("dragging");
      if (e.dataTransfer && e.dataTransfer.files.length) this.uploadFiles(e.dataTransfer.files);
    });
    this.text.addEventListener("paste", (e) => {
      const files = e.clipboardData && e.clipboardData.files;
      if (files && files.length) { e.preventDefault(); this.uploadFiles(files); }
    });
    this.draftTimer = null;
    this.refreshLists();
    this.updateHint();
  }

  get store() {
    return this.app.store;
  }

  updateHint() {
    this.hint.textContent = this.store.settings.enter_sends ? "Enter sends, Shift+Enter adds a line" : "Ctrl+Enter sends";
  }

  refreshLists() {
    this.channelList.replaceChildren(...[...this.store.subs.values()].map((s) => h("option", { value: s.name })));
    this.userList.replaceChildren(...[...this.store.users.values()].filter((u) => u.is_active !== false)
      .map((u) => h("option", { value: u.email }, u.full_name)));
  }

  setMode(mode) {
    this.mode = mode;
    this.streamMode.setAttribute("aria-pressed", String(mode === "stream"));
    this.dmMode.setAttribute("aria-pressed", String(mode !== "stream"));
    this.streamFields.hidden = mode !== "stream";
    this.dmFields.hidden = mode === "stream";
  }

  streamByName(name) {
    const wanted = String(name).replace(/^#/, "").trim().toLowerCase();
    return [...this.store.streams.values()].find((s) => s.name.toLowerCase() === wanted);
  }

  async loadTopics() {
    const st = this.streamByName(this.channel.value);
    if (!st) return;
    try {
      const answer = await this.app.api.get(`users/me/${st.stream_id}/topics`);
      this.topicList.replaceChildren(...answer.topics.map((t) => h("option", { value: t.name })));
    } catch {
      // suggestions are optional
    }
  }

  recipientIds() {
    const ids = [];
    for (const part of this.to.value.split(",").map((p) => p.trim()).filter(Boolean)) {
      const lower = part.toLowerCase();
      const u = [...this.store.users.values()].find((x) => x.email.toLowerCase() === lower || x.full_name.toLowerCase() === lower
        || (x.delivery_email || "").toLowerCase() === lower);
      if (!u) throw new Error(`Unknown recipient: ${part}`);
      ids.push(u.user_id);
    }
    return ids;
  }

  /** Fills the recipient from the open narrow (called on every narrow change). */
  followNarrow(terms) {
    if (this.text.value.trim()) {
      // Keep the unsent text as a draft of its own conversation before the recipient changes.
      clearTimeout(this.draftTimer);
      this.saveDraft();
      this.text.value = "";
    }
    this.generation = (this.generation || 0) + 1;
    this.draftId = null;
    const ch = terms.find((t) => t.operator === "channel" && !t.negated);
    const tp = terms.find((t) => t.operator === "topic" && !t.negated);
    const dm = terms.find((t) => t.operator === "dm" && !t.negated);
    if (ch && typeof ch.operand === "number") {
      const st = this.store.streams.get(ch.operand);
      if (st) {
        this.setMode("stream");
        this.channel.value = st.name;
        this.topic.value = tp ? String(tp.operand) : "";
        this.loadTopics();
      }
    } else if (dm && Array.isArray(dm.operand)) {
      this.setMode("private");
      this.to.value = dm.operand.map((id) => (this.store.users.get(id) || {}).email || id).join(", ");
    } else if (terms.length === 1 && terms[0].operator === "is" && ["dm", "private"].includes(terms[0].operand)) {
      this.setMode("private");
      this.to.value = "";
    }
    this.restoreDraft();
  }

  /** Opens the compose box for a reply to a message and focuses the textarea. */
  replyTo(message) {
    if (message.type === "stream") {
      this.setMode("stream");
      const st = this.store.streams.get(message.stream_id);
      this.channel.value = st ? st.name : message.display_recipient;
      this.topic.value = message.subject;
    } else {
      this.setMode("private");
      const others = (message.display_recipient || []).filter((u) => u.id !== this.store.me);
      this.to.value = (others.length ? others : message.display_recipient).map((u) => u.email).join(", ");
    }
    this.focus();
  }

  focus() {
    this.text.focus();
  }

  insert(text) {
    const t = this.text;
    const start = t.selectionStart ?? t.value.length;
    const end = t.selectionEnd ?? t.value.length;
    const before = t.value.slice(0, start);
    const pad = before && !before.endsWith("\n") && text.startsWith("@_") ? "\n" : "";
    t.value = before + pad + text + t.value.slice(end);
    t.selectionStart = t.selectionEnd = start + pad.length + text.length;
    this.onInput();
    t.focus();
  }

  onKey(e) {
    const enterSends = !!this.store.settings.enter_sends;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey || (enterSends && !e.shiftKey && !e.altKey))) {
      e.preventDefault();
      this.send();
    } else if (e.key === "Escape") {
      e.preventDefault();
      this.text.blur();
      this.app.list.section.focus();
    }
  }

  target() {
    if (this.mode === "stream") {
      const st = this.streamByName(this.channel.value);
      if (!st) throw new Error(this.channel.value.trim() ? `Unknown channel: ${this.channel.value}` : "Choose a channel.");
      return { type: "stream", stream_id: st.stream_id, topic: this.topic.value.trim() };
    }
    const ids = this.recipientIds();
    if (!ids.length) throw new Error("Choose at least one recipient.");
    return { type: "private", to: ids };
  }

  onInput() {
    this.error.textContent = "";
    this.scheduleDraft();
    let target;
    try {
      target = this.target();
    } catch {
      return;
    }
    if (!this.text.value.trim()) {
      this.stopTyping();
      return;
    }
    const now = Date.now();
    const key = JSON.stringify(target);
    if (this.typingTo && this.typingTo !== key) this.stopTyping();
    if (shouldSendStart(this.lastTypingStart, now) || this.typingTo !== key) {
      this.lastTypingStart = now;
      this.typingTo = key;
      this.app.api.post("typing", this.typingParams(target, "start")).catch(() => {});
    }
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.stopTyping(), TYPING_STOP_AFTER_MS);
  }

  typingParams(target, op) {
    return target.type === "stream"
      ? { type: "stream", op, stream_id: target.stream_id, topic: target.topic }
      : { type: "direct", op, to: target.to };
  }

  stopTyping() {
    clearTimeout(this.typingTimer);
    if (!this.typingTo) return;
    const target = JSON.parse(this.typingTo);
    this.typingTo = null;
    this.lastTypingStart = 0;
    this.app.api.post("typing", this.typingParams(target, "stop")).catch(() => {});
  }

  draftBody() {
    const target = this.target();
    return target.type === "stream"
      ? { type: "stream", to: [target.stream_id], topic: target.topic, content: this.text.value, timestamp: Math.floor(Date.now() / 1000) }
      : { type: "private", to: target.to, topic: "", content: this.text.value, timestamp: Math.floor(Date.now() / 1000) };
  }

  scheduleDraft() {
    clearTimeout(this.draftTimer);
    this.draftTimer = setTimeout(() => this.saveDraft(), 1000);
  }

  async saveDraft() {
    const generation = this.generation;
    let draft;
    try {
      draft = this.draftBody();
    } catch {
      return;
    }
    try {
      if (!draft.content.trim()) {
        if (this.draftId !== null) {
          const id = this.draftId;
          this.draftId = null;
          await this.app.api.del(`drafts/${id}`);
        }
      } else if (this.draftId !== null) {
        await this.app.api.patch(`drafts/${this.draftId}`, { draft });
      } else {
        const answer = await this.app.api.post("drafts", { drafts: [draft] });
        if (generation === this.generation) this.draftId = answer.ids[0];
      }
    } catch {
      // drafts are a convenience: a failure leaves the text in the box
    }
  }

  /** Restores the newest server draft for the current recipient, if the box is empty. */
  restoreDraft() {
    this.draftId = null;
    if (this.text.value.trim()) return;
    let target;
    try {
      target = this.target();
    } catch {
      return;
    }
    const same = [...this.store.drafts.values()].filter((d) => {
      if (target.type === "stream") return d.type === "stream" && d.to[0] === target.stream_id && d.topic === target.topic;
      return d.type === "private" && d.to.slice().sort().join(",") === target.to.slice().sort().join(",");
    }).sort((a, b) => b.timestamp - a.timestamp);
    if (same.length) {
      this.text.value = same[0].content;
      this.draftId = same[0].id;
    }
  }

  /** Puts a server draft into the box (from the drafts view). */
  restore(draft) {
    this.text.value = draft.content;
    this.draftId = draft.id;
    this.focus();
  }

  async togglePreview() {
    const on = this.preview.hidden;
    this.previewButton.setAttribute("aria-pressed", String(on));
    if (!on) {
      this.preview.hidden = true;
      this.text.hidden = false;
      this.text.focus();
      return;
    }
    this.preview.hidden = false;
    this.text.hidden = true;
    this.preview.textContent = "Rendering…";
    try {
      const answer = await this.app.api.post("messages/render", { content: this.text.value || " " });
      this.preview.replaceChildren(sanitizeHtml(answer.rendered));
    } catch (err) {
      this.preview.textContent = `Preview failed: ${err.message}`;
    }
  }

  async send() {
    const content = this.text.value;
    if (!content.trim()) {
      this.error.textContent = "Write a message first.";
      return;
    }
    let target;
    try {
      target = this.target();
    } catch (err) {
      this.error.textContent = err.message;
      return;
    }
    localCounter += 1;
    const localId = `${Date.now()}.${localCounter}`;
    const params = target.type === "stream"
      ? { type: "stream", to: target.stream_id, topic: target.topic, content }
      : { type: "direct", to: target.to, content };
    params.local_id = localId;
    if (this.app.queueId()) params.queue_id = this.app.queueId();
    const me = this.store.users.get(this.store.me) || {};
    const echo = {
      id: `local:${localId}`, local_id: localId, type: target.type, sender_id: this.store.me, sender_full_name: me.full_name,
      timestamp: Math.floor(Date.now() / 1000), raw_content: content, reactions: [], flags: ["read"],
      stream_id: target.stream_id, subject: target.topic || "",
      display_recipient: target.type === "stream" ? (this.store.streams.get(target.stream_id) || {}).name
        : [...target.to, this.store.me].map((id) => ({ id, full_name: (this.store.users.get(id) || {}).full_name, email: (this.store.users.get(id) || {}).email })),
    };
    const draftId = this.draftId;
    clearTimeout(this.draftTimer);
    this.draftId = null;
    this.text.value = "";
    if (!this.preview.hidden) this.togglePreview();
    this.stopTyping();
    this.app.list.addEcho(echo);
    try {
      await this.app.api.post("messages", params);
      if (draftId !== null) this.app.api.del(`drafts/${draftId}`).catch(() => {});
    } catch (err) {
      this.error.textContent = `Not sent: ${err.message}`;
      if (!this.text.value) this.text.value = content;
      this.app.list.failEcho(localId);
    }
  }

  async uploadFiles(files) {
    for (const file of Array.from(files || [])) {
      const placeholder = `[Uploading ${file.name}…]`;
      this.insert(placeholder + " ");
      try {
        const answer = await this.app.api.upload(file);
        const url = answer.url || answer.uri;
        this.text.value = this.text.value.replace(placeholder, uploadLink(answer.filename || file.name, url));
      } catch (err) {
        this.text.value = this.text.value.replace(placeholder + " ", "");
        this.error.textContent = `Upload of ${file.name} failed: ${err.message}`;
      }
      this.onInput();
    }
    this.file.value = "";
  }
}
