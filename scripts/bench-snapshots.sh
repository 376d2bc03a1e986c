#!/usr/bin/env bash
# Benchmark: snapshot-writer fed by real intent-handler and timeline-service processes over tcp
# loopback (the line intent → state → timeline → file). Reports the delay from
# an intent's ack to a snapshot file on disk with that state version (one intent at a time, then
# under a burst) and the snapshot files written per second during the burst.
# Usage: scripts/bench-snapshots.sh [burst intents] [users]   (results: .widgetbus/bench/)
# SCRATCH_PATH=<dir> builds into that scratch path instead of .build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

intents="${1:-20000}"
users="${2:-200}"
build=(swift build -c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
"${build[@]}" --product intent-handler
"${build[@]}" --product timeline-service
"${build[@]}" --product snapshot-writer
"${build[@]}" --product widgetctl
"${build[@]}" --product widgetbus-loadtest
bin=$("${build[@]}" --show-bin-path)
out=.widgetbus/bench
rm -rf "$out/data" "$out/snapshots" && mkdir -p "$out"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export WIDGETBUS_DATA_DIR="$out/data"
export WIDGETBUS_SNAPSHOT_DIR="$out/snapshots"
export WIDGETBUS_INTENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_SNAPSHOT="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_TIMELINES="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_TIMELINE_EVENTS="tcp://127.0.0.1:$(free_port)"
# No metrics-ingest here (the Tension Check files need none): private ports keep timeline-service
# from following another bus's.
export WIDGETBUS_METRICS_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_METRICS_SNAPSHOT="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_LOG_LEVEL=warning

"$bin/intent-handler" &
handler=$!
"$bin/timeline-service" &
timelines=$!
"$bin/snapshot-writer" &
writer=$!
trap 'kill -TERM $handler $timelines $writer 2>/dev/null; wait $handler $timelines $writer 2>/dev/null || true' EXIT
for _ in $(seq 50); do "$bin/widgetctl" ping intent-handler --timeout 200 --attempts 1 >/dev/null 2>&1 && break; sleep 0.2; done

echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(df -T "$out" | awk 'NR==2 {print $2}') file system, libzmq $(pkg-config --modversion libzmq)"
echo "snapshot-writer: coalescing delay ${WIDGETBUS_SNAPSHOT_COALESCE_MS:-25} ms"
"$bin/widgetbus-loadtest" snapshot-writer --intents "$intents" --users "$users" --json "$out/snapshots.json"
