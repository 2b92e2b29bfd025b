#!/usr/bin/env bash
# Runs zulip-terminal (PyPI zulip-term) under tmux against a running Outpost and checks, from
# the captured screen, that it shows the channel list, an existing message, and a message that
# arrives while it runs (through its event queue).
# Usage: terminal_check.sh SITE OWNER_JSON
set -euo pipefail
site=$1
owner=$2
dir=$(mktemp -d)
session="outpost-zt-$$"
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

python3 - "$site" "$owner" "$dir/zuliprc" <<'PY'
import json, os, sys, zulip
site, owner, rc = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
c = zulip.Client(email=owner["email"], api_key=owner["api_key"], site=site)
assert c.add_subscriptions(streams=[{"name": "terminal-room"}])["result"] == "success"
assert c.send_message({"type": "stream", "to": "terminal-room", "topic": "hello",
                       "content": "Greetings from outpost"})["result"] == "success"
with open(rc, "w") as f:
    f.write(f"[api]\nemail={owner['email']}\nkey={owner['api_key']}\nsite={site}\n")
os.chmod(rc, 0o600)
PY

tmux new-session -d -s "$session" -x 160 -y 45 "zulip-term -c $dir/zuliprc 2> $dir/zt.err; sleep 60"

wait_for() {
  for _ in $(seq 1 100); do
    if tmux capture-pane -t "$session" -p | grep -q "$1"; then return 0; fi
    sleep 0.2
  done
  echo "zulip-terminal did not show: $1"
  tmux capture-pane -t "$session" -p | head -20
  cat "$dir/zt.err"
  return 1
}

passed=0
failed=0
check() { if wait_for "$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi; }
check "# terminal-room"
check "Greetings from outpost"

python3 - "$site" "$owner" <<'PY'
import json, sys, zulip
site, owner = sys.argv[1], json.load(open(sys.argv[2]))
c = zulip.Client(email=owner["email"], api_key=owner["api_key"], site=site)
assert c.send_message({"type": "stream", "to": "terminal-room", "topic": "hello",
                       "content": "A live update arrives"})["result"] == "success"
PY
check "A live update arrives"

echo "zulip-terminal: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
