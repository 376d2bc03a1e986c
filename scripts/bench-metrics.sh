#!/usr/bin/env bash
# Benchmark: sustained sample ingestion through a real metrics-ingest over tcp loopback — single
# samples (one MetricSample per message) and batches (MetricBatch) — next to a raw libzmq
# PUSH/PULL of the same message sizes measured in the same run. intent-handler runs beside it,
# as deployed, so the users' zones are known.
# Usage: scripts/bench-metrics.sh [samples per measurement] [rounds] [batch size] [users]
#        (results: .widgetbus/bench/metrics.json)
# SCRATCH_PATH=<dir> builds into that scratch path instead of .build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

samples="${1:-50000}"
rounds="${2:-3}"
batch="${3:-500}"
users="${4:-100}"
build=(swift build -c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
"${build[@]}" --product intent-handler
"${build[@]}" --product metrics-ingest
"${build[@]}" --product widgetctl
"${build[@]}" --product widgetbus-loadtest
bin=$("${build[@]}" --show-bin-path)
out=.widgetbus/bench
rm -rf "$out/metrics-data" && mkdir -p "$out"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export WIDGETBUS_DATA_DIR="$out/metrics-data"
export WIDGETBUS_INTENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_SNAPSHOT="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_METRICS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_METRICS_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_METRICS_SNAPSHOT="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_LOG_LEVEL=warning

"$bin/intent-handler" &
handler=$!
"$bin/metrics-ingest" &
ingest=$!
trap 'kill -TERM $handler $ingest 2>/dev/null; wait $handler $ingest 2>/dev/null || true' EXIT
for service in intent-handler metrics-ingest; do
    for _ in $(seq 50); do "$bin/widgetctl" ping "$service" --timeout 200 --attempts 1 >/dev/null 2>&1 && break; sleep 0.2; done
done

echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(df -T "$out" | awk 'NR==2 {print $2}') file system, libzmq $(pkg-config --modversion libzmq), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/widgetbus-loadtest" metrics-ingest --samples "$samples" --rounds "$rounds" --batch-size "$batch" --users "$users" --json "$out/metrics.json"
