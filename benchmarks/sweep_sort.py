"""Sweep of the onesweep pass of ``gpuarr.sort`` on the GPU machine: its
tile (elements per thread, ``_sortkernels.items``) and its ranking
(``_sortkernels.RANK``: "match" or "ballot"); for each pair, the sort of
2**28 float32 normals (median of event-timed calls) beside CuPy's, and the
argsort of 2**26, with the result of a 2**22 sort and argsort checked
against numpy's first.

    python benchmarks/sweep_sort.py [items ...]      (default 20 24 28)

The sort's tile and registers (blocks an SM) for keys alone (4 bytes an
element staged: inside the 48 KB of static shared memory up to 28 items);
argsort with its default tile.
"""
import sys

import numpy as np

from common import cupy_events, event_median_ms, gpuarr_events, rivals


def main():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    from gpuarr import _sortkernels

    counts = [int(a) for a in sys.argv[1:]] or [20, 24, 28]
    rng = np.random.default_rng(3)
    big = rng.standard_normal(2 ** 28, dtype=np.float32)
    small = rng.standard_normal(2 ** 22 + 17, dtype=np.float32)
    want, wanti = np.sort(small), np.argsort(small, kind="stable")
    x, xs = gpuarr.to_gpu(big), gpuarr.to_gpu(small)
    x26 = gpuarr.to_gpu(big[:2 ** 26])
    ev = gpuarr_events()
    original, rank0 = _sortkernels.items, _sortkernels.RANK
    blocks0 = _sortkernels.blocks
    cp, _ = rivals()
    if cp is not None:
        cx = cp.asarray(big)
        print("CuPy sort 2**28 f32: %.3f ms"
              % event_median_ms(lambda: cp.sort(cx), cupy_events(), repeats=10))
        del cx
    for rank in ("match", "ballot"):
        _sortkernels.RANK = rank
        for k in counts:
            for nb in (3, 2):
                _sortkernels.items = (
                    lambda dt, kv=False, k=k: k if np.dtype(dt).itemsize <= 4
                    and not kv else original(dt, kv))
                _sortkernels.blocks = (
                    lambda dt, kv=False, nb=nb: nb if np.dtype(dt).itemsize <= 4
                    and not kv else blocks0(dt, kv))
                ok = np.array_equal(gpuarr.sort(xs).get(), want)
                ms = event_median_ms(lambda: gpuarr.sort(x), ev, warmup=2,
                                     repeats=10)
                print("%-6s items %2d (tile %5d), %d blocks/SM: sort 2**28 "
                      "f32 %.3f ms  %s" % (rank, k, 256 * k, nb, ms,
                                           "ok" if ok else "WRONG"),
                      flush=True)
        # argsort: values carried, the default tile
        _sortkernels.items, _sortkernels.blocks = original, blocks0
        oki = np.array_equal(gpuarr.argsort(xs).get(), wanti)
        ams = event_median_ms(lambda: gpuarr.argsort(x26), ev, warmup=2,
                              repeats=10)
        print("%-6s argsort 2**26 f32 %.3f ms  %s"
              % (rank, ams, "ok" if oki else "WRONG"), flush=True)
    _sortkernels.items, _sortkernels.RANK = original, rank0
    _sortkernels.blocks = blocks0


if __name__ == "__main__":
    main()
