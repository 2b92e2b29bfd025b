#!/usr/bin/env python3
"""Runs PyPI's `zulip-botserver` as the receiver of an outgoing webhook.

The owner creates an outgoing-webhook bot through `POST /bots` whose payload URL is a
botserver on a free loopback port running the `helloworld` bot of `zulip_bots`; its service
token comes from register's `realm_bots`. The owner mentions the bot in a channel; the
botserver checks the token in Outpost's payload, strips the mention and answers through the
API with "beep boop", which must appear in the same topic. A direct message must get the same
answer. Every file (the botserverrc) lives in a temporary directory; the botserver (Flask in
debug mode, whose reloader forks) runs in its own process group and is stopped with it.

Usage: botserver_check.py SITE OWNER_JSON
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import zulip

site = sys.argv[1]
with open(sys.argv[2]) as f:
    owner_creds = json.load(f)
owner = zulip.Client(
    email=owner_creds["email"], api_key=owner_creds["api_key"], site=site, client="BotserverCheck/1.0"
)


def fail(why: str) -> None:
    print(f"botserver-check: 0 passed, 1 failed ({why})")
    sys.exit(1)


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def ok(r: dict, what: str) -> dict:
    if r.get("result") != "success":
        fail(f"{what}: {r}")
    return r


port = free_port()
bot = ok(
    owner.call_endpoint(
        "bots",
        method="POST",
        request={
            "full_name": "Hello World",
            "short_name": "helloworld",
            "bot_type": 3,
            "payload_url": json.dumps(f"http://127.0.0.1:{port}/"),
            "interface_type": 1,
        },
    ),
    "POST /bots",
)
state = ok(owner.register(fetch_event_types=["realm_bot"]), "register")
mine = [b for b in state["realm_bots"] if b["user_id"] == bot["user_id"]]
if not mine or not mine[0]["services"]:
    fail(f"the new bot is not in realm_bots with its service: {state['realm_bots']}")
token = mine[0]["services"][0]["token"]
bot_email = mine[0]["email"]

work = tempfile.mkdtemp(prefix="botserver-check-")
server = None
try:
    rc = os.path.join(work, "botserverrc")
    with open(rc, "w") as f:
        f.write(f"[helloworld]\nemail={bot_email}\nkey={bot['api_key']}\nsite={site}\ntoken={token}\n")
    log = open(os.path.join(work, "botserver.log"), "w")
    server = subprocess.Popen(
        ["zulip-botserver", "--config-file", rc, "--hostname", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, cwd=work, start_new_session=True,
    )
    deadline = time.time() + 30
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        if server.poll() is not None or time.time() > deadline:
            log.close()
            print(open(os.path.join(work, "botserver.log")).read()[-3000:])
            fail("zulip-botserver did not start")
        time.sleep(0.2)

    ok(owner.add_subscriptions(streams=[{"name": "botserver-room"}]), "subscribe")

    def answered(narrow: list, after: int) -> bool:
        found = ok(
            owner.get_messages(
                {"anchor": "newest", "num_before": 20, "num_after": 0, "narrow": narrow,
                 "apply_markdown": False}
            ),
            "GET /messages",
        )
        return any(
            m["sender_id"] == bot["user_id"] and m["content"] == "beep boop" and m["id"] > after
            for m in found["messages"]
        )

    def expect_answer(send: dict, narrow: list, what: str) -> None:
        sent = ok(owner.send_message(send), f"send {what}")["id"]
        deadline = time.time() + 30
        while not answered(narrow, sent):
            if time.time() > deadline:
                log.flush()
                print(open(os.path.join(work, "botserver.log")).read()[-3000:])
                fail(f"no 'beep boop' after the {what}")
            time.sleep(0.2)

    expect_answer(
        {"type": "stream", "to": "botserver-room", "topic": "greetings",
         "content": "@**Hello World** hello"},
        [{"operator": "channel", "operand": "botserver-room"},
         {"operator": "topic", "operand": "greetings"}],
        "mention in a channel",
    )
    expect_answer(
        {"type": "private", "to": [bot["user_id"]], "content": "hello in private"},
        [{"operator": "dm", "operand": [bot_email]}],
        "direct message",
    )
    print("botserver-check: 2 passed, 0 failed")
finally:
    if server is not None:
        try:
            os.killpg(server.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    shutil.rmtree(work, ignore_errors=True)
