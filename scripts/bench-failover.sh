#!/usr/bin/env bash
# Benchmark: how long the users of a killed intent-handler shard wait for another shard. Two
# shards, a and b, share one PostgreSQL (started here, default durability) with the default lease
# (WIDGETBUS_SHARD_LEASE_MS=3000, renewed every second). Each round waits until each holds 128
# slots, picks a user that a owns, kills a with SIGKILL, and has `widgetbus-loadtest
# failover-probe` send that user's intent to b every 10 ms until b stores it itself; the
# failover time is from the kill to that answer. Then a starts again under its name.
#
# Usage: scripts/bench-failover.sh [kills]     (results: .widgetbus/bench-failover/)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages
ensure_packages postgresql

kills="${1:-10}"
swift build -c release --product intent-handler
swift build -c release --product widgetbus-loadtest
bin=$(swift build -c release --show-bin-path)
out=.widgetbus/bench-failover
rm -rf "$out" && mkdir -p "$out"

source scripts/lib/bench-postgres.sh
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A intents pid
for shard in a b; do intents[$shard]="tcp://127.0.0.1:$(free_port)"; done
cleanup() {
    for shard in a b; do [ -n "${pid[$shard]:-}" ] && kill -9 "${pid[$shard]}" 2>/dev/null || true; done
    stop_bench_postgres
}
trap cleanup EXIT
start_bench_postgres

start_shard() {
    local events snapshot
    events="tcp://127.0.0.1:$(free_port)"
    snapshot="tcp://127.0.0.1:$(free_port)"
    WIDGETBUS_SHARD_NAME="$1" WIDGETBUS_STATE_STORE="$bench_postgres_url" WIDGETBUS_DATA_DIR="$out/$1" \
        WIDGETBUS_INTENTS="${intents[$1]}" WIDGETBUS_STATE_EVENTS="$events" WIDGETBUS_STATE_SNAPSHOT="$snapshot" \
        WIDGETBUS_TIMELINE_LONGEST_LAG_MS=0 WIDGETBUS_LOG_LEVEL=warning "$bin/intent-handler" >>"$out/$1.log" 2>&1 &
    pid[$1]=$!
    disown "${pid[$1]}"  # killed on purpose: no job report
}
slots_of() { bench_psql -c "SELECT count(*) FROM widgetbus.slot_lease WHERE owner = '$1'" 2>/dev/null || echo 0; }
wait_for_even_split() {
    for _ in $(seq 300); do
        [ "$(slots_of a)" = 128 ] && [ "$(slots_of b)" = 128 ] && return 0
        sleep 0.1
    done
    echo "the shards did not settle on 128 slots each" >&2
    return 1
}
# A user whose slot (FNV-1a of the id, modulo 256: docs/PROTOCOL.md §9) a owns.
user_of_a() {
    bench_psql -c "SELECT slot FROM widgetbus.slot_lease WHERE owner = 'a'" | python3 -c '
import sys
owned = {int(line) for line in sys.stdin if line.strip()}
def slot(user):
    h = 0x811C9DC5
    for byte in user.encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % 256
print(next(u for u in (f"failover-user-{i}" for i in range(100000)) if slot(u) in owned))'
}

start_shard a
start_shard b
wait_for_even_split
echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $("$pgbin/postgres" --version)," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "failover of shard a to shard b, lease 3000 ms renewed every 1000 ms, $kills kills"

for round in $(seq "$kills"); do
    wait_for_even_split
    user=$(user_of_a)
    kill -9 "${pid[a]}"
    killed=$(date +%s.%N)
    answered=$("$bin/widgetbus-loadtest" failover-probe --endpoint "${intents[b]}" --user "$user" | cut -d' ' -f1)
    python3 -c "print(f'round $round: {($answered - $killed) * 1000:.0f} ms')" | tee -a "$out/failover.txt"
    start_shard a
done
python3 - "$out/failover.txt" <<'PY' | tee "$out/summary.txt"
import statistics, sys
times = [int(line.split(": ")[1].split()[0]) for line in open(sys.argv[1])]
print(f"failover over {len(times)} kills: median {statistics.median(times):.0f} ms, min {min(times)} ms, max {max(times)} ms")
PY
