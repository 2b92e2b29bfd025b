// The login page and logging in and out, as a person does it in the browser.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DESKTOP,
  PHONE,
  channel,
  launch,
  loginAs,
  loginWithForm,
  screenshot,
  sendApi,
  site,
  users,
  waitForMainView,
} from "./lib.mjs";

let browser;
before(async () => {
  await channel("general");
  await sendApi("alice", "general", "welcome", "Welcome to the end-to-end tests.");
  browser = await launch();
});
after(async () => browser?.close());

describe("login", () => {
  it("an unauthenticated visit to / is sent to the login form, which works without JavaScript", async () => {
    const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${site}/`);
    assert.equal(new URL(page.url()).pathname, "/login", `opening / without a session ended on ${page.url()} instead of /login`);
    await page.getByLabel("Email").waitFor({ timeout: 5_000 }).catch(() => {});
    for (const label of ["Email", "Password"]) {
      assert.equal(await page.getByLabel(label, { exact: true }).count(), 1, `the login page has no field labelled "${label}"`);
    }
    assert.equal(await page.getByRole("button", { name: "Log in" }).count(), 1, 'the login page has no "Log in" button');
    await page.getByLabel("Email").fill(users.bob.email);
    await page.getByLabel("Password", { exact: true }).fill(users.bob.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL((url) => url.pathname === "/", { timeout: 10_000 });
    const cookies = await context.cookies();
    assert.ok(cookies.some((c) => c.name === "outpost_session"), "logging in without JavaScript set no session cookie");
    await context.close();
  });

  it("a link into a view survives the login form: after logging in, that view opens", async () => {
    const streamId = await channel("general");
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const link = `#narrow/channel/${streamId}-general/topic/welcome`;
    await page.goto(`${site}/${link}`);
    assert.equal(new URL(page.url()).pathname, "/login", `opening a link without a session ended on ${page.url()} instead of /login`);
    await page.getByLabel("Email").fill(users.bob.email);
    await page.getByLabel("Password", { exact: true }).fill(users.bob.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL((url) => url.pathname === "/", { timeout: 10_000 });
    assert.equal(new URL(page.url()).hash, link, `after logging in the page is at ${page.url()}, not the link's view`);
    await waitForMainView(page, "Bob");
    const title = page.locator("#narrow-title");
    await title.filter({ hasText: "welcome" }).waitFor({ timeout: 10_000 }).catch(() => {});
    const shown = await title.innerText();
    assert.ok(shown.includes("general") && shown.includes("welcome"), `the view opened after login is titled ${JSON.stringify(shown)}, not the linked topic`);
    await context.close();
  });

  it("a wrong password keeps the user on the form with an error and no session", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${site}/login`);
    await page.getByLabel("Email").fill(users.alice.email);
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    const alert = page.getByRole("alert");
    await alert.first().waitFor({ timeout: 5_000 }).catch(() => {});
    assert.ok(await alert.count(), `a wrong password showed no error (role="alert"); the page shows ${JSON.stringify((await page.locator("body").innerText()).slice(0, 200))}`);
    assert.equal(new URL(page.url()).pathname, "/login", "a wrong password left the login page");
    assert.ok(!(await context.cookies()).some((c) => c.name === "outpost_session"), "a wrong password set a session cookie");
    await screenshot(page, "login-error-desktop");
    await context.close();
  });

  for (const [name, viewport] of [["desktop", DESKTOP], ["phone", PHONE]]) {
    it(`logging in shows the main view (${viewport.width}x${viewport.height})`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${site}/login`);
      await screenshot(page, `login-${name}`);
      await loginWithForm(page, "alice");
      await waitForMainView(page, "Alice");
      await page.getByText("Welcome to the end-to-end tests.").first().waitFor({ timeout: 10_000 });
      await screenshot(page, `main-${name}`);
      if (name === "phone") {
        // Sidebars collapse on a phone: the message list keeps most of the width.
        const box = await page.getByRole("region", { name: "Messages" }).boundingBox();
        assert.ok(box && box.width >= viewport.width * 0.8, `on a ${viewport.width} px wide screen the message list is only ${box && Math.round(box.width)} px wide (sidebars not collapsed)`);
      }
      await context.close();
    });
  }

  it('"Log out" ends the session: the next visit lands on the login page', async () => {
    const { context, page } = await loginAs(browser, "bob");
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL((url) => url.pathname === "/login", { timeout: 10_000 });
    const answer = await page.evaluate(async () => (await fetch("/json/users/me")).status);
    assert.equal(answer, 401, `after "Log out" /json/users/me answered ${answer} instead of 401`);
    await page.goto(`${site}/`);
    assert.equal(new URL(page.url()).pathname, "/login", "after logging out, / still shows the app");
    await context.close();
  });
});
