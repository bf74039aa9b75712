"""The array layer's host-side logic against the fake libcuda.

No GPU is needed: tests/fake_cuda/fake_libcuda.c keeps "device" memory on
the host, so copies, memsets, the memory pool and page-locked buffers work,
while loading a real cubin fails (no kernel can run). Only what gpuarr does
without kernels is covered here: transfers (``to_gpu``, ``get``, ``set``),
creation by memset or host copy, views that need no gather, ``repr``,
pickling, the CUDA Array Interface, the pool, and host-side errors raised
before any driver copy.

Each scenario runs in a fresh interpreter (gpuarr loads libcuda once per
process) with ``GPUARR_LIBCUDA`` naming the fake; it asserts inside that
process and prints DONE at the end. Every scenario also asserts that the
fake saw no failing call (so no kernel was tried: a module load of a real
cubin fails there) and, through counting wrappers put around the
``gpuarr.driver`` functions the array layer calls, which transfers ran.
"""
import textwrap

from _util import run_fake_scenario




PRELUDE = """\
import gc, pickle, sys
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
import gpuarr.gpuarray as ga
from gpuarr.tools import default_pool
from fakecuda import Fake
fk = Fake()

# Count the driver calls the array layer makes: gpuarr.gpuarray and
# gpuarr.tools look these up on the gpuarr.driver module at each call.
CALLS = {}
def _counting(name):
    real = getattr(drv, name)
    def wrapper(*args, **kwargs):
        CALLS[name] = CALLS.get(name, 0) + 1
        return real(*args, **kwargs)
    setattr(drv, name, wrapper)
COPIES = ("memcpy_htod", "memcpy_dtoh", "memcpy_dtod", "memcpy_htod_async",
          "memcpy_dtoh_async", "memcpy_dtod_async", "memset_d8", "memset_d16",
          "memset_d32", "memset_d8_async", "memset_d16_async", "memset_d32_async")
for _n in COPIES + ("mem_alloc", "pagelocked_empty"):
    _counting(_n)

def copies():
    return sum(CALLS.get(n, 0) for n in COPIES)

def calls(name):
    return CALLS.get(name, 0)

rng = np.random.default_rng(20240611)
DTYPES = [np.dtype(t) for t in ("?", "i1", "u1", "i2", "u2", "i4", "u4", "i8",
                                "u8", "f2", "f4", "f8", "c8", "c16")]
SHAPES = [(), (0,), (3, 0), (1,), (7,), (3, 5), (2, 3, 5), (5, 1, 3), (1, 7)]

def rand(shape, dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return np.asarray(rng.integers(0, 2, shape).astype(dt))
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.asarray(rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True))
    if dt.kind == "f":
        h = (rng.standard_normal(shape) * 1e3).astype(dt)
    else:
        h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    h = np.asarray(h)
    flat = h.reshape(-1)
    if flat.size >= 4:   # special values travel bit for bit
        flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return h

def same(got, want):
    # value, dtype, shape and bits (NaN payloads, -0.0) all equal
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    assert got.tobytes() == want.tobytes(), (got, want)

def live():
    return fk["live_allocations"]
"""

EPILOGUE = """
assert fk["errors"] == 0, ("the fake saw a failing call", fk.last_error())
assert fk["launches"] == 0 and fk["module_loads"] == 0
print('DONE')
"""


def check(lib, code):
    """Run a scenario; it passes when it exits 0 having printed DONE."""
    return run_fake_scenario(lib, PRELUDE + textwrap.dedent(code) + EPILOGUE)


# ---------------------------------------------------------------------------
# transfers


def test_to_gpu_get_round_trip_every_dtype_c_and_f(fake_lib):
    check(fake_lib, """
        n = 0
        for dt in DTYPES:
            for shape in SHAPES:
                h = rand(shape, dt)
                layouts = [("C", h)]
                if len(shape) >= 2:
                    layouts += [("F", np.asfortranarray(h)), ("F", h.T.copy().T)]
                for order, host in layouts:
                    before = calls("memcpy_htod")
                    a = ga.to_gpu(host)
                    assert a.dtype == dt and a.shape == shape and a.size == h.size
                    assert [st for n, st in zip(shape, a.strides) if n > 1] == \
                        [st for n, st in zip(shape, host.strides) if n > 1], (a.strides, host.strides)
                    assert a.flags.c_contiguous == host.flags.c_contiguous
                    assert calls("memcpy_htod") - before == (1 if h.size else 0)
                    if h.size == 0:
                        assert a.ptr == 0
                    g = a.get()
                    same(g, h)
                    if not host.flags.c_contiguous:
                        assert g.flags.f_contiguous and a.flags.f_contiguous
                        assert not a.flags.c_contiguous
                    else:
                        assert g.flags.c_contiguous
                    n += 1
        # 0-d from a numpy scalar and a Python value
        same(ga.to_gpu(np.float32(3.25)).get(), np.array(3.25, np.float32))
        same(ga.to_gpu(7).get(), np.array(7))
        # a non-contiguous host array is made contiguous on the host first
        h = rand((6, 8), "f4")
        for v in (h[::2, 1::3], h[:, ::-1], h.T[::2]):
            a = ga.to_gpu(v)
            assert a.flags.c_contiguous
            same(a.get(), np.ascontiguousarray(v))
        assert n == len(DTYPES) * 19, n
    """)


