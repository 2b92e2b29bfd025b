// Sanitising the server's rendered message HTML before it enters the page: parsed inert
// with DOMParser, then every element the rules refuse is dropped, every `on*` attribute and
// every unsafe URL removed. The rules are pure functions; sanitizeTree walks any DOM-like
// tree (tagName, attributes, children, remove, removeAttribute) so node tests can use a shim.

const DROP = new Set(["script", "iframe", "object", "embed", "style", "form", "input", "button",
  "select", "textarea", "option", "link", "meta", "base", "frame", "frameset", "applet",
  "template", "svg", "math", "noscript", "title", "head", "dialog", "portal", "param"]);

// Attributes never kept: inline style and documents, and those that let content clobber the
// page's own names (id, name, form), grab focus or keys, or make itself editable.
const DROP_ATTRS = new Set(["style", "srcdoc", "formaction", "autofocus", "id", "name", "form", "tabindex",
  "accesskey", "contenteditable", "ping", "http-equiv", "is", "nonce"]);

const URL_ATTRS = new Set(["href", "src", "srcset", "action", "formaction", "xlink:href", "poster", "background", "cite", "data"]);

/** Whether an element with this tag name is dropped (with its content). */
export function dropsElement(tagName) {
  return DROP.has(String(tagName).toLowerCase());
}

/** Whether a URL value is safe: relative, http(s), mailto; data: only for images. */
export function isSafeUrl(value, { image = false } = {}) {
  const v = String(value || "").replace(/[\u0000-\u0020\u007f]+/g, "").toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(v);
  if (!scheme) return true;
  if (["http", "https", "mailto", "tel"].includes(scheme[1])) return true;
  if (scheme[1] === "data") return image && /^data:image\/(png|gif|jpe?g|webp|avif|bmp);/.test(v);
  return false;
}

/** Whether an attribute may stay on an element. */
export function keepsAttribute(tagName, name, value) {
  const n = String(name).toLowerCase();
  if (n.startsWith("on")) return false;
  if (DROP_ATTRS.has(n)) return false;
  if (URL_ATTRS.has(n)) {
    const image = String(tagName).toLowerCase() === "img" && (n === "src" || n === "srcset");
    if (n === "srcset") return String(value).split(",").every((part) => isSafeUrl(part.trim().split(/\s+/)[0], { image }));
    return isSafeUrl(value, { image });
  }
  return true;
}

/** Whether a link leaves the page (anything but an in-app `#` link): it opens in a new tab. */
export function opensElsewhere(href) {
  const v = String(href || "").trim();
  return v !== "" && !v.startsWith("#");
}

/** Cleans a tree in place (no recursion: an explicit stack bounds untrusted nesting). */
export function sanitizeTree(root) {
  const stack = [root];
  while (stack.length) {
    const el = stack.pop();
    for (const child of Array.from(el.children || [])) {
      if (dropsElement(child.tagName)) {
        child.remove();
        continue;
      }
      for (const attr of Array.from(child.attributes || [])) {
        if (!keepsAttribute(child.tagName, attr.name, attr.value)) child.removeAttribute(attr.name);
      }
      if (String(child.tagName).toLowerCase() === "a" && child.getAttribute && opensElsewhere(child.getAttribute("href"))) {
        child.setAttribute("target", "_blank");
        child.setAttribute("rel", "noopener noreferrer");
      }
      stack.push(child);
    }
  }
  return root;
}

/** Parses server HTML inertly and returns a sanitised DocumentFragment for this document. */
export function sanitizeHtml(html, doc = document) {
  const parsed = new DOMParser().parseFromString(`<!doctype html><body>${html}`, "text/html");
  sanitizeTree(parsed.body);
  const fragment = doc.createDocumentFragment();
  for (const node of Array.from(parsed.body.childNodes)) fragment.appendChild(doc.importNode(node, true));
  return fragment;
}
