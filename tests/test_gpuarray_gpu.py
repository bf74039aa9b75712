"""GPU checks of gpuarr.gpuarray against numpy.

Fresh random inputs (never all zeros; integer divisors never zero), outputs
poisoned before ``out=`` calls, and every layout: contiguous, sliced,
negative-stride, transposed, broadcast, 0-d and empty. Float tolerances are
a few ulp; integer and bool results must match exactly.
"""
import gc
import pickle

import numpy as np
import pytest

import gpuarr

pytestmark = pytest.mark.gpu

ALL = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
       np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
       np.complex128]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
NUMERIC = INTS + FLOATS + COMPLEX


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(20240611)


def rand(shape, dtype, lo=None, hi=None, nonzero=True):
    """Random values of ``dtype`` (never zero where ``nonzero``)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        x = _rng.integers(0, 2, shape).astype(bool)
        if x.size and not x.any():
            x.flat[0] = True
        return x
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = max(info.min, -100 if lo is None else lo)
        hi = min(info.max, 100 if hi is None else hi)
        x = _rng.integers(lo, hi, shape, endpoint=True).astype(dt)
        if nonzero:
            x[x == 0] = 1 if hi >= 1 else -1
        return x
    lo = -4.0 if lo is None else lo
    hi = 4.0 if hi is None else hi
    if dt.kind == "f":
        x = np.asarray(_rng.uniform(lo, hi, shape)).astype(dt)
    else:
        x = np.asarray(_rng.uniform(lo, hi, shape)
                       + 1j * _rng.uniform(lo, hi, shape)).astype(dt)
    if nonzero:
        x[x == 0] = 1
    return np.asarray(x, dt)


def tol(dtype, math=False):
    dt = np.dtype(dtype)
    if dt.kind == "c":
        dt = np.dtype("f%d" % (dt.itemsize // 2))
    if dt == np.float16:
        return 2e-3
    if dt == np.float32:
        return 2e-6 if math else 1e-6
    if dt == np.float64:
        return 1e-13 if math else 1e-15
    return 0


def check(got, want, math=False):
    """``got`` (GPUArray) equals numpy's ``want`` in shape, dtype and values."""
    assert isinstance(got, gpuarr.GPUArray), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    host = got.get()
    r = tol(want.dtype, math)
    if want.dtype == np.bool_:
        # as bytes: a garbage byte (the 0x5A poison) reads as True
        np.testing.assert_array_equal(host.view(np.uint8),
                                      want.astype(np.uint8))
    elif r == 0:
        np.testing.assert_array_equal(host, want)
    else:
        np.testing.assert_allclose(host, want, rtol=r, atol=r, equal_nan=True)


def ours(f, *args):
    """Call gpuarr where numpy succeeded (every loop numpy has, gpuarr has)."""
    return f(*args)


def poisoned(shape, dtype):
    """A device array full of garbage (NaN for floats, 0x5A bytes else)."""
    a = gpuarr.empty(shape, dtype)
    dt = np.dtype(dtype)
    if dt.kind in "fc":
        a.fill(np.nan)
    elif dt.kind == "b":
        # neither False (0) nor True (1): an unwritten bool shows in check()
        if a.nbytes:
            gpuarr.driver.memset_d8(a.ptr, 0x5A, a.nbytes)
    else:
        a.fill(dt.type(0x5A))
    return a


# (name, function making the view from a base array of shape BASE)
BASE = (6, 8)
LAYOUTS = {
    "contig": lambda a: a,
    "sliced": lambda a: a[1:5, ::3],
    "negative": lambda a: a[::-1, ::-2],
    "transposed": lambda a: a.T,
    "row": lambda a: a[2],
    "column": lambda a: a[:, 3],
    "zero_d": lambda a: a[1, 2],
    "empty": lambda a: a[3:3],
}


def host_and_device(dtype, layout, **kw):
    base = rand(BASE, dtype, **kw)
    dev = gpuarr.to_gpu(base)
    h = np.asarray(LAYOUTS[layout](base))  # numpy scalar -> 0-d array
    d = LAYOUTS[layout](dev)
    return h, d


# ---------------------------------------------------------------------------
# creation and transfers

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("order", ["C", "F"])
def test_to_gpu_get_round_trip(dtype, order):
    for shape in [(), (0,), (1,), (7,), (3, 5), (2, 3, 4), (2, 0, 3)]:
        h = np.asarray(rand(shape, dtype), order=order)
        g = gpuarr.to_gpu(h)
        assert g.shape == h.shape and g.dtype == h.dtype
        out = g.get()
        np.testing.assert_array_equal(out, h)
        assert out.dtype == h.dtype


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128])
def test_to_gpu_of_noncontiguous_host(dtype):
    h = rand((9, 10), dtype)[::-2, 1::3]
    np.testing.assert_array_equal(gpuarr.to_gpu(h).get(), h)
    np.testing.assert_array_equal(gpuarr.to_gpu(h.T).get(), h.T)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_get_views(dtype, layout):
    h, d = host_and_device(dtype, layout)
    np.testing.assert_array_equal(d.get(), h)


