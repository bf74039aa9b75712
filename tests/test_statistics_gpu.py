"""GPU checks against numpy of partition/argpartition, the set routines
(isin, intersect1d, union1d, setdiff1d), bincount, digitize, histogram,
quantile, percentile and median: every real dtype, odd sizes, axes,
non-contiguous inputs, NaN, empty inputs."""
import warnings

import numpy as np
import pytest

import gpuarr

from test_joining_gpu import rand, same

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(2027)
REAL = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16,
                              np.uint16, np.int32, np.uint32, np.int64,
                              np.uint64, np.float16, np.float32, np.float64)]
FLOAT = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]


def close(got, want, rtol):
    """dtype and shape numpy's, values to ``rtol`` (NaN where numpy's)."""
    assert isinstance(got, gpuarr.GPUArray), type(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=0,
                               equal_nan=True)


def small_ints(shape, dt, hi=40):
    """Values with many repeats (the set routines need equal values)."""
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    x = _rng.integers(0, hi, shape)
    if dt.kind in "iu":
        return x.astype(dt)
    return (x / 4.0 - 3).astype(dt)


@pytest.mark.parametrize("dt", REAL, ids=str)
def test_partition_puts_kth_in_place(dt):
    h = rand((7, 33), dt)
    g = gpuarr.to_gpu(h)
    for kth, axis in ((5, -1), ([0, 16, -1], -1), (3, 0), (100, None)):
        got = gpuarr.partition(g, kth, axis=axis).get()
        srt = np.sort(h, axis=axis)
        ks = np.atleast_1d(kth)
        # numpy's promise: the kth elements are those a sort puts there
        np.testing.assert_array_equal(np.take(got, ks, axis=-1 if axis is None else axis),
                                      np.take(srt, ks, axis=-1 if axis is None else axis))
        idx = gpuarr.argpartition(g, kth, axis=axis).get()
        src = h.reshape(-1) if axis is None else h
        np.testing.assert_array_equal(
            np.take_along_axis(src, idx, axis=-1 if axis is None else axis),
            got)


@pytest.mark.parametrize("dt", REAL, ids=str)
def test_set_routines(dt):
    a = small_ints((5, 41), dt)
    b = small_ints((37,), dt)
    ga_, gb = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    same(gpuarr.isin(ga_, gb), np.isin(a, b))
    same(gpuarr.isin(ga_[:, ::-3], gb, invert=True), np.isin(a[:, ::-3], b, invert=True))
    same(gpuarr.intersect1d(ga_, gb), np.intersect1d(a, b))
    same(gpuarr.union1d(ga_, gb), np.union1d(a, b))
    same(gpuarr.setdiff1d(ga_, gb), np.setdiff1d(a, b))
    v, i1, i2 = gpuarr.intersect1d(ga_, gb, return_indices=True)
    wv, w1, w2 = np.intersect1d(a, b, return_indices=True)
    same(v, wv)
    same(i1, w1.astype(np.int64))
    same(i2, w2.astype(np.int64))
    ua, ub = np.unique(a), np.unique(b)
    same(gpuarr.intersect1d(gpuarr.to_gpu(ua), gpuarr.to_gpu(ub),
                            assume_unique=True), np.intersect1d(ua, ub, True))
    same(gpuarr.setdiff1d(gpuarr.to_gpu(ua), gb, assume_unique=True),
         np.setdiff1d(ua, b, True))


def test_set_routines_mixed_dtypes_nan_and_empty():
    a = np.array([1.0, np.nan, 2.0, -0.0, 5.0])
    b = np.array([0, 2, 9], np.int32)          # float64 against int32
    ga_, gb = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    same(gpuarr.isin(ga_, gb), np.isin(a, b))
    same(gpuarr.isin(gb, ga_), np.isin(b, a))
    same(gpuarr.isin(ga_, gpuarr.to_gpu(a)), np.isin(a, a))       # NaN: False
    same(gpuarr.intersect1d(ga_, gpuarr.to_gpu(a)), np.intersect1d(a, a))
    e = gpuarr.to_gpu(np.zeros(0, np.float64))
    same(gpuarr.isin(ga_, e), np.isin(a, []))
    same(gpuarr.isin(e, ga_), np.isin(np.zeros(0), a))
    same(gpuarr.intersect1d(e, ga_), np.intersect1d(np.zeros(0), a))
    same(gpuarr.union1d(e, e), np.union1d(np.zeros(0), np.zeros(0)))
    same(gpuarr.isin(gpuarr.to_gpu(np.array(2.0)), ga_), np.isin(2.0, a))


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.bool_, np.uint8,
                                                      np.int16, np.int32,
                                                      np.int64, np.uint64)],
                         ids=str)
