#!/usr/bin/env bash
# Builds the DocC catalog of every library product with swift-docc-plugin, warnings
# as errors (a broken symbol link, a missing article or an undocumented parameter fails it), after checking that
# every listing in the articles is the example code it names (scripts/check-doc-snippets.py).
# Usage: scripts/build-docs.sh [TARGET...]   (default: every library product).
# Archives: .build/docs/TARGET.doccarchive.
# Then documentation coverage per module (scripts/docs-coverage.py): it fails when a module has fewer symbols with
# an abstract than DOCS_COVERAGE_MIN percent (default 100; DOCS_COVERAGE_MIN=0 only prints the numbers).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
coverage_min=${DOCS_COVERAGE_MIN:-100}
if (( ${#targets[@]} == 0 )); then
  targets=(TransportTrust AppTransportSecurity AppBundles TransportDecision TransportClient TransportServer ATSDiagnostics ATSTestServers)
fi

python3 scripts/check-doc-snippets.py

start=$(date +%s)
out=.build/docs
log=.build/docs.log
mkdir -p "$out"
args=()
for target in "${targets[@]}"; do args+=(--target "$target"); done
# One invocation: the symbol graphs of all targets come from one build.
if (( ${#targets[@]} == 1 )); then out=$out/${targets[0]}.doccarchive; fi
if ! swift package --allow-writing-to-directory .build/docs generate-documentation "${args[@]}" \
    --output-path "$out" --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level brief --enable-inherited-docs > "$log" 2>&1; then
  grep -E "^(error|warning)" "$log" >&2 || tail -40 "$log" >&2
  echo "docs: failed (log: $log)" >&2
  exit 1
fi
grep -E "^Finished building documentation" "$log" || true
echo "docs: ${#targets[@]} catalogs built in $(( $(date +%s) - start )) s, no warnings"
archives=()
for target in "${targets[@]}"; do archives+=(".build/docs/$target.doccarchive"); done
python3 scripts/docs-coverage.py "$coverage_min" "${archives[@]}"
