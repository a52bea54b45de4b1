#!/usr/bin/env bash
# What Certificate Transparency costs: the four real chains with embedded SCTs, cold with CT off and on, and cached with
# CT on, one core, beside one bare ECDSA P-256 verification in the same run.
#   bench/ct.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-2}
bash bench/build.sh CTBenchmark >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
taskset -c 0 .build/release/CTBenchmark --vectors Tests/TransportTrustTests/Fixtures/AppleChains --seconds "$seconds"
