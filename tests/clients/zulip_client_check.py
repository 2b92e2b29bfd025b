#!/usr/bin/env python3
"""Drive a running Outpost with the real `zulip` Python bindings.

Usage: zulip_client_check.py SITE CREDENTIALS_JSON
CREDENTIALS_JSON is what `outpost create-user --json` printed for an owner that holds
can_create_users. Each check asserts what the client sees; the last line is a summary.
"""
import json
import sys
import traceback

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


def client(email, key):
    # The constructor itself calls GET /server_settings and asserts zulip_version.
    return zulip.Client(email=email, api_key=key, site=SITE, client="OutpostCheck/1.0")


owner = client(OWNER["email"], OWNER["api_key"])
state = {}


@check("constructor read server_settings")
def _():
    assert owner.zulip_version, owner.zulip_version
    assert owner.feature_level == 382, owner.feature_level


@check("get_profile")
def _():
    r = owner.get_profile()
    assert r["result"] == "success", r
    assert r["user_id"] == OWNER["user_id"], r
    assert r["email"] == OWNER["email"], r
    assert r["is_owner"] is True and r["role"] == 100, r


@check("create_user")
def _():
    r = owner.create_user(
        {"email": "newbie@example.com", "password": "temporary-pass", "full_name": "New Bie"}
    )
    assert r["result"] == "success", r
    state["newbie"] = r["user_id"]


@check("get_members lists the new user")
def _():
    r = owner.get_members()
    assert r["result"] == "success", r
    names = {m["user_id"]: m["full_name"] for m in r["members"]}
    assert names[state["newbie"]] == "New Bie", names
    assert names[OWNER["user_id"]], names


@check("update_user_by_id")
def _():
    r = owner.update_user_by_id(state["newbie"], full_name="Newbie Renamed", role=300)
    assert r["result"] == "success", r
    user = owner.get_user_by_id(state["newbie"])["user"]
    assert user["full_name"] == "Newbie Renamed", user
    assert user["role"] == 300, user


@check("update_user_by_id refuses a guest administrator")
def _():
    guest = owner.create_user(
        {"email": "guest@example.com", "password": "temporary-pass", "full_name": "Gue St"}
    )["user_id"]
    assert owner.update_user_by_id(guest, role=600)["result"] == "success"
    r = owner.update_user_by_id(guest, role=200)
    assert r["result"] == "error" and r["code"] == "BAD_REQUEST", r


@check("new user logs in with fetch_api_key and sees itself")
def _():
    import requests

    r = requests.post(
        f"{SITE}/api/v1/fetch_api_key",
        data={"username": "newbie@example.com", "password": "temporary-pass"},
        timeout=30,
    ).json()
    assert r["result"] == "success", r
    newbie = client("newbie@example.com", r["api_key"])
    me = newbie.get_profile()
    assert me["user_id"] == state["newbie"] and me["role"] == 300, me


@check("bad API key gives UNAUTHORIZED")
def _():
    bad = client(OWNER["email"], "X" * 32)
    r = bad.get_profile()
    assert r["result"] == "error", r
    assert r["code"] == "UNAUTHORIZED", r


@check("subscribe and send a channel message")
def _():
    r = owner.add_subscriptions(streams=[{"name": "client-check", "description": "From **python**"}])
    assert r["result"] == "success", r
    assert r["subscribed"] == {str(OWNER["user_id"]): ["client-check"]}, r
    state["channel_id"] = owner.get_stream_id("client-check")["stream_id"]
    subs = owner.get_subscriptions()["subscriptions"]
    assert any(s["name"] == "client-check" for s in subs), subs
    r = owner.send_message(
        {"type": "stream", "to": "client-check", "topic": "greetings", "content": "hello **world**"}
    )
    assert r["result"] == "success", r
    state["channel_msg"] = r["id"]


@check("send a direct message by user id")
def _():
    r = owner.send_message({"type": "private", "to": [state["newbie"]], "content": "psst"})
    assert r["result"] == "success", r
    state["dm"] = r["id"]


