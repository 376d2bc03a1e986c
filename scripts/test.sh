#!/usr/bin/env bash
# Runs every test of WidgetBus: unit tests of each shared module and integration tests that
# start the real executables on free loopback ports. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

swift build --build-tests
# The documented Python client, run against real services (installs pyzmq if missing).
bash scripts/check-python-example.sh .build/debug
# Last, so its summary is the closing line.
swift test --skip-build
