#!/usr/bin/env bash
# HTTPS client figures beside curl and AsyncHTTPClient against one local server, in one run (see Benchmarks/Sources/ATSBenchmark/ClientBenchmark.swift).
#   bench/client.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/build.sh ATSBenchmark >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(curl --version | head -1 | cut -d' ' -f1-2,5)"
.build/release/ATSBenchmark client --seconds "${1:-3}"
