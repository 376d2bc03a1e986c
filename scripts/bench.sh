#!/usr/bin/env bash
# Micro-benchmarks of the services' hot paths (the Benchmarks/ package, on package-benchmark):
# runs them in release mode and checks them against the baseline committed under
# Benchmarks/.benchmarkBaselines/. Fails when a benchmark's malloc count (median) grows by more
# than 5 % or its wall time (fastest quarter) by more than 25 % in three runs of it in a row —
# the thresholds are in Benchmarks/Benchmarks/WidgetBusBenchmarks/SuiteConfiguration.swift.
# Installs what is missing first.
# Usage: scripts/bench.sh             check against the baseline
#        scripts/bench.sh --update    record a new baseline, to commit with the change it reflects
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-packages.sh
ensure_build_packages

baseline=reference
case "${1:-}" in
    "") update=false ;;
    --update) update=true ;;
    *) echo "usage: scripts/bench.sh [--update]" >&2; exit 64 ;;
esac

cd Benchmarks
echo "machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if $update; then
    exec swift package --allow-writing-to-package-directory benchmark baseline update "$baseline" --no-progress
fi

# A regression counts only when it repeats: a burst of other work on a shared machine (a build,
# a test run) can slow a benchmark for the second it runs, not in three runs of it. `swift
# package` exits 1 alike for a regression, for improvements only and for a failure to run; the
# verdict line of the benchmark tool tells them apart.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
filters=()
for run in 1 2 3; do
    status=0
    swift package benchmark baseline check "$baseline" --no-progress "${filters[@]}" 2>&1 | tee "$log" || status=$?
    if grep -aq "is WITHIN the '$baseline' baseline thresholds" "$log"; then
        exit 0
    elif grep -aq "is BETTER than the '$baseline' baseline thresholds" "$log"; then
        echo "Better than the baseline beyond its thresholds, nothing worse: record it with scripts/bench.sh --update." >&2
        exit 0
    elif ! grep -aq "is WORSE than the '$baseline' baseline thresholds" "$log"; then
        echo "The benchmarks did not reach a verdict (exit status $status); see the output above." >&2
        exit 1
    fi
    mapfile -t regressed < <(grep -a '^Threshold deviations for ' "$log" | sed 's/^Threshold deviations for [^:]*://')
    echo "Run $run of 3 regressed: $(printf '[%s] ' "${regressed[@]}")" >&2
    filters=()
    for name in "${regressed[@]}"; do
        filters+=(--filter "$(printf '%s' "$name" | sed 's/[][(){}.*+?^$|\\]/\\&/g')")
    done
done
echo "Regression: the benchmarks above exceeded the thresholds of the baseline '$baseline' in three runs in a row." >&2
exit 1
