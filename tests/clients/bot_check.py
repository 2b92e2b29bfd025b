#!/usr/bin/env python3
"""Sends "ping TAG" to the bot's channel and waits for the echo bot's answer.

A bot only sees messages sent after its queue exists, so while the bot may still be
re-registering (after a server restart) the ping is repeated every few seconds.

Usage: bot_check.py SITE OWNER_JSON TAG
"""
import json
import sys
import time

import zulip

site, owner_file, tag = sys.argv[1], sys.argv[2], sys.argv[3]
with open(owner_file) as f:
    owner = json.load(f)
client = zulip.Client(email=owner["email"], api_key=owner["api_key"], site=site, client="BotCheck/1.0")
content = f"ping {tag}"
deadline = time.time() + 30
next_ping = 0.0
while time.time() < deadline:
    if time.time() >= next_ping:
        r = client.send_message({"type": "stream", "to": "bot-room", "topic": "echo", "content": content})
        assert r["result"] == "success", r
        next_ping = time.time() + 3
    found = client.get_messages(
        {
            "anchor": "newest",
            "num_before": 20,
            "num_after": 0,
            "narrow": [{"operator": "channel", "operand": "bot-room"}],
            "apply_markdown": False,
        }
    )
    if any(m["content"] == "pong: " + content for m in found["messages"]):
        print(f"bot-check: 1 passed, 0 failed ({content} answered)")
        sys.exit(0)
    time.sleep(0.2)
print(f"bot-check: 0 passed, 1 failed (no answer to {content})")
sys.exit(1)
