"""GPU tests of PyCUDA's ``gpuarray`` reductions, conditionals and methods
(``subset_*``, ``sum``/``dot``/``min``... by PyCUDA's signatures,
``reverse``, ``mul_add``, ``transpose(axes=)``) and of cumath's frexp, modf
and ldexp, against numpy.

Fresh random data; float sums against a float64/complex128 reference
within the reductions' error bound (``test_reduction_gpu._bound``),
everything else exactly; every dtype, odd sizes, 0-d, empty,
non-contiguous and reversed operands, poisoned outputs, explicit streams
and allocators.
"""
import warnings

import numpy as np
import pytest

import gpuarr
import gpuarr.driver as drv
from gpuarr import cumath
from gpuarr import gpuarray as ga

from test_gpuarray_gpu import ALL, check, poisoned, rand  # noqa: F401
from test_reduction_gpu import _bound, check_close

pytestmark = pytest.mark.gpu

INDEX = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
         np.int64, np.uint64]
_rng = np.random.default_rng(1103)


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


def indices(shape, n, dtype, negative=True):
    """Random indices into a length-``n`` axis, negative ones (from the
    end) too for signed dtypes; duplicates likely."""
    dt = np.dtype(dtype)
    lo = -n if (negative and dt.kind == "i") else 0
    hi = n - 1
    if dt.kind == "i":
        info = np.iinfo(dt)
        lo, hi = max(lo, info.min), min(hi, info.max)
    else:
        hi = min(hi, np.iinfo(dt).max)
    return _rng.integers(lo, hi, shape, endpoint=True).astype(dt)


def poison_alloc(nbytes):
    """An allocator handing out blocks full of 0x5A bytes (garbage in
    every dtype, a NaN-free one: a result the kernel failed to write
    shows as 0x5A5A... instead of a plausible value)."""
    blk = drv.mem_alloc(nbytes)
    drv.memset_d8(int(blk), 0x5A, nbytes)
    return blk


def close_sum(got, vals, dt):
    """A sum of ``vals`` computed in dtype ``dt`` (0-d GPUArray) against
    the exact sum."""
    assert got.shape == () and got.dtype == dt, (got.shape, got.dtype, dt)
    host = got.get()
    if dt.kind in "fc":
        exact = np.sum(vals.astype(np.complex128))
        if dt.kind == "f":
            exact = exact.real
        check_close(host, np.asarray(exact).astype(dt),
                    atol=_bound(vals.reshape(-1), dt, exact=exact))
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.sum(vals, dtype=dt)
        check_close(host, np.asarray(want))


def views_1d(h, d):
    """(host, device) pairs of a vector in several layouts."""
    return [(h, d), (h[::-1], d[::-1]), (h[1::3], d[1::3]),
            (h[::-2], d[::-2])]


# ---------------------------------------------------------------------------
# subset reductions


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_subset_sum_every_dtype(dtype):
    n = 1001
    h = rand((n,), dtype)
    d = ga.to_gpu(h)
    for k, (hv, dv) in enumerate(views_1d(h, d)):
        idt = INDEX[(k + ALL.index(dtype)) % len(INDEX)]
        for shape in ((1,), (777,), (3, 41)):
            s = indices(shape, len(hv), idt)
            sd = ga.to_gpu(s)
            want_dt = np.sum(hv[s.astype(np.intp)]).dtype
            got = ga.subset_sum(sd, dv)
            close_sum(got, hv[s.astype(np.intp)], want_dt)
        # a 0-d subset, results in poisoned memory from the allocator
        s = indices((), len(hv), idt)
        got = ga.subset_sum(ga.to_gpu(s), dv, allocator=poison_alloc)
        close_sum(got, hv[s.astype(np.intp)].reshape(1),
                  np.sum(hv[s.astype(np.intp)]).dtype)
        # a non-contiguous subset, and dtype= (PyCUDA's accumulator)
        s = indices((2 * 333,), len(hv), idt)
        sd = ga.to_gpu(s)[::-2]
        sel = hv[s[::-2].astype(np.intp)]
        close_sum(ga.subset_sum(sd, dv), sel, np.sum(sel).dtype)
        acc = np.dtype(np.complex128 if np.dtype(dtype).kind == "c"
                       else np.float64)
        close_sum(ga.subset_sum(sd, dv, acc), sel, acc)
        close_sum(ga.subset_sum(sd, dv, acc, None, poison_alloc), sel, acc)


