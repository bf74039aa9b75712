"""GPU checks of gpuarr.cumath against numpy: every function, every dtype
numpy accepts, contiguous / strided / negative / transposed / 0-d / empty
operands, and poisoned ``out=`` arrays."""
import warnings

import numpy as np
import pytest

import gpuarr
from gpuarr import cumath

from test_gpuarray_gpu import (ALL, FLOATS, INTS, rand, check,  # noqa: F401
                             poisoned, tol)  # noqa: F401

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


# name -> (lo, hi) of the inputs where numpy's result is finite and the
# comparison meaningful
UNARY = {
    "sin": (-4, 4), "cos": (-4, 4), "tan": (-1.2, 1.2), "arcsin": (-0.95, 0.95),
    "arccos": (-0.95, 0.95), "arctan": (-5, 5), "sinh": (-3, 3), "cosh": (-3, 3),
    "tanh": (-3, 3), "arcsinh": (-5, 5), "arccosh": (1.05, 6),
    "arctanh": (-0.95, 0.95), "exp": (-5, 5), "exp2": (-5, 5),
    "expm1": (-2, 2), "log": (0.1, 9), "log2": (0.1, 9), "log10": (0.1, 9),
    "log1p": (-0.5, 9), "sqrt": (0.1, 9), "cbrt": (-9, 9), "square": (-9, 9),
    "reciprocal": (0.5, 9), "absolute": (-9, 9), "fabs": (-9, 9),
    "sign": (-9, 9), "floor": (-9, 9), "ceil": (-9, 9), "trunc": (-9, 9),
    "rint": (-9, 9), "isnan": (-9, 9), "isinf": (-9, 9), "isfinite": (-9, 9),
    "conj": (-9, 9), "angle": (-9, 9), "signbit": (-9, 9),
    "spacing": (-9, 9), "deg2rad": (-400, 400), "radians": (-400, 400),
    "rad2deg": (-7, 7), "degrees": (-7, 7), "bitwise_count": (-100, 100),
}
BINARY = {"arctan2": (-4, 4), "fmod": (-9, 9), "hypot": (-9, 9),
          "power": (0.5, 3), "minimum": (-9, 9), "maximum": (-9, 9),
          "fmin": (-9, 9), "fmax": (-9, 9), "copysign": (-9, 9),
          "nextafter": (-9, 9), "logaddexp": (-30, 30),
          "logaddexp2": (-30, 30), "heaviside": (-9, 9), "gcd": (-60, 60),
          "lcm": (-30, 30), "float_power": (0.5, 3)}
EXACT = {"sign", "floor", "ceil", "trunc", "rint", "isnan", "isinf",
         "isfinite", "absolute", "fabs", "conj", "square", "minimum",
         "maximum", "fmin", "fmax", "signbit", "spacing", "bitwise_count",
         "copysign", "nextafter", "heaviside", "gcd", "lcm"}


def numpy_ref(name, *args, **kw):
    f = getattr(np, name)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args, **kw), None
        except (TypeError, ValueError) as exc:
            return None, TypeError if isinstance(exc, TypeError) else ValueError


def inputs(dtype, lo, hi, shape=(6, 8)):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        lo2 = max(int(np.ceil(lo)), np.iinfo(dt).min)
        return rand(shape, dtype, lo=lo2, hi=max(int(hi), lo2 + 1))
    return rand(shape, dtype, lo=lo, hi=hi)


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", ALL)
def test_unary(name, dtype):
    lo, hi = UNARY[name]
    a = inputs(dtype, lo, hi)
    want, err = numpy_ref("conjugate" if name == "conj" else name, a)
    f = getattr(cumath, name)
    d = gpuarr.to_gpu(a)
    if err is not None:
        with pytest.raises(err):
            f(d)
        return
    math = name not in EXACT
    check(f(d), want, math)
    for view in [lambda x: x[::2, 1::3], lambda x: x[::-1, ::-2], lambda x: x.T,
                 lambda x: x[2:3, 4:5].reshape(()), lambda x: x[:0]]:
        check(f(view(d)), numpy_ref(name if name != "conj" else "conjugate",
                                    view(a))[0], math)
    out = poisoned(want.shape, want.dtype)
    assert f(d, out=out) is out
    check(out, want, math)
    out = poisoned(want.shape[::-1], want.dtype).T
    f(d, out=out)
    check(out, want, math)
    assert getattr(gpuarr, name) is f


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype", ALL)
def test_binary(name, dtype):
    lo, hi = BINARY[name]
    a = inputs(dtype, lo, hi)
    b = inputs(dtype, lo, hi)
    if name == "power" and np.dtype(dtype).kind in "iu":
        b = inputs(dtype, 0, 3)
    want, err = numpy_ref(name, a, b)
    f = getattr(cumath, name)
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    if err is not None:
        with pytest.raises(err):
            f(da, db)
        return
    math = name not in EXACT
    check(f(da, db), want, math)
    check(f(da[::-1], db[:, ::-1]), numpy_ref(name, a[::-1], b[:, ::-1])[0], math)
    check(f(da.T, db[0, :6]), numpy_ref(name, a.T, b[0, :6])[0], math)
    check(f(da, 2), numpy_ref(name, a, 2)[0], math)
    w15, e15 = numpy_ref(name, 1.5, b)
    if e15 is None:
        check(f(1.5, db), w15, math)
    out = poisoned(want.shape, want.dtype)
    assert f(da, db, out=out) is out
    check(out, want, math)


