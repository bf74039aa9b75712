#!/usr/bin/env bash
# The kernels that run on the host (tests/*_host_cpu.py, through
# tests/_cuda_host.py) built with ThreadSanitizer and run in a process with
# its runtime preloaded: a race check of their shared memory without a GPU,
# in the spirit of compute-sanitizer's racecheck.  The emulation gives
# ThreadSanitizer only the ordering the GPU gives (barriers, __syncwarp,
# mbarriers; not shuffles or votes), so a missing barrier shows as a race.
# Races inside the decoupled look-back's descriptor functions are not
# reported (tests/_cuda_host.py's TSAN_SUPPRESSED: volatile accesses ordered
# by fences, a protocol the host's memory model cannot express); blocks run
# one after another, so races between blocks are out of its reach.
#
#   bash scripts/host_tsan.sh [test files]     (default: every host test)
#
# Needs a host C++ compiler with ThreadSanitizer (g++ or clang++). About
# 2.5 minutes on two cores. The last line is the summary:
#   host tsan: 0 race reports (39 passed) in 150 s
set -u -o pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
cxx=$(command -v c++ || command -v g++ || command -v clang++) || {
    echo "host tsan: no host C++ compiler"; exit 2; }
rt=$($cxx -print-file-name=libtsan.so)
[ -e "$rt" ] || { echo "host tsan: $cxx has no libtsan.so"; exit 2; }
logs=$(mktemp -d /tmp/host-tsan.XXXXXX)
PYTHONPATH=tests $py -c "import _cuda_host as h
print(''.join('race:%s\n' % f for f in h.TSAN_SUPPRESSED), end='')" \
    > "$logs/supp" || exit 2
if [ $# -gt 0 ]; then tests=("$@"); else tests=(tests/*_host_cpu.py); fi
t0=$(date +%s)
GPUARR_HOST_TSAN=1 LD_PRELOAD=$rt \
TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$logs/supp log_path=$logs/report" \
    $py -m pytest -q -p no:cacheprovider "${tests[@]}" > "$logs/pytest.log" 2>&1
rc=$?
reports=$(cat "$logs"/report.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer")
tail -3 "$logs/pytest.log"
[ "$reports" -gt 0 ] && { echo "reports in $logs/report.*:"; \
    grep -h -A12 "WARNING: ThreadSanitizer" "$logs"/report.* | head -60; }
summary=$(grep -Eo "[0-9]+ (passed|failed|error)" "$logs/pytest.log" | paste -sd, -)
echo "host tsan: $reports race reports (${summary:-no result}, pytest status $rc) in $(( $(date +%s) - t0 )) s"
[ "$reports" -eq 0 ] && [ "$rc" -eq 0 ]