@pytest.mark.parametrize("pair", [(np.float32, np.float32),
                                  (np.float16, np.float64),
                                  (np.float64, np.complex64),
                                  (np.complex128, np.complex128),
                                  (np.int8, np.int8), (np.int32, np.uint16),
                                  (np.uint64, np.uint64), (np.bool_, np.bool_),
                                  (np.int16, np.float32)], ids=str)
def test_subset_dot(pair):
    d1, d2 = pair
    a = rand((2003,), d1)
    b = rand((1501,), d2)
    da, db = ga.to_gpu(a), ga.to_gpu(b)
    for idt in (np.int32, np.int64, np.uint16, np.int8):
        for av, dav, bv, dbv in ((a, da, b, db), (a[::-1], da[::-1], b[2::3],
                                                  db[2::3])):
            m = min(len(av), len(bv))
            s = indices((999,), m, idt)
            si = s.astype(np.intp)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = np.dot(av[si], bv[si])
            dt = np.asarray(want).dtype
            got = ga.subset_dot(ga.to_gpu(s), dav, dbv,
                                allocator=poison_alloc)
            assert got.shape == () and got.dtype == dt
            if dt.kind in "fc":
                prod = av[si].astype(np.complex128) * bv[si]
                exact = np.sum(prod)
                if dt.kind == "f":
                    exact = exact.real
                check_close(got.get(), np.asarray(exact).astype(dt),
                            atol=_bound(prod, dt, exact=exact))
            else:
                check_close(got.get(), np.asarray(want))
    # dtype=: int8 products accumulated in int32 do not wrap
    if np.dtype(d1) == np.int8:
        s = indices((500,), 1501, np.int32, negative=False)
        got = ga.subset_dot(ga.to_gpu(s), da, db, np.int32)
        want = np.dot(a[s].astype(np.int32), b[s].astype(np.int32))
        assert got.dtype == np.int32 and int(got.get()) == int(want)


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_subset_min_max_every_dtype(dtype):
    n = 777
    h = rand((n,), dtype)
    d = ga.to_gpu(h)
    for k, (hv, dv) in enumerate(views_1d(h, d)):
        idt = INDEX[(k + 3 * ALL.index(dtype)) % len(INDEX)]
        for shape in ((1,), (513,), (4, 9), ()):
            s = indices(shape, len(hv), idt)
            sel = np.asarray(hv[s.astype(np.intp)])
            for f, npf in ((ga.subset_max, np.max), (ga.subset_min, np.min)):
                got = f(ga.to_gpu(s), dv)
                assert got.shape == () and got.dtype == h.dtype
                check_close(got.get(), np.asarray(npf(sel)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64,
                                   np.complex64], ids=str)
def test_subset_extremes_propagate_nan_like_numpy(dtype):
    h = rand((300,), dtype)
    h[17] = np.nan
    d = ga.to_gpu(h)
    s = indices((200,), 300, np.int32)
    s[(s == 17) | (s == 17 - 300)] = 18       # -283 names element 17 too
    with_nan = np.concatenate([s, [17]]).astype(np.int32)
    for f, npf in ((ga.subset_max, np.max), (ga.subset_min, np.min)):
        check_close(f(ga.to_gpu(s), d).get(), np.asarray(npf(h[s])))
        got = f(ga.to_gpu(with_nan), d).get()
        assert np.isnan(got), got
        assert np.isnan(npf(h[with_nan]))


