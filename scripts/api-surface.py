#!/usr/bin/env python3
"""The public API of the library products, read from their symbol graphs (issue #38).

One `swift package dump-symbol-graph --minimum-access-level public` (it reuses .build, so after
`swift build --build-tests` it only extracts) gives every module's public symbols; `@_spi` symbols are left out
by that command and, to be sure, by this script (a symbol with `"spi": true` is not public API).

  --update-docs      rewrite the generated counts in docs/API.md (between the api-counts markers)
  --check-docs       exit 1 when those counts are stale
  --update-baseline  rewrite api/baseline/<Module>.txt: one line per public symbol, sorted
  --check-baseline   exit 1 on any difference from the baseline: removed or changed symbols (a break) and added
                     ones (not a break, but recorded); says how to update the baseline on purpose
  --symbol-graph-dir DIR   read graphs already dumped there instead of running swift (for tests of this script)

Standard library only.
"""
import argparse
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import time

MODULES = ["TransportTrust", "AppTransportSecurity", "AppBundles", "TransportDecision", "TransportClient",
           "TransportServer", "ATSDiagnostics", "ATSTestServers"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "API.md")
BASELINE_DIR = os.path.join(ROOT, "api", "baseline")
BEGIN = "<!-- api-counts:begin -->"
END = "<!-- api-counts:end -->"
STAMP = "<!-- api-counts:stamp -->"
SWIFT_ARGS = ["package", "dump-symbol-graph", "--minimum-access-level", "public", "--skip-synthesized-members"]
COMMAND = "swift " + " ".join(SWIFT_ARGS)

# Columns of the counts table: symbol graph kind identifiers -> column.
KIND_COLUMNS = collections.OrderedDict([
    ("Types", {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor", "swift.typealias"}),
    ("Initializers", {"swift.init"}),
    ("Functions", {"swift.func", "swift.method", "swift.type.method", "swift.func.op"}),
    ("Properties", {"swift.property", "swift.type.property", "swift.var"}),
    ("Enum cases", {"swift.enum.case"}),
    ("Subscripts", {"swift.subscript", "swift.type.subscript"}),
])
OTHER = "Other"


def dump_symbol_graphs():
    """Runs swift once; returns the folder the graphs were written to."""
    start = time.time()
    proc = subprocess.run(["swift"] + SWIFT_ARGS, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:])
        sys.exit(f"api-surface: `{COMMAND}` failed (exit {proc.returncode})")
    match = re.search(r"Files written to (\S+)", proc.stdout)
    if not match:
        sys.stderr.write(proc.stdout[-4000:])
        sys.exit("api-surface: could not find where the symbol graphs were written in swift's output")
    print(f"api-surface: symbol graphs in {time.time() - start:.0f} s", file=sys.stderr)
    return match.group(1)


def load_surface(graph_dir):
    """Module -> {precise identifier: symbol} for the public, non-SPI symbols of each library product.

    A module's graph is `M.symbols.json` plus `M@Other.symbols.json` for its extensions of other modules' types."""
    surface = {m: {} for m in MODULES}
    found = set()
    for name in sorted(os.listdir(graph_dir)):
        if not name.endswith(".symbols.json"):
            continue
        module = name[: -len(".symbols.json")].split("@")[0]
        if module not in surface:
            continue
        found.add(module)
        with open(os.path.join(graph_dir, name), encoding="utf-8") as f:
            graph = json.load(f)
        for symbol in graph.get("symbols", []):
            if symbol.get("spi"):
                continue
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            precise = symbol["identifier"]["precise"]
            surface[module][precise] = symbol
    missing = [m for m in MODULES if m not in found]
    if missing:
        sys.exit(f"api-surface: no symbol graph for {', '.join(missing)} in {graph_dir}")
    return surface


def declaration(symbol):
    text = " ".join("".join(f.get("spelling", "") for f in symbol.get("declarationFragments", [])).split())
    # A stored `var` and a computed one with a getter and a setter are the same to a caller: recorded alike, so that
    # moving a property's storage (into a shared box, say) is not reported as a break.
    if symbol["kind"]["identifier"] == "swift.property" and text.endswith(" { get set }"):
        text = text[: -len(" { get set }")]
    return text


def baseline_line(precise, symbol):
    path = ".".join(symbol.get("pathComponents", []))
    return f"{path} | {symbol['kind']['identifier']} | {declaration(symbol)} | {precise}"


def baseline_lines(symbols):
    return sorted(baseline_line(p, s) for p, s in symbols.items())


def column(kind):
    for name, kinds in KIND_COLUMNS.items():
        if kind in kinds:
            return name
    return OTHER


def counts_table(surface):
    columns = list(KIND_COLUMNS) + [OTHER]
    rows = ["| Module | " + " | ".join(columns) + " | Total |", "|---|" + "---:|" * (len(columns) + 1)]
    totals = collections.Counter()
    for module in MODULES:
        counts = collections.Counter(column(s["kind"]["identifier"]) for s in surface[module].values())
        totals.update(counts)
        cells = [str(counts[c]) for c in columns] + [str(len(surface[module]))]
        rows.append(f"| {module} | " + " | ".join(cells) + " |")
    all_symbols = sum(len(surface[m]) for m in MODULES)
    rows.append("| **All** | " + " | ".join(str(totals[c]) for c in columns) + f" | {all_symbols} |")
    return "\n".join(rows)


def generated_section(surface, stamp):
    return "\n".join([
        BEGIN,
        STAMP + " " + stamp,
        "",
        counts_table(surface),
        "",
        "Types are structs, classes, enums, protocols, actors and type aliases; members of extensions count in the",
        "module that declares the extension. `@_spi` symbols and members synthesized from protocols are not counted.",
        END,
    ])


def stamp_text():
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True).stdout.strip()
    except OSError:
        commit = ""
    # Inside wt-swift's mount namespace a worktree's git folder is hidden: then the stamp names no commit.
    source = f" from {commit}" if commit else ""
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return (f"Generated {today}{source} by `python3 scripts/api-surface.py --update-docs` "
            f"(`{COMMAND}`); do not edit by hand.")


