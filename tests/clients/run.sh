#!/usr/bin/env bash
# Starts `outpost serve` on free loopback ports with a fresh data directory (chat and
# Dependency-Track listeners), bootstraps a chat owner with `outpost create-user`, and runs the
# real-client checks against it: the `zulip` client, the Dependency-Track PyPI clients, and a
# badge rendered by headless Chromium when a `chromium` executable is installed.
# Usage: tests/clients/run.sh PATH/TO/outpost
set -euo pipefail
bin=$(realpath "${1:?usage: run.sh PATH/TO/outpost}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/outpost.toml" <<TOML
data_dir = "$work/data"
[chat]
listen = "127.0.0.1:0"
[deptrack]
enabled = true
listen = "127.0.0.1:0"
[database]
synchronous = "normal"
TOML

"$bin" create-user --config "$work/outpost.toml" --email owner@example.com \
  --full-name "Owner Person" --role owner --can-create-users --json > "$work/owner.json"

"$bin" serve --config "$work/outpost.toml" 2> "$work/server.log" &
server=$!
addr=""
for _ in $(seq 1 100); do
  addr=$(sed -n 's/.*chat=\([0-9.]*:[0-9]*\).*/\1/p' "$work/server.log" | head -n 1)
  [ -n "$addr" ] && break
  sleep 0.1
done
if [ -z "$addr" ]; then
  echo "outpost did not start:"; cat "$work/server.log"; exit 1
fi
site="http://$addr"
dt_addr=$(sed -n 's/.*deptrack=Some(\([0-9.]*:[0-9]*\)).*/\1/p' "$work/server.log" | head -n 1)
if [ -z "$dt_addr" ]; then
  echo "the Dependency-Track listener did not start:"; cat "$work/server.log"; exit 1
fi

status=0
python3 "$here/zulip_client_check.py" "$site" "$work/owner.json" || status=$?
if [ "$status" -eq 0 ]; then
  python3 "$here/dtrack_client_check.py" "http://$dt_addr" "$here/ci-bom.json" "$work/badge.svg" \
    || status=$?
fi
if [ "$status" -eq 0 ]; then
  chromium_bin=$(command -v chromium || command -v chromium-browser || true)
  if [ -n "$chromium_bin" ]; then
    python3 "$here/badge_chromium_check.py" "$chromium_bin" "$work/badge.svg" || status=$?
  else
    echo "skipping the Chromium badge check: no chromium executable (.ci/run installs Debian's)"
  fi
fi
if [ "$status" -ne 0 ]; then
  echo "--- server log ---"; tail -n 50 "$work/server.log"
fi
exit "$status"
