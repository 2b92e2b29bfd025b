"""Notifications end to end with the real `zulip` Python bindings: mobile push and email.

Starts its own stand-in for Zulip's push notification service (the "bouncer", written here
from the documented requests of upstream's zilencer: server registration, device
registration, notify; HTTP Basic with the server's id and key), a real SMTP server from PyPI
(`aiosmtpd`) as the mail sink, its own `outpost serve` with `[push]` and `[email]` pointing
at them, registers the server with `outpost push register`, then:
  1. the receiver registers an FCM token with the bindings (`users/me/android_gcm_reg_id`,
     what the mobile app calls) and the stand-in must see it forwarded;
  2. the sender's direct message must reach the stand-in as a `push/notify` for that token,
     with the message's id, sender and content in the FCM payload (all strings);
  3. the receiver, idle, must get the missed-message email for it (batched over one second,
     the period set through the bindings), with a one-click unsubscribe header;
  4. the receiver marks it read and the stand-in must get the `remove` notification.
The real push service cannot be reached from CI; this checks Outpost's side of the protocol.
Usage: notifications_check.py --bin PATH/TO/outpost
"""

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import zulip
from aiosmtpd.controller import Controller


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Bouncer:
    """What the stand-in got, and the servers registered with it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.servers = {}
        self.got = []
        self.problems = []

    def record(self, endpoint, fields, body):
        with self.lock:
            self.got.append((endpoint, fields, body))

    def wait_for(self, pred, what, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                for item in self.got:
                    if pred(*item):
                        return item
                if self.problems:
                    raise SystemExit(f"bouncer stand-in saw bad requests: {self.problems}")
            time.sleep(0.1)
        with self.lock:
            seen = [(e, f, b) for e, f, b in self.got]
        raise SystemExit(f"timed out waiting for {what}; the stand-in got {seen}")


class Sink:
    """The mails aiosmtpd accepted, as (recipients, raw message)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.mails = []

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.mails.append((list(envelope.rcpt_tos), envelope.content.decode("utf-8", "replace")))
        return "250 OK"

    def wait_for(self, pred, what, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                for to, data in self.mails:
                    if pred(to, data):
                        return data
            time.sleep(0.1)
        raise SystemExit(f"timed out waiting for {what}; the sink got {self.mails}")


def handler_for(bouncer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            prefix = "/api/v1/remotes/"
            if not self.path.startswith(prefix):
                return self.answer(404, {"result": "error", "msg": "not found"})
            endpoint = self.path[len(prefix):].split("?")[0].rstrip("/")
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length) if length else b""
            ctype = self.headers.get("Content-Type", "")
            fields, body = {}, None
            if "json" in ctype:
                body = json.loads(raw or b"null")
            else:
                fields = dict(urllib.parse.parse_qsl(raw.decode()))
            if not self.headers.get("User-Agent", "").startswith("ZulipServer/"):
                bouncer.problems.append(f"{endpoint}: User-Agent {self.headers.get('User-Agent')!r}")
            if endpoint == "server/register":
                org_id, org_key = fields.get("zulip_org_id", ""), fields.get("zulip_org_key", "")
                if len(org_key) != 64 or len(org_id) != 36 or not fields.get("hostname") or "@" not in fields.get("contact_email", ""):
                    bouncer.problems.append(f"server/register: bad fields {sorted(fields)}")
                    return self.answer(400, {"result": "error", "msg": "bad registration", "code": "BAD_REQUEST"})
                with bouncer.lock:
                    created = org_id not in bouncer.servers
                    bouncer.servers[org_id] = org_key
                bouncer.record(endpoint, fields, body)
                return self.answer(200, {"result": "success", "msg": "", "created": created})
            auth = self.headers.get("Authorization", "")
            try:
                user, key = base64.b64decode(auth.split(" ", 1)[1]).decode().split(":", 1)
            except Exception:
                user, key = "", ""
            with bouncer.lock:
                ok = bouncer.servers.get(user) == key and user != ""
            if not ok:
                bouncer.problems.append(f"{endpoint}: bad credentials")
                return self.answer(401, {"result": "error", "msg": "Zulip server auth failure", "code": "INVALID_ZULIP_SERVER"})
            bouncer.record(endpoint, fields, body)
            if endpoint == "push/notify":
                b = body or {}
                for name in ("android_devices", "apple_devices"):
                    if not isinstance(b.get(name), list):
                        bouncer.problems.append(f"push/notify: {name} is not a list")
                data = b.get("gcm_payload") or {}
                if any(not isinstance(v, str) for v in data.values()):
                    bouncer.problems.append("push/notify: FCM data with a value that is not a string")
                return self.answer(200, {
                    "result": "success", "msg": "",
                    "total_android_devices": len(b.get("android_devices", [])),
                    "total_apple_devices": len(b.get("apple_devices", [])),
                    "deleted_devices": {"android_devices": [], "apple_devices": []},
                    "realm": None,
                })
            return self.answer(200, {"result": "success", "msg": ""})

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    bouncer = Bouncer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(bouncer))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    bouncer_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    sink = Sink()
    smtp_port = free_port()
    smtp = Controller(sink, hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    work = tempfile.mkdtemp(prefix="outpost-notify-")
    port = free_port()
    site = f"http://127.0.0.1:{port}"
    cfg = os.path.join(work, "outpost.toml")
    with open(cfg, "w") as f:
        f.write(f'data_dir = "{work}/data"\n[chat]\nlisten = "127.0.0.1:{port}"\nexternal_url = "{site}"\n'
                f'[database]\nsynchronous = "normal"\n[push]\nenabled = true\nbouncer_url = "{bouncer_url}"\n'
                f'[email]\nhost = "127.0.0.1"\nport = {smtp_port}\ntls = "none"\nfrom = "Outpost <noreply@outpost.test>"\n')
    users = {}
    for email, name in (("sender@example.com", "Sam Sender"), ("phone@example.com", "Pat Phone")):
        out = subprocess.run([args.bin, "create-user", "--config", cfg, "--email", email, "--full-name", name, "--json"],
                             check=True, capture_output=True, text=True).stdout
        users[email] = json.loads(out)
    refused = subprocess.run([args.bin, "push", "register", "--config", cfg, "--contact-email", "admin@example.com"],
                             capture_output=True, text=True)
    if refused.returncode == 0:
        raise SystemExit("push register went ahead without --agree-to-terms-of-service")
    subprocess.run([args.bin, "push", "register", "--config", cfg, "--contact-email", "admin@example.com",
                    "--agree-to-terms-of-service"], check=True, capture_output=True, text=True)
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([args.bin, "serve", "--config", cfg], stdout=log, stderr=log)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        sender = zulip.Client(email=users["sender@example.com"]["email"], api_key=users["sender@example.com"]["api_key"], site=site)
        phone = zulip.Client(email=users["phone@example.com"]["email"], api_key=users["phone@example.com"]["api_key"], site=site)
        settings = phone.get_server_settings()
        assert settings["push_notifications_enabled"] is True, settings
        r = phone.call_endpoint(url="settings", method="PATCH", request={"email_notifications_batching_period_seconds": 1})
        assert r["result"] == "success", r
        token = "fcm-token-" + "a" * 40
        r = phone.call_endpoint(url="users/me/android_gcm_reg_id", method="POST", request={"token": token})
        assert r["result"] == "success", r
        bouncer.wait_for(lambda e, f, b: e == "push/register" and (f.get("token") == token or (b or {}).get("token") == token),
                         "the token forwarded to push/register")
        r = sender.send_message({"type": "private", "to": [users["phone@example.com"]["user_id"]], "content": "are you there?"})
        assert r["result"] == "success", r
        mid = str(r["id"])

        def message_push(e, f, b):
            p = (b or {}).get("gcm_payload") or {}
            return e == "push/notify" and token in (b or {}).get("android_devices", []) and p.get("event") == "message" and p.get("zulip_message_id") == mid

        _, _, body = bouncer.wait_for(message_push, "the direct message's push")
        p = body["gcm_payload"]
        assert p["sender_full_name"] == "Sam Sender", p
        assert p["content"] == "are you there?", p
        assert p["recipient_type"] == "private", p
        mail = sink.wait_for(lambda to, data: to == ["phone@example.com"] and "Subject: DMs with Sam Sender" in data,
                             "the missed-message email")
        assert "List-Unsubscribe:" in mail, mail
        r = phone.update_message_flags({"messages": [int(mid)], "op": "add", "flag": "read"})
        assert r["result"] == "success", r

        def remove_push(e, f, b):
            p = (b or {}).get("gcm_payload") or {}
            return e == "push/notify" and p.get("event") == "remove" and mid in p.get("zulip_message_ids", "").split(",")

        bouncer.wait_for(remove_push, "the remove notification after reading")
        print("notifications check: token forwarded, message pushed, emailed, retracted when read")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        httpd.shutdown()
        smtp.stop()
        log.close()
        if os.environ.get("KEEP_WORK") is None:
            subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
