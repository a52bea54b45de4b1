#!/usr/bin/env python3
"""Cold evaluation rates of TrustBenchmark builds as ratios to pyca's verifier, from many short runs interleaved on one
core, each build's run paired with the pyca run just before it.

  bench/interleaved.py PAIRS SECONDS BINARY[@PROFILE]...   (e.g. 25 0.4 BASE NEW NEW@floor)

On a shared host the core's speed drifts over seconds, so runs of a few seconds each (bench/run.sh, cpu_rates.py) put
tens of percent between a rate and its peer's. Runs of under a second, one after another, see nearly the same machine:
here the middle half of the paired ratios spans about ±5%. Each rate is the harness's own (evaluations over the time it
timed, after its warm-up), so process start-up and chain reading are not counted on either side.
"""
import os, statistics, subprocess, sys, tempfile

pairs, seconds, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
chains = tempfile.mkdtemp()
subprocess.run(["taskset", "-c", "0", builds[0].split("@")[0], "--seconds", "0.1", "--write", chains], check=True, capture_output=True)

def rate(command):
    return float(subprocess.run(["taskset", "-c", "0"] + command, capture_output=True, text=True, check=True).stdout.split()[-1].rstrip("/s"))

for chain, flag in [("ecdsa-p256", "p256"), ("rsa-2048", "rsa2048")]:
    ratios = {build: [] for build in builds}
    for _ in range(pairs):
        pyca = rate(["python3", "bench/pyca_verify.py", f"{chains}/{chain}", "bench.example.test", seconds])
        for build in builds:
            binary, _, profile = build.partition("@")
            ours = rate([binary, "--profile", profile or "cold", "--chain", flag, "--chains", chains, "--seconds", seconds])
            ratios[build].append(ours / pyca)
    for build in builds:
        r = sorted(ratios[build])
        q = len(r) // 4
        print(f"{chain} {build}: {statistics.median(r):.2f}x pyca (middle half {r[q]:.2f}-{r[-q - 1]:.2f}, {len(r)} pairs)")
