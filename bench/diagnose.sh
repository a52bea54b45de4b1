#!/usr/bin/env bash
# `ats diagnose` of one local server beside sslyze's protocol and cipher-suite scan of the same server, in one run.
# sslyze comes from a virtualenv (SSLYZE, default /tmp/sslyze-venv/bin/sslyze: python3 -m venv /tmp/sslyze-venv &&
# /tmp/sslyze-venv/bin/pip install sslyze), so its cryptography pin does not replace the one bench/run.sh measures.
# testssl.sh comes from Debian (apt-get install testssl.sh; TESTSSL overrides the command); it takes ~20 s a scan, so
# it runs at most 3 times.
#   bench/diagnose.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
sslyze=${SSLYZE:-/tmp/sslyze-venv/bin/sslyze}
testssl=${TESTSSL:-testssl}
swift build -c release --product ats >/dev/null
bash bench/build.sh DiagnoseBenchmark >/dev/null
work=$(mktemp -d)
.build/release/ats serve --port-base 0 --directory "$work" --case good > "$work/serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null; rm -rf "$work"' EXIT
until url=$(grep -o 'https://127.0.0.1:[0-9]*/' "$work/serve.log" | head -1) && [ -n "$url" ]; do
  kill -0 $serve 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  read -t 0.2 < <(tail -f "$work/serve.log") || true   # wait for the server's output, not a fixed time
done
hostport=${url#https://}; hostport=${hostport%/}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ours=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e .build/release/ats diagnose --anchors "$work/ca.pem" "$url" 2>&1 >/dev/null | tail -1; done | median)
echo "ats diagnose $url (17 requests, whole process): median ${ours} s over $runs runs"
if [ -x "$sslyze" ]; then
  theirs=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$sslyze" --quiet "$hostport" --sslv2 --sslv3 --tlsv1 --tlsv1_1 --tlsv1_2 --tlsv1_3 2>&1 >/dev/null | tail -1; done | median)
  echo "sslyze protocols + suites: median ${theirs} s; ours is $(echo "scale=1; $theirs / $ours" | bc)x faster"
else
  echo "sslyze not found at $sslyze; see the header of this script"
fi
if command -v "$testssl" >/dev/null; then
  slow_runs=$(( runs < 3 ? runs : 3 ))
  theirs=$(for _ in $(seq "$slow_runs"); do /usr/bin/time -f %e "$testssl" --quiet --warnings off --color 0 -p -E "$hostport" 2>&1 >/dev/null | tail -1; done | median)
  echo "testssl.sh protocols + suites per protocol (-p -E): median ${theirs} s over $slow_runs runs; ours is $(echo "scale=0; $theirs / $ours" | bc)x faster"
else
  echo "testssl.sh not found ($testssl); apt-get install testssl.sh"
fi
.build/release/DiagnoseBenchmark --runs 20 --fleet 50 --concurrency 8 --scan "${SCAN:-10000}"
