// A small popup menu (role="menu" of role="menuitem" buttons) opened from a button or a
// right click: arrow keys move, Enter/Space pick, Esc or a click outside closes and focus
// returns to the opener. Each item's `run` may be async; a rejection is shown as a toast.
import { h } from "./render.js";

let openMenu = null;

/**
 * Focuses `el`, or when a re-render replaced it (the sidebar redraws on events), the control
 * that now carries the same accessible name.
 */
export function refocus(el) {
  if (!el) return;
  if (el.isConnected) {
    el.focus();
    return;
  }
  const name = el.getAttribute && el.getAttribute("aria-label");
  if (!name) return;
  const again = [...document.querySelectorAll("[aria-label]")].find((x) => x.getAttribute("aria-label") === name);
  if (again) again.focus();
}

export function closeMenu() {
  if (openMenu) openMenu.close();
}

/** `items`: [{label, run, checked?}] (null entries skipped); `at`: {x, y} or null to use the anchor. */
export function showMenu({ anchor, label, items, toast, at = null }) {
  closeMenu();
  const buttons = [];
  const menu = h("div", { class: "popup-menu", role: "menu", "aria-label": label });
  const close = (focusBack = true) => {
    if (openMenu !== handle) return;
    openMenu = null;
    menu.remove();
    document.removeEventListener("mousedown", onOutside, true);
    window.removeEventListener("hashchange", onHash);
    if (focusBack) refocus(anchor);
  };
  const onHash = () => close(false);
  const onOutside = (e) => {
    if (!menu.contains(e.target)) close(false);
  };
  for (const item of items.filter(Boolean)) {
    const props = { type: "button", role: item.checked === undefined ? "menuitem" : "menuitemcheckbox", tabindex: "-1" };
    if (item.checked !== undefined) props["aria-checked"] = item.checked ? "true" : "false";
    const b = h("button", props, item.label);
    b.addEventListener("click", async () => {
      close();
      try {
        await item.run();
      } catch (err) {
        if (toast) toast(`${item.label} failed: ${err.message}`);
      }
    });
    buttons.push(b);
    menu.append(b);
  }
  menu.addEventListener("keydown", (e) => {
    const i = buttons.indexOf(document.activeElement);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = (i + (e.key === "ArrowDown" ? 1 : -1) + buttons.length) % buttons.length;
      buttons[next].focus();
    } else if (e.key === "Home") {
      e.preventDefault();
      buttons[0].focus();
    } else if (e.key === "End") {
      e.preventDefault();
      buttons[buttons.length - 1].focus();
    } else if (e.key === "Escape" || e.key === "Tab") {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  });
  document.body.append(menu);
  const rect = anchor ? anchor.getBoundingClientRect() : { left: 0, bottom: 0 };
  const x = at ? at.x : rect.left;
  const y = at ? at.y : rect.bottom + 2;
  menu.style.left = `${Math.max(4, Math.min(x, window.innerWidth - menu.offsetWidth - 4))}px`;
  menu.style.top = `${Math.max(4, Math.min(y, window.innerHeight - menu.offsetHeight - 4))}px`;
  document.addEventListener("mousedown", onOutside, true);
  window.addEventListener("hashchange", onHash);
  const handle = { close };
  openMenu = handle;
  if (buttons.length) buttons[0].focus();
  return handle;
}