def test_subset_index_modes_and_bounds():
    h = rand((50,), np.float64)
    d = ga.to_gpu(h)
    b = rand((40,), np.float64)
    db = ga.to_gpu(b)
    wild = np.array([0, 49, -50, -1, 50, 123, -51, -999, 7], np.int64)
    for mode in ("wrap", "clip"):
        sel = np.take(h, wild, mode=mode)
        close_sum(ga.subset_sum(ga.to_gpu(wild), d, mode=mode), sel,
                  np.dtype(np.float64))
        check_close(ga.subset_max(ga.to_gpu(wild), d, mode=mode).get(),
                    np.asarray(sel.max()))
        check_close(ga.subset_min(ga.to_gpu(wild), d, mode=mode).get(),
                    np.asarray(sel.min()))
        want = np.dot(np.take(h, wild, mode=mode), np.take(b, wild, mode=mode))
        got = ga.subset_dot(ga.to_gpu(wild), d, db, mode=mode)
        check_close(got.get(), np.asarray(want), atol=1e-12, rtol=1e-12)
    u = np.array([3, 2 ** 63 + 5, 2 ** 64 - 1], np.uint64)
    for mode in ("wrap", "clip"):
        check_close(ga.subset_max(ga.to_gpu(u), d, mode=mode).get(),
                    np.asarray(np.take(h, (u % 50).astype(np.intp)
                                       if mode == "wrap" else
                                       np.minimum(u, 49).astype(np.intp)).max()))
    # "raise": numpy's IndexError before the reduction, negative indices
    # from the end
    for bad, n_msg in (([1, 50], 50), ([-51, 3], 50), ([2 ** 40], 50)):
        s = ga.to_gpu(np.array(bad, np.int64))
        with pytest.raises(IndexError) as ei:
            ga.subset_sum(s, d)
        assert str(ei.value) == ("index %d is out of bounds for axis 0 with "
                                 "size %d" % ([v for v in bad if v >= 50 or
                                               v < -50][0], n_msg))
    with pytest.raises(IndexError):
        ga.subset_dot(ga.to_gpu(np.array([45], np.int32)), d, db)   # b has 40
    with pytest.raises(IndexError):
        ga.subset_max(ga.to_gpu(np.array([2 ** 64 - 1], np.uint64)), d)
    ok = ga.to_gpu(np.array([-50, -1, 0, 49], np.int16))
    close_sum(ga.subset_sum(ok, d), h[[-50, -1, 0, 49]], np.dtype(np.float64))


def test_subset_streams_allocators_and_large():
    st = drv.Stream()
    used = []

    def alloc(nbytes):
        used.append(nbytes)
        return drv.mem_alloc(nbytes)
    n = 1 << 20
    h = rand((n,), np.float32)
    d = ga.to_gpu(h)
    s = indices((3_000_001,), n, np.int32)     # split launch
    sd = ga.to_gpu(s)
    got = ga.subset_sum(sd, d, None, st, alloc)
    st.synchronize()
    assert used == [4]          # numpy's sum of float32 is float32
    close_sum(got, h[s], np.dtype(np.float32))
    got = ga.subset_dot(sd, d, d, np.float64, st, alloc)
    st.synchronize()
    prod = h[s].astype(np.float64) ** 2
    check_close(got.get(), np.asarray(prod.sum()),
                atol=_bound(prod, np.float64))
    for f, npf in ((ga.subset_max, np.max), (ga.subset_min, np.min)):
        got = f(sd, d, st)
        st.synchronize()
        check_close(got.get(), np.asarray(npf(h[s])))
    # the same arrays again (cached plans), and wrap mode on a stream
    got = ga.subset_sum(sd, d, stream=st, mode="wrap")
    st.synchronize()
    close_sum(got, h[s], np.dtype(np.float32))


# ---------------------------------------------------------------------------
# reductions by PyCUDA's signatures


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_pycuda_sum_min_max_any_all(dtype):
    st = drv.Stream()
    h = rand((37, 29), dtype)
    d = ga.to_gpu(h)
    used = []

    def alloc(nbytes):
        used.append(nbytes)
        return poison_alloc(nbytes)
    for hv, dv in ((h, d), (h[::-2, 1::3], d[::-2, 1::3]), (h.T, d.T),
                   (h[3, 4], d[3, 4])):
        hv = np.asarray(hv)
        for kw in ({}, {"stream": st}, {"allocator": alloc},
                   {"stream": st, "allocator": alloc}):
            got = ga.sum(dv, **kw)
            if "stream" in kw:
                st.synchronize()
            close_sum(got, hv, np.sum(hv).dtype)
            got = ga.sum(dv, np.complex128 if h.dtype.kind == "c"
                         else np.float64, **kw)
            st.synchronize()
            close_sum(got, hv, got.dtype)
            for f, npf in ((ga.any, np.any), (ga.all, np.all)):
                got = f(dv, **kw)
                st.synchronize()
                check_close(got.get(), np.asarray(npf(hv)))
            for f, npf in ((dv.any, np.any), (dv.all, np.all)):
                got = f(**kw)
                st.synchronize()
                check_close(got.get(), np.asarray(npf(hv)))
        for f, npf in ((ga.max, np.max), (ga.min, np.min)):
            check_close(f(dv).get(), np.asarray(npf(hv)))
            got = f(dv, st)
            st.synchronize()
            check_close(got.get(), np.asarray(npf(hv)))
    assert used and all(n > 0 for n in used)
    # numpy's keywords on a stream, into poisoned outputs
    out = poisoned((29,), h.dtype)
    r = ga.max(d, st, axis=0, out=out)
    st.synchronize()
    assert r is out
    check_close(out.get(), h.max(axis=0))
    r = ga.sum(d, None, st, axis=1, keepdims=True)
    st.synchronize()
    assert r.shape == (37, 1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=str)
