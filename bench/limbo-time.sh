#!/usr/bin/env bash
# Whole x509-limbo SERVER run: `ats verify --limbo` against pyca/cryptography, same machine, same file.
#   bench/limbo-time.sh [LIMBO.json]
set -euo pipefail
cd "$(dirname "$0")/.."
limbo=${1:-../shared/conformance/limbo.json}
swift build -c release --product ats >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for cores in all 0; do
  pin=(); [ "$cores" = all ] || pin=(taskset -c "$cores")
  start=$(date +%s.%N)
  "${pin[@]}" .build/release/ats verify --limbo "$limbo" --output /tmp/limbo-ours.json >/dev/null
  echo "ours ($([ "$cores" = all ] && echo "$(nproc) cores" || echo "1 core")): $(printf %.2f "$(echo "$(date +%s.%N) - $start" | bc)") s wall, whole run"
done
score=$(python3 "$(dirname "$limbo")/score.py" --limbo "$limbo" /tmp/limbo-ours.json || true)
echo "${score%%$'\n'*}"
# pyca hangs on one case; its harness cuts it at 10 s and reports time with and without that budget.
python3 bench/limbo_pyca.py "$limbo" 10 2>/dev/null
