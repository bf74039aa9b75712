"""GPU checks against numpy of cumulative_sum, cumulative_prod, trapezoid,
cross, sinc, matrix_transpose, unwrap, polyval, logspace,
asarray_chkfinite and numpy.linalg's array-API functions (vector_norm,
matrix_norm, svdvals, diagonal, trace, matrix_transpose, cross, vecdot)
and tensorinv/tensorsolve, through gpuarr and through numpy's dispatch, on fresh
random inputs of every dtype they take, strided and negative-stride views
and broadcast shapes."""
import warnings

import numpy as np
import pytest

import gpuarr

from test_gpuarray_gpu import ALL
from test_joining_gpu import layouts, same

pytestmark = pytest.mark.gpu

NUMERIC = [d for d in ALL if d != np.bool_]
INEXACT = [np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng()


def values(dtype, shape, lo=-20, hi=20):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(max(info.min, lo), min(info.max, hi), shape,
                             endpoint=True).astype(dt)
    x = np.asarray(_rng.uniform(lo, hi, shape)).astype(dt)
    if dt.kind == "c":
        x = np.asarray(x + 1j * _rng.uniform(lo, hi, shape).astype(dt))
    return x


def close(got, want, dtype):
    """Shape and dtype equal, values within the dtype's rounding."""
    want = np.asarray(want)
    assert isinstance(got, gpuarr.GPUArray)
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = {np.float16: 2e-2, np.complex64: 1e-4, np.float32: 1e-4}.get(
        np.dtype(dtype).type, 1e-10)
    # absolute error scaled by the largest value: sums that cancel
    big = float(np.max(np.abs(want), initial=1.0))
    np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol * big)


@pytest.mark.parametrize("dtype", ALL)
def test_cumulative_sum_prod(dtype):
    h = values(dtype, (5, 7), -2, 2)
    for d, hh in layouts(h):
        for name in ("cumulative_sum", "cumulative_prod"):
            for axis in (0, 1, -1):
                for init in (False, True):
                    want = getattr(np, name)(hh, axis=axis,
                                             include_initial=init)
                    for fn in (getattr(gpuarr, name), getattr(np, name)):
                        got = fn(d, axis=axis, include_initial=init)
                        if np.dtype(dtype).kind in "fc":
                            close(got, want, dtype)
                        else:
                            same(got, want)
    # 1-d and 0-d without an axis, a dtype, out= with include_initial
    v = values(dtype, (9,), -2, 2)
    dv = gpuarr.to_gpu(v)
    for init in (False, True):
        got = gpuarr.cumulative_sum(dv, dtype=np.float64, include_initial=init)
        close(got, np.cumulative_sum(v, dtype=np.float64,
                                     include_initial=init), np.float64)
    z = np.array(values(dtype, ()))
    got = gpuarr.cumulative_sum(gpuarr.to_gpu(z))
    want = np.cumulative_sum(z)
    assert got.shape == want.shape == (1,) and got.dtype == want.dtype
    out = gpuarr.to_gpu(np.full(10, 99, np.float64))
    res = gpuarr.cumulative_sum(dv, dtype=np.float64, out=out,
                                include_initial=True)
    assert res is out
    close(out, np.cumulative_sum(v, dtype=np.float64, include_initial=True),
          np.float64)


