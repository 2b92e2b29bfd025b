// The drafts view (#drafts): the drafts kept on the server (GET drafts), newest first, each
// with its conversation, text and buttons to restore it into the compose box or delete it.
import { h, namesFor } from "./render.js";
import { narrowHash } from "./narrow.js";

function draftTerms(draft, store) {
  if (draft.type === "stream") {
    const terms = [{ operator: "channel", operand: draft.to[0] }];
    if (draft.topic !== undefined) terms.push({ operator: "topic", operand: draft.topic });
    return terms;
  }
  return [{ operator: "dm", operand: draft.to.length ? draft.to : [store.me] }];
}

export async function mountDrafts(container, app) {
  const store = app.store;
  const names = namesFor(store);
  const list = h("ul", { class: "drafts-list" });
  container.replaceChildren(h("p", { role: "status" }, "Loading drafts…"));
  let drafts;
  try {
    drafts = (await app.api.get("drafts")).drafts;
  } catch (err) {
    container.replaceChildren(h("p", { role: "alert" }, `Could not load drafts: ${err.message}`));
    return;
  }
  drafts.sort((a, b) => b.timestamp - a.timestamp);
  for (const d of drafts) {
    const where = d.type === "stream"
      ? `#${names.channel(d.to[0]) || "unknown channel"} > ${d.topic}`
      : `Direct message to ${d.to.map((id) => names.user(id) || id).join(", ") || "yourself"}`;
    const item = h("li", { class: "draft" },
      h("p", { class: "draft-where" }, where),
      h("p", { class: "draft-text" }, d.content),
      h("div", { class: "draft-buttons" },
        h("button", { type: "button", onclick: () => {
          app.navigate(narrowHash(draftTerms(d, store), names));
          setTimeout(() => app.compose.restore(d), 0);
        } }, "Restore draft"),
        h("button", { type: "button", onclick: async () => {
          try {
            await app.api.del(`drafts/${d.id}`);
            item.remove();
            if (!list.children.length) list.replaceWith(h("p", {}, "No drafts."));
          } catch (err) {
            app.toast(`Could not delete the draft: ${err.message}`);
          }
        } }, "Delete draft")));
    list.append(item);
  }
  container.replaceChildren(drafts.length ? list : h("p", {}, "No drafts."));
}
