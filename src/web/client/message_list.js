// The center message list of one narrow: fetches the newest page first, loads older pages
// on scrolling up, keeps only the rows near the viewport in the DOM (a virtualised list with
// measured heights and top/bottom spacers), groups rows by conversation and sender, keeps
// the selection for the keyboard, shows local echoes, and marks seen messages read in batches.
import { h, messageArticle, recipientBar } from "./render.js";
import { apiNarrow, messageMatches } from "./narrow.js";
import { addMessages, pruneMessages } from "./store.js";
import { firstVisibleUnread, hiddenByMute, senderMuted } from "./mute.js";

const ESTIMATE = 64;
const OVERSCAN = 900;
// While a view opens, rows are built only this far beyond the viewport; the full overscan
// follows once the first frame has been painted.
const OPENING_OVERSCAN = 100;
const PAGE = 100;

/** Runs `fn` after the next frame has been painted (in a task after its animation frame). */
function afterPaint(fn) {
  requestAnimationFrame(() => setTimeout(fn, 0));
}
const MAX_CACHED_ROWS = 600;

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
    this.raw = [];
    this.ids = [];
    this.echoes = [];
    this.terms = [];
    this.matches = new Map();
    this.revealed = new Set();
    this.confirmed = new Map();
    this.prefetched = null;
    this.overscan = OVERSCAN;
    /** Settles once the first opened view (or its error) has been painted. */
    this.firstShown = new Promise((resolve) => {
      this.settleFirstShown = resolve;
    });
    this.jump = h("button", { type: "button", class: "jump-latest", hidden: true, onclick: () => this.jumpToLatest() },
      h("span", { "aria-hidden": "true" }, "↓ "), "Jump to latest");
    this.selected = null;
    this.toMarkRead = new Set();
    this.scheduled = false;
    this.section.addEventListener("scroll", () => {
      this.schedule();
      this.updateJump();
    }, { passive: true });
    this.section.addEventListener("click", (e) => {
      const reveal = e.target.closest && e.target.closest("button.reveal-message");
      if (!reveal) return;
      const id = Number(reveal.dataset.messageId);
      this.revealed.add(id);
      this.rowCache.delete(id);
      this.render();
      this.rowCache.get(id)?.el.querySelector("article")?.focus({ preventScroll: true });
    });
    new ResizeObserver(() => this.schedule()).observe(this.section);
    setInterval(() => this.flushRead(), 1000);
  }

  get store() {
    return this.app.store;
  }

  /**
   * The first page's `GET messages` parameters for a narrow (see `open`), with what `open`
   * needs to place the view: the `near` term, the first unread message it opens at, and
   * whether the page is around an anchor rather than the newest.
   */
  firstPage(terms, latest) {
    const near = terms.find((t) => (t.operator === "near" || t.operator === "id" || t.operator === "with") && Number.isInteger(t.operand));
    const narrowTerms = terms.filter((t) => t.operator !== "near" && t.operator !== "with");
    const isSearch = narrowTerms.some((t) => t.operator === "search");
    let anchor = "first_unread";
    let firstUnread;
    if (near) anchor = near.operand;
    else if (latest || isSearch) anchor = "newest";
    else {
      // Where the unread state decides, open at the first unread message this view shows
      // (the server's first_unread may be one that muting hides here).
      firstUnread = firstVisibleUnread(this.store, narrowTerms);
      if (firstUnread === null) anchor = "newest";
      else if (firstUnread !== undefined) anchor = firstUnread;
    }
    const around = anchor !== "newest";
    const params = {
      narrow: apiNarrow(narrowTerms),
      anchor,
      num_before: around ? PAGE / 2 : PAGE,
      num_after: around ? PAGE / 2 : 0,
      apply_markdown: true,
    };
    return { near, firstUnread, around, params };
  }

  /**
   * Starts fetching a narrow's first page before the view is built (the first view at
   * start-up); the `open` of the same narrow that follows takes the answer instead of asking
   * again. Only the next `open` may use it.
   */
  prefetch(terms) {
    const { params } = this.firstPage(terms, false);
    const answer = this.app.api.get("messages", params);
    answer.catch(() => {}); // `open` reports the failure
    this.prefetched = { key: JSON.stringify(params), answer };
  }

  /**
   * Opens a narrow: resets the list and fetches the page around its first unread message
   * (as upstream), or around a `near` message, or the newest page for searches and `latest`.
   */
  async open(terms, { latest = false } = {}) {
    const { near, firstUnread, around, params } = this.firstPage(terms, latest);
    this.terms = terms.filter((t) => t.operator !== "near" && t.operator !== "with");
    this.isSearch = this.terms.some((t) => t.operator === "search");
    this.raw = [];
    this.ids = [];
    this.echoes = [];
    this.rowCache.clear();
    this.heights.clear();
    this.matches.clear();
    this.revealed.clear();
    this.flushRead();
    this.selected = null;
    this.foundNewest = false;
    this.foundOldest = false;
    this.loadingOlder = false;
    this.loadingNewer = false;
    this.rowsEl.replaceChildren();
    this.padTop.style.height = "0px";
    this.padBottom.style.height = "0px";
    this.status.textContent = "Loading messages…";
    this.jump.hidden = true;
    const token = (this.token = {});
    this.overscan = OPENING_OVERSCAN;
    const key = JSON.stringify(params);
    const early = this.prefetched && this.prefetched.key === key ? this.prefetched.answer : null;
    this.prefetched = null;
    try {
      const answer = await (early || this.app.api.get("messages", params));
      if (token !== this.token) return;
      this.take(answer.messages);
      this.raw = answer.messages.map((m) => m.id);
      if (!around || answer.found_newest) {
        // Messages whose events came while the page was on its way (newer than its newest).
        const newest = this.raw.length ? this.raw[this.raw.length - 1] : -1;
        for (const m of this.store.messages.values()) {
          if (m.id > newest && messageMatches(this.terms, m, this.store.me) === true) this.raw.push(m.id);
        }
        this.raw.sort((a, b) => a - b);
      }
      this.refilter();
      this.foundNewest = !around || !!answer.found_newest;
      this.foundOldest = !!answer.found_oldest;
      this.status.textContent = this.ids.length ? "" : this.isSearch ? "No messages match this search." : "No messages here yet.";
      const target = this.openTarget(near || (typeof firstUnread === "number" ? { operand: firstUnread } : null), answer);
      if (target !== null) {
        this.render();
        this.select(target, { focus: !!near, align: near ? "third" : "top" });
      } else {
        this.scrollToBottom();
        // As upstream, a narrow without unread messages opens with its newest one selected.
        if (this.ids.length) this.select(this.ids[this.ids.length - 1], { focus: false });
      }
      this.updateJump();
      this.shown();
      afterPaint(() => {
        if (token !== this.token) return;
        this.overscan = OVERSCAN;
        this.render();
      });
    } catch (err) {
      if (token !== this.token) return;
      this.overscan = OVERSCAN;
      this.status.textContent = `Could not load messages: ${err.message}`;
      this.shown();
    }
  }

  /**
   * After the frame showing the first opened view has been painted: marks `outpost:first-view` for the first-view figure
   * (tests/web/e2e/performance.test.mjs) and settles `firstShown`. Once.
   */
  shown() {
    if (!this.settleFirstShown) return;
    const settle = this.settleFirstShown;
    this.settleFirstShown = null;
    afterPaint(() => {
      performance.mark("outpost:first-view");
      settle();
    });
  }

  /** The message to open at: the `near` one, else the first unread one shown; null for the bottom. */
  openTarget(near, answer) {
    if (near) return this.ids.includes(near.operand) ? near.operand : null;
    if (typeof answer.anchor !== "number") return null;
    const first = this.ids.find((id) => id >= answer.anchor && this.store.unread.has(id));
    return first === undefined ? null : first;
  }

  /** Keeps fetched messages in the store, and search highlights per id for this list. */
  take(messages) {
    addMessages(this.store, messages);
    if (this.store.messages.size > 5000) pruneMessages(this.store, new Set(this.raw.concat(messages.map((m) => m.id))));
    if (!this.isSearch) return;
    for (const m of messages) {
      if (m.match_content !== undefined || m.match_subject !== undefined) {
        this.matches.set(m.id, { content: m.match_content, subject: m.match_subject });
      }
    }
  }

  /** Recomputes the shown ids from the fetched ones (muted topics and channels drop out). */
  refilter() {
    const s = this.store;
    this.ids = this.raw.filter((id) => {
      const m = s.messages.get(id);
      return m && !hiddenByMute(s, this.terms, m);
    });
  }

  /** Loads the next page below the last loaded message (after opening above the newest). */
  async loadNewer() {
    if (this.loadingNewer || this.foundNewest || !this.raw.length) return;
    this.loadingNewer = true;
    const token = this.token;
    try {
      const lastId = this.raw[this.raw.length - 1];
      const answer = await this.app.api.get("messages", {
        narrow: apiNarrow(this.terms), anchor: lastId, num_before: 0, num_after: PAGE,
        include_anchor: false, apply_markdown: true,
      });
      if (token !== this.token) return;
      this.take(answer.messages);
      const known = new Set(this.raw);
      const newer = answer.messages.map((m) => m.id).filter((id) => id > lastId && !known.has(id));
      this.raw = this.raw.concat(newer);
      this.refilter();
      this.foundNewest = !!answer.found_newest || newer.length === 0;
      if (this.ids.length) this.status.textContent = "";
      this.loadingNewer = false;
      this.render();
    } catch {
      // a later scroll retries
    } finally {
      this.loadingNewer = false;
    }
  }

  async loadOlder() {
    if (this.loadingOlder || this.foundOldest || !this.raw.length) return;
    this.loadingOlder = true;
    const token = this.token;
    try {
      const firstId = this.raw[0];
      const answer = await this.app.api.get("messages", {
        narrow: apiNarrow(this.terms), anchor: firstId, num_before: 2 * PAGE, num_after: 0,
        include_anchor: false, apply_markdown: true,
      });
      if (token !== this.token) return;
      this.take(answer.messages);
      const older = answer.messages.map((m) => m.id).filter((id) => id < firstId);
      this.raw = older.concat(this.raw);
      const shownFirst = this.ids[0];
      this.refilter();
      this.foundOldest = !!answer.found_oldest || older.length === 0;
      if (this.ids.length) this.status.textContent = "";
      if (shownFirst !== undefined) this.rowCache.delete(shownFirst);
      this.loadingOlder = false;
      this.render();
    } catch {
      // a later scroll retries
    } finally {
      this.loadingOlder = false;
    }
  }

  /** "Jump to latest" and the End key: the bottom of the narrow, fetching it when not loaded. */
  jumpToLatest() {
    if (this.foundNewest) {
      this.scrollToBottom();
      const items = this.ids;
      if (items.length) this.select(items[items.length - 1], { focus: false });
      this.updateJump();
      return;
    }
    this.open(this.terms, { latest: true });
  }

  /** Shows the "Jump to latest" button while the newest messages are not in view. */
  updateJump() {
    const sec = this.section;
    const farFromBottom = sec.scrollHeight - sec.scrollTop - sec.clientHeight > sec.clientHeight;
    this.jump.hidden = !(this.ids.length && (!this.foundNewest || farFromBottom));
    const box = this.jump.offsetParent;
    if (!this.jump.hidden && box) {
      // Float over the list's bottom edge, whatever the compose box's height.
      this.jump.style.bottom = `${Math.max(8, box.clientHeight - (sec.offsetTop + sec.clientHeight) + 14)}px`;
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
    const mutedSender = typeof id === "number" && senderMuted(this.store, m) && !this.revealed.has(id);
    const key = `${id}|${newGroup}|${showSender}|${mutedSender}`;
    const cached = this.rowCache.get(id);
    if (cached && cached.key === key) return cached.el;
    const row = h("div", { class: "row" + (newGroup ? " new-group" : ""), dataset: { rowId: id } });
    const match = this.matches.get(id);
    if (newGroup) row.append(recipientBar(m, this.store, match && match.subject));
    const article = messageArticle(m, {
      store: this.store, showSender, toolbar: this.toolbar, onReaction: this.onReaction,
      local: typeof id !== "number", failed: m.failed, mutedSender, matchContent: match && match.content,
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
    const atBottom = keepBottom || (this.foundNewest && sec.scrollTop + sec.clientHeight >= sec.scrollHeight - 4);
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
    let viewTop = Math.max(0, sec.scrollTop - base);
    const anchorIndex = anchorId === null ? -1 : items.findIndex((id) => String(id) === anchorId);
    // Rows may have been added above the anchor (older pages): look where it is now.
    if (!atBottom && anchorIndex >= 0) viewTop = Math.max(0, tops[anchorIndex] - anchorOffset);
    let first = Math.max(0, rowAt(tops, viewTop - this.overscan));
    let last = Math.min(items.length - 1, rowAt(tops, viewTop + sec.clientHeight + this.overscan));
    if (atBottom && items.length) {
      last = items.length - 1;
      first = Math.max(0, Math.min(first, rowAt(tops, tops[items.length] - sec.clientHeight - this.overscan)));
    }
    const rows = [];
    for (let i = first; i <= last && i < items.length; i++) rows.push(this.buildRow(items, i));
    const kept = new Set(rows);
    for (const child of Array.from(this.rowsEl.children)) if (!kept.has(child)) child.remove();
    if (this.rowCache.size > MAX_CACHED_ROWS) {
      // Rows far from the viewport are rebuilt when scrolled back to; keep the DOM they hold bounded.
      for (const [id, entry] of this.rowCache) if (!kept.has(entry.el)) this.rowCache.delete(id);
    }
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
    if (first < 20 && !this.foundOldest && !this.loadingOlder) setTimeout(() => this.loadOlder(), 0);
    if (last > items.length - 20 && !this.foundNewest && !this.loadingNewer) setTimeout(() => this.loadNewer(), 0);
    this.noteSeen(rows);
    this.updateJump();
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
    let refilter = false;
    for (const ev of events) {
      if (ev.type === "message") {
        const m = this.store.messages.get(ev.message.id);
        if (ev.local_message_id !== undefined) {
          if (this.confirmed.size > 50) this.confirmed.clear();
          this.confirmed.set(String(ev.local_message_id), ev.message.id);
          const before = this.echoes.length;
          this.echoes = this.echoes.filter((e) => e.local_id !== String(ev.local_message_id));
          if (before !== this.echoes.length) dirty = true;
        }
        if (m && this.foundNewest && messageMatches(this.terms, m, this.store.me) === true && !this.raw.includes(m.id)) {
          this.raw.push(m.id);
          this.raw.sort((a, b) => a - b);
          refilter = true;
        }
      } else if (ev.type === "delete_message") {
        const gone = new Set(ev.message_ids || [ev.message_id]);
        this.raw = this.raw.filter((id) => !gone.has(id));
        for (const id of gone) {
          this.matches.delete(id);
          this.revealed.delete(id);
          this.heights.delete(id);
        }
        refilter = true;
      } else if (ev.type === "update_message" && (ev.subject !== undefined || ev.topic !== undefined || ev.new_stream_id !== undefined)) {
        this.raw = this.raw.filter((id) => {
          const m = this.store.messages.get(id);
          return m && messageMatches(this.terms, m, this.store.me) !== false;
        });
        for (const id of ev.message_ids || []) {
          const m = this.store.messages.get(id);
          if (m && !this.raw.includes(id) && messageMatches(this.terms, m, this.store.me) === true && this.foundNewest
            && this.raw.length && id > this.raw[0]) this.raw.push(id);
        }
        this.raw.sort((a, b) => a - b);
        refilter = true;
      } else if (ev.type === "user_topic" || (ev.type === "subscription" && ev.op === "update")) {
        refilter = true;
      } else if (ev.type === "muted_users") {
        this.rowCache.clear();
        dirty = true;
      }
    }
    if (refilter) {
      const before = this.ids.join(",");
      this.refilter();
      const after = this.ids.join(",");
      if (before !== after) {
        dirty = true;
        // Rows only appended keep their groups; anything else may move group boundaries.
        if (!(before === "" || after.startsWith(`${before},`))) this.rowCache.clear();
      }
      if (this.ids.length) this.status.textContent = "";
    }
    const flagEvent = events.length === 1 && events[0].type === "update_message_flags" && events[0].flag === "read";
    if (flagEvent) {
      // Read flags only change a class: patch the rows that exist instead of rebuilding them.
      const read = events[0].op === "add";
      for (const id of changed.ids) {
        const row = this.rowCache.get(id);
        const art = row && row.el.querySelector("article.message");
        if (art) art.classList.toggle("unread", !read);
      }
    } else if (changed.ids.length > 50) {
      this.rowCache.clear();
      dirty = true;
    } else if (changed.ids.length) {
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
    if (!this.foundNewest) {
      // Opened above the newest messages: go to the bottom first (as upstream does on send),
      // then show the echo unless the real message already arrived meanwhile.
      const opening = this.open(this.terms, { latest: true });
      const token = this.token;
      opening.then(() => {
        if (this.token !== token) return;
        const id = this.confirmed.get(echo.local_id);
        this.confirmed.delete(echo.local_id);
        if (id === undefined) this.echoes.push(echo);
        else if (!this.raw.includes(id) && this.store.messages.has(id)) {
          this.raw.push(id);
          this.raw.sort((a, b) => a - b);
          this.refilter();
        }
        this.status.textContent = this.items().length ? "" : this.status.textContent;
        this.scrollToBottom();
      });
      return;
    }
    this.echoes.push(echo);
    this.status.textContent = "";
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
  select(id, { focus = true, align = "third" } = {}) {
    const old = this.rowCache.get(this.selected);
    if (old) old.el.querySelector("article")?.classList.remove("selected");
    this.selected = id;
    const items = this.items();
    const i = items.indexOf(id);
    if (i < 0) return;
    const tops = this.tops(items);
    const sec = this.section;
    const base = this.padTop.offsetTop;
    const offset = align === "top" ? Math.min(120, sec.clientHeight / 4) : sec.clientHeight / 3;
    if (tops[i] + base < sec.scrollTop || tops[i + 1] + base > sec.scrollTop + sec.clientHeight) {
      sec.scrollTop = Math.max(0, tops[i] + base - offset);
    }
    this.render();
    const row = this.rowCache.get(id);
    if (row && row.el.isConnected) {
      // Heights were estimates before this render: place the row from its real position.
      const top = row.el.offsetTop;
      if (align === "top" || top < sec.scrollTop || top + row.el.offsetHeight > sec.scrollTop + sec.clientHeight) {
        sec.scrollTop = Math.max(0, top - offset);
        this.render();
      }
    }
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
