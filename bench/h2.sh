#!/usr/bin/env bash
# HTTP/2 figures beside h2load and AsyncHTTPClient against one local nghttpd, in one run (see Benchmarks/Sources/ATSBenchmark/HTTP2Benchmark.swift).
#   bench/h2.sh [SECONDS]
# Needs nghttpd and h2load (Debian: apt-get install nghttp2-server nghttp2-client).
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/build.sh ATSBenchmark >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(h2load --version | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
.build/release/ATSBenchmark h2 --seconds "${1:-3}"
