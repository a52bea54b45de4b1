"""What the scripts that compare TrustBenchmark builds with pyca share: the chains both sides verify, and the command
lines that run each side on core 0. Not run on its own."""
import os, subprocess, tempfile

# TrustBenchmark's --chain flag, and the folder --write gives that chain.
CHAINS = [("p256", "ecdsa-p256"), ("rsa2048", "rsa-2048")]
HOST = "bench.example.test"


def repository():
    """Runs from the repository's root, where bench/pyca_verify.py is."""
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def write_chains(build):
    """A folder with the chains TrustBenchmark generates, written once, so that every build and pyca verify the very
    same certificates."""
    chains = tempfile.mkdtemp()
    subprocess.run(["taskset", "-c", "0", split(build)[0], "--seconds", "0.1", "--write", chains], check=True, capture_output=True)
    return chains


def split(build):
    """BINARY@PROFILE as (BINARY, PROFILE); the profile is cold unless named."""
    binary, _, profile = build.partition("@")
    return binary, profile or "cold"


def ours(build, flag, chains, seconds):
    binary, profile = split(build)
    return ["taskset", "-c", "0", binary, "--profile", profile, "--chain", flag, "--chains", chains, "--seconds", str(seconds)]


def pyca(chains, chain, seconds):
    return ["taskset", "-c", "0", "python3", "bench/pyca_verify.py", f"{chains}/{chain}", HOST, str(seconds)]


def rate(stdout):
    """The rate a harness prints last ("12345/s" or "12345")."""
    return float(stdout.split()[-1].rstrip("/s"))