def without_stamp(section):
    return "\n".join(line for line in section.splitlines() if not line.startswith(STAMP))


def read_docs_section(text):
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        return None
    return text[begin:end + len(END)]


def update_docs(surface):
    with open(DOCS, encoding="utf-8") as f:
        text = f.read()
    section = generated_section(surface, stamp_text())
    current = read_docs_section(text)
    if current is not None:
        if without_stamp(current) == without_stamp(section):
            print("api-surface: docs/API.md counts already current")
            return 0
        text = text.replace(current, section)
    else:
        # First run: after the introduction, before the first module's section.
        at = text.find("\n## ")
        block = "\n## Counts\n\n" + section + "\n"
        text = text + block if at < 0 else text[:at] + "\n" + block + text[at:]
    with open(DOCS, "w", encoding="utf-8") as f:
        f.write(text)
    print("api-surface: docs/API.md counts updated")
    return 0


def check_docs(surface):
    with open(DOCS, encoding="utf-8") as f:
        current = read_docs_section(f.read())
    if current is None:
        print(f"api-surface: docs/API.md has no generated counts ({BEGIN} … {END}); run "
              "`python3 scripts/api-surface.py --update-docs`", file=sys.stderr)
        return 1
    expected = generated_section(surface, "")
    if without_stamp(current) != without_stamp(expected):
        print("api-surface: the public symbol counts in docs/API.md are stale. Now:\n", file=sys.stderr)
        print(counts_table(surface), file=sys.stderr)
        print("\nRun `python3 scripts/api-surface.py --update-docs` and commit docs/API.md.", file=sys.stderr)
        return 1
    print("api-surface: docs/API.md counts are current")
    return 0


