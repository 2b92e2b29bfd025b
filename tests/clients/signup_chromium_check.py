"""Signs up through an invitation link in headless Chromium, as a person would.

Usage: signup_chromium_check.py CHROMIUM SITE CREDENTIALS_JSON
CREDENTIALS_JSON is what `outpost create-user --json` printed for an owner. The owner makes a
reusable invitation link; Chromium opens it, a screenshot of the form is checked (its size,
that it is not blank, the submit button's colour), the form is filled in and submitted in
the page, which must end in the web client logged in as the new user, and the new account must
then log in with POST /api/v1/fetch_api_key.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages ending in NUL on file descriptors 3 and 4), so no extra Python package is needed.
The screenshot goes to a temporary directory, removed when every check passed.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import requests
from PIL import Image

chromium, site, creds = sys.argv[1], sys.argv[2], sys.argv[3]
with open(creds) as f:
    owner = json.load(f)
auth = (owner["email"], owner["api_key"])
WIDTH, HEIGHT = 800, 700
BUTTON = (0x2C, 0x6B, 0xD6)

results = []


def report(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'} - {name}{': ' + detail if detail else ''}")


class Browser:
    """A headless Chromium with one page, commanded over the DevTools pipe."""

    def __init__(self, workdir):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4 (made so in the child,
        # before the fds not passed are closed).
        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check",
             f"--user-data-dir={os.path.join(workdir, 'profile')}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\0" not in self.buf:
                chunk = os.read(self.from_chrome, 65536)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
        raise TimeoutError(method)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})

    def js(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return r["result"].get("value")

    def wait_for(self, expression, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.js(expression):
                return True
            time.sleep(0.1)
        return False

    def close(self):
        self.proc.kill()
        self.proc.wait()


r = requests.post(f"{site}/api/v1/invites/multiuse", auth=auth,
                  data={"invite_as": "400"}, timeout=30).json()
assert r["result"] == "success", r
link = r["invite_link"]
# The link names the configured external URL; the page is served on this listener.
url = site + link[link.index("/join/"):]

workdir = tempfile.mkdtemp()
browser = Browser(workdir)
try:
    browser.open(url)
    report("the signup form loads",
           browser.wait_for("document.readyState === 'complete' && !!document.getElementById('signup')"))

    shot = os.path.join(workdir, "signup.png")
    png = browser.send("Page.captureScreenshot", {"format": "png"})["data"]
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png))
    img = Image.open(shot).convert("RGB")
    report("the screenshot has the window's size", img.size == (WIDTH, HEIGHT), str(img.size))
    colours = img.getcolors(maxcolors=1 << 16) or []
    report("the page is not blank", len(colours) > 20, f"{len(colours)} colours")
    button = sum(n for n, c in colours if all(abs(a - b) <= 8 for a, b in zip(c, BUTTON)))
    report("the submit button is drawn in its colour", button > 2000, f"{button} pixels")

    email = "chromium-signup@example.com"
    password = "typed in a browser"
    browser.js(
        "document.getElementById('email').value = %s;"
        "document.getElementById('full_name').value = 'Chromium Signup';"
        "document.getElementById('password').value = %s;"
        "document.getElementById('submit').click(); true"
        % (json.dumps(email), json.dumps(password))
    )
    # Signing up logs the new user in and lands on the web client at `/`.
    done = browser.wait_for(
        "location.pathname === '/' && !!document.querySelector('section[aria-label=Messages]')")
    report("submitting the form creates the account and opens the web client, logged in", done,
           (browser.js("location.pathname + ': ' + (document.body ? document.body.innerText : '')")
            or "")[:200])

    r = requests.post(f"{site}/api/v1/fetch_api_key",
                      data={"username": email, "password": password}, timeout=30).json()
    # The answer holds the new API key: show only its outcome.
    report("the new user logs in with fetch_api_key", r.get("result") == "success",
           r.get("msg", ""))
    if r.get("result") == "success":
        me = requests.get(f"{site}/api/v1/users/me", auth=(email, r["api_key"]), timeout=30).json()
        report("the new user is a member named as typed",
               me.get("role") == 400 and me.get("full_name") == "Chromium Signup",
               f"role {me.get('role')}, name {me.get('full_name')!r}")
finally:
    browser.close()

failed = results.count(False)
if failed:
    print(f"screenshot and browser profile kept in {workdir}")
else:
    shutil.rmtree(workdir, ignore_errors=True)
print(f"signup-chromium: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed or not results else 0)