def test_get_into_preallocated_and_pagelocked(fake_lib):
    check(fake_lib, """
        for dt in ("u1", "f2", "i8", "c16"):
            h = rand((5, 7), dt)
            for layout in ("C", "F"):
                a = ga.to_gpu(np.asarray(h, order=layout))
                # matching destination: filled in place, returned as is
                dest = np.zeros((5, 7), dt, order=layout)
                r = a.get(ary=dest)
                assert r is dest
                same(dest, h)
                # other layout, non-contiguous, other shape of the same size
                for dest, want in ((np.zeros((5, 7), dt, order="FC".replace(layout, "")), h),
                                   (np.zeros((10, 14), dt)[::2, 1::2], h),
                                   (np.zeros(35, dt), h.reshape(-1)),
                                   (np.zeros((7, 5), dt), h.reshape(7, 5))):
                    r = a.get(ary=dest)
                    assert r is dest
                    assert np.array_equal(r, want, equal_nan=True)
                # pagelocked: a new page-locked array, freed when it dies
                hosts = fk["live_host_allocs"]
                pe = calls("pagelocked_empty")
                r = a.get(pagelocked=True)
                assert calls("pagelocked_empty") == pe + 1
                assert fk["live_host_allocs"] == hosts + 1
                same(r, h)
                assert r.flags.f_contiguous if layout == "F" else r.flags.c_contiguous
                del r
                gc.collect()
                assert fk["live_host_allocs"] == hosts
        # errors: checked before any copy
        a = ga.to_gpu(np.arange(6.0))
        c0 = copies()
        for bad, exc in ((np.zeros(5), ValueError), (np.zeros(6, np.float32), ValueError),
                         ([0.0] * 6, TypeError), (np.zeros(6, ">f8"), ValueError)):
            try:
                a.get(ary=bad)
            except exc:
                pass
            else:
                raise AssertionError("get(ary=%r) did not raise" % (bad,))
        assert copies() == c0
        # 0-d and empty
        z = np.zeros((), np.int16)
        assert ga.to_gpu(np.int16(-9)).get(ary=z) is z and z[()] == -9
        e = np.zeros((3, 0))
        assert ga.zeros((3, 0)).get(ary=e) is e
        r = ga.empty((0, 4), np.float32).get(pagelocked=True)
        assert r.shape == (0, 4) and r.dtype == np.float32
    """)


def test_async_transfers_on_a_stream(fake_lib):
    check(fake_lib, """
        s = drv.Stream()
        h = rand((4, 9), "f8")
        pinned = drv.pagelocked_empty(h.shape, h.dtype)
        pinned[...] = h
        a = ga.to_gpu_async(pinned, stream=s)
        out = drv.pagelocked_empty(h.shape, h.dtype)
        r = a.get_async(stream=s, ary=out)
        s.synchronize()
        assert r is out
        same(out, h)
        b = ga.empty(h.shape, h.dtype)
        b.set_async(pinned[::-1].copy(), stream=s)
        s.synchronize()
        same(b.get(), h[::-1])
        assert calls("memcpy_htod_async") == 2 and calls("memcpy_dtoh_async") == 1
    """)


def test_set_same_shape_and_numpy_errors(fake_lib):
    check(fake_lib, """
        for dt in DTYPES:
            for shape in ((), (7,), (3, 5), (2, 3, 5)):
                for order in ("C", "F"):
                    a = ga.empty(shape, dt, order=order)
                    h = rand(shape, dt)
                    assert a.set(h) is a
                    same(a.get(), h)
                    # a non-contiguous host array, and a cast as numpy assignment
                    h2 = rand(shape, dt)
                    a.set(np.asarray(h2.T).T if h2.ndim else h2)
                    same(a.get(), h2)
                    src = rand(shape, "f8" if dt.kind != "c" else "c16")
                    with np.errstate(all="ignore"):
                        want = np.empty(shape, dt)
                        want[...] = src
                        a.set(src)
                    assert np.array_equal(a.get(), want, equal_nan=True), (dt, a.get(), want)
        # PyCUDA's same-size reshape
        a = ga.zeros((2, 3))
        a.set(np.arange(6.0))
        same(a.get(), np.arange(6.0).reshape(2, 3))
        # wrong sizes: numpy's ValueError and message, nothing copied
        a = ga.to_gpu(np.arange(10, dtype=np.int32))
        for bad in (np.zeros(3), np.zeros(12), [], np.zeros(()) + 1):
            c0 = copies()
            try:
                a.set(bad)
            except ValueError as e:
                want = np.arange(10, dtype=np.int32)
                try:
                    want[...] = np.asarray(bad) if np.ndim(bad) else np.zeros(11)
                except ValueError as ne:
                    if np.ndim(bad):
                        assert str(e) == str(ne), (str(e), str(ne))
                else:
                    raise AssertionError("numpy accepted %r" % (bad,))
            else:
                raise AssertionError("set(%r) did not raise" % (bad,))
            assert copies() == c0
        same(a.get(), np.arange(10, dtype=np.int32))
        # empty arrays: nothing to copy
        c0 = copies()
        e = ga.empty((0, 3))
        e.set(np.zeros((0, 3)))
        assert copies() == c0
    """)