def test_pycuda_min_max_propagate_nan(dtype):
    h = rand((1001,), dtype)
    h[500] = np.nan
    d = ga.to_gpu(h)
    st = drv.Stream()
    for f in (ga.max, ga.min):
        assert np.isnan(f(d).get())
        r = f(d, st)
        st.synchronize()
        assert np.isnan(r.get())


@pytest.mark.parametrize("pair", [(np.float32, np.float32),
                                  (np.float16, np.float16),
                                  (np.complex64, np.float64),
                                  (np.int8, np.int8), (np.int32, np.int64),
                                  (np.bool_, np.bool_)], ids=str)
def test_pycuda_dot_vdot(pair):
    d1, d2 = pair
    st = drv.Stream()
    x, y = rand((1001,), d1), rand((1001,), d2)
    dx, dy = ga.to_gpu(x), ga.to_gpu(y)
    for xv, yv, dxv, dyv in ((x, y, dx, dy),
                             (x[::-2][:500], y[1::2], dx[::-2][:500],
                              dy[1::2])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(np.dot(xv, yv))
        for args in ((), (None, st), (None, None, poison_alloc)):
            got = ga.dot(dxv, dyv, *args)
            st.synchronize()
            assert got.shape == () and got.dtype == want.dtype
            if want.dtype.kind in "fc":
                prod = xv.astype(np.complex128) * yv
                exact = prod.sum() if want.dtype.kind == "c" else prod.sum().real
                check_close(got.get(), np.asarray(exact).astype(want.dtype),
                            atol=_bound(prod, want.dtype, exact=exact))
            else:
                check_close(got.get(), want)
        # dtype=: PyCUDA's accumulator (int8 . int8 in int32 does not wrap)
        acc = np.complex128 if want.dtype.kind == "c" else np.float64
        got = ga.dot(dxv, dyv, acc, st)
        st.synchronize()
        prod = xv.astype(np.complex128) * yv
        exact = prod.sum() if want.dtype.kind == "c" else prod.sum().real
        check_close(got.get(), np.asarray(exact).astype(acc),
                    atol=_bound(prod, np.dtype(acc)))
        got = ga.vdot(dxv, dyv, None, st, poison_alloc)
        st.synchronize()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wantv = np.asarray(np.vdot(xv, yv))
        assert got.dtype == wantv.dtype
        if wantv.dtype.kind in "fc":
            prod = np.conj(xv.astype(np.complex128)) * yv
            exact = prod.sum() if wantv.dtype.kind == "c" else prod.sum().real
            check_close(got.get(), np.asarray(exact).astype(wantv.dtype),
                        atol=_bound(prod, wantv.dtype, exact=exact))
        else:
            check_close(got.get(), wantv)
    if np.dtype(d1) == np.int8:
        got = ga.dot(dx, dy, np.int32)
        assert int(got.get()) == int(np.dot(x.astype(np.int32), y))


def test_pycuda_dot_matrix_vector_zero_d_and_out():
    st = drv.Stream()
    a = rand((33, 301), np.float64)
    v = rand((301,), np.float64)
    out = poisoned((33,), np.float64)
    r = ga.dot(ga.to_gpu(a), ga.to_gpu(v), None, st, out=out)
    st.synchronize()
    assert r is out
    np.testing.assert_allclose(out.get(), a @ v, rtol=1e-12, atol=1e-10)
    r = ga.dot(ga.to_gpu(a)[::-1], ga.to_gpu(v), np.float32)
    assert r.dtype == np.float32
    exact = a[::-1] @ v
    check_close(r.get(), exact.astype(np.float32),
                atol=_bound(a[::-1] * v, np.float32, axis=1, exact=exact))
    s = ga.to_gpu(np.asarray(np.float32(2.5)))
    w = ga.to_gpu(rand((7,), np.float32))
    r = ga.dot(s, w, None, st)
    st.synchronize()
    check(r, np.dot(np.float32(2.5), w.get()))
    r = ga.dot(ga.to_gpu(np.asarray(np.int8(100))), ga.to_gpu(
        np.array([100, 3], np.int8)), np.int32)
    check(r, np.array([10000, 300], np.int32))


def test_pycuda_conditionals():
    c = rand((41, 7), np.float32, lo=-2, hi=2)
    x = rand((41, 7), np.float64)
    y = rand((41, 7), np.float64)
    dc, dx, dy = ga.to_gpu(c), ga.to_gpu(x), ga.to_gpu(y)
    check(ga.if_positive(dc, dx, dy), np.where(c > 0, x, y))
    check(ga.where(dc > 0, dx, dy), np.where(c > 0, x, y))
    check(ga.minimum(dx, dy), np.minimum(x, y))
    check(ga.maximum(dx, 0.5), np.maximum(x, 0.5))
    check(ga.maximum(0.5, dx), np.maximum(0.5, x))
    st = drv.Stream()
    out = poisoned((41, 7), np.float64)
    ga.if_positive(dc, dx, dy, out, st)
    st.synchronize()
    check(out, np.where(c > 0, x, y))


# ---------------------------------------------------------------------------
# methods


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_reverse(dtype):
    st = drv.Stream()
    h = rand((9, 13), dtype)
    d = ga.to_gpu(h)
    check(d[2].reverse(), h[2][::-1])
    check(d.reverse(), h[::-1, ::-1])
    f = ga.to_gpu(np.asfortranarray(h))
    r = f.reverse(st)
    st.synchronize()
    assert r.flags.f_contiguous
    check(r, h[::-1, ::-1])
    check(d[1::2, ::-3].reverse(), h[1::2, ::-3][::-1, ::-1])
    check(d[3, 4].reverse(), np.asarray(h[3, 4]))
    check(d[:0].reverse(), h[:0])


def test_mul_add_keywords_out_and_timer():
    x = rand((1001,), np.float32)
    y = rand((1001,), np.float32)
    dx, dy = ga.to_gpu(x), ga.to_gpu(y)
    check(dx.mul_add(2.0, dy, -3.0), np.float32(2) * x + np.float32(-3) * y)
    st = drv.Stream()
    out = poisoned((1001,), np.float64)
    timed = []
    r = dx.mul_add(1.5, dy, 0.25, add_timer=lambda n, t: timed.append((n, t)),
                   stream=st, out=out)
    assert r is out
    st.synchronize()
    check(out, (np.float32(1.5) * x + np.float32(0.25) * y).astype(np.float64))
    assert len(timed) == 1 and timed[0][0] == 3 * 1001
    secs = timed[0][1]()
    assert isinstance(secs, float) and 0 <= secs < 10
    # numpy's promotion and broadcasting
    a = rand((5, 1), np.int16)
    check(ga.to_gpu(a).mul_add(3, dy[:7], 2),
          3 * a + np.float32(2) * y[:7])


def test_transpose_axes_keyword_values_and_pycuda_positional_stream():
    h = rand((3, 4, 5), np.float64)
    d = ga.to_gpu(h)
    check(d.transpose(axes=(2, 0, 1)).copy(), h.transpose(2, 0, 1))
    check(ga.transpose(d, axes=[1, 2, 0]).copy(), h.transpose(1, 2, 0))
    st = drv.Stream()
    c = d[::-1].copy(st)
    st.synchronize()
    check(c, h[::-1])
    c = d.T.astype(np.float32, st)
    st.synchronize()
    check(c, h.T.astype(np.float32))


def test_splay_covers_with_a_grid_stride_kernel():
    from gpuarr.elementwise import ElementwiseKernel
    dev = drv.Context.get_device()
    nsm = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    per_sm = dev.get_attribute(drv.device_attribute.MAX_BLOCKS_PER_MULTIPROCESSOR)
    assert ga.splay(10 ** 9) == ((4 * per_sm * nsm, 1), (128, 1, 1))
    assert ga.splay(4 * per_sm * nsm * 32 + 1) == ((4 * per_sm * nsm, 1), (64, 1, 1))
    assert ga.splay(5) == ((1, 1), (32, 1, 1))
    x = ga.to_gpu(rand((100_003,), np.float32))
    assert x._grid == ga.splay(x.size)[0] and x._block == ga.splay(x.size)[1]
    k = ElementwiseKernel("float *x, float *y", "y[i] = 2 * x[i]", "dbl")
    y = poisoned(x.shape, np.float32)
    k(x, y)
    check(y, 2 * x.get())


# ---------------------------------------------------------------------------
# frexp, modf, ldexp


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 3.0, -2.5,
           1e-45, -1e-40, 6e-8, 65504.0, 1e300, 5e-324]


