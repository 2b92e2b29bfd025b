#!/usr/bin/env bash
# Cold start and idle memory of `outpost serve`:
#
#   bash tests/soak/startup.sh target/release/outpost [DATA_DIR] [RUNS]
#
# For RUNS runs (10) each: the time from exec of `outpost serve` to the first successful
# `GET /api/v1/server_settings` (polled every millisecond), and the server's VmRSS 2 s later;
# first on a fresh empty data directory each run, then on an existing one: DATA_DIR if given
# (e.g. a soak's, kept with SOAK_KEEP=1; it is opened, not changed by this script beyond what
# a start does), else the data directory of the first fresh run. Prints the median and the
# range. Uses temporary directories only; the chat listener is on a free loopback port.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 OUTPOST_BINARY [DATA_DIR] [RUNS]" >&2
  exit 2
fi
bin=$(realpath "$1")
existing=${2:-}
runs=${3:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/outpost-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$bin" "$work" "$runs" "$existing" <<'PY'
import http.client, os, socket, statistics, subprocess, sys, time

binary, work, runs, existing = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0

def one(data_dir, tag):
    port = free_port()
    cfg = os.path.join(work, f"{tag}.toml")
    with open(cfg, "w") as f:
        f.write(f'data_dir = "{data_dir}"\n[chat]\nlisten = "127.0.0.1:{port}"\n[log]\nlevel = "warn"\n')
    t0 = time.perf_counter()
    proc = subprocess.Popen([binary, "serve", "--config", cfg],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                sys.exit(f"the server exited with {proc.returncode}")
            if time.perf_counter() - t0 > 30:
                sys.exit("no answer within 30 s")
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                c.request("GET", "/api/v1/server_settings")
                ok = c.getresponse().status == 200
                c.close()
                if ok:
                    break
            except OSError:
                pass
            time.sleep(0.001)
        took = (time.perf_counter() - t0) * 1000
        time.sleep(2)
        rss = rss_kib(proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    return took, rss

def report(name, results):
    ms = [r[0] for r in results]
    rss = [r[1] / 1024 for r in results]
    print(f"{name}: runs={len(results)} first_answer_median={statistics.median(ms):.1f}ms "
          f"min={min(ms):.1f}ms max={max(ms):.1f}ms idle_rss_median={statistics.median(rss):.1f}MB "
          f"min={min(rss):.1f}MB max={max(rss):.1f}MB")

fresh = []
for i in range(runs):
    fresh.append(one(os.path.join(work, f"fresh-{i}"), f"fresh-{i}"))
report("fresh data dir", fresh)
target = existing or os.path.join(work, "fresh-0")
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(target) for f in fs)
report(f"existing data dir ({size / 1e6:.1f} MB)", [one(target, f"existing-{i}") for i in range(runs)])
PY