@check("get_messages with narrows")
def _():
    r = owner.get_messages(
        {
            "anchor": "newest",
            "num_before": 10,
            "num_after": 0,
            "narrow": [{"operator": "channel", "operand": "client-check"}, {"operator": "topic", "operand": "greetings"}],
        }
    )
    assert r["result"] == "success", r
    assert [m["id"] for m in r["messages"]] == [state["channel_msg"]], r
    m = r["messages"][0]
    assert m["content"] == "<p>hello <strong>world</strong></p>", m
    assert m["subject"] == "greetings" and m["display_recipient"] == "client-check", m
    dms = owner.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": [["is", "dm"]]})
    # Welcome Bot's message to the new owner, then the one sent here.
    senders = [m["sender_email"] for m in dms["messages"]]
    assert senders == ["welcome-bot@zulip.com", owner.email], dms
    assert dms["messages"][-1]["id"] == state["dm"], dms
    found = owner.get_messages(
        {"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": [{"operator": "search", "operand": "world"}]}
    )
    assert [m["id"] for m in found["messages"]] == [state["channel_msg"]], found


@check("edit a message")
def _():
    r = owner.update_message({"message_id": state["channel_msg"], "content": "hello again"})
    assert r["result"] == "success", r
    r = owner.get_raw_message(state["channel_msg"])
    assert r["raw_content"] == "hello again", r
    assert r["message"]["edit_history"][0]["prev_content"] == "hello **world**", r


@check("react and unreact")
def _():
    r = owner.add_reaction({"message_id": state["channel_msg"], "emoji_name": "octopus"})
    assert r["result"] == "success", r
    m = owner.get_raw_message(state["channel_msg"])["message"]
    assert [x["emoji_name"] for x in m["reactions"]] == ["octopus"], m
    r = owner.add_reaction({"message_id": state["channel_msg"], "emoji_name": "octopus"})
    assert r["code"] == "REACTION_ALREADY_EXISTS", r
    r = owner.remove_reaction({"message_id": state["channel_msg"], "emoji_name": "octopus"})
    assert r["result"] == "success", r


@check("topics, flags and mark as read")
def _():
    topics = owner.get_stream_topics(state["channel_id"])
    # Notification Bot's creation notice has its own topic.
    assert [t["name"] for t in topics["topics"]] == ["greetings", "channel events"], topics
    r = owner.update_message_flags({"messages": [state["channel_msg"]], "op": "add", "flag": "starred"})
    assert r["result"] == "success", r
    r = owner.mark_all_as_read()
    assert r["result"] == "success", r


@check("delete a message")
def _():
    r = owner.delete_message(state["dm"])
    assert r["result"] == "success", r
    r = owner.get_raw_message(state["dm"])
    assert r["result"] == "error" and r["msg"] == "Invalid message(s)", r


@check("sending to a missing channel gives STREAM_DOES_NOT_EXIST")
def _():
    r = owner.send_message({"type": "stream", "to": "nowhere", "topic": "t", "content": "x"})
    assert r["code"] == "STREAM_DOES_NOT_EXIST" and r["stream"] == "nowhere", r