def test_bincount(dt):
    x = small_ints((1001,), dt, hi=50)
    g = gpuarr.to_gpu(x)
    same(gpuarr.bincount(g), np.bincount(x))
    same(gpuarr.bincount(g[::-3], minlength=80), np.bincount(x[::-3], minlength=80))
    w = rand((1001,), np.float32)
    close(gpuarr.bincount(g, weights=gpuarr.to_gpu(w)),
          np.bincount(x, weights=w), 1e-9)
    same(gpuarr.bincount(gpuarr.to_gpu(x[:0]), minlength=3),
         np.bincount(x[:0], minlength=3))
    # values up to 2047 count in shared memory, past it through add.at
    for top in (2047, 2048, 5000):
        big = _rng.integers(0, top + 1, 30_001)
        big[7] = top
        big = big.astype(dt) if dt.kind != "b" else big > top // 2
        same(gpuarr.bincount(gpuarr.to_gpu(big)), np.bincount(big))


def test_bincount_negative_raises():
    with pytest.raises(ValueError, match="no negative elements"):
        gpuarr.bincount(gpuarr.to_gpu(np.array([3, -1, 2])))


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.int32, np.uint8,
                                                      np.float32, np.float64)],
                         ids=str)
def test_digitize(dt):
    x = rand((6, 45), dt)
    g = gpuarr.to_gpu(x)
    low = 0 if dt.kind == "u" else -10
    for bins in (np.array([low, 1, 3, 50, 99], dt),
                 np.array([80, 20, 20, 1], dt), np.array([5], dt)):
        for right in (False, True):
            same(gpuarr.digitize(g, bins, right),
                 np.digitize(x, bins, right).astype(np.int64))
            same(gpuarr.digitize(g.T, gpuarr.to_gpu(bins), right),
                 np.digitize(x.T, bins, right).astype(np.int64))


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.int16, np.uint32,
                                                      np.float16, np.float32,
                                                      np.float64)], ids=str)
def test_histogram(dt):
    a = rand((37, 29), dt)
    g = gpuarr.to_gpu(a)
    for kw in ({}, {"bins": 7}, {"bins": 1}, {"bins": 13, "range": (0, 40)},
               {"bins": [-20, 0, 1, 10, 70]}, {"bins": 5, "density": True}):
        h, e = gpuarr.histogram(g, **kw)
        wh, we = np.histogram(a, **kw)
        same(e, we)
        if kw.get("density"):
            close(h, wh, 1e-12)
        else:
            same(h, wh)
    w = rand((37, 29), np.float64)
    h, e = gpuarr.histogram(g[:, ::-2], bins=6, weights=gpuarr.to_gpu(w[:, ::-2]))
    wh, we = np.histogram(a[:, ::-2], bins=6, weights=w[:, ::-2])
    same(e, we)
    close(h, wh, 1e-9)


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (
    np.int8, np.int64, np.uint64, np.float16, np.float32, np.float64)],
    ids=str)
