#!/usr/bin/env bash
# The GPU suite (every test marked gpu) on a GPU machine, in one go, with
# pytest-xdist. The CPU tests are CI's (.ci/run); GPUARR_SUITE_ALL=1 runs
# them here too.
#
#   bash scripts/gpu_suite.sh [pytest arguments...]
#
# Runs from the checkout's root with gpuarr built in place (python setup.py
# build_ext --inplace) or installed, and its dependencies importable (on the
# lent H200: bash .dev/gpu.sh bash scripts/gpu_suite.sh, which installs Mako
# and builds first). The kernel cache starts empty (a fresh GPUARR_CACHE_DIR)
# unless GPUARR_SUITE_WARM=1, so the run times compiling too. Workers:
# GPUARR_TEST_WORKERS (default 16). The full log goes to $OUT/suite.log when
# $OUT is set (else /tmp), with the 25 slowest tests (the suite's time is
# mostly kernel compiles, cold cache). The last line is the summary:
#   gpu suite: 6815 passed, 0 failed, 0 skipped, 0 errors in 131 s (16 workers, cold cache)
set -u -o pipefail
cd "$(dirname "$0")/.."
log=${OUT:-/tmp}/suite.log
workers=${GPUARR_TEST_WORKERS:-16}
cache=warm
if [ "${GPUARR_SUITE_WARM:-0}" != 1 ]; then
  export GPUARR_CACHE_DIR=$(mktemp -d /tmp/gpuarr-cache.XXXXXX)
  cache=cold
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
# one worker a core: numpy's BLAS (the linear-algebra references), OpenMP
# and PyTorch would otherwise start a thread a core in every worker
for v in OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS; do
  export "$v=${!v:-1}"
done
start=$(date +%s)
# worksteal (pytest-xdist 3.2+): an idle worker takes queued tests from a
# busy one, so the slow tests (kernel compiles, Dask's streams) do not
# leave one worker running alone at the end as the default "load" can
dist=$(python3 -c "import xdist, sys; v = tuple(int(p) for p in xdist.__version__.split('.')[:2]); print('worksteal' if v >= (3, 2) else 'load')" 2>/dev/null || echo load)
select=(-m gpu)
[ "${GPUARR_SUITE_ALL:-0}" = 1 ] && select=()
python3 -m pytest -q -rfE -p no:cacheprovider --durations=25 -n "$workers" --dist "$dist" "${select[@]}" tests "$@" >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
tail -25 "$log"
python3 - "$log" "$secs" "$workers" "$cache" "$dist" <<'PY'
import os, re, sys
log, secs, workers, cache, dist = sys.argv[1:]
text = open(log, errors="replace").read()
counts = {k: 0 for k in ("passed", "failed", "skipped", "error")}
last = [l for l in text.splitlines()
        if re.search(r"\d+ (passed|failed|skipped|error)", l)]
if last:
    for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?)", last[-1]):
        counts["error" if what.startswith("error") else what] = int(n)
print("gpu suite: %(passed)d passed, %(failed)d failed, %(skipped)d skipped, "
      "%(error)d errors" % counts + " in %s s (%s workers, %s, %s cache%s)"
      % (secs, workers, dist, cache,
         ", CPU tests too" if os.environ.get("GPUARR_SUITE_ALL") == "1"
         else ", gpu-marked tests"))
PY
exit $rc
