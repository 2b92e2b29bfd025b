// "Browse channels" (#channels): every channel the user can see, filterable, each with a
// Subscribe or Unsubscribe button, and a form to create a channel (POST
// /users/me/subscriptions with a new name). Live on `subscription` and `stream` events.
import { h, namesFor } from "./render.js";
import { narrowHash } from "./narrow.js";
import { browseList, channelNameError } from "./channel_logic.js";
import { unsubscribe } from "./channel_menu.js";

export function mountChannels(container, app) {
  const store = () => app.store;
  const alert = h("p", { class: "compose-error", role: "alert" });
  const filter = h("input", { type: "search", id: "channels-filter", "aria-label": "Filter channels", placeholder: "Filter channels", autocomplete: "off" });
  const list = h("ul", { class: "browse-list", "aria-label": "All channels" });

  const subscribe = async (st, button) => {
    alert.textContent = "";
    button.disabled = true;
    try {
      await app.api.post("users/me/subscriptions", { subscriptions: [{ name: st.name }] });
      app.toast(`Subscribed to #${st.name}`);
    } catch (err) {
      alert.textContent = `Could not subscribe to #${st.name}: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  };
  const leave = async (st, button) => {
    alert.textContent = "";
    button.disabled = true;
    try {
      await unsubscribe(app, st);
    } catch (err) {
      alert.textContent = `Could not unsubscribe from #${st.name}: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  };

  const render = () => {
    const s = store();
    const names = namesFor(s);
    const rows = browseList(s.streams.values(), s.subs, filter.value);
    list.replaceChildren(...rows.map((st) => {
      const button = h("button", { type: "button", class: st.subscribed ? "" : "primary",
        "aria-label": `${st.subscribed ? "Unsubscribe from" : "Subscribe to"} ${st.name}` },
      st.subscribed ? "Unsubscribe" : "Subscribe");
      button.addEventListener("click", () => (st.subscribed ? leave(st, button) : subscribe(st, button)));
      return h("li", { class: "browse-row" + (st.subscribed ? " subscribed" : "") },
        h("div", { class: "browse-name" },
          h("a", { href: narrowHash([{ operator: "channel", operand: st.stream_id }], names) },
            `${st.invite_only ? "🔒 " : "#"}${st.name}`),
          st.subscriber_count !== undefined ? h("span", { class: "browse-count" }, ` ${st.subscriber_count} ${st.subscriber_count === 1 ? "subscriber" : "subscribers"}`) : null),
        h("p", { class: "browse-description" }, st.description || ""),
        button);
    }));
    if (!rows.length) list.append(h("li", { class: "empty" }, filter.value ? "No channel matches." : "There are no channels yet."));
  };
  filter.addEventListener("input", render);

  // Creating a channel
  const name = h("input", { type: "text", id: "new-channel-name", maxlength: "60", required: true, autocomplete: "off" });
  const description = h("input", { type: "text", id: "new-channel-description", maxlength: "1024", autocomplete: "off" });
  const privateBox = h("input", { type: "checkbox", id: "new-channel-private" });
  const createError = h("p", { class: "compose-error", role: "alert" });
  const create = h("form", { class: "create-channel", "aria-label": "Create channel", novalidate: true },
    h("h2", {}, "Create a channel"),
    h("div", { class: "dialog-fields" },
      h("label", { for: "new-channel-name" }, "Channel name"), name,
      h("label", { for: "new-channel-description" }, "Description"), description),
    h("div", { class: "check-row" }, privateBox, h("label", { for: "new-channel-private" }, "Private (invite only)")),
    createError,
    h("button", { type: "submit", class: "primary" }, "Create channel"));
  create.addEventListener("submit", async (e) => {
    e.preventDefault();
    createError.textContent = "";
    const problem = channelNameError(name.value, store().streams.values(), store().realm.max_stream_name_length || 60);
    if (problem) {
      createError.textContent = problem;
      name.focus();
      return;
    }
    const wanted = name.value.trim();
    try {
      await app.api.post("users/me/subscriptions", {
        subscriptions: [{ name: wanted, description: description.value.trim() }],
        invite_only: privateBox.checked,
      });
      app.toast(`Created #${wanted}`);
      name.value = "";
      description.value = "";
      privateBox.checked = false;
    } catch (err) {
      createError.textContent = `Could not create the channel: ${err.message}`;
    }
  });

  const root = h("div", { class: "browse-channels-view" },
    h("section", { "aria-label": "Channels to browse" }, filter, alert, list), create);
  container.append(root);
  render();
  const offs = [
    app.ctx.onEvent("subscription", render),
    app.ctx.onEvent("stream", render),
  ];
  return {
    unmount() {
      for (const off of offs) off();
      root.remove();
    },
  };
}
