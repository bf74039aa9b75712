"""Fused kernels (issue 14): gpuarr.fuse beside cupy.fuse, and PyTorch's
eager (unfused) form of the same expression.

Bandwidth counts the bytes the fused kernel must move: each input read once
and the output written once.
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gbs, gpuarr_events,
                    rivals, torch_events, wall_per_call)

N = 2 ** 28


def chain(a, b, c, d):
    return (a * b + c) * d


def dot(x, y):
    return (x * y).sum()


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv

    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(5)
    hosts = [rng.standard_normal(N, dtype=np.float32) for _ in range(4)]
    g = [gpuarr.to_gpu(h) for h in hosts]
    fchain = gpuarr.fuse(chain)
    fdot = gpuarr.fuse(dot)
    want = chain(*hosts[:2], *hosts[2:])
    assert np.array_equal(fchain(*g).get(), want)
    c = t = None
    if cp is not None:
        c = [cp.asarray(h) for h in hosts]
        cchain = cp.fuse(chain)
        cdot = cp.fuse(dot)
    if torch is not None:
        t = [torch.from_numpy(h).cuda() for h in hosts]

    nbytes = 5 * 4 * N
    ms = event_median_ms(lambda: fchain(*g), ev)
    o = {}
    if cp is not None:
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cchain(*c),
                                                cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(lambda: chain(*t),
                                                   torch_events()))
    add_row("fused (a*b+c)*d 2**28 f32 (CuPy: cupy.fuse; PyTorch: eager)",
            "GB/s", gbs(nbytes, ms), o, nbytes, "higher")
    ms = event_median_ms(lambda: chain(*g), ev)
    add_row("unfused (a*b+c)*d 2**28 f32 (gpuarr, 3 kernels)", "GB/s",
            gbs(nbytes, ms), {}, nbytes, "higher")

    nbytes = 2 * 4 * N
    r = float(fdot(g[0], g[1]).get())
    exact = float(np.dot(hosts[0].astype(np.float64), hosts[1]))
    assert abs(r - exact) <= 1e-3 * np.sqrt(N)
    ms = event_median_ms(lambda: fdot(g[0], g[1]), ev)
    o = {}
    if cp is not None:
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cdot(c[0], c[1]),
                                                cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(
            lambda: torch.sum(t[0] * t[1]), torch_events()))
    add_row("fused sum(a*b) 2**28 f32 (CuPy: cupy.fuse; PyTorch: eager)",
            "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # the per-call cost on a small array (host time dominates)
    small = [x[:1024] for x in g]
    us = wall_per_call(lambda: fchain(*small), drv.Context.synchronize)
    o = {}
    if cp is not None:
        cs = [x[:1024] for x in c]
        o["CuPy"] = wall_per_call(lambda: cchain(*cs),
                                  cp.cuda.Device().synchronize)
    if torch is not None:
        ts = [x[:1024] for x in t]
        o["PyTorch"] = wall_per_call(lambda: chain(*ts),
                                     torch.cuda.synchronize)
    add_row("fused (a*b+c)*d 1024 f32 (wall per call)", "us", us, o)
