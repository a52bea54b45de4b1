#!/usr/bin/env python3
"""DocC documentation coverage per module, from the archives scripts/build-docs.sh writes (issue #38).

docc's `--experimental-documentation-coverage` writes `documentation-coverage.json` into each archive: one entry per
page, with `kind.isSymbol` and `hasAbstract`. A module's coverage here is the share of its symbol pages (the
module page left out) that have an abstract, the measure of docc's own "Abstract" column. The archives are built
with `--enable-inherited-docs`, so a member whose documentation comes from the protocol that declares it (`!=`,
`description`) counts as documented, as it reads in the rendered page. `hash(into:)` and `hashValue` are left
out: the compiler synthesizes them for an enum without payloads, and docc gives them no inherited abstract.

Usage: docs-coverage.py MIN ARCHIVE...   MIN is a percentage (0-100); exit 1 when any module is below it.
Prints each module's coverage and, for a module below MIN, its undocumented symbols.
With DOCS_COVERAGE_BASELINE=FILE (JSON, module → percentage), a module also fails below its own recorded share, so
coverage only moves up until it reaches MIN; `DOCS_COVERAGE_BASELINE_UPDATE=1` rewrites FILE with today's shares.
"""
import json
import math
import os
import sys

SYNTHESIZED = ("/hash(into:)", "/hashValue")


def coverage(archive):
    path = os.path.join(archive, "documentation-coverage.json")
    try:
        with open(path, encoding="utf-8") as f:
            entries = json.load(f)
    except FileNotFoundError:
        sys.exit(f"docs-coverage: {path} is missing: was the archive built with --experimental-documentation-coverage?")
    except json.JSONDecodeError as error:
        sys.exit(f"docs-coverage: {path} is not JSON ({error})")
    # The module page, and the pages DocC makes for other modules' types and modules this one extends ("Extended
    # Module", "Extended Class", …), are not declarations of this module: what it adds to them is counted.
    symbols = [e for e in entries if e.get("kind", {}).get("isSymbol")
               and e.get("kind", {}).get("name") != "Module" and not e.get("kind", {}).get("name", "").startswith("Extended ")
               and not e.get("referencePath", "").endswith(SYNTHESIZED)]
    missing = sorted(e.get("referencePath", e.get("title", "?")) for e in symbols if not e.get("hasAbstract"))
    return len(symbols), missing


def main():
    if len(sys.argv) < 3:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    try:
        minimum = float(sys.argv[1])
    except ValueError:
        print(f"docs-coverage: the minimum must be a percentage, not '{sys.argv[1]}'", file=sys.stderr)
        return 2
    baseline_path = os.environ.get("DOCS_COVERAGE_BASELINE")
    baseline = {}
    if baseline_path and os.path.exists(baseline_path):
        with open(baseline_path, encoding="utf-8") as f:
            baseline = json.load(f)
    measured = {}
    below = []
    for archive in sys.argv[2:]:
        module = os.path.basename(archive.rstrip("/")).removesuffix(".doccarchive")
        total, missing = coverage(archive)
        percent = 100.0 if total == 0 else 100.0 * (total - len(missing)) / total
        print(f"docs coverage: {module:22} {percent:6.2f}% ({total - len(missing)}/{total} symbols with an abstract)")
        measured[module] = math.floor(percent * 100) / 100  # rounded down, so today's share passes against itself
        floor = min(minimum, baseline.get(module, minimum))
        if percent < floor:
            below.append((module, missing))
    for module, missing in below:
        print(f"\n{module}: {len(missing)} undocumented:", file=sys.stderr)
        for ref in missing:
            print("  " + ref.split("/documentation/", 1)[-1], file=sys.stderr)
    if baseline_path and os.environ.get("DOCS_COVERAGE_BASELINE_UPDATE") == "1":
        with open(baseline_path, "w", encoding="utf-8") as f:
            json.dump(dict(sorted(measured.items())), f, indent=2)
            f.write("\n")
        print(f"docs coverage: wrote {baseline_path}")
    if below:
        print(f"\ndocs coverage: {', '.join(m for m, _ in below)} below {minimum:g}% (DOCS_COVERAGE_MIN) or below "
              f"the share recorded in {baseline_path or 'no baseline'}. "
              "Add a DocC comment to each symbol above, or make it package or internal.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
