#!/usr/bin/env bash
# The main job: builds WidgetBus, brings the whole topology up with the local runner
# (deploy/local/widgetbus: every service as a plain process on loopback, from the same
# deploy/topology.env as docker compose; SQLite as the sync target), taps through each of the five
# widgets with widgetctl, shows their timelines, a snapshot file and a sync pass, then taps each
# widget once more the way a phone does — HTTPS to app-gateway with a bearer token, with curl —
# and brings the topology down. Installs what is missing first.
#
#   scripts/demo.sh [--keep-running]     (--keep-running leaves the services up afterwards)
#
# State and logs: .widgetbus/demo (emptied at every run), or WIDGETBUS_LOCAL_DIR if set (kept).
# SWIFT_BUILD_FLAGS is passed to `swift build` (e.g. "--scratch-path .build-x" or "-c release").
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
source scripts/lib/ensure-packages.sh
ensure_build_packages
# curl: the phone's side of app-gateway; openssl: the runner makes app-gateway's development
# certificate with it.
ensure_packages curl openssl

keep_running=false
[ "${1:-}" = "--keep-running" ] && keep_running=true

# shellcheck disable=SC2086  # SWIFT_BUILD_FLAGS, e.g. "--scratch-path .build-x", is a list of flags
swift build ${SWIFT_BUILD_FLAGS:-}
# shellcheck disable=SC2086
WIDGETBUS_BIN_DIR=$(swift build ${SWIFT_BUILD_FLAGS:-} --show-bin-path)
export WIDGETBUS_BIN_DIR
runner="$repo/deploy/local/widgetbus"
if [ -z "${WIDGETBUS_LOCAL_DIR:-}" ]; then
    export WIDGETBUS_LOCAL_DIR="$repo/.widgetbus/demo"
    "$runner" down >/dev/null 2>&1 || true  # a demo left running with --keep-running
    rm -rf -- "$WIDGETBUS_LOCAL_DIR"         # the demo starts from an empty store each run
fi

"$runner" up
$keep_running || trap '"$runner" down' EXIT
eval "$("$runner" env)"  # widgetctl now talks to this topology