def test_histogram_in_shared_memory(dt):
    # the one-pass kernel (up to 2048 bins) against numpy: values on the
    # edges, NaN, equal and unequal and repeated edges, a bin count past
    # the kernel's (the general path), a reversed strided view, weights
    rng = np.random.default_rng()
    n = 200_003
    if dt.kind in "iu":
        lo, hi = (0, 120) if dt.kind == "u" else (-100, 100)
        a = rng.integers(lo, hi, n).astype(dt)
        span = (lo + 5, hi - 5)
    else:
        a = (rng.standard_normal(n) * 3).astype(dt)
        span = (-4, 4)
    on_edges = np.histogram_bin_edges(a, 64, span).astype(dt)
    a[::11] = on_edges[rng.integers(0, 65, a[::11].size)]
    if dt.kind == "f":
        a[5::97] = np.nan
    g = gpuarr.to_gpu(a)
    # float16: numpy's equal-bin arithmetic rounds to float16, and with
    # thousands of bins its one correction step can leave a value a bin
    # away from its edges; gpuarr (and searchsorted) follow the edges
    many = (2048, 2049) if dt.itemsize > 2 else (500,)
    mid = (span[0] + span[1]) // 2
    for kw in ({"bins": 64, "range": span}, {"bins": many[0], "range": span},
               {"bins": many[-1], "range": span}, {"bins": 3, "range": span},
               {"bins": np.sort(rng.uniform(*span, 300))},
               {"bins": np.array([span[0], mid, mid, mid + 1, mid + 1,
                                  span[1]])}):
        h, e = gpuarr.histogram(g, **kw)
        wh, we = np.histogram(a, **kw)
        same(e, we)
        same(h, wh)
    w = rng.standard_normal(n).astype(np.float32)
    h, _ = gpuarr.histogram(g[::-3], 100, span, weights=gpuarr.to_gpu(w)[::-3])
    wh, _ = np.histogram(a[::-3], 100, span, weights=w[::-3])
    # float32 sums of signed weights in another order: the error bound is
    # relative to a bin's sum of |w| (a bin's sum can cancel to ~0)
    wabs, _ = np.histogram(a[::-3], 100, span, weights=np.abs(w[::-3]))
    assert h.dtype == wh.dtype and h.shape == wh.shape
    assert (np.abs(h.get().astype(np.float64) - wh) <= 1e-5 * wabs).all()
    h, _ = gpuarr.histogram(g[::-3], 100, span, density=True)
    close(h, np.histogram(a[::-3], 100, span, density=True)[0], 1e-12)


def test_histogram_edges_cases():
    same(gpuarr.histogram(gpuarr.to_gpu(np.full(9, 2.5)), 4)[0],
         np.histogram(np.full(9, 2.5), 4)[0])
    e = gpuarr.to_gpu(np.zeros(0))
    for got, want in zip(gpuarr.histogram(e, 3), np.histogram(np.zeros(0), 3)):
        same(got, want)
    h = np.array([1.0, np.nan, 3.0])
    with pytest.raises(ValueError, match="not finite"):
        gpuarr.histogram(gpuarr.to_gpu(h))
    got, _ = gpuarr.histogram(gpuarr.to_gpu(h), 2, range=(0, 4))
    same(got, np.histogram(h, 2, range=(0, 4))[0])


@pytest.mark.parametrize("dt", REAL[1:], ids=str)
def test_quantile_percentile_median(dt):
    a = rand((6, 11, 5), dt)
    g = gpuarr.to_gpu(a)
    tol = {"e": 2e-3, "f": 1e-6}.get(np.dtype(dt).char, 1e-13)
    for axis in (None, 0, 1, -1, (0, 2)):
        close(gpuarr.quantile(g, 0.3, axis=axis),
              np.quantile(a, 0.3, axis=axis), tol)
        close(gpuarr.quantile(g, [0.0, 0.5, 0.91, 1.0], axis=axis),
              np.quantile(a, [0.0, 0.5, 0.91, 1.0], axis=axis), tol)
        close(gpuarr.median(g, axis=axis), np.median(a, axis=axis), tol)
        close(gpuarr.percentile(g, 75, axis=axis, keepdims=True),
              np.percentile(a, 75, axis=axis, keepdims=True), tol)
    for method in ("lower", "higher", "nearest", "midpoint"):
        close(gpuarr.quantile(g[:, ::-2], [0.2, 0.66], axis=1, method=method),
              np.quantile(a[:, ::-2], [0.2, 0.66], axis=1, method=method), tol)
    out = gpuarr.empty((11, 5), np.float64)
    assert gpuarr.quantile(g, 0.5, axis=0, out=out) is out
    close(out, np.quantile(a, 0.5, axis=0).astype(np.float64), tol)


