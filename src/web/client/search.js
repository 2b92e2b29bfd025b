// The search box in the top bar: an input (type=search) labelled "Search" that parses the
// narrow syntax (channel:, topic:, sender:, is:, dm:, plain words) into terms and navigates
// to their hash on Enter; it shows the open narrow's terms as text. While typing, a listbox
// of suggestions (search_suggest.js) completes operators and their operands: arrow keys move,
// Enter or a click picks (an operator keeps typing, a complete operand searches), Esc closes.
import { h, namesFor } from "./render.js";
import { narrowHash, parseSearch, searchText } from "./narrow.js";
import { suggest } from "./search_suggest.js";
import { topicsOf } from "./store.js";

export function lookupFor(store) {
  return {
    channel: (name) => {
      const wanted = String(name).replace(/^#/, "").toLowerCase();
      const st = [...store.streams.values()].find((s) => s.name.toLowerCase() === wanted);
      return st ? st.stream_id : null;
    },
    user: (text) => {
      const wanted = String(text).trim().toLowerCase();
      if (/^\d+$/.test(wanted)) return Number(wanted);
      const u = [...store.users.values()].find((x) => x.email.toLowerCase() === wanted || x.full_name.toLowerCase() === wanted);
      return u ? u.user_id : null;
    },
  };
}

/** What the suggestions know: channel names, topics of a channel, users. */
function suggestData(app) {
  const s = app.store;
  const openChannel = (app.terms || []).find((t) => t.operator === "channel" && typeof t.operand === "number");
  return {
    channels: [...s.subs.values()].map((x) => x.name).concat([...s.streams.values()].filter((x) => !s.subs.has(x.stream_id)).map((x) => x.name)),
    topics: (channelName) => {
      const id = channelName ? lookupFor(s).channel(channelName) : openChannel && openChannel.operand;
      return id ? topicsOf(s, id).map((t) => t.name) : [];
    },
    users: [...s.users.values()].filter((u) => u.is_active !== false),
  };
}

export function createSearch(app) {
  const input = h("input", { type: "search", id: "search-input", "aria-label": "Search", placeholder: "Search (channel: topic: sender: is: words)", autocomplete: "off",
    "aria-autocomplete": "list", "aria-controls": "search-suggestions" });
  const listbox = h("ul", { id: "search-suggestions", class: "search-suggestions", role: "listbox", "aria-label": "Search suggestions", hidden: true });
  let options = [];
  let active = -1;
  const submit = () => {
    close();
    const terms = parseSearch(input.value, lookupFor(app.store));
    app.navigate(narrowHash(terms, namesFor(app.store)));
    input.blur();
  };
  const form = h("form", { role: "search", class: "search", onsubmit: (e) => {
    e.preventDefault();
    if (active >= 0 && options[active]) pick(options[active]);
    else submit();
  } }, input, listbox);
  function close() {
    listbox.hidden = true;
    listbox.replaceChildren();
    options = [];
    active = -1;
    input.removeAttribute("aria-activedescendant");
  }
  function setActive(i) {
    active = i;
    Array.from(listbox.children).forEach((li, j) => li.setAttribute("aria-selected", j === i ? "true" : "false"));
    if (i >= 0) input.setAttribute("aria-activedescendant", `search-suggestion-${i}`);
    else input.removeAttribute("aria-activedescendant");
  }
  function pick(option) {
    input.value = option.value;
    input.focus();
    if (option.value.endsWith(":")) refresh();
    else submit();
  }
  function refresh() {
    options = input.value.trim() ? suggest(input.value, suggestData(app)) : [];
    active = -1;
    listbox.replaceChildren(...options.map((o, i) => {
      const li = h("li", { id: `search-suggestion-${i}`, role: "option", "aria-selected": "false" },
        h("span", { class: "suggestion" }, o.label), o.hint ? h("span", { class: "hint" }, o.hint) : null);
      // mousedown: pick before the input loses focus
      li.addEventListener("mousedown", (e) => {
        e.preventDefault();
        pick(o);
      });
      return li;
    }));
    listbox.hidden = !options.length;
    input.removeAttribute("aria-activedescendant");
  }
  input.addEventListener("input", refresh);
  input.addEventListener("blur", () => setTimeout(close, 0));
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!options.length) return;
      e.preventDefault();
      const n = options.length;
      setActive(e.key === "ArrowDown" ? (active + 1) % n : (active - 1 + n) % n);
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      if (!listbox.hidden) {
        close();
        return;
      }
      input.value = "";
      input.blur();
    }
  });
  return {
    form,
    input,
    show(allTerms) {
      const terms = allTerms.filter((t) => t.operator !== "near" && t.operator !== "with");
      const plain = !terms.length || (terms.length <= 2 && terms.every((t) => ["channel", "topic", "dm"].includes(t.operator)))
        || (terms.length === 1 && terms[0].operator === "is");
      input.value = plain ? "" : searchText(terms, namesFor(app.store));
    },
    focus() {
      input.focus();
      input.select();
    },
  };
}
