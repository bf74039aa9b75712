#!/usr/bin/env bash
# One device call's worth of checking, in the order that keeps timings
# clean: benchmarks first (a quiet GPU), then the whole suite
# (scripts/gpu_suite.sh), then the four compute-sanitizer tools at once,
# one process each (scripts/gpu_sanitize.sh), each step under its own time
# limit so that a slow one cannot eat the others' time.
#
#   bash scripts/gpu_round.sh
#
# Built in place and importable first (on the lent H200:
# bash .dev/gpu.sh bash scripts/gpu_round.sh). Settings:
#   GPUARR_ROUND_TESTS   pytest arguments run first, alone, within 150 s (e.g. a file and
#                        -k): their output in tests.txt (default none)
#   GPUARR_ROUND_BENCH   benchmarks/run.py groups (default "sorting"; empty: none),
#                        one process each
#   GPUARR_ROUND_SUITE   0: skip the suite (default 1)
#   GPUARR_ROUND_BENCH_LIMIT, GPUARR_ROUND_SUITE_LIMIT, GPUARR_ROUND_SAN_LIMIT
#                        seconds (defaults 120, 290, 170; the benchmarks' limit
#                        is per group, the sanitizers' per tool, and they run
#                        side by side)
#   GPUARR_ROUND_SAN     tools (default "memcheck racecheck synccheck initcheck";
#                        empty: none); samples as gpu_sanitize.sh's GPUARR_SAN_<TOOL>
#                        (defaults here 16, 32, 48, 24)
# With $OUT set, what comes back is a handful of files: tests.txt,
# bench.txt, suite.log, san.txt (every tool's summary, the kernels its
# reports name, the reports). The last lines are the three summaries.
set -u -o pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu_round}
mkdir -p "$out"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
if [ -n "${GPUARR_ROUND_TESTS:-}" ]; then
  timeout --signal=INT 150 python3 -m pytest -q -rfE -p no:cacheprovider \
    $GPUARR_ROUND_TESTS >"$out/tests.txt" 2>&1
  tail -15 "$out/tests.txt"
fi
bench=${GPUARR_ROUND_BENCH-sorting}
if [ -n "$bench" ]; then
  # one process a group, each under the limit, so that a slow group costs
  # only its own rows (run.py prints its table at the end)
  : >"$out/bench.txt"
  for g in $bench; do
    timeout --signal=INT "${GPUARR_ROUND_BENCH_LIMIT:-120}" \
      python3 benchmarks/run.py "$g" >>"$out/bench.txt" 2>&1 ||
      echo "== $g: cut off or failed (status $?)" >>"$out/bench.txt"
  done
  grep -E "^\||^== .*cut off" "$out/bench.txt"
fi
if [ "${GPUARR_ROUND_SUITE:-1}" != 0 ]; then
  OUT=$out timeout --signal=INT --kill-after=20 "${GPUARR_ROUND_SUITE_LIMIT:-290}" \
    bash scripts/gpu_suite.sh --timeout=200 --durations=0 --durations-min=0.5 \
    >"$out/suite.txt" 2>&1
  grep -E "^(FAILED|ERROR)" "$out/suite.log" | head -30
fi
tools=${GPUARR_ROUND_SAN-memcheck racecheck synccheck initcheck}
if [ -n "$tools" ]; then
  export GPUARR_SAN_MEMCHECK=${GPUARR_SAN_MEMCHECK:-16}
  export GPUARR_SAN_RACECHECK=${GPUARR_SAN_RACECHECK:-32}
  export GPUARR_SAN_SYNCCHECK=${GPUARR_SAN_SYNCCHECK:-48}
  export GPUARR_SAN_INITCHECK=${GPUARR_SAN_INITCHECK:-24}
  work=$(mktemp -d /tmp/gpu_round_san.XXXXXX)
  for t in $tools; do
    mkdir -p "$work/$t"
    lim=GPUARR_SAN_$(echo "$t" | tr a-z A-Z)_LIMIT
    export "$lim=${!lim:-${GPUARR_ROUND_SAN_LIMIT:-170}}"
    OUT=$work/$t bash scripts/gpu_sanitize.sh "$t" >"$work/$t/out.txt" 2>&1 &
  done
  wait
  { for t in $tools; do tail -1 "$work/$t/out.txt"; done
    for t in $tools; do
      echo "#### $t"; head -c 4000 "$work/$t/out.txt"; echo
      head -c 6000 "$work/$t/sanitizer-$t.log" 2>/dev/null
    done; } >"$out/san.txt" 2>&1
fi
[ -f "$out/suite.txt" ] && tail -1 "$out/suite.txt"
[ -n "$tools" ] && head -4 "$out/san.txt"
exit 0