# ---------------------------------------------------------------------------
# creation


def test_creation_by_memset_and_host_copies(fake_lib):
    check(fake_lib, """
        for dt in DTYPES:
            for shape in ((), (0,), (7,), (3, 5), (2, 3, 5)):
                for order in ("C", "F"):
                    m0 = calls("memset_d8")
                    z = ga.zeros(shape, dt, order=order)
                    same(z.get(), np.zeros(shape, dt))
                    assert calls("memset_d8") == m0 + (1 if z.size else 0)
                    assert z.flags.f_contiguous if order == "F" else z.flags.c_contiguous
                    e = ga.empty(shape, dt, order=order)
                    assert e.shape == shape and e.dtype == dt and e.get().shape == shape
                    if dt.itemsize <= 4:   # one memset of the value's bits
                        same(ga.ones(shape, dt, order=order).get(), np.ones(shape, dt))
                    if dt.itemsize <= 8:   # all-zero bits: one memset_d8
                        same(ga.full(shape, 0, dt, order=order).get(), np.zeros(shape, dt))
        # full: the bit pattern of the value, for 1-, 2- and 4-byte items
        for value, dt, width in ((-1, "i1", "d8"), (True, "?", "d8"), (200, "u1", "d8"),
                                 (65535, "u2", "d16"), (np.nan, "f2", "d16"),
                                 (-0.0, "f2", "d16"), (-2**31, "i4", "d32"),
                                 (np.inf, "f4", "d32"), (-0.0, "f4", "d32"),
                                 (1.1, "f4", "d32"), (3.9, "i4", "d32"),
                                 (np.float32(2.5), None, "d32"), (np.uint16(7), None, "d16")):
                m0 = calls("memset_" + width)
                a = ga.full((3, 7), value, dt)
                same(a.get(), np.full((3, 7), value, dt))
                assert calls("memset_" + width) == m0 + 1, (value, dt)
        a = ga.full((2, 3), np.array(-7, np.int16), order="F")
        assert a.flags.f_contiguous
        same(a.get(), np.full((2, 3), -7, np.int16))
        # *_like keep shape, dtype and (for "K") the F layout
        f = ga.to_gpu(np.asfortranarray(rand((4, 6), "f4")))
        for like, want in ((ga.zeros_like(f), np.zeros((4, 6), "f4")),
                           (ga.ones_like(f), np.ones((4, 6), "f4")),
                           (ga.full_like(f, -3.5), np.full((4, 6), -3.5, "f4"))):
            assert like.flags.f_contiguous and not like.flags.c_contiguous
            same(like.get(), want)
        assert ga.empty_like(f).strides == f.strides
        same(ga.zeros_like(f, dtype=np.int8, order="C").get(), np.zeros((4, 6), "i1"))
        # arange and linspace: computed by numpy, copied bit for bit
        for args, kw in (((10,), {}), ((3, 17, 2), {}), ((0.5, 3.1, 0.3), {}),
                         ((-4, 5), {"dtype": np.int8}), ((0,), {}), ((5, 1), {}),
                         ((0, 1, 0.1), {"dtype": np.float32}), ((2.0,), {"dtype": np.float16}),
                         ((1, 4), {"dtype": np.complex64})):
            same(ga.arange(*args, **kw).get(), np.arange(*args, **kw))
        for args, kw in (((0, 1), {}), ((-3, 7, 13), {"endpoint": False}),
                         ((0, 10, 7), {"dtype": np.int16}), ((1, 2, 0), {}),
                         ((1, 2, 1), {}), ((0, 1, 5), {"dtype": np.float32}),
                         (([0, 1], [4, 9], 3), {"axis": 1})):
            same(ga.linspace(*args, **kw).get(), np.linspace(*args, **kw))
        a, step = ga.linspace(2, 3, 5, retstep=True)
        want, wstep = np.linspace(2, 3, 5, retstep=True)
        same(a.get(), want)
        assert step == wstep
        try:
            ga.arange(0, 5, 0)
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("arange with step 0 did not raise")
    """)


def test_fill_and_setitem_of_contiguous_views(fake_lib):
    check(fake_lib, """
        h = rand(20, "i4")
        a = ga.to_gpu(h)
        a[3:9].fill(-5)
        h[3:9] = -5
        a[12:15] = 7
        h[12:15] = 7
        a[15:18] = [1, 2, 3]
        h[15:18] = [1, 2, 3]
        a[18:] = np.array([1.9, -2.9])      # unsafe cast, as numpy's setitem
        h[18:] = np.array([1.9, -2.9])
        a[0] = 11
        h[0] = 11
        same(a.get(), h)
        # overlapping source and destination: numpy's result
        b = ga.to_gpu(np.arange(10, dtype=np.uint8))
        hb = np.arange(10, dtype=np.uint8)
        b[0:5] = b[2:7]
        hb[0:5] = hb[2:7].copy()
        same(b.get(), hb)
        b[4:9] = b[0:5]
        hb[4:9] = hb[0:5].copy()
        same(b.get(), hb)
        # whole-array assignment from another array and copies: device to device
        c = ga.empty((3, 4), np.float64, order="F")
        src = ga.to_gpu(np.asfortranarray(rand((3, 4), "f8")))
        d0 = calls("memcpy_dtod")
        c[...] = src
        same(c.get(), src.get())
        k = src.copy(order="K")
        assert k.flags.f_contiguous and k.ptr != src.ptr
        same(k.get(), src.get())
        same(src.astype(np.float64).get(), src.get())
        import copy
        cs = ga.to_gpu(rand((5, 3), "c8"))
        same(copy.copy(cs).get(), cs.get())
        same(copy.deepcopy(cs).get(), cs.get())
        assert calls("memcpy_dtod") == d0 + 5
        # row of a C array; F column of an F array
        m = ga.zeros((4, 5), np.float32)
        m[2] = 1.5
        m[1, :] = np.arange(5)
        hm = np.zeros((4, 5), np.float32)
        hm[2] = 1.5
        hm[1, :] = np.arange(5)
        same(m.get(), hm)
        f = ga.zeros((4, 5), np.int16, order="F")
        f[:, 3] = -2
        hf = np.zeros((4, 5), np.int16)
        hf[:, 3] = -2
        same(f.get(), hf)
        # a 0-d view
        m[3, 4] = 9
        assert float(m[3, 4]) == 9.0 and m[3, 4].item() == 9.0
    """)


