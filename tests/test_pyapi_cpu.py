"""CPU tests of PyCUDA's ``gpuarray`` reductions, conditionals and methods
(``gpuarr._pyreduce``, ``gpuarr._pymethods``) and of cumath's frexp, modf
and ldexp: signatures, the gathering reduction kernels rendered and
compiled under NVRTC, and (on the fake libcuda) every argument check that
must raise before anything is launched.  The GPU results are in
tests/test_pyapi_gpu.py."""
import inspect
import textwrap

import numpy as np
import pytest

from _util import FakeArray, batch_sources as _batch, kernel_compiler, run_fake_scenario

import gpuarr.gpuarray as ga
from gpuarr import _dtypes, _pymethods, _pyreduce, cumath
from gpuarr import reduction as R

COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")
INDEX_DTS = [np.dtype(t) for t in ("i1", "u1", "i2", "u2", "i4", "u4", "i8",
                                   "u8")]
DTYPES = [np.dtype(t) for t in _dtypes.SUPPORTED]


# ---------------------------------------------------------------------------
# names and signatures


def _params(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def test_gpuarray_has_pycudas_names_in_pycudas_order():
    want = {
        "sum": ["a", "dtype", "stream", "allocator"],
        "dot": ["a", "b", "dtype", "stream", "allocator"],
        "vdot": ["a", "b", "dtype", "stream", "allocator"],
        "min": ["a", "stream"], "max": ["a", "stream"],
        "all": ["a", "stream", "allocator"],
        "any": ["a", "stream", "allocator"],
        "subset_sum": ["subset", "a", "dtype", "stream", "allocator"],
        "subset_dot": ["subset", "a", "b", "dtype", "stream", "allocator"],
        "subset_min": ["subset", "a", "stream"],
        "subset_max": ["subset", "a", "stream"],
        "if_positive": ["criterion", "then_", "else_", "out", "stream"],
        "splay": ["n", "dev"],
    }
    for name, params in want.items():
        assert name in ga.__all__, name
        assert _params(getattr(ga, name)) == params, name
    # numpy's names for the ufunc-like ones, PyCUDA's order
    assert _params(ga.minimum) == ["x1", "x2", "out", "stream"]
    assert _params(ga.maximum) == ["x1", "x2", "out", "stream"]
    assert _params(ga.where)[3:] == ["out", "stream"]
    for name in ("minimum", "maximum", "where", "if_positive"):
        assert name in ga.__all__
        assert getattr(ga, name) is getattr(cumath, name)
    # numpy's keywords, keyword-only
    for name in ("sum", "min", "max", "all", "any"):
        kw = inspect.signature(getattr(ga, name)).parameters
        for k in ("axis", "out", "keepdims"):
            assert kw[k].kind is inspect.Parameter.KEYWORD_ONLY, (name, k)
    for name in ("subset_sum", "subset_dot", "subset_min", "subset_max"):
        assert inspect.signature(getattr(ga, name)).parameters["mode"].default \
            == "raise"
    # the flat namespace keeps numpy's signatures
    import gpuarr
    assert _params(gpuarr.sum)[:3] == ["a", "axis", "dtype"]
    assert gpuarr.sum is not ga.sum
    assert gpuarr.frexp is cumath.frexp and gpuarr.modf is cumath.modf
    assert gpuarr.ldexp is cumath.ldexp


def test_method_signatures():
    assert _params(_pymethods.reverse) == ["a", "stream"]
    assert _params(_pymethods.mul_add) == ["a", "selffac", "other",
                                           "otherfac", "add_timer", "stream",
                                           "out"]
    assert _params(_pymethods.bind_to_texref) == ["a", "texref",
                                                  "allow_offset"]
    assert _params(_pymethods.bind_to_texref_ext) == [
        "a", "texref", "channels", "allow_double_hack", "allow_complex_hack",
        "allow_offset"]
    assert _params(_pymethods.new_like_me) == ["a", "dtype", "order"]
    kw = inspect.signature(_pyreduce.method_any).parameters
    assert kw["stream"].kind is inspect.Parameter.KEYWORD_ONLY
    assert kw["allocator"].kind is inspect.Parameter.KEYWORD_ONLY
    for name in ("reverse", "mul_add", "bind_to_texref",
                 "bind_to_texref_ext", "_new_like_me", "any", "all"):
        assert callable(getattr(ga.GPUArray, name)), name
    assert isinstance(ga.GPUArray._grid, property)
    assert isinstance(ga.GPUArray._block, property)


def test_transpose_takes_pycudas_axes_keyword():
    a = ga.GPUArray((2, 3, 4), np.float32, gpudata=1 << 24)
    for kw in ({"axes": (2, 0, 1)}, {"axes": [2, 0, 1]}):
        t = a.transpose(**kw)
        assert t.shape == (4, 2, 3) and t.strides == (4, 48, 16)
        assert t.ptr == a.ptr
    assert a.transpose(2, 0, 1).shape == a.transpose((2, 0, 1)).shape \
        == (4, 2, 3)
    assert a.transpose(axes=None).shape == (4, 3, 2) == a.T.shape
    assert a.transpose(axes=(-1, 0, 1)).shape == (4, 2, 3)
    assert ga.transpose(a, axes=(1, 0, 2)).shape == (3, 2, 4)
    with pytest.raises(TypeError):
        a.transpose(0, 1, 2, axes=(0, 1, 2))
    with pytest.raises(TypeError):
        a.transpose(perm=(0, 1, 2))
    with pytest.raises(ValueError):
        a.transpose(axes=(0, 1))
    with pytest.raises(ValueError):
        a.transpose(axes=(0, 0, 1))
    with pytest.raises(np.exceptions.AxisError):
        a.transpose(axes=(0, 1, 3))


def test_bind_to_texref_names_texture_objects():
    import gpuarr.driver as drv
    a = ga.GPUArray((8,), np.float32, gpudata=1 << 24)
    for call in (lambda: a.bind_to_texref(object()),
                 lambda: a.bind_to_texref(object(), allow_offset=True),
                 lambda: a.bind_to_texref_ext(object(), channels=2,
                                              allow_double_hack=True)):
        with pytest.raises(drv.NotSupportedError) as ei:
            call()
        assert isinstance(ei.value, RuntimeError)
        msg = str(ei.value)
        assert "CUDA 12" in msg and "texture object" in msg


# ---------------------------------------------------------------------------
# the gathering reductions' kernels


def _subset_spec(op, sdt, gdts, ct=None, mode="raise", n=4099,
                 sub_strides=None, gstride=1):
    sub = FakeArray(sdt, (n,), sub_strides)
    gs = [FakeArray(d, (77,), (gstride * np.dtype(d).itemsize,))
          for d in gdts]
    if ct is None:
        if op == "subset_sum":
            ct = np.sum(np.zeros(1, gdts[0])).dtype
        elif op == "subset_dot":
            ct = np.result_type(*gdts)
        else:
            ct = np.dtype(gdts[0])
    ct = np.dtype(ct)
    return R.reduce_spec(op, [sub], FakeArray(ct, ()), (0,), ct, None, 132,
                         gathers=gs, index_mode=mode)


def _subset_specs():
    specs = []
    modes = R.INDEX_MODES
    k = 0
    for op in R.SUBSET_OPS:
        for dt in DTYPES:
            if op in ("subset_min", "subset_max") or op == "subset_sum":
                gd = [dt]
            else:
                gd = [dt, DTYPES[(DTYPES.index(dt) + 5) % len(DTYPES)]]
            sdt = INDEX_DTS[k % len(INDEX_DTS)]
            specs.append(_subset_spec(op, sdt, gd, mode=modes[k % 3],
                                      gstride=(-3 if k % 2 else 1)))
            k += 1
    # every index dtype in every mode, contiguous (vector loads) and
    # strided subsets, a split launch
    for sdt in INDEX_DTS:
        for mode in modes:
            specs.append(_subset_spec("subset_dot", sdt, ["f4", "f8"],
                                      mode=mode))
        specs.append(_subset_spec("subset_sum", sdt, ["i4"], mode="wrap",
                                  sub_strides=(-2 * sdt.itemsize,)))
    specs.append(_subset_spec("subset_sum", "i8", ["f2"], n=1 << 24))
    # a 0-d subset: no reduced axis
    specs.append(R.reduce_spec(
        "subset_max", [FakeArray("i2", ())], FakeArray("f4", ()), (),
        np.dtype("f4"), None, 132, gathers=[FakeArray("f4", (9,), (-4,))],
        index_mode="raise"))
    # dtype= other than the default: bool sums, float16 accumulators
    specs.append(_subset_spec("subset_sum", "i4", ["f4"], ct="?"))
    specs.append(_subset_spec("subset_dot", "i4", ["f2", "f2"], ct="f2"))
    specs.append(_subset_spec("subset_dot", "i4", ["i1", "i1"], ct="i4"))
    return specs


def test_subset_specs_render_each_index_rule():
    src = _subset_spec("subset_sum", "i4", ["f4"], mode="raise").source()
    assert "x0 < 0 ? (long long)x0 + ga_gn0" in src
    assert "ga_g0[ga_j0 * ga_gs0]" in src
    src = _subset_spec("subset_sum", "u4", ["f4"], mode="raise").source()
    assert "x0 < 0" not in src and "const long long ga_j0 = (long long)x0;" \
        in src
    src = _subset_spec("subset_dot", "i8", ["f4", "f8"], mode="wrap").source()
    assert "% ga_gn0" in src and "% ga_gn1" in src
    assert "const double *__restrict__ ga_g1" in src
    src = _subset_spec("subset_min", "u8", ["f4"], mode="clip").source()
    assert "(unsigned long long)x0 >= (unsigned long long)ga_gn0" in src
    sp = _subset_spec("subset_dot", "i4", ["f4", "f4"], gstride=-3)
    # the gathered arrays' element strides and lengths trail, 64-bit
    assert sp.chars.endswith("qqqq") and sp.tail[-4:] == (-3, 77, -3, 77)
    assert sp.chars.startswith("PPPP")      # out, subset, a, b
    assert _subset_spec("subset_sum", "i4", ["f4"]).kkey != \
        _subset_spec("subset_sum", "i4", ["f4"], mode="wrap").kkey
    # complex128 gathered through int16 indices: the types, numpy's
    # lexicographic max with NaN first and its identity (-inf, -inf)
    sp = _subset_spec("subset_max", "i2", ["c16"])
    src = sp.source()
    assert "const ga_complex<double> *__restrict__ ga_g0" in src
    assert "short x0" in src
    assert "ga_complex<double>(ga_ninf_d(), ga_ninf_d())" in src
    assert "if (ga_isnan_r(a)) return a; if (ga_isnan_r(b)) return b;" in src
    assert sp.tail[-2:] == (1, 77)          # element stride, length
    # the source and key depend on dtypes, layout class and mode, not on
    # where the arrays are (one compiled kernel for every address)
    def at(base):
        return R.reduce_spec(
            "subset_max", [FakeArray("i2", (4099,), ptr=base)],
            FakeArray("c16", (), ptr=base + 4096), (0,), np.dtype("c16"),
            None, 132, gathers=[FakeArray("c16", (77,), ptr=base + 8192)],
            index_mode="raise")
    one, other = at(1 << 24), at(7 << 32)
    assert one.source() == other.source() and one.kkey == other.kkey
    assert src == one.source()


def test_subset_spec_refuses_wrong_gathers():
    sub = FakeArray("i4", (10,))
    out = FakeArray("f4", ())
    f4 = np.dtype("f4")
    g = FakeArray("f4", (5,))
    for op, gathers, mode in (("subset_sum", (), "raise"),
                              ("subset_sum", (g, g), "raise"),
                              ("subset_dot", (g,), "raise"),
                              ("subset_sum", (g,), "bogus"),
                              ("subset_sum", (g,), None),
                              ("sum", (g,), "raise")):
        with pytest.raises(ValueError):
            R.reduce_spec(op, [sub], out, (0,), f4, None, 132,
                          gathers=gathers, index_mode=mode)


@needs_compiler
def test_subset_kernels_compile():
    specs = _subset_specs()
    assert len(specs) > 60
    half = len(specs) // 2
    COMPILE(_batch(specs[:half]))
    COMPILE(_batch(specs[half:]))


# ---------------------------------------------------------------------------
# on the fake libcuda: checks before any launch

PRELUDE = """\
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
import gpuarr.gpuarray as ga
import gpuarr.cumath as cm
from fakecuda import Fake
fk = Fake()

def raises(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        return str(e)
    raise AssertionError("%s did not raise %s" % (fn, exc))

DTYPES = [np.dtype(t) for t in ("?", "i1", "u1", "i2", "u2", "i4", "u4", "i8",
                                "u8", "f2", "f4", "f8", "c8", "c16")]
"""

EPILOGUE = """
assert fk["errors"] == 0, ("the fake saw a failing call", fk.last_error())
assert fk["launches"] == 0 and fk["module_loads"] == 0
print('DONE')
"""


def check(lib, code):
    """Run a scenario in a fresh interpreter on the fake libcuda; it passes
    when it exits 0 having printed DONE (and launched nothing)."""
    run_fake_scenario(lib, PRELUDE + textwrap.dedent(code) + EPILOGUE)


def test_subset_argument_checks_before_any_launch(fake_lib):
    check(fake_lib, """
        a = ga.to_gpu(np.arange(10.0))
        b = ga.to_gpu(np.arange(4.0))
        s = ga.to_gpu(np.array([1, 2, 3], np.int32))
        for f, args in ((ga.subset_sum, (a,)), (ga.subset_dot, (a, b)),
                        (ga.subset_min, (a,)), (ga.subset_max, (a,))):
            raises(TypeError, f, ga.to_gpu(np.array([True, False])), *args)
            m = raises(IndexError, f, ga.to_gpu(np.array([1.0])), *args)
            assert "integer" in m
            raises(ValueError, f, s, *[ga.to_gpu(np.zeros((2, 5)))
                                       for _ in args])
            m = raises(ValueError, f, s, *args, mode="bogus")
            assert m == "clipmode must be one of 'clip', 'raise', or 'wrap' (got 'bogus')"
            # a non-empty subset of an empty array: numpy's messages
            e = [ga.to_gpu(np.zeros(0)) for _ in args]
            m = raises(IndexError, f, s, *e)
            assert m == "index 0 is out of bounds for axis 0 with size 0", m
            for mode in ("wrap", "clip"):
                m = raises(IndexError, f, s, *e, mode=mode)
                assert m == "cannot do a non-empty take from an empty axes."
        empty = ga.to_gpu(np.zeros(0, np.int64))
        m = raises(ValueError, ga.subset_min, empty, a)
        assert m == "zero-size array to reduction operation minimum which has no identity"
        m = raises(ValueError, ga.subset_max, empty.reshape(0, 3), a)
        assert "maximum" in m
    """)


def test_empty_subsets_give_numpys_zero_and_dtype(fake_lib):
    check(fake_lib, """
        s = ga.to_gpu(np.zeros((0,), np.int32))
        s2 = ga.to_gpu(np.zeros((2, 0), np.uint8))
        for dt in DTYPES:
            h = np.arange(5).astype(dt)
            a = ga.to_gpu(h)
            for sub in (s, s2):
                r = ga.subset_sum(sub, a)
                want = np.sum(h[sub.get().astype(np.intp)])
                assert r.shape == () and r.dtype == want.dtype, (dt, r.dtype)
                assert r.get() == want
                for dt2 in (np.dtype("f4"), np.dtype("i2"), np.dtype("c8")):
                    h2 = np.arange(7).astype(dt2)
                    r = ga.subset_dot(sub, a, ga.to_gpu(h2))
                    want = np.dot(h[[]], h2[[]])
                    assert r.dtype == want.dtype and r.get() == want, (dt, dt2)
            r = ga.subset_sum(s, a, dtype=np.float16)
            assert r.dtype == np.float16 and r.get() == 0
            r = ga.subset_dot(s, a, a, dtype=np.int8)
            assert r.dtype == np.int8 and r.get() == 0
        # the allocator makes the result
        used = []
        def alloc(n):
            used.append(n)
            return drv.mem_alloc(n)
        r = ga.subset_sum(s, ga.to_gpu(np.arange(3.0)), allocator=alloc)
        assert used == [8] and r.get() == 0.0
    """)


def test_reductions_argument_checks_and_empty_answers(fake_lib):
    check(fake_lib, """
        st = drv.Stream()
        a = ga.to_gpu(np.ones((3, 4), np.float32))
        v = ga.to_gpu(np.ones(5, np.float32))
        raises(ValueError, ga.dot, a, v)
        raises(ValueError, ga.dot, a, v, stream=st)
        m = raises(NotImplementedError, ga.dot, a, a, np.float64)
        assert "vdot" in m
        raises(ValueError, ga.vdot, a, v)
        raises(ValueError, ga.vdot, a, v, np.float64, st)
        raises(ValueError, ga.dot, v, v, out=ga.zeros((), np.float64))
        raises(TypeError, ga.dot, v, v, out=np.zeros(()))
        # empty inputs: numpy's answers and errors, nothing launched
        e = ga.to_gpu(np.zeros((0, 3), np.int32))
        for kw in ({"stream": st}, {"allocator": drv.mem_alloc}):
            r = ga.sum(e, **kw)
            assert r.dtype == np.int64 and r.shape == () and r.get() == 0
            r = ga.sum(e, np.float16, **kw)
            assert r.dtype == np.float16
            r = ga.sum(e, axis=1, keepdims=True, **kw)
            assert r.shape == (0, 1) and r.dtype == np.int64
            assert ga.any(e, **kw).get() == False
            assert ga.all(e, **kw).get() == True
            assert e.any(**kw).get() == False and e.all(**kw).get() == True
        m = raises(ValueError, ga.max, e, st)
        assert "maximum which has no identity" in m
        raises(ValueError, ga.min, e, stream=st)
        r = ga.max(e, st, axis=1)
        assert r.shape == (0,) and r.dtype == np.int32
        raises(ValueError, ga.max, e, st, axis=0)
        r = ga.dot(ga.to_gpu(np.zeros((2, 0), np.int8)),
                   ga.to_gpu(np.zeros(0, np.int8)), np.int32, st)
        assert r.shape == (2,) and r.dtype == np.int32
        r = ga.vdot(ga.to_gpu(np.zeros(0, np.complex64)),
                    ga.to_gpu(np.zeros((0, 2), np.float64)), allocator=drv.mem_alloc)
        assert r.dtype == np.complex128 and r.shape == ()
        raises(NotImplementedError, e.any, where=False, stream=st)
        st.synchronize()
    """)


def test_frexp_modf_ldexp_checks_before_any_launch(fake_lib):
    check(fake_lib, """
        x = ga.to_gpu(np.linspace(-3, 3, 12).astype(np.float32).reshape(3, 4))
        m = raises(ValueError, cm.frexp, x, out=(ga.empty((3, 4), np.float32),))
        assert m == "The 'out' tuple must have exactly one entry per ufunc output"
        raises(ValueError, cm.frexp, x, out=ga.empty((3, 4), np.float32))
        raises(TypeError, cm.frexp, x, out=(ga.empty((3, 4), np.int32), None))
        raises(TypeError, cm.modf, x, out=(None, ga.empty((3, 4), np.int64)))
        raises(ValueError, cm.modf, x, out=(ga.empty((4, 3), np.float32), None))
        raises(TypeError, cm.modf, x, out=(np.empty((3, 4), np.float32), None))
        for bad in (np.complex64, np.complex128):
            raises(TypeError, cm.frexp, ga.zeros(3, bad))
            raises(TypeError, cm.modf, ga.zeros(3, bad))
        raises(TypeError, cm.ldexp, x, x)                      # float exponent
        raises(TypeError, cm.ldexp, x, ga.zeros((3, 4), np.uint64))
        raises(TypeError, cm.ldexp, ga.zeros(3, np.complex64), 2)
        raises(OverflowError, cm.ldexp, x, 2 ** 40)            # numpy's int32 loop
        raises(ValueError, cm.ldexp, x, ga.zeros(5, np.int32))
        # empty arrays: numpy's dtypes, nothing launched
        e = ga.zeros((0, 2), np.int16)
        m, p = cm.frexp(e)
        assert m.dtype == np.float32 and p.dtype == np.int32 and m.shape == (0, 2)
        f, w = cm.modf(ga.zeros(0, np.uint8))
        assert f.dtype == w.dtype == np.float16
        r = cm.ldexp(ga.zeros(0, np.float16), ga.zeros(0, np.int64))
        assert r.dtype == np.float16
        r = cm.ldexp(ga.zeros(0, np.int32), 3)
        assert r.dtype == np.float64
        o1, o2 = ga.empty(0, np.float64), ga.empty(0, np.int8)
        r = cm.frexp(ga.zeros(0, np.float32), out=(o1, o2))
        assert r[0] is o1 and r[1] is o2
    """)


def test_methods_on_the_fake(fake_lib):
    check(fake_lib, """
        st = drv.Stream()
        h = np.arange(12, dtype=np.float32).reshape(3, 4)
        a = ga.to_gpu(h)
        # PyCUDA's positional stream: copy(stream), astype(dtype, stream)
        c = a.copy(st)
        st.synchronize()
        assert np.array_equal(c.get(), h) and c.flags.c_contiguous
        c = a.astype(np.float32, st)
        st.synchronize()
        assert np.array_equal(c.get(), h)
        # _new_like_me: shape, dtype, order, allocator
        for dt in (None, np.float64, np.int8):
            n = a._new_like_me(dt)
            assert n.shape == a.shape and n.dtype == (dt or a.dtype)
            assert n.flags.c_contiguous
        f = ga.to_gpu(np.asfortranarray(h))
        assert f._new_like_me().flags.f_contiguous
        assert f._new_like_me(np.float64).flags.c_contiguous
        assert f._new_like_me(order="F").flags.f_contiguous
        used = []
        def alloc(n):
            used.append(n)
            return drv.mem_alloc(n)
        g = ga.GPUArray((5,), np.float32, allocator=alloc)
        g._new_like_me(np.float64)
        assert used == [20, 40]
        # splay and _grid/_block through the driver's attributes: the fake
        # device has 132 SMs of 32 blocks, a cap of 4 * 32 * 132 = 16896
        # blocks; 32-thread blocks up to 16896 * 32 elements, then wider
        # blocks (ceil(n / 32 / 16896) warps, at most 4)
        want = {0: (1, 32), 1: (1, 32), 31: (1, 32), 32: (1, 32),
                33: (2, 32), 1000: (32, 32), 540672: (16896, 32),
                540673: (16896, 64), 10 ** 6: (16896, 64),
                2000000: (16896, 128), 10 ** 9: (16896, 128)}
        for n, (blocks, threads) in want.items():
            assert ga.splay(n) == ((blocks, 1), (threads, 1, 1)), (n, ga.splay(n))
        assert ga.splay(10 ** 6, drv.Context.get_device()) == ((16896, 1), (64, 1, 1))
        assert a.size == 12 and a._grid == (1, 1) and a._block == (32, 1, 1)
        b = ga.GPUArray((1000, 1000), np.int8)
        assert b._grid == (16896, 1) and b._block == (64, 1, 1)
        st.synchronize()
    """)


class _SplayDevice:
    """Enough of a Device for splay: the attributes DeviceData reads."""

    def __init__(self, sms, blocks_per_sm):
        from gpuarr._enums import device_attribute as a
        self.values = {a.MULTIPROCESSOR_COUNT: sms,
                       a.MAX_BLOCKS_PER_MULTIPROCESSOR: blocks_per_sm,
                       a.MAX_THREADS_PER_BLOCK: 1024, a.WARP_SIZE: 32,
                       a.MAX_THREADS_PER_MULTIPROCESSOR: 2048,
                       a.MAX_REGISTERS_PER_BLOCK: 65536,
                       a.MAX_SHARED_MEMORY_PER_BLOCK: 49152}

    def get_attribute(self, attr):
        return self.values[attr]


@pytest.mark.parametrize("n,grid,block", [
    # H200: 132 SMs, 32 blocks each -> a cap of 4 * 32 * 132 = 16896 blocks
    (0, 1, 32), (1, 1, 32), (32, 1, 32), (33, 2, 32),
    (16896 * 32, 16896, 32),              # one element a thread, at the cap
    (16896 * 32 + 1, 16896, 64),          # then wider blocks
    (16896 * 96, 16896, 96), (16896 * 96 + 1, 16896, 128),
    (16896 * 128, 16896, 128), (10 ** 9, 16896, 128),   # grid-stride
])
def test_splay_shape_on_an_h200(n, grid, block):
    dev = _SplayDevice(132, 32)
    got = _pymethods.splay(n, dev)
    assert got == ((grid, 1), (block, 1, 1))
    assert grid * block >= min(n, grid * 128)


def test_splay_follows_the_devices_blocks_per_sm():
    # PyCUDA's DeviceData says 8 blocks/SM: its 10-SM grid caps at 320
    assert _pymethods.splay(10 ** 6, _SplayDevice(10, 8)) == ((320, 1), (128, 1, 1))
    assert _pymethods.splay(320 * 32 + 1, _SplayDevice(10, 8)) == ((320, 1), (64, 1, 1))
    assert _pymethods.splay(10 ** 6, _SplayDevice(10, 16)) == ((640, 1), (128, 1, 1))
