#!/usr/bin/env python3
"""An echo bot on the real `zulip` bindings: answers "ping X" with "pong: ping X" in the same
topic. It uses call_on_each_message, which long-polls GET /events and re-registers its queue
on BAD_EVENT_QUEUE_ID (for instance after the server crashed). Each registration is logged as
"registered QUEUE_ID", so run.sh can tell that a graceful restart kept the queue.

Usage: echo_bot.py SITE CREDENTIALS_JSON
"""
import json
import sys

import zulip

site = sys.argv[1]
with open(sys.argv[2]) as f:
    creds = json.load(f)

client = zulip.Client(email=creds["email"], api_key=creds["api_key"], site=site, client="EchoBot/1.0")
plain_register = client.register


def logged_register(*args, **kwargs):
    r = plain_register(*args, **kwargs)
    print("registered", r.get("queue_id"), flush=True)
    return r


client.register = logged_register


def handle(message):
    if message["sender_email"] == creds["email"]:
        return
    if message["type"] == "stream" and message["content"].startswith("ping"):
        client.send_message(
            {
                "type": "stream",
                "to": message["display_recipient"],
                "topic": message["subject"],
                "content": "pong: " + message["content"],
            }
        )
        print("answered", message["content"], flush=True)


print("echo bot running", flush=True)
client.call_on_each_message(handle)
