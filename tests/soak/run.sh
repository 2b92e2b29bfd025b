#!/usr/bin/env bash
# Soak test: a steady mixed load against a real `outpost serve` for SECONDS while the server's
# resident memory is sampled every 10 s; fails if the memory drifts by more than 10% after the
# warm-up, or if any request failed.
#
#   cargo build --release
#   bash tests/soak/run.sh target/release 3600
#
# BIN_DIR holds `outpost` and `outpost-bench`. Everything is written to a new temporary
# directory (printed first): outpost.toml, credentials, server.log, bench.log and rss.csv
# (elapsed seconds, VmRSS KiB, threads, open files, data directory KiB, and from the metrics
# listener the event queues and the events they hold). The data directory is
# removed at the end unless SOAK_KEEP=1. SOAK_RATE (sends per second, 50), SOAK_POLLERS
# (long-polls, 120) and SOAK_USERS (40) change the mix.
#
# The server runs with the defaults except: listeners on free loopback ports, the
# Dependency-Track API and the metrics listener enabled, rate limits off (one generator is many users), and
# `events.queue_timeout_secs = 120` so that the queues the generator abandons are collected
# within the run's warm-up rather than after 10 minutes.
#
# Warm-up: the sample at max(SECONDS/10, min(300, SECONDS/2)) seconds. Drift is
# (final - warmup) / warmup of VmRSS.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR SECONDS" >&2
  exit 2
fi
bin_dir=$(cd "$1" && pwd)
secs=$2
outpost="$bin_dir/outpost"
bench="$bin_dir/outpost-bench"
for b in "$outpost" "$bench"; do
  [ -x "$b" ] || { echo "missing $b (cargo build --release)" >&2; exit 2; }
done
rate=${SOAK_RATE:-50}
pollers=${SOAK_POLLERS:-120}
nusers=${SOAK_USERS:-40}

