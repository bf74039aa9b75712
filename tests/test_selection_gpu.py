"""GPU checks of numpy's selection functions against numpy: nonzero,
flatnonzero, argwhere, where(cond), take/put with axis and mode,
take_along_axis, put_along_axis, compress, extract, place, choose, and
the unbuffered scatter of ufunc.at (add, subtract, multiply, maximum,
minimum) with repeated indices, every dtype."""
import numpy as np
import pytest

import gpuarr
from gpuarr import _indexing, _selection as sel

from test_joining_gpu import ALL, rand, same

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(77)


def sparse(shape, dt):
    h = rand(shape, dt)
    h[_rng.random(shape) < 0.6] = 0
    return h


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_nonzero_every_dtype(dt):
    for shape in [(1,), (17,), (5, 0), (4, 7, 3), (4099,)]:
        h = sparse(shape, dt)
        g = gpuarr.to_gpu(h)
        got = sel.nonzero(g)
        want = np.nonzero(h)
        assert len(got) == len(want)
        for x, y in zip(got, want):
            same(x, y.astype(np.int64))
    h = sparse((6, 5), dt)
    same(sel.argwhere(gpuarr.to_gpu(h)), np.argwhere(h).astype(np.int64))
    same(sel.flatnonzero(gpuarr.to_gpu(h.T)),
         np.flatnonzero(h.T).astype(np.int64))


def test_nonzero_forms():
    h = sparse((9, 8), np.float32)
    g = gpuarr.to_gpu(h)
    for x, y in zip(gpuarr.where(g > 0), np.where(h > 0)):
        same(x, y.astype(np.int64))
    v = g[::-2, 1::3]
    for x, y in zip(sel.nonzero(v), np.nonzero(h[::-2, 1::3])):
        same(x, y.astype(np.int64))
    same(sel.argwhere(gpuarr.to_gpu(np.array(2.0))),
         np.argwhere(np.array(2.0)).astype(np.int64))
    same(sel.argwhere(gpuarr.to_gpu(np.array(0.0))),
         np.argwhere(np.array(0.0)).astype(np.int64))
    with pytest.raises(ValueError, match="0d"):
        sel.nonzero(gpuarr.to_gpu(np.array(1.0)))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take_modes(mode):
    h = rand((5, 6, 7), np.int32)
    g = gpuarr.to_gpu(h)
    lo, hi = (-6, 6) if mode == "raise" else (-20, 20)
    idx = _rng.integers(lo, hi, (3, 4))
    for axis in (None, 0, 1, -1):
        n = h.size if axis is None else h.shape[axis]
        i = idx if mode != "raise" else _rng.integers(-n, n, (3, 4))
        same(sel.take(g, i, axis=axis, mode=mode),
             np.take(h, i, axis=axis, mode=mode))
        same(sel.take(g, gpuarr.to_gpu(i), axis=axis, mode=mode),
             np.take(h, i, axis=axis, mode=mode))
    out = gpuarr.empty((5, 3, 4, 7), np.int32)
    sel.take(g, _rng.integers(0, 6, (3, 4)), axis=1, out=out, mode=mode)


def test_take_errors():
    g = gpuarr.to_gpu(rand((4, 5), np.float32))
    with pytest.raises(IndexError, match="out of bounds"):
        sel.take(g, [7], axis=1)
    with pytest.raises(IndexError, match="non-empty take"):
        sel.take(gpuarr.empty((3, 0), np.float32), [0], axis=1)
    with pytest.raises(TypeError):
        sel.take(g, [0.5])


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_put_and_place(dt):
    h = rand((6, 7), dt)
    g = gpuarr.to_gpu(h)
    ind = _rng.permutation(42)[:11]
    v = rand((4,), dt)
    np.put(h, ind, v)
    sel.put(g, ind, v)
    same(g, h)
    np.put(h, [-1, 50], v[:2], mode="wrap")
    sel.put(g, [-1, 50], v[:2], mode="wrap")
    same(g, h)
    m = _rng.random((6, 7)) < 0.5
    vals = rand((5,), dt)
    np.place(h, m, vals)
    sel.place(g, gpuarr.to_gpu(m), vals)
    same(g, h)
    # put into a non-contiguous array
    hv, gv = h.T, g.T
    np.put(hv, [0, 3, 5], v[0])
    sel.put(gv, [0, 3, 5], v[0])
    same(g, h)
    with pytest.raises(IndexError):
        sel.put(g, [100], v[0])
    same(g, h)


