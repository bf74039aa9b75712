#!/bin/bash
# CPU dry run of run_ports.sh against the fake libcuda of tests/fake_cuda
# (no GPU): kernels are compiled (to PTX, see fake_prelude.py) and "launched"
# but never run, so numeric checks fail; what it shows is whether an example
# gets through gpuarr's API (imports, signatures, argument packing) at all.
# Usage, from the repository root:  bash scripts/pycuda_ports/dryrun_fake.sh
# Log: ${OUT:-/tmp/ports_fake}/ports.log
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=/tmp/ports_fake_libcuda.so.1
cc -shared -fPIC -O1 -o "$lib" "$root/tests/fake_cuda/fake_libcuda.c" -lpthread || exit 1
OUT=${OUT:-/tmp/ports_fake} GPUARR_LIBCUDA=$lib GPUARR_CACHE=0 \
  PORTS_PRELUDE=$here/fake_prelude.py PORTS_TIMEOUT=${PORTS_TIMEOUT:-60} \
  PORTS_SKIP="fill_gpu_with_nans ${PORTS_SKIP:-}" \
  bash "$here/run_ports.sh"
