// The emoji picker: openEmojiPicker({anchor, ctx, onPick}). A dialog labelled "Emoji picker"
// with a "Search emoji" box and one button per emoji named by its Zulip name; Unicode emoji
// drawn as text from their codepoints, the realm's custom emoji as images. Zulip's names come
// from the server's emoji table (fetched once per page), custom emoji from register's
// realm_emoji kept current by realm_emoji events (f_state.js). Arrows move, Enter picks, Esc
// closes and gives focus back to the anchor.
import { h, openModal, uid } from "./f_dom.js";
import { buildEmojiIndex, emojiCodeToText, popularEmoji, searchEmoji } from "./f_logic.js";
import { featureState } from "./f_state.js";

let tablePromise = null;

/** Zulip's code_to_names table from the server (one fetch per page; retried after a failure). */
export function loadEmojiTable(url = "/static/generated/emoji/emoji_api.json") {
  if (!tablePromise) {
    tablePromise = fetch(url, { credentials: "same-origin" })
      .then((response) => {
        if (!response.ok) throw new Error(`Emoji table: HTTP ${response.status}`);
        return response.json();
      })
      .then((body) => body.code_to_names || {})
      .catch((err) => {
        tablePromise = null;
        throw err;
      });
  }
  return tablePromise;
}

/** The visual of one emoji entry: text for Unicode emoji, an <img> for custom ones. */
export function emojiGlyph(entry) {
  if (entry.reaction_type === "realm_emoji") {
    return h("img", { class: "f-emoji-img", src: entry.source_url, alt: "", loading: "lazy", draggable: "false" });
  }
  return h("span", { class: "f-emoji-char", "aria-hidden": "true" }, emojiCodeToText(entry.emoji_code));
}

const MAX_RESULTS = 400;

/**
 * Opens the picker next to `anchor`. `onPick({emoji_name, emoji_code, reaction_type})` is
 * called once when an emoji is chosen (the picker closes). Returns `{close}`.
 */
