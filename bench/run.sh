#!/usr/bin/env bash
# Cold chain-evaluation rates of swift-transport-security, OpenSSL's X509_verify_cert and pyca/cryptography's
# verifier, on the same chains, one core, in one run. Prints our rate as a ratio to each peer.
#   bench/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
host=bench.example.test

bash bench/build.sh TrustBenchmark >/dev/null
cc -O2 -o "$work/openssl_verify" bench/openssl_verify.c -lcrypto

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "openssl: $(openssl version); pyca/cryptography $(python3 -c 'import cryptography; print(cryptography.__version__)')"
echo
ours_json=$(taskset -c 0 .build/release/TrustBenchmark --seconds "$seconds" --write "$work/chains" --json)
echo "$ours_json" > "$work/ours.json"

printf '%-12s %14s %14s %14s %14s %12s %12s %10s %14s %14s\n' chain ours-cold ours-cached openssl pyca vs-openssl vs-pyca cached/cold pinned-cold pinned-cached
for chain in ecdsa-p256 rsa-2048; do
  ossl=$(taskset -c 0 "$work/openssl_verify" "$work/chains/$chain" "$host" "$seconds")
  pyca=$(taskset -c 0 python3 bench/pyca_verify.py "$work/chains/$chain" "$host" "$seconds")
  python3 - "$work/ours.json" "$chain" "$ossl" "$pyca" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); chain = sys.argv[2]; ossl = float(sys.argv[3]); pyca = float(sys.argv[4])
f = next(x for x in doc["figures"] if x["chain"] == chain)
print(f"{chain:<12} {f['coldPerSecond']:>12.0f}/s {f['cachedPerSecond']:>12.0f}/s {ossl:>12.0f}/s {pyca:>12.0f}/s "
      f"{f['coldPerSecond']/ossl:>11.2f}x {f['coldPerSecond']/pyca:>11.2f}x {f['cachedOverCold']:>9.1f}x "
      f"{f['pinnedColdPerSecond']:>12.0f}/s {f['pinnedCachedPerSecond']:>12.0f}/s")
PY
done
python3 - "$work/ours.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
print(f"\nLRU: {m['chainsEvaluated']} distinct chains into a cache of {m['cacheCapacity']}: {m['cacheEntries']} kept; "
      f"RSS {m['rssKiBStart']} KiB -> {m['rssKiBAtCapacity']} KiB at capacity -> {m['rssKiBEnd']} KiB at 4x capacity")
PY
