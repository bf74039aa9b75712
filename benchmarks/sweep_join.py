"""Sweep of the joining kernel of ``gpuarr.concatenate`` on the GPU machine:
units a thread moves per chunk (``_joinkernels.UNROLL``) and blocks an SM
of its grid (``_joinkernels.BLOCKS_PER_SM``), and which kernel joins the
parts alike (``_joinkernels.ALIKE``: ``join_alike.cu.mako``, or the
general ``joining.cu.mako`` when false), on the join of 64
float32 arrays of 2**20 and of 2**22 elements along axis 0, of
(1024, 256) along axis 1, and of 8192 arrays of 256 (parts of less than
a chunk, more parts than the grid's blocks).  Each row
gives two times: one call between two events (what ``run.py joining``
times: the call's host work and the kernel in series) and 20 calls back to
back between two events, per call (the kernel's own rate, the host's work
hidden behind the previous kernel).  Beside them, in the same process:
PyTorch's ``torch.cat``, and one ``cuMemcpyDtoD`` of the joined bytes (the
copy ceiling), and a ``cuMemcpyDtoDAsync`` a part.

The alike kernel's launch bound follows the blocks an SM (8: 32
registers a thread, 4: 64).  (Streaming hints on its loads and stores
were swept too, on an H100: within 0.3%; taken out.)

    python benchmarks/sweep_join.py [unroll:blocks:alike|general ...]
    (default 4:8:alike 4:8:general 8:8:alike 4:16:alike 2:16:alike
    8:4:alike)
"""
import statistics
import sys

import numpy as np

from common import event_median_ms, gpuarr_events, rivals, torch_events


def _batch_ms(fn, pair, calls=20, repeats=9):
    """Median milliseconds a call of ``fn`` over ``calls`` calls back to
    back between two events."""
    fn()
    out = []
    for _ in range(repeats):
        start, stop = pair()
        start()
        for _ in range(calls):
            fn()
        out.append(stop() / calls)
    return statistics.median(out)


def main():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    from gpuarr import _joinkernels as jk

    args = sys.argv[1:] or ["4:8:alike", "4:8:general", "8:8:alike",
                            "4:16:alike", "2:16:alike", "8:4:alike"]
    pairs = []
    for a in args:
        u, b, kind = a.split(":")
        pairs.append((int(u), int(b), kind == "alike"))
    _, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(11)
    u0, b0, a0 = jk.UNROLL, jk.BLOCKS_PER_SM, jk.ALIKE
    for nparts, shape, axis in ((64, (2 ** 20,), 0), (64, (2 ** 22,), 0),
                                (64, (1024, 256), 1), (8192, (256,), 0)):
        part = int(np.prod(shape))
        hosts = [rng.standard_normal(shape, dtype=np.float32)
                 for _ in range(nparts)]
        want = np.concatenate(hosts, axis=axis).ravel()
        parts = [gpuarr.to_gpu(h) for h in hosts]
        nbytes = 2 * 4 * part * nparts
        label = ("%d x 2**%d f32" % (nparts, part.bit_length() - 1)
                 if axis == 0
                 else "%d x %s f32, axis %d" % (nparts, shape, axis))

        def join():
            return gpuarr.concatenate(parts, axis=axis)

        def gbs(ms):
            return nbytes / (ms * 1e-3) / 1e9

        out = gpuarr.empty(nparts * part, np.float32)
        src = gpuarr.empty(nparts * part, np.float32)
        one = event_median_ms(
            lambda: drv.memcpy_dtod(out.ptr, src.ptr, out.nbytes), ev)
        print("%s  one cuMemcpyDtoD: %.1f GB/s" % (label, gbs(one)))
        step = part * 4

        def each():
            for k, p in enumerate(parts):
                drv.memcpy_dtod_async(out.ptr + k * step, p.ptr, step)
        print("%s  cuMemcpyDtoDAsync a part: per call %.1f GB/s, back to back "
              "%.1f GB/s" % (label, gbs(event_median_ms(each, ev)),
                             gbs(_batch_ms(each, ev))))
        if axis == 0:
            assert np.array_equal(out.get(), want)
        del out, src
        if torch is not None:
            tp = [torch.from_numpy(h).cuda() for h in hosts]
            tev = torch_events()

            def tcat():
                return torch.cat(tp, dim=axis)
            print("%s  torch.cat: per call %.1f GB/s, back to back %.1f GB/s"
                  % (label, gbs(event_median_ms(tcat, tev)),
                     gbs(_batch_ms(tcat, tev))))
            del tp
        for unroll, bps, alike in pairs:
            jk.UNROLL, jk.BLOCKS_PER_SM, jk.ALIKE = unroll, bps, alike
            jk._RECENT_JOINS.clear()
            try:
                assert np.array_equal(join().get().ravel(), want)
                per = event_median_ms(join, ev)
                back = _batch_ms(join, ev)
                print("%s  gpuarr %s unroll %d, %2d blocks/SM: per call "
                      "%.1f GB/s, back to back %.1f GB/s"
                      % (label, "alike  " if alike else "general", unroll,
                         bps, gbs(per), gbs(back)))
            finally:
                jk.UNROLL, jk.BLOCKS_PER_SM, jk.ALIKE = u0, b0, a0
                jk._RECENT_JOINS.clear()
        del parts


if __name__ == "__main__":
    main()