def test_get_3d_permuted_and_into_given_arrays():
    base = rand((4, 5, 6), np.float64)
    d = gpuarr.to_gpu(base)
    for perm in [(1, 0, 2), (2, 0, 1), (0, 2, 1)]:
        np.testing.assert_array_equal(d.transpose(perm).get(), base.transpose(perm))
    out = np.empty((5, 4, 6))
    d.transpose(1, 0, 2).get(out)
    np.testing.assert_array_equal(out, base.transpose(1, 0, 2))
    out = np.empty((4, 5, 6))[:, :, :]
    got = d.get(ary=out)
    assert got is out
    np.testing.assert_array_equal(out, base)
    target = np.empty((8, 12))[::2, ::2]  # a non-contiguous destination
    col = np.full((4, 6), np.nan)
    assert d[:, 0].get(ary=col) is col
    np.testing.assert_array_equal(col, base[:, 0])
    target[...] = np.nan
    d2 = gpuarr.to_gpu(rand((4, 6), np.float64))
    d2.get(ary=target)
    np.testing.assert_array_equal(target, d2.get())


def test_get_pagelocked_and_async():
    h = rand((64, 33), np.float32)
    d = gpuarr.to_gpu(h)
    p = d.get(pagelocked=True)
    np.testing.assert_array_equal(p, h)
    np.testing.assert_array_equal(d.T.get(pagelocked=True), h.T)
    s = gpuarr.driver.Stream()
    out = gpuarr.driver.pagelocked_empty(h.shape, h.dtype)
    d.get_async(s, out)
    s.synchronize()
    np.testing.assert_array_equal(out, h)
    d2 = gpuarr.to_gpu_async(p, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(d2.get(), h)
    d3 = gpuarr.zeros_like(d)
    d3.set_async(p, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(d3.get(), h)


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float32, np.complex64])
@pytest.mark.parametrize("layout", ["contig", "sliced", "negative", "transposed",
                                    "column", "zero_d", "empty"])
def test_set_into_views(dtype, layout):
    base = rand(BASE, dtype)
    d = gpuarr.to_gpu(base)
    view = LAYOUTS[layout](d)
    hview = LAYOUTS[layout](base)
    new = rand(np.shape(hview), dtype)
    view.set(new)
    expect = base.copy()
    if layout == "zero_d":
        expect[1, 2] = new
    else:
        LAYOUTS[layout](expect)[...] = new
    np.testing.assert_array_equal(d.get(), expect)
    # from a non-contiguous host array too
    if np.ndim(new) == 2:
        src = rand((new.shape[0] * 2, new.shape[1] * 3), dtype)[::2, ::-3]
        view.set(src)
        LAYOUTS[layout](expect)[...] = src
        np.testing.assert_array_equal(d.get(), expect)


def test_set_casts_like_numpy_assignment():
    d = gpuarr.zeros(4, np.int32)
    d.set(np.array([1.7, -2.2, 3.0, 4.9]))
    np.testing.assert_array_equal(d.get(), np.array([1.7, -2.2, 3.0, 4.9]).astype(np.int32))
    with pytest.raises(ValueError):
        d.set(np.zeros(5))


def poisoned_next(shape, dtype):
    """Make the next array of ``shape`` and ``dtype`` get a block full of
    0x5A bytes, so that elements a creation function leaves unwritten show.
    With the pool emptied, a block of that size freed on the legacy stream
    is what the next allocation of that size there gets back (tools.py:
    the stream-ordered pool keeps blocks up to 1 MiB per (size, stream),
    the binned one per size).  Returns the block's address."""
    from gpuarr.tools import default_pool
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    gc.collect()                # no other array freed into the pool next
    pool = default_pool()
    pool.free_held()
    blk = pool.allocate(nbytes)
    gpuarr.driver.memset_d8(blk.ptr, 0x5A, nbytes)
    ptr = blk.ptr
    blk.free()
    return ptr


def check_on_poison(make, want):
    """``make()`` (a creation function) on a poisoned block equals ``want``."""
    want = np.asarray(want)
    p = poisoned_next(want.shape, want.dtype) if want.size else None
    got = make()
    assert p is None or got.ptr == p, "not served the poisoned block"
    check(got, want)