# ---------------------------------------------------------------------------
# views


def test_views_without_copies_read_back_numpy_values(fake_lib):
    check(fake_lib, """
        h = rand((6, 10), "f8")
        a = ga.to_gpu(h)
        hf = np.asfortranarray(rand((6, 10), "c8"))
        f = ga.to_gpu(hf)
        views = [
            (a[2:5], h[2:5]), (a[3], h[3]), (a[-1], h[-1]), (a[4, 7], h[4, 7]),
            (a[1:2, 3:9], h[1:2, 3:9]), (a[2:2], h[2:2]), (a[5:4:-1], h[5:4:-1]),
            (a[None, 1:3], h[None, 1:3]), (a[..., None][2:4], h[..., None][2:4]),
            (a.T, h.T), (a.T[:, 2:4], h.T[:, 2:4]), (a.transpose(1, 0), h.transpose(1, 0)),
            (a.reshape(3, 20), h.reshape(3, 20)), (a.reshape(-1), h.reshape(-1)),
            (a.reshape(2, 3, 10), h.reshape(2, 3, 10)), (a.ravel(), h.ravel()),
            (a.T.reshape((60,), order="F"), h.T.reshape(60, order="F")),
            (a[2:4].reshape(4, 5), h[2:4].reshape(4, 5)),
            (a.view(np.uint64), h.view(np.uint64)), (a.view(np.uint8), h.view(np.uint8)),
            (a[1:3].view(np.float32), h[1:3].view(np.float32)),
            (ga.expand_dims(a, 1), np.expand_dims(h, 1)),
            (ga.expand_dims(a, 0).squeeze(), h),
            (f, hf), (f.T, hf.T), (f[:, 2:5], hf[:, 2:5]), (f[:, 4], hf[:, 4]),
            (f.reshape((5, 12), order="F"), hf.reshape((5, 12), order="F")),
            (f.ravel(order="K"), hf.ravel(order="K")), (f.ravel("F"), hf.ravel("F")),
            (f.swapaxes(0, 1), hf.swapaxes(0, 1)), (f[:, 1].view(np.float32), hf[:, 1].view(np.float32)),
            (f.imag[2:3, 5:6], hf.imag[2:3, 5:6]), (f.real[1, 7], hf.real[1, 7]),
        ]
        c0 = copies()
        h0 = calls("memcpy_dtoh")
        allocs = calls("mem_alloc")
        for i, (v, want) in enumerate(views):
            assert v.shape == want.shape and v.dtype == want.dtype, (i, v.shape, want.shape)
            assert v.flags.forc, (i, v.strides)
            assert v is f or v.base is a or v.base is f, i
            g = v.get()
            assert np.array_equal(g, want, equal_nan=True), (i, g, want)
        # each read is exactly one device-to-host copy (no gather, no alloc)
        nonempty = sum(1 for v, _ in views if v.size)
        assert copies() - c0 == nonempty and calls("memcpy_dtoh") - h0 == nonempty
        assert calls("mem_alloc") == allocs
        # .T of a C array comes back F-ordered without a copy on the device
        t = a.T.get()
        assert t.flags.f_contiguous and not t.flags.c_contiguous
        same(np.ascontiguousarray(t), np.ascontiguousarray(h.T))
        # scalar conversions read one element
        i = ga.to_gpu(np.arange(5, dtype=np.int64))
        assert int(i[3]) == 3 and i[4].item() == 4 and not bool(i[0]) and bool(i[1])
        assert [0, 1, 2, 3, 4][i[2]] == 2
        assert [int(x) for x in i] == [0, 1, 2, 3, 4] and len(i) == 5
        assert complex(f[1, 2]) == complex(hf[1, 2])
    """)


def test_views_keep_their_base_alive(fake_lib):
    check(fake_lib, """
        pool = default_pool()
        h = rand(100, "f4")
        a = ga.to_gpu(h)
        held = pool.held_blocks
        v = a[10:20].reshape(2, 5)
        del a
        gc.collect()
        assert pool.held_blocks == held      # the view holds the block
        same(v.get(), h[10:20].reshape(2, 5))
        w = v.T
        del v
        gc.collect()
        same(w.get(), h[10:20].reshape(2, 5).T)
        del w
        gc.collect()
        assert pool.held_blocks == held + 1
    """)


