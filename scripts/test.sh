#!/usr/bin/env bash
# Runs every test of WidgetBus: unit tests of each shared module and integration tests that
# start the real executables on free loopback ports. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages
# The sync-agent tests start a real PostgreSQL server (Debian's postgresql).
ensure_packages postgresql
# `ss`, which the binding tests read the listening sockets with; `ip netns`, the hosts of the
# multi-host shard tests.
ensure_packages iproute2
# openssl: the local runner makes app-gateway's development certificate with it; curl: the
# OpenAPI check's probes of app-gateway.
ensure_packages openssl curl
# Debian's Prometheus: the observability tests scrape the services with it, and promtool checks
# the scrape configuration and every /metrics.
ensure_packages prometheus
# The deployment: docker-compose.yml against the Compose Specification (no Docker engine needed).
# PyYAML also serves DeploymentConfigurationTests, which reads the compose file through it.
# The schema and its origin are in deploy/compose-spec/; the script installs both Python packages.
bash scripts/check-compose.sh deploy/docker-compose.yml

swift build --build-tests
# Every module a target imports is declared in its Package.swift entry (the build itself turns on
# MemberImportVisibility, so each file imports what it uses).
python3 scripts/check-imports.py
# The documented Python client, run against real services (installs pyzmq if missing).
bash scripts/check-python-example.sh .build/debug
bash scripts/check-python-example.sh --curve .build/debug
# app-gateway against its contract, docs/openapi.yaml: schemathesis (installed if missing) finds
# no 5xx and no answer outside the document.
bash scripts/check-openapi.sh .build/debug
# WidgetBusClient's generated sources are what docs/openapi.yaml generates (the generator is
# built in a package of its own, Tools/openapi-generator).
bash scripts/generate-client.sh --check
# The build with the OTLP trait (spans exported by swift-otel), built beside the default one, and
# the tests of what the trait adds.
swift build --build-tests --traits OTLP --scratch-path .build-otlp
swift test --skip-build --traits OTLP --scratch-path .build-otlp --filter OTLPExportTests
# Last, so its summary is the closing line.
swift test --skip-build