@pytest.mark.parametrize("dtype", ALL)
def test_creation_functions(dtype):
    dt = np.dtype(dtype)
    for shape in [(), (0,), (5,), (3, 4)]:
        check_on_poison(lambda: gpuarr.zeros(shape, dtype),
                        np.zeros(shape, dtype))
        check(gpuarr.ones(shape, dtype), np.ones(shape, dtype))
        v = rand((), dtype)[()]
        check(gpuarr.full(shape, v, dtype), np.full(shape, v, dtype))
        e = gpuarr.empty(shape, dtype)
        assert e.shape == shape and e.dtype == dt
    like = gpuarr.to_gpu(rand((3, 4), dtype))
    check_on_poison(lambda: gpuarr.zeros_like(like), np.zeros((3, 4), dtype))
    check(gpuarr.ones_like(like), np.ones((3, 4), dtype))
    check(gpuarr.full_like(like, 1), np.full((3, 4), 1, dtype))
    assert gpuarr.empty_like(like).dtype == dt
    check_on_poison(lambda: gpuarr.zeros_like(like, dtype=np.float32),
                    np.zeros((3, 4), np.float32))
    check_on_poison(lambda: gpuarr.eye(4, dtype=dtype), np.eye(4, dtype=dtype))
    check_on_poison(lambda: gpuarr.eye(3, 5, k=2, dtype=dtype),
                    np.eye(3, 5, k=2, dtype=dtype))
    check_on_poison(lambda: gpuarr.eye(5, 3, k=-1, dtype=dtype),
                    np.eye(5, 3, k=-1, dtype=dtype))
    check_on_poison(lambda: gpuarr.eye(3, 4, k=7, dtype=dtype),
                    np.eye(3, 4, k=7, dtype=dtype))


def test_default_dtypes_follow_numpy():
    check(gpuarr.zeros(3), np.zeros(3))
    check(gpuarr.full(3, 7), np.full(3, 7))
    check(gpuarr.full(3, 7.5), np.full(3, 7.5))
    check(gpuarr.full(3, True), np.full(3, True))
    check(gpuarr.full((2, 2), 1 + 2j), np.full((2, 2), 1 + 2j))
    check(gpuarr.arange(10), np.arange(10))
    check(gpuarr.arange(2, 11, 3), np.arange(2, 11, 3))
    check(gpuarr.arange(0.5, 3), np.arange(0.5, 3))
    check(gpuarr.arange(5, dtype=np.uint8), np.arange(5, dtype=np.uint8))
    check(gpuarr.arange(10, 0, -3), np.arange(10, 0, -3))
    check(gpuarr.arange(0), np.arange(0))
    check(gpuarr.linspace(0, 1, 7), np.linspace(0, 1, 7))
    check(gpuarr.linspace(0, 10, 5, endpoint=False, dtype=np.float32),
          np.linspace(0, 10, 5, endpoint=False, dtype=np.float32))
    g, step = gpuarr.linspace(1, 2, 5, retstep=True)
    assert step == np.linspace(1, 2, 5, retstep=True)[1]


@pytest.mark.parametrize("dtype", ALL)
def test_fill_method_and_function(dtype):
    base = rand((6, 8), dtype)
    d = gpuarr.to_gpu(base)
    v = rand((), dtype)[()]
    w = d[::2, ::-3]
    assert w.fill(v) is w
    base[::2, ::-3] = v
    np.testing.assert_array_equal(d.get(), base)
    gpuarr.fill(d, v)
    np.testing.assert_array_equal(d.get(), np.full((6, 8), v, dtype))


def test_fill_negative_zero_and_patterns():
    d = gpuarr.to_gpu(rand(10, np.float32))
    d.fill(-0.0)
    assert np.signbit(d.get()).all()
    d.fill(0)
    assert not np.signbit(d.get()).any() and not d.get().any()
    d16 = gpuarr.empty(9, np.float16).fill(1.5)
    np.testing.assert_array_equal(d16.get(), np.full(9, 1.5, np.float16))
    c = gpuarr.empty(5, np.complex128).fill(1 - 2j)
    np.testing.assert_array_equal(c.get(), np.full(5, 1 - 2j))


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_astype(src, dst):
    h = rand((5, 7), src, lo=0, hi=60)  # in range of every dtype
    d = gpuarr.to_gpu(h)
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = h.astype(dst)
            want_t = h.T[::-1].astype(dst)
    check(d.astype(dst), want)
    check(d.T[::-1].astype(dst), want_t)


def test_copy_and_view():
    h = rand((6, 8), np.float32)
    d = gpuarr.to_gpu(h)
    c = d.copy()
    assert c.ptr != d.ptr
    check(c, h)
    check(d[::-1, 1::2].copy(), h[::-1, 1::2])
    f = d.T.copy(order="K")
    assert f.flags.f_contiguous
    check(f, h.T)
    check(d.view(np.int32), h.view(np.int32))
    check(d.view(np.uint8), h.view(np.uint8))
    check(d.view(np.complex64), h.view(np.complex64))


# ---------------------------------------------------------------------------
# reshape: view versus copy

def test_reshape_view_shares_memory_copy_does_not():
    h = rand((4, 6), np.float64)
    d = gpuarr.to_gpu(h)
    v = d.reshape(2, 12)
    assert v.ptr == d.ptr and v.base is d
    check(v, h.reshape(2, 12))
    v[0, 0] = 123.0
    assert d[0, 0].get() == 123.0
    h[0, 0] = 123.0
    t = d.T.reshape(24)  # numpy copies here
    assert t.ptr != d.ptr
    check(t, h.T.reshape(24))
    s = d[:, ::2].reshape(4, 3, 1)  # numpy: view
    assert s.ptr == d.ptr
    check(s, h[:, ::2].reshape(4, 3, 1))
    check(d.T.reshape(3, 8, order="F"), h.T.reshape(3, 8, order="F"))
    check(d[::-1].reshape(-1), h[::-1].reshape(-1))
    check(d.ravel(), h.ravel())
    check(d.T.ravel(), h.T.ravel())
    check(d.flatten(), h.flatten())
    check(d.T.flatten(order="F"), h.T.flatten(order="F"))
    check(gpuarr.expand_dims(d, 1), np.expand_dims(h, 1))
    check(d[None, :, None].squeeze(), h)