export function openEmojiPicker({ anchor, ctx, onPick }) {
  const state = featureState(ctx);
  const titleId = uid("f-emoji-title");
  const search = h("input", {
    type: "search",
    class: "f-emoji-search",
    "aria-label": "Search emoji",
    placeholder: "Search emoji",
    autocomplete: "off",
    spellcheck: "false",
  });
  const body = h("div", { class: "f-emoji-body" });
  // The name of the emoji under the pointer or focus (sighted users; buttons carry the name).
  const preview = h("div", { class: "f-emoji-preview", "aria-hidden": "true" });
  const showPreview = (entry) => {
    preview.replaceChildren();
    if (entry) preview.append(emojiGlyph(entry), h("span", {}, `:${entry.emoji_name}:`));
  };
  const status = h("p", { class: "f-emoji-status", role: "status" });
  const dialog = h(
    "div",
    { class: "f-emoji-picker", role: "dialog", "aria-label": "Emoji picker" },
    h("h2", { class: "f-visually-hidden", id: titleId }, "Emoji picker"),
    search,
    status,
    body,
    preview,
  );
  let index = [];
  let buttons = [];
  let active = 0;
  let picked = false;

  const pick = (entry) => {
    if (picked) return;
    picked = true;
    close();
    if (onPick) {
      onPick({ emoji_name: entry.emoji_name, emoji_code: entry.emoji_code, reaction_type: entry.reaction_type });
    }
  };

  const emojiButton = (entry) => {
    const button = h(
      "button",
      { type: "button", class: "f-emoji", "aria-label": entry.emoji_name, title: `:${entry.emoji_name}:`, tabindex: "-1" },
      emojiGlyph(entry),
    );
    button.addEventListener("click", () => pick(entry));
    button.addEventListener("mouseenter", () => showPreview(entry));
    button.addEventListener("focus", () => showPreview(entry));
    return button;
  };

  const section = (label, entries) => {
    if (entries.length === 0) return null;
    const headingId = `${titleId}-${label.replace(/\W+/g, "-").toLowerCase()}`;
    return h(
      "section",
      { class: "f-emoji-section", "aria-labelledby": headingId },
      h("h3", { id: headingId }, label),
      h("div", { class: "f-emoji-grid", role: "group", "aria-labelledby": headingId }, entries.map(emojiButton)),
    );
  };

  const render = () => {
    const query = search.value;
    body.replaceChildren();
    showPreview(null);
    if (query.trim()) {
      const results = searchEmoji(index, query, MAX_RESULTS);
      body.append(section("Search results", results) || h("p", { class: "f-empty" }, "No matching emoji"));
      status.textContent = results.length ? `${results.length} emoji found` : "No matching emoji";
    } else {
      const custom = index.filter((e) => e.reaction_type === "realm_emoji");
      body.append(
        section("Popular", popularEmoji(index)) || "",
        section("Custom", custom) || "",
        section("All emoji", index.filter((e) => e.reaction_type === "unicode_emoji")) || "",
      );
      status.textContent = "";
    }
    buttons = [...body.querySelectorAll("button.f-emoji")];
    active = 0;
    if (buttons[0]) buttons[0].tabIndex = 0;
  };

  const focusButton = (i) => {
    if (buttons.length === 0) return;
    const next = Math.max(0, Math.min(buttons.length - 1, i));
    if (buttons[active]) buttons[active].tabIndex = -1;
    active = next;
    buttons[active].tabIndex = 0;
    buttons[active].focus();
    buttons[active].scrollIntoView({ block: "nearest" });
  };

  // The button in the next row up or down (direction -1/1) nearest in x; -1 if none.
  const columnMove = (from, direction) => {
    const rect = buttons[from].getBoundingClientRect();
    const x = rect.left + rect.width / 2;
    let rowTop = null;
    let best = -1;
    let bestDx = Infinity;
    for (let i = from + direction; i >= 0 && i < buttons.length; i += direction) {
      const other = buttons[i].getBoundingClientRect();
      if ((other.top - rect.top) * direction <= 2) continue;
      if (rowTop === null) rowTop = other.top;
      else if (Math.abs(other.top - rowTop) > 2) break;
      const dx = Math.abs(other.left + other.width / 2 - x);
      if (dx < bestDx) {
        best = i;
        bestDx = dx;
      }
    }
    return best;
  };

  search.addEventListener("input", render);
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      const first = buttons[0];
      if (first) first.click();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      focusButton(0);
    }
  });
  body.addEventListener("keydown", (event) => {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    let target = null;
    if (event.key === "ArrowRight") target = i + 1;
    else if (event.key === "ArrowLeft") target = i - 1;
    else if (event.key === "ArrowDown") target = columnMove(i, 1);
    else if (event.key === "ArrowUp") {
      target = columnMove(i, -1);
      if (target < 0) {
        event.preventDefault();
        search.focus();
        return;
      }
    } else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = buttons.length - 1;
    else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      // Typing while on the grid goes on in the search box.
      search.focus();
      return;
    }
    if (target == null) return;
    event.preventDefault();
    if (target >= 0) focusButton(target);
  });
  body.addEventListener("focusin", (event) => {
    const i = buttons.indexOf(event.target);
    if (i >= 0 && i !== active) {
      if (buttons[active]) buttons[active].tabIndex = -1;
      active = i;
      buttons[i].tabIndex = 0;
    }
  });

  let table = null;
  const unsubscribe = state.subscribe((kind) => {
    if (kind !== "realm_emoji" || !table) return;
    index = buildEmojiIndex(table, state.realmEmoji);
    render();
  });
  const close = openModal(dialog, { returnFocus: anchor, onClose: unsubscribe, initialFocus: search });
  dialog.parentElement.classList.add("f-backdrop-light");
  place(dialog, anchor);

  status.textContent = "Loading emoji…";
  loadEmojiTable()
    .then((codeToNames) => {
      table = codeToNames;
      index = buildEmojiIndex(codeToNames, state.realmEmoji);
      render();
    })
    .catch((err) => {
      // Custom emoji still work without the table.
      index = buildEmojiIndex({}, state.realmEmoji);
      render();
      status.textContent = `Could not load emoji: ${err.message}`;
    });
  return { close };
}

/** Puts the picker below (or above) the anchor on wide screens; CSS makes it a sheet on phones. */
function place(dialog, anchor) {
  if (!anchor || !anchor.getBoundingClientRect || window.innerWidth <= 600) return;
  const rect = anchor.getBoundingClientRect();
  const width = Math.min(360, window.innerWidth - 16);
  const height = Math.min(420, window.innerHeight - 16);
  let left = Math.min(Math.max(8, rect.left), window.innerWidth - width - 8);
  let top = rect.bottom + 4;
  if (top + height > window.innerHeight - 8) top = Math.max(8, rect.top - height - 4);
  dialog.classList.add("f-anchored");
  dialog.style.left = `${left}px`;
  dialog.style.top = `${top}px`;
}
