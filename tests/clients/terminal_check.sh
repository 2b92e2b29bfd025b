#!/usr/bin/env bash
# Runs zulip-terminal (PyPI zulip-term) under tmux against a running Outpost and checks, from
# the captured screen, that it shows the channel list, an existing message, a message that
# arrives while it runs (through its event queue), and that its thumbs-up key (`+` in 0.7.0)
# adds a `thumbs_up` reaction (Zulip's emoji name) that the server keeps and the screen shows.
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

# From the temporary directory: zulip-terminal writes its traceback log into the working
# directory, which must never be the repository.
tmux new-session -d -s "$session" -c "$dir" -x 160 -y 45 "zulip-term -c $dir/zuliprc 2> $dir/zt.err; sleep 60"

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

# The thumbs-up key reacts to the focused message: zulip-terminal sends emoji_name=thumbs_up,
# emoji_code=1f44d and shows the reaction once the server's reaction event comes back. It
# starts with the channel list focused; Right moves to the messages.
tmux send-keys -t "$session" Right
tmux send-keys -t "$session" "+"
check ":thumbs_up:"
if python3 - "$site" "$owner" <<'PY'
import json, sys, zulip
site, owner = sys.argv[1], json.load(open(sys.argv[2]))
c = zulip.Client(email=owner["email"], api_key=owner["api_key"], site=site)
# The focused message is the first unread one, which may be Welcome Bot's: look at them all.
r = c.get_messages({"anchor": "newest", "num_before": 20, "num_after": 0, "narrow": []})
assert r["result"] == "success", r
mine = [x for m in r["messages"] for x in m["reactions"]
        if x["user_id"] == c.get_profile()["user_id"]]
assert any(x["emoji_name"] == "thumbs_up" and x["emoji_code"] == "1f44d" for x in mine), mine
PY
then passed=$((passed + 1)); else echo "the thumbs-up reaction is not on the server"; failed=$((failed + 1)); fi

echo "zulip-terminal: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
