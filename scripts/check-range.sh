#!/usr/bin/env bash
# Builds and tests the package at the low end of every dependency range in Package.swift: each `from:` version, and
# the lower bound of each `"A"..<"B"`. CI resolves the newest versions, so this is the other end of the range. The
# last run is recorded in docs/DEPENDENCIES.md.
#
# It works in a clone of HEAD with its own scratch path, so the lowest versions are built beside, not over, the
# working tree's .build (a first build of every dependency: about 10 minutes on two cores).
# Usage: scripts/check-range.sh [SWIFT-TEST-ARGS...]   (default: the whole suite, in parallel, as CI runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${WORK:-$root/.build-range}
test_args=("$@")

rm -rf "$work/src"
mkdir -p "$work"
git clone -q --no-hardlinks "$root" "$work/src"
cd "$work/src"

# url and lower bound of every dependency, from the manifest's own text.
mapfile -t lows < <(python3 - <<'EOF'
import re
text = open("Package.swift").read()
for url, rest in re.findall(r'\.package\(url:\s*"([^"]+)",\s*([^)]*)\)', text):
    m = re.match(r'(?:from:\s*)?"([^"]+)"', rest.strip())
    if not m:
        raise SystemExit(f"check-range: cannot read the lower bound of {url}: {rest}")
    name = url.rstrip("/").split("/")[-1].removesuffix(".git").lower()
    print(f"{name} {m.group(1)}")
EOF
)

scratch=(--scratch-path "$work/build")
resolve_log=$work/resolve.log
swift package "${scratch[@]}" resolve > "$resolve_log" 2>&1 || { cat "$resolve_log" >&2; exit 1; }
for low in "${lows[@]}"; do
  read -r name version <<<"$low"
  swift package "${scratch[@]}" resolve "$name" --version "$version" >> "$resolve_log" 2>&1 \
    || { tail -20 "$resolve_log" >&2; echo "check-range: $name cannot resolve at $version" >&2; exit 1; }
done

echo "check-range: resolved"
python3 - "$work/build/workspace-state.json" <<'EOF'
import json, sys
state = json.load(open(sys.argv[1]))
for dep in sorted(state["object"]["dependencies"], key=lambda d: d["packageRef"]["identity"]):
    print(f"  {dep['packageRef']['identity']} {dep['state'].get('checkoutState', {}).get('version')}")
EOF

start=$(date +%s)
log=$work/build.log
swift build "${scratch[@]}" --build-tests > "$log" 2>&1 || { grep -E "error:" "$log" >&2 || tail -40 "$log" >&2; exit 1; }
echo "check-range: built in $(( $(date +%s) - start )) s"
swift test "${scratch[@]}" --skip-build ${test_args[@]+"${test_args[@]}"} > "$work/test.log" 2>&1 || { tail -60 "$work/test.log" >&2; exit 1; }
tail -1 "$work/test.log"
echo "check-range: built and tested at the lowest versions in $(( $(date +%s) - start )) s ($(git rev-parse --short HEAD))"
