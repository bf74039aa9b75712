"""GPU checks against numpy of the logic functions (isclose, allclose,
array_equal, array_equiv, isposinf, isneginf), the rounding and difference
functions (around/round, nan_to_num, diff, ediff1d) and numpy 2's
unique_values/counts/inverse/all, through gpuarr and through numpy's
dispatch, on fresh random inputs with NaN, infinities and -0.0 mixed in,
strided and negative-stride views, 0-d and empty arrays."""
import numpy as np
import pytest

import gpuarr

from test_gpuarray_gpu import ALL, FLOATS, INTS, check, poisoned  # noqa: F401

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(20261207)


def values(dtype, shape, special=True):
    """Random values of ``dtype`` with, for floats, NaN, +-inf, +-0.0."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(max(info.min, -1000), min(info.max, 1000), shape,
                             endpoint=True).astype(dt)
    x = (_rng.standard_normal(shape) * 50).astype(dt)
    if dt.kind == "c":
        x = x + 1j * (_rng.standard_normal(shape) * 50).astype(dt)
    if special and x.size >= 8:
        pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 2.5, -3.5])
        flat = x.reshape(-1)
        k = _rng.choice(flat.size, size=max(1, flat.size // 5), replace=False)
        flat[k] = pool[_rng.integers(0, pool.size, k.size)].astype(dt)
    return x


SHAPES = [(37,), (5, 8), (0,), ()]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", SHAPES)
def test_isclose_allclose(dtype, shape):
    a = values(dtype, shape)
    b = a.copy()
    if a.size and a.dtype.kind in "fc":
        b = (a * (1 + 1e-7 * _rng.standard_normal(shape))).astype(a.dtype)
        b.reshape(-1)[::3] = values(dtype, b.reshape(-1)[::3].shape)
    elif a.size and a.dtype.kind in "iu":
        b.reshape(-1)[::4] += 1
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    with np.errstate(all="ignore"):
        for kw in ({}, {"equal_nan": True}, {"rtol": 1e-3, "atol": 0.5}):
            check(gpuarr.isclose(da, db, **kw), np.isclose(a, b, **kw))
            assert gpuarr.allclose(da, db, **kw) == np.allclose(a, b, **kw)
            assert gpuarr.allclose(da, da, **kw) == np.allclose(a, a, **kw)
        check(np.isclose(da, 3), np.isclose(a, 3))
        if a.ndim == 2:
            check(gpuarr.isclose(da[::-1, ::2], db[0]),
                  np.isclose(a[::-1, ::2], b[0]))


@pytest.mark.parametrize("dtype", ALL)
def test_array_equal_equiv(dtype):
    a = values(dtype, (6, 7))
    da = gpuarr.to_gpu(a)
    b = a.copy()
    db = gpuarr.to_gpu(b)
    for en in (False, True):
        if en and a.dtype.kind not in "fc":
            continue
        assert gpuarr.array_equal(da, db, equal_nan=en) == \
            np.array_equal(a, b, equal_nan=en)
    assert gpuarr.array_equal(da, da[:, :6]) is False
    assert np.array_equal(da, db) == np.array_equal(a, b)
    assert gpuarr.array_equiv(da, db[0:1]) == np.array_equiv(a, b[0:1])
    assert gpuarr.array_equiv(da, db[:, :3]) is False
    assert gpuarr.array_equal(3, 3) is True and gpuarr.array_equiv(2, 3) is False
    assert gpuarr.array_equiv(gpuarr.repeat(da[0:1], 3, axis=0), db[0]) == \
        np.array_equiv(a[0:1].repeat(3, axis=0), b[0])


@pytest.mark.parametrize("dtype", [np.bool_] + INTS + FLOATS)
def test_isposinf_isneginf(dtype):
    a = values(dtype, (9, 5))
    d = gpuarr.to_gpu(a)
    check(gpuarr.isposinf(d), np.isposinf(a))
    check(gpuarr.isneginf(d[::-1]), np.isneginf(a[::-1]))
    out = poisoned(a.shape, np.bool_)
    assert gpuarr.isposinf(d, out=out) is out
    check(out, np.isposinf(a))
    check(np.isneginf(d), np.isneginf(a))


def test_isposinf_complex_raises():
    with pytest.raises(TypeError, match="complex"):
        gpuarr.isposinf(gpuarr.to_gpu(np.ones(3, np.complex64)))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("decimals", [0, 2, -1, -2])
def test_around(dtype, decimals):
    a = values(dtype, (7, 9), special=True)
    if np.dtype(dtype).kind in "fc":
        a = (a / 3).astype(dtype)
    d = gpuarr.to_gpu(a)
    if a.dtype == np.bool_ and decimals != 0:
        with pytest.raises(TypeError):
            np.round(a, decimals)
        with pytest.raises(TypeError):
            gpuarr.round(d, decimals)
        return
    with np.errstate(all="ignore"):
        want = np.round(a, decimals)
        check(gpuarr.round(d, decimals), want)
        check(gpuarr.around(d.T, decimals), np.around(a.T, decimals))
        check(np.round(d[::-2], decimals), np.round(a[::-2], decimals))
        out = poisoned(want.shape, want.dtype)
        assert gpuarr.around(d, decimals, out=out) is out
        check(out, want)
        check(gpuarr.round(d[2, 3].reshape(()), decimals),
              np.round(a[2, 3].reshape(()), decimals))


def test_around_halves_to_even():
    a = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 12.5, 25, 35, 45])
    d = gpuarr.to_gpu(a)
    for dec in (0, 1, 2, -1):
        check(gpuarr.round(d, dec), np.round(a, dec))
    i = np.array([15, 25, -35, 45, 2 ** 40 + 5], np.int64)
    check(gpuarr.round(gpuarr.to_gpu(i), -1), np.round(i, -1))


@pytest.mark.parametrize("dtype", ALL)
def test_nan_to_num(dtype):
    a = values(dtype, (8, 6))
    d = gpuarr.to_gpu(a)
    check(gpuarr.nan_to_num(d), np.nan_to_num(a))
    check(gpuarr.nan_to_num(d[::-1, 1::2], nan=7, posinf=1e3, neginf=-2),
          np.nan_to_num(a[::-1, 1::2], nan=7, posinf=1e3, neginf=-2))
    check(np.nan_to_num(d), np.nan_to_num(a))
    e = d.copy()
    assert gpuarr.nan_to_num(e, copy=False) is e
    check(e, np.nan_to_num(a))
    check(d, a)                     # copy=True left its input alone


@pytest.mark.parametrize("dtype", ALL)
def test_diff(dtype):
    a = values(dtype, (6, 9), special=False)
    d = gpuarr.to_gpu(a)
    with np.errstate(all="ignore"):
        for n in (1, 2, 3):
            for axis in (-1, 0):
                check(gpuarr.diff(d, n, axis), np.diff(a, n, axis))
        check(gpuarr.diff(d[::-1, ::2]), np.diff(a[::-1, ::2]))
        check(np.diff(d, prepend=a.dtype.type(1), append=d[:, :2]),
              np.diff(a, prepend=a.dtype.type(1), append=a[:, :2]))
        check(gpuarr.diff(d[:0]), np.diff(a[:0]))
        check(gpuarr.diff(d, 12), np.diff(a, 12))
    assert gpuarr.diff(d, 0) is d
    with pytest.raises(ValueError, match="non-negative"):
        gpuarr.diff(d, -1)
    with pytest.raises(ValueError, match="one dimensional"):
        gpuarr.diff(d[0, 0].reshape(()))


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_ediff1d(dtype):
    a = values(dtype, (4, 5), special=False)
    d = gpuarr.to_gpu(a)
    with np.errstate(all="ignore"):
        check(gpuarr.ediff1d(d), np.ediff1d(a))
        check(np.ediff1d(d[::-1]), np.ediff1d(a[::-1]))
        ends = np.array([1, 2], dtype), np.array(3, dtype)
        check(gpuarr.ediff1d(d, to_end=gpuarr.to_gpu(ends[0]),
                             to_begin=gpuarr.to_gpu(ends[1])),
              np.ediff1d(a, to_end=ends[0], to_begin=ends[1]))
    # numpy's same_kind check: int64 ends (from Python ints) do not go
    # into unsigned arrays, float ends into no integer array
    for end in ([1, 2], 0.5):
        try:
            want = np.ediff1d(a, to_end=end)
        except TypeError:
            with pytest.raises(TypeError, match="same_kind"):
                gpuarr.ediff1d(d, to_end=end)
        else:
            check(gpuarr.ediff1d(d, to_end=end), want)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float16,
                                   np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("shape", [(300,), (7, 11), (0,)])
def test_unique_family(dtype, shape):
    a = values(dtype, shape)
    if a.size and a.dtype.kind in "iu":
        a = (a % 17).astype(dtype)
    elif a.size:
        a = np.round(a / 20).astype(dtype)
    d = gpuarr.to_gpu(a)
    # numpy leaves unique_values's order open; gpuarr's is sorted (NaNs
    # last, each its own value)
    check(gpuarr.unique_values(d), np.sort(np.unique_values(a)))
    got, want = gpuarr.unique_counts(d), np.unique_counts(a)
    check(got.values, want.values)
    check(got.counts, want.counts)
    # (numpy's unique_inverse sorts unstably: its NaNs, each a value of
    # its own, may come in any order, so their inverse indices are
    # compared as a set)
    got, want = gpuarr.unique_inverse(d), np.unique_inverse(a)
    check(got.values, want.values)
    inv, winv = got.inverse_indices.get(), want.inverse_indices
    assert inv.shape == winv.shape and inv.dtype == winv.dtype
    nan = np.isnan(a)
    np.testing.assert_array_equal(inv[~nan], winv[~nan])
    np.testing.assert_array_equal(np.sort(inv[nan]), np.sort(winv[nan]))
    got, want = np.unique_all(d), np.unique_all(a)
    assert type(got).__name__ == "UniqueAllResult"
    for g, w in zip(got, want):
        check(g, w)
    check(got.values[got.inverse_indices], a)