# ---------------------------------------------------------------------------
# __setitem__

@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int64, np.float16,
                                   np.float64, np.complex64])
def test_setitem(dtype):
    h = rand((6, 8), dtype)
    d = gpuarr.to_gpu(h)
    v = rand((), dtype)[()]
    d[1] = v
    h[1] = v
    d[:, ::-3] = v
    h[:, ::-3] = v
    row = rand(8, dtype)
    d[2:4] = gpuarr.to_gpu(row)  # broadcast a GPUArray
    h[2:4] = row
    col = rand((6, 1), dtype)
    d[:, 5:7] = col  # broadcast a numpy array
    h[:, 5:7] = col
    blk = rand((2, 3), dtype)
    d[4:, :3] = blk
    h[4:, :3] = blk
    d[0, 0] = gpuarr.to_gpu(np.asarray(v))  # 0-d device value
    h[0, 0] = v
    d[...] = d[::-1]  # overlapping source
    h[...] = h[::-1].copy()
    d[1:] = d[:-1]
    h[1:] = h[:-1].copy()
    np.testing.assert_array_equal(d.get(), h)


def test_setitem_casts_and_errors():
    d = gpuarr.zeros(5, np.int32)
    d[:] = 2.7
    np.testing.assert_array_equal(d.get(), np.full(5, 2, np.int32))
    d[:] = gpuarr.to_gpu(np.array([1.5, 2.5, 3.5, 4.5, -5.5]))
    np.testing.assert_array_equal(d.get(), np.array([1.5, 2.5, 3.5, 4.5, -5.5]).astype(np.int32))
    u = gpuarr.zeros(3, np.uint8)
    with pytest.raises(OverflowError):
        u[0] = 300
    with pytest.raises(ValueError):
        d[:3] = np.zeros(4)
    d[np.array([0, 3])] = 7.9         # advanced keys cast the same way
    np.testing.assert_array_equal(d.get()[[0, 3]], [7, 7])
    with pytest.raises(IndexError):
        d[np.array([0, 5])] = 1


# ---------------------------------------------------------------------------
# operators

BINARY = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "true_divide": lambda a, b: a / b,
    "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b,
    "power": lambda a, b: a ** b,
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
    "left_shift": lambda a, b: a << b,
    "right_shift": lambda a, b: a >> b,
    "equal": lambda a, b: a == b,
    "not_equal": lambda a, b: a != b,
    "less": lambda a, b: a < b,
    "less_equal": lambda a, b: a <= b,
    "greater": lambda a, b: a > b,
    "greater_equal": lambda a, b: a >= b,
}


def operands_for(name, dtype, shape):
    """Inputs on which numpy's result is well defined for ``name``."""
    dt = np.dtype(dtype)
    a = rand(shape, dtype)
    if name == "power":
        if dt.kind in "iu":
            b = rand(shape, dtype, lo=0, hi=3, nonzero=False)
            a = rand(shape, dtype, lo=-5, hi=5)
        elif dt.kind == "b":
            b = rand(shape, dtype)
        else:
            a = rand(shape, dtype, lo=0.5, hi=3)
            b = rand(shape, dtype, lo=-2, hi=3)
    elif name in ("left_shift", "right_shift"):
        b = rand(shape, dtype, lo=0, hi=6, nonzero=False) if dt.kind != "b" else rand(shape, dtype)
    else:
        b = rand(shape, dtype)
        if dt.kind in "iu" and name in ("floor_divide", "remainder"):
            b = rand(shape, dtype, lo=-9 if dt.kind == "i" else 1, hi=9)
        if name in ("logical_and", "logical_or", "logical_xor"):
            a.flat[::3] = 0     # every combination of zero and nonzero
            b.flat[::2] = 0
        elif name in ("equal", "not_equal", "less", "less_equal", "greater",
                      "greater_equal"):
            b.flat[::4] = a.flat[::4]   # ties: answers not all one value
    return a, b


