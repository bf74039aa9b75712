"""numpy dispatch on the GPU: numpy's ufuncs (with ``out=``, ``dtype=``,
``casting=``), their ``reduce``/``accumulate``/``outer``, the operators
with numpy scalars, and numpy functions called on GPUArrays, each against
numpy on the same fresh random inputs.  Small arrays: a quick file.
"""
import numpy as np
import pytest

import gpuarr

pytestmark = pytest.mark.gpu

_seed = np.random.SeedSequence().entropy
_rng = np.random.default_rng(_seed)


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


def rand(shape, dtype=np.float32, lo=-3.0, hi=3.0):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return _rng.integers(max(lo, np.iinfo(dt).min), hi, shape,
                             endpoint=True).astype(dt)
    x = _rng.uniform(lo, hi, shape)
    if dt.kind == "c":
        x = x + 1j * _rng.uniform(lo, hi, shape)
    return x.astype(dt)


def check(got, want, rtol=None):
    """``got`` (a GPUArray) has numpy's dtype, shape and values (exactly
    for bool and integers; floats to a few units in the last place, or
    ``rtol``, also used as the absolute tolerance near zero)."""
    assert isinstance(got, gpuarr.GPUArray), type(got)
    want = np.asarray(want)
    host = got.get()
    assert host.dtype == want.dtype, (host.dtype, want.dtype, _seed)
    assert host.shape == want.shape, (host.shape, want.shape)
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(host, want, err_msg="seed %d" % _seed)
        return
    if rtol is None:
        real = want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)
        rtol = {2: 2e-3, 4: 4e-6}.get(real, 1e-12)
    np.testing.assert_allclose(host, want, rtol=rtol, atol=rtol,
                               err_msg="seed %d" % _seed)


def loose(dtype):
    """A tolerance for sums (another order of additions than numpy's)."""
    # by the precision of one part (complex64 sums in float32)
    dt = np.dtype(dtype)
    part = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
    return {2: 1e-2, 4: 1e-4}.get(part, 1e-11)


UFUNC_CASES = [
    (np.add, 2, "f4"), (np.subtract, 2, "i4"), (np.multiply, 2, "c8"),
    (np.true_divide, 2, "f8"), (np.floor_divide, 2, "i8"),
    (np.power, 2, "f4"), (np.maximum, 2, "u2"), (np.fmin, 2, "f8"),
    (np.arctan2, 2, "f4"), (np.hypot, 2, "f8"), (np.equal, 2, "i2"),
    (np.less, 2, "f4"), (np.logical_and, 2, "?"), (np.bitwise_xor, 2, "u1"),
    (np.sin, 1, "f4"), (np.exp, 1, "c16"), (np.sqrt, 1, "f8"),
    (np.negative, 1, "i1"), (np.absolute, 1, "c8"), (np.isnan, 1, "f2"),
    (np.floor, 1, "f4"), (np.square, 1, "i4")]


