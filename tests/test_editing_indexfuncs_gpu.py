"""GPU checks against numpy of the element-editing functions (append,
delete, insert, resize, trim_zeros) and the index helpers
(broadcast_arrays, unravel_index, ravel_multi_index, ix_, tri, the
triangle and diagonal indices, fill_diagonal, select, putmask), through
gpuarr and through numpy's dispatch, on fresh random inputs of every
dtype, strided and negative-stride views, 0-d and empty arrays; outputs
start on poisoned blocks and in-place writes touch nothing else."""
import numpy as np
import pytest

import gpuarr

from test_gpuarray_gpu import ALL, INTS, poisoned_next
from test_joining_gpu import layouts, same

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng()


def values(dtype, shape):
    """Random values of ``dtype`` (zeros among them for the integers and
    bools, NaN and -0.0 among the floats)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(max(info.min, -50), min(info.max, 50), shape,
                             endpoint=True).astype(dt)
    x = (_rng.standard_normal(shape) * 10).astype(dt)
    if dt.kind == "c":
        x = np.asarray(x + 1j * (_rng.standard_normal(shape) * 10).astype(dt))
    if x.size >= 6:
        flat = x.reshape(-1)
        flat[_rng.integers(0, flat.size, 2)] = np.nan
        flat[_rng.integers(0, flat.size, 2)] = -0.0
    return x


def poison(shape, dtype):
    """The next array of ``shape`` and ``dtype`` on a poisoned block (when
    it has any bytes)."""
    if int(np.prod(shape)):
        poisoned_next(shape, dtype)


def both(name, *args, **kw):
    """gpuarr's and numpy's dispatched results of ``name``."""
    return getattr(gpuarr, name)(*args, **kw), getattr(np, name)(*args, **kw)


# ---------------------------------------------------------------------------
# append, delete, insert, resize, trim_zeros

@pytest.mark.parametrize("dtype", ALL)
def test_append(dtype):
    h, v = values(dtype, (4, 6)), values(dtype, (4, 3))
    for (d, hh), (dv, vv) in zip(layouts(h), layouts(v)):
        for axis in (None, 1, -1):
            for got in both("append", d, dv, axis=axis):
                same(got, np.append(hh, vv, axis=axis))
    # a scalar, a list, 0-d and empty arrays, promotion (numpy's)
    d = gpuarr.to_gpu(h)
    same(gpuarr.append(d, 3), np.append(h, 3))
    same(gpuarr.append(d[0], [1, 2]), np.append(h[0], [1, 2]))
    z = np.array(values(dtype, ()))
    same(gpuarr.append(gpuarr.to_gpu(z), gpuarr.to_gpu(z)), np.append(z, z))
    e = np.zeros((0, 6), dtype)
    same(gpuarr.append(gpuarr.to_gpu(e), d, axis=0), np.append(e, h, axis=0))
    f = values(np.float64, (4, 2))
    same(gpuarr.append(d, gpuarr.to_gpu(f), axis=1), np.append(h, f, axis=1))


DELETE_OBJS = [0, -1, 3, slice(1, 5, 2), slice(None, None, -3), slice(7, 2),
               [0, 2, 2, -1], [], np.array([], np.int64), np.array([4]),
               np.array([1, 5], np.uint8)]


@pytest.mark.parametrize("dtype", ALL)
def test_delete(dtype):
    h = values(dtype, (6, 7))
    for d, hh in layouts(h):
        for axis in (None, 0, 1, -1):
            n = hh.size if axis is None else hh.shape[axis]
            objs = DELETE_OBJS + [_rng.integers(0, 2, n).astype(bool)]
            for obj in objs:
                want = np.delete(hh, obj, axis=axis)
                got = gpuarr.delete(d, obj, axis=axis)
                same(got, want)
            # numpy's dispatch (lists only: it refuses numpy.ndarrays)
            same(np.delete(d, [1, 3], axis=axis),
                 np.delete(hh, [1, 3], axis=axis))
    # a device index list, a 0-d array (flattened first), empty axis
    d = gpuarr.to_gpu(h)
    same(gpuarr.delete(d, gpuarr.to_gpu(np.array([0, 5])), axis=1),
         np.delete(h, [0, 5], axis=1))
    z = np.array(values(dtype, ()))
    same(gpuarr.delete(gpuarr.to_gpu(z), 0), np.delete(z, 0))
    e = np.zeros((3, 0), dtype)
    same(gpuarr.delete(gpuarr.to_gpu(e), [], axis=1), np.delete(e, [], axis=1))
    with pytest.raises(IndexError, match="out of bounds for axis 1"):
        gpuarr.delete(d, 7, axis=1)


@pytest.mark.parametrize("dtype", ALL)
def test_insert(dtype):
    h = values(dtype, (5, 4))
    vals = values(dtype, (5, 3))
    for d, hh in layouts(h):
        cases = [
            (0, 1, {"axis": 1}), (4, 1, {"axis": 1}), (-2, 1, {"axis": 0}),
            (2, vals[:, 0], {"axis": 1}),          # scalar index, a column
            ([2], vals[:, :1], {"axis": 1}),       # one-index list
            (1, vals[:, :2].T, {"axis": 1}),       # scalar index: 2 columns
            ([0, 2, 2, 4], np.concatenate([vals, vals], axis=1)[:, :4],
             {"axis": 1}),
            ([3, 1], 7, {"axis": 0}), (slice(1, 4), 2, {"axis": 1}),
            (np.array([True, False, True, False]), 5, {"axis": 1}),
            (3, [1, 2, 3], {}), ([0, -1], [8, 9], {}), ([], 1, {}),
            (hh.size, 1, {})]
        for obj, v, kw in cases:
            want = np.insert(hh, obj, v, **kw)
            got = gpuarr.insert(d, obj, v, **kw)
            same(got, want)
        # device values (cast unsafely, as numpy; positive, so that every
        # integer cast is defined)
        dv = gpuarr.to_gpu(np.abs(values(np.float64, (5,))))
        same(gpuarr.insert(d, 1, dv, axis=1),
             np.insert(hh, 1, dv.get(), axis=1))
    d = gpuarr.to_gpu(h)
    same(np.insert(d, [1, 2], 3, axis=0), np.insert(h, [1, 2], 3, axis=0))
    z = np.array(values(dtype, ()))
    same(gpuarr.insert(gpuarr.to_gpu(z), 0, 1), np.insert(z, 0, 1))
    with pytest.raises(IndexError, match="out of bounds for axis 0"):
        gpuarr.insert(d, 6, 1, axis=0)


@pytest.mark.parametrize("dtype", ALL)
def test_resize(dtype):
    h = values(dtype, (3, 5))
    for d, hh in layouts(h):
        for shape in [(2, 3), 15, (4, 7), (40,), (2, 0), (), (3, 5)]:
            poison(shape, dtype)
            for got in both("resize", d, shape):
                same(got, np.resize(hh, shape))
    e = gpuarr.to_gpu(np.zeros((0,), dtype))
    same(gpuarr.resize(e, (2, 3)), np.resize(np.zeros((0,), dtype), (2, 3)))
    # the result is a copy: writing it leaves the input alone
    d = gpuarr.to_gpu(h)
    r = gpuarr.resize(d, (2, 2))
    r.fill(0)
    same(d, h)


@pytest.mark.parametrize("dtype", ALL)
def test_trim_zeros(dtype):
    for shape in [(12,), (6, 7), (3, 4, 5)]:
        h = values(dtype, shape)
        if h.dtype != np.bool_:
            h[...] = np.where(np.abs(h.astype(np.complex128)) > 5, h, 0)
        # zero borders, so that there is something to trim
        border = tuple(slice(1, -2) if n > 3 else slice(None) for n in shape)
        framed = np.zeros(shape, dtype)
        framed[border] = h[border]
        for d, hh in layouts(framed):
            for trim in ("fb", "f", "b", "BF"):
                for axis in (None, 0, -1):
                    want = np.trim_zeros(hh, trim, axis=axis)
                    for got in both("trim_zeros", d, trim, axis=axis):
                        same(got, want)
        z = np.zeros(shape, dtype)
        same(gpuarr.trim_zeros(gpuarr.to_gpu(z)), np.trim_zeros(z))
    # a view: writing it writes the array
    h = np.array([0, 0, 1, 2, 0], dtype)
    d = gpuarr.to_gpu(h)
    t = gpuarr.trim_zeros(d)
    t.fill(1)
    same(d, np.array([0, 0, 1, 1, 0], dtype))


# ---------------------------------------------------------------------------
# index helpers

def test_broadcast_arrays():
    a, b, c = values("f4", (3, 1)), values("i2", (4,)), values("c8", ())
    got = gpuarr.broadcast_arrays(*(gpuarr.to_gpu(x) for x in (a, b, c)))
    want = np.broadcast_arrays(a, b, c)
    assert isinstance(got, tuple)
    for g_, w in zip(got, want):
        same(g_, w)
    got = np.broadcast_arrays(gpuarr.to_gpu(a), gpuarr.to_gpu(b))
    for g_, w in zip(got, np.broadcast_arrays(a, b)):
        same(g_, w)


@pytest.mark.parametrize("itype", INTS + [np.bool_])
def test_unravel_index(itype):
    for shape in [(7, 5, 3), (4,), (1, 6), (2, 1, 3)]:
        size = int(np.prod(shape))
        hi = min(size - 1, np.iinfo(itype).max if itype != np.bool_ else 1)
        idx = _rng.integers(0, hi, (3, 11), endpoint=True).astype(itype)
        for d, hh in layouts(idx):
            for order in ("C", "F"):
                want = np.unravel_index(hh, shape, order=order)
                got = gpuarr.unravel_index(d, shape, order=order)
                assert len(got) == len(want)
                for g_, w in zip(got, want):
                    same(g_, np.asarray(w, np.int64))
                for g_, w in zip(np.unravel_index(d, shape, order=order),
                                 want):
                    same(g_, np.asarray(w, np.int64))
    got = gpuarr.unravel_index(17, (4, 5))
    assert [int(x.get()) for x in got] == [3, 2] and got[0].shape == ()
    got = gpuarr.unravel_index(gpuarr.to_gpu(np.zeros(0, np.int64)), (0, 3))
    assert [x.shape for x in got] == [(0,), (0,)]
    d = gpuarr.to_gpu(np.array([3, 30, -1, 40], np.int64))
    with pytest.raises(ValueError, match="index 30 is out of bounds for "
                       "array with size 20"):
        gpuarr.unravel_index(d, (4, 5))
    with pytest.raises(ValueError, match="index -1 is out of bounds"):
        gpuarr.unravel_index(d[2:], (4, 5))


def test_ravel_multi_index():
    dims = (6, 4, 5)
    coords = [_rng.integers(-3, n + 3, (2, 9)) for n in dims]
    for mode in ("wrap", "clip", ("clip", "wrap", "clip")):
        for order in ("C", "F"):
            want = np.ravel_multi_index(coords, dims, mode=mode, order=order)
            dc = [gpuarr.to_gpu(c.astype(t)) for c, t in
                  zip(coords, (np.int8, np.int64, np.int32))]
            same(gpuarr.ravel_multi_index(dc, dims, mode=mode, order=order),
                 want)
            same(np.ravel_multi_index(dc, dims, mode=mode, order=order), want)
    ok = [_rng.integers(0, n, (9,)) for n in dims]
    dc = [gpuarr.to_gpu(c) for c in ok]
    same(gpuarr.ravel_multi_index(dc, dims), np.ravel_multi_index(ok, dims))
    # broadcasting, a (k, n) device array, uint64 coordinates
    same(gpuarr.ravel_multi_index((gpuarr.to_gpu(ok[0][:, None]),
                                   gpuarr.to_gpu(ok[1][None, :].astype(
                                       np.uint64))), dims[:2]),
         np.ravel_multi_index((ok[0][:, None], ok[1][None, :]), dims[:2]))
    stacked = np.stack(ok)
    same(gpuarr.ravel_multi_index(gpuarr.to_gpu(stacked), dims),
         np.ravel_multi_index(stacked, dims))
    bad = [c.copy() for c in ok]
    bad[1][4] = 4
    with pytest.raises(ValueError, match="invalid entry in coordinates"):
        gpuarr.ravel_multi_index([gpuarr.to_gpu(c) for c in bad], dims)


def test_ix_():
    a = np.array([2, 0, 3])
    b = np.array([True, False, True, True, False])
    m = values("f4", (4, 5))
    got = gpuarr.ix_(gpuarr.to_gpu(a), gpuarr.to_gpu(b))
    want = np.ix_(a, b)
    for g_, w in zip(got, want):
        same(g_, w)
    d = gpuarr.to_gpu(m)
    same(d[got], m[want])
    got = gpuarr.ix_([], [1, 0])
    for g_, w in zip(got, np.ix_([], [1, 0])):
        same(g_, w)


def test_tri_and_triangle_indices():
    for n, m, k in [(5, None, 0), (4, 7, 2), (7, 3, -1), (6, 6, -8),
                    (3, 5, 9), (0, None, 0), (1, 1, 0)]:
        for dt in (float, np.int32, bool, np.complex64):
            poison((n, n if m is None else m), dt)
            same(gpuarr.tri(n, m, k, dt), np.tri(n, m, k, dt))
        for fn in ("tril_indices", "triu_indices"):
            got = getattr(gpuarr, fn)(n, k, m)
            want = getattr(np, fn)(n, k, m)
            for g_, w in zip(got, want):
                same(g_, w)
    h = values("f8", (5, 8))
    d = gpuarr.to_gpu(h)
    for fn in ("tril_indices_from", "triu_indices_from"):
        for k in (-2, 0, 3):
            for got in (getattr(gpuarr, fn)(d, k), getattr(np, fn)(d, k)):
                want = getattr(np, fn)(h, k)
                for g_, w in zip(got, want):
                    same(g_, w)
                same(d[got], h[want])


def test_diag_indices_and_fill_diagonal():
    for n, nd in [(4, 2), (3, 3), (0, 2), (1, 4)]:
        got = gpuarr.diag_indices(n, nd)
        for g_, w in zip(got, np.diag_indices(n, nd)):
            same(g_, w)
    h = values("f4", (4, 4, 4))
    d = gpuarr.to_gpu(h)
    for got in (gpuarr.diag_indices_from(d), np.diag_indices_from(d)):
        same(d[got], h[np.diag_indices_from(h)])
    for dtype in ALL:
        for shape, wrap in [((5, 5), False), ((9, 4), False), ((9, 4), True),
                            ((3, 7), False), ((4, 4, 4), False),
                            ((0, 3), False)]:
            for val in (values(dtype, ()).item(), values(dtype, (3,)),
                        values(dtype, (40,))):
                h = values(dtype, shape)
                for d, hh in layouts(h):
                    hh = hh.copy()
                    np.fill_diagonal(hh, val, wrap=wrap)
                    for fn in (gpuarr.fill_diagonal, np.fill_diagonal):
                        dd = d.copy() if fn is np.fill_diagonal else d
                        assert fn(dd, val, wrap=wrap) is None
                        same(dd, hh)


@pytest.mark.parametrize("dtype", ALL)
def test_select(dtype):
    shape = (6, 5)
    conds = [_rng.random(shape) < p for p in (0.3, 0.5, 0.6)]
    choices = [values(dtype, shape), values(dtype, (5,)), values(dtype, ())]
    want = np.select(conds, choices)
    dconds = [gpuarr.to_gpu(c) for c in conds]
    dchoices = [gpuarr.to_gpu(np.asarray(c)) for c in choices]
    poison(shape, want.dtype)
    same(gpuarr.select(dconds, dchoices), want)
    same(np.select(dconds, dchoices), want)
    d0 = values(dtype, (1, 5))
    same(gpuarr.select(dconds, dchoices, gpuarr.to_gpu(d0)),
         np.select(conds, choices, d0))
    # Python scalars are weak (NEP 50); a condition broadcast from a row
    row = _rng.random(5) < 0.5
    same(gpuarr.select([gpuarr.to_gpu(row), dconds[0]], [1, dchoices[0]], 2),
         np.select([row, conds[0]], [1, choices[0]], 2))
    same(gpuarr.select([gpuarr.to_gpu(row)], [1.5], 2),
         np.select([row], [1.5], 2))


@pytest.mark.parametrize("dtype", ALL)
def test_putmask(dtype):
    for shape in [(7, 9), (13,), ()]:
        h = values(dtype, shape)
        mask = np.asarray(_rng.random(shape) < 0.4)
        for vals in (values(dtype, (4,)), values(dtype, shape),
                     np.abs(values(np.float64, (3,))),
                     values(dtype, ()).item()):
            for d, hh in layouts(h):
                hh = hh.copy()
                with np.errstate(all="ignore"):
                    np.putmask(hh, mask, vals)
                dm = gpuarr.to_gpu(mask)
                dv = gpuarr.to_gpu(np.asarray(vals))
                with np.errstate(all="ignore"):
                    assert gpuarr.putmask(d, dm, dv) is None
                same(d, hh)
    # an empty values list changes nothing; numpy's dispatch
    h = values(dtype, (5,))
    d = gpuarr.to_gpu(h)
    gpuarr.putmask(d, gpuarr.to_gpu(np.ones(5, bool)), [])
    same(d, h)
    m = np.array([True, False, True, False, False])
    np.putmask(d, gpuarr.to_gpu(m), gpuarr.to_gpu(h[::-1].copy()))
    want = h.copy()
    np.putmask(want, m, h[::-1].copy())
    same(d, want)


# ---------------------------------------------------------------------------
# set, sort and type tests; layouts; building matrices

@pytest.mark.parametrize("dtype", ALL)
def test_setxor1d_and_sort_complex(dtype):
    a = values(dtype, (40,))
    b = values(dtype, (7, 5))
    for aa, bb in ((a, b), (a[:0], b), (a, b[:0]), (a[:0], b[:0])):
        da, db = gpuarr.to_gpu(aa), gpuarr.to_gpu(bb)
        want = np.setxor1d(aa, bb)
        got = gpuarr.setxor1d(da, db)
        np.testing.assert_array_equal(got.get(), want)
        assert got.dtype == want.dtype
    ua, ub = np.unique(a), np.unique(b)
    got = np.setxor1d(gpuarr.to_gpu(ua), gpuarr.to_gpu(ub),
                      assume_unique=True)
    np.testing.assert_array_equal(got.get(),
                                  np.setxor1d(ua, ub, assume_unique=True))
    h = values(dtype, (6, 9))
    for d, hh in layouts(h):
        want = np.sort_complex(hh)
        for fn in (gpuarr.sort_complex, np.sort_complex):
            got = fn(d)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype", ALL)
def test_type_tests_and_fix(dtype):
    h = values(dtype, (5, 6))
    if np.dtype(dtype).kind == "c":
        h.imag[::2] = 0
    for d, hh in layouts(h):
        for name in ("iscomplex", "isreal"):
            for got in both(name, d):
                same(got, getattr(np, name)(hh))
        if np.dtype(dtype).kind in "fiu":
            for got in both("fix", d):
                same(got, np.fix(hh))
    if np.dtype(dtype).kind == "c":
        small = (h.real + 1j * (h.imag * 0 + np.finfo(dtype).eps)).astype(
            dtype)
        for x in (h, small):
            d = gpuarr.to_gpu(x)
            for tol in (100, 1e-3):
                got = gpuarr.real_if_close(d, tol)
                want = np.real_if_close(x, tol)
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got.get(), want)
    else:
        d = gpuarr.to_gpu(h)
        assert gpuarr.real_if_close(d) is d


@pytest.mark.parametrize("dtype", ALL)
def test_layout_copies_unstack_vander(dtype):
    h = values(dtype, (4, 5, 3))
    for d, hh in layouts(h):
        c = gpuarr.ascontiguousarray(d)
        assert c.flags.c_contiguous
        same(c, hh)
        f = gpuarr.asfortranarray(d)
        assert f.flags.f_contiguous and gpuarr.isfortran(f)
        np.testing.assert_array_equal(f.get(), hh)
        for axis in (0, 1, -1):
            got = gpuarr.unstack(d, axis=axis)
            want = np.unstack(hh, axis=axis)
            assert len(got) == len(want)
            for g_, w in zip(got, want):
                same(g_, w)
        c = gpuarr.ascontiguousarray(d, dtype=np.float64)
        same(c, np.ascontiguousarray(hh, dtype=np.float64))
    v = values(dtype, (6,))
    for N in (None, 0, 1, 4, 9):
        for inc in (False, True):
            want = np.vander(v, N, inc)
            got = gpuarr.vander(gpuarr.to_gpu(v), N, inc)
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(got.get(), want, rtol=1e-12)
                assert got.dtype == want.dtype
            else:
                same(got, want)
            if N is None:
                same(np.vander(gpuarr.to_gpu(v), increasing=inc), got.get())
    for n, dt in ((4, None), (3, np.int8), (0, bool)):
        same(gpuarr.identity(n, dt), np.identity(n, dt))


def _has_device(x):
    if isinstance(x, list):
        return any(_has_device(v) for v in x)
    return isinstance(x, gpuarr.GPUArray)


@pytest.mark.parametrize("dtype", ALL)
def test_block(dtype):
    A, B = values(dtype, (2, 3)), values(dtype, (2, 2))
    C, D = values(dtype, (3, 3)), values(dtype, (3, 2))
    v, s = values(dtype, (5,)), values(dtype, ())
    dA, dB, dC, dD, dv = (gpuarr.to_gpu(x) for x in (A, B, C, D, v))
    cases = [([[A, B], [C, D]], [[dA, dB], [dC, dD]]),
             ([v, v], [dv, dv]),                        # 1-d join
             ([[v], [v]], [[dv], [dv]]),                # stacked rows
             ([[[A]], [[A]]], [[[dA]], [[dA]]]),        # depth 3 > ndim
             ([A, B], [dA, dB]),
             (v, dv),                                   # depth 0: a copy
             ([[1, 2], [3, 4]], [[1, 2], [3, 4]]),      # scalars
             ([s.item(), v], [s.item(), dv])]
    for host, dev in cases:
        want = np.block(host)
        got = gpuarr.block(dev)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.get(), want)
        if _has_device(dev):        # numpy dispatches on a GPUArray block
            got = np.block(dev)
            np.testing.assert_array_equal(got.get(), want)
    # a copy even for one block, and promotion across blocks
    got = gpuarr.block(dv)
    assert got.ptr != dv.ptr
    f = values(np.float64, (2, 2))
    want = np.block([A, f])
    got = gpuarr.block([dA, gpuarr.to_gpu(f)])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.int64])
def test_packbits_unpackbits(dtype):
    for shape in [(29,), (5, 17), (3, 8, 4), ()]:
        h = _rng.integers(0, 3, shape).astype(dtype)
        for d, hh in layouts(h):
            for axis in [None] + list(range(-len(shape), len(shape))):
                for order in ("big", "little"):
                    want = np.packbits(hh, axis=axis, bitorder=order)
                    for fn in (gpuarr.packbits, np.packbits):
                        same(fn(d, axis=axis, bitorder=order), want)
    u = _rng.integers(0, 256, (6, 5)).astype(np.uint8)
    for d, uu in layouts(u):
        for axis in (None, 0, 1, -1):
            for count in (None, 3, 13, -5, 100):
                n = uu.size * 8 if axis is None else uu.shape[axis] * 8
                if count is not None and count > n:
                    continue     # numpy leaves that padding uninitialized
                for order in ("big", "little"):
                    want = np.unpackbits(uu, axis=axis, count=count,
                                         bitorder=order)
                    for fn in (gpuarr.unpackbits, np.unpackbits):
                        same(fn(d, axis=axis, count=count, bitorder=order),
                             want)
    # padding zeros past the bits, and the round trip
    d = gpuarr.to_gpu(u)
    got = gpuarr.unpackbits(d, axis=1, count=50)
    assert got.shape == (6, 50) and not got.get()[:, 40:].any()
    same(gpuarr.packbits(gpuarr.unpackbits(d, axis=0), axis=0), u)
