"""GPU tests of the reductions against numpy.

Fresh random data; float sums checked against a float64 (complex128)
reference with a tolerance per output from the error analysis of the
kernels (``_bound``: eps times the additions an element goes through times
the sum of |x| that output reduces; float16 in float32, plus two float16
ulps for the one rounding), products, means and variances likewise;
min/max/arg*/any/all/count and integer sums exactly (bools as bytes);
``out=`` written into poisoned arrays; every layout: contiguous, sliced,
negative strides, transposed, 0-d, empty, size 1, odd sizes.
"""
import warnings

import numpy as np
import pytest

import gpuarr.driver as drv
from gpuarr import gpuarray as ga
from gpuarr import reductions as R
from gpuarr import linalg
from gpuarr.reduction import ReductionKernel

pytestmark = pytest.mark.gpu

ALL = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
       np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
       np.complex128]
FLOATS = [np.float16, np.float32, np.float64]
NUMERIC = ALL[1:]


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(7)


def rand(shape, dtype, lo=-4, hi=4):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(max(info.min, lo * 25), min(info.max, hi * 25),
                             shape, endpoint=True).astype(dt)
    x = _rng.uniform(lo, hi, shape)
    if dt.kind == "c":
        x = x + 1j * _rng.uniform(lo, hi, shape)
    return np.asarray(x).astype(dt)


def _eps(dt):
    dt = np.dtype(dt)
    if dt.kind == "c":
        dt = np.dtype("f4") if dt.itemsize == 8 else np.dtype("f8")
    if dt.kind != "f":
        return 0.0
    return float(np.finfo(dt).eps)


def _acc_eps(dt):
    """eps of the precision a result of dtype ``dt`` accumulates in:
    float16 sums, means, products and variances run in float32 and are
    rounded once to float16."""
    return _eps(np.float32) if np.dtype(dt) == np.float16 else _eps(dt)