@pytest.mark.parametrize("uf,nin,dt", UFUNC_CASES,
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_ufuncs_through_numpy(uf, nin, dt):
    lo = 0.1 if uf in (np.sqrt, np.power) else -3
    hs = [rand((5, 7), dt, lo=lo) for _ in range(nin)]
    if uf is np.floor_divide:
        hs[1][hs[1] == 0] = 3
    ds = [gpuarr.to_gpu(h) for h in hs]
    check(uf(*ds), uf(*hs))
    # broadcasting, a Python scalar (weak) and a numpy scalar (strong)
    if nin == 2:
        check(uf(ds[0], ds[1][0]), uf(hs[0], hs[1][0]))
        check(uf(ds[0], 2), uf(hs[0], 2))
        s = np.dtype(dt).type(2)
        check(uf(s, ds[1]), uf(s, hs[1]))


def test_out_dtype_casting():
    h, k = rand((4, 6)), rand((4, 6), "i2")
    d, e = gpuarr.to_gpu(h), gpuarr.to_gpu(k)
    o = gpuarr.zeros((4, 6), np.float64)
    r = np.add(d, e, out=o)
    assert r is o
    check(o, np.add(h, k, out=np.zeros((4, 6))))
    r = np.multiply(d, 3, o)
    assert r is o
    check(o, np.multiply(h, 3, np.zeros((4, 6))))
    r = np.sin(d, out=(o,))
    assert r is o
    # computed in float32 (numpy's loop is chosen by the inputs), so to
    # float32's last place however wide the output
    check(o, np.sin(h, out=(np.zeros((4, 6)),)), 1e-6)
    check(np.add(e, e, dtype=np.float32), np.add(k, k, dtype=np.float32))
    check(np.multiply(d, 2.5, dtype=np.float64),
          np.multiply(h, 2.5, dtype=np.float64))
    check(np.true_divide(e, 7, dtype=np.float32),
          np.true_divide(k, 7, dtype=np.float32))
    oi = gpuarr.zeros((4, 6), np.int32)
    np.multiply(d, 10, out=oi, casting="unsafe")
    check(oi, np.multiply(h, 10, out=np.zeros((4, 6), np.int32),
                          casting="unsafe"))
    with pytest.raises(TypeError):
        np.multiply(d, 10, out=oi)         # same_kind: float -> int refused
    m, x = np.frexp(d)
    hm, hx = np.frexp(h)
    check(m, hm)
    check(x, hx)
    om, ow = gpuarr.empty((4, 6), np.float32), gpuarr.empty((4, 6), np.float32)
    r = np.modf(d, out=(om, ow))
    assert r[0] is om and r[1] is ow
    for got, want in zip(r, np.modf(h)):
        check(got, want)


def test_operators_with_numpy_scalars():
    h = rand((3, 5))
    d = gpuarr.to_gpu(h)
    check(np.float32(2) * d, np.float32(2) * h)
    check(d * np.float32(2), h * np.float32(2))
    check(np.float64(2) * d, np.float64(2) * h)     # strong float64
    check(2.5 - d, 2.5 - h)
    check(d ** np.int32(2), h ** np.int32(2))
    d += 1
    h += 1
    check(d, h)
    d *= np.float32(0.5)
    h *= np.float32(0.5)
    check(d, h)


@pytest.mark.parametrize("dt", ["f4", "f8", "i4", "?"])
def test_reduce(dt):
    h = rand((6, 5, 4), dt)
    d = gpuarr.to_gpu(h)
    tol = loose(dt) if dt in ("f4", "f8") else None
    for axis in (0, 1, None, (0, 2)):
        check(np.add.reduce(d, axis=axis), np.add.reduce(h, axis=axis), tol)
        check(np.maximum.reduce(d, axis=axis),
              np.maximum.reduce(h, axis=axis))
    check(np.add.reduce(d), np.add.reduce(h), tol)             # axis 0
    check(np.multiply.reduce(d, 1, keepdims=True),
          np.multiply.reduce(h, 1, keepdims=True), tol)
    check(np.minimum.reduce(d, axis=2), np.minimum.reduce(h, axis=2))
    check(np.logical_or.reduce(d, axis=0), np.logical_or.reduce(h, axis=0))
    check(np.logical_and.reduce(d, axis=None),
          np.logical_and.reduce(h, axis=None))
    check(np.add.reduce(d, axis=1, dtype=np.float64),
          np.add.reduce(h, axis=1, dtype=np.float64), 1e-11)
    o = gpuarr.empty((6, 4), np.float64)
    r = np.add.reduce(d, axis=1, dtype=np.float64, out=(o,))
    assert r is o
    check(o, np.add.reduce(h, axis=1, dtype=np.float64), 1e-11)
    check(gpuarr.add.reduce(d, axis=None), np.add.reduce(h, axis=None), tol)


@pytest.mark.parametrize("dt", ["f8", "i1", "?", "c8"])
def test_accumulate(dt):
    h = rand((5, 6), dt, lo=-2, hi=2)
    d = gpuarr.to_gpu(h)
    tol = loose(dt) if dt in ("f8", "c8") else None
    for axis in (0, 1):
        check(np.add.accumulate(d, axis=axis),
              np.add.accumulate(h, axis=axis), tol)
        check(np.multiply.accumulate(d, axis=axis),
              np.multiply.accumulate(h, axis=axis), tol)
    check(np.add.accumulate(d), np.add.accumulate(h), tol)
    if dt != "c8":      # numpy refuses complex -> float32 (same_kind)
        check(np.add.accumulate(d, axis=1, dtype=np.float32),
              np.add.accumulate(h, axis=1, dtype=np.float32), 1e-4)


def test_outer():
    a, b = rand((3, 4)), rand((5,), "f8")
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    check(np.add.outer(da, db), np.add.outer(a, b))
    check(np.multiply.outer(db, da), np.multiply.outer(b, a))
    check(np.greater.outer(da[:, ::2], db), np.greater.outer(a[:, ::2], b))
    check(gpuarr.subtract.outer(db, db), np.subtract.outer(b, b))
    check(np.add.outer(da, db, dtype=np.float32),
          np.add.outer(a, b, dtype=np.float32))


def test_reductions_and_scans_through_numpy():
    h = rand((6, 7))
    d = gpuarr.to_gpu(h)
    tol = loose(np.float32)
    for f in (np.sum, np.prod, np.mean, np.std, np.var, np.max, np.min,
              np.amax, np.ptp, np.nansum, np.nanmax, np.argmax, np.argmin):
        check(f(d), f(h), tol)
        check(f(d, axis=1), f(h, axis=1), tol)
        check(f(d, 0), f(h, 0), tol)
    check(np.sum(d, axis=0, keepdims=True, dtype=np.float64),
          np.sum(h, axis=0, keepdims=True, dtype=np.float64), 1e-11)
    check(np.var(d, axis=1, ddof=1), np.var(h, axis=1, ddof=1), tol)
    check(np.any(d > 2, axis=0), np.any(h > 2, axis=0))
    check(np.all(d > -4), np.all(h > -4))
    check(np.count_nonzero(d > 0, axis=1), np.count_nonzero(h > 0, axis=1))
    check(np.cumsum(d, axis=1), np.cumsum(h, axis=1), tol)
    check(np.cumprod(d[:, :3]), np.cumprod(h[:, :3]), tol)
    v = rand((7,))
    dv = gpuarr.to_gpu(v)
    check(np.dot(d, dv), np.dot(h, v), tol)
    check(np.vdot(dv, dv), np.vdot(v, v), tol)
    check(np.inner(dv, dv), np.inner(v, v), tol)
    check(np.linalg.norm(d), np.linalg.norm(h), tol)
    check(np.linalg.norm(d, axis=1, ord=1), np.linalg.norm(h, axis=1, ord=1),
          tol)


def test_joins_views_and_elementwise_functions_through_numpy():
    a, b = rand((3, 4)), rand((3, 4), "f8")
    da, db = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    check(np.concatenate((da, db)), np.concatenate((a, b)))
    check(np.concatenate([da, db], 1), np.concatenate([a, b], 1))
    o = gpuarr.empty((6, 4), np.float64)
    assert np.concatenate((da, db), 0, o) is o
    check(o, np.concatenate((a, b)))
    check(np.concatenate((da, db), axis=None, dtype=np.float32),
          np.concatenate((a, b), axis=None, dtype=np.float32))
    check(np.stack((da, db), axis=2), np.stack((a, b), axis=2))
    for f in (np.hstack, np.vstack, np.dstack, np.column_stack):
        check(f((da, db)), f((a, b)))
    idx = _rng.integers(-12, 12, (2, 5))
    check(np.take(da, gpuarr.to_gpu(idx)), np.take(a, idx))
    check(np.take(da, [0, 5, -1]), np.take(a, [0, 5, -1]))
    check(np.take(da, [0, 14], mode="clip"), np.take(a, [0, 14], mode="clip"))
    for f, args in ((np.transpose, ()), (np.reshape, ((2, 6),)),
                    (np.ravel, ("F",)), (np.flip, (1,)), (np.fliplr, ()),
                    (np.rot90, (3,)), (np.moveaxis, (0, 1)),
                    (np.swapaxes, (0, 1)), (np.expand_dims, (1,)),
                    (np.diagonal, (1,)), (np.atleast_3d, ()),
                    (np.broadcast_to, ((2, 3, 4),)), (np.copy, ()),
                    (np.astype, (np.int16,))):
        check(f(da, *args), f(a, *args))
    for got, want in zip(np.array_split(da, 3, axis=1),
                         np.array_split(a, 3, axis=1)):
        check(got, want)
    check(np.where(da > 0, da, db), np.where(a > 0, a, b))
    check(np.where(da > 0, da, 0.5), np.where(a > 0, a, 0.5))
    check(np.clip(da, -1, 1.5), np.clip(a, -1, 1.5))
    check(np.clip(da, None, 0.5), np.clip(a, None, 0.5))
    check(np.clip(db, min=-0.5), np.clip(b, min=-0.5))
    c = rand((4,), "c8")
    dc = gpuarr.to_gpu(c)
    check(np.angle(dc, deg=True), np.angle(c, deg=True))
    check(np.real(dc), np.real(c))
    check(np.imag(dc), np.imag(c))
    check(np.conj(dc), np.conj(c))
    check(np.zeros_like(da), np.zeros_like(a))
    check(np.ones_like(da, dtype=np.int8), np.ones_like(a, dtype=np.int8))
    check(np.full_like(db, 7, shape=(2, 2)), np.full_like(b, 7, shape=(2, 2)))
    e = np.empty_like(da, dtype=np.complex64, order="F")
    assert e.shape == (3, 4) and e.dtype == np.complex64 and e.flags.f_contiguous
    assert np.result_type(da, db) == np.float64
    assert np.shape(da) == (3, 4) and np.ndim(da) == 2 and np.size(da) == 12


def test_sorting_selection_and_rearranging_through_numpy():
    h = rand((4, 6))
    d = gpuarr.to_gpu(h)
    check(np.sort(d, axis=1), np.sort(h, axis=1))
    check(np.argsort(d[0]), np.argsort(h[0]))
    k = rand((20,), "i4")
    check(np.unique(gpuarr.to_gpu(k)), np.unique(k))
    check(np.take(d, [2, 0, -1], axis=1), np.take(h, [2, 0, -1], axis=1))
    for got, want in zip(np.nonzero(d > 0), np.nonzero(h > 0)):
        check(got, want)
    check(np.tile(d, (2, 1)), np.tile(h, (2, 1)))
    check(np.repeat(d, 2, axis=0), np.repeat(h, 2, axis=0))
    check(np.roll(d, 2, axis=1), np.roll(h, 2, axis=1))
    check(np.tril(d, 1), np.tril(h, 1))
    check(np.pad(d, 1), np.pad(h, 1))


def test_ufunc_at_through_numpy():
    h = rand((8,))
    d = gpuarr.to_gpu(h)
    idx = np.array([0, 3, 3, 7, 0])
    np.add.at(d, gpuarr.to_gpu(idx), 1.5)
    np.add.at(h, idx, 1.5)
    check(d, h)
    np.maximum.at(d, idx, np.float32(2))       # host indices are a key
    np.maximum.at(h, idx, np.float32(2))
    check(d, h)
