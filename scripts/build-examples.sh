#!/usr/bin/env bash
# Builds and runs the example packages the DocC articles show, offline, and prints how long each took. Each example
# exits non-zero when an outcome differs from what its article says.
#
# They build in this package's own .build: the package and its dependencies are already built there with the same
# flags, so each example compiles only its own sources (a scratch path of their own would build swift-nio, BoringSSL
# and the package again, 10+ minutes on two cores). SwiftPM keeps one build description per scratch path and does not
# notice that the root package changed, so it is removed before each example and after the last one.
# Usage: scripts/build-examples.sh [EXAMPLE...]   (default: all of them). SCRATCH=DIR overrides the scratch path.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=${SCRATCH:-$root/.build}
examples=("$@")
if (( ${#examples[@]} == 0 )); then
  examples=(VerifyChain AppleVerdict PinMigration DecideConnection PinnedRequest ATSRequest MutualTLS Diagnose DependentApp)
fi

total=$(date +%s)
for example in "${examples[@]}"; do
  log=$scratch/examples-$example.log
  mkdir -p "$scratch"
  start=$(date +%s)
  rm -f "$scratch/debug/description.json"
  if ! swift build --package-path "Examples/$example" --scratch-path "$scratch" --product "$example" > "$log" 2>&1; then
    cat "$log" >&2
    echo "examples: $example does not build (log: $log)" >&2
    exit 1
  fi
  built=$(date +%s)
  if ! "$scratch/debug/$example" >> "$log" 2>&1; then
    cat "$log" >&2
    echo "examples: $example did not run as its article says (log: $log)" >&2
    exit 1
  fi
  echo "examples: $example built in $(( built - start )) s, ran in $(( $(date +%s) - built )) s"
done
rm -f "$scratch/debug/description.json"
echo "examples: ${#examples[@]} built and run in $(( $(date +%s) - total )) s"