def _ulps(exact, dt, k=2):
    """``k`` ulps of ``dt`` (its parts' precision for complex) at ``|exact|``
    (0 where that is not finite): the final rounding to ``dt`` is at most
    half of one, so ``k=2`` is a factor 4 over it."""
    dt = np.dtype(dt)
    if dt.kind not in "fc":
        return 0.0
    real = np.dtype("f%d" % (dt.itemsize // 2)) if dt.kind == "c" else dt
    with np.errstate(over="ignore", invalid="ignore"):
        sp = np.spacing(np.abs(np.asarray(exact)).astype(real)).astype(np.float64)
    return k * np.where(np.isfinite(sp), sp, 0.0)


def _bound(x, dt, axis=None, keepdims=False, exact=None, mean=False):
    """Tolerance, per output, of a sum of ``x`` over ``axis`` whose result
    has dtype ``dt`` (``mean``: of the mean).

    Every addition rounds with a relative error of at most u = eps/2 of its
    result, so an output's error is at most u D sum(|x|) over the elements
    it reduces (to first order), D being the most additions an element goes
    through: at most the L elements an output reduces, and for the kernels'
    trees and short per-thread chains (docs/reductions.md) under
    log2(L) + 64.  4 eps D sum(|x|) is a factor 8 over that; float16
    accumulates in float32 (eps of float32) and the result is rounded once:
    two ulps of the exact result on top (``exact`` given).
    """
    s = np.sum(np.abs(x.astype(np.complex128)), axis=axis, keepdims=keepdims)
    L = x.size // np.size(s) if np.size(s) else 0
    depth = min(L, np.log2(max(L, 1)) + 64)
    tol = 4 * _acc_eps(dt) * depth * (s / max(L, 1) if mean else s)
    if exact is not None:
        tol = tol + _ulps(exact, dt)
    return tol


def check_close(got, want, atol=0.0, rtol=0.0):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "b":
        # as bytes: a garbage byte (the 0x5A poison) would read as True
        np.testing.assert_array_equal(got.view(np.uint8),
                                      want.astype(np.uint8))
    elif want.dtype.kind in "iu" or (np.all(np.equal(atol, 0))
                                     and np.all(np.equal(rtol, 0))):
        np.testing.assert_array_equal(got, want)
    elif want.dtype.kind == "c":
        # parts separately: numpy compares a complex with an infinite part
        # exactly (inf-16.673424j != inf-16.673443j), whatever the tolerance
        for part in (np.real, np.imag):
            _assert_within(part(got), part(want), atol, rtol)
    else:
        _assert_within(got, want, atol, rtol)


def _assert_within(got, want, atol, rtol):
    """``|got - want| <= atol + rtol |want|`` elementwise (``atol`` may be
    an array, one tolerance per output), equal infinities and NaNs
    accepted; numpy's assert_allclose with equal_nan."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    tol = np.broadcast_to(atol + rtol * np.abs(want), want.shape)
    with np.errstate(invalid="ignore"):
        ok = ((np.isfinite(want) & (np.abs(got - want) <= tol))
              | (got == want) | (np.isnan(got) & np.isnan(want)))
    if not np.all(ok):
        bad = np.flatnonzero(~ok)
        raise AssertionError(
            "%d of %d outside the tolerance; first: got %r, want %r, tol %r"
            % (bad.size, ok.size, got.ravel()[bad[:5]], want.ravel()[bad[:5]],
               tol.ravel()[bad[:5]]))


def poisoned(shape, dtype):
    d = ga.empty(shape, dtype)
    if np.dtype(dtype).kind == "b":
        # 0x5A bytes: neither False (0) nor True (1), so unwritten bools show
        if d.nbytes:
            drv.memset_d8(d.ptr, 0x5A, d.nbytes)
    elif d.size:
        d.set(np.full(shape, 123, dtype))
    return d


def layouts(h):
    """(name, host view, device view) of one host array of >= 2-D."""
    d = ga.to_gpu(h)
    yield "contiguous", h, d
    yield "transposed", h.T, d.T
    yield "negative", h[::-1, ::-1], d[::-1, ::-1]
    yield "sliced", h[1::2, 1:], d[1::2, 1:]
    yield "offset", h[:, 1:], d[:, 1:]


AXES_2D = [None, 0, 1, -1, (0, 1), ()]
AXES_3D = [None, 0, 1, 2, (0, 2), (1, 2), (0, 1), -2]


# ---------------------------------------------------------------------------
# sums, means, products against numpy


def _ref_sum(h, axis, fn=np.sum, **kw):
    """numpy's answer with the dtype numpy gives, but float sums computed in
    float64/complex128 (the exact reference)."""
    want = fn(h, axis=axis, **kw)
    dt = np.asarray(want).dtype
    if dt.kind in "fc":
        # complex inputs stay complex (var/std of complex are real-valued,
        # but computing them from float64 copies would drop the imaginary part)
        wide = np.complex128 if "c" in (dt.kind, h.dtype.kind) else np.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact = fn(h.astype(wide), axis=axis, **kw)
        return np.asarray(exact), dt
    return np.asarray(want), dt


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("axis", AXES_2D, ids=str)
def test_sum_2d(dtype, axis):
    h = rand((37, 129), dtype)
    for name, hv, dv in layouts(h):
        exact, dt = _ref_sum(hv, axis)
        got = R.sum(dv, axis=axis)
        assert got.dtype == dt, name
        check_close(got.get(), exact.astype(dt),
                    atol=_bound(hv, dt, axis, exact=exact) + 1e-30)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64,
                                   np.float16, np.uint8], ids=str)
@pytest.mark.parametrize("axis", AXES_3D, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_3d_keepdims(dtype, axis, keepdims):
    h = rand((5, 33, 70), dtype)
    d = ga.to_gpu(h)
    exact, dt = _ref_sum(h, axis, keepdims=keepdims)
    got = R.sum(d, axis=axis, keepdims=keepdims)
    check_close(got.get(), exact.astype(dt),
                atol=_bound(h, dt, axis, keepdims, exact))
    hv = h.transpose(2, 0, 1)[::-1]
    dv = d.transpose(2, 0, 1)[::-1]
    exact, dt = _ref_sum(hv, axis, keepdims=keepdims)
    check_close(R.sum(dv, axis=axis, keepdims=keepdims).get(),
                exact.astype(dt), atol=_bound(hv, dt, axis, keepdims, exact))


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("n", [1, 2, 31, 1023, 1024, 4097, 100003, 3 << 20])
def test_sum_1d_sizes(dtype, n):
    h = rand((n,), dtype)
    d = ga.to_gpu(h)
    exact, dt = _ref_sum(h, None)
    got = R.sum(d)
    assert got.shape == ()
    check_close(got.get(), exact.astype(dt), atol=_bound(h, dt, exact=exact))
    # unaligned start and negative stride
    exact, dt = _ref_sum(h[1:], None)
    check_close(R.sum(d[1:]).get(), exact.astype(dt),
                atol=_bound(h[1:], dt, exact=exact))
    exact, dt = _ref_sum(h[::-3], None)
    check_close(R.sum(d[::-3]).get(), exact.astype(dt),
                atol=_bound(h[::-3], dt, exact=exact))


def test_sum_float16_accumulates_in_float32():
    h = np.full(1 << 14, 1.0, np.float16)     # float16 alone stalls at 2048
    got = R.sum(ga.to_gpu(h))
    assert got.dtype == np.float16
    assert float(got) == 16384.0


def test_sum_float32_accuracy_large():
    n = 1 << 26
    h = _rng.uniform(0, 1, n).astype(np.float32)
    got = float(R.sum(ga.to_gpu(h)))
    exact = float(np.sum(h.astype(np.float64)))
    # documented bound: (n / (T * A) + log2(T * A) + 8) eps sum|x|
    assert abs(got - exact) <= 200 * np.finfo(np.float32).eps * exact


def _factors(shape, dtype):
    """Random factors of magnitude exp(+-U(0.05, 0.3)): products stay near
    1 (far above any absolute tolerance) and every factor is at least 5 %
    off 1 (a dropped or repeated one shows); random signs (complex: random
    phases)."""
    mag = np.exp(_rng.choice([-1.0, 1.0], shape)
                 * _rng.uniform(0.05, 0.3, shape))
    if np.dtype(dtype).kind == "c":
        return (mag * np.exp(1j * _rng.uniform(-np.pi, np.pi, shape))
                ).astype(dtype)
    return (mag * _rng.choice([-1.0, 1.0], shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
def test_prod(dtype, axis):
    h = _factors((6, 9), dtype) if np.dtype(dtype).kind in "fc" else \
        rand((6, 9), dtype, 1, 1)
    if np.dtype(dtype).kind in "iu":
        h = (h % 3 + 1).astype(dtype)
    exact, dt = _ref_sum(h, axis, np.prod)
    got = R.prod(ga.to_gpu(h), axis=axis)
    # k factors: k - 1 roundings of relative size <= u = eps/2 whatever the
    # association (a complex product: < 3 u normwise); float16 multiplies in
    # float32 and rounds once.  A factor 8 over that, no absolute part;
    # integers and bool exactly.
    k = h.size // max(exact.size, 1)
    c = 3 if dt.kind == "c" else 1
    rel = 4 * c * (k + 2) * _acc_eps(dt) + (
        2 * _eps(dt) if dt == np.float16 else 0)
    if dt.kind == "c":
        check_close(got.get(), exact.astype(dt), atol=rel * np.abs(exact))
    else:
        check_close(got.get(), exact.astype(dt), rtol=rel)


def test_prod_integer_wraps_like_numpy():
    h = np.arange(1, 40, dtype=np.int64)
    check_close(R.prod(ga.to_gpu(h)).get(), np.asarray(np.prod(h)))
    h = np.arange(1, 40, dtype=np.uint32)
    check_close(R.prod(ga.to_gpu(h)).get(), np.asarray(np.prod(h)))


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)], ids=str)
def test_mean(dtype, axis):
    h = rand((13, 301), dtype)
    for name, hv, dv in layouts(h):
        exact, dt = _ref_sum(hv, axis, np.mean)
        got = R.mean(dv, axis=axis)
        assert got.dtype == dt
        # the sum's bound over the count, plus the one rounding to dt
        tol = _bound(hv, dt, axis, exact=exact, mean=True)
        check_close(got.get(), exact.astype(dt), atol=tol)


@pytest.mark.parametrize("dtype", NUMERIC + [np.bool_], ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
@pytest.mark.parametrize("ddof", [0, 1])
def test_var_std(dtype, axis, ddof):
    h = rand((21, 100), dtype)
    d = ga.to_gpu(h)
    for fn, ours in ((np.var, R.var), (np.std, R.std)):
        exact, dt = _ref_sum(h, axis, fn, ddof=ddof)
        got = ours(d, axis=axis, ddof=ddof)
        assert got.dtype == dt
        atol, rtol = _var_tol(exact, dt, h.size // max(exact.size, 1))
        check_close(got.get(), exact.astype(dt), atol=atol, rtol=rtol)
        got = ours(d.T[::-1], axis=axis, ddof=ddof)
        exact, dt = _ref_sum(h.T[::-1], axis, fn, ddof=ddof)
        atol, rtol = _var_tol(exact, dt, h.size // max(exact.size, 1))
        check_close(got.get(), exact.astype(dt), atol=atol, rtol=rtol)


def _var_tol(exact, dt, L):
    """(atol, rtol) of a variance or standard deviation of ``L`` elements
    per output with result dtype ``dt``.  float16 is computed in float32
    and rounded once: the terms (x - mean)**2 are >= 0, so the float32 sum
    is within u (log2(L) + 64 + 3) relative of the exact (two roundings per
    term, and the kernels' additions as for a sum), which 4 eps (log2(L) +
    72) covers with a factor 8; then two float16 ulps of the result for
    its rounding.  Other dtypes: the suite's former tolerance."""
    if np.dtype(dt) == np.float16:
        return _ulps(exact, dt), 4 * _acc_eps(dt) * (np.log2(L) + 72)
    return 64 * _eps(dt) * 16, 64 * _eps(dt)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.complex64, np.float16], ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)], ids=str)
