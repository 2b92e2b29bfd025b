#!/usr/bin/env bash
# Starts `outpost serve` on free loopback ports with a fresh data directory (chat and
# Dependency-Track listeners), bootstraps users with `outpost create-user`, and runs the
# real-client checks against it:
#   1. the `zulip` Python bindings through users, channels, messages, invitations and a
#      scheduled message that must arrive within a second of its time;
#   2. zulip-terminal under tmux (terminal_check.sh);
#   3. an echo bot on `call_on_each_message` that must answer, keep answering across a
#      graceful restart (SIGTERM) without registering again (the queue is saved and restored),
#      and after a crash (SIGKILL: the queue is gone) re-register on BAD_EVENT_QUEUE_ID and
#      answer again;
#   4. the stateful `incrementor` bot of the `zulip_bots` package under `zulip-run-bot`, which
#      keeps its count in /bot_storage and must answer "1", then edit its answer to "2"
#      (incrementor_check.py);
#   5. PyPI's `zulip-botserver` running the `helloworld` bot as an outgoing webhook's receiver:
#      its answer must appear after a mention and a direct message (botserver_check.py);
#   6. the Dependency-Track PyPI clients, and a badge rendered by headless Chromium when a
#      `chromium` executable is installed;
#   7. with Chromium, a signup through an invitation link's form (signup_chromium_check.py);
#   8. a CI tool's Slack-style notifications posted with urllib to an incoming-webhook bot's
#      URL, read back with the `zulip` bindings (webhook_check.py);
#   9. a certificate obtained over ACME (TLS-ALPN-01) from Debian's `pebble`, served, and
#      reused from the data directory after a restart (acme_check.py: its own pebble, outpost
#      and temporary data directory; skipped when `pebble` is not installed);
#  10. mobile push and missed-message email with the `zulip` bindings, through a stand-in of
#      Zulip's push notification service and PyPI's aiosmtpd (notifications_check.py).
# Usage: tests/clients/run.sh PATH/TO/outpost
set -euo pipefail
bin=$(realpath "${1:?usage: run.sh PATH/TO/outpost}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
server=""
bot=""
incrementor=""
stop_server() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""; fi
}
cleanup() {
  if [ -n "$bot" ]; then kill "$bot" 2>/dev/null || true; wait "$bot" 2>/dev/null || true; fi
  if [ -n "$incrementor" ]; then
    kill "$incrementor" 2>/dev/null || true; wait "$incrementor" 2>/dev/null || true
  fi
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
dt_port=$(free_port)
site="http://127.0.0.1:$port"
cat > "$work/outpost.toml" <<TOML
data_dir = "$work/data"
[chat]
listen = "127.0.0.1:$port"
[dtrack]
enabled = true
listen = "127.0.0.1:$dt_port"
[database]
synchronous = "normal"
[bots]
# The botserver listens on 127.0.0.1.
outgoing_webhook_allow_private = true
TOML

"$bin" create-user --config "$work/outpost.toml" --email owner@example.com \
  --full-name "Owner Person" --role owner --can-create-users --json > "$work/owner.json"
"$bin" create-user --config "$work/outpost.toml" --email echo@example.com \
  --full-name "Echo Bot" --json > "$work/bot.json"
"$bin" create-user --config "$work/outpost.toml" --email incrementor-bot@example.com \
  --full-name "Incrementor" --bot-owner owner@example.com --json > "$work/incrementor.json"
python3 - "$site" "$work/incrementor.json" "$work/incrementor.zuliprc" <<'PY'
import json, sys
bot = json.load(open(sys.argv[2]))
with open(sys.argv[3], "w") as f:
    f.write(f"[api]\nemail={bot['email']}\nkey={bot['api_key']}\nsite={sys.argv[1]}\n")
PY

start_server() {
  "$bin" serve --config "$work/outpost.toml" 2>> "$work/server.log" &
  server=$!
  for _ in $(seq 1 100); do
    if python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $port)))"; then
      return 0
    fi
    sleep 0.1
  done
  echo "outpost did not start:"; cat "$work/server.log"; exit 1
}