def float_inputs(dtype, shape=(7, 11)):
    dt = np.dtype(dtype)
    h = rand(shape, dtype)
    if dt.kind == "f":
        h = h * np.asarray(np.float64(10.0) ** _rng.integers(-3, 4, shape),
                           ).astype(dt)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sp = np.array(SPECIAL).astype(dt)
        h.flat[:len(sp)] = sp
    return h


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_frexp_modf_every_dtype(dtype):
    dt = np.dtype(dtype)
    h = float_inputs(dtype)
    d = ga.to_gpu(h)
    if dt.kind == "c":
        for f in (cumath.frexp, cumath.modf):
            with pytest.raises(TypeError):
                f(d)
        return
    for hv, dv in ((h, d), (h[::-2, 1::3], d[::-2, 1::3]), (h.T, d.T),
                   (np.asarray(h[2, 3]), d[2, 3]), (h[:0], d[:0])):
        for f, npf in ((cumath.frexp, np.frexp), (cumath.modf, np.modf)):
            w0, w1 = npf(hv)
            g0, g1 = f(dv)
            # exact, signs of zeros and NaN included
            for g, w in ((g0, w0), (g1, w1)):
                assert g.shape == w.shape and g.dtype == w.dtype, (f, g.dtype)
                got = g.get()
                np.testing.assert_array_equal(got, w)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(w))
            # poisoned outputs, both given and one of them
            o0 = poisoned(w0.shape, w0.dtype)
            o1 = poisoned(w1.shape, w1.dtype)
            r = f(dv, out=(o0, o1))
            assert r[0] is o0 and r[1] is o1
            check(o0, w0)
            check(o1, w1)
            o1 = poisoned(w1.shape, np.float64 if f is cumath.modf
                          else np.int64)
            r = f(dv, out=(None, o1))
            assert r[1] is o1
            check(o1, w1.astype(o1.dtype))
            check(r[0], w0)
    # in place: the mantissa into the input itself
    x = ga.to_gpu(float_inputs(np.float64))
    want = np.frexp(x.get())
    m, e = cumath.frexp(x, out=(x, None))
    assert m is x
    check(x, want[0])
    check(e, want[1])
    # the flat namespace
    check(gpuarr.modf(d)[1], np.modf(h)[1])
    check(gpuarr.frexp(d)[1], np.frexp(h)[1])


