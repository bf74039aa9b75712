#!/usr/bin/env bash
# A representative subset of the GPU tests under compute-sanitizer: memcheck,
# racecheck, synccheck and initcheck, each over every K-th gpu test (the
# conftest option --gpu-sample=K, so the subset covers every test module and
# kernel family; tests marked huge are left out), in one go.
#
#   bash scripts/gpu_sanitize.sh [tool ...]        (default: all four)
#
# Same setting-up as scripts/gpu_suite.sh (built in place, dependencies
# importable; on the lent H200: bash .dev/gpu.sh bash scripts/gpu_sanitize.sh).
# Sampling per tool: GPUARR_SAN_<TOOL>=K (defaults below). A time limit per
# tool in seconds: GPUARR_SAN_<TOOL>_LIMIT (default none); a tool cut off is
# reported as such, with the errors found until then. Workers:
# GPUARR_TEST_WORKERS (default 1: one process; with more, pytest-xdist).
# Test files or folders: GPUARR_SAN_TESTS (default tests), to look at the
# kernels a change touched. GPUARR_SAN_OFFSET=J (default 0) starts the
# sample at the J-th gpu test, so calls with J = 0 .. K-1 cover them all.
# Only the plugins the suite needs load (timeout, hypothesis, xdist): on the
# lent H200 sixteen xdist workers under compute-sanitizer, with every plugin
# of the machine's environment autoloaded, did not finish collecting in
# 210 s. Logs, one per process, go to
# /tmp/sanitizer; with $OUT set, $OUT/sanitizer-<tool>.log gathers the pytest
# summary and the reports of the processes that found errors, and
# $OUT/sanitizer-summary.txt is rewritten after each tool, so what comes back
# is a few files, not one per process. The last line is the summary:
#   sanitizer: memcheck 0 errors (682 passed), racecheck 0 errors (171 passed), ... in 300 s
set -u -o pipefail
cd "$(dirname "$0")/.."
tools=${*:-memcheck racecheck synccheck initcheck}
workers=${GPUARR_TEST_WORKERS:-1}
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
# tests whose figures the sanitizer changes (the driver pool's reserved
# memory, which it does not trim) read this
export GPUARR_UNDER_SANITIZER=1
plugins="-p pytest_timeout -p _hypothesis_pytestplugin"
[ "$workers" -gt 1 ] && plugins="$plugins -p xdist.plugin -n $workers"
logs=/tmp/sanitizer
mkdir -p "$logs"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
export GPUARR_CACHE_DIR=${GPUARR_CACHE_DIR:-$(mktemp -d /tmp/gpuarr-cache.XXXXXX)}
# the first line of each error report the four tools write (their
# SUMMARY lines, which mention hazards and errors too, are left out)
report='^========= +(Invalid|Race|Barrier|Uninitialized|.*[Hh]azard|.*[Ee]rror:)'
# a CUDA API call that returned an error: reported, not counted (the
# suite's tests of error paths make them on purpose: invalid images, bad
# arguments); the summary gives their number and the log each one
api='^========= +Program hit'
start=$(date +%s)
summary=""
status=0
for tool in $tools; do
  var=GPUARR_SAN_$(echo "$tool" | tr a-z A-Z)
  case $tool in
    memcheck) k=${!var:-8} ;;
    initcheck) k=${!var:-16} ;;
    *) k=${!var:-24} ;;
  esac
  # a previous run's logs (a warm machine keeps /tmp) are not this run's
  rm -f "$logs/$tool".*.log
  lvar=${var}_LIMIT
  limit=${!lvar:-0}
  timeout --signal=INT --kill-after=20 "$limit" \
    compute-sanitizer --tool "$tool" --target-processes all --print-limit 50 \
      --log-file "$logs/$tool.%p.log" \
      python3 -m pytest -q -rfE -p no:cacheprovider $plugins \
      --gpu-sample="$k" --gpu-sample-offset="$(( ${GPUARR_SAN_OFFSET:-0} % k ))" \
      ${GPUARR_SAN_TESTS:-tests} >"$logs/$tool.pytest.log" 2>&1
  rc=$?
  cut=""
  [ $rc = 124 ] || [ $rc = 137 ] && cut=", cut off at $limit s"
  # counted report by report: a process cut off never writes its ERROR SUMMARY
  errors=$(cat "$logs/$tool".[0-9]*.log 2>/dev/null | grep -E "$report" | grep -vc SUMMARY)
  apierr=$(cat "$logs/$tool".[0-9]*.log 2>/dev/null | grep -cE "$api")
  tests=$(grep -E "[0-9]+ (passed|failed)" "$logs/$tool.pytest.log" | tail -1)
  echo "== $tool (1 in $k): $errors errors, $apierr API errors; pytest: $tests$cut"
  # the kinds of report and the kernels they name ("at name+0x..."), most
  # reported first
  cat "$logs/$tool".[0-9]*.log 2>/dev/null | grep -A3 -E "$report" | grep -v SUMMARY |
    grep -oE "$report.*|at [A-Za-z_][A-Za-z0-9_]*\+0x" | sed 's/+0x$//' |
    sort | uniq -c | sort -rn | head -20
  grep -h -A12 -E "$report" "$logs/$tool".[0-9]*.log 2>/dev/null | grep -v SUMMARY | head -60
  grep -h -E "$api" "$logs/$tool".[0-9]*.log 2>/dev/null | sort | uniq -c | head -20
  if [ -n "${OUT:-}" ]; then
    { tail -30 "$logs/$tool.pytest.log"
      for f in "$logs/$tool".[0-9]*.log; do
        grep -E "$report|$api" "$f" | grep -qv SUMMARY && { echo "== $f"; head -200 "$f"; }
      done; } >"$OUT/sanitizer-$tool.log" 2>&1
  fi
  [ "$errors" = 0 ] && [ $rc = 0 ] || status=1
  summary="$summary${summary:+, }$tool $errors errors ($(echo "$tests" | grep -oE '[0-9]+ passed' || echo 'no tests passed')$cut; $apierr API errors)"
  [ -n "${OUT:-}" ] && echo "sanitizer: $summary" >"$OUT/sanitizer-summary.txt"
done
echo "sanitizer: $summary in $(( $(date +%s) - start )) s"
exit $status