# ---------------------------------------------------------------------------
# repr, pickling, interfaces


def test_repr_str_format_and_pickle(fake_lib):
    check(fake_lib, """
        cases = [rand((), "f4"), rand((7,), "i2"), rand((3, 5), "f8"),
                 np.asfortranarray(rand((3, 4), "c8")), rand((2, 3), "?"),
                 rand((4,), "f2"), np.zeros((0, 3)), np.zeros((2, 0), "u8"),
                 np.arange(2000.0).reshape(40, 50)]
        for h in cases:
            a = ga.to_gpu(h)
            assert repr(a) == repr(h), (repr(a), repr(h))
            assert str(a) == str(h)
            for proto in (2, pickle.HIGHEST_PROTOCOL):
                b = pickle.loads(pickle.dumps(a, protocol=proto))
                assert type(b) is ga.GPUArray
                assert b.ptr != a.ptr if h.size else b.ptr == 0
                assert b.strides == a.strides and b.flags.f_contiguous == a.flags.f_contiguous
                same(b.get(), h)
        assert format(ga.to_gpu(np.float64(2.0 / 3)), ".3f") == "0.667"
        # a pickled view carries only its own elements
        h = rand((6, 6), "i4")
        v = pickle.loads(pickle.dumps(ga.to_gpu(h)[2:4]))
        assert v.base is None and v.shape == (2, 6)
        same(v.get(), h[2:4])
    """)


def test_cuda_array_interface_of_a_real_allocation(fake_lib):
    check(fake_lib, """
        h = rand((4, 6), "f4")
        a = ga.to_gpu(h)
        cai = a.__cuda_array_interface__
        assert cai["shape"] == (4, 6) and cai["typestr"] == "<f4" and cai["version"] == 3
        assert cai["descr"] == [("", "<f4")] and cai["strides"] is None and cai["stream"] == 1
        ptr, ro = cai["data"]
        assert ptr == a.ptr == int(a.gpudata) and ro is False
        # the pointer is live device memory holding the data
        out = np.empty_like(h)
        drv.memcpy_dtoh(out, ptr)
        same(out, h)
        # views: offset pointer and byte strides
        v = a[1:3, 2:]
        cv = v.__cuda_array_interface__
        assert cv["data"] == (ptr + 1 * 24 + 2 * 4, False)
        assert cv["shape"] == (2, 4) and cv["strides"] == (24, 4)
        t = a.T.__cuda_array_interface__
        assert t["strides"] == (4, 24) and t["data"][0] == ptr
        c = ga.to_gpu(rand(3, "c16")).__cuda_array_interface__
        assert c["typestr"] == "<c16" and c["strides"] is None
        assert ga.empty((0, 3), "u2").__cuda_array_interface__["data"] == (0, False)
        # asarray wraps a foreign interface without a copy
        class Foreign:
            pass
        fo = Foreign()
        fo.__cuda_array_interface__ = a.T.__cuda_array_interface__
        c0, m0 = copies(), calls("mem_alloc")
        w = ga.asarray(fo)
        assert w.ptr == ptr and w.base is fo and w.shape == (6, 4)
        assert copies() == c0 and calls("mem_alloc") == m0
        same(np.ascontiguousarray(w.get()), np.ascontiguousarray(h.T))
        # DLPack round trip shares the memory too
        d = ga.from_dlpack(a)
        assert d.ptr == a.ptr
        same(d.get(), h)
    """)


def test_dlpack_1_0_and_the_stream_protocol(fake_lib):
    """DLPack 1.0 against real (fake) allocations: a versioned capsule
    shares the memory; copy=True exports a copy flagged as one; a
    read-only import is copied (a GPUArray is writable); the host export
    (dl_device=(1, 0)) serves numpy.from_dlpack(device="cpu");
    __dlpack_device__ comes from the pointer (managed memory: 13); a
    gpuarr Stream speaks the CUDA stream protocol, and a CAI naming
    another stream is waited for through an event on that stream."""
    check(fake_lib, """
        import ctypes
        from gpuarr import _interop
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        def versioned(cap):
            return ctypes.cast(get(cap, b"dltensor_versioned"),
                ctypes.POINTER(_interop.DLManagedTensorVersioned)).contents
        h = rand((5, 7), "f8")
        a = ga.to_gpu(h)
        assert a.__dlpack_device__() == (2, 0)
        cap = a.__dlpack__(max_version=(1, 0))
        m = versioned(cap)
        assert m.flags == 0 and m.dl_tensor.data == a.ptr
        b = ga.from_dlpack(cap)
        assert b.ptr == a.ptr
        same(b.get(), h)
        # a copy made for the consumer says so
        c0 = copies()
        cap = a.__dlpack__(max_version=(1, 0), copy=True)
        m = versioned(cap)
        assert m.flags == _interop.DLPACK_FLAG_BITMASK_IS_COPIED
        assert m.dl_tensor.data != a.ptr and copies() == c0 + 1
        same(ga.from_dlpack(cap).get(), h)
        # read-only: copied on import unless copy=False, which refuses
        cap = a[1:3].__dlpack__(max_version=(1, 0))
        versioned(cap).flags = _interop.DLPACK_FLAG_BITMASK_READ_ONLY
        r = ga.from_dlpack(cap)
        assert r.ptr != a.ptr + 56
        same(r.get(), h[1:3])
        # the host: numpy asks for dl_device=(1, 0) and gets a copy
        back = np.from_dlpack(a, device="cpu")
        same(np.asarray(back), h)
        # the pointer's device, and managed memory's own device type
        hm = drv.managed_empty((4,), np.float32)
        g = ga.GPUArray((4,), np.float32, gpudata=hm.__array_interface__["data"][0])
        assert g.__dlpack_device__() == (13, 0)
        assert versioned(g.__dlpack__(max_version=(1, 0))).dl_tensor.device.device_type == 13
        # the CUDA stream protocol, both ways
        s = drv.Stream()
        assert s.__cuda_stream__() == (0, s.handle)
        assert drv.stream_handle(s) == s.handle
        class Foreign:
            pass
        fo = Foreign()
        cai = dict(a.__cuda_array_interface__)
        cai["stream"] = s.handle
        fo.__cuda_array_interface__ = cai
        w = ga.asarray(fo)
        assert w.ptr == a.ptr
        same(w.get(), h)
        del hm, g
    """)