def test_nan_handling_of_min_max():
    a = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
    b = np.array([np.nan, 2.0, 1.0, np.nan], np.float32)
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    for name in ["minimum", "maximum", "fmin", "fmax"]:
        check(getattr(gpuarr, name)(da, db), getattr(np, name)(a, b))
    check(gpuarr.isnan(da), np.isnan(a))
    inf = gpuarr.to_gpu(np.array([np.inf, -np.inf, 0.0, np.nan]))
    check(gpuarr.isinf(inf), np.isinf(inf.get()))
    check(gpuarr.isfinite(inf), np.isfinite(inf.get()))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16,
                                   np.float32, np.float64])
def test_clip(dtype):
    a = inputs(dtype, -50, 50)
    d = gpuarr.to_gpu(a)
    check(gpuarr.clip(d, -10, 20), np.clip(a, -10, 20))
    check(gpuarr.clip(d, None, 5), np.clip(a, None, 5))
    check(gpuarr.clip(d, -5, None), np.clip(a, -5, None))
    lo = inputs(dtype, -40, 0)
    check(gpuarr.clip(d, gpuarr.to_gpu(lo), 10), np.clip(a, lo, 10))
    check(gpuarr.clip(d[::-1].T, -3, 3), np.clip(a[::-1].T, -3, 3))
    out = poisoned(a.shape, a.dtype)
    assert gpuarr.clip(d, -1, 1, out=out) is out
    check(out, np.clip(a, -1, 1))
    check(gpuarr.clip(d, None, None), a)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.float16,
                                   np.float64, np.complex64])
def test_where_and_if_positive(dtype):
    c = rand((5, 7), np.float32, lo=-1, hi=1)
    x = rand((5, 7), dtype)
    y = rand((7,), dtype)
    dc, dx, dy = map(gpuarr.to_gpu, (c, x, y))
    check(gpuarr.where(dc > 0, dx, dy), np.where(c > 0, x, y))
    check(gpuarr.where(dc, dx, dy), np.where(c, x, y))
    check(gpuarr.where(dc[::-1] > 0, dx.T[::-1].T, 0), np.where(c[::-1] > 0, x.T[::-1].T, 0))
    check(cumath.if_positive(dc, dx, dy), np.where(c > 0, x, y))
    out = poisoned((5, 7), np.result_type(x, y))
    assert gpuarr.where(dc > 0, dx, dy, out=out) is out
    check(out, np.where(c > 0, x, y))
    for got, want in zip(gpuarr.where(dc > 0), np.where(c > 0)):
        check(got, want)              # one argument: numpy's nonzero
    with pytest.raises(ValueError):
        gpuarr.where(dc, dx)
    check(gpuarr.where(dc > 0, 1.5, dx), np.where(c > 0, 1.5, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64,
                                   np.complex128, np.int16])
def test_angle(dtype):
    a = rand((4, 5), dtype)
    d = gpuarr.to_gpu(a)
    check(gpuarr.angle(d), np.angle(a), True)
    check(gpuarr.angle(d, deg=True), np.angle(a, deg=True), True)


