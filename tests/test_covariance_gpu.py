"""GPU checks against numpy of the reductions' where= and initial=, of
nancumsum and nancumprod, and of average, cov and corrcoef (weights,
axes, rowvar, ddof, complex, errors)."""
import warnings

import numpy as np
import pytest

import gpuarr

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(77)


def near(got, want, rtol=1e-6, atol=1e-6):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=atol,
                               equal_nan=True)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8,
                                np.complex64], ids=str)
def test_where_and_initial(dt):
    h = (_rng.uniform(-5, 9, (13, 21))).astype(dt) if np.dtype(dt).kind != "u" \
        else _rng.integers(0, 9, (13, 21)).astype(dt)
    m = _rng.random((13, 21)) < 0.6
    m[3] = False                    # a row with nothing selected
    row = _rng.random(21) < 0.5     # a mask broadcast along axis 0
    g, gm, grow = gpuarr.to_gpu(h), gpuarr.to_gpu(m), gpuarr.to_gpu(row)
    for name in ("sum", "prod", "max", "min", "any", "all", "mean",
                 "nansum", "nanmax"):
        if name in ("max", "min", "nanmax") and np.dtype(dt).kind == "c":
            continue
        for axis in (None, 0, 1):
            for mask, hmask in ((gm, m), (grow, row), (m, m)):
                kw = {"axis": axis, "where": mask}
                hkw = {"axis": axis, "where": hmask}
                if name in ("max", "min", "nanmax"):
                    kw["initial"] = hkw["initial"] = 3
                if name == "prod":
                    hh = np.where(hmask, h, 1)
                    if np.abs(hh).max() > 3:
                        continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    want = getattr(np, name)(h, **hkw)
                got = getattr(gpuarr, name)(g, **kw)
                near(got, want, rtol=2e-5, atol=2e-4)
        if name in ("sum", "prod", "max", "min"):
            want = getattr(np, name)(h, axis=1, initial=5, keepdims=True)
            near(getattr(gpuarr, name)(g, axis=1, initial=5, keepdims=True),
                 want, rtol=2e-5, atol=2e-4)
    # max with initial over an empty axis is numpy's initial
    e = np.zeros((0, 4), dt)
    near(gpuarr.max(gpuarr.to_gpu(e), axis=0, initial=7), np.max(e, axis=0,
                                                                  initial=7))
    with pytest.raises(ValueError, match="initial"):
        gpuarr.max(g, where=gm)
    out = gpuarr.zeros((21,), np.float64)
    r = gpuarr.sum(g, axis=0, where=gm, out=out)
    assert r is out
    near(out, np.sum(h, axis=0, where=m).astype(np.float64), 2e-5, 2e-4)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int16,
                                np.complex64, np.float16], ids=str)
def test_var_std_where(dt):
    h = _rng.uniform(-3, 5, (9, 23))
    if np.dtype(dt).kind == "c":
        h = h + 1j * _rng.uniform(-1, 2, (9, 23))
    h = h.astype(dt)
    m = _rng.random((9, 23)) < 0.7
    m[2] = False
    g, gm = gpuarr.to_gpu(h), gpuarr.to_gpu(m)
    tol = 2e-2 if dt == np.float16 else 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in ("var", "std"):
            for axis in (None, 0, 1):
                for ddof in (0, 1):
                    for kd in (False, True):
                        want = getattr(np, name)(h, axis=axis, ddof=ddof,
                                                 keepdims=kd, where=m)
                        got = getattr(gpuarr, name)(g, axis=axis, ddof=ddof,
                                                    keepdims=kd, where=gm)
                        near(got, want, tol, tol)
        near(gpuarr.var(g, axis=1, where=m[0]), np.var(h, axis=1, where=m[0]),
             tol, tol)


def test_where_through_numpy_and_methods():
    h = _rng.standard_normal((6, 7)).astype(np.float32)
    m = h > 0
    g = gpuarr.to_gpu(h)
    near(np.sum(g, where=gpuarr.to_gpu(m)), np.sum(h, where=m), 1e-5, 1e-5)
    near(g.max(axis=0, initial=-10.0), h.max(axis=0, initial=-10.0))


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64,
                                np.complex128, np.int16], ids=str)