@pytest.mark.parametrize("dt", FLOAT, ids=str)
def test_order_statistics_with_nan(dt):
    a = rand((4, 9), dt)
    a[1, 3] = np.nan
    a[3, 0] = np.nan
    g = gpuarr.to_gpu(a)
    close(gpuarr.median(g, axis=1), np.median(a, axis=1), 2e-3)
    close(gpuarr.quantile(g, [0.25, 0.75], axis=1),
          np.quantile(a, [0.25, 0.75], axis=1), 2e-3)
    close(gpuarr.median(g), np.median(a), 2e-3)
    close(gpuarr.median(g[:, :0], axis=1), np.full(4, np.nan, dt), 0)
    with pytest.raises(IndexError):
        gpuarr.quantile(g[:, :0], 0.5, axis=1)


@pytest.mark.parametrize("dt", REAL[1:], ids=str)
def test_nan_order_statistics(dt):
    # slices with no NaN, some, and (floats) only NaN; every method, q as
    # a Python float (weak: the data's dtype) and as arrays
    a = rand((6, 11, 5), dt)
    if dt.kind == "f":
        flat = a.reshape(-1)
        flat[_rng.choice(flat.size, flat.size // 4, replace=False)] = np.nan
        a[2, :, 3] = np.nan
        a[:, 4, :] = np.nan
    g = gpuarr.to_gpu(a)
    tol = {"e": 2e-3, "f": 1e-6}.get(np.dtype(dt).char, 1e-13)
    with warnings.catch_warnings():
        # numpy warns of all-NaN slices and empty means; gpuarr does not
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis in (None, 0, 1, -1, (0, 2)):
            for q in (0.3, 0.0, 1.0, [0.0, 0.5, 0.91, 1.0],
                      np.array([[0.25], [0.8]])):
                want = np.nanquantile(a, q, axis=axis)
                close(gpuarr.nanquantile(g, q, axis=axis), want, tol)
                if not isinstance(q, np.ndarray):
                    close(np.nanquantile(g, q, axis=axis), want, tol)
            close(gpuarr.nanmedian(g, axis=axis),
                  np.nanmedian(a, axis=axis), tol)
            close(np.nanmedian(g, axis=axis, keepdims=True),
                  np.nanmedian(a, axis=axis, keepdims=True), tol)
            close(gpuarr.nanpercentile(g, 75, axis=axis, keepdims=True),
                  np.nanpercentile(a, 75, axis=axis, keepdims=True), tol)
        for method in ("lower", "higher", "nearest", "midpoint"):
            for q in ([0.2, 0.66], 0.5):
                close(gpuarr.nanquantile(g[:, ::-2], q, axis=1,
                                         method=method),
                      np.nanquantile(a[:, ::-2], q, axis=1, method=method),
                      tol)
        out = gpuarr.empty((11, 5), np.float64)
        assert gpuarr.nanquantile(g, 0.5, axis=0, out=out) is out
        close(out, np.nanquantile(a, 0.5, axis=0).astype(np.float64), tol)
        # an empty reduction: numpy's nanmean of it, NaN
        e = a[:, :0]
        close(gpuarr.nanquantile(gpuarr.to_gpu(e), 0.5, axis=1),
              np.nanquantile(e, 0.5, axis=1), 0)
        close(gpuarr.nanmedian(gpuarr.to_gpu(e), axis=1),
              np.nanmedian(e, axis=1), 0)


@pytest.mark.parametrize("dt", REAL[1:], ids=str)
def test_histogram_bin_edges(dt):
    a = rand((7, 13), dt)
    g = gpuarr.to_gpu(a)
    for bins, rng_ in ((10, None), (3, (0, 5)), ([0, 1, 2.5, 7], None),
                       (1, None)):
        want = np.histogram_bin_edges(a, bins, rng_)
        for fn in (gpuarr.histogram_bin_edges, np.histogram_bin_edges):
            got = fn(g, bins, rng_)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.get(), want)
        # the edges histogram uses
        edges = gpuarr.histogram(g, bins, rng_)[1]
        np.testing.assert_array_equal(edges.get(), want)
    with pytest.raises(ValueError, match="same shape"):
        gpuarr.histogram_bin_edges(g, 4, weights=g[0])
