// The search box in the top bar: an input (type=search) labelled "Search" that parses the
// narrow syntax (channel:, topic:, sender:, is:, dm:, plain words) into terms and navigates
// to their hash on Enter; it shows the open narrow's terms as text.
import { h, namesFor } from "./render.js";
import { narrowHash, parseSearch, searchText } from "./narrow.js";

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

export function createSearch(app) {
  const input = h("input", { type: "search", id: "search-input", "aria-label": "Search", placeholder: "Search (channel: topic: sender: is: words)", autocomplete: "off" });
  const form = h("form", { role: "search", class: "search", onsubmit: (e) => {
    e.preventDefault();
    const terms = parseSearch(input.value, lookupFor(app.store));
    app.navigate(narrowHash(terms, namesFor(app.store)));
    input.blur();
  } }, input);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      input.value = "";
      input.blur();
    }
  });
  return {
    form,
    input,
    show(terms) {
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
