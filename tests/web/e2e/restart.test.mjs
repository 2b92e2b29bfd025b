// The server restarts under an open client. A graceful stop (SIGTERM) keeps the event queues:
// the client goes on polling the same queue without registering again. A crash (SIGKILL)
// loses them: the client shows "Reconnecting", gets BAD_EVENT_QUEUE_ID, registers again and
// still receives messages. Runs last: it replaces the server process run.sh started.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { channel, expectSeen, launch, loginAs, message, narrowTo, restartServer, sendApi } from "./lib.mjs";

const stamp = Date.now().toString(36);
let browser, alice, streamId;
const registers = [];
before(async () => {
  streamId = await channel("e2e-restart");
  browser = await launch();
  alice = await loginAs(browser, "alice");
  alice.page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/json/register") registers.push(Date.now());
  });
  await narrowTo(alice.page, streamId, "e2e-restart", "restart");
});
after(async () => browser?.close());

describe("server restarts", () => {
  it("after a graceful restart (SIGTERM) the same event queue goes on delivering messages", async () => {
    const { page } = alice;
    await sendApi("bob", "e2e-restart", "restart", `before the restart ${stamp}`);
    await expectSeen(page, message(page, `before the restart ${stamp}`), "Alice", "the message sent before the restart");
    const before = registers.length;
    await restartServer("SIGTERM");
    await sendApi("bob", "e2e-restart", "restart", `after the graceful restart ${stamp}`);
    await expectSeen(page, message(page, `after the graceful restart ${stamp}`), "Alice", "a message sent after the graceful restart", 40_000);
    assert.equal(registers.length, before, `the client registered ${registers.length - before} new queue(s) after a graceful restart (the saved queue should continue)`);
  });

  it("after a crash (SIGKILL) the client says it is reconnecting, registers again and receives messages", async () => {
    const { page } = alice;
    const before = registers.length;
    await restartServer("SIGKILL", async () => {
      const banner = page.getByRole("status").filter({ hasText: /Reconnecting/ });
      await expectSeen(page, banner, "Alice", 'a "Reconnecting" banner while the server was down', 15_000);
    });
    await sendApi("bob", "e2e-restart", "restart", `after the crash ${stamp}`);
    await expectSeen(page, message(page, `after the crash ${stamp}`), "Alice", "a message sent after the crash", 60_000);
    assert.ok(registers.length > before, "the client never registered again after the crash (its queue is gone)");
    const banner = page.getByRole("status").filter({ hasText: /Reconnecting/ });
    await banner.waitFor({ state: "hidden", timeout: 10_000 }).catch(() => assert.fail('the "Reconnecting" banner stayed after the server came back'));
  });
});
