"""Sweep of the radix tile of ``gpuarr.sort`` (elements per thread of the
onesweep pass, ``_sortkernels.items``) on the GPU machine: for each value,
the sort of 2**28 float32 normals (median of event-timed calls) beside
CuPy's, with the result of a 2**22 sort checked against numpy's first.

    python benchmarks/sweep_sort.py [items ...]      (default 12 16 20 24)

Keys alone (no carried values), so the staged tile (4 bytes an element)
stays inside the 48 KB of static shared memory up to 24 items.
"""
import sys

import numpy as np

from common import cupy_events, event_median_ms, gpuarr_events, rivals


def main():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    from gpuarr import _sortkernels

    counts = [int(a) for a in sys.argv[1:]] or [12, 16, 20, 24]
    rng = np.random.default_rng(3)
    big = rng.standard_normal(2 ** 28, dtype=np.float32)
    small = rng.standard_normal(2 ** 22 + 17, dtype=np.float32)
    want = np.sort(small)
    x, xs = gpuarr.to_gpu(big), gpuarr.to_gpu(small)
    ev = gpuarr_events()
    original = _sortkernels.items
    cp, _ = rivals()
    if cp is not None:
        cx = cp.asarray(big)
        print("CuPy sort 2**28 f32: %.3f ms"
              % event_median_ms(lambda: cp.sort(cx), cupy_events(), repeats=10))
        del cx
    for k in counts:
        _sortkernels.items = (lambda dt, k=k: k if np.dtype(dt).itemsize <= 8
                              else original(dt))
        got = gpuarr.sort(xs).get()
        ok = np.array_equal(got, want)
        ms = event_median_ms(lambda: gpuarr.sort(x), ev, warmup=2, repeats=10)
        print("items %2d (tile %5d): sort 2**28 f32 %.3f ms  %s"
              % (k, 256 * k, ms, "ok" if ok else "WRONG"), flush=True)
    _sortkernels.items = original


if __name__ == "__main__":
    main()