ctl() { "$WIDGETBUS_BIN_DIR/widgetctl" "$@"; }
# timeline-service answers once it has synced with intent-handler.
for _ in $(seq 50); do ctl timeline TensionCheckWidget --user demo >/dev/null 2>&1 && break; sleep 0.2; done

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
pretty() { python3 -m json.tool --no-ensure-ascii; }
# Prints one field of a JSON reply, by a dotted path such as body.state.phase (numbers index lists).
field() { python3 -c 'import json,sys
v = json.load(sys.stdin)
for key in sys.argv[1].split("."): v = v[int(key)] if isinstance(v, list) else v[key]
print(json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v)' "$1"; }
# Prints the first entry of the timeline on stdin, only the named fields.
entry() {  # kind field...
    python3 -c 'import json,sys
t = json.load(sys.stdin); e = t["entries"][0]
shown = ", ".join(k + " " + json.dumps(e[k], ensure_ascii=False) for k in sys.argv[2:] if k in e)
print(sys.argv[1] + ":", shown, "(%d entries, reload %s)" % (len(t["entries"]), t["policy"]["type"]))' "$@"
}
# The first entry of a widget's timeline, only the named fields, as of the reply's version
# (asked again while timeline-service answers `unavailable`: on a loaded machine it may lag more
# than the second it waits).
show() {  # reply kind field...
    local reply=$1 kind=$2 version timeline
    shift 2
    version=$(echo "$reply" | field body.version)
    for _ in 1 2 3 4 5; do
        timeline=$(ctl timeline "$kind" --user demo --minimum-version "$version") && break
    done
    echo "$timeline" | entry "$kind" "$@"
}

step "Tension Check — low tension (🙂 3): recorded, the widget stays on the picker"
ctl send RecordTensionIntent --user demo --body '{"level":3}' | field body.state.phase

step "Tension Check — high tension (😫 10): the widget suggests an intervention"
reply=$(ctl send RecordTensionIntent --user demo --body '{"level":10}')
echo "$reply" | field body.state.phase.actionLabel
check_in=$(echo "$reply" | field body.state.phase.checkInId)
sleep 0.2
ctl timeline TensionCheckWidget --user demo | pretty

step "Tension Check — done: the widget shows 'Logged' now and the picker again 5 s later"
ctl send MarkInterventionDoneIntent --user demo --body "{\"checkInId\":\"$check_in\"}" >/dev/null
sleep 0.2
ctl timeline TensionCheckWidget --user demo | pretty

step "Tension Check — another high level (😣 7), then Skip: back to the picker, not marked done"
ctl send RecordTensionIntent --user demo --body '{"level":7}' | field body.state.phase.interventionName
ctl send ResetWidgetIntent --user demo | field body.state.phase

step "Tension Check — a level of 4 is refused with a stable error code"
ctl send RecordTensionIntent --user demo --body '{"level":4}' || echo "(widgetctl exited $? on the error reply)"

step "Diet — goals and a favourite food from the app, then a quick log from the widget"
ctl send UpdateGoals --user demo --body '{"calorieTarget":2000}' >/dev/null
ctl send UpdateRecentFoods --user demo \
    --body '{"foods":[{"id":"oatmeal","name":"Oatmeal","calories":150,"protein":5,"carbs":27,"fat":3,"defaultQuantity":1,"unit":"bowl"}]}' >/dev/null
reply=$(ctl send QuickLogFoodIntent --user demo --body '{"foodId":"oatmeal"}')
show "$reply" DietProgressWidget view nutrition caloriesRemaining calorieProgress

step "TenX — a goal, today's three focuses, the first one done"
goal=$(ctl send CreateGoal --user demo --body '{"title":"Ship WidgetBus"}' | field body.state.goals.0.id)
ctl send CompleteOnboarding --user demo >/dev/null
reply=$(ctl send CreateDayEntry --user demo --body "{\"focuses\":[{\"title\":\"Write the plan\",\"goalId\":\"$goal\"},{\"title\":\"Build it\",\"goalId\":\"$goal\"},{\"title\":\"Ship it\",\"goalId\":\"$goal\"}]}")
focus=$(echo "$reply" | field body.state.dayEntries.0.focuses.0.id)
reply=$(ctl send ToggleFocus --user demo --body "{\"focusId\":\"$focus\"}")
show "$reply" TenXHomeWidget state completedCount streak

step "Stress Monitor — a measurement from the watch (stress 38, HRV 52 ms)"
reply=$(ctl send RecordStressMeasurement --user demo --body '{"stressLevel":38,"hrvMilliseconds":52}')
show "$reply" StressMonitorWidget stressLevel categoryName hrvAverage hrvTrendPercent

step "Jitter — Add Drink starts the sipping timer; the checkmark completes it and opens the app"
reply=$(ctl send StartDrinkIntent --user demo)
session=$(echo "$reply" | field body.state.session.id)
show "$reply" JitterWidget view elapsed riskLevel
reply=$(ctl send CompleteDrinkIntent --user demo --body "{\"sessionId\":\"$session\"}")
echo "openURL: $(echo "$reply" | field body.openURL)"
show "$reply" JitterWidget view focusScore crashRiskScore

if [ -x "$WIDGETBUS_BIN_DIR/snapshot-writer" ]; then
    step "snapshot-writer — the widget's snapshot file ($WIDGETBUS_SNAPSHOT_DIR/demo/TensionCheckWidget.json)"
    for _ in $(seq 50); do ctl snapshot TensionCheckWidget --user demo >/dev/null 2>&1 && break; sleep 0.1; done
    ctl snapshot TensionCheckWidget --user demo | python3 -c 'import json,sys
s = json.load(sys.stdin)
print(json.dumps({k: s[k] for k in ("schemaVersion", "kind", "user", "stateVersion", "generatedAt") if k in s}, ensure_ascii=False))'
fi

step "Records waiting for sync (check-ins, the food log, the finished drink)"
ctl pending --user demo | python3 -c 'import json,sys
for r in json.load(sys.stdin)["records"]: print(" ", r["collection"], r["record"]["id"])'

if [ -x "$WIDGETBUS_BIN_DIR/sync-agent" ]; then
    step "sync-agent — push them to the sync target (SQLite here, PostgreSQL under compose) and clear them"
    ctl sync --user demo
    echo "still pending: $(ctl pending --user demo | field records | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
fi

# The phone's side: app-gateway on https://localhost:8443 with the development certificate and
# issuer the runner made (deploy/README.md, "app-gateway"). A token for subject demo acts for bus
# user dev:demo, whatever a request says: a user of its own, beside the one widgetctl acted for.
gateway_dir="${WIDGETBUS_GATEWAY_ISSUERS%/*}"
api="https://localhost:${WIDGETBUS_GATEWAY_LISTEN##*:}"
https() { curl --silent --show-error --fail-with-body --cacert "$gateway_dir/tls.crt" "$@"; }

step "app-gateway — $api/healthz answers without a token"
https "$api/healthz"
echo

step "app-gateway — a token from the development issuer (widgetctl token mint), for subject demo"
kid=$(sed -n 's/.*"kid":"\([^"]*\)".*/\1/p' "$gateway_dir/dev-issuer.jwks.json")
token=$(ctl token mint --key "$gateway_dir/dev-issuer.private.pem" --kid "$kid" \
    --issuer https://dev.widgetbus.local --audience widgetbus-app --subject demo)
echo "${token:0:40}… (an hour)"

# POST /v1/intents as the token's user: prints the reply.
tap() {  # type body
    https -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -X POST "$api/v1/intents" -d "{\"type\":\"$1\",\"body\":$2}"
}
# GET the widget's timeline at the reply's version at least (answered once timeline-service has
# built it), and shows its first entry.
show_api() {  # reply kind field...
    local reply=$1 kind=$2 version
    shift 2
    version=$(echo "$reply" | field body.version)
    https -H "Authorization: Bearer $token" "$api/v1/widgets/$kind/timeline?minimumVersion=$version" | entry "$kind" "$@"
}

step "app-gateway — Tension Check over HTTPS: 😣 7"
reply=$(tap RecordTensionIntent '{"level":7}')
echo "user $(echo "$reply" | field body.user) (the token's), state version $(echo "$reply" | field body.version)"
show_api "$reply" TensionCheckWidget phase interventionName

step "app-gateway — Diet over HTTPS: goals and a favourite food, then the quick log"
tap UpdateGoals '{"calorieTarget":2000}' >/dev/null
tap UpdateRecentFoods \
    '{"foods":[{"id":"oatmeal","name":"Oatmeal","calories":150,"protein":5,"carbs":27,"fat":3,"defaultQuantity":1,"unit":"bowl"}]}' >/dev/null
reply=$(tap QuickLogFoodIntent '{"foodId":"oatmeal"}')
show_api "$reply" DietProgressWidget view nutrition caloriesRemaining

step "app-gateway — TenX over HTTPS: a goal"
reply=$(tap CreateGoal '{"title":"Ship the app"}')
show_api "$reply" TenXHomeWidget state completedCount

step "app-gateway — Stress Monitor over HTTPS: a measurement (stress 44, HRV 48 ms)"
reply=$(tap RecordStressMeasurement '{"stressLevel":44,"hrvMilliseconds":48}')
show_api "$reply" StressMonitorWidget stressLevel categoryName hrvAverage

step "app-gateway — Jitter over HTTPS: Add Drink"
reply=$(tap StartDrinkIntent '{}')
show_api "$reply" JitterWidget view elapsed riskLevel

step "The topology"
"$runner" status || true
if $keep_running; then
    step "Services still running; logs in $WIDGETBUS_LOCAL_DIR/logs."
    echo "Try: eval \"\$(deploy/local/widgetbus env)\"; $WIDGETBUS_BIN_DIR/widgetctl watch"
    echo "Stop: WIDGETBUS_LOCAL_DIR=$WIDGETBUS_LOCAL_DIR deploy/local/widgetbus down"
else
    step "Done; stopping the services (logs in $WIDGETBUS_LOCAL_DIR/logs)"
fi
