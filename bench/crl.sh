#!/usr/bin/env bash
# A CRL of a million entries (16-byte serials, P-256): our parse, index and lookups in one process, beside
# `openssl crl` reading the same file, each with its peak RSS, in one run.
#   bench/crl.sh [ENTRIES]
set -euo pipefail
cd "$(dirname "$0")/.."
entries=${1:-1000000}
bash bench/build.sh CRLBenchmark >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(openssl version)"
.build/release/CRLBenchmark generate "$work/big.crl" --entries "$entries"
.build/release/CRLBenchmark read "$work/big.crl" --lookups 100000
/usr/bin/time -f "ours (whole process): %e s wall, peak RSS %M KiB" .build/release/CRLBenchmark read "$work/big.crl" --lookups 0 >/dev/null
/usr/bin/time -f "openssl crl -noout (parse): %e s wall, peak RSS %M KiB" openssl crl -inform DER -in "$work/big.crl" -noout
/usr/bin/time -f "openssl crl -noout -text (parse, print every entry): %e s wall, peak RSS %M KiB" \
    openssl crl -inform DER -in "$work/big.crl" -noout -text >/dev/null
