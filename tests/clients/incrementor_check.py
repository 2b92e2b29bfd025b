#!/usr/bin/env python3
"""Drives the stateful `incrementor` bot of the `zulip_bots` package (run by `zulip-run-bot`).

The owner sends the bot a direct message; the bot keeps its count in /bot_storage, answers
with "1", and on the next message edits that answer to "2". Then the bot's own storage, read
with its credentials, must hold the count and the answer's message id.

A bot only sees messages sent after its queue exists, which it registers right after storing
its initial count; so the first message waits for that count, and is repeated every ten
seconds until answered (a missed message was never counted).

Usage: incrementor_check.py SITE OWNER_JSON BOT_JSON
"""
import json
import sys
import time

import zulip

site = sys.argv[1]
with open(sys.argv[2]) as f:
    owner_creds = json.load(f)
with open(sys.argv[3]) as f:
    bot_creds = json.load(f)
owner = zulip.Client(
    email=owner_creds["email"], api_key=owner_creds["api_key"], site=site, client="IncrementorCheck/1.0"
)
bot = zulip.Client(email=bot_creds["email"], api_key=bot_creds["api_key"], site=site, client="IncrementorCheck/1.0")


def fail(why: str) -> None:
    print(f"incrementor-check: 0 passed, 1 failed ({why})")
    sys.exit(1)


def answers() -> list:
    found = owner.get_messages(
        {
            "anchor": "newest",
            "num_before": 20,
            "num_after": 0,
            "narrow": [{"operator": "dm", "operand": [bot_creds["email"]]}],
            "apply_markdown": False,
        }
    )
    assert found["result"] == "success", found
    return [m for m in found["messages"] if m["sender_id"] == bot_creds["user_id"]]


def dm(content: str) -> None:
    r = owner.send_message({"type": "private", "to": [bot_creds["user_id"]], "content": content})
    assert r["result"] == "success", r


# The bot's initialization stores its zero count (PUT /bot_storage) just before it registers.
deadline = time.time() + 30
while "number" not in (bot.get_storage().get("storage") or {}):
    if time.time() > deadline:
        fail("the bot never stored its initial count")
    time.sleep(0.2)

# First answer: "1".
deadline = time.time() + 40
next_send = 0.0
first = None
while first is None:
    if time.time() > deadline:
        fail("no answer to the first message")
    if time.time() >= next_send:
        dm("count")
        next_send = time.time() + 10
    got = answers()
    if got:
        first = got[0]
        break
    time.sleep(0.2)
if first["content"] != "1":
    fail(f"first answer is {first['content']!r}, not '1'")

# Second message: the same answer is edited to "2".
dm("count again")
deadline = time.time() + 30
while True:
    got = answers()
    if len(got) != 1:
        fail(f"expected one answer, edited in place, got {[m['content'] for m in got]}")
    if got[0]["content"] == "2":
        break
    if time.time() > deadline:
        fail(f"the answer stayed {got[0]['content']!r}")
    time.sleep(0.2)

# The count and the answer's id live in the bot's storage. The bot may write its count after
# its edit (zulip_bots can flush storage when the handler returns), so wait for it a little.
deadline = time.time() + 10
while True:
    stored = bot.get_storage()
    assert stored["result"] == "success", stored
    if json.loads(stored["storage"].get("number", "null")) == 2:
        break
    if time.time() > deadline:
        fail(f"stored number is {stored['storage']}")
    time.sleep(0.2)
if json.loads(stored["storage"].get("message_id", "null")) != first["id"]:
    fail(f"stored message_id is {stored['storage']}, the answer is {first['id']}")
one = bot.get_storage({"keys": ["number"]})
assert one["result"] == "success" and one["storage"] == {"number": "2"}, one
print("incrementor-check: 1 passed, 0 failed (answered 1, then 2; storage holds the count)")