def test_nancumsum_nancumprod(dt):
    h = _rng.uniform(0.5, 1.5, (5, 40)).astype(dt)
    if np.dtype(dt).kind in "fc":
        h[_rng.random(h.shape) < 0.3] = np.nan
        h[2, :4] = np.nan
    g = gpuarr.to_gpu(h)
    tol = 3e-2 if dt == np.float16 else 1e-5
    for axis in (None, 0, 1):
        near(gpuarr.nancumsum(g, axis=axis), np.nancumsum(h, axis=axis),
             tol, tol)
        near(gpuarr.nancumprod(g, axis=axis), np.nancumprod(h, axis=axis),
             tol, tol)
    near(np.nancumsum(g[:, ::-3], axis=1), np.nancumsum(h[:, ::-3], axis=1),
         tol, tol)


def test_average():
    h = _rng.standard_normal((8, 9, 10))
    w = _rng.uniform(0.1, 2, (8, 9, 10))
    w1 = _rng.uniform(0.1, 2, 9)
    g = gpuarr.to_gpu(h)
    near(gpuarr.average(g), np.average(h), 1e-12, 1e-12)
    near(gpuarr.average(g, axis=(0, 2), weights=gpuarr.to_gpu(w)),
         np.average(h, axis=(0, 2), weights=w), 1e-12, 1e-12)
    avg, scl = gpuarr.average(g, axis=1, weights=w1, returned=True,
                              keepdims=True)
    wavg, wscl = np.average(h, axis=1, weights=w1, returned=True,
                            keepdims=True)
    near(avg, wavg, 1e-12, 1e-12)
    near(scl, wscl, 1e-12, 1e-12)
    hi = _rng.integers(0, 9, (4, 6)).astype(np.int32)
    near(gpuarr.average(gpuarr.to_gpu(hi), axis=0, weights=hi[:, 0]),
         np.average(hi, axis=0, weights=hi[:, 0]), 1e-12, 1e-12)
    with pytest.raises(TypeError):
        gpuarr.average(g, weights=w1)
    with pytest.raises(ValueError):
        gpuarr.average(g, axis=0, weights=w1)
    with pytest.raises(ZeroDivisionError):
        gpuarr.average(g, axis=1, weights=np.zeros(9))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128,
                                np.int64], ids=str)
def test_cov_corrcoef(dt):
    h = _rng.standard_normal((5, 300))
    if np.dtype(dt).kind == "c":
        h = h + 1j * _rng.standard_normal((5, 300))
    h = (h * 4).astype(dt)
    hy = _rng.standard_normal((2, 300)).astype(np.float32)
    g, gy = gpuarr.to_gpu(h), gpuarr.to_gpu(hy)
    tol = 1e-4 if dt == np.float32 else 1e-10
    near(gpuarr.cov(g), np.cov(h), tol, tol)
    near(gpuarr.cov(g.T, rowvar=False, bias=True),
         np.cov(h.T, rowvar=False, bias=True), tol, tol)
    near(gpuarr.cov(g, gy, ddof=3), np.cov(h, hy, ddof=3), tol, tol)
    fw = _rng.integers(0, 4, 300)
    aw = _rng.uniform(0.1, 1, 300)
    near(gpuarr.cov(g, fweights=fw, aweights=aw),
         np.cov(h, fweights=fw, aweights=aw), tol, tol)
    near(gpuarr.cov(g[0]), np.cov(h[0]), tol, tol)
    near(gpuarr.corrcoef(g), np.corrcoef(h), tol, tol)
    near(gpuarr.corrcoef(g, gy), np.corrcoef(h, hy), tol, tol)
    near(gpuarr.corrcoef(g[1]), np.corrcoef(h[1]), tol, tol)
    with pytest.raises(TypeError):
        gpuarr.cov(g, fweights=aw)
    with pytest.raises(ValueError):
        gpuarr.cov(g, aweights=-aw)
    with pytest.raises(ValueError):
        gpuarr.cov(gpuarr.to_gpu(np.ones((2, 2, 2))))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32], ids=str)
def test_nan_statistics_where(dt):
    h = _rng.uniform(-3, 5, (7, 19)).astype(dt)
    if np.dtype(dt).kind == "f":
        h[_rng.random(h.shape) < 0.2] = np.nan
    m = _rng.random((7, 19)) < 0.7
    m[1] = False
    g, gm = gpuarr.to_gpu(h), gpuarr.to_gpu(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in ("nanmean", "nanvar", "nanstd"):
            for axis in (None, 1):
                kw = {"ddof": 1} if name != "nanmean" else {}
                want = getattr(np, name)(h, axis=axis, where=m, **kw)
                got = getattr(gpuarr, name)(g, axis=axis, where=gm, **kw)
                near(got, want, 1e-5, 1e-5)
