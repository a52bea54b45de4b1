#!/usr/bin/env bash
# HTTPS client figures beside curl against one local server, in one run (see Sources/ATSBenchmark/ClientBenchmark.swift).
#   bench/client.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ATSBenchmark >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(curl --version | head -1 | cut -d' ' -f1-2,5)"
.build/release/ATSBenchmark client --seconds "${1:-3}"
