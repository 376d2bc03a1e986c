#!/usr/bin/env bash
# Fuzzes app-gateway against its contract, docs/openapi.yaml, with schemathesis: no answer may be a
# 5xx (but the documented 503 of a timeline whose minimumVersion has not arrived), and every answer
# (status, content type, headers, body) must be one the document allows.
#
#   scripts/check-openapi.sh [BIN_DIR]     (default: .build/debug)
#
# Starts intent-handler, timeline-service, metrics-ingest and snapshot-writer from BIN_DIR on free
# loopback ports with a temporary WIDGETBUS_DATA_DIR and WIDGETBUS_SNAPSHOT_DIR, makes a development
# issuer with `widgetctl token issuer` and trusts it in an issuers file, mints a token for subject
# `schemathesis`, starts app-gateway on plain HTTP on loopback with rate limits too high to be
# reached, waits for /healthz and a timeline, sends one intent (so the caller has a snapshot file),
# checks that GET /v1/events starts a stream (`retry: 1000`) and that a body over the limit is
# `413 payload_too_large` (schemathesis never sends one), and runs schemathesis with that token:
# its checks not_a_server_error and the four *_conformance ones. GET /v1/events never ends by itself,
# so schemathesis reads it for 2 s per case. Always stops the services; prints their logs on failure;
# exits with schemathesis's status (1 if it passed and one of the two curl checks failed).
#
# SCHEMATHESIS_MAX_EXAMPLES (default 40) bounds the test cases per operation and phase.
set -euo pipefail

bin_dir="${1:-.build/debug}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spec="$repo_root/docs/openapi.yaml"
bin_dir="$(cd "$bin_dir" 2>/dev/null && pwd || echo "$bin_dir")"
max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-40}"
services=(intent-handler timeline-service metrics-ingest snapshot-writer)

for executable in "${services[@]}" app-gateway widgetctl; do
    if [[ ! -x "$bin_dir/$executable" ]]; then
        echo "check-openapi: $bin_dir/$executable not found (build first: swift build)" >&2
        exit 2
    fi
done
for tool in curl python3; do
    if ! command -v "$tool" >/dev/null; then
        echo "check-openapi: $tool not found" >&2
        exit 2
    fi
done

if command -v schemathesis >/dev/null; then
    schemathesis=(schemathesis)
elif command -v st >/dev/null && st --version 2>/dev/null | grep -qi schemathesis; then
    schemathesis=(st)
else
    echo "check-openapi: installing schemathesis" >&2
    python3 -m pip install --quiet schemathesis
    schemathesis=(python3 -m schemathesis.cli)
    command -v schemathesis >/dev/null && schemathesis=(schemathesis)
fi

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/widgetbus-openapi.XXXXXX")"
pids=()
names=()

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

print_logs() {
    local name
    for name in "${names[@]}"; do
        echo "----- $name -----" >&2
        cat "$work_dir/$name.log" >&2 || true
    done
}

