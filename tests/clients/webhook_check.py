#!/usr/bin/env python3
"""Post into a running Outpost the way a CI tool's Slack notifier does, and read it back with
the real `zulip` Python bindings.

Usage: webhook_check.py SITE CREDENTIALS_JSON
CREDENTIALS_JSON is what `outpost create-user --json` printed for an owner. The owner creates
an incoming-webhook bot through the bindings (`POST /bots`, bot_type 2); the "tool" then posts
with nothing but Python's urllib to the URL a user would paste into it
(/api/v1/external/slack_incoming?api_key=...&stream=...&topic=...): a JSON body with an
attachment, then a form-encoded `payload=` body, then a bad key. Each check asserts what the
client sees; the last line is a summary.
"""
import json
import sys
import traceback
import urllib.error
import urllib.parse
import urllib.request

import zulip

SITE = sys.argv[1]
with open(sys.argv[2]) as f:
    OWNER = json.load(f)

results = []


def check(name):
    def wrap(fn):
        try:
            fn()
            results.append((name, None))
            print(f"ok      {name}")
        except Exception:  # noqa: BLE001 - report every failure and go on
            results.append((name, traceback.format_exc()))
            print(f"FAILED  {name}\n{traceback.format_exc()}")
        return fn

    return wrap


owner = zulip.Client(
    email=OWNER["email"], api_key=OWNER["api_key"], site=SITE, client="OutpostCheck/1.0"
)
state = {}


def hook_url(key, **params):
    query = urllib.parse.urlencode({"api_key": key, **params})
    return f"{SITE}/api/v1/external/slack_incoming?{query}"


def post(url, data, content_type):
    req = urllib.request.Request(url, data=data, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def channel_messages():
    r = owner.get_messages(
        {
            "anchor": "newest",
            "num_before": 100,
            "num_after": 0,
            "apply_markdown": False,
            "narrow": [{"operator": "channel", "operand": "ci"}],
        }
    )
    assert r["result"] == "success", r
    return r["messages"]


def newest(topic):
    mine = [m for m in channel_messages() if m["subject"] == topic]
    return mine[-1] if mine else None


@check("the owner makes a channel and an incoming-webhook bot")
def _():
    r = owner.add_subscriptions(streams=[{"name": "ci"}])
    assert r["result"] == "success", r
    r = owner.call_endpoint(
        url="bots",
        method="POST",
        request={"full_name": "CI Notifier", "short_name": "ci-notifier", "bot_type": 2},
    )
    assert r["result"] == "success", r
    state["bot"] = r


@check("a Slack-style JSON notification arrives formatted")
def _():
    payload = {
        "text": "ignored when attachments render",
        "attachments": [
            {
                "color": "good",
                "title": "Build #57 passed",
                "title_link": "https://ci.example.com/builds/57",
                "text": "*main* at <https://git.example.com/c/abc123|abc123> by _ana_",
                "fields": [
                    {"title": "Duration", "value": "3m 12s", "short": True},
                    {"title": "Tests", "value": "412 passed", "short": True},
                ],
                "footer": "CI",
            }
        ],
    }
    status, body = post(
        hook_url(state["bot"]["api_key"], stream="ci", topic="builds"),
        json.dumps(payload).encode(),
        "application/json",
    )
    assert (status, body["result"]) == (200, "success"), (status, body)
    m = newest("builds")
    assert m["sender_id"] == state["bot"]["user_id"], m
    assert m["content"] == (
        "## [Build #57 passed](https://ci.example.com/builds/57)\n\n"
        "**main** at [abc123](https://git.example.com/c/abc123) by *ana*\n\n"
        "**Duration**: 3m 12s\n**Tests**: 412 passed\n\nCI"
    ), m["content"]


@check("a form-encoded payload= notification takes its topic from channel")
def _():
    payload = {"text": "Deploy of v2.3 finished", "icon_emoji": ":ship:", "channel": "#deploys"}
    data = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    status, body = post(
        hook_url(state["bot"]["api_key"], stream="ci"), data, "application/x-www-form-urlencoded"
    )
    assert (status, body["result"]) == (200, "success"), (status, body)
    m = newest("deploys")
    assert m["content"] == ":ship: Deploy of v2.3 finished", m["content"]


@check("a wrong key is refused with upstream's error and posts nothing")
def _():
    before = len(channel_messages())
    status, body = post(hook_url("x" * 32, stream="ci"), b'{"text": "no"}', "application/json")
    assert status == 401, (status, body)
    assert (body["code"], body["msg"]) == ("INVALID_API_KEY", "Invalid API key"), body
    assert len(channel_messages()) == before


failed = sum(1 for _, err in results if err)
print(f"webhook: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
