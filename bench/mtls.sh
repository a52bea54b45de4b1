#!/usr/bin/env bash
# Mutual-TLS server figures in one run (Benchmarks/Sources/MTLSBenchmark): full handshakes per second with client verification
# on, ours with the validated-path cache and without it (cold), beside nginx with `ssl_verify_client on` and the same
# certificates; then RSS over 10,000 refused handshakes. All on 127.0.0.1.
#   bench/mtls.sh [SECONDS] [CONCURRENCY]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
concurrency=${2:-4}
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null 2>&1 || apt-get install -y -qq nginx >/dev/null
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
bash bench/build.sh MTLSBenchmark >/dev/null
bin=.build/release/MTLSBenchmark
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
cd "$work"

# P-256 everywhere. Clients: root -> issuing CA -> leaf (clientAuth); a stranger from another root for refusals.
ec() { echo -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes; }
ca_ext='basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign'
openssl req -x509 $(ec) -days 2 -subj "/CN=Bench Client Root" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign -keyout root-key.pem -out root.pem 2>/dev/null
issue() {  # name subject issuer extensions
  openssl req -new $(ec) -subj "/CN=$2" -keyout "$1-key.pem" -out "$1.csr" 2>/dev/null
  printf "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3-key.pem" -CAcreateserial -days 1 -sha256 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
leaf_ext='basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\nsubjectAltName=URI:spiffe://bench/client'
issue ica "Bench Client Issuing CA" root "$ca_ext"
issue client "bench-client" ica "$leaf_ext"
cat client.pem ica.pem > client-chain.pem
openssl req -x509 $(ec) -days 2 -subj "/CN=Stranger Root" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -keyout stranger-root-key.pem -out stranger-root.pem 2>/dev/null
issue stranger "stranger" stranger-root "$leaf_ext"
openssl req -x509 $(ec) -days 2 -subj "/CN=127.0.0.1" -addext subjectAltName=IP:127.0.0.1 -keyout server-key.pem -out server.pem 2>/dev/null

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $($nginx -v 2>&1); $(openssl version | cut -d' ' -f1-2)"
echo "client chain: P-256 leaf + issuing CA, anchored at a P-256 root; TLS 1.3; each handshake followed by one request"

wait_ready() { for _ in $(seq 1 200); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "server did not start" >&2; cat "$1" >&2; exit 1; }
load() { "$OLDPWD/$bin" handshakes --port "$1" --ca server.pem --client-cert client-chain.pem --client-key client-key.pem --seconds "$seconds" --concurrency "$concurrency"; }

echo "the verification alone (no TLS), one client chain over and over:"
"$OLDPWD/$bin" verify --client-anchors root.pem --client-cert client-chain.pem --seconds "$seconds"

port=$(( 20000 + RANDOM % 10000 ))  # below the ephemeral range, which the load's connections fill with TIME_WAIT
mkdir -p nginx/logs
cat > nginx/nginx.conf <<CONF
worker_processes $(nproc);
error_log $work/nginx/logs/error.log crit;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $work/server.pem;
    ssl_certificate_key $work/server-key.pem;
    ssl_client_certificate $work/root.pem;
    ssl_verify_client on;
    ssl_verify_depth 3;
    ssl_session_tickets off;
    location / { return 200 "verified \$ssl_client_s_dn\n"; }
  }
}
CONF
# Each server in turn, three rounds interleaved, so that load from elsewhere on the machine falls on all of them.
ours() {  # variant
  local flag="" log="serve-$1-$round.log"
  [ "$1" = cold ] && flag="--cold"
  "$OLDPWD/$bin" serve --client-anchors root.pem --server-cert server.pem --server-key server-key.pem --port 0 $flag > "$log" 2>&1 &
  pids+=($!)
  wait_ready "$log"
  echo "  ours ($1): $(load "$(awk '/^ready/ {print $2}' "$log")")"
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
}
# nginx runs throughout (idle while ours is measured): restarting it races its workers for the port.
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
for _ in $(seq 1 200); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
theirs() { echo "  nginx (ssl_verify_client on): $(load "$port")"; }
echo "full handshakes with client verification, each followed by one request (load: 2 event loops, concurrency $concurrency):"
for round in 1 2 3; do
  echo " round $round"
  ours cached; ours cold; theirs
done

echo "RSS over refused handshakes (a client from another root; in-process server and client):"
"$OLDPWD/$bin" refusals --count "${REFUSALS:-10000}" --client-anchors root.pem --server-cert server.pem --server-key server-key.pem \
  --ca server.pem --client-cert stranger.pem --client-key stranger-key.pem
