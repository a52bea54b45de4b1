#!/usr/bin/env python3
"""Mutation run over x509-limbo: changes bytes of the chains the file expects to pass and checks that no changed
certificate is ever trusted, and that the verifier neither crashes nor hangs.

Each case takes one SUCCESS case and changes one certificate of it (the leaf, or one untrusted intermediate): bit
flips, special bytes, truncation, deleted, repeated or inserted runs. A changed leaf must never be trusted. A
changed intermediate may be, when the chain has another path without it: each such case is run again with that
intermediate removed, and must still be trusted. Exit status: 0 clean, 1 a changed certificate was trusted or a
result is missing, 2 usage.

    scripts/limbo-mutate.py ATS LIMBO.json [--seed N] [--cases N] [--work DIR]
"""
import argparse, base64, json, os, random, subprocess, sys, tempfile


def der(pem):
    return bytearray(base64.b64decode("".join(l for l in pem.strip().splitlines() if not l.startswith("-----"))))


def pem(data):
    text = base64.b64encode(bytes(data)).decode()
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(text[i:i + 64] for i in range(0, len(text), 64)) + "\n-----END CERTIFICATE-----\n"


def mutate(rng, data):
    b = bytearray(data)
    kind = rng.random()
    if kind < 0.4:
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind < 0.55:
        b[rng.randrange(len(b))] = rng.choice([0x00, 0x01, 0x04, 0x7F, 0x80, 0x81, 0x82, 0xFF])
    elif kind < 0.7:
        b = b[:rng.randrange(1, len(b))]
    elif kind < 0.8:
        i = rng.randrange(len(b))
        b = b[:i] + b[min(len(b), i + rng.randint(1, 40)):]
    elif kind < 0.9:
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 60))
        b = b[:j] + b[i:j] + b[j:]
    else:
        i = rng.randrange(len(b))
        b = b[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + b[i:]
    return b


def run(ats, suite, path, out):
    with open(path, "w") as f:
        json.dump(suite, f)
    try:
        done = subprocess.run([ats, "verify", "--limbo", path, "--output", out], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        sys.exit(f"limbo-mutate: {path} did not finish in 600 s: a hang")
    if done.returncode != 0:
        sys.exit(f"limbo-mutate: ats exited {done.returncode} on {path}:\n{done.stderr[-2000:]}")
    with open(out) as f:
        return {r["id"]: r for r in json.load(f)["results"]}


def main():
    parser = argparse.ArgumentParser(usage=__doc__.splitlines()[-1].strip())
    parser.add_argument("ats")
    parser.add_argument("limbo")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    if args.cases < 1:
        parser.error("--cases must be at least 1")

    with open(args.limbo) as f:
        suite = json.load(f)
    passing = [t for t in suite["testcases"]
               if t["validation_kind"] == "SERVER" and t["expected_result"] == "SUCCESS" and not t["crls"]]
    rng = random.Random(args.seed)
    cases, changed = [], {}
    while len(cases) < args.cases:
        case = dict(rng.choice(passing))
        original = case["id"]
        case["id"] = f"mutated::{len(cases)}::{original}"
        case["expected_result"] = "FAILURE"
        if rng.random() < 0.7 or not case["untrusted_intermediates"]:
            before = der(case["peer_certificate"])
            after = mutate(rng, before)
            if after == before:
                continue
            case["peer_certificate"] = pem(after)
            changed[case["id"]] = None
        else:
            intermediates = list(case["untrusted_intermediates"])
            i = rng.randrange(len(intermediates))
            before = der(intermediates[i])
            after = mutate(rng, before)
            if after == before:
                continue
            intermediates[i] = pem(after)
            case["untrusted_intermediates"] = intermediates
            changed[case["id"]] = i
        cases.append(case)

    work = args.work or tempfile.mkdtemp(prefix="limbo-mutate-")
    os.makedirs(work, exist_ok=True)
    results = run(args.ats, dict(suite, testcases=cases), os.path.join(work, "mutated.json"), os.path.join(work, "mutated-results.json"))
    missing = [c["id"] for c in cases if c["id"] not in results]
    trusted = [c for c in cases if results.get(c["id"], {}).get("actual_result") == "SUCCESS"]
    leaves = [c["id"] for c in trusted if changed[c["id"]] is None]

    # A changed intermediate the verifier trusted must be one it could do without.
    without = []
    for c in trusted:
        i = changed[c["id"]]
        if i is None:
            continue
        copy = dict(c, untrusted_intermediates=[p for j, p in enumerate(c["untrusted_intermediates"]) if j != i],
                    expected_result="SUCCESS")
        without.append(copy)
    needed = []
    if without:
        again = run(args.ats, dict(suite, testcases=without), os.path.join(work, "without.json"), os.path.join(work, "without-results.json"))
        needed = [c["id"] for c in without if again.get(c["id"], {}).get("actual_result") != "SUCCESS"]

    print(f"limbo-mutate: seed {args.seed}, {len(cases)} changed chains: {len(trusted)} trusted, all of them through "
          f"an unchanged path" if not (leaves or needed or missing) else f"limbo-mutate: seed {args.seed}, {len(cases)} changed chains")
    for name, ids in [("a changed leaf was trusted", leaves), ("trusted only through a changed intermediate", needed),
                      ("no result", missing)]:
        for case_id in ids[:20]:
            print(f"  {name}: {case_id} ({results.get(case_id, {}).get('context', '')[:160]})")
    print(f"  cases and results in {work}")
    sys.exit(1 if leaves or needed or missing else 0)


if __name__ == "__main__":
    main()