def numpy_or_error(f, *args):
    import warnings
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args), None
        except (TypeError, ValueError, OverflowError) as exc:
            # the builtin class: numpy's private subclasses are not ours
            return None, next(c for c in (OverflowError, TypeError, ValueError)
                              if isinstance(exc, c))


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype", ALL)
def test_binary_same_dtype(name, dtype):
    f = BINARY[name]
    a, b = operands_for(name, dtype, (5, 9))
    want, err = numpy_or_error(f, a, b)
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    if err is not None:
        with pytest.raises(err):
            f(da, db)
        return
    m = name == "power"
    check(ours(f, da, db), want, m)
    # layouts: sliced, negative, transposed, broadcast row, 0-d, empty
    check(f(da[::2, 1::3], db[::-2, ::-3]), f(a[::2, 1::3], b[::-2, ::-3]), m)
    check(f(da.T, db.T), f(a.T, b.T), m)
    check(f(da[::-1], db), f(a[::-1], b), m)
    check(f(da, db[2]), f(a, b[2]), m)
    check(f(da[:, :1], db[0]), f(a[:, :1], b[0]), m)
    check(f(da[1, 2], db[3, 4]),
          f(a[1:2, 2:3].reshape(()), b[3:4, 4:5].reshape(())), m)
    check(f(da[:0], db[:0]), f(a[:0], b[:0]))
    check(f(da[:0], db[0]), f(a[:0], b[0]))


MIXED = [(np.int8, np.uint8), (np.int32, np.float32), (np.uint64, np.int64),
         (np.float16, np.float64), (np.bool_, np.int16), (np.float32, np.complex128),
         (np.uint16, np.float16), (np.int64, np.complex64)]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "true_divide",
                                  "floor_divide", "remainder", "power", "less",
                                  "equal", "bitwise_or"])
@pytest.mark.parametrize("pair", MIXED, ids=str)
def test_binary_mixed_dtypes(name, pair):
    f = BINARY[name]
    a, _ = operands_for(name, pair[0], (4, 6))
    _, b = operands_for(name, pair[1], (4, 6))
    want, err = numpy_or_error(f, a, b)
    if err is not None:
        with pytest.raises(err):
            f(gpuarr.to_gpu(a), gpuarr.to_gpu(b))
        return
    check(ours(f, gpuarr.to_gpu(a), gpuarr.to_gpu(b)), want, name == "power")


SCALARS = [True, 3, -2, 2.5, 1e10, 1 + 2j, np.float32(1.5), np.int8(3),
           np.uint8(200), np.float64(-0.5), np.complex64(2j)]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "true_divide",
                                  "floor_divide", "remainder", "power", "less",
                                  "greater_equal", "bitwise_and", "left_shift"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32,
                                   np.uint64, np.float16, np.float32,
                                   np.complex64])
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_scalar_operands_weak_promotion(name, dtype, scalar):
    f = BINARY[name]
    a, _ = operands_for(name, dtype, (3, 5))
    if name == "power":
        a = np.abs(a) if np.dtype(dtype).kind not in "b" else a
    da = gpuarr.to_gpu(a)
    for args, dargs in [((a, scalar), (da, scalar)), ((scalar, a), (scalar, da))]:
        want, err = numpy_or_error(f, *args)
        if err is not None:
            with pytest.raises(err):
                f(*dargs)
            continue
        check(ours(f, *dargs), want, name == "power")


def test_out_of_range_python_ints():
    a = rand(10, np.uint8)
    d = gpuarr.to_gpu(a)
    with pytest.raises(OverflowError):
        d + 300
    with pytest.raises(OverflowError):
        d - (-1)
    with pytest.raises(OverflowError):
        gpuarr.zeros(0, np.uint8) + 300
    check(d < 300, a < 300)
    check(d == -1, a == -1)
    check(300 > d, 300 > a)
    check(d >= -5, a >= -5)
    with pytest.raises(ValueError):
        gpuarr.to_gpu(np.arange(1, 4)) ** -1


@pytest.mark.parametrize("dtype", ALL)
def test_unary_operators(dtype):
    a = rand((4, 7), dtype)
    d = gpuarr.to_gpu(a)
    for f in [lambda x: -x, lambda x: +x, abs, lambda x: ~x]:
        want, err = numpy_or_error(f, a)
        if err is not None:
            with pytest.raises(err):
                f(d)
            continue
        check(ours(f, d), want)
        check(f(d[::-1, ::2]), f(a[::-1, ::2]))
        check(f(d.T), f(a.T))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "true_divide",
                                  "floor_divide", "remainder", "power",
                                  "bitwise_xor", "left_shift", "right_shift"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.uint32,
                                   np.int64, np.float16, np.float32,
                                   np.float64, np.complex128])
def test_inplace_operators(name, dtype):
    import operator
    iop = {"add": operator.iadd, "subtract": operator.isub,
           "multiply": operator.imul, "true_divide": operator.itruediv,
           "floor_divide": operator.ifloordiv, "remainder": operator.imod,
           "power": operator.ipow, "bitwise_xor": operator.ixor,
           "left_shift": operator.ilshift, "right_shift": operator.irshift}[name]
    a, b = operands_for(name, dtype, (4, 6))
    want, err = numpy_or_error(iop, a.copy(), b)
    d = gpuarr.to_gpu(a)
    if err is not None:
        with pytest.raises(err):
            iop(d, gpuarr.to_gpu(b))
        return
    ptr = d.ptr
    d2 = ours(iop, d, gpuarr.to_gpu(b))
    assert d2 is d and d.ptr == ptr
    check(d, want, name == "power")
    # in place into a strided view, with a broadcast operand
    a2, b2 = operands_for(name, dtype, (6, 8))
    d = gpuarr.to_gpu(a2)
    v = d[::2, ::-1]
    iop(v, gpuarr.to_gpu(b2[0, :]))
    want2 = a2.copy()
    w = want2[::2, ::-1]
    numpy_or_error(iop, w, b2[0, :])
    check(d, want2, name == "power")


