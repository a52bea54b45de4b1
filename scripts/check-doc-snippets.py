#!/usr/bin/env python3
"""Checks that every code listing in the DocC articles is the example code it names, so the snippets cannot rot.

In an article, a listing is tied to its source by a comment on the line before the fence (in README.md, an HTML
comment: `<!-- snippet: PATH#NAME -->`):

    @Comment { snippet: Examples/VerifyChain/Sources/VerifyChain/main.swift#verify }
    ```swift
    ...
    ```

`#NAME` is the region between `// snippet.start NAME` and `// snippet.end` in that file (dedented); without it, the
whole file. The examples are built and run by .ci/run, so a listing that matches its source compiles and runs.
Fails when a listing differs from its source, names a missing file or region, or a region no article shows.
With --write, rewrites the listings from their sources instead of failing on a difference.

Usage: scripts/check-doc-snippets.py [--write]
"""
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
TAG = re.compile(r"^(?:@Comment \{|<!--) snippet: (?P<path>[^#\s]+)(?:#(?P<name>[\w-]+))? (?:\}|-->)\s*$")
START = re.compile(r"^\s*// snippet\.start (?P<name>[\w-]+)\s*$")
END = re.compile(r"^\s*// snippet\.end\s*$")


def regions(path):
    """The named regions of one example file, dedented, without their marker lines."""
    found, name, lines = {}, None, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if m := START.match(line):
            if name:
                raise SystemExit(f"{path}:{number}: region '{m['name']}' starts inside '{name}'")
            name, lines = m["name"], []
        elif END.match(line):
            if not name:
                raise SystemExit(f"{path}:{number}: snippet.end without a start")
            found[name] = textwrap.dedent("\n".join(lines)).strip("\n")
            name = None
        elif name:
            lines.append(line)
    if name:
        raise SystemExit(f"{path}: region '{name}' has no snippet.end")
    return found


def main():
    write = "--write" in sys.argv[1:]
    problems, shown = [], set()
    all_regions = {}
    for source in sorted((ROOT / "Examples").rglob("*.swift")):
        if ".build" in source.parts:
            continue
        for name in regions(source):
            all_regions[(source.relative_to(ROOT).as_posix(), name)] = source
    articles = sorted(ROOT.glob("Sources/*/*.docc/**/*.md")) + [ROOT / "README.md"]
    for article in articles:
        lines = article.read_text().splitlines()
        changed = False
        i = 0
        while i < len(lines):
            m = TAG.match(lines[i])
            if not m:
                i += 1
                continue
            where = f"{article.relative_to(ROOT)}:{i + 1}"
            source = ROOT / m["path"]
            if not source.is_file():
                problems.append(f"{where}: no file {m['path']}")
                i += 1
                continue
            if m["name"]:
                found = regions(source)
                if m["name"] not in found:
                    problems.append(f"{where}: {m['path']} has no region '{m['name']}'")
                    i += 1
                    continue
                expected = found[m["name"]]
                shown.add((m["path"], m["name"]))
            else:
                expected = source.read_text().strip("\n")
            fence = i + 1
            if fence >= len(lines) or not lines[fence].startswith("```"):
                problems.append(f"{where}: the snippet comment must be followed by a fenced listing")
                i += 1
                continue
            close = next((j for j in range(fence + 1, len(lines)) if lines[j].startswith("```")), None)
            if close is None:
                problems.append(f"{where}: the listing is never closed")
                break
            listing = "\n".join(lines[fence + 1:close])
            if listing != expected:
                if write:
                    lines[fence + 1:close] = expected.splitlines()
                    changed = True
                    close = fence + 1 + len(expected.splitlines())
                else:
                    problems.append(f"{where}: the listing differs from {m['path']}{'#' + m['name'] if m['name'] else ''}"
                                    " (scripts/check-doc-snippets.py --write copies the source in)")
            i = close + 1
        if changed:
            article.write_text("\n".join(lines) + "\n")
    for (path, name) in sorted(set(all_regions) - shown):
        problems.append(f"{path}: region '{name}' is shown by no article")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"doc snippets: {len(shown)} regions in {len(articles)} articles match their examples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
