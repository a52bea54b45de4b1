#!/usr/bin/env python3
"""Cold evaluations per CPU second of TrustBenchmark builds and of pyca's verifier, alternating, on one core.

bench/run.sh divides by wall time, so on a shared machine another process on the core lowers whichever harness
is running at that moment, and its ratios move by tens of percent between runs. Here each rate is evaluations
over the process's user+system time, less a short run's (setup, warm-up, interpreter start).

  bench/cpu_rates.py SECONDS BINARY...   (e.g. a build of main and one of a branch, copied out of .build/release)

A binary may be given as BINARY@PROFILE to run another of its --profile loops (default cold), e.g. @floor.
ROUNDS (default 2) sets how many times each is run. With more rounds it also prints each binary's ratio to the pyca
run beside it in the same round: the host's speed drifts over minutes, so the median of paired ratios is steadier
than a ratio of medians.
"""
import os, statistics, subprocess, sys
from trustbench import CHAINS, ours, pyca, rate, repository, write_chains

seconds, binaries = float(sys.argv[1]), sys.argv[2:]
repository()
chains = write_chains(binaries[0])

def run(cmd):
    done = subprocess.run(["/usr/bin/time", "-f", "%U %S"] + cmd, capture_output=True, text=True, check=True)
    user, system = map(float, done.stderr.strip().split("\n")[-1].split())
    return rate(done.stdout), user + system

def per_cpu_second(command):
    (long_rate, cpu), (short_rate, short_cpu) = run(command(seconds)), run(command(0.3))
    return (long_rate * seconds - short_rate * 0.3) / (cpu - short_cpu)

figures = {}
rounds = int(os.environ.get("ROUNDS", "2"))
for _ in range(rounds):
    for flag, chain in CHAINS:
        for b in binaries:
            figures.setdefault((chain, b), []).append(per_cpu_second(lambda s: ours(b, flag, chains, s)))
        figures.setdefault((chain, "pyca"), []).append(per_cpu_second(lambda s: pyca(chains, chain, s)))
for _, chain in CHAINS:
    theirs = statistics.median(figures[(chain, "pyca")])
    cells = [f"{b}: {statistics.median(figures[(chain, b)]):.0f} ({statistics.median(figures[(chain, b)]) / theirs:.2f}x pyca)" for b in binaries]
    print(f"{chain}: " + ", ".join(cells) + f"; pyca: {theirs:.0f}  (per CPU second, median of {rounds})")
    if rounds > 2:
        for b in binaries:
            paired = sorted(x / y for x, y in zip(figures[(chain, b)], figures[(chain, "pyca")]))
            print(f"  {b}: paired ratios {', '.join(f'{r:.2f}' for r in paired)}; median {statistics.median(paired):.2f}x")
