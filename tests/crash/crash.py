#!/usr/bin/env python3
"""Crash-safety check: SIGKILL a real `outpost serve` under sustained writes, restart it, and
check that every acknowledged write survived and the database passes `integrity_check`.

    python3 tests/crash/crash.py --bin target/release/outpost --trials 200 [--sync full|normal]

One temporary data directory (never the working tree) lives through all trials. Each trial
starts the server on loopback ports, runs four writers at once for a random 50-500 ms
(chat: messages, reactions, edits; Dependency-Track: analysis decisions, BOM uploads), kills
the server with SIGKILL, opens the database read-only for `PRAGMA integrity_check`, restarts
the server and checks through both APIs that every write that was answered 2xx is there:
messages with their content, reactions, the last acknowledged edit (or the one in flight), the
last acknowledged analysis state (or the one in flight), and every acknowledged BOM upload
processed into its project's components. Exits non-zero on the first loss.
"""

import argparse
import base64
import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

STATES = ["EXPLOITABLE", "IN_TRIAGE", "FALSE_POSITIVE", "NOT_AFFECTED", "RESOLVED"]
EMOJI = ["smile", "heart", "tada", "rocket", "octopus", "thumbs_up"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Api:
    """One keep-alive connection with a fixed credential header."""

    def __init__(self, port, headers):
        self.port, self.headers = port, headers
        self.conn = None

    def call(self, method, path, body=None, ctype=None, timeout=10):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = dict(self.headers)
        if ctype:
            h["Content-Type"] = ctype
        try:
            self.conn.request(method, path, body=body, headers=h)
            r = self.conn.getresponse()
            data = r.read()
        except Exception:
            self.conn.close()
            self.conn = None
            raise
        return r.status, data

    def form(self, method, path, fields):
        return self.call(method, path, urllib.parse.urlencode(fields),
                         "application/x-www-form-urlencoded")

    def json(self, method, path, value):
        return self.call(method, path, json.dumps(value), "application/json")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def must(status_body, ok=(200, 201)):
    status, body = status_body
    if status not in ok:
        raise SystemExit(f"setup request failed: {status} {body[:300]!r}")
    return json.loads(body) if body else None


class Harness:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="outpost-crash-")
        self.data = os.path.join(self.tmp, "data")
        self.chat_port, self.dt_port = free_port(), free_port()
        self.config = os.path.join(self.tmp, "outpost.toml")
        with open(self.config, "w") as f:
            f.write(
                f'data_dir = "{self.data}"\n'
                f'[chat]\nlisten = "127.0.0.1:{self.chat_port}"\n'
                f'[dtrack]\nenabled = true\nlisten = "127.0.0.1:{self.dt_port}"\n'
                f'[database]\nsynchronous = "{args.sync}"\n'
                "[limits]\nuser_requests_per_minute = 0\nip_requests_per_minute = 0\n"
                '[log]\nlevel = "error"\n'
            )
        self.proc = None
        self.log = open(os.path.join(self.tmp, "server.log"), "ab")

    def cli(self, *argv, stdin=None):
        out = subprocess.run([self.args.bin, *argv, "--config", self.config], input=stdin,
                             capture_output=True, check=True)
        return json.loads(out.stdout)

    def start(self):
        self.proc = subprocess.Popen([self.args.bin, "serve", "--config", self.config],
                                     stdout=self.log, stderr=self.log)
        deadline = time.time() + 60
        for port, path in ((self.chat_port, "/api/v1/server_settings"),
                           (self.dt_port, "/api/version")):
            while True:
                if self.proc.poll() is not None:
                    raise SystemExit(f"server exited with {self.proc.returncode}; see {self.tmp}")
                try:
                    if Api(port, {}).call("GET", path, timeout=2)[0] == 200:
                        break
                except OSError:
                    pass
                if time.time() > deadline:
                    raise SystemExit("server did not come up in 60 s")
                time.sleep(0.02)

    def kill(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)

    def integrity(self):
        path = os.path.join(self.data, "outpost.sqlite3")
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return db.execute("PRAGMA integrity_check").fetchall()
        finally:
            db.close()


class Acked:
    """What the writers were told succeeded (and what each sent last without an answer)."""

    def __init__(self):
        self.messages = {}  # id -> content as sent
        self.reactions = []  # (message id, emoji)
        self.edits = {}  # id -> (last acknowledged content, content in flight or None)
        self.analysis = None  # (last acknowledged state, state in flight or None)
        self.analyses = 0  # analysis writes acknowledged
        self.boms = []  # (token, project version, component name)
        self.lock = threading.Lock()


def writer(fn, stop):
    try:
        while not stop.is_set():
            fn()
    except (OSError, http.client.HTTPException):
        pass  # the server died under us: the write in flight is not acknowledged