# ---------------------------------------------------------------------------
# the memory pool


def test_default_pool_without_memory_pools_is_binned(fake_lib):
    """The fake reports MEMORY_POOLS_SUPPORTED = 0: the default pool is the
    binned one; GPUARR_POOL=async then fails clearly, a bad value is
    refused.  The pool binding and StreamOrderedMemoryPool still run on
    the fake's default pool (which frees asynchronous memory at once)."""
    check(fake_lib, """
        from gpuarr import _config, tools
        assert type(default_pool()) is tools.DeviceMemoryPool
        _config.settings.pool = "binned"
        ctx = drv.Context.get_current()
        assert type(tools._new_pool(ctx)) is tools.DeviceMemoryPool
        _config.settings.pool = _config.read({"GPUARR_POOL": " Async "}).pool
        try:
            tools._new_pool(ctx)
        except drv.NotSupportedError as e:
            assert "no memory pools" in str(e)
        else:
            raise AssertionError("GPUARR_POOL=async accepted without pools")
        _config.settings.pool = _config.read({"GPUARR_POOL": "fast"}).pool
        try:
            tools._new_pool(ctx)
        except ValueError as e:
            assert "GPUARR_POOL" in str(e)
        else:
            raise AssertionError("bad GPUARR_POOL accepted")
        _config.settings.pool = "auto"

        A = drv.mem_pool_attribute
        mp = drv.Context.get_device().get_default_mem_pool()
        assert isinstance(mp, drv.MemoryPool) and mp.handle != 0
        try:
            drv.MemoryPool("device 0")
        except TypeError:
            pass
        else:
            raise AssertionError("MemoryPool('device 0') constructed")
        created = drv.MemoryPool()               # cuMemPoolCreate
        assert created != mp and "created" in repr(created)
        p = tools.StreamOrderedMemoryPool()
        assert p.mem_pool.handle == mp.handle
        assert mp.get_attribute(A.RELEASE_THRESHOLD) == 2 ** 64 - 1
        mp.set_attribute(A.REUSE_ALLOW_OPPORTUNISTIC, 0)
        assert mp.get_attribute(A.REUSE_ALLOW_OPPORTUNISTIC) == 0
        mp.set_attribute(A.REUSE_ALLOW_OPPORTUNISTIC, 1)
        live0 = live()
        x = ga.GPUArray((1000,), np.float64, allocator=p)
        assert p.active_blocks == 1 and live() == live0 + 1
        h = rand(1000, "f8")
        x.set(h)
        same(x.get(), h)
        assert mp.get_attribute(A.USED_MEM_CURRENT) >= 8000
        assert p.held_bytes == 0
        ptr = x.ptr
        del x
        gc.collect()
        # a small block is kept for the next request of its size and stream
        assert p.active_blocks == 0 and live() == live0 + 1
        assert p.held_bytes == 8000
        x = p.allocate(8000)
        assert x.ptr == ptr and live() == live0 + 1 and p.held_bytes == 0
        s = drv.Stream()
        y = p.allocate(8000, stream=s)      # another stream: a new block
        assert y.ptr != ptr and live() == live0 + 2
        y.free()
        y.free()
        z = p.allocate(8000)                # not the block freed on s
        assert z.ptr != y.ptr and live() == live0 + 3
        del x, z
        gc.collect()
        assert p.active_blocks == 0 and p.held_bytes == 3 * 8000
        big = p.allocate(2 << 20)           # over 1 MiB: straight back
        assert live() == live0 + 4
        del big
        gc.collect()
        assert live() == live0 + 3
        p.free_held()
        assert live() == live0 and p.held_bytes == 0
        # what the object keeps is bounded: past the limit, blocks go
        # straight back to the driver (each stream's kept blocks keep the
        # stream alive, so an unbounded cache would also keep streams)
        tools._SMALL_CACHE_LIMIT, limit = 16000, tools._SMALL_CACHE_LIMIT
        blocks = [p.allocate(8000, stream=drv.Stream()) for _ in range(3)]
        assert live() == live0 + 3
        del blocks
        gc.collect()
        assert p.held_bytes == 16000 and live() == live0 + 2
        tools._SMALL_CACHE_LIMIT = limit
        p.free_held()
        assert live() == live0 and p.held_bytes == 0
        p.stop_holding()
        assert mp.get_attribute(A.RELEASE_THRESHOLD) == 0
        w = p.allocate(100)
        del w
        gc.collect()
        assert live() == live0
    """)


