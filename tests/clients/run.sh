#!/usr/bin/env bash
# Starts `outpost serve` on a free loopback port with a fresh data directory, bootstraps an
# owner with `outpost create-user`, and runs the real-client checks against it.
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

status=0
python3 "$here/zulip_client_check.py" "$site" "$work/owner.json" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- server log ---"; tail -n 50 "$work/server.log"
fi
exit "$status"
