#!/bin/bash
# Run PyCUDA's examples (orig/, fetched from inducer/pycuda) on gpuarr with
# only the import changed: `pycuda` becomes `gpuarr` on import lines
# (import pycuda..., from pycuda...) and in `pycuda.<name>` attribute chains.
# Kernel source (pycuda::complex, <pycuda-complex.hpp>) is left as it is.
#
# On the GPU machine, from the repository root, with gpuarr built in place:
#   bash .dev/gpu.sh bash scripts/pycuda_ports/run_ports.sh   (carry .dev and scripts/pycuda_ports/orig, .../wheels)
# Options (environment): PORTS_TIMEOUT=60 (seconds per example), PORTS_BUDGET=360
#   (seconds for the whole run; later examples are SKIPPED past it),
#   PORTS_ONLY="hello_gpu demo" (names to run), PORTS_SKIP="..." (names not to run),
#   PORTS_KEEP=1 (keep the temp dir), PORTS_PRELUDE=file.py (run every example
#   through _runner.py after that file; used by dryrun_fake.sh, not on the GPU).
#
# One line per example:  NAME  STATUS  rc=N  [last line of stderr]
#   PASS       exit status 0
#   FAIL       non-zero exit: a gpuarr gap or bug, or an upstream bug (see GAPS.md)
#   TIMEOUT    ran past PORTS_TIMEOUT (rc 124)
#   PY2        the stored upstream file is Python 2 (SyntaxError under python3);
#              not gpuarr's doing, counted as failed
#   DEP(x)     a third-party module x (not gpuarr) is missing there; counted as failed
# Examples that do not import autoinit (upstream removed it in 2024, so they fail
# on PyCUDA too) and fail are run a second time with gpuarr.autoinit imported
# first (runpy; the file is not edited): "[+autoinit: PASS]" after the status.
# Full stdout/stderr of each run: $OUT/ports/NAME.{out,err} (last 200 lines).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmo=${PORTS_TIMEOUT:-60}
logdir=${OUT:-/tmp/ports_out}
mkdir -p "$logdir/ports"
log=$logdir/ports.log
: > "$log"
work=$(mktemp -d /tmp/ports.XXXXXX)
export MPLBACKEND=Agg
export PYTHONPATH=$root${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1

say() { echo "$*" | tee -a "$log"; }

# pytools (transpose, matrix_transpose, measure_gpuarray_speed_random) is not
# in the GPU image: install the carried pure-Python wheels into a private dir
if ls "$here"/wheels/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --target "$work/site" "$here"/wheels/*.whl >/dev/null 2>&1 \
    && export PYTHONPATH=$PYTHONPATH:$work/site \
    || say "note: could not install the carried wheels (pytools); examples needing it will show DEP(pytools)"
fi

# a small SPD matrix (1-D Laplacian, n=2000) in Matrix Market form for sparse_solve
python3 - "$work/spd.mtx" <<'EOF'
import sys
n = 2000
with open(sys.argv[1], "w") as f:
    f.write("%%MatrixMarket matrix coordinate real symmetric\n")
    f.write("%d %d %d\n" % (n, n, 2 * n - 1))
    for i in range(1, n + 1):
        f.write("%d %d 4.0\n" % (i, i))
        if i < n:
            f.write("%d %d -1.0\n" % (i + 1, i))
EOF

# command-line arguments an example needs (arguments, not code changes)
args_for() {
  case "$1" in
    sparse_solve|sparse-solve) echo "$work/spd.mtx" ;;
    *) echo "" ;;
  esac
}

# the import change, nothing else
port() {
  # (an alias "as pycuda" is the user's own name and stays)
  sed -E \
    -e 's/\bas([[:space:]]+)pycuda\b/as\1@PYCUDA_ALIAS@/g' \
    -e '/^[[:space:]]*(import|from)[[:space:]]+pycuda([.[:space:]]|$)/ s/\bpycuda\b/gpuarr/g' \
    -e 's/\bpycuda\.([A-Za-z_])/gpuarr.\1/g' \
    -e 's/@PYCUDA_ALIAS@/pycuda/g' \
    "$1" > "$2"
}

status_of() {   # rc errfile -> status word
  local rc=$1 err=$2 mod
  if [ "$rc" = 0 ]; then echo PASS; return; fi
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo TIMEOUT; return; fi
  mod=$(grep -oE "ModuleNotFoundError: No module named '[^']+'" "$err" | tail -1 | sed -E "s/.*'([^']+)'/\1/")
  if [ -n "$mod" ] && [[ "$mod" != gpuarr* ]]; then echo "DEP(${mod%%.*})"; return; fi
  echo FAIL
}

# why it failed, in one line: the last Python exception line, plus the first
# compiler error for a CompileError; else the last non-empty line of stderr
lastline() {
  local x e
  x=$(grep -E '^[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Exit)(:|$)' "$1" | tail -1 | cut -c1-160)
  e=$(grep -m1 -E '(catastrophic )?error( [A-Z0-9]+)?: ' "$1" | sed -E 's/^[[:space:]]+//' | cut -c1-140)
  if [ -n "$x" ] && [ -n "$e" ] && [[ "$x" == *CompileError* ]]; then echo "$x | $e"
  elif [ -n "$x" ]; then echo "$x"
  else grep -v '^[[:space:]]*$' "$1" | tail -1 | cut -c1-200; fi
}

# issue 11's "Done when" examples first, so that a budget stop never skips them
first="hello_gpu demo demo_elementwise demo_struct demo_meta_template"
names=($first)
for f in "$here"/orig/*.py "$here"/orig/from-wiki/*.py; do
  n=${f#"$here"/orig/}; n=${n%.py}
  [[ " $first " == *" $n "* ]] || names+=("$n")
done
if [ -n "${PORTS_ONLY:-}" ]; then names=($PORTS_ONLY); fi
budget=${PORTS_BUDGET:-360}   # seconds for the whole run (the device allows 600 a command)
t0=$SECONDS

ran=0; failed=0; npass=0; nfail=0; npy2=0; ndep=0; ntmo=0; nauto=0
say "ports: $(python3 --version 2>&1), numpy $(python3 -c 'import numpy; print(numpy.__version__)' 2>&1), timeout ${tmo}s, gpuarr at $root"
for n in "${names[@]}"; do
  src=$here/orig/$n.py
  [ -f "$src" ] || { say "$(printf '%-44s' "$n") MISSING"; continue; }
  if [[ " ${PORTS_SKIP:-} " == *" $n "* ]]; then say "$(printf '%-44s' "$n") SKIPPED (PORTS_SKIP)"; continue; fi
  if [ $((SECONDS - t0 + tmo)) -gt "$budget" ]; then
    say "$(printf '%-44s' "$n") SKIPPED (budget of ${budget}s nearly spent)"; continue
  fi
  d=$work/run/$n; mkdir -p "$d"
  base=$(basename "$n").py
  port "$src" "$d/$base"
  safe=${n//\//__}
  ran=$((ran + 1))
  if ! python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$d/$base" 2>"$logdir/ports/$safe.err"; then
    npy2=$((npy2 + 1)); failed=$((failed + 1))
    say "$(printf '%-44s' "$n") PY2 rc=1  $(lastline "$logdir/ports/$safe.err")"
    continue
  fi
  # shellcheck disable=SC2046
  if [ -n "${PORTS_PRELUDE:-}" ]; then run=(python3 "$here/_runner.py" "$base"); else run=(python3 "$base"); fi
  ( cd "$d" && printf '\n\n\n' | timeout -k 5 "$tmo" "${run[@]}" $(args_for "$(basename "$n")") \
      > "$d/out" 2> "$d/err" ); rc=$?
  tail -200 "$d/out" > "$logdir/ports/$safe.out"; tail -200 "$d/err" > "$logdir/ports/$safe.err"
  st=$(status_of "$rc" "$d/err")
  extra=""
  # (code lines only: cai_numba keeps a comment naming autoprimaryctx
  # after its import was dropped)
  if [ "$st" != PASS ] && ! grep -vE '^\s*#' "$src" | grep -qE 'autoinit|autoprimaryctx|make_context|\.init\(\)'; then
    ( cd "$d" && printf '\n\n\n' | PORTS_AUTOINIT=1 timeout -k 5 "$tmo" python3 "$here/_runner.py" \
        "$base" $(args_for "$(basename "$n")") > "$d/out2" 2> "$d/err2" ); rc2=$?
    tail -200 "$d/err2" > "$logdir/ports/$safe.autoinit.err"
    st2=$(status_of "$rc2" "$d/err2")
    extra="  [+autoinit: $st2 rc=$rc2$( [ "$st2" = PASS ] || echo ": $(lastline "$d/err2" | cut -c1-120)")]"
    [ "$st2" = PASS ] && nauto=$((nauto + 1))
  fi
  case $st in
    PASS) npass=$((npass + 1)); say "$(printf '%-44s' "$n") PASS rc=0$extra" ;;
    *)
      failed=$((failed + 1))
      case $st in TIMEOUT) ntmo=$((ntmo + 1));; DEP*) ndep=$((ndep + 1));; *) nfail=$((nfail + 1));; esac
      say "$(printf '%-44s' "$n") $st rc=$rc  $(lastline "$d/err")$extra" ;;
  esac
done
[ -n "${PORTS_KEEP:-}" ] && say "kept $work" || rm -rf "$work"
say "  (pass $npass; fail $nfail; py2 source $npy2; missing third-party module $ndep; timeout $ntmo; would pass with autoinit imported: $nauto; ${SECONDS}s)"
say "ports: $ran ran, $failed failed"
exit 0