def test_var_std_with_a_precomputed_mean(dtype, axis):
    """numpy 2's mean=: the keepdims mean passed in (here numpy's own, in
    the dtype the mean has), a broadcastable one, and a wider one (float64
    for float32 data), each against numpy given the same mean."""
    h = rand((17, 90), dtype)
    d = ga.to_gpu(h)
    hm = np.mean(h, axis=axis, keepdims=True)
    for fn, ours in ((np.var, R.var), (np.std, R.std)):
        wider = np.complex128 if h.dtype.kind == "c" else np.float64
        for mean in (hm, hm.astype(wider)):
            want = fn(h, axis=axis, mean=mean, ddof=1)
            for m in (mean, ga.to_gpu(np.ascontiguousarray(mean))):
                got = ours(d, axis=axis, mean=m, ddof=1)
                assert got.dtype == want.dtype, (got.dtype, want.dtype)
                exact = fn(h.astype(np.complex128 if h.dtype.kind == "c"
                                    else np.float64), axis=axis,
                           mean=mean, ddof=1)
                atol, rtol = _var_tol(exact, want.dtype, h.size // max(exact.size, 1))
                check_close(got.get(), np.asarray(exact).astype(want.dtype),
                            atol=atol, rtol=rtol)
    if axis == 0 and h.dtype.kind != "c":   # a mean that broadcasts
        m0 = np.float64(h.astype(np.float64).mean())
        np.testing.assert_allclose(R.var(d, axis=0, mean=m0).get(),
                                   np.var(h, axis=0, mean=m0), rtol=1e-3)
    with pytest.raises(ValueError, match="does not broadcast"):
        R.var(d, axis=axis, mean=ga.zeros((3, 3)))


def test_var_ddof_too_large_like_numpy():
    h = rand((3,), np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.var(h, ddof=3)
        got = R.var(ga.to_gpu(h), ddof=3)
    check_close(got.get(), np.asarray(want))


# ---------------------------------------------------------------------------
# extrema, NaN placement, arg reductions


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("axis", AXES_2D, ids=str)
def test_max_min(dtype, axis):
    h = rand((37, 129), dtype)
    for name, hv, dv in layouts(h):
        for fn, ours in ((np.max, R.max), (np.min, R.min),
                         (np.nanmax, R.nanmax), (np.nanmin, R.nanmin)):
            want = np.asarray(fn(hv, axis=axis))
            check_close(ours(dv, axis=axis).get(), want)


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
def test_argmax_argmin(dtype, axis):
    h = rand((37, 129), dtype)
    if np.dtype(dtype).kind in "iub":
        h[5, 7] = h.max()            # ties: the first index must win
        h[30, 100] = h.max()
    for name, hv, dv in layouts(h):
        for fn, ours in ((np.argmax, R.argmax), (np.argmin, R.argmin)):
            want = np.asarray(fn(hv, axis=axis))
            got = ours(dv, axis=axis)
            assert got.dtype == np.int64
            check_close(got.get(), want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64,
                                   np.complex64, np.complex128], ids=str)
@pytest.mark.parametrize("where", ["first", "middle", "last", "two", "all"])
@pytest.mark.parametrize("n", [7, 5000, 1 << 20])
def test_nan_placement(dtype, where, n):
    h = rand((n,), dtype)
    pos = {"first": [0], "middle": [n // 2], "last": [n - 1],
           "two": [n // 3, 2 * n // 3], "all": list(range(n))}[where]
    h[pos] = np.nan
    if where != "all":
        h[n // 4] = np.inf
    d = ga.to_gpu(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn, ours in ((np.max, R.max), (np.min, R.min),
                         (np.argmax, R.argmax), (np.argmin, R.argmin),
                         (np.nanmax, R.nanmax), (np.nanmin, R.nanmin)):
            check_close(ours(d).get(), np.asarray(fn(h)))
        exact, dt = _ref_sum(h, None, np.nansum)
        check_close(R.nansum(d).get(), exact.astype(dt),
                    atol=_bound(np.nan_to_num(h), dt, exact=exact))
        assert np.isnan(complex(R.sum(d)))


def test_inf_and_signed_zero():
    h = np.array([-np.inf, -np.inf, 0.0, -0.0, np.inf, np.inf], np.float32)
    d = ga.to_gpu(h)
    assert int(R.argmax(d)) == 4 and int(R.argmin(d)) == 0
    assert float(R.max(d)) == np.inf and float(R.min(d)) == -np.inf
    assert np.isnan(float(R.sum(d)))


# ---------------------------------------------------------------------------
# logical reductions


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)], ids=str)
def test_any_all_count_nonzero(dtype, axis):
    h = rand((17, 65), dtype)
    h[3] = 0
    h[:, 5] = 1
    for name, hv, dv in layouts(h):
        for fn, ours in ((np.any, R.any), (np.all, R.all),
                         (np.count_nonzero, R.count_nonzero)):
            want = np.asarray(fn(hv, axis=axis))
            if fn is np.count_nonzero:
                want = want.astype(np.int64)
            got = ours(dv, axis=axis)
            check_close(got.get(), want)
            if fn is not np.count_nonzero:
                assert got.dtype == np.bool_


def test_any_all_nan_and_complex():
    h = np.array([0, np.nan], np.float32)
    assert bool(R.any(ga.to_gpu(h))) and not bool(R.all(ga.to_gpu(h)))
    h = np.array([0j, 1j], np.complex64)
    assert bool(R.any(ga.to_gpu(h)))


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
def test_ptp(dtype, axis):
    h = rand((9, 40), dtype)
    if np.dtype(dtype).kind == "c":
        # ties of the real part: the imaginary part decides (lexicographic)
        h.real[:, 3] = h.real.max()
        h.real[:, 5] = h.real.min()
    want = np.asarray(np.ptp(h, axis=axis))
    got = R.ptp(ga.to_gpu(h), axis=axis)
    assert got.dtype == want.dtype
    check_close(got.get(), want)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_complex_max_min_ptp_lexicographic_and_nan(dtype):
    h = np.array([1 + 5j, 3 - 1j, 3 + 2j, -2 + 9j, 3 + 1j, -2 - 4j], dtype)
    d = ga.to_gpu(h)
    for fn, ours in ((np.max, R.max), (np.min, R.min), (np.ptp, R.ptp),
                     (np.argmax, R.argmax), (np.argmin, R.argmin)):
        check_close(ours(d).get(), np.asarray(fn(h)))
    # a NaN in either part propagates through max/min/ptp as in numpy
    for bad in (complex(np.nan, 0), complex(0, np.nan)):
        g = h.copy()
        g[2] = bad
        dg = ga.to_gpu(g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for fn, ours in ((np.max, R.max), (np.min, R.min),
                             (np.ptp, R.ptp), (np.argmax, R.argmax),
                             (np.argmin, R.argmin), (np.nanmax, R.nanmax),
                             (np.nanmin, R.nanmin)):
                check_close(ours(dg).get(), np.asarray(fn(g)))


def test_ptp_of_bool_raises_like_numpy():
    h = np.array([True, False])
    with pytest.raises(TypeError) as want:
        np.ptp(h)
    with pytest.raises(type(want.value)):
        R.ptp(ga.to_gpu(h))


def test_std_integer_dtype_over_axis_raises_like_numpy():
    h = rand((4, 5), np.int16)
    with pytest.raises(TypeError) as want:
        np.std(h, axis=0, dtype=np.int32)
    with pytest.raises(type(want.value)):
        R.std(ga.to_gpu(h), axis=0, dtype=np.int32)


# ---------------------------------------------------------------------------
# 0-d, empty, size 1


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64,
                                   np.bool_], ids=str)
def test_zero_d(dtype):
    h = np.asarray(rand((), dtype))
    d = ga.to_gpu(h)
    for name in ("sum", "prod", "max", "min", "mean", "any", "all",
                 "count_nonzero", "argmax", "argmin"):
        want = np.asarray(getattr(np, name)(h))
        got = getattr(R, name)(d)
        if name == "count_nonzero":
            want = want.astype(np.int64)
        check_close(got.get(), want, atol=1e-6, rtol=1e-6)
        # numpy's legacy for 0-d: axis 0 reduces nothing, the same value
        # (numpy's mean refuses it; gpuarr's takes it like the others)
        got = getattr(R, name)(d, axis=0)
        check_close(got.get(), want, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 5), 0),
                                        ((0, 5), 1), ((5, 0), 1),
                                        ((5, 0), 0), ((0, 0), None)])
