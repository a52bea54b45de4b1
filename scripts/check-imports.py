#!/usr/bin/env python3
"""Each target declares what it imports, and imports what it declares.

Compares `swift package dump-package` with the `import` lines of every target's sources and exits 1 on any
difference: a module imported but not declared (it builds today only because another dependency drags it in, and
breaks when that one changes), or a dependency declared but never imported (it costs every user a build).

Usage: scripts/check-imports.py [--package-path DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the platform, never declared in a manifest.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl",
    "Darwin", "WinSDK", "Android", "Bionic", "Swift", "_Concurrency", "Synchronization", "Testing", "XCTest",
    "CoreFoundation", "Security", "os", "Observation", "RegexBuilder", "_StringProcessing",
}

# The one allowed import of a module no product exports. PKCS12Screen reads a bundle with swift-nio-ssl's own
# BoringSSL before swift-nio-ssl sees it, because NIOSSLPKCS12Bundle traps on some bundles (DEVELOPERS.md, gap table;
# PKCS12TrapProbeTests says when it stops trapping). CNIOBoringSSL is a target of swift-nio-ssl that its NIOSSL
# product links, so it is reachable only through that product.
ALLOWED = {
    ("TransportClient", "CNIOBoringSSL"): "NIOSSL",
}

IMPORT = re.compile(
    r"^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def target_path(package_root, target):
    if target.get("path"):
        return os.path.join(package_root, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(package_root, base, target["name"])


def imports_of(path, excluded):
    found = {}
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in excluded and not d.endswith(".docc")]
        for name in files:
            if not name.endswith(".swift"):
                continue
            file = os.path.join(root, name)
            with open(file, encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    match = IMPORT.match(line)
                    if match:
                        found.setdefault(match.group(1), f"{os.path.relpath(file)}:{number}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package-path", default=".")
    args = parser.parse_args()
    root = os.path.abspath(args.package_path)
    # ATS_FUZZ puts the fuzz targets in the graph (Package.swift), so they are checked too.
    dump = subprocess.run(["swift", "package", "--package-path", root, "dump-package"], check=True,
                          capture_output=True, text=True, env={**os.environ, "ATS_FUZZ": "1"}).stdout
    package = json.loads(dump)
    names = {t["name"] for t in package["targets"]}
    problems = []
    for target in package["targets"]:
        if target["type"] in ("plugin", "system", "binary", "macro"):
            continue
        declared = {}
        for dependency in target["dependencies"]:
            kind, value = next(iter(dependency.items()))
            # byName / target / product; a product's module has the product's name in every package we use.
            declared[value[0]] = kind
        path = target_path(root, target)
        excluded = {os.path.join(path, e) for e in target.get("exclude", [])}
        imported = imports_of(path, excluded)
        own = target["name"]
        for module, where in sorted(imported.items()):
            if module in SYSTEM or module == own:
                continue
            allowed_via = ALLOWED.get((own, module))
            if allowed_via:
                if allowed_via not in declared:
                    problems.append(f"{own}: imports {module} ({where}), allowed only through {allowed_via}, "
                                    f"which it does not declare")
                continue
            if module not in declared:
                hint = "add it to the target's dependencies in Package.swift"
                if module not in names:
                    hint += " (.product(name: \"%s\", package: ...))" % module
                problems.append(f"{own}: imports {module} ({where}) but does not declare it; {hint}")
        used_via_allowed = {via for (t, _), via in ALLOWED.items() if t == own}
        for module in sorted(declared):
            if module not in imported and module not in used_via_allowed:
                problems.append(f"{own}: declares {module} but never imports it; remove it from the target's "
                                f"dependencies in Package.swift")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"imports: {len(problems)} difference(s) between Package.swift and the import lines", file=sys.stderr)
        return 1
    print(f"imports: {len(package['targets'])} targets declare exactly what they import "
          f"(allowed: {', '.join(f'{t} imports {m} through {v}' for (t, m), v in ALLOWED.items())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
