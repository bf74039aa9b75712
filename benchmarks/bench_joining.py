"""Joins and gathers (issue 13, item 2), float32, beside CuPy and PyTorch:
``concatenate`` of 64 arrays (one kernel launch), ``take`` and
``multi_take``.

Bandwidth counts the bytes a join or gather must move: every input element
read once and every output element written once; a gather also reads its
indices (and each gathered value once).
"""
import numpy as np

from common import (add_row, event_median_ms, gbs, gpuarr_events, rivals,
                    rivals_gbs, wall_per_call)

PARTS = 64
PART = 2 ** 20          # elements of each joined array
BIG = 2 ** 22           # the same, issue 13's row
ROWS, COLS = 1024, 256  # the (ROWS, COLS) parts joined along axis 1
NT = 2 ** 26            # take: source and index size
NMULTI = 16             # multi_take: arrays
NM = 2 ** 22            # multi_take: each array's and the index size


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv

    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(3)

    def others(fns, nbytes):
        return rivals_gbs(cp, torch, fns, nbytes)

    def join_row(label, hosts, axis):
        """One concatenate row: the 64 parts joined along ``axis`` by each
        library, checked against numpy; returns gpuarr's parts."""
        parts = [gpuarr.to_gpu(h) for h in hosts]
        cps = [cp.asarray(h) for h in hosts] if cp is not None else None
        tps = ([torch.from_numpy(h).cuda() for h in hosts]
               if torch is not None else None)
        nbytes = 2 * sum(h.nbytes for h in hosts)
        ms = event_median_ms(lambda: gpuarr.concatenate(parts, axis=axis),
                             ev)
        o = others({"CuPy": cps and (lambda: cp.concatenate(cps, axis=axis)),
                    "PyTorch": tps and (lambda: torch.cat(tps, dim=axis))},
                   nbytes)
        add_row(label, "GB/s", gbs(nbytes, ms), o, nbytes, "higher")
        assert np.array_equal(gpuarr.concatenate(parts, axis=axis).get(),
                              np.concatenate(hosts, axis=axis))
        return parts, cps, tps

    # concatenate of 64 1-d arrays (axis 0)
    parts, cparts, tparts = join_row("concatenate 64 x 2**20 f32, axis 0",
                                     [rng.standard_normal(PART, dtype=np.float32)
                                      for _ in range(PARTS)], 0)
    # issue 13's row: 64 arrays of 2**22 (2 GiB moved: the per-call host
    # time is a few percent of it, the kernel the rest)
    join_row("concatenate 64 x 2**22 f32, axis 0",
             [rng.standard_normal(BIG, dtype=np.float32)
              for _ in range(PARTS)], 0)
    # concatenate of 64 (1024, 256) arrays along axis 1
    join_row("concatenate 64 x (1024,256) f32, axis 1",
             [rng.standard_normal((ROWS, COLS), dtype=np.float32)
              for _ in range(PARTS)], 1)

    # concatenate of 64 small arrays: the per-call cost, wall clock
    small = [p[:1024] for p in parts]
    us = wall_per_call(lambda: gpuarr.concatenate(small), drv.Context.synchronize, n=2000)
    o = {}
    if cp is not None:
        csmall = [c[:1024] for c in cparts]
        o["CuPy"] = wall_per_call(lambda: cp.concatenate(csmall),
                                  cp.cuda.runtime.deviceSynchronize, n=2000)
    if torch is not None:
        tsmall = [t[:1024] for t in tparts]
        o["PyTorch"] = wall_per_call(lambda: torch.cat(tsmall), torch.cuda.synchronize, n=2000)
    add_row("concatenate 64 x 1024 f32 (per call, wall)", "us", us, o)
    del parts, cparts, tparts

    # take: 2**26 random int64 indices into 2**26 f32
    host_a = rng.standard_normal(NT, dtype=np.float32)
    host_i = rng.integers(0, NT, NT, dtype=np.int64)
    a, idx = gpuarr.to_gpu(host_a), gpuarr.to_gpu(host_i)
    ca = ci = ta = ti = None
    if cp is not None:
        ca, ci = cp.asarray(host_a), cp.asarray(host_i)
    if torch is not None:
        ta, ti = torch.from_numpy(host_a).cuda(), torch.from_numpy(host_i).cuda()
    nbytes = (8 + 4 + 4) * NT
    fns = {"CuPy": ca is not None and (lambda: cp.take(ca, ci)),
           "PyTorch": ta is not None and (lambda: torch.take(ta, ti))}
    o = others(fns, nbytes)
    for mode in ("raise", "wrap"):
        ms = event_median_ms(lambda: gpuarr.take(a, idx, mode=mode), ev)
        add_row("take 2**26 f32, int64 indices, mode=%s" % mode, "GB/s",
                gbs(nbytes, ms), o, nbytes, "higher")
    assert np.array_equal(gpuarr.take(a, idx).get(), host_a[host_i])

    # small take: per call (mode="raise" waits for the bounds flag)
    sa, si = a[:1024], idx[:1024] % 1024
    for mode in ("raise", "wrap"):
        us = wall_per_call(lambda: gpuarr.take(sa, si, mode=mode), drv.Context.synchronize,
                           n=2000)
        o = {}
        if cp is not None:
            csa, csi = ca[:1024], ci[:1024] % 1024
            o["CuPy"] = wall_per_call(lambda: cp.take(csa, csi),
                                      cp.cuda.runtime.deviceSynchronize, n=2000)
        if torch is not None:
            tsa, tsi = ta[:1024], ti[:1024] % 1024
            o["PyTorch"] = wall_per_call(lambda: torch.take(tsa, tsi),
                                         torch.cuda.synchronize, n=2000)
        add_row("take 1024 f32, mode=%s (per call, wall)" % mode, "us", us, o)
    del a, idx, ca, ci, ta, ti

    # multi_take: 16 arrays of 2**22 f32, one index array
    hosts = [rng.standard_normal(NM, dtype=np.float32) for _ in range(NMULTI)]
    host_i = rng.integers(-NM, NM, NM, dtype=np.int64)
    arrs, idx = [gpuarr.to_gpu(h) for h in hosts], gpuarr.to_gpu(host_i)
    nbytes = 8 * NM + NMULTI * 2 * 4 * NM
    ms = event_median_ms(lambda: gpuarr.multi_take(arrs, idx), ev)
    fns = {}
    if cp is not None:
        carrs, ci = [cp.asarray(h) for h in hosts], cp.asarray(host_i % NM)
        fns["CuPy"] = lambda: [cp.take(x, ci) for x in carrs]
    if torch is not None:
        tarrs, ti = [torch.from_numpy(h).cuda() for h in hosts], torch.from_numpy(host_i % NM).cuda()
        fns["PyTorch"] = lambda: [torch.take(x, ti) for x in tarrs]
    add_row("multi_take 16 x 2**22 f32, int64 indices", "GB/s", gbs(nbytes, ms),
            others(fns, nbytes), nbytes, "higher")
    got = gpuarr.multi_take(arrs, idx)
    for g, h in zip(got, hosts):
        assert np.array_equal(g.get(), np.take(h, host_i))


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
