#!/usr/bin/env bash
# Benchmark: app-gateway (HTTPS in front of the bus) between a real intent-handler, timeline-service
# and metrics-ingest, started here from a release build on free loopback ports with a data
# directory of their own. `widgetbus-loadtest app-gateway` starts each app-gateway itself (TLS
# with a test CA's localhost certificate, an issuer made for the run, limits that never refuse the
# load) and measures, in one run:
#
#   1. intents at a fixed offered rate (open loop, 1,000/s for 10 s per round): the round trip
#      p50/p99 of HTTPS POST /v1/intents from a client on one NIO event loop (HTTP/1.1 keep-alive,
#      about as cheap as the DEALER) and from async-http-client on HTTP/1.1 and on HTTP/2,
#      against the same intents sent straight to intent-handler from a DEALER at the same rate;
#   2. conditional GETs of a timeline answered 304 from the gateway's copy: requests/s and the
#      gateway's CPU per request (/proc/<pid>/stat), against /healthz on the same gateway with the
#      same client; from async-http-client (HTTP/2 over TLS; HTTP/1.1 on plain HTTP) and from wrk
#      (HTTP/1.1, over TLS and plain);
#   3. 10,000 open event streams, one per user: the gateway's VmRSS once all are open and the
#      delay from a tap (on the bus) to its event on the stream, over a TLS connection per stream,
#      HTTP/2 with 100 streams per connection, and plain HTTP/1.1 on loopback.
#
# Rounds: 3 (medians reported). Results: .widgetbus/bench/gateway-<UTC time>.json.
# Usage: scripts/bench-gateway.sh [widgetbus-loadtest app-gateway options, e.g. --phases streams --streams 2000]
# SCRATCH_PATH=<dir> builds into that scratch path instead of .build; GATEWAY_BENCH_STORE=disk keeps
# the services' stores on disk instead of tmpfs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages
ensure_packages wrk curl

build=(swift build -c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
for product in intent-handler timeline-service metrics-ingest app-gateway widgetctl widgetbus-loadtest; do
    "${build[@]}" --product "$product"
done
bin=$("${build[@]}" --show-bin-path)
out=.widgetbus/bench
mkdir -p "$out"
# The services' stores go on tmpfs (/dev/shm), for every phase, unless GATEWAY_BENCH_STORE=disk or
# /dev/shm has less than 1 GiB free (intent-handler's log alone grows to about 270 MB). The
# gateway writes nothing to disk, and intent-handler's log stalls on this machine's disk for tens
# of milliseconds at moments unrelated to the path being measured, more often as a run goes on:
# they, not the gateway, then decide which path's p99 is worse (docs/BENCHMARKS.md;
# bench-loadtest.sh measures the pipeline on disk).
store=${GATEWAY_BENCH_STORE:-memory}
case "$store" in
    memory | disk) ;;
    *) echo "GATEWAY_BENCH_STORE is memory or disk, not $store" >&2; exit 64 ;;
esac
if [ "$store" = memory ] && [ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -1 | tr -d ' ')" -lt 1048576 ] 2>/dev/null; then
    echo "/dev/shm has less than 1 GiB free: the stores go on disk" >&2
    store=disk
fi
if [ "$store" = memory ]; then work=$(mktemp -d /dev/shm/widgetbus-bench-gateway.XXXXXX); else work=$(mktemp -d /tmp/widgetbus-bench-gateway.XXXXXX); fi
pids=()
pid_options=()
stop_services() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf -- "$work"
}
trap stop_services EXIT

# 10,000 streams are 10,000 sockets in the gateway and as many in the load generator. Where the
# hard limit is lower than 65,536 (containers), the soft limit goes up to it.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export WIDGETBUS_DATA_DIR="$work/data"
export WIDGETBUS_SNAPSHOT_DIR="$work/snapshots"
for variable in WIDGETBUS_INTENTS WIDGETBUS_STATE_EVENTS WIDGETBUS_STATE_SNAPSHOT WIDGETBUS_TIMELINES WIDGETBUS_TIMELINE_EVENTS \
    WIDGETBUS_METRICS WIDGETBUS_METRICS_EVENTS WIDGETBUS_METRICS_SNAPSHOT WIDGETBUS_SYNC WIDGETBUS_SYNC_EVENTS; do
    export "$variable=tcp://127.0.0.1:$(free_port)"
done
export WIDGETBUS_LOG_LEVEL=warning

for service in intent-handler metrics-ingest timeline-service; do
    "$bin/$service" >"$work/$service.log" 2>&1 &
    pids+=($!)
    pid_options+=(--pid "$service=$!")
    for _ in $(seq 75); do "$bin/widgetctl" ping "$service" --timeout 200 --attempts 1 >/dev/null 2>&1 && break; sleep 0.2; done
    "$bin/widgetctl" ping "$service" --timeout 500 --attempts 1 >/dev/null || { echo "$service did not start:" >&2; cat "$work/$service.log" >&2; exit 1; }
done

# A quieter machine, if one comes: up to GATEWAY_BENCH_WAIT seconds (default 300) for a 1-minute
# load average below GATEWAY_BENCH_MAX_LOAD (default 1.5); then it measures anyway, and the load
# average printed with the results says how busy the machine was.
waited=0
until awk -v max="${GATEWAY_BENCH_MAX_LOAD:-1.5}" '{ exit !($1 < max) }' /proc/loadavg || [ "$waited" -ge "${GATEWAY_BENCH_WAIT:-300}" ]; do
    sleep 10
    waited=$((waited + 10))
done
[ "$waited" -gt 0 ] && echo "waited ${waited} s for a quieter machine"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), libzmq $(pkg-config --modversion libzmq), open files $(ulimit -n), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "services: intent-handler, timeline-service, metrics-ingest (release, pids ${pids[*]}), data in $work ($store)"
set -x
"$bin/widgetbus-loadtest" app-gateway --json "$out/gateway-$stamp.json" "${pid_options[@]}" "$@"