def test_pool_reuses_blocks_and_free_held_returns_them(fake_lib):
    check(fake_lib, """
        pool = default_pool()
        free0, total = drv.mem_get_info()
        live0 = live()
        a = ga.to_gpu(rand(1000, "f8"))
        assert live() == live0 + 1 and pool.active_blocks == 1
        ptr = a.ptr
        held = pool.held_blocks
        del a
        gc.collect()
        assert pool.held_blocks == held + 1 and pool.active_blocks == 0
        assert live() == live0 + 1          # kept by the pool
        b = ga.zeros(990, np.float64)       # same bin: the same block
        assert b.ptr == ptr and pool.held_blocks == held and live() == live0 + 1
        del b
        gc.collect()
        f0 = fk["mem_free_calls"]
        pool.free_held()
        assert pool.held_blocks == 0 and live() == live0
        assert fk["mem_free_calls"] == f0 + 1
        assert drv.mem_get_info() == (free0, total)
        # many allocate/free cycles of mixed sizes: memory does not grow
        sizes = [0, 1, 7, 100, 513, 4096, 10001, 65536 + 3]
        for i in range(300):
            n = sizes[i % len(sizes)]
            x = ga.to_gpu(rand(n, "u1"))
            y = ga.empty((n, 2), np.float32)
            z = x[1:].copy() if n > 1 else x
            del x, y, z
        gc.collect()
        assert pool.active_blocks == 0
        assert live() - live0 <= 3 * len(sizes), live() - live0
        pool.free_held()
        assert live() == live0 and drv.mem_get_info() == (free0, total)
        # stop_holding: blocks go straight back to the driver
        pool.stop_holding()
        a = ga.zeros(100)
        assert live() == live0 + 1
        del a
        gc.collect()
        assert live() == live0 and pool.held_blocks == 0
        # an allocator bypassing the pool frees on death
        a = ga.to_gpu(rand(10, "f4"), allocator=drv.mem_alloc)
        assert live() == live0 + 1
        del a
        gc.collect()
        assert live() == live0
    """)


# ---------------------------------------------------------------------------
# host-side errors come before any driver copy


def test_host_side_errors_before_any_copy(fake_lib):
    check(fake_lib, """
        h = np.arange(10, dtype=np.uint8)
        a = ga.to_gpu(h)
        i = ga.to_gpu(np.arange(6, dtype=np.int32))
        bad = [
            (lambda: a.__setitem__(slice(None), [300]), OverflowError),
            (lambda: a.__setitem__(slice(None), 300), OverflowError),
            (lambda: a.__setitem__(slice(0, 3), [1, 2, -1]), OverflowError),
            (lambda: a.__setitem__(4, 256), OverflowError),
            (lambda: a.fill(-1), OverflowError),
            (lambda: a.set([300] * 10), OverflowError),
            (lambda: a.set(np.zeros(9)), ValueError),
            (lambda: i.__setitem__(slice(None), [np.nan] * 6), ValueError),
            (lambda: i.fill(np.nan), ValueError),
            (lambda: i.__setitem__(slice(None), "abc"), ValueError),
            (lambda: a[::2].__setitem__(0, 1000), OverflowError),
            (lambda: ga.full(4, 300, np.uint8), OverflowError),
            (lambda: ga.full(4, np.inf, np.int16), OverflowError),
            (lambda: a.get(ary=np.zeros(10, np.int8)), ValueError),
            (lambda: ga.to_gpu(np.array(["x"])), TypeError),
            (lambda: ga.to_gpu(np.array([None, 1])), TypeError),
            (lambda: ga.zeros(3, np.float128 if hasattr(np, "float128") else object), TypeError),
            (lambda: ga.empty(-1), ValueError),
            (lambda: a[10], IndexError),
            (lambda: a[[True, False]], IndexError),
            (lambda: a[[1, 2], 0], IndexError),
            (lambda: a.__setitem__([1, 2], [1, 2, 3]), ValueError),
        ]
        pool = default_pool()
        for k, (f, exc) in enumerate(bad):
            c0, active = copies(), pool.active_blocks
            try:
                f()
            except exc:
                pass
            else:
                raise AssertionError("case %d did not raise %s" % (k, exc.__name__))
            assert copies() == c0, (k, CALLS)
            gc.collect()
            assert pool.active_blocks == active, k    # nothing leaked
        same(a.get(), h)
        same(i.get(), np.arange(6, dtype=np.int32))
        # numpy agrees on the Python-value range checks
        for f in (lambda: np.uint8(300), lambda: np.asarray([300], dtype=np.uint8)):
            try:
                f()
            except OverflowError:
                pass
            else:
                raise AssertionError("numpy accepted 300 for uint8")
        # arrays are cast unsafely, as numpy's setitem does: no error
        a[:1] = np.array([300])
        h[:1] = np.array([300])
        same(a.get(), h)
    """)