@pytest.mark.parametrize("mant", ALL[:-2], ids=str)
def test_ldexp(mant):
    h = float_inputs(mant)
    d = ga.to_gpu(h)
    for edt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
                np.bool_):
        e = rand(h.shape, edt, lo=-60, hi=60, nonzero=False)
        with np.errstate(all="ignore"):
            try:
                want = np.ldexp(h, e)
            except TypeError:
                with pytest.raises(TypeError):
                    cumath.ldexp(d, ga.to_gpu(e))
                continue
        got = cumath.ldexp(d, ga.to_gpu(e))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
        # strided, reversed and broadcast operands, poisoned out
        out = poisoned(want[::-1].shape, want.dtype)
        cumath.ldexp(d[::-1], ga.to_gpu(e)[::-1], out=out)
        check(out, want[::-1])
        with np.errstate(all="ignore"):
            want = np.ldexp(h, e[:1])
        np.testing.assert_array_equal(
            cumath.ldexp(d, ga.to_gpu(e[:1])).get(), want)
    # Python int exponents (weak: numpy's int32 loop), huge ones
    for k in (0, 3, -7, 200, -200, 2 ** 31 - 1, -(2 ** 31)):
        with np.errstate(all="ignore"):
            want = np.ldexp(h, k)
        got = cumath.ldexp(d, k)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
    # int64 exponents beyond int32's range: 0 or inf like the exact result
    big = np.array([2 ** 40, -(2 ** 40), 2 ** 62, -(2 ** 62)] * 20,
                   np.int64)[:h.size].reshape(h.shape)
    with np.errstate(all="ignore"):
        want = np.ldexp(h, big)
    np.testing.assert_array_equal(cumath.ldexp(d, ga.to_gpu(big)).get(), want)
    # 0-d and empty
    check(cumath.ldexp(d[1, 2], 4), np.ldexp(h[1, 2], 4))
    check(cumath.ldexp(d[:0], ga.zeros((0, 11), np.int32)),
          np.ldexp(h[:0], np.zeros((0, 11), np.int32)))


