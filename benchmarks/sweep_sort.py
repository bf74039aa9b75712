"""Sweep of the onesweep pass of ``gpuarr.sort`` on the GPU machine: its
ranking (``_sortkernels.RANK``: "ballot", "match" or "early"), its tile
(elements per thread, ``_sortkernels.items``) and the blocks an SM its
registers are bounded for (``_sortkernels.blocks``).  For each setting,
the sort of 2**28 float32 normals (keys alone) and the argsort of 2**26
(values carried), medians of event-timed calls, with the result of a
2**22 sort and argsort checked against numpy's first; CuPy's sort and
argsort of the same arrays first.

    python benchmarks/sweep_sort.py [rank:items:blocks ...]
    python benchmarks/sweep_sort.py [argsort:rank:items:blocks ...]

Without arguments: the ballot ranking at its defaults, and early counts
at 28 items two blocks an SM, 24 and 20 at three for the sort; 16 items
at two, three and four for the argsort.  Keys alone are staged 4 bytes an
element: inside the 48 KB of static shared memory up to 28 items.
"""
import sys

import numpy as np

from common import cupy_events, event_median_ms, gpuarr_events, rivals

DEFAULT = ["ballot:28:2", "early:28:2", "early:24:3", "early:20:3",
           "argsort:ballot:16:2", "argsort:early:16:2",
           "argsort:early:16:3", "argsort:early:16:4"]


def main():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    from gpuarr import _sortkernels

    settings = sys.argv[1:] or DEFAULT
    rng = np.random.default_rng(3)
    big = rng.standard_normal(2 ** 28, dtype=np.float32)
    small = rng.standard_normal(2 ** 22 + 17, dtype=np.float32)
    want, wanti = np.sort(small), np.argsort(small, kind="stable")
    x, xs = gpuarr.to_gpu(big), gpuarr.to_gpu(small)
    x26 = gpuarr.to_gpu(big[:2 ** 26])
    ev = gpuarr_events()
    items0, rank0 = _sortkernels.items, _sortkernels.RANK
    blocks0 = _sortkernels.blocks
    cp, _ = rivals()
    if cp is not None:
        cx = cp.asarray(big)
        print("CuPy sort 2**28 f32: %.3f ms"
              % event_median_ms(lambda: cp.sort(cx), cupy_events(), repeats=10))
        cx = cx[:2 ** 26]
        print("CuPy argsort 2**26 f32: %.3f ms"
              % event_median_ms(lambda: cp.argsort(cx), cupy_events(),
                                repeats=10))
        del cx
    for setting in settings:
        parts = setting.split(":")
        arg = parts[0] == "argsort"
        rank, k, nb = parts[1:] if arg else parts
        k, nb = int(k), int(nb)

        def chosen(dt, kv, default, value):
            # the setting for the sort it times, the defaults elsewhere
            mine = kv == arg and np.dtype(dt) == np.float32
            return value if mine else default(dt, kv)

        _sortkernels.RANK = rank
        _sortkernels.items = (
            lambda dt, kv=False, k=k: chosen(dt, kv, items0, k))
        _sortkernels.blocks = (
            lambda dt, kv=False, nb=nb: chosen(dt, kv, blocks0, nb))
        try:
            if arg:
                ok = np.array_equal(gpuarr.argsort(xs).get(), wanti)
                ms = event_median_ms(lambda: gpuarr.argsort(x26), ev,
                                     warmup=2, repeats=10)
                what = "argsort 2**26"
            else:
                ok = np.array_equal(gpuarr.sort(xs).get(), want)
                ms = event_median_ms(lambda: gpuarr.sort(x), ev, warmup=2,
                                     repeats=10)
                what = "sort 2**28"
            print("%-6s items %2d (tile %5d), %d blocks/SM: %s f32 %.3f ms"
                  "  %s" % (rank, k, 256 * k, nb, what, ms,
                            "ok" if ok else "WRONG"), flush=True)
        finally:
            _sortkernels.items, _sortkernels.RANK = items0, rank0
            _sortkernels.blocks = blocks0


if __name__ == "__main__":
    main()
