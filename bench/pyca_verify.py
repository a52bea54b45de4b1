"""Cold pyca/cryptography server-verifier rate, for bench/run.sh. usage: pyca_verify.py DIR HOST SECONDS [--cpu]

With --cpu, first a line with this process's CPU per evaluation over the timed loop (bench/peers.sh); the rate stays last.
Needs pyca/cryptography 42 or later (cryptography.x509.verification)."""
import datetime, sys, time
from cryptography import x509
from cryptography.x509.verification import PolicyBuilder, Store

folder, host, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
show_cpu = sys.argv[4:] == ["--cpu"]
read = lambda name: open(f"{folder}/{name}.der", "rb").read()
leaf_der, inter_der = read("leaf"), read("intermediate")
store = Store([x509.load_der_x509_certificate(read("root"))])
verifier = (PolicyBuilder().store(store).time(datetime.datetime.now(datetime.timezone.utc))
            .build_server_verifier(x509.DNSName(host)))

def once():
    # Parse each time, as a fresh handshake does; the store is built once.
    verifier.verify(x509.load_der_x509_certificate(leaf_der), [x509.load_der_x509_certificate(inter_der)])

for _ in range(20):
    once()
n, start, cpu_start = 0, time.perf_counter(), time.process_time()
while True:
    for _ in range(50):
        once()
    n += 50
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
        break
if show_cpu:
    print(f"cpu: {(time.process_time() - cpu_start) / n * 1e6:.2f} µs per evaluation")
print(round(n / elapsed))