status=0
start_server
python3 "$here/zulip_client_check.py" "$site" "$work/owner.json" || status=$?
chromium_bin=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium_bin" ]; then
  python3 "$here/signup_chromium_check.py" "$chromium_bin" "$site" "$work/owner.json" || status=$?
else
  echo "skipping the Chromium signup check: no chromium executable (.ci/run installs Debian's)"
fi
bash "$here/terminal_check.sh" "$site" "$work/owner.json" || status=$?
# After the terminal check: its messages would push the terminal's message off its screen.
python3 "$here/webhook_check.py" "$site" "$work/owner.json" || status=$?

# The bot's channel, with the bot subscribed.
python3 - "$site" "$work/owner.json" "$work/bot.json" <<'PY' || status=$?
import json, sys, zulip
site, owner, bot = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
c = zulip.Client(email=owner["email"], api_key=owner["api_key"], site=site)
r = c.add_subscriptions(streams=[{"name": "bot-room"}], principals=[owner["user_id"], bot["user_id"]])
assert r["result"] == "success", r
PY

python3 "$here/echo_bot.py" "$site" "$work/bot.json" > "$work/bot.log" 2>&1 &
bot=$!
sleep 1
python3 "$here/bot_check.py" "$site" "$work/owner.json" before-restart || status=$?

echo "restarting outpost (SIGTERM)"
stop_server
start_server
python3 "$here/bot_check.py" "$site" "$work/owner.json" after-restart || status=$?
registrations=$(grep -c '^registered' "$work/bot.log" || true)
if [ "$registrations" -eq 1 ]; then
  echo "restart-check: 1 passed, 0 failed (the bot kept its queue across the restart)"
else
  echo "restart-check: 0 passed, 1 failed (the bot registered $registrations times)"; status=1
fi

echo "crashing outpost (SIGKILL)"
kill -9 "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""
start_server
python3 "$here/bot_check.py" "$site" "$work/owner.json" after-crash || status=$?
registrations=$(grep -c '^registered' "$work/bot.log" || true)
if [ "$registrations" -eq 2 ]; then
  echo "crash-check: 1 passed, 0 failed (the bot re-registered once after the crash)"
else
  echo "crash-check: 0 passed, 1 failed (the bot registered $registrations times)"; status=1
fi

zulip-run-bot incrementor --config-file "$work/incrementor.zuliprc" > "$work/incrementor.log" 2>&1 &
incrementor=$!
python3 "$here/incrementor_check.py" "$site" "$work/owner.json" "$work/incrementor.json" || status=$?

python3 "$here/botserver_check.py" "$site" "$work/owner.json" || status=$?

python3 "$here/dtrack_client_check.py" "http://127.0.0.1:$dt_port" "$here/ci-bom.json" "$work/badge.svg" \
  || status=$?
if [ -f "$work/badge.svg" ]; then
  if [ -n "$chromium_bin" ]; then
    python3 "$here/badge_chromium_check.py" "$chromium_bin" "$work/badge.svg" || status=$?
  else
    echo "skipping the Chromium badge check: no chromium executable (.ci/run installs Debian's)"
  fi
fi

# 9. Certificates over ACME against Debian's pebble (its own servers and data directory).
python3 "$here/acme_check.py" "$bin" || status=$?

# 10. Notifications: the bindings register an FCM token, a direct message is pushed through a
#     stand-in of Zulip's push notification service, emailed through aiosmtpd and retracted
#     when read (notifications_check.py: its own stand-in, sink, outpost and data directory).
python3 "$here/notifications_check.py" --bin "$bin" || status=$?

if [ "$status" -ne 0 ]; then
  echo "--- bot log ---"; tail -n 30 "$work/bot.log"
  echo "--- incrementor log ---"; tail -n 30 "$work/incrementor.log"
  echo "--- server log ---"; tail -n 50 "$work/server.log"
fi
exit "$status"
