#!/usr/bin/env bash
# Benchmark: what a deployment choice costs. The whole topology from a release build (the local
# runner, free loopback ports, snapshots on tmpfs) in two modes, alternating, ROUNDS times
# (default 3). The modes:
#
#   plain    the bus in the clear, no metrics (WIDGETBUS_HTTP_PORT_BASE=off)
#   curve    CURVE on every socket (fresh keys from scripts/curve-keys.sh; widgetbus-loadtest
#            connects as the operator), no metrics
#   metrics  the bus in the clear, every service serving /metrics, each scraped once a second
#            for the whole run (Prometheus's default is every 15 s)
#
# The load, per mode and round:
#
#   open loop      widgetbus-loadtest --rate 2000 --duration 30 --users 1000
#   one at a time  widgetbus-loadtest --in-flight 1 --duration 15 --users 100  (intent round trips)
#   saturated      widgetbus-loadtest --in-flight 64 --duration 20 --users 1000 (throughput)
#
# One line per run: CPU per intent of the services, round trip p50/p99, intent → timeline p50/p99,
# the rate achieved. First, the raw baseline of the same run: pyzmq REQ/REP round trips of 300
# bytes over loopback, in the clear and with CURVE. Run it on a quiet machine (no build or test
# beside it).
#
# Usage: scripts/bench-compare.sh MODE MODE [ROUNDS]    e.g. `plain curve`, `plain metrics`
# Environment: SWIFT_BUILD_FLAGS (e.g. "--scratch-path .build-x").
set -euo pipefail
cd "$(dirname "$0")/.."
modes=("${1:?usage: scripts/bench-compare.sh MODE MODE [ROUNDS]}" "${2:?usage: scripts/bench-compare.sh MODE MODE [ROUNDS]}")
rounds="${3:-3}"
for mode in "${modes[@]}"; do
    case "$mode" in plain|curve|metrics) ;; *) echo "unknown mode '$mode': plain, curve or metrics" >&2; exit 2 ;; esac
done
# shellcheck disable=SC2086
swift build -c release ${SWIFT_BUILD_FLAGS:-} >&2
# shellcheck disable=SC2086
bin=$(swift build -c release ${SWIFT_BUILD_FLAGS:-} --show-bin-path)

# One topology, one load test: prints its summary line.
run() {  # mode loadtest-arguments…
    local mode=$1 work variable port
    shift
    work=$(mktemp -d "${TMPDIR:-/tmp}/widgetbus-bench-compare.XXXXXX")
    (
        export WIDGETBUS_SNAPSHOT_DIR="/dev/shm/$(basename "$work")"
        trap 'WIDGETBUS_LOCAL_DIR="$work/local" deploy/local/widgetbus down >/dev/null 2>&1 || true; rm -rf -- "$work" "$WIDGETBUS_SNAPSHOT_DIR"' EXIT
        for variable in $(sed -n 's/^\(WIDGETBUS_[A-Z0-9_]*\)=tcp:.*/\1/p' deploy/topology.env); do
            port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
            export "$variable=tcp://127.0.0.1:$port"
        done
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        export WIDGETBUS_GATEWAY_LISTEN="127.0.0.1:$port"
        export WIDGETBUS_LOCAL_DIR="$work/local" WIDGETBUS_BIN_DIR="$bin" WIDGETBUS_LOG_LEVEL=warning WIDGETBUS_SYNC_INTERVAL=3600
        export WIDGETBUS_HTTP_PORT_BASE=off
        if [ "$mode" = metrics ]; then export WIDGETBUS_HTTP_PORT_BASE=auto; fi
        if [ "$mode" = curve ]; then
            WIDGETCTL="$bin/widgetctl" bash scripts/curve-keys.sh "$work/keys" >/dev/null
            export WIDGETBUS_CURVE_KEYS_DIR="$work/keys/public" WIDGETBUS_CURVE_SECRETS_DIR="$work/keys/secret"
            export WIDGETBUS_CURVE_SECRET_KEY_FILE="$work/keys/secret/operator.key_secret"
        fi
        deploy/local/widgetbus up >/dev/null
        if [ "$mode" = metrics ]; then
            mapfile -t urls < <(deploy/local/widgetbus metrics | awk '{ print $2 }')
            services=$(deploy/local/widgetbus services | wc -l)
            [ ${#urls[@]} -eq "$services" ] || { echo "expected $services metrics endpoints, got: ${urls[*]}" >&2; exit 1; }
            ( while sleep 1; do for url in "${urls[@]}"; do curl -sf "$url" >/dev/null || exit 1; done; done ) &
            scraper=$!
        fi
        "$bin/widgetbus-loadtest" "$@" --json "$work/report.json" >"$work/out.txt" 2>&1 || { cat "$work/out.txt" >&2; exit 1; }
        if [ "$mode" = metrics ]; then
            kill -0 "$scraper" 2>/dev/null || { echo "a scrape failed during the run" >&2; exit 1; }
            kill "$scraper"
        fi
        python3 - "$work/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1])); step = report["steps"][0]
cpu = sum(v["millisecondsPerIntent"] for k, v in step.get("serviceCPU", {}).items() if k != "sync-agent")
rt, tl = step["roundTrip"], step["intentToTimeline"]
print(f"cpu/intent {cpu:.3f} ms | round trip p50 {rt['p50Milliseconds']:.2f} p99 {rt['p99Milliseconds']:.2f} ms"
      f" | intent→timeline p50 {tl['p50Milliseconds']:.1f} p99 {tl['p99Milliseconds']:.1f} ms"
      f" | {step['achievedRate']:.0f}/s, errors {sum(step['errors'].values())}, timeouts {step['timeouts']}, missing {step['timelines']['missing']}")
PY
    )
}

python3 -c 'import zmq' 2>/dev/null || python3 -m pip install --quiet pyzmq
python3 - <<'PY'
import time, zmq
def round_trip(curve, n=20000):
    context = zmq.Context()
    rep, req = context.socket(zmq.REP), context.socket(zmq.REQ)
    if curve:
        server_public, server_secret = zmq.curve_keypair()
        rep.curve_server, rep.curve_secretkey = True, server_secret
        req.curve_publickey, req.curve_secretkey = zmq.curve_keypair()
        req.curve_serverkey = server_public
    req.connect(f"tcp://127.0.0.1:{rep.bind_to_random_port('tcp://127.0.0.1')}")
    payload = b"x" * 300
    for i in range(n + 1000):
        if i == 1000:
            started = time.perf_counter()
        req.send(payload); rep.send(rep.recv()); req.recv()
    elapsed = time.perf_counter() - started
    context.destroy(linger=0)
    return elapsed / n * 1e6
for _ in range(3):
    print(f"raw pyzmq REQ/REP :: clear {round_trip(False):.1f} µs, CURVE {round_trip(True):.1f} µs")
PY

for round in $(seq "$rounds"); do
    for mode in "${modes[@]}"; do
        # Assigned first, so that a failed run stops the script (set -e) instead of printing nothing.
        line=$(run "$mode" --rate 2000 --duration 30 --users 1000)
        echo "$round $mode open 2000/s :: $line"
        line=$(run "$mode" --in-flight 1 --duration 15 --users 100)
        echo "$round $mode one at a time :: $line"
        line=$(run "$mode" --in-flight 64 --duration 20 --users 1000)
        echo "$round $mode saturated :: $line"
    done
done
