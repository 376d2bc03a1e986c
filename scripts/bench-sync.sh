#!/usr/bin/env bash
# Benchmark: records synced per second by sync-agent's sweep, 1,000 users × 20 pending records
# each, into a real PostgreSQL (started here on a free loopback port, default durability: fsync
# and synchronous_commit on) and into the embedded SQLite default.
#
# Records are created through one Lazy Pirate client (`widgetbus-loadtest sync-agent seed`) before
# sync-agent starts; its start-up sweep then syncs every user, and `widgetbus-loadtest sync-agent measure`
# waits until nothing is pending and computes the rate from the agent's own results (first pass
# start to last pass end). Run it on a quiet machine (load average below 1.5).
#
# Usage: scripts/bench-sync.sh [users] [records per user]     (results: .widgetbus/bench-sync/)
# Environment: SWIFT_BUILD_FLAGS (e.g. "--scratch-path .build-x"), WIDGETBUS_SYNC_CONCURRENCY.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages
ensure_packages postgresql

users="${1:-1000}"
records="${2:-20}"
# shellcheck disable=SC2086
swift build -c release ${SWIFT_BUILD_FLAGS:-}
# shellcheck disable=SC2086
bin=$(swift build -c release ${SWIFT_BUILD_FLAGS:-} --show-bin-path)
out=.widgetbus/bench-sync
rm -rf "$out" && mkdir -p "$out"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export WIDGETBUS_DATA_DIR="$out/data"
export WIDGETBUS_INTENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_STATE_SNAPSHOT="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_SYNC="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_SYNC_EVENTS="tcp://127.0.0.1:$(free_port)"
export WIDGETBUS_LOG_LEVEL=warning

source scripts/lib/bench-postgres.sh
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    stop_bench_postgres
}
trap cleanup EXIT
start_bench_postgres

wait_for() { for _ in $(seq 100); do "$bin/widgetctl" ping "$1" --timeout 200 --attempts 1 >/dev/null 2>&1 && return 0; sleep 0.2; done; return 1; }

"$bin/intent-handler" & pids+=($!)
wait_for intent-handler

echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), libzmq $(pkg-config --modversion libzmq)," \
    "$("$pgbin/postgres" --version), SQLite $(pkg-config --modversion sqlite3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sweep of $users users × $records pending records, WIDGETBUS_SYNC_CONCURRENCY=${WIDGETBUS_SYNC_CONCURRENCY:-4}"

run_target() {  # label, prefix, database URL ('' for SQLite)
    "$bin/widgetbus-loadtest" sync-agent seed --users "$users" --records "$records" --prefix "$2"
    WIDGETBUS_SYNC_DATABASE_URL="$3" "$bin/sync-agent" & local agent=$!
    pids+=("$agent")
    "$bin/widgetbus-loadtest" sync-agent measure --prefix "$2" --label "$1" --json "$out/$2.json"
    kill -TERM "$agent" && wait "$agent"
}

run_target "PostgreSQL" pg "$bench_postgres_url"
bench_psql -c "SELECT 'PostgreSQL rows: ' || count(*) || ', distinct ids: ' || count(DISTINCT id) FROM stress_check_ins"
run_target "SQLite" sqlite ""
