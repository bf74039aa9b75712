"""GPU checks of nanmean, nanvar, nanstd, nanprod, nanargmax and
nanargmin against numpy: float dtypes with NaN scattered and whole NaN
slices, complex, integers, axes, keepdims, out, ddof, non-contiguous
inputs."""
import warnings

import numpy as np
import pytest

import gpuarr

from test_joining_gpu import poisoned

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(2030)
FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64,
                                np.complex64, np.complex128)]
TOL = {"e": 3e-3, "f": 2e-6, "d": 1e-12, "F": 2e-6, "D": 1e-12}


def with_nans(shape, dt, allnan_row=True):
    x = _rng.uniform(-3, 5, shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * _rng.uniform(-2, 2, shape)
    x = x.astype(dt)
    x[_rng.random(shape) < 0.2] = np.nan
    if allnan_row and len(shape) == 2:
        x[1] = np.nan
    return x


def near(got, want, dt):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (got.shape, want.shape, got.dtype, want.dtype)
    t = TOL[np.dtype(dt).char]
    np.testing.assert_allclose(got.get(), want, rtol=t, atol=t * 10,
                               equal_nan=True)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_nanmean_var_std_prod(dt):
    x = with_nans((6, 37), dt)
    views = [(gpuarr.to_gpu(x), x), (gpuarr.to_gpu(x)[:, ::-2], x[:, ::-2])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for g, h in views:
            for axis in (None, 0, 1, (0, 1)):
                for kd in (False, True):
                    near(gpuarr.nanmean(g, axis=axis, keepdims=kd),
                         np.nanmean(h, axis=axis, keepdims=kd), dt)
                    near(gpuarr.nanvar(g, axis=axis, keepdims=kd),
                         np.nanvar(h, axis=axis, keepdims=kd), dt)
                    near(gpuarr.nanstd(g, axis=axis, ddof=1, keepdims=kd),
                         np.nanstd(h, axis=axis, ddof=1, keepdims=kd), dt)
            near(gpuarr.nanprod(g[:, :8], axis=1), np.nanprod(h[:, :8], axis=1), dt)
            near(gpuarr.nanprod(g[:, :8]), np.nanprod(h[:, :8]), dt)
        out = poisoned((37,), np.nanmean(x, axis=0).dtype)
        r = gpuarr.nanmean(gpuarr.to_gpu(x), axis=0, out=out)
        assert r is out
        near(out, np.nanmean(x, axis=0), dt)
        near(np.nanmean(gpuarr.to_gpu(x), axis=1), np.nanmean(x, axis=1), dt)
        near(np.nanvar(gpuarr.to_gpu(x), correction=1), np.nanvar(x, ddof=1), dt)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_nanvar_nanstd_with_a_precomputed_mean(dt):
    """numpy 2's mean=: numpy's own nanmean passed in, and a wider one
    (the deviations keep the data's dtype, as numpy's)."""
    x = with_nans((6, 37), dt)
    g = gpuarr.to_gpu(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis in (None, 0, 1):
            m = np.nanmean(x, axis=axis, keepdims=True)
            wide = m.astype(np.complex128 if m.dtype.kind == "c" else np.float64)
            for mean in (m, wide, gpuarr.to_gpu(np.ascontiguousarray(m))):
                hm = mean.get() if isinstance(mean, gpuarr.GPUArray) else mean
                near(gpuarr.nanvar(g, axis=axis, mean=mean),
                     np.nanvar(x, axis=axis, mean=hm), dt)
                near(gpuarr.nanstd(g, axis=axis, ddof=1, mean=mean),
                     np.nanstd(x, axis=axis, ddof=1, mean=hm), dt)
    with pytest.raises(NotImplementedError, match="where="):
        gpuarr.nanvar(g, axis=0, mean=m, where=gpuarr.to_gpu(~np.isnan(x)))


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.float32, np.float64)],
                         ids=str)
def test_nanargmax_nanargmin(dt):
    x = with_nans((6, 37), dt, allnan_row=False)
    x[2, :] = -np.inf
    x[2, 5] = np.nan
    g = gpuarr.to_gpu(x)
    for axis in (None, 0, 1):
        for kd in (False, True):
            for f, nf in ((gpuarr.nanargmax, np.nanargmax),
                          (gpuarr.nanargmin, np.nanargmin)):
                got = f(g, axis=axis, keepdims=kd)
                want = np.asarray(nf(x, axis=axis, keepdims=kd))
                assert got.shape == want.shape
                np.testing.assert_array_equal(got.get(), want)
    x[1] = np.nan
    with pytest.raises(ValueError, match="All-NaN slice"):
        gpuarr.nanargmax(gpuarr.to_gpu(x), axis=1)
    with pytest.raises(ValueError, match="All-NaN slice"):
        np.nanargmin(gpuarr.to_gpu(np.full(4, np.nan, dt)))


def test_integers_take_the_plain_reductions():
    x = _rng.integers(-50, 50, (5, 9)).astype(np.int16)
    g = gpuarr.to_gpu(x)
    for f, nf in ((gpuarr.nanmean, np.nanmean), (gpuarr.nanvar, np.nanvar),
                  (gpuarr.nanstd, np.nanstd)):
        got, want = f(g, axis=1), nf(x, axis=1)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    got = gpuarr.nanprod(g[:, :3], axis=0)
    np.testing.assert_array_equal(got.get(), np.nanprod(x[:, :3], axis=0))
    assert got.dtype == np.nanprod(x[:, :3], axis=0).dtype
    np.testing.assert_array_equal(gpuarr.nanargmax(g, axis=0).get(),
                                  np.nanargmax(x, axis=0))
