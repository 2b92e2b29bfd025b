#!/usr/bin/env bash
# Builds Outpost as one statically linked executable (glibc, crt-static) at
# target/x86_64-unknown-linux-gnu/release/outpost. SQLite is compiled in (bundled).
set -euo pipefail
cd "$(dirname "$0")/.."
target=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --target "$target" --bin outpost
bin="target/$target/release/outpost"
strip "$bin" 2>/dev/null || true
if ldd "$bin" 2>&1 | grep -Eq "not a dynamic executable|statically linked"; then
  echo "static executable: $bin ($(du -h "$bin" | cut -f1))"
else
  echo "warning: $bin is dynamically linked:"; ldd "$bin"; exit 1
fi