def test_along_axis():
    h = rand((4, 6, 5), np.float64)
    g = gpuarr.to_gpu(h)
    for axis in (0, 1, 2):
        idx = np.argsort(h, axis=axis)[(slice(None),) * axis + (slice(3),)]
        same(sel.take_along_axis(g, gpuarr.to_gpu(idx), axis),
             np.take_along_axis(h, idx, axis))
        vals = rand(idx.shape, np.float64)
        np.put_along_axis(h, idx, vals, axis)
        sel.put_along_axis(g, idx, vals, axis)
        same(g, h)
    flat = _rng.integers(-h.size, h.size, 9)
    same(sel.take_along_axis(g, flat, None),
         np.take_along_axis(h, flat, None))


def test_compress_extract_choose():
    h = rand((5, 8), np.float32)
    g = gpuarr.to_gpu(h)
    c = [True, False, True, True]
    for axis in (None, 0, 1):
        same(sel.compress(c, g, axis=axis), np.compress(c, h, axis=axis))
    cond = h > 0
    same(sel.extract(gpuarr.to_gpu(cond), g), np.extract(cond, h))
    a = _rng.integers(0, 3, (5, 8))
    choices = [rand((5, 8), np.float32), rand((8,), np.float64),
               rand((5, 1), np.int16)]
    for mode in ("raise", "wrap", "clip"):
        ai = a if mode == "raise" else a * 3 - 4
        same(sel.choose(gpuarr.to_gpu(ai),
                        [gpuarr.to_gpu(x) for x in choices], mode=mode),
             np.choose(ai, choices, mode=mode))
    with pytest.raises(ValueError, match="invalid entry"):
        sel.choose(gpuarr.to_gpu(a + 5), [gpuarr.to_gpu(x) for x in choices])


AT_DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32,
                                   np.int64, np.uint8, np.uint16, np.uint32,
                                   np.uint64, np.float16, np.float32,
                                   np.float64, np.complex64, np.complex128)]


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum",
                                "minimum"])
@pytest.mark.parametrize("dt", AT_DTYPES, ids=str)
def test_ufunc_at(op, dt):
    if dt.kind == "b" and op == "subtract":
        pytest.skip("numpy refuses boolean subtract")
    if dt.itemsize == 16 and op not in ("add", "subtract"):
        with pytest.raises(NotImplementedError):
            _indexing.ufunc_at(op, gpuarr.zeros(3, dt), [0], 1)
        return
    h = rand((50, 3), dt, nonneg=op == "multiply")
    if op == "multiply" and dt.kind in "fc":
        h = (h / 50 + 0.5).astype(dt)       # keep products finite
    g = gpuarr.to_gpu(h)
    idx = _rng.integers(-50, 50, 400)       # many repeats
    b = rand((400, 3), dt, nonneg=op == "multiply")
    if op == "multiply":
        b = np.ones_like(b)
        b[::7] = 2 if dt.kind != "b" else True
    getattr(np, op).at(h, idx, b)
    _indexing.ufunc_at(op, g, gpuarr.to_gpu(idx), gpuarr.to_gpu(b))
    got = g.get()
    if dt.kind in "fc" and op in ("add", "subtract"):
        # the order of the updates differs: sums agree to rounding
        tol = {"e": 5e-2, "f": 1e-4, "F": 1e-4}.get(dt.char, 1e-10)
        np.testing.assert_allclose(got.astype(np.complex128),
                                   h.astype(np.complex128), rtol=tol,
                                   atol=tol * 1000)
    else:
        np.testing.assert_array_equal(got, h)


