#!/usr/bin/env bash
# deploy/stage-binaries.sh OUT_DIR — builds what the production image ships and stages it in
# OUT_DIR: the multi-call binary (every service and widgetctl in one file; the Swift runtime,
# Foundation and ICU's data linked in statically and once), without symbols, and a link to it
# under the name of each executable it runs. deploy/Dockerfile's build stage runs it; so does
# scripts/measure-image.sh's caller, so the size measured is the size shipped.
#
# SWIFT_BUILD_FLAGS is added to `swift build` (e.g. "--scratch-path .build-static").
set -euo pipefail

out="${1:?usage: deploy/stage-binaries.sh OUT_DIR}"
# Symbols are stripped at link time (no strip tool needed): they are a third of the binary. The
# price: a crash's backtrace shows addresses, to be read against an unstripped build of the same
# commit (`swift build -c release --static-swift-stdlib --product widgetbus-multicall`).
flags=(-c release --static-swift-stdlib -Xlinker --strip-all ${SWIFT_BUILD_FLAGS:-})
swift build "${flags[@]}" --product widgetbus-multicall
bin="$(swift build "${flags[@]}" --show-bin-path)"
mkdir -p "$out"
install -m 0755 "$bin/widgetbus-multicall" "$out/widgetbus-multicall"
# On a line of its own, so that a binary that cannot run stops the build here (set -e).
names="$("$out/widgetbus-multicall" --list)"
[ -n "$names" ] || { echo "stage-binaries: widgetbus-multicall --list named nothing" >&2; exit 1; }
for name in $names; do
    ln -sfn widgetbus-multicall "$out/$name"
done
ls -l "$out"