# ---------------------------------------------------------------------------
# temporaries made for work on a stream live until that work is done

_SPIN = r"""
extern "C" __global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}
"""


_SPIN_FN = {}      # context handle -> the spin kernel (its module kept)


def stalled_stream(ms=30):
    """A non-blocking stream held up for about ``ms`` milliseconds by a
    spinning kernel: work queued on it next runs late, while the legacy
    stream (memsets, the pool's reuse) goes on at once.  The context is
    synchronized first, so the inputs made before are ready."""
    from gpuarr.compiler import SourceModule
    drv.Context.synchronize()
    key = drv.Context.get_current().handle
    fn = _SPIN_FN.get(key)
    if fn is None:
        fn = _SPIN_FN[key] = SourceModule(
            _SPIN, no_extern_c=True, cache_dir=False).get_function("spin")
    khz = drv.Context.get_device().get_attribute(
        drv.device_attribute.CLOCK_RATE) or 2_000_000   # 0: not reported
    st = drv.Stream(1)              # NON_BLOCKING
    fn(np.int64(khz * ms), block=(1, 1, 1), grid=(1, 1), stream=st)
    return st


def scribble_freed(sizes, copies=4):
    """Take the pool's free blocks of each byte size in ``sizes`` (up to
    ``copies`` of each) and fill them with 0xFF bytes on the legacy stream
    (NaN for floats): a temporary given back while work on a stalled
    stream still reads it is overwritten.  Returns the blocks (keep them
    until the stream is done)."""
    from gpuarr.tools import default_pool
    pool = default_pool()
    blocks = []
    for n in sizes:
        for _ in range(copies):
            b = pool.allocate(n)
            drv.memset_d8(b.ptr, 0xFF, n)
            blocks.append(b)
    return blocks


def test_reduction_temporaries_outlive_the_stream_work():
    n = 48 * 64                     # 24 KiB of float64: the pool keeps it
    big = rand((64, 96), np.float64)
    x = big[:, ::2]                 # reshape(-1) of its GPUArray copies
    dx = ga.to_gpu(big)[:, ::2]
    y = rand((n,), np.float64)
    dy = ga.to_gpu(y)
    tol = 1e-12 * (np.abs(x).sum() * np.abs(y).max() + 1)

    # vdot of operands of two shapes: a's reshape(-1) is a copy
    st = stalled_stream()
    got = ga.vdot(dx, dy, None, st)
    keep = scribble_freed([n * 8])
    st.synchronize()
    check_close(got.get(), np.asarray(np.vdot(x.reshape(-1), y)), atol=tol)
    del keep

    # dot of a host vector: its device copy
    st = stalled_stream()
    got = ga.dot(y, dy, None, st)
    keep = scribble_freed([n * 8])
    st.synchronize()
    check_close(got.get(), np.asarray(np.dot(y, y)),
                atol=1e-12 * (np.dot(y, y) + 1))
    del keep

    # 0-d dot with dtype= and out=: the casts and the product
    s32 = rand((), np.float32)
    y32 = rand((n,), np.float32)
    out = poisoned((n,), np.float64)
    ds32, dy32 = ga.to_gpu(s32), ga.to_gpu(y32)
    st = stalled_stream()
    r = ga.dot(ds32, dy32, np.float64, st, out=out)
    keep = scribble_freed([8, n * 8])
    st.synchronize()
    assert r is out
    check(out, np.float64(s32) * y32.astype(np.float64))
    del keep

    # sum and subset_sum of host arrays
    st = stalled_stream()
    got = ga.sum(y, None, st)
    keep = scribble_freed([n * 8])
    st.synchronize()
    check_close(got.get(), np.asarray(y.sum()),
                atol=1e-12 * (np.abs(y).sum() + 1))
    del keep
    idx = indices((1000,), n, np.int64)
    st = stalled_stream()
    got = ga.subset_sum(idx, y, stream=st, mode="wrap")
    keep = scribble_freed([n * 8, 1000 * 8])
    st.synchronize()
    check_close(got.get(), np.asarray(y[idx].sum()),
                atol=1e-12 * (np.abs(y[idx]).sum() + 1))
    del keep
