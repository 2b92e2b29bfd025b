// The center message list of one narrow: fetches the newest page first, loads older pages
// on scrolling up, keeps only the rows near the viewport in the DOM (a virtualised list with
// measured heights and top/bottom spacers), groups rows by conversation and sender, keeps
// the selection for the keyboard, shows local echoes, and marks seen messages read in batches.
import { h, messageArticle, recipientBar } from "./render.js";
import { apiNarrow, messageMatches } from "./narrow.js";
import { addMessages } from "./store.js";

const ESTIMATE = 64;
const OVERSCAN = 900;
const PAGE = 100;

/** Whether message b continues a's conversation (same recipient bar). */
export function sameConversation(a, b) {
  if (!a || !b || a.type !== b.type) return false;
  if (a.type === "stream") return a.stream_id === b.stream_id && String(a.subject).toLowerCase() === String(b.subject).toLowerCase();
  const ids = (m) => (m.display_recipient || []).map((u) => u.id).sort((x, y) => x - y).join(",");
  return ids(a) === ids(b);
}

/** Index of the first row whose bottom is below `y`, given cumulative tops (length n+1). */
export function rowAt(tops, y) {
  let lo = 0;
  let hi = tops.length - 2;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class MessageList {
  constructor({ app, toolbar, onReaction }) {
    this.app = app;
    this.toolbar = toolbar;
    this.onReaction = onReaction;
    this.section = h("section", { class: "message-list", "aria-label": "Messages", tabindex: "-1" });
    this.heading = h("h1", { class: "narrow-title", id: "narrow-title" });
    this.padTop = h("div", { class: "pad", "aria-hidden": "true" });
    this.rowsEl = h("div", { class: "rows" });
    this.padBottom = h("div", { class: "pad", "aria-hidden": "true" });
    this.status = h("p", { class: "list-status", role: "status" });
    this.typing = h("p", { class: "typing-status", "aria-live": "polite" });
    this.section.append(this.padTop, this.rowsEl, this.padBottom, this.status);
    this.heights = new Map();
    this.rowCache = new Map();
    this.ids = [];
    this.echoes = [];
    this.terms = [];
    this.selected = null;
    this.toMarkRead = new Set();
    this.scheduled = false;
    this.section.addEventListener("scroll", () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.section);
    setInterval(() => this.flushRead(), 1000);
  }

  get store() {
    return this.app.store;
  }

  /** Opens a narrow: resets the list and fetches its newest page. */
  async open(terms) {
    this.terms = terms;
    this.ids = [];
    this.rowCache.clear();
    this.selected = null;
    this.foundNewest = false;
    this.foundOldest = false;
    this.loadingOlder = false;
    this.stickBottom = true;
    this.rowsEl.replaceChildren();
    this.status.textContent = "Loading messages…";
    const token = (this.token = {});
    try {
      const answer = await this.app.api.get("messages", {
        narrow: apiNarrow(terms), anchor: "newest", num_before: PAGE, num_after: 0, apply_markdown: true,
      });
      if (token !== this.token) return;
      addMessages(this.store, answer.messages);
      this.ids = answer.messages.map((m) => m.id);
      this.foundNewest = true;
      this.foundOldest = !!answer.found_oldest;
      this.status.textContent = this.ids.length ? "" : "No messages here yet.";
      this.scrollToBottom();
    } catch (err) {
      if (token !== this.token) return;
      this.status.textContent = `Could not load messages: ${err.message}`;
    }
  }

  async loadOlder() {
    if (this.loadingOlder || this.foundOldest || !this.ids.length) return;
    this.loadingOlder = true;
    const token = this.token;
    try {
      const answer = await this.app.api.get("messages", {
        narrow: apiNarrow(this.terms), anchor: this.ids[0], num_before: PAGE, num_after: 0,
        include_anchor: false, apply_markdown: true,
      });
      if (token !== this.token) return;
      addMessages(this.store, answer.messages);
      const older = answer.messages.map((m) => m.id).filter((id) => id < this.ids[0]);
      this.ids = older.concat(this.ids);
      this.foundOldest = !!answer.found_oldest || older.length === 0;
      this.rowCache.clear();
      this.render();
    } catch {
      // a later scroll retries
    } finally {
      this.loadingOlder = false;
    }
  }

  items() {
    return this.ids.concat(this.echoes.map((e) => e.id));
  }

  message(id) {
    return typeof id === "number" ? this.store.messages.get(id) : this.echoes.find((e) => e.id === id);
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.render();
    });
  }

  scrollToBottom() {
    this.stickBottom = true;
    for (let i = 0; i < 3; i++) {
      this.section.scrollTop = this.section.scrollHeight;
      this.render({ keepBottom: true });
    }
  }

  tops(items) {
    const tops = new Array(items.length + 1);
    tops[0] = 0;
    for (let i = 0; i < items.length; i++) tops[i + 1] = tops[i] + (this.heights.get(items[i]) || ESTIMATE);
    return tops;
  }

  buildRow(items, i) {
    const id = items[i];
    const m = this.message(id);
    const prev = i > 0 ? this.message(items[i - 1]) : null;
    const newGroup = !sameConversation(prev, m);
    const showSender = newGroup || prev.sender_id !== m.sender_id || m.timestamp - prev.timestamp > 600;
    const key = `${id}|${newGroup}|${showSender}`;
    const cached = this.rowCache.get(id);
    if (cached && cached.key === key) return cached.el;
    const row = h("div", { class: "row" + (newGroup ? " new-group" : ""), dataset: { rowId: id } });
    if (newGroup) row.append(recipientBar(m, this.store));
    const article = messageArticle(m, {
      store: this.store, showSender, toolbar: this.toolbar, onReaction: this.onReaction,
      local: typeof id !== "number", failed: m.failed,
    });
    if (this.selected === id) article.classList.add("selected");
    row.append(article);
    this.rowCache.set(id, { key, el: row });
    return row;
  }

  /** Draws the rows near the viewport, keeping the first visible row where it was. */
  render({ keepBottom } = {}) {
    const sec = this.section;
    const items = this.items();
    const atBottom = keepBottom || sec.scrollTop + sec.clientHeight >= sec.scrollHeight - 4;
    let anchorId = null;
    let anchorOffset = 0;
    for (const row of this.rowsEl.children) {
      if (row.offsetTop + row.offsetHeight > sec.scrollTop) {
        anchorId = row.dataset.rowId;
        anchorOffset = row.offsetTop - sec.scrollTop;
        break;
      }
    }
    let tops = this.tops(items);
    const base = this.padTop.offsetTop;
    const viewTop = Math.max(0, sec.scrollTop - base);
    let first = Math.max(0, rowAt(tops, viewTop - OVERSCAN));
    let last = Math.min(items.length - 1, rowAt(tops, viewTop + sec.clientHeight + OVERSCAN));
    if (atBottom && items.length) {
      last = items.length - 1;
      first = Math.max(0, Math.min(first, rowAt(tops, tops[items.length] - sec.clientHeight - OVERSCAN)));
    }
    const rows = [];
    for (let i = first; i <= last && i < items.length; i++) rows.push(this.buildRow(items, i));
    this.padTop.style.height = `${tops[first] || 0}px`;
    const kept = new Set(rows);
    for (const child of Array.from(this.rowsEl.children)) if (!kept.has(child)) child.remove();
    rows.forEach((row, idx) => {
      if (this.rowsEl.children[idx] !== row) this.rowsEl.insertBefore(row, this.rowsEl.children[idx] || null);
    });
    for (let i = first; i <= last && i < items.length; i++) {
      const el = rows[i - first];
      this.heights.set(items[i], el.offsetHeight || ESTIMATE);
    }
    tops = this.tops(items);
    this.padTop.style.height = `${tops[first] || 0}px`;
    this.padBottom.style.height = `${items.length ? tops[items.length] - tops[last + 1] : 0}px`;
    if (atBottom) sec.scrollTop = sec.scrollHeight;
    else if (anchorId !== null) {
      const row = rows.find((r) => r.dataset.rowId === anchorId);
      if (row) sec.scrollTop = row.offsetTop - anchorOffset;
    }
    if (first < 20 && !this.foundOldest) this.loadOlder();
    this.noteSeen(rows);
  }

  noteSeen(rows) {
    if (document.visibilityState !== "visible") return;
    const sec = this.section;
    const top = sec.scrollTop;
    const bottom = top + sec.clientHeight;
    for (const row of rows) {
      if (row.offsetTop + row.offsetHeight <= top + 4 || row.offsetTop >= bottom) continue;
      const id = Number(row.dataset.rowId);
      if (Number.isInteger(id) && this.store.unread.has(id)) this.toMarkRead.add(id);
    }
  }

  flushRead() {
    if (!this.toMarkRead.size) return;
    const ids = [...this.toMarkRead].slice(0, 1000);
    for (const id of ids) this.toMarkRead.delete(id);
    this.app.api.post("messages/flags", { messages: ids, op: "add", flag: "read" }).catch(() => {
      for (const id of ids) this.toMarkRead.add(id);
    });
  }

  /** Reacts to store changes from events. */
  update(changed, events) {
    let dirty = false;
    for (const ev of events) {
      if (ev.type === "message") {
        const m = this.store.messages.get(ev.message.id);
        if (ev.local_message_id !== undefined) {
          const before = this.echoes.length;
          this.echoes = this.echoes.filter((e) => e.local_id !== String(ev.local_message_id));
          if (before !== this.echoes.length) dirty = true;
        }
        if (m && this.foundNewest && messageMatches(this.terms, m, this.store.me) === true && !this.ids.includes(m.id)) {
          this.ids.push(m.id);
          this.ids.sort((a, b) => a - b);
          if (this.ids.length === 1) this.status.textContent = "";
          dirty = true;
        }
      } else if (ev.type === "delete_message") {
        const gone = new Set(ev.message_ids || [ev.message_id]);
        this.ids = this.ids.filter((id) => !gone.has(id));
        dirty = true;
      } else if (ev.type === "update_message" && (ev.subject !== undefined || ev.topic !== undefined || ev.new_stream_id !== undefined)) {
        this.ids = this.ids.filter((id) => {
          const m = this.store.messages.get(id);
          return m && messageMatches(this.terms, m, this.store.me) !== false;
        });
        for (const id of ev.message_ids || []) {
          const m = this.store.messages.get(id);
          if (m && !this.ids.includes(id) && messageMatches(this.terms, m, this.store.me) === true && this.foundNewest
            && this.ids.length && id > this.ids[0]) this.ids.push(id);
        }
        this.ids.sort((a, b) => a - b);
        dirty = true;
      }
    }
    if (changed.ids.length) {
      for (const id of changed.ids) {
        this.rowCache.delete(id);
        const i = this.ids.indexOf(id);
        if (i >= 0 && i + 1 < this.ids.length) this.rowCache.delete(this.ids[i + 1]);
      }
      dirty = true;
    }
    if (changed.has("users") || changed.has("settings")) {
      this.rowCache.clear();
      dirty = true;
    }
    if (dirty) this.render();
  }

  addEcho(echo) {
    this.echoes.push(echo);
    this.scrollToBottom();
  }

  failEcho(localId) {
    const e = this.echoes.find((x) => x.local_id === localId);
    if (e) {
      e.failed = true;
      this.rowCache.delete(e.id);
      this.render();
      setTimeout(() => {
        this.echoes = this.echoes.filter((x) => x !== e);
        this.rowCache.delete(e.id);
        this.render();
      }, 8000);
    }
  }

  // Selection (keyboard)
  select(id, { focus = true } = {}) {
    const old = this.rowCache.get(this.selected);
    if (old) old.el.querySelector("article")?.classList.remove("selected");
    this.selected = id;
    const items = this.items();
    const i = items.indexOf(id);
    if (i < 0) return;
    const tops = this.tops(items);
    const sec = this.section;
    const base = this.padTop.offsetTop;
    if (tops[i] + base < sec.scrollTop || tops[i + 1] + base > sec.scrollTop + sec.clientHeight) {
      sec.scrollTop = Math.max(0, tops[i] + base - sec.clientHeight / 3);
    }
    this.render();
    const row = this.rowCache.get(id);
    const art = row && row.el.querySelector("article");
    if (art) {
      art.classList.add("selected");
      if (focus) art.focus({ preventScroll: true });
    }
  }

  move(delta) {
    const items = this.ids;
    if (!items.length) return;
    let i = items.indexOf(this.selected);
    if (i < 0) i = delta > 0 ? items.length - 1 : items.length;
    i = Math.max(0, Math.min(items.length - 1, i + delta));
    this.select(items[i]);
  }

  selectedMessage() {
    const id = this.selected !== null ? this.selected : this.ids[this.ids.length - 1];
    return id !== undefined ? this.store.messages.get(id) : null;
  }
}
