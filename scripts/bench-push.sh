#!/usr/bin/env bash
# Benchmark: push-gateway alone, between owners played by the load generator (intent-handler's push
# tokens, timeline-service's timelines) and a fake APNs (HTTP/2 over TLS) in the same process:
# timeline changes followed per second, pushes sent and answered per second, and raw HTTP/2 POSTs
# to the same fake APNs from async-http-client as the baseline of the same run.
# Usage: scripts/bench-push.sh [users] [following changes] [rounds]   (results: .widgetbus/bench/push-*.json)
# SCRATCH_PATH=<dir> builds into that scratch path instead of .build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

users="${1:-10000}"
changes="${2:-50000}"
rounds="${3:-3}"
build=(swift build -c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
"${build[@]}" --product push-gateway
"${build[@]}" --product widgetbus-loadtest
bin=$("${build[@]}" --show-bin-path)
out=.widgetbus/bench
mkdir -p "$out"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), libzmq $(pkg-config --modversion libzmq), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
    # Private ports each round: the load generator binds the owners' endpoints itself.
    WIDGETBUS_INTENTS="tcp://127.0.0.1:$(free_port)" WIDGETBUS_STATE_EVENTS="tcp://127.0.0.1:$(free_port)" \
    WIDGETBUS_STATE_SNAPSHOT="tcp://127.0.0.1:$(free_port)" WIDGETBUS_TIMELINES="tcp://127.0.0.1:$(free_port)" \
    WIDGETBUS_TIMELINE_EVENTS="tcp://127.0.0.1:$(free_port)" \
        "$bin/widgetbus-loadtest" push-gateway --users "$users" --changes "$changes" --pushes "$users" --json "$out/push-$round.json"
done
