#!/usr/bin/env python3
"""Fails when x509-limbo conformance moved the wrong way: fewer passes, more false accepts, or any hang.

usage: check-conformance.py BASELINE.json SCORE.txt   (SCORE.txt is score.py's output)
After an improvement, raise the numbers in BASELINE.json in the same commit.
"""
import json, re, sys

baseline = json.load(open(sys.argv[1]))
first = open(sys.argv[2]).readline()
fields = dict((k, int(v)) for k, v in re.findall(r"(\w+)=\s*(\d+)", first))
if "pass" not in fields:
    sys.exit(f"cannot read score.py output: {first!r}")
problems = []
if fields["pass"] < baseline["pass"]:
    problems.append(f"passes dropped: {fields['pass']} < baseline {baseline['pass']}")
if fields["false_accept"] > baseline["false_accept"]:
    problems.append(f"false accepts rose: {fields['false_accept']} > baseline {baseline['false_accept']}")
if fields["hang"] > baseline.get("hang", 0):
    problems.append(f"hangs: {fields['hang']}")
if problems:
    sys.exit("conformance regressed: " + "; ".join(problems))
print(f"conformance ok: pass={fields['pass']} (baseline {baseline['pass']}), "
      f"false_accept={fields['false_accept']} (baseline {baseline['false_accept']}), hang={fields['hang']}")
if fields["pass"] > baseline["pass"] or fields["false_accept"] < baseline["false_accept"]:
    print("conformance improved: raise conformance/baseline.json to lock it in")
