#!/usr/bin/env bash
# Whole x509-limbo SERVER run: `ats verify --limbo` against pyca/cryptography, same machine, same file.
set -euo pipefail
cd "$(dirname "$0")/.."
limbo=${1:-../shared/conformance/limbo.json}
swift build -c release --product ats >/dev/null
start=$(date +%s.%N)
.build/release/ats verify --limbo "$limbo" --output /tmp/limbo-ours.json
echo "ours: $(echo "$(date +%s.%N) - $start" | bc) s wall"
python3 bench/limbo_pyca.py "$limbo"
