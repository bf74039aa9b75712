"""GPU checks of the matrix products against numpy: matmul and ``@`` for
every dtype (cuBLAS for float and complex, gpuarr's kernel for integers
and bool), 1-D, batched with broadcasting, empty, transposed, pitched,
reversed and broadcast operands, ``out=``, ``dtype=``, mixed dtypes; dot,
inner, tensordot, einsum, outer, kron, multi_dot, matrix_power; numpy's
dispatch; TF32 only when asked; a size past 2**31 elements."""
import numpy as np
import pytest

import gpuarr
from gpuarr import _blas

from test_joining_gpu import poisoned, same

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(2028)
FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64,
                                np.complex64, np.complex128)]
INTS = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16,
                              np.uint16, np.int32, np.uint32, np.int64,
                              np.uint64)]
EPS = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6,
       np.dtype(np.float64): 1e-14, np.dtype(np.complex64): 2e-6,
       np.dtype(np.complex128): 1e-14}


def values(shape, dt):
    """Random values: in (-1, 1) for floats (float16 sums stay finite),
    the whole range for integers (products wrap, as numpy's)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(info.min, info.max, shape, endpoint=True,
                             dtype=dt)
    x = _rng.uniform(-1, 1, shape)
    if dt.kind == "c":
        x = x + 1j * _rng.uniform(-1, 1, shape)
    return x.astype(dt)


def check(got, a, b, want=None):
    """``got`` against numpy: exact for integers; for floats within
    k * eps * (|a| @ |b|) of the product computed in float64/complex128."""
    assert isinstance(got, gpuarr.GPUArray), type(got)
    if want is None:
        want = np.matmul(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (got.shape, want.shape, got.dtype, want.dtype)
    h = got.get()
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(h, want)
        return
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    exact = np.matmul(a.astype(wide), b.astype(wide))
    bound = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    k = a.shape[-1] if a.ndim else 1
    tol = 4 * max(k, 1) * EPS[want.dtype] * (bound + 1e-30)
    err = np.abs(h.astype(wide) - exact)
    assert np.all(err <= tol), (err.max(), (err / tol).max())


@pytest.mark.parametrize("dt", FLOATS + INTS, ids=str)
def test_matmul_every_dtype(dt):
    for m, k, n in ((37, 29, 41), (1, 1, 1), (64, 128, 3), (5, 300, 7)):
        a, b = values((m, k), dt), values((k, n), dt)
        check(gpuarr.to_gpu(a) @ gpuarr.to_gpu(b), a, b)


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.float32, np.complex128,
                                                      np.int32, np.bool_)],
                         ids=str)
def test_matmul_vectors_and_batches(dt):
    cases = [((7,), (7,)), ((7,), (7, 5)), ((4, 7), (7,)), ((3, 4, 7), (7,)),
             ((7,), (2, 7, 5)), ((2, 3, 4, 6), (6, 5)), ((4, 6), (2, 3, 6, 5)),
             ((2, 1, 4, 6), (3, 6, 5)), ((1, 4, 6), (3, 6, 5)),
             ((3, 4, 6), (3, 6, 5))]
    for sa, sb in cases:
        a, b = values(sa, dt), values(sb, dt)
        check(gpuarr.matmul(gpuarr.to_gpu(a), gpuarr.to_gpu(b)), a, b)


def _views(h):
    """(device view, host view) pairs of the same matrix values in
    different layouts: C, F, pitched rows, column slices, reversed,
    a broadcast batch."""
    g = gpuarr.to_gpu(h)
    out = [(g, h)]
    f = np.asfortranarray(h)
    out.append((gpuarr.to_gpu(f.T.copy()).T, f))
    big = np.zeros(h.shape[:-1] + (h.shape[-1] * 2 + 3,), h.dtype)
    big[..., 3:3 + h.shape[-1]] = h
    out.append((gpuarr.to_gpu(big)[..., 3:3 + h.shape[-1]], h))
    wide = np.zeros(h.shape[:-1] + (2 * h.shape[-1],), h.dtype)
    wide[..., ::2] = h
    out.append((gpuarr.to_gpu(wide)[..., ::2], h))
    out.append((gpuarr.to_gpu(h[..., ::-1, ::-1].copy())[..., ::-1, ::-1], h))
    return out


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.float16, np.float32,
                                                      np.complex64, np.int16)],
                         ids=str)
def test_matmul_layouts(dt):
    a, b = values((3, 9, 13), dt), values((3, 13, 6), dt)
    for ga, ha in _views(a):
        for gb, hb in _views(b):
            np.testing.assert_array_equal(ga.get(), ha)
            check(ga @ gb, ha, hb)
    # transposed views: a.T @ b without copies, and 2-D with batch
    at = values((13, 9), dt)
    check(gpuarr.to_gpu(at).T @ gpuarr.to_gpu(b), at.T, b)
    # a broadcast (stride 0) matrix operand
    row = values((1, 13), dt)
    g = gpuarr.broadcast_to(gpuarr.to_gpu(row), (9, 13))
    check(g @ gpuarr.to_gpu(b), np.broadcast_to(row, (9, 13)), b)


def test_matmul_empty_and_k_zero():
    for dt in (np.float32, np.int64, np.complex64):
        for sa, sb in (((0, 4), (4, 3)), ((3, 4), (4, 0)), ((0, 3, 4), (4, 2)),
                       ((3, 0), (0, 5)), ((2, 3, 0), (2, 0, 5)), ((0,), (0,))):
            a, b = values(sa, dt), values(sb, dt)
            got = gpuarr.to_gpu(a) @ gpuarr.to_gpu(b)
            same(got, np.matmul(a, b))


def test_matmul_out_dtype_and_mixed():
    a, b = values((6, 5), np.float32), values((5, 4), np.float32)
    out = poisoned((6, 4), np.float32)
    r = gpuarr.matmul(gpuarr.to_gpu(a), gpuarr.to_gpu(b), out=out)
    assert r is out
    check(out, a, b)
    out64 = poisoned((6, 4), np.float64)     # computed in float32, then cast
    gpuarr.matmul(gpuarr.to_gpu(a), gpuarr.to_gpu(b), out=out64)
    np.testing.assert_allclose(out64.get(), np.matmul(a, b), rtol=1e-5, atol=1e-5)
    strided = poisoned((6, 8), np.float32)
    gpuarr.matmul(gpuarr.to_gpu(a), gpuarr.to_gpu(b), out=strided[:, ::2])
    h = strided.get()
    assert np.isnan(h[:, 1::2]).all()
    check(strided[:, ::2].copy(), a, b)
    ia, fb = values((6, 5), np.int32), values((5, 4), np.float32)
    check(gpuarr.to_gpu(ia) @ gpuarr.to_gpu(fb), ia, fb)
    r = gpuarr.matmul(gpuarr.to_gpu(ia), gpuarr.to_gpu(ia.T.copy()), dtype=np.float32)
    check(r, ia.astype(np.float32), ia.T.astype(np.float32))
    # in place: the product must keep the shape
    sq = values((5, 5), np.float64)
    g = gpuarr.to_gpu(sq)
    g @= gpuarr.to_gpu(sq)
    check(g, sq, sq)


def test_numpy_dispatch_and_operators():
    a, b = values((4, 6), np.float64), values((6, 3), np.float64)
    ga, gb = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    check(np.matmul(ga, gb), a, b)
    check(np.dot(ga, gb), a, b)
    out = poisoned((4, 3), np.float64)
    np.matmul(ga, gb, out=out)
    check(out, a, b)
    check(np.einsum("ij,jk->ik", ga, gb), a, b)
    check(ga.dot(gb), a, b)
    with pytest.raises(TypeError):
        ga @ b


@pytest.mark.parametrize("dt", [np.dtype(t) for t in (np.float32, np.complex64,
                                                      np.int64)], ids=str)
def test_dot_inner_tensordot(dt):
    a, b = values((3, 4, 5), dt), values((2, 5, 6), dt)
    tol = {"f": 1e-5, "c": 1e-5, "i": 0}[dt.kind]

    def near(got, want):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol * 10)
    ga, gb = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    near(gpuarr.dot(ga, gb), np.dot(a, b))
    near(gpuarr.dot(ga[0], gb[0]), np.dot(a[0], b[0]))
    near(gpuarr.dot(ga[0, 0], gb[0]), np.dot(a[0, 0], b[0]))
    c = values((2, 7, 5), dt)
    near(gpuarr.inner(ga, gpuarr.to_gpu(c)), np.inner(a, c))
    for axes in (1, ([2], [1]), ([1, 2], [2, 1])):
        x = values((3, 4, 5), dt)
        y = values((5, 4, 6), dt) if axes != 1 else values((5, 6), dt)
        if axes == ([1, 2], [2, 1]):
            y = values((2, 5, 4), dt)
        elif axes == ([2], [1]):
            y = values((2, 5, 6), dt)
        near(gpuarr.tensordot(gpuarr.to_gpu(x), gpuarr.to_gpu(y), axes),
             np.tensordot(x, y, axes))
    out = poisoned((3, 4, 2, 6), np.result_type(dt, dt))
    gpuarr.dot(ga, gb, out=out)
    near(out, np.dot(a, b))


EINSUM = [("ij,jk->ik", [(4, 5), (5, 3)]), ("ij,jk", [(4, 5), (5, 3)]),
          ("ii->i", [(5, 5)]), ("ii", [(5, 5)]), ("ij->ji", [(3, 4)]),
          ("ij->", [(3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
          ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 5)]), ("i,i", [(7,), (7,)]),
          ("i,j->ij", [(3,), (4,)]), ("ijk,kj->i", [(3, 4, 5), (5, 4)]),
          ("ij,ij->ij", [(3, 4), (3, 4)]), ("a,b,c->abc", [(2,), (3,), (4,)]),
          ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("iij->j", [(3, 3, 4)]),
          ("ij,jk->ik", [(2, 1), (3, 4)]), ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)]),
          ("...i,...i->...", [(2, 3), (4, 1, 3)])]


@pytest.mark.parametrize("case", range(len(EINSUM)))
@pytest.mark.parametrize("optimize", [False, True])
def test_einsum(case, optimize):
    sub, shapes = EINSUM[case]
    ops = [values(s, np.float64) for s in shapes]
    got = gpuarr.einsum(sub, *[gpuarr.to_gpu(x) for x in ops], optimize=optimize)
    want = np.einsum(sub, *ops)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-12)


def test_einsum_integers_and_out():
    a, b = values((4, 5), np.int16), values((5, 3), np.int16)
    got = gpuarr.einsum("ij,jk->ik", gpuarr.to_gpu(a), gpuarr.to_gpu(b))
    same(got, np.einsum("ij,jk->ik", a, b))
    out = poisoned((3, 4), np.int16)
    gpuarr.einsum("ij,jk->ki", gpuarr.to_gpu(a), gpuarr.to_gpu(b), out=out)
    same(out, np.einsum("ij,jk->ki", a, b))


def test_outer_kron():
    def equal(got, want):
        if want.dtype.kind == "c":      # complex products: to rounding
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got.get(), want, rtol=1e-6)
        else:
            same(got, want)
    for dt in (np.float32, np.int8, np.complex64):
        a, b = values((3, 2), dt), values((4,), dt)
        equal(gpuarr.outer(gpuarr.to_gpu(a), gpuarr.to_gpu(b)), np.outer(a, b))
        for sa, sb in (((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (3, 2)),
                       ((), (3,))):
            x, y = values(sa, dt), values(sb, dt)
            equal(gpuarr.kron(gpuarr.to_gpu(x), gpuarr.to_gpu(y)), np.kron(x, y))


def test_multi_dot_and_matrix_power():
    shapes = [(10,), (10, 30), (30, 5), (5, 60), (60,)]
    hs = [values(s, np.float64) for s in shapes]
    got = gpuarr.linalg.multi_dot([gpuarr.to_gpu(h) for h in hs])
    want = np.linalg.multi_dot(hs)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.get(), want, rtol=1e-11)
    got = gpuarr.linalg.multi_dot([gpuarr.to_gpu(h) for h in hs[1:4]])
    np.testing.assert_allclose(got.get(), np.linalg.multi_dot(hs[1:4]), rtol=1e-11)
    m = values((3, 6, 6), np.float64) / 2
    for n in (0, 1, 2, 5):
        got = gpuarr.linalg.matrix_power(gpuarr.to_gpu(m), n)
        np.testing.assert_allclose(got.get(), np.linalg.matrix_power(m, n),
                                   rtol=1e-11, atol=1e-13)
    im = _rng.integers(-3, 4, (4, 4)).astype(np.int32)
    same(gpuarr.linalg.matrix_power(gpuarr.to_gpu(im), 7),
         np.linalg.matrix_power(im, 7))


def test_tf32_only_when_allowed():
    # inputs with low mantissa bits set: TF32 rounds them away
    a = (1 + _rng.integers(1, 2 ** 12, (256, 256)) * 2.0 ** -23).astype(np.float32)
    b = np.eye(256, dtype=np.float32)
    ga, gb = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    exact = (ga @ gb).get()
    np.testing.assert_array_equal(exact, a)
    with gpuarr.linalg.allow_tf32():
        fast = (ga @ gb).get()
    assert not np.array_equal(fast, a)
    np.testing.assert_allclose(fast, a, rtol=2e-3)
    np.testing.assert_array_equal((ga @ gb).get(), a)


def test_handle_follows_the_stream():
    from gpuarr import driver as drv
    s = drv.Stream()
    a, b = values((64, 64), np.float32), values((64, 64), np.float32)
    ga, gb = gpuarr.to_gpu(a), gpuarr.to_gpu(b)
    c = gpuarr.matmul(ga, gb, stream=s)
    s.synchronize()
    check(c, a, b)
    check(ga @ gb, a, b)
    assert _blas.version() >= 120000


@pytest.mark.huge
def test_rows_past_2_31():
    m = 2 ** 31 + 37
    for dt in (np.int8, np.float16):
        a = gpuarr.empty((m, 1), dt)
        a.fill(1)
        a[m - 5:] = 3
        b = gpuarr.to_gpu(np.array([[2, 1]], dt))
        c = a @ b
        assert c.shape == (m, 2)
        h = c[m - 8:].get()
        np.testing.assert_array_equal(h[:, 0], [2, 2, 2, 6, 6, 6, 6, 6])
        np.testing.assert_array_equal(h[:, 1], [1, 1, 1, 3, 3, 3, 3, 3])
        assert int(gpuarr.count_nonzero(c[:, 0] != 2).get()) == 5
        del a, c
