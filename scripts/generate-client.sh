#!/usr/bin/env bash
# Makes WidgetBusClient's generated sources (Clients/WidgetBusClient/Generated/) again from
# docs/openapi.yaml with swift-openapi-generator, built in a package of its own
# (Tools/openapi-generator) so that neither the main package nor its every build depends on it.
# The output is committed: building the generator in every build would cost minutes.
#
# Usage: scripts/generate-client.sh           write the generated sources
#        scripts/generate-client.sh --check   fail when the committed sources differ from what
#                                             the document generates (scripts/test.sh runs this)
# SCRATCH_PATH=<dir> builds the generator into that scratch path.
set -euo pipefail
cd "$(dirname "$0")/.."
build=(swift build --package-path Tools/openapi-generator ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
"${build[@]}" --product swift-openapi-generator >&2
generator="$("${build[@]}" --show-bin-path)/swift-openapi-generator"

generated=Clients/WidgetBusClient/Generated
generate() {
    "$generator" generate docs/openapi.yaml \
        --config Clients/WidgetBusClient/openapi-generator-config.yaml --output-directory "$1" >&2
}

if [[ "${1:-}" == "--check" ]]; then
    fresh=$(mktemp -d)
    trap 'rm -rf -- "$fresh"' EXIT
    generate "$fresh"
    if ! diff -ru "$generated" "$fresh"; then
        echo "generate-client: $generated differs from what docs/openapi.yaml generates; run scripts/generate-client.sh and commit" >&2
        exit 1
    fi
    echo "generate-client: $generated is what docs/openapi.yaml generates"
else
    generate "$generated"
fi
