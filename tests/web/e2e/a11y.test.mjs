// axe-core on the login page, the main view, settings and the emoji picker: no serious or
// critical violations. The axe context bypasses the CSP only so that the test can inject axe.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  axeSource,
  channel,
  expectSeen,
  launch,
  loginAs,
  message,
  messageAction,
  narrowTo,
  sendApi,
  site,
  url,
} from "./lib.mjs";

let browser, alice, streamId;
const text = `accessible message ${Date.now().toString(36)}`;
before(async () => {
  streamId = await channel("e2e-a11y");
  await sendApi("bob", "e2e-a11y", "axe", text);
  browser = await launch();
  alice = await loginAs(browser, "alice", { contextOptions: { bypassCSP: true } });
});
after(async () => browser?.close());

async function audit(page, what) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  });
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const minor = violations.filter((v) => !bad.includes(v)).map((v) => `${v.id} (${v.impact})`);
  if (minor.length) console.log(`# ${what}: minor axe findings: ${minor.join(", ")}`);
  assert.deepEqual(
    bad.map((v) => `${v.impact}: ${v.id}: ${v.help} at ${v.nodes.join(" | ")}`),
    [],
    `axe found serious or critical problems on ${what}`,
  );
}

describe("accessibility (axe-core)", () => {
  it("the login page", async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(url(page, `/login`));
    await audit(page, "the login page");
    await context.close();
  });

  it("the main view", async () => {
    await narrowTo(alice.page, streamId, "e2e-a11y", "axe");
    await expectSeen(alice.page, message(alice.page, text), "Alice", "the message");
    await audit(alice.page, "the main view");
  });

  it("the emoji picker", async () => {
    await (await messageAction(alice.page, text, "Add reaction")).click();
    await expectSeen(alice.page, alice.page.getByRole("dialog", { name: "Emoji picker" }), "Alice", "the emoji picker", 5_000);
    await audit(alice.page, "the emoji picker");
    await alice.page.keyboard.press("Escape");
  });

  it("settings", async () => {
    await alice.page.goto(url(alice.page, `/#settings/preferences`));
    await alice.page.waitForTimeout(500);
    await audit(alice.page, "settings (preferences)");
    await alice.page.goto(url(alice.page, `/#organization/organization-profile`));
    await alice.page.waitForTimeout(500);
    await audit(alice.page, "organization settings");
  });
});
