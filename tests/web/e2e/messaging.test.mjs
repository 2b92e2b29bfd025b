// Two people, each in their own browser context logged in through /login, talk live:
// channel messages, direct messages, reactions, edits, search, an image upload, unread counts.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LIVE_MS,
  api,
  channel,
  composeBox,
  expectSeen,
  launch,
  loginAs,
  message,
  messageAction,
  messages,
  narrowTo,
  screenshot,
  sendApi,
  sendFromCompose,
  shownMessages,
  site,
  url,
  users,
} from "./lib.mjs";

const CHANNEL = "e2e-chat";
const stamp = Date.now().toString(36);
let browser, alice, bob, streamId;

before(async () => {
  streamId = await channel(CHANNEL);
  await sendApi("alice", CHANNEL, "live", `hello from the API ${stamp}`);
  browser = await launch();
  alice = await loginAs(browser, "alice");
  bob = await loginAs(browser, "bob");
});

after(async () => {
  await browser?.close();
});

describe("two people talking", () => {
  it("a channel message sent from Alice's compose box shows up live for Bob, and his answer for her", async () => {
    await narrowTo(alice.page, streamId, CHANNEL, "live");
    await narrowTo(bob.page, streamId, CHANNEL, "live");
    const text = `lunch at noon? ${stamp}`;
    await sendFromCompose(alice.page, { channel: CHANNEL, topic: "live", content: text });
    await expectSeen(alice.page, message(alice.page, text), "Alice", `her own message "${text}"`);
    await expectSeen(bob.page, message(bob.page, text), "Bob", `Alice's message "${text}"`);
    const row = message(bob.page, text).last();
    assert.match(await row.innerText(), /Alice Owner/, "Bob's copy of the message does not name Alice as its sender");
    assert.equal(await row.locator("time").count(), 1, "the message shows no <time>");

    const answer = `yes, see you there ${stamp}`;
    await sendFromCompose(bob.page, { channel: CHANNEL, topic: "live", content: answer });
    await expectSeen(alice.page, message(alice.page, answer), "Alice", `Bob's answer "${answer}"`);
    await screenshot(alice.page, "channel-desktop");
  });

  it("a direct message from Alice reaches Bob live and his reply reaches her", async () => {
    const dm = `a private word ${stamp}`;
    await alice.page.goto(url(alice.page, `/#narrow/dm/${users.bob.user_id}-Bob-Member`));
    const box = await composeBox(alice.page);
    const to = alice.page.getByLabel("To", { exact: true });
    if ((await to.isVisible()) && !(await to.inputValue().catch(() => "x"))) {
      await to.fill(users.bob.email);
      await to.press("Enter");
    }
    await box.fill(dm);
    await alice.page.getByRole("button", { name: "Send", exact: true }).click();
    await expectSeen(alice.page, message(alice.page, dm), "Alice", `her direct message "${dm}"`);

    await bob.page.goto(url(bob.page, `/#narrow/dm/${users.alice.user_id}-Alice-Owner`));
    await expectSeen(bob.page, message(bob.page, dm), "Bob", `Alice's direct message "${dm}"`);
    const reply = `private reply ${stamp}`;
    const bobBox = await composeBox(bob.page);
    await bobBox.fill(reply);
    await bob.page.getByRole("button", { name: "Send", exact: true }).click();
    await expectSeen(alice.page, message(alice.page, reply), "Alice", `Bob's direct reply "${reply}"`);
    await screenshot(alice.page, "direct-messages-desktop");
  });

  it("Bob reacts through the emoji picker and Alice sees the reaction", async () => {
    const text = `react to this ${stamp}`;
    await narrowTo(alice.page, streamId, CHANNEL, "reactions");
    await narrowTo(bob.page, streamId, CHANNEL, "reactions");
    await sendApi("alice", CHANNEL, "reactions", text);
    await expectSeen(bob.page, message(bob.page, text), "Bob", `the message "${text}"`);
    await (await messageAction(bob.page, text, "Add reaction")).click();
    const picker = bob.page.getByRole("dialog", { name: "Emoji picker" });
    await expectSeen(bob.page, picker, "Bob", 'the "Emoji picker" dialog after "Add reaction"', 5_000);
    await picker.getByRole("searchbox", { name: "Search emoji" }).or(picker.getByLabel("Search emoji")).first().fill("thumbs");
    await screenshot(bob.page, "emoji-picker-desktop");
    await picker.getByRole("button", { name: "thumbs_up", exact: true }).first().click();

    const onAlice = message(alice.page, text).locator("button.reaction", { hasText: "" });
    await expectSeen(alice.page, message(alice.page, text).getByRole("button", { name: "thumbs_up 1" }), "Alice", `Bob's thumbs_up reaction (a button "thumbs_up 1") on "${text}"`);
    assert.equal(await onAlice.count(), 1, "Alice sees more than one reaction button");
    const mine = message(bob.page, text).getByRole("button", { name: "thumbs_up 1" });
    await expectSeen(bob.page, mine, "Bob", "his own reaction");
    assert.equal(await mine.getAttribute("aria-pressed"), "true", "Bob's own reaction is not shown as pressed");
    const server = await api("alice", "GET", `messages/${await message(alice.page, text).last().getAttribute("data-message-id")}`);
    assert.deepEqual(server.message.reactions.map((r) => r.emoji_name), ["thumbs_up"], "the server did not store the reaction");
  });

  it("Alice edits her message and Bob sees the new text", async () => {
    const text = `typo heer ${stamp}`;
    const fixed = `typo fixed here ${stamp}`;
    await narrowTo(alice.page, streamId, CHANNEL, "edits");
    await narrowTo(bob.page, streamId, CHANNEL, "edits");
    await sendApi("alice", CHANNEL, "edits", text);
    await expectSeen(alice.page, message(alice.page, text), "Alice", `her message "${text}"`);
    await (await messageAction(alice.page, text, "Edit message")).click();
    const editor = alice.page.getByRole("textbox", { name: "Edit message" });
    await expectSeen(alice.page, editor, "Alice", 'the "Edit message" box', 5_000);
    // The box opens disabled and is filled and enabled once the message's Markdown has arrived.
    await alice.page.waitForFunction(() => {
      const box = document.querySelector('textarea[aria-label="Edit message"]');
      return box !== null && !box.disabled;
    }, null, { timeout: 5_000 }).catch(() => assert.fail("the edit box was not enabled within 5 s"));
    assert.equal(await editor.inputValue(), text, "the edit box does not hold the message's Markdown");
    await editor.fill(fixed);
    await alice.page.getByRole("button", { name: "Save", exact: true }).click();
    await expectSeen(bob.page, message(bob.page, fixed), "Bob", `the edited text "${fixed}"`);
    assert.equal(await message(bob.page, text).count(), 0, "Bob still sees the old text next to the edit");
  });

  it("search with the narrow syntax shows only the matching messages", async () => {
    const word = `needle${stamp}`;
    await sendApi("bob", CHANNEL, "search-a", `first ${word}`);
    await sendApi("bob", CHANNEL, "search-a", `second ${word}`);
    await sendApi("bob", CHANNEL, "search-b", `other topic ${word}`);
    await sendApi("bob", CHANNEL, "search-a", `no match here ${stamp}`);
    await alice.page.goto(url(alice.page, `/`));
    const search = alice.page.getByRole("searchbox", { name: "Search" });
    await search.fill(`channel:${CHANNEL} topic:search-a ${word}`);
    await search.press("Enter");
    await expectSeen(alice.page, message(alice.page, `second ${word}`), "Alice", `the search hit "second ${word}"`);
    await alice.page.waitForTimeout(300);
    const shown = await messages(alice.page).locator("article.message .message-content").allInnerTexts();
    assert.deepEqual(
      shown.map((t) => t.trim()),
      [`first ${word}`, `second ${word}`],
      `searching "channel:${CHANNEL} topic:search-a ${word}" showed other messages too: ${await shownMessages(alice.page, 6)}`,
    );
    assert.match(decodeURIComponent(alice.page.url()), new RegExp(`#(narrow|search).*${word}`), "the search is not in the address (hash)");
  });

  it("an uploaded image is sent and both see its preview thumbnail", async () => {
    await narrowTo(alice.page, streamId, CHANNEL, "pictures");
    await narrowTo(bob.page, streamId, CHANNEL, "pictures");
    const png = await alice.page.evaluate(() => {
      const canvas = document.createElement("canvas");
      canvas.width = 64;
      canvas.height = 48;
      const g = canvas.getContext("2d");
      g.fillStyle = "#d62c6b";
      g.fillRect(0, 0, 64, 48);
      return canvas.toDataURL("image/png").split(",")[1];
    });
    const box = await composeBox(alice.page);
    const topic = alice.page.getByLabel("Topic", { exact: true });
    if (await topic.isVisible()) await topic.fill("pictures");
    await alice.page.locator("input[type=file]").first().setInputFiles({
      name: `square-${stamp}.png`,
      mimeType: "image/png",
      buffer: Buffer.from(png, "base64"),
    });
    try {
      await alice.page.waitForFunction(
        (name) => /\/user_uploads\/\S+/.test(document.querySelector("textarea[aria-label=Message], #compose textarea")?.value || "") ||
          [...document.querySelectorAll("textarea")].some((t) => t.value.includes(name) && t.value.includes("/user_uploads/")),
        `square-${stamp}.png`,
        { timeout: LIVE_MS },
      );
    } catch {
      assert.fail(`after choosing a file under "Upload files" the compose box did not get an /user_uploads/ link (it holds ${JSON.stringify(await box.inputValue())})`);
    }
    await alice.page.getByRole("button", { name: "Send", exact: true }).click();
    for (const [who, side] of [["Alice", alice], ["Bob", bob]]) {
      const img = message(side.page, `square-${stamp}.png`).locator(".message_inline_image img");
      await expectSeen(side.page, img, who, `the preview of square-${stamp}.png`);
      await side.page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.first().elementHandle(), { timeout: LIVE_MS }).catch(() => {});
      const size = await img.first().evaluate((el) => [el.naturalWidth, el.naturalHeight]);
      assert.ok(size[0] > 0, `${who} sees a broken image for the upload (it did not load with the session cookie)`);
    }
    await screenshot(bob.page, "upload-preview-desktop");
  });

  it("unread counts rise for messages Bob has not seen and go away when he marks them read", async () => {
    const quiet = "e2e-unread";
    const quietId = await channel(quiet);
    // Creating a channel posts its "channel events" notice: start Bob from zero unread.
    await api("bob", "POST", "mark_stream_as_read", { stream_id: quietId });
    await narrowTo(bob.page, streamId, CHANNEL, "live");
    for (let i = 1; i <= 3; i++) await sendApi("alice", quiet, "news", `unread news ${i} ${stamp}`);
    const nav = bob.page.getByRole("navigation", { name: "Channels" });
    const link = nav.getByRole("link", { name: new RegExp(`^${quiet}`) });
    await expectSeen(bob.page, link, "Bob", `the channel "${quiet}" in the Channels sidebar`);
    try {
      await link.locator(".unread-count").or(link.locator("xpath=..").locator(".unread-count")).first().filter({ hasText: "3" }).waitFor({ timeout: LIVE_MS });
    } catch {
      const text = await link.locator("xpath=..").innerText().catch(() => "?");
      assert.fail(`Bob's sidebar entry for "${quiet}" did not show 3 unread (it shows ${JSON.stringify(text)})`);
    }
    await screenshot(bob.page, "unread-desktop");
    await bob.page.getByRole("button", { name: "Mark all as read" }).click();
    const confirm = bob.page.getByRole("dialog").getByRole("button", { name: /confirm|mark/i });
    if (await confirm.isVisible().catch(() => false)) await confirm.click();
    try {
      await bob.page.waitForFunction(
        (name) => ![...document.querySelectorAll("nav[aria-label=Channels] a")].some(
          (a) => a.textContent.trim().startsWith(name) && /\d/.test(a.parentElement.querySelector(".unread-count")?.textContent || "")),
        quiet,
        { timeout: LIVE_MS },
      );
    } catch {
      assert.fail(`after "Mark all as read" Bob's sidebar still shows an unread count for "${quiet}"`);
    }
    const unread = await api("bob", "GET", "messages", {
      anchor: "newest", num_before: 10, num_after: 0,
      narrow: [{ operator: "channel", operand: quietId }, { operator: "is", operand: "unread" }],
    });
    assert.equal(unread.messages.length, 0, "the server still counts messages unread for Bob after Mark all as read");
  });
});