def test_math_promotes_integers_like_numpy():
    for dt in [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint64]:
        a = rand(9, dt, lo=1, hi=9)
        check(gpuarr.sqrt(gpuarr.to_gpu(a)), np.sqrt(a), True)
        check(gpuarr.exp(gpuarr.to_gpu(a)), np.exp(a), True)


def test_stream_argument():
    s = gpuarr.driver.Stream()
    a = rand(1000, np.float32, lo=0.1, hi=3)
    d = gpuarr.to_gpu(a)
    r = gpuarr.sqrt(d, stream=s)
    r2 = gpuarr.add(r, 1, stream=s)
    s.synchronize()
    check(r2, np.sqrt(a) + np.float32(1), True)


def test_float_bit_functions_at_their_edges():
    # the values where nextafter, spacing, signbit, copysign and heaviside
    # differ from a naive formula: zeros of both signs, the smallest and
    # largest values, infinities and NaN, in each float dtype
    for dt in FLOATS:
        info = np.finfo(dt)
        edge = np.array([0.0, -0.0, info.smallest_subnormal,
                         -info.smallest_subnormal, info.tiny, 1.0, -1.0,
                         info.max, -info.max, np.inf, -np.inf, np.nan,
                         -np.nan], dt)
        other = np.array([1.0, -1.0, 0.0, 0.0, -0.0, np.inf, 2.0, np.inf,
                          -np.inf, 0.0, 0.0, 1.0, np.nan], dt)
        d, o = gpuarr.to_gpu(edge), gpuarr.to_gpu(other)
        with np.errstate(all="ignore"):
            check(gpuarr.nextafter(d, o), np.nextafter(edge, other))
            check(gpuarr.nextafter(o, d), np.nextafter(other, edge))
            check(gpuarr.spacing(d), np.spacing(edge))
            check(gpuarr.signbit(d), np.signbit(edge))
            check(gpuarr.copysign(o, d), np.copysign(other, edge))
            check(gpuarr.heaviside(d, o), np.heaviside(edge, other))
            check(gpuarr.logaddexp(d, o), np.logaddexp(edge, other), True)
            check(gpuarr.logaddexp2(d, d), np.logaddexp2(edge, edge), True)
        # every float16: nextafter up and down, spacing
        if dt == np.float16:
            allh = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
            dh = gpuarr.to_gpu(allh)
            with np.errstate(all="ignore"):
                for y in (np.inf, -np.inf, 0.0):
                    want = np.nextafter(allh, np.float16(y))
                    got = gpuarr.nextafter(dh, np.float16(y)).get()
                    np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(allh)],
                                                  want.view(np.uint16)[~np.isnan(allh)])
                np.testing.assert_array_equal(gpuarr.spacing(dh).get(),
                                              np.spacing(allh))


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm_bitwise_count_extremes(dtype):
    info = np.iinfo(dtype)
    a = np.array([0, 0, 1, info.max, info.min, info.max, 12, info.min], dtype)
    b = np.array([0, 7, 0, info.max, 0, 1, 18, 2], dtype)
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    with np.errstate(all="ignore"):
        check(gpuarr.gcd(da, db), np.gcd(a, b))
        check(gpuarr.lcm(da[:3], db[:3]), np.lcm(a[:3], b[:3]))
        check(gpuarr.bitwise_count(da), np.bitwise_count(a))
    check(np.gcd(da, db), np.gcd(a, b))        # numpy's ufunc dispatches


@pytest.mark.parametrize("dtype", [np.bool_] + INTS + FLOATS)
def test_divmod(dtype):
    a = inputs(dtype, -40, 40)
    b = inputs(dtype, -7, 7)
    if np.dtype(dtype).kind in "iuf" and b.size:
        b.flat[::5] = 0                 # numpy's results for division by 0
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    with np.errstate(all="ignore"):
        want = np.divmod(a, b)
        for got, w in zip(gpuarr.divmod(da, db), want):
            check(got, w)
        for got, w in zip(np.divmod(da[::-1], db[::-1]),
                          np.divmod(a[::-1], b[::-1])):
            check(got, w)
        outs = tuple(poisoned(w.shape, w.dtype) for w in want)
        assert gpuarr.divmod(da, db, out=outs) == outs
        for got, w in zip(outs, want):
            check(got, w)
    with pytest.raises(TypeError):
        gpuarr.divmod(gpuarr.to_gpu(np.ones(3, np.complex64)), 1)