@pytest.mark.parametrize("dtype", ALL)
def test_trapezoid(dtype):
    y = values(dtype, (6, 9))
    x1 = np.sort(values(np.float64, (9,)))
    x2 = np.sort(values(np.float64, (6, 9)), axis=1)
    for d, yy in layouts(y):
        for kw, dkw in (({}, {}), ({"dx": 0.5}, {"dx": 0.5}),
                        ({"x": x1}, {"x": gpuarr.to_gpu(x1)}),
                        ({"x": x2}, {"x": gpuarr.to_gpu(x2)})):
            want = np.trapezoid(yy, **kw)
            close(gpuarr.trapezoid(d, **dkw), want, want.dtype)
            close(np.trapezoid(d, **dkw), want, want.dtype)
        want = np.trapezoid(yy, axis=0)
        close(gpuarr.trapezoid(d, axis=0), want, want.dtype)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_cross(dtype):
    for na, nb in ((3, 3), (2, 3), (3, 2), (2, 2)):
        a = values(dtype, (4, 1, na), -5, 5)
        b = values(dtype, (5, nb), -5, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with np.errstate(all="ignore"):
                want = np.cross(a, b)
            for (da, aa), (db, bb) in zip(layouts(a), layouts(b)):
                for fn in (gpuarr.cross, np.cross):
                    got = fn(da, db)
                    if np.dtype(dtype).kind in "fc":
                        close(got, want, dtype)
                    else:
                        same(got, want)
    # the vectors along other axes, the result along another
    a, b = values(dtype, (3, 4), -5, 5), values(dtype, (4, 3), -5, 5)
    with np.errstate(all="ignore"):
        want = np.cross(a, b, axisa=0, axisb=1, axisc=0)
        want2 = np.cross(a.T, b, axis=1)
    got = gpuarr.cross(gpuarr.to_gpu(a), gpuarr.to_gpu(b), axisa=0, axisb=1,
                       axisc=0)
    got2 = np.linalg.cross(gpuarr.to_gpu(a.T.copy()), gpuarr.to_gpu(b))
    if np.dtype(dtype).kind in "fc":
        close(got, want, dtype)
        close(got2, want2, dtype)
    else:
        same(got, want)
        same(got2, want2)
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        gpuarr.cross(gpuarr.to_gpu(a[:2].T.copy()), gpuarr.to_gpu(b))


@pytest.mark.parametrize("dtype", ALL)
def test_sinc(dtype):
    h = values(dtype, (33,), -3, 3)
    if h.dtype.kind in "fc":
        h[::5] = 0
    want = np.sinc(h)
    for d, hh in layouts(h):
        for fn in (gpuarr.sinc, np.sinc):
            close(fn(d), want, want.dtype)


def test_matrix_transpose_and_linalg_views():
    h = values(np.float32, (3, 4, 5))
    d = gpuarr.to_gpu(h)
    for fn in (gpuarr.matrix_transpose, np.matrix_transpose,
               np.linalg.matrix_transpose, gpuarr.linalg.matrix_transpose):
        same(fn(d), np.matrix_transpose(h))
    for off in (-2, 0, 1, 4):
        same(np.linalg.diagonal(d, offset=off),
             np.linalg.diagonal(h, offset=off))
    for dt in (None, np.float64):
        close(np.linalg.trace(d, offset=1, dtype=dt),
              np.linalg.trace(h, offset=1, dtype=dt), dt or np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64,
                                   np.complex128, np.int32])
def test_vector_and_matrix_norms_svdvals(dtype):
    h = values(dtype, (3, 4, 5))
    d = gpuarr.to_gpu(h)
    rd = np.float64 if np.dtype(dtype).kind == "i" else dtype
    for axis in (None, 1, -1, (0, 2), (2, 0)):
        for ord_ in (2, 1, np.inf, -np.inf, 0, 3.5):
            for keep in (False, True):
                want = np.linalg.vector_norm(h, axis=axis, ord=ord_,
                                             keepdims=keep)
                close(np.linalg.vector_norm(d, axis=axis, ord=ord_,
                                            keepdims=keep), want,
                      rd if rd != np.complex64 else np.float32)
    if np.dtype(dtype).kind in "fc":
        for ord_ in ("fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf):
            want = np.linalg.matrix_norm(h, ord=ord_, keepdims=True)
            close(np.linalg.matrix_norm(d, ord=ord_, keepdims=True), want,
                  np.float32 if np.dtype(dtype) in (np.float32, np.complex64)
                  else np.float64)
        want = np.linalg.svdvals(h)
        close(np.linalg.svdvals(d), want, want.dtype)


@pytest.mark.parametrize("dtype", ALL)
def test_vecdot(dtype):
    a = values(dtype, (4, 1, 6), -5, 5)
    b = values(dtype, (3, 6), -5, 5)
    with np.errstate(all="ignore"):
        want = np.linalg.vecdot(a, b)
        want0 = np.linalg.vecdot(a.transpose(2, 0, 1), b.T[:, None, :],
                                 axis=0)
    for (da, _), (db, _) in zip(layouts(a), layouts(b)):
        for fn in (gpuarr.linalg.vecdot, np.linalg.vecdot):
            got = fn(da, db)
            if np.dtype(dtype).kind in "fc":
                close(got, want, dtype)
            else:
                same(got, want)
    got0 = gpuarr.linalg.vecdot(gpuarr.to_gpu(a.transpose(2, 0, 1).copy()),
                                gpuarr.to_gpu(b.T[:, None, :].copy()), axis=0)
    if np.dtype(dtype).kind in "fc":
        close(got0, want0, dtype)
    else:
        same(got0, want0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.float16])
def test_unwrap(dtype):
    t = np.linspace(0, 12, 50)
    phase = np.mod(np.stack([t, -2 * t, 0.5 * t]), 2 * np.pi)
    h = (phase * (5 if np.dtype(dtype).kind == "i" else 1)).astype(dtype)
    for d, hh in layouts(h):
        for kw in ({}, {"axis": 0}, {"discont": 4.0},
                   {"period": 6} if np.dtype(dtype).kind == "i" else
                   {"period": 5.5}):
            want = np.unwrap(hh, **kw)
            for fn in (gpuarr.unwrap, np.unwrap):
                got = fn(d, **kw)
                if want.dtype.kind == "f":
                    close(got, want, want.dtype)
                else:
                    same(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64,
                                   np.int8, np.int64])