def run_trial(h, s, trial, acked):
    stop = threading.Event()
    chat = lambda: Api(h.chat_port, {"Authorization": s["basic"]})  # noqa: E731
    dt = lambda: Api(h.dt_port, {"X-Api-Key": s["dt_key"]})  # noqa: E731
    counter = [0]

    def next_n():
        with acked.lock:
            counter[0] += 1
            return counter[0]

    c1, c2, d1, d2 = chat(), chat(), dt(), dt()

    def send():
        content = f"t{trial} m{next_n()} {random.random()}"
        st, body = c1.form("POST", "/api/v1/messages",
                           {"type": "stream", "to": "crash", "topic": f"t{trial}",
                            "content": content})
        if st == 200:
            with acked.lock:
                acked.messages[json.loads(body)["id"]] = content

    def react_edit():
        with acked.lock:
            ids = list(acked.messages)
        if not ids:
            time.sleep(0.005)
            return
        mid = random.choice(ids)
        if random.random() < 0.5:
            emoji = random.choice(EMOJI)
            with acked.lock:
                if (mid, emoji) in acked.reactions:
                    return
            st, _ = c2.form("POST", f"/api/v1/messages/{mid}/reactions", {"emoji_name": emoji})
            if st == 200:
                with acked.lock:
                    acked.reactions.append((mid, emoji))
        else:
            content = f"edited t{trial} {next_n()}"
            with acked.lock:
                prev = acked.edits.get(mid, (acked.messages[mid], None))[0]
                acked.edits[mid] = (prev, content)
            st, _ = c2.form("PATCH", f"/api/v1/messages/{mid}", {"content": content})
            with acked.lock:
                acked.edits[mid] = (content, None) if st == 200 else (prev, None)

    def analyse():
        state = random.choice(STATES)
        with acked.lock:
            prev = acked.analysis[0] if acked.analysis else None
            acked.analysis = (prev, state)
        st, _ = d1.json("PUT", "/api/v1/analysis",
                        {"project": s["project"], "component": s["component"],
                         "vulnerability": s["vuln"], "analysisState": state})
        with acked.lock:
            acked.analysis = (state, None) if st == 200 else (prev, None)
            acked.analyses += 1 if st == 200 else 0

    def upload():
        n = next_n()
        version, comp = f"t{trial}-{n}", f"comp-{trial}-{n}"
        bom = {"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
               "components": [{"type": "library", "name": comp, "version": "1.0",
                               "purl": f"pkg:generic/{comp}@1.0"}]}
        st, body = d2.json("PUT", "/api/v1/bom",
                           {"projectName": "crash-bom", "projectVersion": version,
                            "autoCreate": True,
                            "bom": base64.b64encode(json.dumps(bom).encode()).decode()})
        if st == 200:
            with acked.lock:
                acked.boms.append((json.loads(body)["token"], version, comp))
        time.sleep(0.01)

    threads = [threading.Thread(target=writer, args=(fn, stop))
               for fn in (send, react_edit, analyse, upload)]
    for t in threads:
        t.start()
    time.sleep(random.uniform(0.05, 0.5))
    h.kill()
    stop.set()
    for t in threads:
        t.join()
    for a in (c1, c2, d1, d2):
        a.close()


def verify(h, s, acked, failures):
    chat = Api(h.chat_port, {"Authorization": s["basic"]})
    dt = Api(h.dt_port, {"X-Api-Key": s["dt_key"]})
    for mid, content in acked.messages.items():
        st, body = chat.call("GET", f"/api/v1/messages/{mid}?apply_markdown=false")
        if st != 200:
            failures.append(f"message {mid} lost ({st})")
            continue
        m = json.loads(body)["message"]
        want = {content}
        if mid in acked.edits:
            last, flight = acked.edits[mid]
            want = {last} | ({flight} if flight else set())
            # an edit in flight may or may not have landed; nothing else is acceptable
        if m["content"] not in want:
            failures.append(f"message {mid}: content {m['content']!r}, expected one of {want}")
        names = {r["emoji_name"] for r in m.get("reactions", [])}
        for rid, emoji in acked.reactions:
            if rid == mid and emoji not in names:
                failures.append(f"reaction {emoji} on {mid} lost")
    if acked.analysis:
        last, flight = acked.analysis
        q = urllib.parse.urlencode({"project": s["project"], "component": s["component"],
                                    "vulnerability": s["vuln"]})
        st, body = dt.call("GET", f"/api/v1/analysis?{q}")
        got = json.loads(body).get("analysisState") if st == 200 else None
        if last is not None and got not in {last, flight}:
            failures.append(f"analysis state {got}, expected {last} (or {flight} in flight)")
        # keep only the state now stored as the baseline for the next trial
        acked.analysis = (got, None) if got else None
    for token, version, comp in acked.boms:
        deadline = time.time() + 60
        while True:
            st, body = dt.call("GET", f"/api/v1/event/token/{token}")
            if st == 200 and json.loads(body) == {"processing": False}:
                break
            if time.time() > deadline:
                failures.append(f"BOM {token} still processing after 60 s")
                break
            time.sleep(0.05)
        q = urllib.parse.urlencode({"name": "crash-bom", "version": version})
        st, body = dt.call("GET", f"/api/v1/project/lookup?{q}")
        if st != 200:
            failures.append(f"BOM {token}: project crash-bom {version} missing ({st})")
            continue
        puuid = json.loads(body)["uuid"]
        st, body = dt.call("GET", f"/api/v1/component/project/{puuid}")
        names = [c["name"] for c in json.loads(body)] if st == 200 else []
        if comp not in names:
            failures.append(f"BOM {token}: component {comp} not imported (got {names})")
    chat.close()
    dt.close()


