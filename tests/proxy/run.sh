#!/usr/bin/env bash
# The scheduled OSV fetch through a real forward proxy, Debian's `tinyproxy`: a stand-in OSV
# server (python3 -m http.server over a temporary directory holding PyPI/all.zip with one
# record), tinyproxy on 127.0.0.1 (CONNECT allowed to any port: no ConnectPort lines), and
# `outpost serve` with [dtrack.osv] pointing at the stand-in and `http_proxy` naming tinyproxy
# (`no_proxy` emptied so 127.0.0.1 is not bypassed). Passes when tinyproxy's log shows the
# request for all.zip and the record is readable through the Dependency-Track API with a key.
# Everything lives in a temporary directory and is stopped on exit; every wait is bounded.
# Usage: tests/proxy/run.sh PATH/TO/outpost
set -euo pipefail
bin=$(realpath "${1:?usage: run.sh PATH/TO/outpost}")
command -v tinyproxy >/dev/null || { echo "tinyproxy is not installed (.ci/run installs Debian's)" >&2; exit 1; }
work=$(mktemp -d)
osv="" proxy="" server=""
cleanup() {
  for pid in "$server" "$proxy" "$osv"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_port() { # wait_port PORT WHAT LOG
  for _ in $(seq 1 100); do
    if python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $1)))"; then
      return 0
    fi
    sleep 0.1
  done
  echo "$2 did not start:"; cat "$3" 2>/dev/null || true; exit 1
}
osv_port=$(free_port)
proxy_port=$(free_port)
dt_port=$(free_port)
chat_port=$(free_port)

# The stand-in OSV export: one PyPI record, zipped.
mkdir -p "$work/osv/PyPI"
python3 - "$work/osv/PyPI/all.zip" <<'PY'
import json, sys, zipfile
record = {
    "id": "PYSEC-2099-77",
    "modified": "2025-01-01T00:00:00Z",
    "summary": "Fetched through a proxy",
    "affected": [{
        "package": {"ecosystem": "PyPI", "name": "proxied-package"},
        "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.0"}]}],
    }],
}
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("PYSEC-2099-77.json", json.dumps(record))
PY
python3 -m http.server "$osv_port" --bind 127.0.0.1 --directory "$work/osv" \
  > "$work/osv.log" 2>&1 &
osv=$!
wait_port "$osv_port" "the OSV stand-in" "$work/osv.log"

cat > "$work/tinyproxy.conf" <<CONF
Port $proxy_port
Listen 127.0.0.1
Timeout 60
LogFile "$work/tinyproxy.log"
LogLevel Info
PidFile "$work/tinyproxy.pid"
MaxClients 20
Allow 127.0.0.1
CONF
tinyproxy -d -c "$work/tinyproxy.conf" > "$work/tinyproxy.out" 2>&1 &
proxy=$!
wait_port "$proxy_port" "tinyproxy" "$work/tinyproxy.out"

cat > "$work/outpost.toml" <<TOML
data_dir = "$work/data"
[chat]
listen = "127.0.0.1:$chat_port"
[dtrack]
enabled = true
listen = "127.0.0.1:$dt_port"
[dtrack.osv]
base_url = "http://127.0.0.1:$osv_port"
ecosystems = "PyPI"
[database]
synchronous = "normal"
TOML
key=$("$bin" dtrack create-team --config "$work/outpost.toml" --name Readers \
  --permission VIEW_PORTFOLIO --api-key --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')

env -u HTTP_PROXY -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy -u NO_PROXY \
  http_proxy="http://127.0.0.1:$proxy_port" no_proxy="" \
  "$bin" serve --config "$work/outpost.toml" > "$work/server.log" 2>&1 &
server=$!
wait_port "$dt_port" "outpost" "$work/server.log"

status=0
python3 - "http://127.0.0.1:$dt_port/api/v1" "$key" <<'PY' || status=$?
import json, sys, time, urllib.error, urllib.request
api, key = sys.argv[1], sys.argv[2]
url = f"{api}/vulnerability/source/OSV/vuln/PYSEC-2099-77"
# No proxy for this client's own requests to the server.
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
deadline = time.monotonic() + 60
while True:
    try:
        with opener.open(urllib.request.Request(url, headers={"X-Api-Key": key}), timeout=10) as r:
            body = json.load(r)
        break
    except urllib.error.HTTPError as e:
        if e.code != 404 or time.monotonic() > deadline:
            print(f"proxy-check: 0 passed, 1 failed (GET {url}: {e.code})")
            sys.exit(1)
    time.sleep(0.2)
if body.get("vulnId") != "PYSEC-2099-77" or body.get("title") != "Fetched through a proxy":
    print(f"proxy-check: 0 passed, 1 failed (unexpected vulnerability {body})")
    sys.exit(1)
PY
if [ "$status" -eq 0 ]; then
  # ureq tunnels plain http:// too (CONNECT); an absolute-form GET would do as well.
  if grep -qE "Request .*: (CONNECT 127\.0\.0\.1:$osv_port |GET http://127\.0\.0\.1:$osv_port/PyPI/all\.zip )" \
    "$work/tinyproxy.log" \
    && grep -q "GET /PyPI/all.zip" "$work/osv.log"; then
    echo "proxy-check: 2 passed, 0 failed (the export went through tinyproxy and arrived)"
  else
    echo "proxy-check: 1 passed, 1 failed (the record arrived, but tinyproxy's log does not show the request)"
    status=1
  fi
fi
if [ "$status" -ne 0 ]; then
  echo "--- tinyproxy log ---"; tail -n 30 "$work/tinyproxy.log" 2>/dev/null || true
  echo "--- OSV stand-in log ---"; tail -n 30 "$work/osv.log"
  echo "--- server log ---"; tail -n 50 "$work/server.log"
fi
exit "$status"