# Nine free loopback ports, chosen by the kernel: the eight bus endpoints the five services use,
# and the gateway's HTTP port.
read -r -a ports < <(python3 - <<'PY'
import socket
sockets = []
for _ in range(9):
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
export WIDGETBUS_METRICS="tcp://127.0.0.1:${ports[5]}"
export WIDGETBUS_METRICS_EVENTS="tcp://127.0.0.1:${ports[6]}"
export WIDGETBUS_METRICS_SNAPSHOT="tcp://127.0.0.1:${ports[7]}"
http_port="${ports[8]}"
base_url="http://127.0.0.1:$http_port"
export WIDGETBUS_DATA_DIR="$work_dir/data"
export WIDGETBUS_SNAPSHOT_DIR="$work_dir/snapshots"
export WIDGETBUS_LOG_LEVEL="${WIDGETBUS_LOG_LEVEL:-warning}"
# Plain bus, plain HTTP on loopback, whatever the caller's environment says.
unset WIDGETBUS_CURVE_SECRET_KEY_FILE WIDGETBUS_CURVE_KEYS_DIR WIDGETBUS_HTTP_LISTEN \
    WIDGETBUS_GATEWAY_TLS_CERT WIDGETBUS_GATEWAY_TLS_KEY

for service in "${services[@]}"; do
    "$bin_dir/$service" 2>"$work_dir/$service.log" &
    pids+=("$!")
    names+=("$service")
done

for service in intent-handler timeline-service metrics-ingest; do
    ready=no
    for _ in $(seq 1 40); do
        if "$bin_dir/widgetctl" ping "$service" --timeout 500 --attempts 1 >/dev/null 2>&1; then
            ready=yes
            break
        fi
        sleep 0.25
    done
    if [[ "$ready" != yes ]]; then
        echo "check-openapi: $service did not answer ping" >&2
        print_logs
        exit 1
    fi
done

# A development issuer (docs/API.md, "Tokens for development") and the issuers file that trusts it.
issuer_json="$("$bin_dir/widgetctl" token issuer --out "$work_dir/keys" --name dev)"
read -r kid private_key jwks_file < <(python3 -c '
import json, sys
issuer = json.loads(sys.argv[1])
print(issuer["kid"], issuer["privateKeyFile"], issuer["jwksFile"])' "$issuer_json")
python3 - "$work_dir/issuers.json" "$jwks_file" <<'PY'
import json, sys
with open(sys.argv[1], "w") as file:
    json.dump({"issuers": [{
        "issuer": "https://dev.widgetbus.test", "alias": "dev", "audiences": ["widgetbus-app"],
        "algorithms": ["ES256"], "jwksFile": sys.argv[2],
    }]}, file)
PY
token="$("$bin_dir/widgetctl" token mint --key "$private_key" --kid "$kid" --issuer https://dev.widgetbus.test \
    --audience widgetbus-app --subject schemathesis --ttl 3600)"

WIDGETBUS_GATEWAY_LISTEN="127.0.0.1:$http_port" \
    WIDGETBUS_GATEWAY_ISSUERS="$work_dir/issuers.json" \
    WIDGETBUS_GATEWAY_WRITE_BURST=100000 WIDGETBUS_GATEWAY_WRITE_RATE=100000 \
    WIDGETBUS_GATEWAY_ADDRESS_BURST=1000000 WIDGETBUS_GATEWAY_ADDRESS_RATE=1000000 \
    "$bin_dir/app-gateway" 2>"$work_dir/app-gateway.log" &
pids+=("$!")
names+=("app-gateway")

ready=no
for _ in $(seq 1 80); do
    if curl -sf "$base_url/healthz" >/dev/null 2>&1; then
        ready=yes
        break
    fi
    sleep 0.25
done
if [[ "$ready" != yes ]]; then
    echo "check-openapi: app-gateway did not answer $base_url/healthz" >&2
    print_logs
    exit 1
fi

# timeline-service answers `unavailable` until it has synced with intent-handler and metrics-ingest:
# wait for a timeline, so the fuzzing meets the API as it serves, not as it starts.
for _ in $(seq 1 40); do
    code="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
        "$base_url/v1/widgets/StressMonitorWidget/timeline" || true)"
    [[ "$code" == 200 ]] && break
    sleep 0.25
done

# A state for the caller, so snapshot-writer writes a snapshot file and GET .../snapshot has one
# to answer (TensionCheckWidget) besides its 404s.
curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"type": "RecordTensionIntent", "body": {"level": 3}}' "$base_url/v1/intents" || {
    echo "check-openapi: POST /v1/intents failed" >&2
    print_logs
    exit 1
}
for _ in $(seq 1 40); do
    [[ -f "$WIDGETBUS_SNAPSHOT_DIR/dev:schemathesis/TensionCheckWidget.json" ]] && break
    sleep 0.25
done

# The event stream: 200 text/event-stream, starting with `retry: 1000`. curl leaves after 2 s (exit
# 28), as the stream never ends by itself.
events_status=0
curl -sN --max-time 2 -D "$work_dir/events.headers" -o "$work_dir/events.body" \
    -H "Authorization: Bearer $token" "$base_url/v1/events" || true
if ! head -n 1 "$work_dir/events.headers" | grep -q ' 200' \
    || ! grep -qi '^content-type: text/event-stream' "$work_dir/events.headers" \
    || [[ "$(head -n 1 "$work_dir/events.body")" != "retry: 1000" ]]; then
    echo "check-openapi: GET /v1/events did not start an event stream:" >&2
    cat "$work_dir/events.headers" "$work_dir/events.body" >&2 || true
    events_status=1
fi

# `503 unavailable` is a documented answer of every operation that asks the bus (a service that did
# not answer within the deadline: on a loaded machine intent-handler may not), and of a timeline
# waiting for a `minimumVersion` no write has reached; every other 5xx is a failure. The event
# stream is read for 2 s (or 2 events) and needs few cases, as each takes that long.
cat >"$work_dir/schemathesis.toml" <<'TOML'
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "503"]

[[operations]]
include-path = "/v1/events"
request-timeout = 2
max-stream-events = 2
generation.max-examples = 3
TOML

# What fuzzing never reaches: a body over the limit (60 KiB) is `413 payload_too_large`, a problem.
probe_status=0
python3 -c 'import json; print(json.dumps({"type": "SetTimeZone", "body": {"timeZone": "x" * 70000}}))' >"$work_dir/large.json"
large="$(curl -s -o /dev/null -w '%{http_code} %{content_type}' -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' --data-binary @"$work_dir/large.json" "$base_url/v1/intents" || true)"
if [[ "$large" != "413 application/problem+json" ]]; then
    echo "check-openapi: POST /v1/intents with a 70 kB body answered '$large', not '413 application/problem+json'" >&2
    probe_status=1
fi

status=0
(
    cd "$work_dir"
    "${schemathesis[@]}" --config-file "$work_dir/schemathesis.toml" run "$spec" \
        --url "$base_url" \
        --header "Authorization: Bearer $token" \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
        --phases examples,coverage,fuzzing \
        --max-examples "$max_examples" \
        --request-timeout 10 \
        --generation-database none \
        --no-color
) || status=$?

if [[ "$status" -eq 0 && ( "$events_status" -ne 0 || "$probe_status" -ne 0 ) ]]; then status=1; fi
if [[ "$status" -ne 0 ]]; then
    echo "check-openapi: failed with status $status; service logs:" >&2
    print_logs
fi
exit "$status"
