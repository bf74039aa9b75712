"""Sweep of the onesweep pass of ``gpuarr.sort`` on the GPU machine: its
ranking (``_sortkernels.RANK``: "ballot", "match" or "early"), its tile
(elements per thread, ``_sortkernels.items``) and the blocks an SM its
registers are bounded for (``_sortkernels.blocks``).  For each setting,
the sort (keys alone) of 2**28 random keys (2**27 of 8 bytes) or the
argsort (values carried) of 2**26, medians of event-timed calls, with
the result of a 2**22 sort or argsort checked against numpy's first;
CuPy's sort and argsort of the same float32 arrays first.

    python benchmarks/sweep_sort.py [[argsort:]rank:items:blocks[:dtype] ...]

dtype: float32 unless given (float: normals; integers: their whole
range).  Without arguments, :data:`DEFAULT`.  Keys alone are staged 4
bytes an element: inside the 48 KB of static shared memory up to 28
items.
"""
import sys

import numpy as np

from common import cupy_events, event_median_ms, gpuarr_events, rivals

DEFAULT = ["ballot:28:2", "early:28:2", "early:24:3", "early:22:3", "early:18:4",
           "early:16:4", "ballot:16:2:i8", "early:16:2:i8", "early:16:3:i8",
           "ballot:16:3:u1", "early:16:3:u1", "argsort:ballot:16:2",
           "argsort:early:16:2", "argsort:ballot:16:2:f8",
           "argsort:early:16:2:f8"]


def keys(dt, n, rng):
    """``n`` random keys of ``dt``: normals, or integers over the whole
    range."""
    if dt.kind == "f":
        return rng.standard_normal(n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)


def main():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    from gpuarr import _sortkernels

    settings = sys.argv[1:] or DEFAULT
    rng = np.random.default_rng(3)
    ev = gpuarr_events()
    items0, rank0 = _sortkernels.items, _sortkernels.RANK
    blocks0 = _sortkernels.blocks
    cp, _ = rivals()
    data = {}

    def arrays(dt, arg):
        # (timed array, checked array, numpy's result for it), kept
        if (dt, arg) not in data:
            n = 2 ** 26 if arg else 2 ** 28 // max(1, dt.itemsize // 4)
            small = keys(dt, 2 ** 22 + 17, rng)
            want = (np.argsort(small, kind="stable") if arg
                    else np.sort(small))
            data[dt, arg] = (gpuarr.to_gpu(keys(dt, n, rng)),
                             gpuarr.to_gpu(small), want)
        return data[dt, arg]
    if cp is not None:
        for arg in (False, True):
            cx = cp.asarray(arrays(np.dtype("f4"), arg)[0].get())
            fn = cp.argsort if arg else cp.sort
            print("CuPy %s %d f32: %.3f ms"
                  % ("argsort" if arg else "sort", cx.size,
                     event_median_ms(lambda: fn(cx), cupy_events(),
                                     repeats=10)))
            del cx
    for setting in settings:
        parts = setting.split(":")
        arg = parts[0] == "argsort"
        rest = parts[1:] if arg else parts
        rank, k, nb = rest[0], int(rest[1]), int(rest[2])
        dt = np.dtype(rest[3] if len(rest) > 3 else "f4")
        x, xs, want = arrays(dt, arg)

        def chosen(d, kv, default, value, dt=dt, arg=arg):
            # the setting for the sort it times, the defaults elsewhere
            mine = kv == arg and np.dtype(d) == dt
            return value if mine else default(d, kv)

        _sortkernels.RANK = rank
        _sortkernels.items = (
            lambda d, kv=False, k=k: chosen(d, kv, items0, k))
        _sortkernels.blocks = (
            lambda d, kv=False, nb=nb: chosen(d, kv, blocks0, nb))
        try:
            fn = gpuarr.argsort if arg else gpuarr.sort
            ok = np.array_equal(fn(xs).get(), want)
            ms = event_median_ms(lambda: fn(x), ev, warmup=2, repeats=10)
            print("%-6s items %2d (tile %5d), %d blocks/SM: %s %d %s %.3f "
                  "ms  %s" % (rank, k, 256 * k, nb,
                              "argsort" if arg else "sort", x.size, dt, ms,
                              "ok" if ok else "WRONG"), flush=True)
        finally:
            _sortkernels.items, _sortkernels.RANK = items0, rank0
            _sortkernels.blocks = blocks0


if __name__ == "__main__":
    main()