def test_inplace_casting_errors():
    d = gpuarr.to_gpu(np.arange(1, 5))
    with pytest.raises(TypeError, match="same_kind"):
        d += 1.5
    with pytest.raises(TypeError):
        d /= 2
    f = gpuarr.to_gpu(np.arange(4, dtype=np.float32))
    f += 2.5  # weak Python float stays float32
    check(f, np.arange(4, dtype=np.float32) + 2.5)
    with pytest.raises(TypeError):
        f += gpuarr.to_gpu(np.ones(4, np.complex64))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128])
def test_view_operands_repeated(dtype):
    """Operands in other layouts: from the second call of one layout on, a
    cached plan launches directly.  Fresh values on each call; an ``out``
    overlapping an input in another layout (same cache key as a disjoint
    one) still gives numpy's answer."""
    from gpuarr import _ufunc
    for rep in range(3):
        h, g = rand(70, dtype), rand(70, dtype)
        d, e = gpuarr.to_gpu(h), gpuarr.to_gpu(g)
        check(d[1::2] + e[::2], h[1::2] + g[::2])
        check(d[::-2] - e[-2::-2], h[::-2] - g[-2::-2])
        o = poisoned(70, dtype)
        r = gpuarr.multiply(d[::-2], e[1::2], out=o[::2])
        assert r.ptr == o.ptr and r.strides == o[::2].strides
        check(o[::2], h[::-2] * g[1::2])
        np.testing.assert_array_equal(o[1::2].get(),
                                      poisoned(35, dtype).get())
        H, G = rand((6, 10), dtype), rand((6, 10), dtype)
        D, E = gpuarr.to_gpu(H), gpuarr.to_gpu(G)
        t = D.T + E.T
        assert t.flags.f_contiguous and not t.flags.c_contiguous
        check(t, H.T + G.T)
        check(D[:, :9:3] * E[:, 1::3], H[:, :9:3] * G[:, 1::3])
        # in place, same layout: allowed
        d[::2] += e[::2]
        h[::2] += g[::2]
        check(d, h)
        # a disjoint out, then an overlapping one with the same key
        o2 = poisoned(70, dtype)
        gpuarr.add(d[1:65:2], d[2:66:2], out=o2[0:64:2])
        np.testing.assert_array_equal(o2.get()[0:64:2], h[1:65:2] + h[2:66:2])
        gpuarr.add(d[1:65:2], d[2:66:2], out=d[0:64:2])
        np.add(h[1:65:2], h[2:66:2], out=h[0:64:2])
        check(d, h)
    assert any(k[0] == "multiply" for k in _ufunc._HOT_VIEWS)


def test_inplace_overlapping_operands():
    h = rand(20, np.float64)
    d = gpuarr.to_gpu(h)
    d[1:] += d[:-1]
    h[1:] += h[:-1].copy()
    check(d, h)
    d[::-1] *= d
    h[::-1] *= h.copy()
    check(d, h)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide",
                                  "true_divide", "floor_divide", "remainder",
                                  "mod", "power", "bitwise_and", "bitwise_or",
                                  "bitwise_xor", "left_shift", "right_shift",
                                  "equal", "not_equal", "less", "less_equal",
                                  "greater", "greater_equal", "logical_and",
                                  "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint8, np.int64,
                                   np.float32, np.float64, np.complex64])
def test_function_forms_with_poisoned_out(name, dtype):
    npf = getattr(np, name)
    gf = getattr(gpuarr, name)
    base = {"divide": "true_divide", "mod": "remainder"}.get(name, name)
    a, b = operands_for(base, dtype, (5, 6))
    want, err = numpy_or_error(npf, a, b)
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    if err is not None:
        with pytest.raises(err):
            gf(da, db)
        return
    check(ours(gf, da, db), want)
    out = poisoned((5, 6), want.dtype)
    r = gf(da, db, out=out)
    assert r is out
    check(out, want)
    # a transposed destination, and a wider same_kind destination
    out = poisoned((6, 5), want.dtype).T
    gf(da, db, out=out)
    check(out, want)
    if want.dtype.kind in "iu" and want.dtype.itemsize < 8:
        wide = np.dtype("%s%d" % (want.dtype.kind, want.dtype.itemsize * 2))
        out = poisoned((5, 6), wide)
        gf(da, db, out=out)
        check(out, want.astype(wide))


