// DOM helpers of the feature modules: an element builder that sets text (never HTML), and a
// modal-dialog helper (focus moved in, Tab kept inside, Esc and outside clicks close, focus
// returned to the opener). No inline styles or scripts (the page's CSP forbids them).

/**
 * Builds an element: `h("button", {type: "button", class: "x", "aria-label": "y", onclick: fn}, "text", child)`.
 * Attributes starting with "on" become listeners; `true` sets a boolean attribute, false/null skip it.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value == null) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "value" && "value" in el) {
      el.value = value;
    } else if (key === "checked" || key === "selected") {
      el[key] = Boolean(value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let idCounter = 0;
/** A document-unique id with a prefix. */
export function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form field: returns {row, input}. `input` is the control; the label names it. */
export function field(label, input, hint) {
  input.id = input.id || uid("f-field");
  const row = h("div", { class: "f-field" }, h("label", { for: input.id }, label), input);
  if (hint) {
    const hintId = uid("f-hint");
    input.setAttribute("aria-describedby", hintId);
    row.append(h("p", { class: "f-hint", id: hintId }, hint));
  }
  return { row, input };
}

/** A checkbox with its label after it: returns {row, input}. */
export function toggle(label, checked) {
  const input = h("input", { type: "checkbox", id: uid("f-toggle"), checked });
  const row = h("div", { class: "f-toggle" }, input, h("label", { for: input.id }, label));
  return { row, input };
}

const FOCUSABLE = [
  "a[href]",
  "button:not([disabled])",
  "input:not([disabled])",
  "select:not([disabled])",
  "textarea:not([disabled])",
  "[tabindex]",
]
  .map((selector) => `${selector}:not([tabindex="-1"])`)
  .join(", ");

/**
 * Opens `dialog` (an element with role="dialog") as a modal over a backdrop. Returns
 * `close()`. Esc, a click on the backdrop or close() removes it and gives focus back to
 * `returnFocus`. `onClose` runs once.
 */
export function openModal(dialog, { returnFocus, onClose, initialFocus } = {}) {
  const backdrop = h("div", { class: "f-backdrop" });
  dialog.setAttribute("aria-modal", "true");
  if (!dialog.hasAttribute("tabindex")) dialog.setAttribute("tabindex", "-1");
  backdrop.append(dialog);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    document.removeEventListener("keydown", onKey, true);
    backdrop.remove();
    if (onClose) onClose();
    if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  };
  const onKey = (event) => {
    if (!document.contains(dialog)) return;
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      const items = [...dialog.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
      if (items.length === 0) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  };
  backdrop.addEventListener("mousedown", (event) => {
    if (event.target === backdrop) close();
  });
  document.addEventListener("keydown", onKey, true);
  document.body.append(backdrop);
  const target = initialFocus || dialog.querySelector(FOCUSABLE) || dialog;
  target.focus();
  return close;
}

/** Shows `message` in a role="alert" element (empty hides it). */
export function showError(el, message) {
  el.textContent = message || "";
  el.hidden = !message;
}

/** The message of an error from api.js (ApiError.message) or anything else. */
export function errorText(err) {
  return (err && err.message) || String(err);
}

/** An avatar URL the page may load (same origin: the CSP allows no other images), or null. */
export function localAvatarUrl(url) {
  if (typeof url !== "string" || !url) return null;
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  try {
    const parsed = new URL(url, location.href);
    return parsed.origin === location.origin ? parsed.href : null;
  } catch {
    return null;
  }
}
