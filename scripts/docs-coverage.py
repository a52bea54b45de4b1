#!/usr/bin/env python3
"""DocC documentation coverage per module, from the archives scripts/build-docs.sh writes (issue #38).

docc's `--experimental-documentation-coverage` writes `documentation-coverage.json` into each archive: one entry per
page, with `kind.isSymbol` and `hasAbstract`. A module's coverage here is the share of its symbol pages (the
module page left out) that have an abstract, the measure of docc's own "Abstract" column. The archives are built
with `--enable-inherited-docs`, so a member whose documentation comes from the protocol that declares it (`!=`,
`description`) counts as documented, as it reads in the rendered page. Members synthesized from another module's
protocol extension are left out: `hash(into:)` and `hashValue` for an enum without payloads, and the standard
library's `OptionSet.insert(_:)` for integer raw values, to which docc gives no inherited abstract. They are not
declarations of this module (their page's `externalID` says `::SYNTHESIZED::`), and the public API baseline skips
them too (`--skip-synthesized-members`).

Usage: docs-coverage.py MIN ARCHIVE...   MIN is a percentage (0-100); exit 1 when any module is below it.
Prints each module's coverage and, for a module below MIN, its undocumented symbols.
"""
import json
import os
import sys

SYNTHESIZED = "::SYNTHESIZED::"


def synthesized(archive, entry):
    """Whether the entry's page is a member synthesized from a protocol extension of another module."""
    ref = entry.get("referencePath", "")
    if "/documentation/" not in ref:
        return False
    page = os.path.join(archive, "data", "documentation", ref.split("/documentation/", 1)[1].lower() + ".json")
    try:
        with open(page, encoding="utf-8") as f:
            external = json.load(f).get("metadata", {}).get("externalID", "")
    except (OSError, json.JSONDecodeError):
        return False
    return SYNTHESIZED in external and not external.startswith("s:" + module_mangling(archive))


def module_mangling(archive):
    """The mangled-name prefix of the archive's module (`14TransportTrust`)."""
    module = os.path.basename(archive.rstrip("/")).removesuffix(".doccarchive")
    return f"{len(module)}{module}"


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
               ]
    # Only pages without an abstract are opened, to see whether they were synthesized.
    symbols = [e for e in symbols if e.get("hasAbstract") or not synthesized(archive, e)]
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
    below = []
    for archive in sys.argv[2:]:
        module = os.path.basename(archive.rstrip("/")).removesuffix(".doccarchive")
        total, missing = coverage(archive)
        percent = 100.0 if total == 0 else 100.0 * (total - len(missing)) / total
        print(f"docs coverage: {module:22} {percent:6.2f}% ({total - len(missing)}/{total} symbols with an abstract)")
        if percent < minimum:
            below.append((module, missing))
    for module, missing in below:
        print(f"\n{module}: {len(missing)} undocumented:", file=sys.stderr)
        for ref in missing:
            print("  " + ref.split("/documentation/", 1)[-1], file=sys.stderr)
    if below:
        print(f"\ndocs coverage: {', '.join(m for m, _ in below)} below {minimum:g}% (DOCS_COVERAGE_MIN). "
              "Add a DocC comment to each symbol above, or make it package or internal.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