def test_broadcast_error_raised_before_any_copy(fake_lib):
    check(fake_lib, """
        a = ga.to_gpu(np.arange(10, dtype=np.float32))
        c0 = copies()
        try:
            a[0:2] = np.zeros(3)
        except ValueError as e:
            assert "could not broadcast input array from shape (3,) into shape (2,)" in str(e)
        else:
            raise AssertionError("no ValueError")
        same(a.get(), np.arange(10, dtype=np.float32))
        assert copies() == c0 + 1, CALLS     # only the get above
    """)


def test_set_error_message_for_nd_shapes_is_numpys(fake_lib):
    check(fake_lib, """
        a = ga.zeros((2, 3))
        want = np.zeros((2, 3))
        for bad in (np.zeros((3, 4)), np.zeros(7)):
            try:
                want[...] = bad
            except ValueError as e:
                msg = str(e)
            try:
                a.set(bad)
            except ValueError as e:
                assert str(e) == msg, (str(e), msg)
            else:
                raise AssertionError("no ValueError")
    """)


def test_equality_with_objects_that_are_not_arrays(fake_lib):
    """numpy compares an array with None, a string or any object
    elementwise, every element unequal: a bool array of the array's shape
    (filled by a memset here: no kernel runs, as the epilogue checks)."""
    check(fake_lib, """
        for h in (rand((3, 5), "f4"), rand((7,), "i8"), np.zeros((2, 0)),
                  np.asarray(rand((), "c8"))):
            a = ga.to_gpu(h)
            for other in (None, "text", object()):
                for got, want in ((a == other, h == other), (a != other, h != other),
                                  (other == a, other == h)):
                    want = np.asarray(want)
                    assert type(got) is ga.GPUArray and got.dtype == np.bool_
                    assert got.shape == h.shape, (got.shape, h.shape)
                    same(got.get(), want)
    """)


def test_per_stream_buffers_are_bounded_and_wait_for_their_stream(fake_lib):
    """Reduction workspaces and scan scratch buffers are cached per stream;
    past their limits the least recently used are dropped (their streams
    released), each only after its stream was synchronized, and the
    default stream's reduction workspace, whose pointers launch entries
    keep, stays."""
    check(fake_lib, """
        from gpuarr import reduction as R, scan as S
        live_s, live_a = fk["live_streams"], fk["live_allocations"]
        st = R.state()
        p0 = R._workspace(st, None)
        streams = [drv.Stream() for _ in range(R._MAX_STREAM_WS + 4)]
        syncs = fk["stream_syncs"]
        for s in streams:
            R._workspace(st, s)
        assert fk["stream_syncs"] == syncs + 4       # one per eviction
        assert list(st.ws) == [0] + [s.handle for s in streams[4:]]
        assert R._workspace(st, None) == p0
        # re-using a cached stream's workspace moves it to the recent end
        R._workspace(st, streams[4])
        assert list(st.ws)[-1] == streams[4].handle
        del s, streams
        gc.collect()
        # the four evicted streams are destroyed, the cached ones live on
        assert fk["live_streams"] == live_s + R._MAX_STREAM_WS
        assert fk["live_allocations"] == live_a + R._MAX_STREAM_WS + 1
        # scan scratch: at most _MAX_SCRATCH streams; a buffer outgrown on
        # its stream is replaced after that stream is synchronized
        kernels, scratches = S._state()
        live_a = fk["live_allocations"]
        streams = [drv.Stream() for _ in range(S._MAX_SCRATCH + 3)]
        syncs = fk["stream_syncs"]
        for s in streams:
            S._scratch(scratches, s, 100)
        assert fk["stream_syncs"] == syncs + 3
        assert len(scratches) == S._MAX_SCRATCH
        assert fk["live_allocations"] == live_a + S._MAX_SCRATCH
        small = int(S._scratch(scratches, streams[-1], 100))
        big = S._scratch(scratches, streams[-1], 1 << 20)
        assert int(big) != small and fk["stream_syncs"] == syncs + 4
        assert fk["live_allocations"] == live_a + S._MAX_SCRATCH
    """)


def test_assign_on_a_stream_waits_only_for_its_temporaries(fake_lib):
    """The pool does not track streams: an assignment on a stream that had
    to copy its source first (here: a source overlapping the destination)
    waits for the stream before that copy is dropped; one that made no
    temporary does not wait."""
    check(fake_lib, """
        from gpuarr import _transfer
        s = drv.Stream()
        h = rand((64,), "f4")
        a = ga.to_gpu(h)
        b = ga.to_gpu(h[::-1].copy())
        def syncs(fn):
            before = fk["stream_syncs"]
            fn()
            return fk["stream_syncs"] - before
        assert syncs(lambda: _transfer.assign(a[:8], b[:8], stream=s)) == 0
        assert syncs(lambda: _transfer.assign(a[8:16], h[:8], stream=s)) == 0
        assert syncs(lambda: _transfer.assign(a[1:], a[:-1], stream=s)) == 1
        assert syncs(lambda: _transfer.assign(a[1:], a[:-1])) == 0  # no stream
        s.synchronize()
        want = h.copy()
        want[:8] = h[::-1][:8]
        want[8:16] = h[:8]
        want[1:] = want[:-1].copy()
        want[1:] = want[:-1].copy()
        same(a.get(), want)
    """)
