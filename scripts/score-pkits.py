#!/usr/bin/env python3
"""Scores an `ats verify --pkits` results file, and with --baseline fails when conformance moved the wrong way.

usage: score-pkits.py RESULTS.json [--baseline conformance/pkits-baseline.json] [--write-baseline FILE]

A test passes when a valid path is trusted or an invalid one refused. A false accept is an invalid path trusted; a
false reject a valid one refused. Skipped tests (CRLs, DSA) carry their reason in the results file.
With --baseline: exits 1 if passes drop (overall or in any section), false accepts rise, or any test hangs.
After an improvement, raise the baseline in the same commit (--write-baseline writes the current figures).
"""
import argparse, json, sys
from collections import defaultdict

parser = argparse.ArgumentParser()
parser.add_argument("results")
parser.add_argument("--baseline")
parser.add_argument("--write-baseline")
args = parser.parse_args()

results = json.load(open(args.results))["results"]
total = defaultdict(int)
sections = defaultdict(lambda: defaultdict(int))
for r in results:
    section = ".".join(r["section"].split(".")[:2])
    if r["actual"] == "skipped":
        outcome = "skipped"
    elif r["actual"] == "hang":
        outcome = "hang"
    elif (r["actual"] == "trusted") == (r["expected"] == "valid"):
        outcome = "pass"
    elif r["actual"] == "trusted":
        outcome = "false_accept"
    else:
        outcome = "false_reject"
    total[outcome] += 1
    sections[section][outcome] += 1

kinds = ["pass", "false_accept", "false_reject", "skipped", "hang"]
print("pkits: " + " ".join(f"{k}={total[k]}" for k in kinds) + f" of {len(results)}")
order = sorted(sections, key=lambda s: [int(p) for p in s.split(".")])
for s in order:
    c = sections[s]
    print(f"    {s:<6} pass={c['pass']:4} FA={c['false_accept']:3} FR={c['false_reject']:3} skip={c['skipped']:3} hang={c['hang']}")
for r in results:
    if r["actual"] == "trusted" and r["expected"] == "invalid":
        print(f"FALSE ACCEPT {r['id']}")

if args.write_baseline:
    doc = {
        "comment": "NIST PKITS through `ats verify --pkits`, last reached. CI fails if passes drop (overall or per "
                   "section), false_accept rises, or any test hangs. Skipped: the three DSA tests (see the results' "
                   "context); the CRL sections run.",
        "pass": total["pass"], "false_accept": total["false_accept"], "skipped": total["skipped"], "hang": 0,
        "sections": {s: {"pass": sections[s]["pass"], "false_accept": sections[s]["false_accept"]} for s in order},
    }
    with open(args.write_baseline, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

if args.baseline:
    base = json.load(open(args.baseline))
    problems = []
    if total["pass"] < base["pass"]:
        problems.append(f"passes dropped: {total['pass']} < baseline {base['pass']}")
    if total["false_accept"] > base["false_accept"]:
        problems.append(f"false accepts rose: {total['false_accept']} > baseline {base['false_accept']}")
    if total["hang"] > base.get("hang", 0):
        problems.append(f"hangs: {total['hang']}")
    for s, b in base.get("sections", {}).items():
        if sections[s]["pass"] < b["pass"]:
            problems.append(f"section {s} passes dropped: {sections[s]['pass']} < {b['pass']}")
        if sections[s]["false_accept"] > b["false_accept"]:
            problems.append(f"section {s} false accepts rose: {sections[s]['false_accept']} > {b['false_accept']}")
    if problems:
        sys.exit("pkits conformance regressed: " + "; ".join(problems))
    print(f"pkits conformance ok: pass={total['pass']} (baseline {base['pass']}), false_accept={total['false_accept']} (baseline {base['false_accept']})")
    if total["pass"] > base["pass"] or total["false_accept"] < base["false_accept"]:
        print("pkits conformance improved: raise conformance/pkits-baseline.json to lock it in")
