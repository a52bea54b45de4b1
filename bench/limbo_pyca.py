"""Runs pyca/cryptography's server verifier over every SERVER case of an x509-limbo file and prints the
wall time, so bench/limbo-time.sh can compare whole-suite times on one machine.
usage: limbo_pyca.py LIMBO.json"""
import datetime, ipaddress, json, sys, time
from cryptography import x509
from cryptography.x509.verification import PolicyBuilder, Store

cases = [t for t in json.load(open(sys.argv[1]))["testcases"] if t["validation_kind"] == "SERVER"]
start = time.perf_counter()
passed = 0
for t in cases:
    try:
        load = lambda pem: x509.load_pem_x509_certificate(pem.encode())
        builder = PolicyBuilder().store(Store([load(p) for p in t["trusted_certs"]]))
        if t["validation_time"]:
            builder = builder.time(datetime.datetime.fromisoformat(t["validation_time"]))
        if t["max_chain_depth"] is not None:
            builder = builder.max_chain_depth(t["max_chain_depth"])
        peer = t["expected_peer_name"]
        name = x509.IPAddress(ipaddress.ip_address(peer["value"])) if peer and peer["kind"] == "IP" else x509.DNSName(peer["value"] if peer else "")
        verifier = builder.build_server_verifier(name)
        verifier.verify(load(t["peer_certificate"]), [load(p) for p in t["untrusted_intermediates"]])
        result = "SUCCESS"
    except Exception:
        result = "FAILURE"
    passed += result == t["expected_result"]
print(f"pyca/cryptography: {len(cases)} SERVER cases in {time.perf_counter() - start:.2f} s ({passed} as expected, unscored)")
