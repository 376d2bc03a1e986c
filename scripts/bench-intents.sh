#!/usr/bin/env bash
# Benchmark: intent round trips through a real intent-handler over tcp loopback, next to a raw
# libzmq round trip of the same message size measured in the same run: one at a time (REQ/REP),
# or with [in flight] > 1 pipelined from a DEALER (raw baseline: DEALER to a ROUTER echo).
# Usage: scripts/bench-intents.sh [requests per round] [rounds] [in flight]   (results: .widgetbus/bench/)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

requests="${1:-10000}"
rounds="${2:-5}"
in_flight="${3:-1}"
swift build -c release --product intent-handler
swift build -c release --product widgetctl
swift build -c release --product widgetbus-loadtest
bin=$(swift build -c release --show-bin-path)
out=.widgetbus/bench
rm -rf "$out/data" && mkdir -p "$out"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export WIDGETBUS_DATA_DIR="$out/data"
export WIDGETBUS_INTENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_SNAPSHOT="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_LOG_LEVEL=warning

"$bin/intent-handler" &
handler=$!
trap 'kill -TERM $handler 2>/dev/null; wait $handler 2>/dev/null || true' EXIT
for _ in $(seq 50); do "$bin/widgetctl" ping intent-handler --timeout 200 --attempts 1 >/dev/null 2>&1 && break; sleep 0.2; done

echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), libzmq $(pkg-config --modversion libzmq)"
"$bin/widgetbus-loadtest" intent-handler --requests "$requests" --rounds "$rounds" --in-flight "$in_flight" --json "$out/intents-$in_flight.json"
