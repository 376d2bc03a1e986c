#!/usr/bin/env bash
# Runs docs/examples/tension_check.py against freshly started services, to prove that a client
# written from docs/PROTOCOL.md alone works.
#
#   scripts/check-python-example.sh [--curve] [BIN_DIR]     (default: .build/debug)
#
# Starts intent-handler and timeline-service from BIN_DIR on free loopback ports with a temporary
# WIDGETBUS_DATA_DIR, waits until `widgetctl ping` answers for both, runs the example with the same
# environment, always stops the services, and exits with the example's status. With --curve every
# socket uses CURVE, with a fresh set of keys (scripts/curve-keys.sh); the example connects with a
# publisher's key pair.
set -euo pipefail

curve=no
if [[ "${1:-}" == "--curve" ]]; then curve=yes; shift; fi
bin_dir="${1:-.build/debug}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="$repo_root/docs/examples/tension_check.py"

for executable in intent-handler timeline-service widgetctl; do
    if [[ ! -x "$bin_dir/$executable" ]]; then
        echo "check-python-example: $bin_dir/$executable not found (build first: swift build)" >&2
        exit 2
    fi
done

if ! python3 -c 'import zmq' 2>/dev/null; then
    echo "check-python-example: installing pyzmq" >&2
    python3 -m pip install --quiet pyzmq
fi

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/widgetbus-python-example.XXXXXX")"
pids=()

cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        # Bounded wait for a clean stop, then force it.
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Five free loopback ports, chosen by the kernel.
read -r -a ports < <(python3 - <<'PY'
import socket
sockets = []
for _ in range(5):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    sockets.append(s)
print(" ".join(str(s.getsockname()[1]) for s in sockets))
for s in sockets:
    s.close()
PY
)

export WIDGETBUS_INTENTS="tcp://127.0.0.1:${ports[0]}"
export WIDGETBUS_STATE_EVENTS="tcp://127.0.0.1:${ports[1]}"
export WIDGETBUS_STATE_SNAPSHOT="tcp://127.0.0.1:${ports[2]}"
export WIDGETBUS_TIMELINES="tcp://127.0.0.1:${ports[3]}"
export WIDGETBUS_TIMELINE_EVENTS="tcp://127.0.0.1:${ports[4]}"
export WIDGETBUS_DATA_DIR="$work_dir/data"
export WIDGETBUS_LOG_LEVEL="${WIDGETBUS_LOG_LEVEL:-warning}"

# With --curve: every socket on CURVE, keys from scripts/curve-keys.sh; each service runs with its
# own secret, widgetctl (the pings) with the operator's, the example with a publisher's.
as_key() { :; }
# Plain mode is plain whatever the caller's environment says.
unset WIDGETBUS_CURVE_SECRET_KEY_FILE WIDGETBUS_CURVE_KEYS_DIR
if [[ "$curve" == yes ]]; then
    WIDGETCTL="$bin_dir/widgetctl" bash "$repo_root/scripts/curve-keys.sh" "$work_dir/keys" >/dev/null
    export WIDGETBUS_CURVE_KEYS_DIR="$work_dir/keys/public"
    export WIDGETBUS_CURVE_SECRET_KEY_FILE="$work_dir/keys/secret/operator.key_secret"
    as_key() { echo "$work_dir/keys/secret/$1.key_secret"; }
fi

WIDGETBUS_CURVE_SECRET_KEY_FILE="$(as_key intent-handler)" "$bin_dir/intent-handler" 2>"$work_dir/intent-handler.log" &
pids+=("$!")
WIDGETBUS_CURVE_SECRET_KEY_FILE="$(as_key timeline-service)" "$bin_dir/timeline-service" 2>"$work_dir/timeline-service.log" &
pids+=("$!")

for service in intent-handler timeline-service; do
    ready=no
    for _ in $(seq 1 20); do
        if "$bin_dir/widgetctl" ping "$service" --timeout 500 --attempts 1 >/dev/null 2>&1; then
            ready=yes
            break
        fi
        sleep 0.25
    done
    if [[ "$ready" != yes ]]; then
        echo "check-python-example: $service did not answer ping" >&2
        cat "$work_dir/$service.log" >&2 || true
        exit 1
    fi
done

status=0
WIDGETBUS_CURVE_SECRET_KEY_FILE="$(as_key app)" python3 "$example" || status=$?
if [[ "$status" -ne 0 ]]; then
    echo "check-python-example: tension_check.py failed with status $status; service logs:" >&2
    cat "$work_dir/intent-handler.log" "$work_dir/timeline-service.log" >&2 || true
fi
exit "$status"
