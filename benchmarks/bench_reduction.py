"""Reductions, float32, beside CuPy and PyTorch on the same data (one
process): GB/s of the bytes read (both inputs for ``dot``), and the
wall-clock microseconds per call of a small ``sum`` (lower is better).

Workloads: ``sum``, ``max``, ``dot`` of 2**28 elements, ``sum(axis=1)`` and
``sum(axis=0)`` of a (16384, 16384) array, PyCUDA's ``subset_dot`` of 2**24
random indices, ``sum`` of 1024 elements.
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gpuarr_events,
                    rivals, torch_events, wall_per_call)

N = 1 << 28
M = 16384


def _rate(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def run():
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    from gpuarr import gpuarray as ga
    from gpuarr import reductions as R

    cp, torch = rivals()
    rng = np.random.default_rng(0)
    hx = rng.standard_normal(N, dtype=np.float32)
    hy = rng.standard_normal(N, dtype=np.float32)
    x, y = ga.to_gpu(hx), ga.to_gpu(hy)
    h2 = hx.reshape(M, M)
    x2 = x.reshape(M, M)
    libs = {}
    if cp is not None:
        cx, cy = cp.asarray(hx), cp.asarray(hy)
        libs["CuPy"] = (cupy_events(), {
            "sum": lambda: cx.sum(), "max": lambda: cx.max(),
            "dot": lambda: cp.dot(cx, cy),
            "sum1": lambda: cx.reshape(M, M).sum(axis=1),
            "sum0": lambda: cx.reshape(M, M).sum(axis=0)})
    if torch is not None:
        tx = torch.from_numpy(hx).cuda()
        ty = torch.from_numpy(hy).cuda()
        libs["PyTorch"] = (torch_events(), {
            "sum": lambda: tx.sum(), "max": lambda: tx.max(),
            "dot": lambda: torch.dot(tx, ty),
            "sum1": lambda: tx.view(M, M).sum(dim=1),
            "sum0": lambda: tx.view(M, M).sum(dim=0)})
    ours = {"sum": lambda: R.sum(x), "max": lambda: R.max(x),
            "dot": lambda: R.dot(x, y), "sum1": lambda: R.sum(x2, axis=1),
            "sum0": lambda: R.sum(x2, axis=0)}
    # correctness first (a benchmark of a wrong answer is worthless)
    assert abs(float(R.sum(x)) - float(hx.astype(np.float64).sum())) < 1e-2 * np.sqrt(N)
    assert float(R.max(x)) == hx.max()
    np.testing.assert_allclose(R.sum(x2, axis=1).get()[:8],
                               h2[:8].astype(np.float64).sum(axis=1),
                               rtol=1e-3, atol=1e-2)
    rows = [("sum", "sum float32 2^28", 4 * N),
            ("max", "max float32 2^28", 4 * N),
            ("dot", "dot float32 2^28 (both inputs)", 8 * N),
            ("sum1", "sum(axis=1) float32 (16384,16384)", 4 * N),
            ("sum0", "sum(axis=0) float32 (16384,16384)", 4 * N)]
    for key, label, nbytes in rows:
        mine = _rate(nbytes, event_median_ms(ours[key], gpuarr_events()))
        others = {}
        for name, (ev, fns) in libs.items():
            others[name] = _rate(nbytes, event_median_ms(fns[key], ev))
        add_row(label, "GB/s", mine, others, nbytes=nbytes, better="higher")
    _subset_rows(ga, cp, torch, x, y, hx, hy, rng)
    small = ga.to_gpu(hx[:1024])
    others = {}
    if cp is not None:
        cs = cp.asarray(hx[:1024])
        others["CuPy"] = wall_per_call(lambda: cs.sum(),
                                       cp.cuda.runtime.deviceSynchronize)
    if torch is not None:
        ts = torch.from_numpy(hx[:1024]).cuda()
        others["PyTorch"] = wall_per_call(lambda: ts.sum(),
                                          torch.cuda.synchronize)
    add_row("sum float32 1024 (wall per call)", "us",
            wall_per_call(lambda: R.sum(small), drv.Context.synchronize),
            others)


def _subset_rows(ga, cp, torch, x, y, hx, hy, rng):
    """PyCUDA's ``subset_dot``: ``dot(a[s], b[s])`` for 2**24 random int32
    indices into 2**28-element float32 vectors, beside CuPy's and
    PyTorch's gather-then-dot.  GB/s of the indices plus one read of each
    gathered element.  gpuarr's default ``mode="raise"`` checks the
    indices (two small reductions and a synchronization, inside the
    timing); ``mode="wrap"`` does not."""
    k = 1 << 24
    hs = rng.integers(0, N, k).astype(np.int32)
    s = ga.to_gpu(hs)
    want = np.dot(hx[hs].astype(np.float64), hy[hs])
    got = float(ga.subset_dot(s, x, y))
    assert abs(got - want) < 1e-3 * np.sqrt(k) + 1e-5 * abs(want), (got, want)
    nbytes = 4 * k + 2 * 4 * k
    others = {}
    if cp is not None:
        cx, cy, cs = cp.asarray(hx), cp.asarray(hy), cp.asarray(hs)
        others["CuPy"] = _rate(nbytes, event_median_ms(
            lambda: cp.dot(cx[cs], cy[cs]), cupy_events()))
    if torch is not None:
        tx = torch.from_numpy(hx).cuda()
        ty = torch.from_numpy(hy).cuda()
        ts = torch.from_numpy(hs.astype(np.int64)).cuda()
        others["PyTorch"] = _rate(nbytes, event_median_ms(
            lambda: torch.dot(tx[ts], ty[ts]), torch_events()))
    for mode in ("raise", "wrap"):
        mine = _rate(nbytes, event_median_ms(
            lambda: ga.subset_dot(s, x, y, mode=mode), gpuarr_events()))
        add_row("subset_dot float32, 2^24 of 2^28 (mode=%s)" % mode, "GB/s",
                mine, others, nbytes=nbytes, better="higher")


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
