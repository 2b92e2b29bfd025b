// Keyboard use, the theme switch, settings, the user list and the profile card.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  PHONE,
  api,
  channel,
  expectSeen,
  launch,
  loginAs,
  message,
  messages,
  narrowTo,
  screenshot,
  selectedMessageId,
  sendApi,
  site,
  url,
} from "./lib.mjs";

const stamp = Date.now().toString(36);
let browser, alice, streamId;
before(async () => {
  streamId = await channel("e2e-keys");
  for (let i = 1; i <= 5; i++) await sendApi("bob", "e2e-keys", "keys", `key message ${i} ${stamp}`);
  browser = await launch();
  alice = await loginAs(browser, "alice");
});
after(async () => {
  await api("alice", "PATCH", "settings", { color_scheme: 1 }).catch(() => {});
  await browser?.close();
});

const html = (page) => page.evaluate(() => document.documentElement.dataset.theme || null);
const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

describe("keyboard", () => {
  it("j and k move the selection down and up the message list", async () => {
    const { page } = alice;
    await narrowTo(page, streamId, "e2e-keys", "keys");
    await expectSeen(page, message(page, `key message 5 ${stamp}`), "Alice", "the newest message");
    await page.locator("body").click({ position: { x: 1, y: 1 } }).catch(() => {});
    await page.keyboard.press("Escape");
    // The first key selects a message (the view may open at the first unread, the oldest here).
    await page.keyboard.press("j");
    const first = await selectedMessageId(page);
    assert.ok(first, "after pressing j no message is selected (expected an article with class selected)");
    await page.keyboard.press("j");
    const down = await selectedMessageId(page);
    if (down > first) {
      await page.keyboard.press("k");
      const up = await selectedMessageId(page);
      assert.equal(up, first, `after j then k the selection went from message ${down} to ${up} instead of back to ${first}`);
    } else {
      assert.equal(down, first, "j at the newest message moved the selection");
      await page.keyboard.press("k");
      const up = await selectedMessageId(page);
      assert.ok(up && up < first, `k from the newest message ${first} selected ${up} instead of an older one`);
    }
  });

  it("/ focuses the search box, Esc leaves it", async () => {
    const { page } = alice;
    await page.keyboard.press("Escape");
    await page.keyboard.press("/");
    const focused = await page.evaluate(() => document.activeElement?.getAttribute("type") === "search" || document.activeElement?.getAttribute("aria-label") === "Search");
    assert.ok(focused, "pressing / did not put the cursor in the Search box");
    const value = await page.getByRole("searchbox", { name: "Search" }).inputValue();
    assert.ok(!value.includes("/"), "the / typed to focus the search box ended up in it");
    await page.keyboard.press("Escape");
  });
});

describe("theme", () => {
  it("the color_scheme setting switches the page between dark and light live", async () => {
    const { page } = alice;
    await api("alice", "PATCH", "settings", { color_scheme: 2 });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark", null, { timeout: 10_000 })
      .catch(async () => assert.fail(`after choosing the dark theme the page's data-theme is ${await html(page)}`));
    const dark = await background(page);
    await screenshot(page, "main-dark-desktop");
    await api("alice", "PATCH", "settings", { color_scheme: 3 });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light", null, { timeout: 10_000 })
      .catch(async () => assert.fail(`after choosing the light theme the page's data-theme is ${await html(page)}`));
    assert.notEqual(await background(page), dark, "dark and light themes have the same background colour");
  });

  it("the theme can be chosen in Settings and is saved on the server", async () => {
    const { page } = alice;
    await page.goto(url(page, `/#settings/preferences`));
    const control = page.getByLabel(/theme|color scheme/i).first();
    await expectSeen(page, control, "Alice", "a theme control in Settings > Preferences", 10_000);
    await screenshot(page, "settings-desktop");
    const tag = await control.evaluate((el) => el.tagName);
    if (tag === "SELECT") {
      const label = await control.locator("option", { hasText: /dark/i }).first().textContent();
      await control.selectOption({ label });
    } else {
      await page.getByRole("radio", { name: /dark/i }).first().check();
    }
    await page.getByRole("button", { name: /^save/i }).click({ timeout: 1_000 }).catch(() => {});
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark", null, { timeout: 10_000 })
      .catch(async () => assert.fail(`choosing Dark in Settings left data-theme=${await html(page)}`));
    const { user_settings: settings } = await api("alice", "POST", "register", { fetch_event_types: ["user_settings"] });
    assert.equal(settings.color_scheme, 2, `the server stored color_scheme ${settings.color_scheme} after choosing Dark`);
  });
});

describe("people", () => {
  it("the Users sidebar lists Bob with a presence; his name opens the profile card", async () => {
    const { page } = alice;
    await page.goto(url(page, `/`));
    const list = page.getByRole("complementary", { name: "Users" });
    const bob = list.getByText("Bob Member");
    await expectSeen(page, bob, "Alice", 'Bob in the "Users" sidebar');
    const presence = await list.locator(".presence-active, .presence-idle, .presence-offline").count();
    assert.ok(presence >= 2, `the Users sidebar marks presence on ${presence} people (expected both users)`);
    await bob.first().click();
    const card = page.getByRole("dialog", { name: "User profile" });
    await expectSeen(page, card, "Alice", 'the "User profile" card after clicking Bob', 5_000);
    assert.match(await card.innerText(), /bob@example\.com/, "the profile card does not show Bob's email");
    await screenshot(page, "profile-card-desktop");
    await card.getByRole("button", { name: "Send direct message" }).click();
    await page.waitForFunction(() => /#narrow\/(dm|pm-with)\//.test(location.hash), null, { timeout: 5_000 })
      .catch(async () => assert.fail(`"Send direct message" went to ${await page.evaluate(() => location.hash)}`));
  });

  it("on a phone the main view and settings fit the screen", async () => {
    const phone = await loginAs(browser, "alice", { viewport: PHONE });
    await screenshot(phone.page, "main-dark-phone");
    const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width + 1, `the main view is ${width} px wide on a ${PHONE.width} px phone (horizontal scrolling)`);
    await phone.page.goto(url(phone.page, `/#settings/preferences`));
    await phone.page.waitForTimeout(500);
    await screenshot(phone.page, "settings-phone");
    await messages(phone.page).count();
    await phone.context.close();
  });
});
