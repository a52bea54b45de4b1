#!/usr/bin/env python3
"""Where a cold evaluation's time goes, from perf samples: the floor (swift-certificates' parse of the presented
certificates and the signature checks, which any evaluation built on it must do; TrustBenchmark --profile floor times
exactly that) against the engine's own work (rules, extension parsing, path finding, the verdict), by step.

  bench/profile_shares.py BINARY [p256|rsa2048] [SECONDS]

Shares of one profile do not move with the machine's load the way rates do, so two builds can be compared by their
engine/floor ratio on a machine too busy to time them: a lower ratio is a faster evaluation, at the same floor.
"""
import collections, subprocess, sys
from trustbench import ours, write_chains

binary = sys.argv[1]
chain = sys.argv[2] if len(sys.argv) > 2 else "rsa2048"
seconds = sys.argv[3] if len(sys.argv) > 3 else "8"
chains = write_chains(binary)
data = f"{chains}/perf.data"
subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", data, "--"] + ours(binary, chain, chains, seconds),
               check=True, capture_output=True)
script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True, check=True).stdout
text = subprocess.run(["swift", "demangle", "--simplified"], input=script, capture_output=True, text=True, check=True).stdout

stacks, current = [], []
for line in text.splitlines():
    line = line.strip()
    if not line:
        if current: stacks.append(current)
        current = []
    else:
        current.append(line.split(" ", 1)[1] if " " in line else line)
if current: stacks.append(current)

# Hand-written assembly (BoringSSL's bignum and P-256 code, SHA-256) keeps no frame pointers: its samples have no caller.
ASM = ("bn_", "CCryptoBoringSSL_", "sha256_block", "mulx4x", "__ecp_nistz256", "ecp_nistz256", "__bn", "beeu_", "sqrx8x")
ALLOCATOR = ("malloc", "_int_free", "_int_malloc", "cfree", "malloc_consolidate", "unlink_chunk")

def step(stack):
    joined = "\n".join(stack)
    if "isValidSignature" in joined or (stack[0].startswith(ASM) and len(stack) < 4):
        return "floor", "signature checks"
    if "requireStrictEncoding" in joined:
        return "engine", "strict DER checks on each certificate (InputCertificate)"
    if "InputCertificate.init(der:)" in joined:
        return "floor", "swift-certificates' parse"
    if "ExtensionMemo" in joined:
        return "engine", "extensions parsed for the rules (ParsedExtensions)"
    if "ruleFailures" in joined:
        rule = next((f for f in stack if "Rule.check" in f), "a rule").replace("specialized ", "").split("(")[0]
        return "engine", "rule " + rule.replace("protocol witness for ChainRule.check", "(witness)")
    for frame in ("evaluateCold", "TrustEngine.evaluate("):
        if frame in joined:
            i = next(i for i, f in enumerate(stack) if frame in f)
            callee = stack[i - 1].replace("specialized ", "").split("(")[0] if i > 0 else "itself"
            return "engine", "engine: " + callee
    if "mustTrust" in joined:
        return "engine", "the verdict, handed back and freed"
    if stack[0].startswith(ALLOCATOR):
        return "allocator (no caller recorded)", ""
    return "other", stack[0][:60]

parts, steps = collections.Counter(), collections.Counter()
for s in stacks:
    part, detail = step(s)
    parts[part] += 1
    steps[(part, detail)] += 1
total = len(stacks)
print(f"{binary} --profile cold --chain {chain}: {total} samples")
for part, n in parts.most_common():
    print(f"{100 * n / total:6.2f}%  {part}")
print(f"engine / floor: {parts['engine'] / parts['floor']:.3f}")
print()
for (part, detail), n in steps.most_common(25):
    if detail: print(f"{100 * n / total:6.2f}%  {part}: {detail}")
