#!/usr/bin/env bash
# End-to-end tests of the browser client (issue 17 §3) and its performance figures (§4).
# Starts `outpost serve` on a free loopback port with a fresh data directory, creates two
# users with passwords by the CLI, installs the pinned npm packages (playwright-core,
# axe-core) into a temporary directory (never into the working tree; no browser download:
# Debian's Chromium is driven), runs the specs under tests/web/e2e/ with `node --test`, one
# file at a time (one of them restarts the server), prints the figures table and stops the
# server.
# Usage: tests/web/run.sh PATH/TO/outpost
# Screenshots and figures go to $ARTIFACTS_DIR (default: a new temporary directory, kept).
set -euo pipefail
bin=$(realpath "${1:?usage: run.sh PATH/TO/outpost}")
here=$(cd "$(dirname "$0")" && pwd)

chromium_bin=""
for candidate in /usr/lib/chromium/chromium "$(command -v chromium || true)" \
  "$(command -v chromium-browser || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then chromium_bin=$candidate; break; fi
done
if [ -z "$chromium_bin" ]; then
  echo "skipping the web client end-to-end tests: no chromium executable (.ci/run installs Debian's)"
  exit 0
fi

if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "the web client tests need Node.js 20 or newer (found $(node --version 2>&1))"; exit 1
fi

status=0
if compgen -G "$here/unit/*.test.mjs" >/dev/null; then
  echo "== web client unit tests (node --test, no browser)"
  node --test --test-reporter=dot "$here"/unit/*.test.mjs || status=$?
fi

work=$(mktemp -d -t outpost-web-e2e.XXXXXX)
deps=$(mktemp -d -t outpost-web-deps.XXXXXX)
artifacts=${ARTIFACTS_DIR:-$(mktemp -d -t outpost-web-artifacts.XXXXXX)}
mkdir -p "$artifacts"
artifacts=$(realpath "$artifacts")
rm -f "$artifacts/figures.jsonl"
pidfile="$work/server.pid"

stop_server() {
  # The server may have been started again by the restart spec (then it is not our child).
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      if ! kill -0 "$pid" 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' "/proc/$pid/stat" 2>/dev/null; then break; fi
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}
cleanup() {
  stop_server
  rm -rf "$work" "$deps"
}
trap cleanup EXIT

echo "== installing playwright-core and axe-core (package-lock.json) into $deps"
cp "$here/package.json" "$here/package-lock.json" "$deps/"
(cd "$deps" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
site="http://127.0.0.1:$port"
cat > "$work/outpost.toml" <<TOML
data_dir = "$work/data"
[chat]
listen = "127.0.0.1:$port"
external_url = "$site"
realm_name = "Outpost E2E"
[database]
synchronous = "normal"
[limits]
user_requests_per_minute = 0
ip_requests_per_minute = 0
TOML

# Two people with passwords (they log in through the real /login form) and their API keys
# (the specs create channels and messages through the API as the other side).
create() { # email, full name, role, password
  printf '%s\n' "$4" | "$bin" create-user --config "$work/outpost.toml" --email "$1" \
    --full-name "$2" --role "$3" --password-stdin --json
}
alice=$(create alice@example.com "Alice Owner" owner "alice-e2e-password-1")
bob=$(create bob@example.com "Bob Member" member "bob-e2e-password-2")
python3 - "$work/users.json" "$alice" "$bob" <<'PY'
import json, sys
alice, bob = json.loads(sys.argv[2]), json.loads(sys.argv[3])
alice.update(full_name="Alice Owner", password="alice-e2e-password-1")
bob.update(full_name="Bob Member", password="bob-e2e-password-2")
json.dump({"alice": alice, "bob": bob}, open(sys.argv[1], "w"))
PY

"$bin" serve --config "$work/outpost.toml" >> "$work/server.log" 2>&1 &
echo $! > "$pidfile"
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $port)))"; then
    break
  fi
  sleep 0.1
done

echo "== web client end-to-end specs against $site (artifacts: $artifacts)"
export E2E_DEPS="$deps" E2E_SITE="$site" E2E_BIN="$bin" E2E_CONFIG="$work/outpost.toml" \
  E2E_PIDFILE="$pidfile" E2E_SERVER_LOG="$work/server.log" E2E_USERS="$work/users.json" \
  E2E_CHROMIUM="$chromium_bin" ARTIFACTS_DIR="$artifacts"
# One file at a time, in this order: restart.test.mjs stops and starts the server.
specs=(${E2E_SPECS:-login security messaging features a11y performance restart})
files=()
for spec in "${specs[@]}"; do
  case "$spec" in */*) files+=("$spec") ;; *) files+=("$here/e2e/$spec.test.mjs") ;; esac
done
node --test --test-concurrency=1 --test-timeout=300000 --test-reporter=spec "${files[@]}" || status=$?

node "$here/e2e/figures.mjs" "$artifacts/figures.jsonl" || status=$?
echo "screenshots and figures: $artifacts"
if [ "$status" -ne 0 ]; then
  echo "--- server log ---"; tail -n 40 "$work/server.log"
fi
exit "$status"
