#!/usr/bin/env bash
# Every peer comparison in one run (issue #39), ending with one line per scenario to compare across runs:
#   RESULT <scenario> ours=<req/s> <peer>=<req/s>... ours_cpu_us=<µs> <peer>_cpu_us=<µs>...
#   bench/peers.sh [SECONDS]   (default 3, per client and scenario)
#
# h1-keepalive, new-connection (peers curl, ahc): ATSBenchmark client, one local server in a child process.
# h2-1, h2-10, h2-100 (peers h2load, ahc): ATSBenchmark h2, one nghttpd, one connection with 1/10/100 streams.
# verify-{cold,warm}-{p256,rsa} (peer pyca): TrustBenchmark --profile and bench/pyca_verify.py, on core 0.
# ahc is AsyncHTTPClient, in the same process as ours, trusting the same local root.
# FLOOR lines (not scenarios): TrustBenchmark --profile warm-floor, the leaf's parse and one signature check alone.
#
# Rates (req/s, evaluations/s) are wall clock; the machine is shared, so they move with its load. The *_cpu_us
# figures are CPU per request (per evaluation for verify-*), which that load skews far less: compare those first
# (1e6 / cpu_us is the rate per CPU second). Ours and ahc: this process's getrusage around that client's run alone;
# curl, h2load: their child process's; ours and pyca for verify-*: each process's CPU over its timed loop.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3}
host=bench.example.test

need() { command -v "$1" >/dev/null || { echo "peers.sh: $1 is not installed (Debian: apt-get install $2)" >&2; exit 1; }; }
need curl curl
need h2load nghttp2-client
need taskset util-linux
[ -x /usr/sbin/nghttpd ] || command -v nghttpd >/dev/null || { echo "peers.sh: nghttpd is not installed (Debian: apt-get install nghttp2-server)" >&2; exit 1; }
python3 -c 'import cryptography.x509.verification' 2>/dev/null \
  || { echo "peers.sh: pyca/cryptography 42 or later is needed (Debian: apt-get install python3-cryptography, or pip install cryptography)" >&2; exit 1; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for product in ATSBenchmark TrustBenchmark; do
  bash bench/build.sh "$product" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg)"
ahc=$(python3 -c 'import json, sys; print(next(p["state"]["version"] for p in json.load(open(sys.argv[1]))["pins"] if p["identity"] == "async-http-client"))' Benchmarks/Package.resolved 2>/dev/null || echo "(unresolved)")
echo "peers: $(curl --version | head -1 | cut -d' ' -f1-2,5); $(h2load --version | head -1); pyca/cryptography $(python3 -c 'import cryptography; print(cryptography.__version__)'); AsyncHTTPClient $ahc"
echo

.build/release/ATSBenchmark client --seconds "$seconds" | tee "$work/client.out"
echo
.build/release/ATSBenchmark h2 --seconds "$seconds" | tee "$work/h2.out"
echo

# Evaluations: the same chains for both (TrustBenchmark --write); warm makes its own chain of the same kind, as it
# needs the intermediate's key. pyca keeps nothing between verifications (its store is built once either way), so its
# cold and warm figures are the same loop, run again beside each of ours.
taskset -c 0 .build/release/TrustBenchmark --seconds 0.1 --write "$work/chains" >/dev/null
figure() { sed -n 's/^cpu: \([0-9.]*\) .*/\1/p' <<<"$1"; }
rate() { tail -1 <<<"$1" | awk '{ sub("/s", "", $NF); print $NF }'; }
for profile in cold warm; do
  for pair in p256:ecdsa-p256:p256 rsa2048:rsa-2048:rsa; do
    IFS=: read -r flag chain name <<<"$pair"
    ours=$(taskset -c 0 .build/release/TrustBenchmark --profile "$profile" --chain "$flag" --chains "$work/chains" --seconds "$seconds" --cpu)
    pyca=$(taskset -c 0 python3 bench/pyca_verify.py "$work/chains/$chain" "$host" "$seconds" --cpu)
    line="FIGURES verify-$profile-$name ours=$(rate "$ours") pyca=$(rate "$pyca") ours_cpu_us=$(figure "$ours") pyca_cpu_us=$(figure "$pyca")"
    echo "$line" | tee -a "$work/verify.out"
  done
done
# The least a warm evaluation built on swift-certificates can cost (the leaf's parse and its one signature check, no
# rule): what is left of 2x pyca for our own work is the difference. Not one of the issue's scenarios, so no RESULT line.
for pair in p256:p256 rsa2048:rsa; do
  IFS=: read -r flag name <<<"$pair"
  floor=$(taskset -c 0 .build/release/TrustBenchmark --profile warm-floor --chain "$flag" --chains "$work/chains" --seconds "$seconds" --cpu)
  echo "FLOOR verify-warm-$name ours_floor=$(rate "$floor") ours_floor_cpu_us=$(figure "$floor")"
done

echo
cat "$work/client.out" "$work/h2.out" "$work/verify.out" | sed -n 's/^FIGURES /RESULT /p'
