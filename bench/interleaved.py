#!/usr/bin/env python3
"""Cold evaluation rates of TrustBenchmark builds as ratios to pyca's verifier, from many short runs interleaved on one
core, each build's run paired with the pyca run just before it.

  bench/interleaved.py PAIRS SECONDS BINARY[@PROFILE]...   (e.g. 25 0.4 BASE NEW NEW@floor)

On a shared host the core's speed drifts over seconds, so runs of a few seconds each (bench/run.sh, cpu_rates.py) put
tens of percent between a rate and its peer's. Runs of under a second, one after another, see nearly the same machine:
here the middle half of the paired ratios spans about ±5%. Each rate is the harness's own (evaluations over the time it
timed, after its warm-up), so process start-up and chain reading are not counted on either side.
"""
import statistics, subprocess, sys
from trustbench import CHAINS, ours, pyca, rate, repository, write_chains

pairs, seconds, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
repository()
chains = write_chains(builds[0])

def run(command):
    return rate(subprocess.run(command, capture_output=True, text=True, check=True).stdout)

for flag, chain in CHAINS:
    ratios = {build: [] for build in builds}
    for _ in range(pairs):
        theirs = run(pyca(chains, chain, seconds))
        for build in builds:
            ratios[build].append(run(ours(build, flag, chains, seconds)) / theirs)
    for build in builds:
        r = sorted(ratios[build])
        q = len(r) // 4
        print(f"{chain} {build}: {statistics.median(r):.2f}x pyca (middle half {r[q]:.2f}-{r[-q - 1]:.2f}, {len(r)} pairs)")