def test_polyval(dtype):
    p = values(dtype, (5,), -3, 3)
    for x in (values(np.float32, (4, 7), -2, 2),
              values(np.float64, (9,), -2, 2), values(np.int64, (6,), -2, 2)):
        want = np.polyval(p, x)
        for fn in (gpuarr.polyval, np.polyval):
            got = fn(gpuarr.to_gpu(p), gpuarr.to_gpu(x))
            if want.dtype.kind in "fc":
                close(got, want, want.dtype)
            else:
                same(got, want)


def test_tensorinv_tensorsolve_chkfinite_logspace():
    a = values(np.float64, (4, 6, 8, 3), -1, 1) + 0.0
    a = (np.eye(24) * 5 + a.reshape(24, 24)).reshape(4, 6, 8, 3)
    d = gpuarr.to_gpu(a)
    close(np.linalg.tensorinv(d), np.linalg.tensorinv(a), np.float64)
    b = values(np.float64, (4, 6), -1, 1)
    close(np.linalg.tensorsolve(d, gpuarr.to_gpu(b)),
          np.linalg.tensorsolve(a, b), np.float64)
    a2 = np.moveaxis(a, 0, 3).copy()
    close(gpuarr.linalg.tensorsolve(gpuarr.to_gpu(a2), gpuarr.to_gpu(b),
                                    axes=(0,)),
          np.linalg.tensorsolve(a2, b, axes=(0,)), np.float64)
    ok = gpuarr.to_gpu(values(np.float32, (5,)))
    assert gpuarr.asarray_chkfinite(ok) is ok
    for bad in (np.nan, np.inf):
        h = values(np.float32, (5,))
        h[3] = bad
        with pytest.raises(ValueError, match="must not contain infs or NaNs"):
            gpuarr.asarray_chkfinite(gpuarr.to_gpu(h))
    for kw in ({}, {"num": 7, "endpoint": False}, {"base": 2.0},
               {"num": 5, "dtype": np.float32}, {"num": 4, "base": 3.0}):
        want = np.logspace(0.5, 3, **kw)
        close(gpuarr.logspace(0.5, 3, **kw), want, want.dtype)


@pytest.mark.parametrize("fdt", [np.float64, np.float32, np.int16,
                                 np.complex128, np.complex64])
def test_interp(fdt):
    # bit for bit numpy's (the kernel rounds each step as numpy's loop)
    for nxp in (1, 2, 60):
        xp = np.sort(_rng.uniform(-5, 5, nxp))
        fp = values(fdt, (nxp,), -9, 9)
        x = _rng.uniform(-7, 7, (33, 7))
        x.reshape(-1)[:nxp] = xp[:min(nxp, x.size)]
        x[0, 0] = np.nan
        for kw in ({}, {"left": -1.5, "right": 2.5}):
            with np.errstate(all="ignore"):
                want = np.interp(x, xp, fp, **kw)
            for fn in (gpuarr.interp, np.interp):
                got = fn(gpuarr.to_gpu(x), gpuarr.to_gpu(xp),
                         gpuarr.to_gpu(fp), **kw)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.get().tobytes() == want.tobytes()
    # strided x, the periodic form, a 0-d x
    xp = np.sort(_rng.uniform(0, 360, 20))
    fp = values(fdt, (20,), -9, 9)
    x = _rng.uniform(-400, 800, 50)
    d = gpuarr.to_gpu(x)[::-2]
    want = np.interp(x[::-2], xp, fp, period=360)
    got = gpuarr.interp(d, gpuarr.to_gpu(xp), gpuarr.to_gpu(fp), period=360)
    close(got, want, np.float64)
    got = gpuarr.interp(gpuarr.to_gpu(np.array(2.5)), gpuarr.to_gpu(xp),
                        gpuarr.to_gpu(fp))
    assert got.shape == () and got.get().tobytes() == np.asarray(
        np.interp(2.5, xp, fp)).tobytes()


@pytest.mark.parametrize("dtype", ALL)
def test_correlate_convolve(dtype):
    for na, nv in ((50, 7), (7, 50), (5, 5), (1, 9), (33, 1), (4, 6)):
        a = values(dtype, (na,), -9, 9)
        v = values(dtype, (nv,), -9, 9)
        for (da, aa), (dv, vv) in zip(layouts(a), layouts(v)):
            for name in ("correlate", "convolve"):
                for mode in ("valid", "same", "full"):
                    with np.errstate(all="ignore"):
                        want = getattr(np, name)(aa, vv, mode)
                    for fn in (getattr(gpuarr, name), getattr(np, name)):
                        got = fn(da, dv, mode)
                        if want.dtype.kind in "fc":
                            close(got, want, dtype)
                        else:
                            same(got, want)
    # promotion, and a scalar taken as one element
    a, v = values(np.int16, (20,)), values(np.float32, (4,))
    close(gpuarr.convolve(gpuarr.to_gpu(a), gpuarr.to_gpu(v)),
          np.convolve(a, v), np.float32)
    same(gpuarr.correlate(gpuarr.to_gpu(a), 3), np.correlate(a, 3))
