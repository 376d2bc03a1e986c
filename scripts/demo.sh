#!/usr/bin/env bash
# The main job: builds WidgetBus, starts intent-handler and timeline-service on loopback with the
# embedded SQLite store, taps through a Tension Check scenario with widgetctl and shows the
# timelines. Installs what is missing first. Pass --keep-running to leave the services up.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

keep_running=false
[ "${1:-}" = "--keep-running" ] && keep_running=true

swift build
bin=$(swift build --show-bin-path)
if [ -z "${WIDGETBUS_DATA_DIR:-}" ]; then
    export WIDGETBUS_DATA_DIR=./.widgetbus/demo
    rm -rf "$WIDGETBUS_DATA_DIR"  # the demo starts from an empty store each run
fi
logs="$WIDGETBUS_DATA_DIR/logs"
mkdir -p "$logs"

"$bin/intent-handler" 2>>"$logs/intent-handler.log" &
handler=$!
"$bin/timeline-service" 2>>"$logs/timeline-service.log" &
timelines=$!
stop_services() { kill -TERM "$handler" "$timelines" 2>/dev/null || true; wait "$handler" "$timelines" 2>/dev/null || true; }
$keep_running || trap stop_services EXIT

ctl() { "$bin/widgetctl" "$@"; }
for service in intent-handler timeline-service; do
    for _ in $(seq 50); do ctl ping "$service" --timeout 200 --attempts 1 >/dev/null 2>&1 && break; sleep 0.2; done
    ctl ping "$service"
done
# timeline-service answers once it has synced with intent-handler.
for _ in $(seq 50); do ctl timeline TensionCheckWidget --user demo >/dev/null 2>&1 && break; sleep 0.2; done

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
pretty() { python3 -m json.tool --no-ensure-ascii; }
# Prints one field of a JSON reply, by a dotted path such as body.state.phase.
field() { python3 -c 'import json,sys
v = json.load(sys.stdin)
for key in sys.argv[1].split("."): v = v[key]
print(json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v)' "$1"; }

step "Low tension (🙂 3): recorded, the widget stays on the picker"
ctl send RecordTensionIntent --user demo --body '{"level":3}' | field body.state.phase

step "High tension (😫 10): the widget suggests an intervention"
reply=$(ctl send RecordTensionIntent --user demo --body '{"level":10}')
echo "$reply" | field body.state.phase.actionLabel
check_in=$(echo "$reply" | field body.state.phase.checkInId)
sleep 0.2
ctl timeline TensionCheckWidget --user demo | pretty

step "Done: the widget shows 'Logged' now and the picker again 5 s later"
ctl send MarkInterventionDoneIntent --user demo --body "{\"checkInId\":\"$check_in\"}" >/dev/null
sleep 0.2
ctl timeline TensionCheckWidget --user demo | pretty

step "Another high level (😣 7), then Skip: back to the picker, not marked done"
ctl send RecordTensionIntent --user demo --body '{"level":7}' | field body.state.phase.interventionName
ctl send ResetWidgetIntent --user demo | field body.state.phase

step "A level of 4 is refused with a stable error code"
ctl send RecordTensionIntent --user demo --body '{"level":4}' || echo "(widgetctl exited $? on the error reply)"

step "Check-ins waiting for sync"
ctl pending --user demo | pretty

if $keep_running; then
    step "Services still running (pids $handler $timelines); logs in $logs. Try: $bin/widgetctl watch"
else
    step "Done; services stopped. Logs in $logs"
fi
