#!/usr/bin/env bash
# The test suite under the sanitizers (issue #24): ThreadSanitizer over the tests that run event loops and servers
# (client, server, diagnostics with the local test servers, and the commands that drive them: fetch, serve --mtls,
# diagnose), AddressSanitizer over the whole suite. Each in its own scratch path (a full rebuild: 20+ minutes each on
# two cores), under nice. Logs in .build-tsan/ and .build-asan/; results go in docs/RELIABILITY.md.
#
#   scripts/sanitizers.sh [thread|address]...   (default: both)
#   SANITIZER_NICE=19 scripts/sanitizers.sh thread   (niceness of the build and run; default 10)
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for sanitizer in "${@:-thread address}"; do
  for s in $sanitizer; do
    case $s in
      # In parallel, as CI runs the suite: requests run on their event loops since 2026-12-05, so a sanitizer's slowdown
      # no longer starves their deadlines (docs/RELIABILITY.md, "Deadlines under load").
      thread) scratch=.build-tsan filter=(--filter 'TransportClientTests|TransportServerTests|ATSDiagnosticsTests|ATSCommandLineTests') ;;
      address) scratch=.build-asan filter=() ;;
      *) echo "sanitizers.sh: thread or address, not $s" >&2; exit 2 ;;
    esac
    mkdir -p "$scratch"
    start=$(date +%s)
    # TSan reports do not fail a test by themselves: halt_on_error makes the first one fail the run. Leak checking is off:
    # process-lifetime singletons (the Swift runtime's, NIO's event loop group) read as leaks.
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
      nice -n ${SANITIZER_NICE:-10} swift test --scratch-path "$scratch" --sanitize="$s" ${filter[@]+"${filter[@]}"} >"$scratch/sanitizer.log" 2>&1
    rc=$?
    reports=$(grep -c '^WARNING: ThreadSanitizer\|^==[0-9]*==ERROR: AddressSanitizer' "$scratch/sanitizer.log")
    echo "$s: exit $rc, $reports reports, $(( $(date +%s) - start )) s (log: $scratch/sanitizer.log)"
    (( rc == 0 && reports == 0 )) || status=1
  done
done
exit $status
