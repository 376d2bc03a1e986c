#!/usr/bin/env bash
# scripts/curve-keys.sh [--owner UID] DIR — a full set of CURVE keys for one WidgetBus topology,
# laid out as the services read them (docs/SECURITY.md):
#
#   DIR/public/services/<service>.key    every service's public key (what its clients expect)
#   DIR/public/publishers/app.key        allow-lists, one folder per client role: an app or
#   DIR/public/gateways/gateway.key        widgetctl sending intents, a wearable gateway, and
#   DIR/public/operators/operator.key      whoever operates the deployment
#   DIR/secret/<name>.key_secret         each one's secret key (mode 0600)
#
# Point every executable at DIR/public with WIDGETBUS_CURVE_KEYS_DIR and at its own secret with
# WIDGETBUS_CURVE_SECRET_KEY_FILE (the local runner does it per service given
# WIDGETBUS_CURVE_SECRETS_DIR=DIR/secret; compose mounts them). More clients: widgetctl keygen
# --out DIR/secret --name NAME, then move NAME.key into the role's folder and send SIGHUP.
#
# --owner UID makes the secret files belong to UID (root needed): the image runs as uid 10001, and
# compose hands a service its secret file with the file's own owner and mode. Then only UID (and
# root) can read them: run a host-side widgetctl with the operator's key under sudo. (sudo drops
# WIDGETCTL from the environment: pass it as `sudo WIDGETCTL=… scripts/curve-keys.sh …`.)
# WIDGETCTL is the widgetctl to run (default: the debug build's).
set -euo pipefail

usage() { echo "usage: curve-keys.sh [--owner UID] DIR" >&2; exit 2; }
owner=""
if [ "${1:-}" = "--owner" ]; then
    [ $# -ge 3 ] || usage
    owner="$2"
    shift 2
fi
[ $# -eq 1 ] || usage
dir="$1"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
widgetctl="${WIDGETCTL:-$repo_root/.build/debug/widgetctl}"
[ -x "$widgetctl" ] || { echo "curve-keys: $widgetctl not found (swift build, or set WIDGETCTL)" >&2; exit 2; }

# Folders without write for group or others, whatever the caller's umask: a key dropped into an
# allow-list folder is let in, and the services refuse a folder others could write to. Public
# keys stay readable by all (the image's user reads them); secrets are the owner's alone.
umask 022
mkdir -p "$dir/secret"
chmod 0700 "$dir/secret"
make_key() {  # name role
    local name=$1 role=$2
    "$widgetctl" keygen --out "$dir/secret" --name "$name" >/dev/null
    mkdir -p "$dir/public/$role"
    mv "$dir/secret/$name.key" "$dir/public/$role/$name.key"
    if [ -n "$owner" ]; then chown "$owner" "$dir/secret/$name.key_secret"; fi
}
for service in intent-handler timeline-service snapshot-writer sync-agent metrics-ingest push-gateway app-gateway; do
    make_key "$service" services
done
make_key app publishers
make_key gateway gateways
make_key operator operators
if [ -n "$owner" ]; then chown "$owner" "$dir/secret"; fi
echo "curve-keys: keys in $dir (public: $dir/public, secrets: $dir/secret)"