work=$(mktemp -d "${TMPDIR:-/tmp}/outpost-soak.XXXXXX")
echo "soak: working directory $work"
server_pid=""
sampler_pid=""
cleanup() {
  [ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null || true
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "${SOAK_KEEP:-0}" != 1 ]; then rm -rf "$work/data"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
chat_port=$(free_port)
dt_port=$(free_port)
while [ "$dt_port" = "$chat_port" ]; do dt_port=$(free_port); done
metrics_port=$(free_port)
while [ "$metrics_port" = "$chat_port" ] || [ "$metrics_port" = "$dt_port" ]; do
  metrics_port=$(free_port)
done
cfg="$work/outpost.toml"
cat > "$cfg" <<TOML
data_dir = "$work/data"
[chat]
listen = "127.0.0.1:$chat_port"
[dtrack]
enabled = true
listen = "127.0.0.1:$dt_port"
[metrics]
enabled = true
listen = "127.0.0.1:$metrics_port"
[events]
queue_timeout_secs = 120
[limits]
user_requests_per_minute = 0
ip_requests_per_minute = 0
[log]
level = "warn"
TOML

# Users and a Dependency-Track team, with the CLI, before the server starts.
creds="$work/credentials"
: > "$creds"
for i in $(seq 0 $((nusers - 1))); do
  "$outpost" create-user --config "$cfg" --email "soak$i@example.com" \
    --full-name "Soak User $i" --json |
    jq -r '"chat \(.user_id) \(.email) \(.api_key)"' >> "$creds"
done
dt_key=$("$outpost" dtrack create-team --config "$cfg" --name Soak --api-key --json \
  --permission BOM_UPLOAD --permission PROJECT_CREATION_UPLOAD \
  --permission VIEW_PORTFOLIO --permission VIEW_BADGES | jq -r .api_key)

"$outpost" serve --config "$cfg" > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do
  curl -fs "http://127.0.0.1:$chat_port/api/v1/server_settings" > /dev/null && break
  sleep 0.05
done
curl -fs "http://127.0.0.1:$chat_port/api/v1/server_settings" > /dev/null ||
  { echo "soak: the server did not start (see $work/server.log)" >&2; exit 1; }

# A BOM, so that the badge has a project with components.
bom=$(jq -cn '{bomFormat: "CycloneDX", specVersion: "1.5", version: 1,
  metadata: {component: {type: "application", name: "soak-app", version: "1.0"}},
  components: [range(0; 50) | {type: "library", "bom-ref": "c\(.)", name: "soak-lib-\(.)",
    version: "1.\(. % 7).0", purl: "pkg:npm/soak-lib-\(.)@1.\(. % 7).0"}]}')
token=$(jq -cn --arg bom "$(printf '%s' "$bom" | base64 -w0)" \
  '{projectName: "soak-app", projectVersion: "1.0", autoCreate: true, bom: $bom}' |
  curl -fsS -X PUT -H "X-Api-Key: $dt_key" -H 'Content-Type: application/json' \
    --data-binary @- "http://127.0.0.1:$dt_port/api/v1/bom" | jq -r .token)
for _ in $(seq 1 600); do
  processing=$(curl -fsS -H "X-Api-Key: $dt_key" \
    "http://127.0.0.1:$dt_port/api/v1/event/token/$token" | jq -r .processing)
  [ "$processing" = false ] && break
  sleep 0.1
done
project=$(curl -fsS -H "X-Api-Key: $dt_key" \
  "http://127.0.0.1:$dt_port/api/v1/project/lookup?name=soak-app&version=1.0" | jq -r .uuid)
echo "dtrack $dt_key $project" >> "$creds"

# Memory samples every 10 s (and one at the end).
csv="$work/rss.csv"
echo "elapsed_s,vmrss_kib,threads,open_files,data_kib,event_queues,queued_events" > "$csv"
sample() {
  local rss threads fds db queues events metrics
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo 0)
  threads=$(awk '/^Threads:/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo 0)
  fds=$(ls "/proc/$server_pid/fd" 2>/dev/null | wc -l)
  db=$(du -sk "$work/data" 2>/dev/null | cut -f1)
  metrics=$(curl -fs "http://127.0.0.1:$metrics_port/metrics" || true)
  queues=$(awk '$1 == "outpost_event_queues" {print $2}' <<< "$metrics")
  events=$(awk '$1 == "outpost_event_queue_events" {print $2}' <<< "$metrics")
  echo "$1,$rss,$threads,$fds,$db,${queues:-},${events:-}" >> "$csv"
}
start=$(date +%s)
(
  while kill -0 "$server_pid" 2>/dev/null; do
    sample $(( $(date +%s) - start ))
    sleep 10
  done
) &
sampler_pid=$!

echo "soak: $secs s, $rate sends/s, $pollers long-polls, $nusers users (server pid $server_pid)"
set +e
"$bench" soak --addr "127.0.0.1:$chat_port" --dt-addr "127.0.0.1:$dt_port" \
  --credentials "$creds" --seconds "$secs" --rate "$rate" --pollers "$pollers" \
  2>&1 | tee "$work/bench.log"
bench_rc=${PIPESTATUS[0]}
set -e
kill "$sampler_pid" 2>/dev/null || true
wait "$sampler_pid" 2>/dev/null || true
sampler_pid=""
sample $(( $(date +%s) - start ))
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "soak: FAIL: the server exited during the run (see $work/server.log)"
  exit 1
fi

warm=$(( secs / 10 ))
half=$(( secs / 2 < 300 ? secs / 2 : 300 ))
[ "$half" -gt "$warm" ] && warm=$half
verdict=$(awk -F, -v warm="$warm" '
  NR == 1 { next }
  { if ($2 > peak) peak = $2; final = $2; t = $1
    if (w == "" && $1 >= warm) { w = $2; wt = $1 } }
  END {
    if (w == "" || w == 0) { print "nodata"; exit }
    drift = (final - w) * 100 / w
    printf "warmup_s=%d warmup_rss=%.1fMB final_s=%d final_rss=%.1fMB peak_rss=%.1fMB drift=%.1f%% %s\n",
      wt, w / 1024, t, final / 1024, peak / 1024, drift, (drift > 10 ? "over" : "ok")
  }' "$csv")
echo "soak: rss samples in $csv"
echo "soak: $verdict"
status=0
case "$verdict" in
  nodata) echo "soak: FAIL: no memory sample after the warm-up"; status=1 ;;
  *over) echo "soak: FAIL: memory drifted by more than 10%"; status=1 ;;
esac
if [ "$bench_rc" -ne 0 ]; then
  echo "soak: FAIL: requests failed (outpost-bench exit status $bench_rc)"
  status=1
fi
[ "$status" -eq 0 ] && echo "soak: PASS"
exit "$status"
