"""Runs pyca/cryptography's server verifier over every SERVER case of an x509-limbo file and prints the
time it spent, so bench/limbo-time.sh can compare whole-suite times on one machine.

pyca hangs on one case of this file (its published score counts 1 hang), and a hang inside its Rust code
cannot be interrupted from Python. So the cases run in a worker process that reports each case as it ends;
a case that takes longer than the budget is recorded as a hang, the worker is killed and restarted after
it. The time printed is the sum of the cases' own times, hang budgets excluded, which favours pyca.
It then times a whole run as `ats verify --limbo` is timed: one process, from its start (interpreter, import,
reading the file) to its end, over every case except those that hung.
usage: limbo_pyca.py LIMBO.json [HANG-SECONDS]"""
import datetime, ipaddress, json, os, select, subprocess, sys, time

HANG = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0


def worker(path, first, skip=()):
    from cryptography import x509
    from cryptography.x509.verification import PolicyBuilder, Store
    cases = [t for t in json.load(open(path))["testcases"] if t["validation_kind"] == "SERVER"]
    load = lambda pem: x509.load_pem_x509_certificate(pem.encode())
    for i in range(first, len(cases)):
        if i in skip:
            continue
        t = cases[i]
        start = time.perf_counter()
        try:
            builder = PolicyBuilder().store(Store([load(p) for p in t["trusted_certs"]]))
            if t["validation_time"]:
                builder = builder.time(datetime.datetime.fromisoformat(t["validation_time"]))
            if t["max_chain_depth"] is not None:
                builder = builder.max_chain_depth(t["max_chain_depth"])
            peer = t["expected_peer_name"]
            name = x509.IPAddress(ipaddress.ip_address(peer["value"])) if peer and peer["kind"] == "IP" else x509.DNSName(peer["value"] if peer else "")
            builder.build_server_verifier(name).verify(load(t["peer_certificate"]), [load(p) for p in t["untrusted_intermediates"]])
            result = "SUCCESS"
        except Exception:
            result = "FAILURE"
        print(i, time.perf_counter() - start, int(result == t["expected_result"]), flush=True)


if len(sys.argv) > 3 and sys.argv[3] == "--worker":
    worker(sys.argv[1], int(sys.argv[4]), {int(i) for i in sys.argv[5].split(",") if i} if len(sys.argv) > 5 else ())
    sys.exit(0)

total = sum(1 for t in json.load(open(sys.argv[1]))["testcases"] if t["validation_kind"] == "SERVER")
spent, expected, hangs, nxt = 0.0, 0, [], 0
wall = time.perf_counter()
while nxt < total:
    proc = subprocess.Popen([sys.executable, __file__, sys.argv[1], str(HANG), "--worker", str(nxt)], stdout=subprocess.PIPE, text=True)
    # The first case also waits for the worker to load the file.
    deadline = HANG + 30
    while nxt < total:
        ready, _, _ = select.select([proc.stdout], [], [], deadline)
        line = proc.stdout.readline() if ready else ""
        if not line:
            proc.kill(); proc.wait()
            hangs.append(nxt); nxt += 1
            break
        i, seconds, ok = line.split()
        spent += float(seconds); expected += int(ok); nxt = int(i) + 1
        deadline = HANG
    else:
        proc.wait()
print(f"pyca/cryptography: {total} SERVER cases, {spent:.2f} s in verification ({len(hangs)} hang(s) cut at {HANG:.0f} s, "
      f"{time.perf_counter() - wall:.0f} s wall with worker restarts; {expected} as expected, unscored)")
whole = time.perf_counter()
subprocess.run([sys.executable, __file__, sys.argv[1], str(HANG), "--worker", "0", ",".join(map(str, hangs))],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(f"pyca/cryptography: {time.perf_counter() - whole:.2f} s wall, whole run in one process without the {len(hangs)} case(s) that hung")