def test_ufunc_at_keys_and_errors():
    h = rand((8, 9), np.float32)
    g = gpuarr.to_gpu(h)
    np.add.at(h, (slice(None), [1, 1, 4]), 1.0)
    _indexing.ufunc_at("add", g, (slice(None), [1, 1, 4]), 1.0)
    np.testing.assert_allclose(g.get(), h, rtol=1e-6)
    m = h > 0
    np.maximum.at(h, m, 3.0)
    _indexing.ufunc_at("maximum", g, gpuarr.to_gpu(m), 3.0)
    np.testing.assert_allclose(g.get(), h, rtol=1e-6)
    np.add.at(h, (1, slice(2, 5)), 2.0)         # a basic key
    _indexing.ufunc_at("add", g, (1, slice(2, 5)), 2.0)
    np.testing.assert_allclose(g.get(), h, rtol=1e-6)
    # values of a's dtype and the selection's shape are read in place
    # (left as they were); strided ones, or ones inside a, are copied first
    hb = rand((8, 3), np.float32)
    gb = gpuarr.to_gpu(hb)
    np.add.at(h, (slice(None), [0, 8, 0]), hb)
    _indexing.ufunc_at("add", g, (slice(None), [0, 8, 0]), gb)
    np.testing.assert_allclose(g.get(), h, rtol=1e-6)
    np.testing.assert_array_equal(gb.get(), hb)
    hs = rand((8, 6), np.float32)
    np.subtract.at(h, (slice(None), [2, 3, 2]), hs[:, ::2])
    _indexing.ufunc_at("subtract", g, (slice(None), [2, 3, 2]),
                       gpuarr.to_gpu(hs)[:, ::2])
    np.testing.assert_allclose(g.get(), h, rtol=1e-6)
    flat_h = rand((20,), np.float32)
    flat_g = gpuarr.to_gpu(flat_h)
    np.add.at(flat_h, [12, 12, 19, 5], flat_h[:4].copy())
    _indexing.ufunc_at("add", flat_g, gpuarr.to_gpu(np.array([12, 12, 19, 5])),
                       flat_g[:4])
    np.testing.assert_allclose(flat_g.get(), flat_h, rtol=1e-6)
    gi = gpuarr.to_gpu(np.arange(5, dtype=np.int32))
    with pytest.raises(TypeError, match="same_kind"):
        _indexing.ufunc_at("add", gi, [0], 1.5)
    before = g.get()
    with pytest.raises(IndexError):
        _indexing.ufunc_at("add", g, [0, 99], 1.0)
    np.testing.assert_array_equal(g.get(), before)


@pytest.mark.parametrize("op,dt", [("add", np.float32),
                                   ("maximum", np.float16),
                                   ("add", np.complex64),
                                   ("multiply", np.int32)], ids=str)
def test_ufunc_at_into_scratch(op, dt, monkeypatch):
    """Many updates through one index array into a small view: the
    scatter goes to a scratch copy and checks the indices itself.  A
    strided, negative-stride view in the middle of a larger array (axes
    before and after the indexed one); a bad index anywhere leaves the
    whole array as it was and names the index."""
    taken = []
    real = _indexing._at_scratch
    monkeypatch.setattr(_indexing, "_at_scratch",
                        lambda *a: taken.append(1) or real(*a))
    dt = np.dtype(dt)
    h = rand((6, 41, 5), dt, nonneg=op == "multiply")
    g = gpuarr.to_gpu(h)
    hv, gv = h[1:5, ::-2, 1:4], g[1:5, ::-2, 1:4]      # (4, 21, 3)
    idx = _rng.integers(-21, 21, 2001)
    b = rand((4, 2001, 3), dt)
    if op == "multiply":
        b = np.where(_rng.random(b.shape) < 0.01, -1, 1).astype(dt)
    getattr(np, op).at(hv, (slice(None), idx), b)
    _indexing.ufunc_at(op, gv, (slice(None), gpuarr.to_gpu(idx)),
                       gpuarr.to_gpu(b))
    assert taken
    if dt.kind in "fc" and op == "add":
        np.testing.assert_allclose(g.get(), h, rtol=1e-4, atol=0.2)
    else:
        np.testing.assert_array_equal(g.get(), h)
    before = g.get()
    for bad in (21, -22):
        wrong = idx.copy()
        wrong[1500] = bad
        wrong[1700] = 40
        with pytest.raises(IndexError, match="index %d is out of bounds for "
                           "axis 1 with size 21" % bad):
            _indexing.ufunc_at(op, gv, (slice(None), gpuarr.to_gpu(wrong)),
                               gpuarr.to_gpu(b))
        np.testing.assert_array_equal(g.get(), before)
    with pytest.raises(IndexError):
        np.add.at(hv, (slice(None), wrong), b)      # numpy's error too


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.bool_, np.int8,
                                                       np.uint8)], ids=str)
@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "minimum"])
def test_ufunc_at_one_byte_views(op, dt):
    """1-byte destinations (updated in a 4-byte copy and cast back):
    an odd-length strided, negative-stride view of a larger array, sums
    and products that wrap modulo 256, and nothing written outside the
    view."""
    h = rand((7, 13), dt)
    g = gpuarr.to_gpu(h)
    hv, gv = h[1:6, ::-3], g[1:6, ::-3]        # (5, 5), negative stride
    idx = _rng.integers(-5, 5, 300)
    b = rand((300, 5), dt)
    if dt.kind != "b":
        b[::3] = 200 if dt.kind == "u" else -100  # wrap around
    getattr(np, op).at(hv, idx, b)
    _indexing.ufunc_at(op, gv, gpuarr.to_gpu(idx), gpuarr.to_gpu(b))
    np.testing.assert_array_equal(g.get(), h)
