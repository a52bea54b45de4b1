#!/usr/bin/env bash
# `ats audit` on a large generated .ipa (20 app extensions): in-process time per audit, then the whole CLI run.
#   bench/audit.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/build.sh ATSBenchmark >/dev/null
swift build -c release --product ats >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
.build/release/ATSBenchmark audit --seconds "${1:-3}" --keep "$work/Large.ipa"
start=$(date +%s.%N)
.build/release/ats audit "$work/Large.ipa" --format json >/dev/null || true   # exits 1: the app has findings
echo "ats audit Large.ipa --format json (whole process): $(printf %.2f "$(echo "$(date +%s.%N) - $start" | bc)") s wall"