def setup(h):
    owner = h.cli("create-user", "--email", "crash@example.com", "--full-name", "Crash",
                  "--role", "owner", "--json")
    team = h.cli("dtrack", "create-team", "--name", "Crash", "--api-key", "--json",
                 *sum((["--permission", p] for p in (
                     "BOM_UPLOAD", "PROJECT_CREATION_UPLOAD", "VIEW_PORTFOLIO",
                     "PORTFOLIO_MANAGEMENT", "VIEW_VULNERABILITY", "VULNERABILITY_ANALYSIS",
                     "VULNERABILITY_MANAGEMENT")), []))
    basic = "Basic " + base64.b64encode(
        f"{owner['email']}:{owner['api_key']}".encode()).decode()
    s = {"basic": basic, "dt_key": team["api_key"]}
    h.start()
    chat = Api(h.chat_port, {"Authorization": basic})
    must(chat.form("POST", "/api/v1/users/me/subscriptions",
                   {"subscriptions": json.dumps([{"name": "crash"}])}))
    dt = Api(h.dt_port, {"X-Api-Key": s["dt_key"]})
    s["project"] = must(dt.json("PUT", "/api/v1/project",
                                {"name": "crash", "version": "1"}))["uuid"]
    s["component"] = must(dt.json("PUT", f"/api/v1/component/project/{s['project']}",
                                  {"name": "lib", "version": "1.0"}))["uuid"]
    s["vuln"] = must(dt.json("PUT", "/api/v1/vulnerability",
                             {"vulnId": "INT-CRASH", "severity": "HIGH"}))["uuid"]
    must(dt.call("POST", f"/api/v1/vulnerability/{s['vuln']}/component/{s['component']}"))
    chat.close()
    dt.close()
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default="target/release/outpost", help="the outpost executable")
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--sync", choices=["full", "normal"], default="full")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--keep", action="store_true", help="keep the temporary data directory")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    random.seed(seed)
    h = Harness(args)
    print(f"crash check: {args.trials} trials, synchronous={args.sync}, seed {seed}, in {h.tmp}")
    totals = {"messages": 0, "reactions": 0, "edits": 0, "analyses": 0, "boms": 0}
    started = time.time()
    ok = False
    try:
        s = setup(h)
        acked = Acked()
        for trial in range(1, args.trials + 1):
            acked_t = Acked()
            acked_t.analysis = acked.analysis
            run_trial(h, s, trial, acked_t)
            result = h.integrity()
            if result != [("ok",)]:
                raise SystemExit(f"trial {trial}: integrity_check says {result[:5]}")
            h.start()
            failures = []
            verify(h, s, acked_t, failures)
            if failures:
                raise SystemExit(f"trial {trial}: {len(failures)} acknowledged writes lost:\n  "
                                 + "\n  ".join(failures[:20]))
            acked.analysis = acked_t.analysis
            totals["messages"] += len(acked_t.messages)
            totals["reactions"] += len(acked_t.reactions)
            totals["edits"] += sum(1 for v in acked_t.edits.values() if v[1] is None)
            totals["analyses"] += acked_t.analyses
            totals["boms"] += len(acked_t.boms)
            if trial % 10 == 0 or trial == args.trials:
                print(f"trial {trial}: ok ({time.time() - started:.0f} s; acknowledged so far "
                      + ", ".join(f"{k} {v}" for k, v in totals.items()) + ")", flush=True)
        ok = True
    finally:
        if h.proc and h.proc.poll() is None:
            h.kill()
        if ok and not args.keep:
            subprocess.run(["rm", "-rf", h.tmp])
    print(f"crash check passed: {args.trials} SIGKILLs, no acknowledged write lost, "
          "integrity_check ok every time")


if __name__ == "__main__":
    main()
