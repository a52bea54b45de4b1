#!/usr/bin/env bash
# Builds the example, serves it with certificates made here, and checks that a route sees the verified client and that
# a client without a certificate is refused. Run from anywhere; CI runs it.
#
# It builds in the package's own .build, as scripts/build-examples.sh builds the other examples: swift-nio, BoringSSL and
# the package are already built there, so only Hummingbird and its own dependencies compile (1.5 minutes on two cores,
# against 6.5 in a scratch path of its own). SwiftPM keeps one build description per scratch path, so it is removed
# before and after. SCRATCH=DIR overrides the scratch path.
set -euo pipefail
cd "$(dirname "$0")"
scratch=${SCRATCH:-$(cd ../.. && pwd)/.build}
rm -f "$scratch/debug/description.json"
swift build --scratch-path "$scratch" --product MTLSHummingbird
rm -f "$scratch/debug/description.json"
work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=Example Client CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -keyout ca-key.pem -out ca.pem 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=127.0.0.1" \
  -addext subjectAltName=IP:127.0.0.1 -keyout server-key.pem -out server.pem 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=payments-api" -keyout client-key.pem -out client.csr 2>/dev/null
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\nsubjectAltName=URI:spiffe://example.org/ns/payments/sa/api\n' > client.ext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 1 -sha256 -extfile client.ext -out client.pem 2>/dev/null
port=$(( 20000 + RANDOM % 20000 ))
"$scratch/debug/MTLSHummingbird" --cert server.pem --key server-key.pem --client-anchors ca.pem \
  --client-name 'uri:spiffe://example.org/ns/payments/*' --port "$port" > server.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
answer=$(curl -sS --cacert server.pem --cert client.pem --key client-key.pem "https://127.0.0.1:$port/whoami")
echo "$answer"
grep -q "hello spiffe://example.org/ns/payments/sa/api" <<<"$answer"
grep -q "admitted by name rule uri:spiffe://example.org/ns/payments/\*" <<<"$answer"
if curl -sS --cacert server.pem "https://127.0.0.1:$port/whoami" 2>/dev/null; then echo "a client without a certificate got in" >&2; exit 1; fi
echo "MTLSHummingbird example: the route saw the verified client; a client without a certificate was refused"