def test_empty(shape, axis):
    h = np.zeros(shape, np.float32)
    d = ga.to_gpu(h)
    check_close(R.sum(d, axis=axis).get(), np.asarray(np.sum(h, axis=axis)))
    check_close(R.prod(d, axis=axis).get(), np.asarray(np.prod(h, axis=axis)))
    check_close(R.any(d, axis=axis).get(), np.asarray(np.any(h, axis=axis)))
    check_close(R.all(d, axis=axis).get(), np.asarray(np.all(h, axis=axis)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_close(R.mean(d, axis=axis).get(),
                    np.asarray(np.mean(h, axis=axis)))
    # the identities (NaN for mean) written into poisoned outputs
    for fn, ours in ((np.sum, R.sum), (np.prod, R.prod), (np.any, R.any),
                     (np.all, R.all), (np.mean, R.mean)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(fn(h, axis=axis))
            out = poisoned(want.shape, want.dtype)
            assert ours(d, axis=axis, out=out) is out
        check_close(out.get(), want)
    for fn, ours in ((np.max, R.max), (np.argmax, R.argmax),
                     (np.min, R.min), (np.argmin, R.argmin)):
        if fn in (np.argmax, np.argmin) and isinstance(axis, tuple):
            continue
        try:
            want = np.asarray(fn(h, axis=axis))
        except ValueError as exc:
            with pytest.raises(ValueError, match=str(exc)[:20]):
                ours(d, axis=axis)
        else:
            check_close(ours(d, axis=axis).get(), want)


def test_mean_of_empty_is_nan_with_warning():
    with pytest.warns(RuntimeWarning):
        r = R.mean(ga.to_gpu(np.zeros(0, np.int32)))
    assert r.dtype == np.float64 and np.isnan(float(r))


# ---------------------------------------------------------------------------
# out=, errors


@pytest.mark.parametrize("fname", ["sum", "prod", "max", "min", "mean", "var",
                                   "std", "nansum", "nanmax", "any", "all",
                                   "argmax", "argmin"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_out_poisoned(fname, keepdims):
    h = rand((20, 30), np.float32)
    if fname in ("any", "all"):
        h[3] = 0          # rows where any is False, and where all is
        h[5, 7] = 0
    d = ga.to_gpu(h)
    want = np.asarray(getattr(np, fname)(h, axis=1, keepdims=keepdims))
    out = poisoned(want.shape, want.dtype)
    got = getattr(R, fname)(d, axis=1, out=out, keepdims=keepdims)
    assert got is out
    check_close(out.get(), want, atol=1e-4, rtol=1e-5)
    # full reduction into a 0-d out, and a strided out view
    want = np.asarray(getattr(np, fname)(h))
    out = poisoned((), want.dtype)
    getattr(R, fname)(d, out=out)
    check_close(out.get(), want, atol=1e-3, rtol=1e-5)
    if not keepdims:
        big = poisoned((40,), want.dtype)
        want = np.asarray(getattr(np, fname)(h, axis=1))
        getattr(R, fname)(d, axis=1, out=big[::2])
        check_close(big.get()[::2], want, atol=1e-4, rtol=1e-5)
        # the elements between untouched, to the byte
        np.testing.assert_array_equal(
            np.ascontiguousarray(big.get()[1::2]).view(np.uint8),
            poisoned((20,), want.dtype).get().view(np.uint8))


def test_out_casts_to_its_dtype():
    h = rand((10, 7), np.int16)
    out = poisoned((7,), np.float32)
    R.sum(ga.to_gpu(h), axis=0, out=out)
    check_close(out.get(), np.sum(h, axis=0).astype(np.float32))


def test_errors_before_launch():
    d = ga.to_gpu(rand((3, 4), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        R.sum(d, axis=2)
    with pytest.raises(ValueError):
        R.sum(d, axis=(0, 0))
    with pytest.raises(ValueError):
        R.sum(d, axis=0, out=ga.empty((3,), np.float32))
    with pytest.raises(ValueError):
        R.sum(d, axis=0, out=ga.empty((1, 4), np.float32))
    with pytest.raises(TypeError):
        R.sum(d, axis=1.0)
    with pytest.raises(ValueError, match="zero-size"):
        R.max(ga.to_gpu(np.zeros((0, 3), np.float32)), axis=0)
    with pytest.raises(ValueError, match="empty sequence"):
        R.argmax(ga.to_gpu(np.zeros(0, np.float32)))
    with pytest.raises(TypeError):
        R.argmax(d, out=ga.empty((), np.int32))


# ---------------------------------------------------------------------------
# dot, vdot, inner, norm


@pytest.mark.parametrize("d1", ALL, ids=str)
@pytest.mark.parametrize("d2", [np.float32, np.int32, np.complex128,
                                np.bool_], ids=str)
def test_dot_vectors(d1, d2):
    n = 10007
    x, y = rand((n,), d1), rand((n,), d2)
    want = np.dot(x, y)
    dt = np.asarray(want).dtype
    got = R.dot(ga.to_gpu(x), ga.to_gpu(y))
    assert got.shape == () and got.dtype == dt
    if dt.kind in "fc":
        exact = np.dot(x.astype(np.complex128), y.astype(np.complex128))
        bound = _bound(x.astype(np.complex128) * y, dt, exact=exact)
        check_close(got.get(), np.asarray(exact).astype(dt), atol=bound)
    else:
        check_close(got.get(), np.asarray(want))
    # strided and reversed operands (x[::-2] has 5004 elements, y[1::2]
    # 5003: both cut to the shorter)
    xd, yd = ga.to_gpu(x), ga.to_gpu(y)
    m = min(len(x[::-2]), len(y[1::2]))
    want = np.dot(x[::-2][:m], y[1::2][:m])
    got = R.dot(xd[::-2][:m], yd[1::2][:m])
    assert got.dtype == np.asarray(want).dtype
    if dt.kind in "fc":
        # against the exact dot, not numpy's (whose float16 dot has float32
        # rounding errors of its own)
        xs = x[::-2][:m].astype(np.complex128)
        ys = y[1::2][:m].astype(np.complex128)
        exact = np.dot(xs, ys)
        exact = exact if dt.kind == "c" else exact.real
        check_close(got.get(), np.asarray(exact).astype(dt),
                    atol=_bound(xs * ys, dt, exact=exact))
    else:
        check_close(got.get(), np.asarray(want))


def test_dot_matrix_vector_and_inner_vdot():
    a = rand((50, 300), np.float64)
    v = rand((300,), np.float64)
    np.testing.assert_allclose(R.dot(ga.to_gpu(a), ga.to_gpu(v)).get(),
                               a @ v, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(R.inner(ga.to_gpu(a), ga.to_gpu(v)).get(),
                               np.inner(a, v), rtol=1e-12, atol=1e-10)
    c = rand((40, 25), np.complex128)
    e = rand((40, 25), np.complex128)
    np.testing.assert_allclose(complex(R.vdot(ga.to_gpu(c), ga.to_gpu(e))),
                               np.vdot(c, e), rtol=1e-12)
    np.testing.assert_allclose(
        complex(R.vdot(ga.to_gpu(c).T, ga.to_gpu(e).T)), np.vdot(c.T, e.T),
        rtol=1e-12)
    with pytest.raises(ValueError):
        R.dot(ga.to_gpu(v), ga.to_gpu(v[:-1]))


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.float32,
                                   np.float64, np.complex64], ids=str)
@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3])
def test_norm_vector(dtype, ord):
    x = rand((1001,), dtype)
    want = np.asarray(np.linalg.norm(x, ord=ord))
    got = linalg.norm(ga.to_gpu(x), ord=ord)
    assert got.dtype == want.dtype
    tol = 1e-3 if np.dtype(want.dtype) == np.float16 else 1e-5
    np.testing.assert_allclose(got.get(), want, rtol=tol)


def test_norm_axis_and_frobenius():
    a = rand((30, 40), np.float32)
    d = ga.to_gpu(a)
    np.testing.assert_allclose(linalg.norm(d).get(), np.linalg.norm(a),
                               rtol=1e-5)
    np.testing.assert_allclose(linalg.norm(d, "fro").get(),
                               np.linalg.norm(a, "fro"), rtol=1e-5)
    for ax in (0, 1, -1):
        np.testing.assert_allclose(linalg.norm(d, axis=ax).get(),
                                   np.linalg.norm(a, axis=ax), rtol=1e-5)
        np.testing.assert_allclose(
            linalg.norm(d.T, ord=1, axis=ax, keepdims=True).get(),
            np.linalg.norm(a.T, ord=1, axis=ax, keepdims=True), rtol=1e-5)
    with pytest.raises(ValueError):
        linalg.norm(ga.to_gpu(rand((2, 3, 4), np.float32)), ord=2)


# ---------------------------------------------------------------------------
# big: > 2**31 elements (64-bit indexing); ~2 GB


# big (~2 GB, one pass of each reduction): select with -k big
@pytest.mark.huge
def test_big_more_than_2_31_elements():
    n = 2 ** 31 + 5
    d = ga.zeros((n,), np.int8)
    # ones at both ends and beyond 2**31
    one = ga.to_gpu(np.ones(1, np.int8))
    for k in (0, 2 ** 31 - 1, 2 ** 31, n - 1):
        d[k:k + 1] = one
    assert int(R.sum(d)) == 4
    assert int(R.count_nonzero(d)) == 4
    assert int(R.argmax(d[1:])) == 2 ** 31 - 2
    assert int(R.max(d)) == 1
    assert bool(R.any(d[2 ** 31 + 1:]))
    del d


# ---------------------------------------------------------------------------
# ReductionKernel


def test_reduction_kernel_dot_and_max():
    x = rand((100003,), np.float32)
    y = rand((100003,), np.float32)
    k = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b",
                        map_expr="x[i]*y[i]", arguments="float *x, float *y")
    got = k(ga.to_gpu(x), ga.to_gpu(y))
    assert got.shape == () and got.dtype == np.float32
    exact = np.dot(x.astype(np.float64), y)
    assert abs(float(got) - exact) <= _bound(x.astype(np.float64) * y, np.float32)
    m = ReductionKernel(np.float32, neutral="-INFINITY",
                        reduce_expr="fmaxf(a, b)", arguments="const float *x")
    assert float(m(ga.to_gpu(x))) == x.max()
    out = poisoned((), np.float32)
    assert m(ga.to_gpu(x), out=out) is out and float(out) == x.max()


def test_reduction_kernel_scalar_arg_and_axis():
    a = rand((64, 1000), np.float64)
    k = ReductionKernel(np.float64, neutral="0", reduce_expr="a+b",
                        map_expr="s * x[i]", arguments="double *x, double s")
    d = ga.to_gpu(a)
    # another summation order than numpy's: within a sum's error bound
    # (a relative tolerance fails where a row's sum nearly cancels)
    assert abs(float(k(d, 2.0)) - 2 * a.sum()) <= _bound(2 * a, np.float64)
    for axis in (1, 0):
        got = k(d, 2.0, axis=axis).get()
        for g, row in zip(got, np.moveaxis(2 * a, axis, -1)):
            assert abs(g - row.sum()) <= _bound(row, np.float64), (axis, g, row.sum())
    # i is the linear index even with axis=
    idx = ReductionKernel(np.int64, neutral="0", reduce_expr="a > b ? a : b",
                          map_expr="(long long)i + 0 * x[i]",
                          arguments="double *x")
    np.testing.assert_array_equal(idx(d, axis=1).get(),
                                  np.arange(64) * 1000 + 999)


def test_reduction_kernel_errors():
    k = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b",
                        map_expr="x[i]*y[i]", arguments="float *x, float *y")
    x = ga.to_gpu(rand((10,), np.float32))
    with pytest.raises(TypeError, match="'y'"):
        k(x)
    with pytest.raises(TypeError, match="'y'"):
        k(x, ga.to_gpu(rand((10,), np.float64)))
    with pytest.raises(ValueError, match="'y'"):
        k(x, ga.to_gpu(rand((11,), np.float32)))
