// Per-channel settings from the sidebar: the channel's menu (button or right click) mutes,
// pins and unsubscribes, and its "Channel settings" dialog sets colour and notifications.
// Changes go through POST /users/me/subscriptions/properties (and DELETE
// /users/me/subscriptions); the `subscription` events redraw the sidebar.
import { h } from "./render.js";
import { refocus, showMenu } from "./menu.js";
import { subscriptionSetting, NOTIFICATION_PROPS } from "./channel_logic.js";

export function setSubProperty(app, streamId, property, value) {
  return app.api.post("users/me/subscriptions/properties", {
    subscription_data: [{ stream_id: streamId, property, value }],
  });
}

export async function unsubscribe(app, sub) {
  await app.api.del("users/me/subscriptions", { subscriptions: [sub.name] });
  app.toast(`Unsubscribed from #${sub.name}`);
  const open = (app.terms || []).find((t) => t.operator === "channel");
  if (open && open.operand === sub.stream_id) app.navigate("#all-messages");
}

export function openChannelMenu(app, anchor, streamId, at = null) {
  const sub = app.store.subs.get(streamId);
  if (!sub) return null;
  return showMenu({
    anchor,
    at,
    label: `Channel options for ${sub.name}`,
    toast: app.toast,
    items: [
      { label: sub.is_muted ? "Unmute channel" : "Mute channel", run: () => setSubProperty(app, streamId, "is_muted", !sub.is_muted) },
      { label: sub.pin_to_top ? "Unpin from top" : "Pin to top", run: () => setSubProperty(app, streamId, "pin_to_top", !sub.pin_to_top) },
      { label: "Channel settings", run: () => openChannelSettings(app, streamId, anchor) },
      { label: "Unsubscribe", run: () => unsubscribe(app, sub) },
    ],
  });
}

/** The dialog "Channel settings": colour, mute, pin and the four notification switches. */
export function openChannelSettings(app, streamId, returnTo) {
  const sub = app.store.subs.get(streamId);
  if (!sub) return;
  const alert = h("p", { class: "compose-error", role: "alert" });
  const saved = h("p", { class: "saved-note", role: "status" });
  const save = async (property, value) => {
    alert.textContent = "";
    saved.textContent = "";
    try {
      await setSubProperty(app, streamId, property, value);
      saved.textContent = "Saved";
    } catch (err) {
      alert.textContent = `Could not save: ${err.message}`;
    }
  };
  const color = h("input", { type: "color", id: "channel-color", value: /^#[0-9a-f]{6}$/i.test(sub.color || "") ? sub.color : "#76ce90" });
  color.addEventListener("change", () => save("color", color.value));
  const check = (id, label, property, value) => {
    const box = h("input", { type: "checkbox", id, checked: !!value });
    box.addEventListener("change", () => save(property, box.checked));
    return h("div", { class: "check-row" }, box, h("label", { for: id }, label));
  };
  const fields = h("div", { class: "dialog-fields channel-settings" },
    h("label", { for: "channel-color" }, "Colour"), color,
    check("channel-muted", "Mute channel", "is_muted", sub.is_muted),
    check("channel-pinned", "Pin to top", "pin_to_top", sub.pin_to_top),
    h("h3", {}, "Notifications"),
    ...NOTIFICATION_PROPS.map(([property, label]) =>
      check(`channel-${property}`, label, property, subscriptionSetting(sub, property, app.store.settings))));
  const dlg = h("dialog", { class: "dialog", "aria-label": "Channel settings" },
    h("h2", {}, `#${sub.name}`), fields, alert, saved,
    h("div", { class: "dialog-buttons" },
      h("button", { type: "button", class: "danger", onclick: async () => {
        try {
          await unsubscribe(app, sub);
          dlg.close();
        } catch (err) {
          alert.textContent = `Could not unsubscribe: ${err.message}`;
        }
      } }, "Unsubscribe"),
      h("button", { type: "button", class: "primary", onclick: () => dlg.close() }, "Close")));
  dlg.addEventListener("close", () => {
    dlg.remove();
    refocus(returnTo);
  });
  document.body.append(dlg);
  dlg.showModal();
  color.focus();
}
