#!/usr/bin/env bash
# A representative subset of the GPU tests under compute-sanitizer: memcheck,
# racecheck, synccheck and initcheck, each over every K-th gpu test (the
# conftest option --gpu-sample=K, so the subset covers every test module and
# kernel family), in one go.
#
#   bash scripts/gpu_sanitize.sh [tool ...]        (default: all four)
#
# Same setting-up as scripts/gpu_suite.sh (built in place, dependencies
# importable; on the lent H200: bash .dev/gpu.sh bash scripts/gpu_sanitize.sh).
# Sampling per tool: GPUARR_SAN_<TOOL>=K (defaults below), workers
# GPUARR_TEST_WORKERS (default 8). Logs, one per process, go to
# $OUT/sanitizer (else /tmp/sanitizer). The last line is the summary:
#   sanitizer: memcheck 0 errors (682 tests), racecheck 0 errors (171 tests), ... in 300 s
set -u -o pipefail
cd "$(dirname "$0")/.."
tools=${*:-memcheck racecheck synccheck initcheck}
workers=${GPUARR_TEST_WORKERS:-8}
logs=${OUT:-/tmp}/sanitizer
mkdir -p "$logs"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
export GPUARR_CACHE_DIR=${GPUARR_CACHE_DIR:-$(mktemp -d /tmp/gpuarr-cache.XXXXXX)}
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
  compute-sanitizer --tool "$tool" --target-processes all --print-limit 50 \
      --log-file "$logs/$tool.%p.log" \
      python3 -m pytest -q -rfE -p no:cacheprovider -n "$workers" \
      --gpu-sample="$k" tests >"$logs/$tool.pytest.log" 2>&1
  rc=$?
  errors=$(cat "$logs/$tool".*.log 2>/dev/null | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
           | awk '{s += $1} END {print s + 0}')
  tests=$(grep -E "[0-9]+ (passed|failed)" "$logs/$tool.pytest.log" | tail -1)
  echo "== $tool (1 in $k): $errors errors; pytest: $tests"
  grep -h -A12 "^========= [A-Z].*\(Error\|error\|Race\|Hazard\|Barrier\|Uninitialized\)" \
      "$logs/$tool".*.log 2>/dev/null | head -60
  [ "$errors" = 0 ] && [ $rc = 0 ] || status=1
  summary="$summary${summary:+, }$tool $errors errors ($(echo "$tests" | grep -oE '[0-9]+ passed' || echo 'no tests passed'))"
done
echo "sanitizer: $summary in $(( $(date +%s) - start )) s"
exit $status
