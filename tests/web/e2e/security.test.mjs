// Security properties a browser can see: CSRF on /json, session cookie flags, the CSP and
// the other headers, and hostile message content that must neither run nor fetch anything.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { api, channel, expectSeen, launch, loginAs, message, narrowTo, sendApi, site, users } from "./lib.mjs";

const CSP_PARTS = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
];
let browser, alice;
before(async () => {
  await channel("general");
  browser = await launch();
  alice = await loginAs(browser, "alice");
});
after(async () => browser?.close());

describe("security", () => {
  it("a POST to /json without the X-CSRFToken header is refused 403 CSRF_FAILED; with it, it is accepted", async () => {
    const result = await alice.page.evaluate(async () => {
      const post = async (headers, content) => {
        const r = await fetch("/json/messages", {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
          body: new URLSearchParams({ type: "stream", to: "general", topic: "csrf", content }),
        });
        return { status: r.status, body: await r.json().catch(() => null) };
      };
      const token = document.querySelector('meta[name="csrf-token"]')?.content;
      return {
        none: await post({}, "csrf probe without token"),
        wrong: await post({ "X-CSRFToken": "wrong" + token }, "csrf probe wrong token"),
        right: await post({ "X-CSRFToken": token }, "csrf probe right token"),
      };
    });
    assert.equal(result.none.status, 403, `a POST without X-CSRFToken answered ${result.none.status}: ${JSON.stringify(result.none.body)}`);
    assert.equal(result.none.body?.code, "CSRF_FAILED", `the refusal's code is ${result.none.body?.code}`);
    assert.equal(result.wrong.status, 403, `a POST with a wrong X-CSRFToken answered ${result.wrong.status}`);
    assert.equal(result.right.status, 200, `a POST with the page's token answered ${result.right.status}: ${JSON.stringify(result.right.body)}`);
    const stored = await api("alice", "GET", "messages", {
      anchor: "newest", num_before: 10, num_after: 0,
      narrow: [{ operator: "channel", operand: "general" }, { operator: "topic", operand: "csrf" }],
    });
    assert.deepEqual(stored.messages.map((m) => m.content.replace(/<[^>]+>/g, "").trim()), ["csrf probe right token"],
      "a refused POST still sent its message");
  });

  it("/json takes only the session cookie: Basic auth and no session get 401", async () => {
    const auth = "Basic " + Buffer.from(`${users.alice.email}:${users.alice.api_key}`).toString("base64");
    const basic = await fetch(`${site}/json/users/me`, { headers: { Authorization: auth } });
    assert.equal(basic.status, 401, `/json/users/me with Basic auth answered ${basic.status}`);
    const body = await basic.json();
    assert.match(body.msg, /Not logged in/, `the 401's message is ${JSON.stringify(body.msg)}`);
  });

  it("the session cookie is HttpOnly, SameSite=Lax, Path=/ and not readable from the page", async () => {
    const cookie = (await alice.context.cookies()).find((c) => c.name === "outpost_session");
    assert.ok(cookie, "no outpost_session cookie after logging in");
    assert.equal(cookie.httpOnly, true, "the session cookie is not HttpOnly");
    assert.equal(cookie.sameSite, "Lax", `the session cookie is SameSite=${cookie.sameSite}`);
    assert.equal(cookie.path, "/", `the session cookie's path is ${cookie.path}`);
    assert.equal(cookie.secure, false, "the session cookie is Secure on a plain-HTTP listener (the browser would drop it)");
    assert.ok(cookie.value.length >= 40, "the session cookie's value is short for 256 random bits");
    const visible = await alice.page.evaluate(() => document.cookie);
    assert.ok(!visible.includes("outpost_session"), "the page's JavaScript can read the session cookie");
  });

  it("/ and /login carry the Content-Security-Policy, nosniff and no-referrer headers", async () => {
    const pages = { "/": await alice.page.goto(`${site}/`) };
    const anonymous = await browser.newContext();
    pages["/login"] = await (await anonymous.newPage()).goto(`${site}/login`);
    for (const [path, response] of Object.entries(pages)) {
      const headers = await response.allHeaders();
      const csp = headers["content-security-policy"] || "";
      for (const part of CSP_PARTS) assert.ok(csp.includes(part), `${path}: the CSP ${JSON.stringify(csp)} lacks "${part}"`);
      assert.equal(headers["x-content-type-options"], "nosniff", `${path}: X-Content-Type-Options is ${headers["x-content-type-options"]}`);
      assert.equal(headers["referrer-policy"], "no-referrer", `${path}: Referrer-Policy is ${headers["referrer-policy"]}`);
    }
    assert.match((await pages["/"].allHeaders())["cache-control"] || "", /no-store/, "/ may be cached (it holds the CSRF token)");
    await anonymous.close();
  });

  it("hostile message content neither runs script nor fetches from elsewhere", async () => {
    const streamId = await channel("e2e-hostile");
    const marker = "http://marker.invalid";
    const payloads = [
      "<script>alert(1)</script>",
      "<img src=x onerror=alert(1)>",
      '<a href="javascript:alert(1)">click</a>',
      "<svg onload=alert(1)>",
      "<iframe src=javascript:alert(1)></iframe>",
      "[x](javascript:alert(1))",
      "[y](JaVaScRiPt:alert(1))",
      "![z](javascript:alert(1))",
      "[d](data:text/html,<script>alert(1)</script>)",
      `![remote](${marker}/pixel.png)`,
      `<img src="${marker}/raw.png">`,
      "`<script>alert(1)</script>` and ```\n<img src=x onerror=alert(1)>\n```",
      '<details open ontoggle=alert(1)>',
      "<style>body{background:url(" + marker + "/css.png)}</style>",
      "$$\\href{javascript:alert(1)}{x}$$",
    ];
    await narrowTo(alice.page, streamId, "e2e-hostile", "payloads");
    const seen = alice.seen;
    seen.dialogs.length = 0;
    seen.foreign.length = 0;
    for (const [i, payload] of payloads.entries()) await sendApi("bob", "e2e-hostile", "payloads", `payload ${i}: ${payload}`);
    await expectSeen(alice.page, message(alice.page, `payload ${payloads.length - 1}:`), "Alice", "the last hostile message");
    // Hover each message (some payloads wait for an event) and click the links that point nowhere.
    for (const row of await message(alice.page, "payload").all()) await row.hover().catch(() => {});
    await alice.page.waitForTimeout(1_000);
    assert.deepEqual(seen.dialogs, [], `a hostile message opened a dialog: ${seen.dialogs.join("; ")}`);
    assert.deepEqual(seen.foreign, [], `a hostile message made the browser fetch ${seen.foreign.join(", ")}`);
    const dom = await alice.page.evaluate(() => {
      const found = [];
      for (const el of document.querySelectorAll("article.message .message-content *")) {
        if (["SCRIPT", "IFRAME", "OBJECT", "EMBED", "STYLE", "FORM"].includes(el.tagName)) found.push(el.tagName);
        for (const attr of el.attributes) {
          if (/^on/i.test(attr.name)) found.push(`${el.tagName} ${attr.name}`);
          if (/^\s*(javascript|vbscript):/i.test(attr.value) || (/^\s*data:/i.test(attr.value) && !/^\s*data:image\//i.test(attr.value)))
            found.push(`${el.tagName} ${attr.name}=${attr.value}`);
        }
      }
      return found;
    });
    assert.deepEqual(dom, [], `the message list holds live dangerous markup: ${dom.join(", ")}`);
    assert.deepEqual(seen.errors, [], `the page threw while rendering hostile messages: ${seen.errors.join("; ")}`);
  });
});