@check("invitations: partial failure, listing, revoking (call_endpoint)")
def _():
    r = owner.call_endpoint(
        "invites",
        method="POST",
        request={
            "invitee_emails": "Invited Person <invited@example.com>, newbie@example.com",
            "stream_ids": [state["channel_id"]],
            "invite_as": 400,
            "invite_expires_in_minutes": 60,
        },
    )
    # newbie@example.com has an account: the other invitation still goes out.
    assert r["result"] == "error" and r["code"] == "INVITATION_FAILED", r
    assert r["errors"] == [["newbie@example.com", "Already has an account.", False]], r
    assert r["sent_invitations"] is True and r["daily_limit_reached"] is False, r
    listed = owner.call_endpoint("invites", method="GET")
    assert listed["result"] == "success", listed
    mine = [i for i in listed["invites"] if i.get("email") == "invited@example.com"]
    assert len(mine) == 1 and mine[0]["invited_as"] == 400 and not mine[0]["is_multiuse"], listed
    assert mine[0]["expiry_date"] == mine[0]["invited"] + 3600, mine
    r = owner.call_endpoint(f"invites/{mine[0]['id']}/resend", method="POST")
    assert r["result"] == "success", r
    r = owner.call_endpoint(f"invites/{mine[0]['id']}", method="DELETE")
    assert r["result"] == "success", r
    r = owner.call_endpoint(f"invites/{mine[0]['id']}", method="DELETE")
    assert r["result"] == "error" and r["msg"] == "No such invitation", r


@check("invitations: a reusable link opens the signup page")
def _():
    import requests

    r = owner.call_endpoint("invites/multiuse", method="POST", request={"invite_as": 600})
    assert r["result"] == "success", r
    link = r["invite_link"]
    assert "/join/" in link, r
    page = requests.get(SITE + link[link.index("/join/"):], timeout=30)
    assert page.status_code == 200 and 'name="csrf_token"' in page.text, page.text[:300]
    listed = owner.call_endpoint("invites", method="GET")["invites"]
    ours = [i for i in listed if i.get("link_url") == link]
    assert len(ours) == 1 and ours[0]["invited_as"] == 600, listed
    r = owner.call_endpoint(f"invites/multiuse/{ours[0]['id']}", method="DELETE")
    assert r["result"] == "success", r
    gone = requests.get(SITE + link[link.index("/join/"):], timeout=30)
    assert gone.status_code == 410, gone.status_code


@check("user groups: create, list, rename, members")
def _():
    me = OWNER["user_id"]
    r = owner.create_user_group({"name": "py-team", "description": "From python", "members": [me]})
    assert r["result"] == "success", r
    gid = state["group"] = r["group_id"]

    def listed(**request):
        if request:
            r = owner.call_endpoint(url="user_groups", method="GET", request=request)
        else:
            r = owner.get_user_groups()
        assert r["result"] == "success", r
        return {g["id"]: g for g in r["user_groups"]}

    g = listed()[gid]
    assert g["name"] == "py-team" and g["description"] == "From python", g
    assert g["members"] == [me] and g["direct_subgroup_ids"] == [], g
    assert g["creator_id"] == me and g["is_system_group"] is False and g["deactivated"] is False, g
    assert g["can_manage_group"] == {"direct_members": [me], "direct_subgroups": []}, g
    owners = [x for x in listed().values() if x["name"] == "role:owners"]
    assert len(owners) == 1 and me in owners[0]["members"], owners
    r = owner.update_user_group({"group_id": gid, "name": "py-crew", "description": "Renamed"})
    assert r["result"] == "success", r
    r = owner.update_user_group_members(gid, {"add": [state["newbie"]]})
    assert r["result"] == "success", r
    g = listed()[gid]
    assert g["name"] == "py-crew" and g["description"] == "Renamed", g
    assert sorted(g["members"]) == sorted([me, state["newbie"]]), g
    r = owner.update_user_group_members(gid, {"delete": [state["newbie"]]})
    assert r["result"] == "success", r
    r = owner.update_user_group_members(gid, {"delete": [state["newbie"]]})
    assert r["result"] == "error" and r["msg"] == f"There is no member '{state['newbie']}' in this user group", r
    assert listed()[gid]["members"] == [me]
    r = owner.create_user_group({"name": "PY-CREW", "description": "", "members": []})
    assert r["result"] == "error" and r["msg"] == "User group 'PY-CREW' already exists.", r
    # Groups are deactivated, not deleted, at this feature level: the old DELETE is refused.
    r = owner.remove_user_group(gid)
    assert r["result"] == "error", r
    assert gid in listed()
    r = owner.call_endpoint(url=f"user_groups/{gid}/deactivate", method="POST")
    assert r["result"] == "success", r
    assert gid not in listed()
    assert listed(include_deactivated_groups=True)[gid]["deactivated"] is True


