"""Sweep of the take kernel of ``gpuarr.take`` and ``gpuarr.multi_take``
on the GPU machine: whether the index array and the output carry the
streaming (evict-first) hints (``_joinkernels.TAKE_STREAM``), so that they
do not push the gathered array out of L2, and the grid
(``_joinkernels.TAKE_BLOCKS_PER_SM``: 8, a persistent grid looping over
the indices, or 0, a block per 256 indices as CuPy launches), and the
same two for the gather of ``a[idx]`` (``_indexkernels.MOVE_STREAM`` and
``MOVE_BLOCKS_PER_SM``, 0 there: a block per 1024 elements).  (The
gathers' load path was swept too, on an H100: the read-only path, L2
alone and a plain load were within 0.5%; the read-only path stayed.)  Rows: ``run.py joining``'s multi_take (16 arrays of 2**22
float32, one int64 index array of 2**22, negative indices too) and take of
2**26 float32 (int64 indices, mode="raise") from an array of 2**26 (its
gathers miss in L2) and of 2**22 (they hit), and ``a[idx]`` of 2**28
float32 from 2**28 (``run.py indexing``'s row) and from 2**22, beside
CuPy's and PyTorch's in the same process, each call between two events
(medians).

    python benchmarks/sweep_take.py [stream:blocks ...]
    (default 0:8 1:8 0:0 1:0)
"""
import sys

import numpy as np

from common import event_median_ms, gbs, gpuarr_events, rivals, rivals_gbs

NMULTI = 16
NM = 2 ** 22


def main():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    from gpuarr import _indexkernels as ik
    from gpuarr import _joinkernels as jk

    configs = []
    for a in sys.argv[1:] or ["0:8", "1:8", "0:0", "1:0"]:
        st, bps = a.split(":")
        configs.append((bool(int(st)), int(bps)))
    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(5)
    rows = []

    hosts = [rng.standard_normal(NM, dtype=np.float32)
             for _ in range(NMULTI)]
    host_i = rng.integers(-NM, NM, NM, dtype=np.int64)
    arrs, idx = [gpuarr.to_gpu(h) for h in hosts], gpuarr.to_gpu(host_i)
    nbytes = 8 * NM + NMULTI * 2 * 4 * NM
    fns = {}
    if cp is not None:
        ca, ci = [cp.asarray(h) for h in hosts], cp.asarray(host_i % NM)
        fns["CuPy"] = lambda: [cp.take(x, ci) for x in ca]
    if torch is not None:
        ta = [torch.from_numpy(h).cuda() for h in hosts]
        ti = torch.from_numpy(host_i % NM).cuda()
        fns["PyTorch"] = lambda: [torch.take(x, ti) for x in ta]
    theirs = rivals_gbs(cp, torch, fns, nbytes)
    fns.clear()

    def multi():
        got = gpuarr.multi_take(arrs, idx)
        for g, h in zip(got, hosts):
            assert np.array_equal(g.get(), np.take(h, host_i))
        return gbs(nbytes, event_median_ms(
            lambda: gpuarr.multi_take(arrs, idx), ev))
    rows.append(("multi_take 16 x 2**22 f32", multi, theirs))

    for size in (2 ** 26, 2 ** 22):
        host_a = rng.standard_normal(size, dtype=np.float32)
        host_t = rng.integers(-size, size, 2 ** 26, dtype=np.int64)
        a, t = gpuarr.to_gpu(host_a), gpuarr.to_gpu(host_t)
        nb = 2 ** 26 * (8 + 4 + 4)
        fns = {}
        if cp is not None:
            ca, ct = cp.asarray(host_a), cp.asarray(host_t % size)
            fns["CuPy"] = lambda: cp.take(ca, ct)
        if torch is not None:
            ta = torch.from_numpy(host_a).cuda()
            tt = torch.from_numpy(host_t % size).cuda()
            fns["PyTorch"] = lambda: torch.take(ta, tt)
        theirs = rivals_gbs(cp, torch, fns, nb)
        fns.clear()

        def one(a=a, t=t, host_a=host_a, host_t=host_t, nb=nb):
            assert np.array_equal(gpuarr.take(a, t).get(),
                                  np.take(host_a, host_t))
            return gbs(nb, event_median_ms(lambda: gpuarr.take(a, t), ev))
        rows.append(("take 2**26 f32 from 2**%d" % (size.bit_length() - 1),
                     one, theirs))

    for size in (2 ** 28, 2 ** 22):
        host_a = rng.standard_normal(size, dtype=np.float32)
        host_t = rng.integers(0, size, 2 ** 28, dtype=np.int64)
        a, t = gpuarr.to_gpu(host_a), gpuarr.to_gpu(host_t)
        nb = 2 ** 28 * (8 + 4 + 4)
        fns = {}
        if cp is not None:
            ca, ct = cp.asarray(host_a), cp.asarray(host_t)
            fns["CuPy"] = lambda: ca[ct]
        if torch is not None:
            ta = torch.from_numpy(host_a).cuda()
            tt = torch.from_numpy(host_t).cuda()
            fns["PyTorch"] = lambda: ta[tt]
        theirs = rivals_gbs(cp, torch, fns, nb)
        fns.clear()

        def index(a=a, t=t, host_a=host_a, host_t=host_t, nb=nb):
            assert np.array_equal(a[t].get(), host_a[host_t])
            return gbs(nb, event_median_ms(lambda: a[t], ev))
        rows.append(("a[idx] 2**28 f32 from 2**%d" % (size.bit_length() - 1),
                     index, theirs))

    saved = (jk.TAKE_STREAM, jk.TAKE_BLOCKS_PER_SM, ik.MOVE_STREAM,
             ik.MOVE_BLOCKS_PER_SM)
    for label, fn, theirs in rows:
        print("%s: %s" % (label, ", ".join(
            "%s %.1f GB/s" % kv for kv in theirs.items())))
        for st, bps in configs:
            jk.TAKE_STREAM, jk.TAKE_BLOCKS_PER_SM = st, bps
            ik.MOVE_STREAM, ik.MOVE_BLOCKS_PER_SM = st, bps
            try:
                print("  gpuarr streaming hints %s, %s: %.1f GB/s"
                      % ("on " if st else "off",
                         "%d blocks/SM" % bps if bps else "full grid", fn()))
            finally:
                (jk.TAKE_STREAM, jk.TAKE_BLOCKS_PER_SM, ik.MOVE_STREAM,
                 ik.MOVE_BLOCKS_PER_SM) = saved


if __name__ == "__main__":
    main()