def test_out_argument_errors():
    a = gpuarr.to_gpu(rand((3, 4), np.float32))
    with pytest.raises(ValueError):
        gpuarr.add(a, a, out=gpuarr.empty((4, 3), np.float32))
    with pytest.raises(ValueError):
        gpuarr.add(a, a, out=gpuarr.empty((4,), np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        gpuarr.add(a, a, out=gpuarr.empty((3, 4), np.int32))
    with pytest.raises(TypeError):
        gpuarr.add(a, a, out=np.empty((3, 4), np.float32))
    # out may be bigger than the inputs when they broadcast to it
    out = poisoned((2, 3, 4), np.float32)
    gpuarr.add(a, 1, out=out)
    check(out, np.broadcast_to(a.get() + np.float32(1), (2, 3, 4)))


def test_broadcasting_operands():
    a = rand((3, 1), np.float32)
    b = rand((4,), np.float64)
    check(gpuarr.to_gpu(a) + gpuarr.to_gpu(b), a + b)
    c = rand((2, 1, 5), np.int32)
    e = rand((3, 1), np.int32)
    check(gpuarr.to_gpu(c) * gpuarr.to_gpu(e), c * e)
    check(gpuarr.to_gpu(c)[:, :, ::-2] - gpuarr.to_gpu(e).T[0],
          c[:, :, ::-2] - e.T[0])
    with pytest.raises(ValueError, match="could not be broadcast"):
        gpuarr.to_gpu(rand((3, 2), np.float32)) + gpuarr.to_gpu(rand(5, np.float32))
    z = gpuarr.to_gpu(np.asarray(2.5, np.float32))
    check(z + gpuarr.to_gpu(b), np.asarray(2.5, np.float32) + b)
    check(z * z, np.asarray(2.5, np.float32) ** 2)
    # a numpy host operand is never copied over silently (numpy + CuPy)
    with pytest.raises(TypeError, match="to_gpu"):
        gpuarr.to_gpu(b) + a
    with pytest.raises(TypeError, match="to_gpu"):
        a + gpuarr.to_gpu(b)        # numpy.add -> GPUArray.__array_ufunc__
    check(gpuarr.to_gpu(b) + gpuarr.to_gpu(a), b + a)


@pytest.mark.huge
def test_more_than_2_31_elements():
    n = 2 ** 31 + 77
    d = gpuarr.zeros(n, np.int8)
    d[-3:] = 5
    d[2 ** 31 - 1] = 9
    r = d + 1
    assert r.shape == (n,)
    np.testing.assert_array_equal(r[-4:].get(), np.array([1, 6, 6, 6], np.int8))
    assert int(r[2 ** 31 - 1]) == 10
    assert int(r[2 ** 31]) == 1
    v = r[2 ** 31 + 3:]
    np.testing.assert_array_equal(v.get(), np.r_[np.ones(71, np.int8), [6, 6, 6]])
    del d, r, v


def test_python_scalar_conversions_and_repr():
    d = gpuarr.to_gpu(np.array([[2.5]]))
    assert bool(d) and float(d) == 2.5 and int(d) == 2 and d.item() == 2.5
    assert not bool(gpuarr.zeros((1,), np.int8))
    assert repr(gpuarr.to_gpu(np.arange(3))) == repr(np.arange(3))
    assert str(gpuarr.to_gpu(np.arange(3.0))) == str(np.arange(3.0))
    with pytest.raises(ValueError):
        bool(gpuarr.zeros(3))
    x = gpuarr.to_gpu(np.arange(12.0).reshape(3, 4))[::-1, ::2]
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, gpuarr.GPUArray) and y.ptr != x.ptr
    np.testing.assert_array_equal(y.get(), x.get())


def test_real_imag_conj():
    h = rand((4, 5), np.complex128)
    d = gpuarr.to_gpu(h)
    check(d.real, h.real)
    check(d.imag, h.imag)
    d.imag[...] = 7.0
    h.imag = 7.0
    check(d, h)
    check(d.conj(), h.conj())
    r = gpuarr.to_gpu(rand(5, np.float32))
    check(r.imag, np.zeros(5, np.float32))


# ---------------------------------------------------------------------------
# memory

def test_pool_returns_memory_and_free_held_gives_it_back():
    """Arrays' memory goes back to the default pool when they die, is served
    again from it, and free_held() gives it back to the device (with the
    stream-ordered pool: after its queued frees have run).  What the device
    has free (cuMemGetInfo) counts every process on it, so other test
    workers move it: it is checked only when this is the one process; the
    pool's own figures are checked always."""
    import os
    from gpuarr.tools import default_pool, StreamOrderedMemoryPool
    drv = gpuarr.driver
    alone = "PYTEST_XDIST_WORKER" not in os.environ
    pool = default_pool()
    ordered = isinstance(pool, StreamOrderedMemoryPool)
    A = drv.mem_pool_attribute

    def reserved():
        return pool.mem_pool.get_attribute(A.RESERVED_MEM_CURRENT)

    gc.collect()
    pool.free_held()
    drv.Context.synchronize()
    free0, _ = drv.mem_get_info()
    reserved0 = reserved() if ordered else None
    arrays = [gpuarr.empty(64 * 2 ** 20, np.uint8) for _ in range(8)]  # 512 MiB
    for a in arrays:
        a.fill(7)
    if alone:
        free1, _ = drv.mem_get_info()
        assert free1 <= free0 - 400 * 2 ** 20
    if ordered:
        assert reserved() >= reserved0 + 8 * 64 * 2 ** 20
    active = pool.active_blocks
    del arrays, a
    gc.collect()
    assert pool.active_blocks <= active - 8
    if ordered:
        drv.Context.synchronize()       # the frees are queued on the stream
        assert pool.held_bytes >= 8 * 64 * 2 ** 20
        held = reserved()
        again = gpuarr.empty(64 * 2 ** 20, np.uint8)   # served from the pool
        assert reserved() == held
    else:
        assert pool.held_blocks >= 8
        held = pool.held_blocks
        again = gpuarr.empty(64 * 2 ** 20, np.uint8)  # served from the pool
        assert pool.held_blocks == held - 1
    del again
    gc.collect()
    pool.free_held()
    trims = not os.environ.get("GPUARR_UNDER_SANITIZER")  # it keeps reserves
    if ordered and trims:
        assert reserved() <= reserved0 + 64 * 2 ** 20
    elif not ordered:
        assert pool.held_blocks == 0
    if alone and trims:
        free2, _ = drv.mem_get_info()
        assert free2 >= free0 - 64 * 2 ** 20


def test_default_pool_is_stream_ordered():
    """Where the device has memory pools (every GPU this suite runs on) the
    default pool allocates with cuMemAllocAsync and keeps freed memory
    across synchronizations; blocks are ordered on the stream they came
    from, so a block freed while a kernel on that stream still writes it is
    not handed to a later allocation before the kernel is done."""
    from gpuarr import _config
    from gpuarr.tools import default_pool, StreamOrderedMemoryPool
    drv = gpuarr.driver
    if _config.settings.pool == "binned":
        pytest.skip("GPUARR_POOL=binned asks for the binned pool")
    dev = drv.Context.get_device()
    assert dev.get_attribute(drv.device_attribute.MEMORY_POOLS_SUPPORTED)
    pool = default_pool()
    assert isinstance(pool, StreamOrderedMemoryPool)
    A = drv.mem_pool_attribute
    assert pool.mem_pool.get_attribute(A.RELEASE_THRESHOLD) == 2 ** 64 - 1
    # a block freed on a user stream while fills of it are still queued
    # there (40 of 64 MiB each: ~1 ms of work), then an allocation and a
    # fill on another stream: the driver may hand that block over only
    # ordered after the queued fills (or not at all), so the second fill
    # is what is read back
    s = drv.Stream()
    s2 = drv.Stream()
    n = 1 << 24
    for _ in range(3):
        blk = pool.allocate(4 * n, stream=s)
        for _ in range(40):
            drv.memset_d32_async(blk, 0x11111111, n, s)
        del blk                                     # freed on s, queued
        blk2 = pool.allocate(4 * n, stream=s2)
        drv.memset_d32_async(blk2, 0x22222222, n, s2)
        out = drv.pagelocked_empty(n, np.uint32)
        drv.memcpy_dtoh_async(out, blk2, s2)
        s2.synchronize()
        assert (out == 0x22222222).all()
        del blk2
    s.synchronize()
    # small blocks: reused on their own stream only, without driver calls
    b1 = pool.allocate(1000, stream=s)
    p1 = b1.ptr
    drv.memset_d32_async(b1, 5, 250, s)
    del b1
    b2 = pool.allocate(1000, stream=s)
    assert b2.ptr == p1
    drv.memset_d32_async(b2, 6, 250, s)
    out = drv.pagelocked_empty(250, np.uint32)
    drv.memcpy_dtoh_async(out, b2, s)
    s.synchronize()
    assert (out == 6).all()
    del b2                              # kept for s again
    b3 = pool.allocate(1000)            # the legacy stream: another block
    assert b3.ptr != p1
    del b3
    # arrays, their temporaries and views through the default pool
    h = _rng.standard_normal((300, 301))
    d = gpuarr.to_gpu(h)
    e = (d * 2 + 1)[::2, ::-3].copy()
    np.testing.assert_allclose(e.get(), (h * 2 + 1)[::2, ::-3], rtol=1e-15)
    del d, e
    gc.collect()
    drv.Context.synchronize()
    assert pool.held_bytes > 0


def test_views_keep_memory_alive():
    d = gpuarr.to_gpu(np.arange(1000.0))
    v = d[10:20]
    del d
    gc.collect()
    gpuarr.empty(1000, np.float64).fill(-1)  # would reuse the freed block
    np.testing.assert_array_equal(v.get(), np.arange(10.0, 20.0))


def test_custom_allocator():
    drv = gpuarr.driver
    d = gpuarr.GPUArray((10,), np.float32, allocator=drv.mem_alloc)
    d.fill(3)
    np.testing.assert_array_equal(d.get(), np.full(10, 3, np.float32))
    d2 = gpuarr.GPUArray((10,), np.float32, allocator=drv.mem_alloc_async)
    d2.set(np.arange(10, dtype=np.float32))
    check(d + d2, np.arange(10, dtype=np.float32) + 3)