@check("scheduled message: arrives within a second of its time")
def _():
    import time

    # zulip 0.9.1 has no scheduled-message method: the generic call, as its docs suggest.
    q = owner.register(event_types=["message", "scheduled_messages"])
    assert q["result"] == "success", q
    at = int(time.time()) + 2
    r = owner.call_endpoint(
        "scheduled_messages",
        method="POST",
        request={
            "type": "direct",
            "to": json.dumps([OWNER["user_id"]]),
            "content": "scheduled from the python client",
            "scheduled_delivery_timestamp": at,
        },
    )
    assert r["result"] == "success", r
    sid = r["scheduled_message_id"]
    listed = owner.call_endpoint("scheduled_messages", method="GET")
    assert [m["scheduled_message_id"] for m in listed["scheduled_messages"]] == [sid], listed
    last, arrived, seen = q["last_event_id"], None, []
    while arrived is None:
        assert time.time() < at + 1.5, f"not delivered by {at} + 1 s; events: {seen}"
        ev = owner.get_events(queue_id=q["queue_id"], last_event_id=last, dont_block=True)
        assert ev["result"] == "success", ev
        for e in ev["events"]:
            last = max(last, e["id"])
            seen.append(e["type"])
            if e["type"] == "message" and e["message"]["content"] == "scheduled from the python client":
                arrived = time.time()
                msg = e["message"]
        time.sleep(0.05)
    assert arrived - at <= 1.0, (arrived, at)
    assert msg["sender_id"] == OWNER["user_id"] and at <= msg["timestamp"] <= at + 1, msg
    listed = owner.call_endpoint("scheduled_messages", method="GET")
    assert listed["scheduled_messages"] == [], listed


@check("upload_file, link it in a message, download it back")
def _():
    import os
    import tempfile

    import requests

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "client note.txt")
        with open(path, "wb") as f:
            f.write(b"uploaded by the zulip client\n")
        with open(path, "rb") as f:
            r = owner.upload_file(f)
    assert r["result"] == "success", r
    url, name = r["url"], r["filename"]
    assert name == "client-note.txt" and url.startswith("/user_uploads/"), r
    m = owner.send_message(
        {"type": "stream", "to": "client-check", "topic": "files", "content": f"[{name}]({url})"}
    )
    assert m["result"] == "success", m
    auth = requests.auth.HTTPBasicAuth(OWNER["email"], OWNER["api_key"])
    got = requests.get(SITE + url, auth=auth, timeout=10)
    assert got.status_code == 200, got.status_code
    assert got.content == b"uploaded by the zulip client\n", got.content
    assert got.headers["Content-Type"] == "text/plain", got.headers
    assert requests.get(SITE + url, timeout=10).status_code == 401
    # The API's temporary URL serves it without credentials.
    t = owner.call_endpoint(url=url.lstrip("/"), method="GET")
    assert t["result"] == "success", t
    assert requests.get(SITE + t["url"], timeout=10).content == b"uploaded by the zulip client\n"
    r = owner.get_messages(
        {"anchor": "newest", "num_before": 5, "num_after": 0,
         "narrow": [{"operator": "has", "operand": "attachment"}]}
    )
    assert [x["id"] for x in r["messages"]] == [m["id"]], r
    a = owner.call_endpoint(url="attachments", method="GET")
    assert a["result"] == "success", a
    mine = [x for x in a["attachments"] if x["name"] == name]
    assert mine and mine[0]["messages"][0]["id"] == m["id"], a
    d = owner.call_endpoint(url=f"attachments/{mine[0]['id']}", method="DELETE")
    assert d["result"] == "success", d
    assert requests.get(SITE + url, auth=auth, timeout=10).status_code == 404


failed = sum(1 for _, err in results if err)
print(f"zulip-client: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
