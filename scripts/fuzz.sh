#!/usr/bin/env bash
# Coverage-guided fuzzing of the library's parsers with libFuzzer (Fuzz/README.md).
#
#   scripts/fuzz.sh TARGET SECONDS        fuzz one target
#   scripts/fuzz.sh --all SECONDS [T...]  fuzz each target (or those named) in turn, then print a table
#   scripts/fuzz.sh --list                the targets
#
# Builds `ats-fuzz` with -sanitize=fuzzer,address in .build-fuzz (under nice: the machine is shared). New inputs go to
# .build-fuzz/corpus/TARGET; the seeds (Fuzz/Corpus) and regressions (Fuzz/Regressions) are read, never written. A crash,
# a hang (over 10 s) or a leak is minimised and saved as Fuzz/Regressions/TARGET/crash-SHA1: commit it with its fix, and a
# unit test that reproduces it. Results append to .build-fuzz/results.tsv. Leak detection is off unless FUZZ_LEAKS=1:
# swift-nio-ssl leaks a stack per PKCS#12 it loads, which would end every identity-pkcs12 run (docs/RELIABILITY.md).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ ${FUZZ_LEAKS:-0} == 1 ]] || export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# Swift's own crash backtracer reads the stack in ways ASan reports, and can hang the minimiser: libFuzzer's is enough.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
scratch=.build-fuzz
bin=$scratch/debug/ats-fuzz

targets() { grep -ho 'name: "[a-z0-9-]*"' Fuzz/Targets/*.swift | cut -d'"' -f2; }
dictionary() {
  case $1 in
    chain|certificate|ocsp|crl|identity-*) echo Fuzz/Dictionaries/der.dict ;;
    ats-config|binary-plist) echo Fuzz/Dictionaries/plist.dict ;;
    pins-*) echo Fuzz/Dictionaries/pins.dict ;;
    http-response|auth-challenge|url) echo Fuzz/Dictionaries/http.dict ;;
    server-hello|sct-list) echo Fuzz/Dictionaries/tls.dict ;;
    ct-log-list) echo Fuzz/Dictionaries/json.dict ;;
  esac
}

build() {
  ATS_FUZZ=1 nice -n 10 swift build --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address --product ats-fuzz >&2
}

# One campaign: prints "target seconds executions coverage features corpus crashes".
run() {
  local target=$1 seconds=$2 work=$scratch/corpus/$1 crashes=$scratch/crashes/$1 log=$scratch/logs/$1.log
  mkdir -p "$work" "$crashes" "$scratch/logs" "Fuzz/Regressions/$target"
  local dict; dict=$(dictionary "$target")
  ATS_FUZZ_TARGET=$target nice -n 10 "$bin" "$work" "Fuzz/Corpus/$target" "Fuzz/Regressions/$target" \
    ${dict:+-dict=$dict} -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -detect_leaks="${FUZZ_LEAKS:-0}" \
    -artifact_prefix="$crashes/" >"$log" 2>&1 || true
  local found=0
  for crash in "$crashes"/crash-* "$crashes"/timeout-* "$crashes"/leak-* "$crashes"/oom-*; do
    [[ -e $crash ]] || continue
    local name; name=$(basename "$crash")
    # Only what reproduces counts (an exit-time leak report, say, names an input that is not at fault).
    if ATS_FUZZ_TARGET=$target "$bin" -runs=1 -timeout=10 "$crash" >>"$log" 2>&1; then
      mv "$crash" "$crash.not-reproduced"
      continue
    fi
    if [[ ! -e Fuzz/Regressions/$target/$name ]]; then
      ATS_FUZZ_TARGET=$target nice -n 10 "$bin" -minimize_crash=1 -max_total_time=60 -timeout=10 \
        -exact_artifact_path="Fuzz/Regressions/$target/$name" "$crash" >>"$log" 2>&1 || true
      [[ -e Fuzz/Regressions/$target/$name ]] || cp "$crash" "Fuzz/Regressions/$target/$name"
    fi
    found=$((found + 1))
  done
  local execs cov ft corpus
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$work" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$found" \
    | tee -a "$scratch/results.tsv"
}

case ${1:-} in
  --list) targets ;;
  --all)
    seconds=${2:?usage: scripts/fuzz.sh --all SECONDS [TARGET...]}
    shift 2
    build
    list=("$@")
    (( ${#list[@]} )) || mapfile -t list < <(targets)
    rows=$(for t in "${list[@]}"; do run "$t" "$seconds"; done)
    { echo -e "finished\ttarget\tseconds\texecutions\tcoverage\tfeatures\tcorpus\tcrashes"; echo "$rows"; } | column -t -s $'\t'
    ! grep -qv $'\t0$' <<<"$rows"
    ;;
  ''|-*) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  *)
    target=$1 seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
    targets | grep -qx "$target" || { echo "fuzz.sh: no target $target; scripts/fuzz.sh --list" >&2; exit 2; }
    build
    row=$(run "$target" "$seconds")
    echo "$row"
    [[ $row == *$'\t0' ]]
    ;;
esac
