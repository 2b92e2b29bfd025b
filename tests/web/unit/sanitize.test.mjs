// The message HTML sanitiser's rules and tree walk (src/web/client/sanitize.js), with a small
// DOM-like shim instead of a browser, under node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { dropsElement, isSafeUrl, keepsAttribute, sanitizeTree } from "../../../src/web/client/sanitize.js";

test("dangerous elements are dropped", () => {
  for (const tag of ["script", "SCRIPT", "iframe", "object", "embed", "style", "form", "input", "svg"]) assert.equal(dropsElement(tag), true, tag);
  for (const tag of ["p", "a", "img", "span", "code", "pre", "blockquote", "table"]) assert.equal(dropsElement(tag), false, tag);
});

test("URLs: javascript and data are refused except data images", () => {
  assert.equal(isSafeUrl("https://example.com"), true);
  assert.equal(isSafeUrl("/user_uploads/1/a.png"), true);
  assert.equal(isSafeUrl("#narrow/is/starred"), true);
  assert.equal(isSafeUrl("javascript:alert(1)"), false);
  assert.equal(isSafeUrl(" JaVa\tScRiPt:alert(1)"), false);
  assert.equal(isSafeUrl("vbscript:x"), false);
  assert.equal(isSafeUrl("data:text/html;base64,PHNjcmlwdD4="), false);
  assert.equal(isSafeUrl("data:image/png;base64,AAAA", { image: true }), true);
  assert.equal(isSafeUrl("data:image/svg+xml;base64,AAAA", { image: true }), false);
});

test("attributes: on* handlers, style and unsafe URLs go", () => {
  assert.equal(keepsAttribute("img", "onerror", "x"), false);
  assert.equal(keepsAttribute("a", "ONCLICK", "x"), false);
  assert.equal(keepsAttribute("p", "style", "color:red"), false);
  assert.equal(keepsAttribute("a", "href", "javascript:x"), false);
  assert.equal(keepsAttribute("a", "href", "https://x.org"), true);
  assert.equal(keepsAttribute("img", "src", "data:image/png;base64,AA"), true);
  assert.equal(keepsAttribute("a", "href", "data:image/png;base64,AA"), false);
  assert.equal(keepsAttribute("img", "srcset", "a.png 1x, javascript:x 2x"), false);
  assert.equal(keepsAttribute("span", "class", "user-mention"), true);
});

class El {
  constructor(tagName, attrs = {}, children = []) {
    this.tagName = tagName;
    this.attrs = new Map(Object.entries(attrs));
    this.children = children;
    for (const c of children) c.parent = this;
  }
  get attributes() {
    return [...this.attrs].map(([name, value]) => ({ name, value }));
  }
  getAttribute(n) { return this.attrs.has(n) ? this.attrs.get(n) : null; }
  setAttribute(n, v) { this.attrs.set(n, v); }
  removeAttribute(n) { this.attrs.delete(n); }
  remove() { this.parent.children = this.parent.children.filter((c) => c !== this); }
}

test("the tree walk removes what the rules refuse, at any depth", () => {
  let deep = new El("span", { onclick: "x" });
  const deepest = deep;
  for (let i = 0; i < 5000; i++) deep = new El("div", {}, [deep]);
  const root = new El("body", {}, [
    new El("p", { onmouseover: "x", class: "ok" }, [new El("script"), new El("a", { href: "javascript:alert(1)" })]),
    new El("iframe", { src: "https://x" }),
    new El("a", { href: "https://example.com" }),
    deep,
  ]);
  sanitizeTree(root);
  assert.deepEqual(root.children.map((c) => c.tagName), ["p", "a", "div"]);
  const p = root.children[0];
  assert.deepEqual(p.attributes, [{ name: "class", value: "ok" }]);
  assert.deepEqual(p.children.map((c) => c.tagName), ["a"]);
  assert.equal(p.children[0].getAttribute("href"), null);
  assert.equal(root.children[1].getAttribute("rel"), "noopener noreferrer");
  assert.equal(deepest.getAttribute("onclick"), null);
});

test("only links leaving the app open elsewhere", async () => {
  const { opensElsewhere } = await import("../../../src/web/client/sanitize.js");
  assert.equal(opensElsewhere("https://example.com"), true);
  assert.equal(opensElsewhere("//evil.example"), true);
  assert.equal(opensElsewhere("#narrow/channel/1-general"), false);
  assert.equal(opensElsewhere("/user_uploads/1/a.png"), true);
  assert.equal(opensElsewhere(""), false);
});

test("attributes that clobber page names, take focus or edit are dropped; srcset/formaction/xlink:href checked", () => {
  for (const name of ["id", "name", "form", "tabindex", "accesskey", "contenteditable", "ping", "http-equiv", "style", "srcdoc", "formaction", "is"]) {
    assert.equal(keepsAttribute("img", name, "x"), false, name);
  }
  assert.equal(keepsAttribute("img", "srcset", "/a.png 1x, javascript:alert(1) 2x"), false);
  assert.equal(keepsAttribute("img", "srcset", "/a.png 1x, /b.png 2x"), true);
  assert.equal(keepsAttribute("a", "xlink:href", "javascript:alert(1)"), false);
  assert.equal(keepsAttribute("a", "XLINK:HREF", "java\tscript:alert(1)"), false);
  assert.equal(keepsAttribute("video", "poster", "data:text/html,x"), false);
  assert.equal(keepsAttribute("span", "class", "highlight"), true);
  for (const tag of ["base", "meta", "link", "portal", "style", "svg"]) assert.equal(dropsElement(tag), true, tag);
});
