"""Advanced indexing (issue 13, item 1), float32, beside CuPy and PyTorch:
the gather ``a[idx]`` with random int64 indices (and its time a call at
1024 elements: numpy's IndexError needs the bounds flag read back), the
boolean mask
``a[a > 0]`` (the comparison included, as a user writes it) and the
unbuffered scatter ``add.at`` with many repeats.

Bandwidth counts the bytes the operation must move: a gather reads the
indices and writes the result (and reads each gathered value once); the
mask reads the array, writes the mask, reads it and writes the selected
half; add.at reads indices and values and updates the bins.
"""
import numpy as np

from common import (add_row, event_median_ms, gbs, gpuarr_events, rivals,
                    rivals_gbs, wall_per_call)

NG = 2 ** 28        # gather: source and index size
NM = 2 ** 28        # mask: array size
NU = 2 ** 26        # add.at: updates
NB = 2 ** 20        # add.at: bins


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    from gpuarr import _indexing

    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(5)

    def others(fns, nbytes):
        return rivals_gbs(cp, torch, fns, nbytes)

    # gather a[idx]
    ha = rng.standard_normal(NG, dtype=np.float32)
    hi = rng.integers(0, NG, NG, dtype=np.int64)
    a, i = gpuarr.to_gpu(ha), gpuarr.to_gpu(hi)
    ca = ci = ta = ti = None
    if cp is not None:
        ca, ci = cp.asarray(ha), cp.asarray(hi)
    if torch is not None:
        ta, ti = torch.from_numpy(ha).cuda(), torch.from_numpy(hi).cuda()
    nbytes = NG * (8 + 4 + 4)
    ms = event_median_ms(lambda: a[i], ev)
    o = others({"CuPy": ca is not None and (lambda: ca[ci]),
                "PyTorch": ta is not None and (lambda: ta[ti])}, nbytes)
    add_row("gather a[idx] 2**28 f32, int64 idx", "GB/s", gbs(nbytes, ms), o,
            nbytes, "higher")
    assert np.array_equal(a[i].get(), ha[hi])
    sa, si = a[:1024], i[:1024] % 1024
    us = wall_per_call(lambda: sa[si], drv.Context.synchronize, n=2000)
    o = {}
    if cp is not None:
        csa, csi = ca[:1024], ci[:1024] % 1024
        o["CuPy"] = wall_per_call(lambda: csa[csi],
                                  cp.cuda.runtime.deviceSynchronize, n=2000)
    if torch is not None:
        tsa, tsi = ta[:1024], ti[:1024] % 1024
        o["PyTorch"] = wall_per_call(lambda: tsa[tsi], torch.cuda.synchronize,
                                     n=2000)
    add_row("gather a[idx] 1024 f32 (per call, wall)", "us", us, o)
    del i, ci, ti

    # boolean mask a[a > 0]
    nbytes = NM * (4 + 1 + 1) + NM // 2 * 4
    ms = event_median_ms(lambda: a[a > 0], ev)
    o = others({"CuPy": ca is not None and (lambda: ca[ca > 0]),
                "PyTorch": ta is not None and (lambda: ta[ta > 0])}, nbytes)
    add_row("mask a[a > 0] 2**28 f32", "GB/s", gbs(nbytes, ms), o, nbytes,
            "higher")
    assert np.array_equal(a[a > 0].get(), ha[ha > 0])
    del a, ca, ta

    # add.at: 2**26 updates into 2**20 bins
    hb = np.zeros(NB, np.float32)
    hu = rng.integers(0, NB, NU, dtype=np.int64)
    hv = rng.standard_normal(NU, dtype=np.float32)
    b, u, v = gpuarr.to_gpu(hb), gpuarr.to_gpu(hu), gpuarr.to_gpu(hv)
    nbytes = NU * (8 + 4) + 2 * NB * 4
    ms = event_median_ms(lambda: _indexing.ufunc_at("add", b, u, v), ev)
    fns = {}
    if cp is not None:
        cb, cu, cv = cp.asarray(hb), cp.asarray(hu), cp.asarray(hv)
        fns["CuPy"] = lambda: cp.add.at(cb, cu, cv)
    if torch is not None:
        tb, tu, tv = (torch.from_numpy(hb).cuda(), torch.from_numpy(hu).cuda(),
                      torch.from_numpy(hv).cuda())
        fns["PyTorch"] = lambda: tb.index_add_(0, tu, tv)
    o = others(fns, nbytes)
    add_row("add.at 2**26 updates into 2**20 bins f32", "GB/s", gbs(nbytes, ms),
            o, nbytes, "higher")
    b2 = gpuarr.zeros(NB, np.float32)
    _indexing.ufunc_at("add", b2, u, v)
    want = np.zeros(NB, np.float64)
    np.add.at(want, hu, hv.astype(np.float64))
    assert np.allclose(b2.get(), want, rtol=1e-3, atol=1e-3)
