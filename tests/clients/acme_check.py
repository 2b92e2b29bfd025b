#!/usr/bin/env python3
"""End-to-end check of certificates over ACME against Debian's `pebble` (a test ACME server).

Starts pebble on 127.0.0.1 with a temporary config (its own HTTPS uses a throwaway CA made with
the `openssl` command line, which outpost's `[chat.acme] ca_root` trusts), then `outpost serve`
with `[chat.acme] domains = ["localhost"]` in a temporary data directory. Pebble validates the
TLS-ALPN-01 challenge by connecting to localhost on its `tlsPort`, which is the chat listener's
port. The check waits for the certificate, makes an HTTPS request trusting pebble's issuing root
(from pebble's management endpoint, /roots/0), checks the certificate names `localhost` and that
the account and key files are owner-only, then restarts outpost and checks that the stored
certificate is served again without a new order.

Usage: acme_check.py PATH/TO/outpost   (needs `pebble` and `openssl` on PATH)
"""

import json
import os
import shutil
import signal
import socket
import ssl
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

DOMAIN = "localhost"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(*cmd, cwd):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_pebble_tls(work):
    """A throwaway CA and a certificate for localhost/127.0.0.1 signed by it."""
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=acme-check CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=work)
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "pebble.key", "-out", "pebble.csr", "-subj", "/CN=localhost", cwd=work)
    with open(os.path.join(work, "pebble.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
    run("openssl", "x509", "-req", "-in", "pebble.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "pebble.ext", "-out", "pebble.pem", cwd=work)


def wait_port(port, proc, what, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port}")


def stop(proc):
    if proc and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def served_certificate(port, root_pem):
    """Connects with SNI `localhost`, verifying against pebble's root; returns (DER, parsed)."""
    ctx = ssl.create_default_context(cadata=root_pem)
    ctx.set_alpn_protocols(["http/1.1"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw, server_hostname=DOMAIN) as tls:
            return tls.getpeercert(binary_form=True), tls.getpeercert()


def https_get(port, root_pem, path):
    ctx = ssl.create_default_context(cadata=root_pem)
    # The certificate is for `localhost`; the request goes to 127.0.0.1 with that name.
    req = urllib.request.Request(f"https://{DOMAIN}:{port}{path}")
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
        return r.status, json.loads(r.read())


def main():
    bin_path = os.path.abspath(sys.argv[1])
    for tool in ("pebble", "openssl"):
        if shutil.which(tool) is None:
            print(f"acme-check: SKIPPED: no `{tool}` on PATH (.ci/run installs Debian's pebble)")
            return 0
    work = tempfile.mkdtemp(prefix="outpost-acme-")
    pebble = server = None
    passed = failed = 0
    server_log = os.path.join(work, "server.log")
    pebble_log = os.path.join(work, "pebble.log")

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"  ok: {what}")
        else:
            failed += 1
            print(f"  FAILED: {what}")

    def start_outpost():
        log = open(server_log, "a")
        proc = subprocess.Popen([bin_path, "serve", "--config", os.path.join(work, "outpost.toml")],
                                stdout=log, stderr=log)
        wait_port(chat_port, proc, "outpost")
        return proc

    try:
        make_pebble_tls(work)
        acme_port, mgmt_port, http_port, chat_port = (free_port() for _ in range(4))
        with open(os.path.join(work, "pebble.json"), "w") as f:
            json.dump({"pebble": {
                "listenAddress": f"127.0.0.1:{acme_port}",
                "managementListenAddress": f"127.0.0.1:{mgmt_port}",
                "certificate": os.path.join(work, "pebble.pem"),
                "privateKey": os.path.join(work, "pebble.key"),
                "httpPort": http_port,
                # TLS-ALPN-01 validations go to the chat listener.
                "tlsPort": chat_port,
                "ocspResponderURL": "",
                "externalAccountBindingRequired": False,
            }}, f)
        env = dict(os.environ, PEBBLE_VA_NOSLEEP="1", PEBBLE_WFE_NONCEREJECT="0")
        pebble = subprocess.Popen(["pebble", "-config", os.path.join(work, "pebble.json")],
                                  stdout=open(pebble_log, "w"), stderr=subprocess.STDOUT,
                                  env=env, cwd=work)
        wait_port(acme_port, pebble, "pebble")
        wait_port(mgmt_port, pebble, "pebble's management endpoint")

        with open(os.path.join(work, "outpost.toml"), "w") as f:
            f.write(f"""data_dir = "{work}/data"
[chat]
listen = "127.0.0.1:{chat_port}"
[chat.acme]
domains = ["{DOMAIN}"]
contact = "mailto:admin@example.com"
directory = "https://localhost:{acme_port}/dir"
ca_root = "{work}/ca.pem"
""")
        checked = subprocess.run([bin_path, "check-config", "--config", os.path.join(work, "outpost.toml")],
                                 capture_output=True, text=True)
        check(checked.returncode == 0, f"check-config accepts the ACME config {checked.stderr.strip()}")

        server = start_outpost()
        # Before the certificate exists, ordinary handshakes fail; afterwards they succeed.
        deadline = time.time() + 90
        root = None
        first = None
        while time.time() < deadline and first is None:
            try:
                if root is None:
                    mgmt = ssl.create_default_context(cafile=os.path.join(work, "ca.pem"))
                    with urllib.request.urlopen(f"https://localhost:{mgmt_port}/roots/0",
                                                context=mgmt, timeout=5) as r:
                        root = r.read().decode()
                first = served_certificate(chat_port, root)
            except (ssl.SSLError, OSError):
                time.sleep(0.5)
        check(first is not None, "a certificate from pebble is served within 90 s, verified by pebble's root")
        if first is None:
            raise RuntimeError("no certificate")
        sans = [v for k, v in first[1].get("subjectAltName", ()) if k == "DNS"]
        check(sans == [DOMAIN], f"the certificate is issued for {DOMAIN} (names: {sans})")
        status, body = https_get(chat_port, root, "/api/v1/server_settings")
        check(status == 200 and body.get("result") == "success",
              "GET /api/v1/server_settings over HTTPS answers success")
        acme_dir = os.path.join(work, "data", "acme", "chat")
        for name in ("key.pem", "account.json"):
            mode = stat.S_IMODE(os.stat(os.path.join(acme_dir, name)).st_mode)
            check(mode == 0o600, f"{name} is owner-only ({oct(mode)})")
        with open(server_log) as f:
            log = f.read()
        check(log.count("ordering an ACME certificate") == 1, "exactly one order was made")
        check("BEGIN" not in log, "no PEM material in the log")

        # Restart: the stored certificate is served again, with no new order.
        stop(server)
        restart_mark = os.path.getsize(server_log)
        server = start_outpost()
        second = None
        deadline = time.time() + 20
        while time.time() < deadline and second is None:
            try:
                second = served_certificate(chat_port, root)
            except (ssl.SSLError, OSError):
                time.sleep(0.2)
        check(second is not None and second[0] == first[0],
              "after a restart the same certificate is served at once")
        time.sleep(1)
        with open(server_log) as f:
            f.seek(restart_mark)
            log = f.read()
        check("stored ACME certificate in use" in log and "ordering an ACME certificate" not in log,
              "after a restart the stored certificate is reused without a new order")
        with open(pebble_log) as f:
            orders = f.read().count("Added order")
        check(orders == 1, f"pebble received exactly one order in all ({orders})")
    except Exception as e:  # noqa: BLE001 - report and fail
        failed += 1
        print(f"  FAILED: {e}")
    finally:
        stop(server)
        stop(pebble)
        if failed:
            for name, path in (("outpost", server_log), ("pebble", pebble_log)):
                if os.path.exists(path):
                    print(f"--- {name} log ---")
                    with open(path) as f:
                        print("".join(f.readlines()[-40:]))
        shutil.rmtree(work, ignore_errors=True)
    print(f"acme-check: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