def baseline_path(module):
    return os.path.join(BASELINE_DIR, module + ".txt")


BASELINE_HEADER = ("# Public API of {module}: one line per public symbol (path | kind | declaration | precise id).\n"
                   "# Generated by `python3 scripts/api-surface.py --update-baseline`; see DEVELOPERS.md.\n")


def update_baseline(surface):
    os.makedirs(BASELINE_DIR, exist_ok=True)
    for module in MODULES:
        with open(baseline_path(module), "w", encoding="utf-8") as f:
            f.write(BASELINE_HEADER.format(module=module))
            for line in baseline_lines(surface[module]):
                f.write(line + "\n")
    print(f"api-surface: wrote {len(MODULES)} baselines in {os.path.relpath(BASELINE_DIR, ROOT)}/ "
          f"({sum(len(surface[m]) for m in MODULES)} symbols)")
    return 0


def read_baseline(module):
    """precise id -> line, or None when the module has no baseline."""
    try:
        with open(baseline_path(module), encoding="utf-8") as f:
            lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    except FileNotFoundError:
        return None
    return {l.rsplit(" | ", 1)[-1]: l for l in lines}


def check_baseline(surface):
    broken = added_any = False
    for module in MODULES:
        old = read_baseline(module)
        new = {p: baseline_line(p, s) for p, s in surface[module].items()}
        if old is None:
            print(f"{module}: no baseline ({os.path.relpath(baseline_path(module), ROOT)})")
            broken = True
            continue
        removed = sorted(old[p] for p in old if p not in new)
        changed = sorted((old[p], new[p]) for p in old if p in new and old[p] != new[p])
        added = sorted(new[p] for p in new if p not in old)
        if not (removed or changed or added):
            continue
        print(f"{module}:")
        for line in removed:
            print(f"  removed (break): {line}")
        for before, after in changed:
            print(f"  changed (break): {before}\n                -> {after}")
        for line in added:
            print(f"  added:           {line}")
        broken = broken or bool(removed or changed)
        added_any = added_any or bool(added)
    if not (broken or added_any):
        print(f"api-surface: the public API matches api/baseline/ "
              f"({sum(len(surface[m]) for m in MODULES)} symbols in {len(MODULES)} modules)")
        return 0
    what = "breaks the public API" if broken else "adds to the public API"
    print(f"\napi-surface: this {what} recorded in api/baseline/.\n"
          "If that is intended, run `python3 scripts/api-surface.py --update-baseline` (and --update-docs),\n"
          "commit api/baseline/ and docs/API.md, and add an entry to CHANGELOG.md under Unreleased\n"
          "(a removal or change is a major version's break: README, Versions). If not, restore the symbol or\n"
          "make the new one `package` or `internal`.", file=sys.stderr)
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_argument_group("actions (any combination)")
    for flag in ("update-docs", "check-docs", "update-baseline", "check-baseline"):
        group.add_argument("--" + flag, action="store_true")
    parser.add_argument("--symbol-graph-dir", help="read graphs already dumped there instead of running swift")
    args = parser.parse_args()
    if not (args.update_docs or args.check_docs or args.update_baseline or args.check_baseline):
        parser.error("give at least one of --update-docs, --check-docs, --update-baseline, --check-baseline")
    if args.update_docs and args.check_docs or args.update_baseline and args.check_baseline:
        parser.error("update and check of the same output cannot be combined")
    graph_dir = args.symbol_graph_dir or dump_symbol_graphs()
    surface = load_surface(graph_dir)
    rc = 0
    if args.update_baseline:
        rc |= update_baseline(surface)
    if args.check_baseline:
        rc |= check_baseline(surface)
    if args.update_docs:
        rc |= update_docs(surface)
    if args.check_docs:
        rc |= check_docs(surface)
    return rc


if __name__ == "__main__":
    sys.exit(main())
