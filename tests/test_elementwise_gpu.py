"""GPU tests of gpuarr.elementwise against numpy.

Fresh random inputs (never all zeros), outputs poisoned with 0xFF bytes
(bool outputs 0x5A, neither False nor True, and compared as bytes) first
so unwritten elements show; contiguous, sliced, negative-stride,
transposed, broadcast (0-stride), 0-d and empty operands.  Device arrays
are a tiny helper here (no GPUArray), so these test layer 4 alone.
"""
import warnings

import numpy as np
import pytest

from gpuarr import _dtypes, _layout

pytestmark = pytest.mark.gpu

DTYPES = _dtypes.SUPPORTED


class DevBase:
    """A device copy of a contiguous host array; views share its memory."""

    def __init__(self, host):
        import gpuarr.driver as drv
        host = np.asarray(host)
        # np.ascontiguousarray would turn a 0-d array into shape (1,)
        self.host = host if host.flags.c_contiguous else host.copy(order="C")
        self.alloc = drv.mem_alloc(max(self.host.nbytes, 1))
        if self.host.nbytes:
            drv.memcpy_htod(int(self.alloc), self.host)

    def poison(self):
        import gpuarr.driver as drv
        if self.host.nbytes:
            # numpy reads a 0xFF bool byte as True: bools get 0x5A, which
            # check() tells from 1 by comparing bytes
            byte = 0x5A if self.host.dtype == np.bool_ else 0xFF
            drv.memset_d8(int(self.alloc), byte, self.host.nbytes)

    def view(self, hview):
        """Device view laid out like ``hview``, a view of ``self.host``."""
        off = (hview.__array_interface__["data"][0]
               - self.host.__array_interface__["data"][0])
        return DevView(int(self.alloc) + off, hview.dtype, hview.shape,
                       hview.strides, self)

    def get(self):
        import gpuarr.driver as drv
        out = np.empty_like(self.host)
        if out.nbytes:
            drv.memcpy_dtoh(out, int(self.alloc))
        return out


class DevView:
    def __init__(self, ptr, dtype, shape, strides, base):
        self.ptr = ptr
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.base = base


def dev_out(dtype, shape):
    """A poisoned contiguous device output and its host twin."""
    h = np.empty(shape, dtype)
    b = DevBase(h)
    b.poison()
    return b, b.view(b.host)


def rand(dtype, shape, rng, op=None):
    """Random values of dtype, never all zero; domain suited to ``op``."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.random(n) < 0.5
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        if op in ("left_shift", "right_shift"):
            v = rng.integers(0, 8 * dt.itemsize + 3, n)
            v = v.astype(dt)
        elif op == "power":
            v = rng.integers(0, 6, n).astype(dt)
        else:
            lo, hi = int(info.min), int(info.max)
            if op in ("floor_divide", "remainder", "fmod", "reciprocal"):
                lo, hi = max(lo, -1000), min(hi, 1000)
            v = rng.integers(lo, hi, n, endpoint=True,
                             dtype=np.uint64 if dt == np.uint64 else np.int64)
            v = v.astype(dt)
            v[v == 0] = 3
    elif dt.kind == "f":
        v = (rng.standard_normal(n) * 3).astype(dt)
        v[v == 0] = 0.5
    else:
        v = (rng.standard_normal(n) * 2 + 1j * rng.standard_normal(n) * 2).astype(dt)
    return v.reshape(shape)


def tolerance(dt):
    dt = np.dtype(dt)
    if dt.kind in "biu":
        return 0
    if dt.itemsize == 2:
        return 2e-3
    if dt in (np.float32, np.complex64):
        return 4e-6
    return 1e-13


def check(got, exp, dt):
    tol = tolerance(dt)
    assert got.dtype == exp.dtype, (got.dtype, exp.dtype)
    if got.dtype == np.bool_:
        # as bytes: a garbage byte (the 0x5A poison) reads as True
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8),
                                      np.asarray(exp).astype(np.uint8))
    elif tol == 0:
        np.testing.assert_array_equal(got, exp)
    else:
        np.testing.assert_allclose(got.astype(np.complex128 if got.dtype.kind == "c" else np.float64),
                                   exp.astype(np.complex128 if exp.dtype.kind == "c" else np.float64),
                                   rtol=tol, atol=tol, equal_nan=True)


def numpy_ref(op, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            if op == "copy":
                return args[0].copy()
            if op == "where":
                return np.where(*args)
            if op == "if_positive":
                return np.where(args[0] > 0, args[1], args[2])
            if op == "angle":
                return np.angle(args[0])
            if op == "clip":
                return np.clip(*args)
            from gpuarr.kernels.ops import ALIASES
            return getattr(np, ALIASES.get(op, op))(*args)


def run_case(op, in_hosts, rng=None, out_dtype=None):
    """Run op on device copies of the (contiguous) host inputs; compare."""
    from gpuarr.elementwise import run_elementwise, resolve
    loop, outs = resolve(op, *in_hosts)
    exp = numpy_ref(op, *in_hosts)
    exp = np.asarray(exp)
    if out_dtype is not None:
        exp = exp.astype(out_dtype)
    shape = np.broadcast_shapes(*[np.shape(x) for x in in_hosts])
    ob, ov = dev_out(exp.dtype, shape)
    ins = []
    keep = []
    for x in in_hosts:
        if isinstance(x, np.ndarray):
            b = DevBase(x)
            keep.append(b)
            v = b.view(b.host)
            v.strides = _layout.broadcast_strides(x.shape, x.strides, shape)
            v.shape = shape
            ins.append(v)
        else:
            ins.append(x)
    run_elementwise(op, [ov], ins)
    check(ob.get(), exp, exp.dtype)


UNARY = ["negative", "positive", "absolute", "invert", "logical_not", "sin",
         "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
         "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log",
         "log2", "log10", "log1p", "sqrt", "cbrt", "square", "reciprocal",
         "fabs", "sign", "floor", "ceil", "trunc", "rint", "isnan", "isinf",
         "isfinite", "conjugate", "angle", "copy"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide",
          "remainder", "power", "bitwise_and", "bitwise_or", "bitwise_xor",
          "left_shift", "right_shift", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and",
          "logical_or", "logical_xor", "arctan2", "fmod", "hypot", "minimum",
          "maximum", "fmin", "fmax"]


def _supported(op, *dts):
    from gpuarr.elementwise import resolve
    try:
        resolve(op, *dts)
        return True
    except TypeError:
        return False


@pytest.mark.parametrize("op", UNARY)
def test_unary_every_dtype(context, op):
    rng = np.random.default_rng(abs(hash(op)) % 2 ** 32)
    for dt in DTYPES:
        if not _supported(op, dt):
            continue
        x = rand(dt, (1037,), rng, op)
        if dt.kind == "f" and op in ("isnan", "isinf", "isfinite", "sign",
                                     "absolute", "floor", "rint"):
            x[:3] = [np.nan, np.inf, -np.inf]
            if op in ("isnan", "isinf", "isfinite"):
                x[100::50] = np.nan     # specials spread over the blocks
                x[101::50] = np.inf
                x[102::50] = -np.inf
        if dt.kind == "c" and op in ("isnan", "isinf", "isfinite"):
            # either part NaN or infinite, the other finite
            x[:4] = [complex(np.nan, 1), complex(2, np.inf),
                     complex(-np.inf, 0), complex(-1, np.nan)]
            x[100::50] = complex(np.inf, -3)
        if op == "logical_not":
            x[::3] = 0                  # results of both values
        run_case(op, [x])


@pytest.mark.parametrize("op", BINARY)
def test_binary_every_dtype(context, op):
    rng = np.random.default_rng(abs(hash(op)) % 2 ** 32)
    for dt in DTYPES:
        if not _supported(op, dt, dt):
            continue
        a = rand(dt, (1037,), rng, op)
        b = rand(dt, (1037,), rng, op)
        if dt.kind == "f" and op in ("minimum", "maximum", "fmin", "fmax"):
            a[:2] = np.nan
            b[1:3] = np.nan
        if op in ("logical_and", "logical_or", "logical_xor"):
            a[::3] = 0                  # every combination of zero and not
            b[::2] = 0
        if op in ("equal", "not_equal", "less", "less_equal", "greater",
                  "greater_equal"):
            b[::4] = a[::4]             # ties: not all True or all False
        run_case(op, [a, b])


def test_ternary_ops(context):
    rng = np.random.default_rng(7)
    for dt in DTYPES:
        c = rand(bool, (999,), rng)
        x, y = rand(dt, (999,), rng), rand(dt, (999,), rng)
        run_case("where", [c, x, y])
        if dt.kind != "c":
            run_case("if_positive", [rand("f4", (999,), rng), x, y])
        if dt.kind in "iuf":
            lo, hi = np.sort(np.stack([rand(dt, (999,), rng),
                                       rand(dt, (999,), rng)]), axis=0)
            run_case("clip", [x, lo, hi])


def test_mixed_dtypes_and_scalars(context):
    rng = np.random.default_rng(3)
    a = rand("f4", (1000,), rng)
    run_case("add", [a, rand("f8", (1000,), rng)])
    run_case("multiply", [a, 2.5])
    run_case("multiply", [a, np.float64(2.5)])
    run_case("add", [rand("u1", (1000,), rng), 200])
    run_case("add", [rand("i2", (1000,), rng), rand("u2", (1000,), rng)])
    run_case("less", [rand("i8", (1000,), rng),
                      rand("u8", (1000,), rng)])
    run_case("greater_equal", [rand("u8", (1000,), rng),
                               rand("i8", (1000,), rng)])
    run_case("less", [rand("u1", (1000,), rng), 300])
    run_case("greater", [-5, rand("u2", (1000,), rng)])
    run_case("true_divide", [rand("i4", (1000,), rng), rand("i4", (1000,), rng)])
    run_case("add", [rand("f2", (1000,), rng), rand("f2", (1000,), rng)])
    run_case("multiply", [rand("f2", (1000,), rng), 3])
    run_case("add", [rand("c8", (1000,), rng), 1j])
    run_case("power", [rand("i4", (1000,), rng, "power"), 3])


def test_integer_division_by_zero_gives_zero(context):
    for dt in ("i1", "i4", "i8", "u2", "u8"):
        a = np.arange(1, 101).astype(dt)
        b = np.zeros(100, dt)
        for op in ("floor_divide", "remainder", "fmod"):
            from gpuarr.elementwise import run_elementwise
            ab, av = DevBase(a), None
            av = ab.view(ab.host)
            bb = DevBase(b)
            ob, ov = dev_out(dt, (100,))
            run_elementwise(op, [ov], [av, bb.view(bb.host)])
            np.testing.assert_array_equal(ob.get(), np.zeros(100, dt))


def test_floor_semantics_negative(context):
    a = np.array([-7, 7, -7, 7, -128, 5], np.int8)
    b = np.array([2, -2, -2, 2, -1, 3], np.int8)
    run_case("floor_divide", [a, b])
    run_case("remainder", [a, b])
    fa = np.array([-7.5, 7.5, -7.5, 7.5, 1e300, -0.0], np.float64)
    fb = np.array([2.0, -2.0, -2.0, 2.0, 3.0, 5.0], np.float64)
    run_case("floor_divide", [fa, fb])
    run_case("remainder", [fa, fb])


def test_rint_half_even(context):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5], np.float32)
    run_case("rint", [x])


# ------------------------------------------------------------ layouts

LAYOUTS = {
    "contiguous": (lambda h: h, (64, 96)),
    "sliced": (lambda h: h[::2, 1::3], (128, 288)),
    "negative": (lambda h: h[::-1, ::-2], (64, 192)),
    "transposed": (lambda h: h.T, (96, 64)),
    "transposed_sliced": (lambda h: h[::2].T[::-1], (200, 300)),
    "three_d": (lambda h: h.transpose(1, 2, 0)[:, ::-1], (5, 6, 7)),
    "zero_d": (lambda h: h[3, 4, ...], (8, 8)),     # a 0-d view, not a scalar
    "empty": (lambda h: h[:, 5:5], (8, 8)),
    "one": (lambda h: h[2:3, 4:5], (8, 8)),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dt", ["f4", "f8", "i1", "f2", "c16", "?"])
def test_layouts(context, layout, dt):
    from gpuarr.elementwise import run_elementwise
    fview, base_shape = LAYOUTS[layout]
    rng = np.random.default_rng(11)
    ha, hb = rand(dt, base_shape, rng), rand(dt, base_shape, rng)
    va, vb = fview(ha), fview(hb)
    da, db = DevBase(ha), DevBase(hb)
    op = "logical_xor" if dt == "?" else "add"
    for o in (op, "copy"):
        ins = [da.view(va), db.view(vb)] if o == op else [da.view(va)]
        exp = numpy_ref(o, va, vb) if o == op else va.copy()
        exp = np.asarray(exp)
        ob, ov = dev_out(exp.dtype, va.shape)
        run_elementwise(o, [ov], ins)
        check(ob.get(), exp, exp.dtype)
        # and into a strided (reversed) output
        hout = np.empty(va.shape[::-1] if va.ndim else (), exp.dtype)
        outb = DevBase(hout)
        outb.poison()
        outv = outb.view(outb.host.T[...] if va.ndim else outb.host)
        run_elementwise(o, [outv], ins)
        got = outb.get().T if va.ndim else outb.get()
        check(np.ascontiguousarray(got), exp, exp.dtype)


@pytest.mark.parametrize("dt", ["f4", "i2", "c8"])
def test_broadcast_operands(context, dt):
    rng = np.random.default_rng(5)
    m = rand(dt, (300, 517), rng)
    row = rand(dt, (517,), rng)
    col = rand(dt, (300, 1), rng)
    run_case("add", [m, row])
    run_case("multiply", [col, m])
    run_case("subtract", [row, col])
    run_case("add", [rand(dt, (1,), rng), rand(dt, (4099,), rng)])


def test_inplace_same_layout(context):
    from gpuarr.elementwise import run_elementwise
    rng = np.random.default_rng(9)
    h = rand("f4", (100, 300), rng)
    b = DevBase(h)
    v = b.view(b.host[:, ::2])
    run_elementwise("multiply", [v], [v, np.float32(2)])
    exp = h.copy()
    exp[:, ::2] *= 2
    np.testing.assert_array_equal(b.get(), exp)


@pytest.mark.parametrize("shape", [(4096, 4096), (1000, 777), (33, 2000)])
@pytest.mark.parametrize("dt", ["f4", "f8", "u1", "c16", "f2"])
def test_transpose_copy(context, shape, dt):
    rng = np.random.default_rng(1)
    h = rand(dt, shape[::-1], rng)
    b = DevBase(h)
    v = b.view(h.T)
    ob, ov = dev_out(dt, shape)
    from gpuarr.elementwise import run_elementwise
    run_elementwise("copy", [ov], [v])
    np.testing.assert_array_equal(ob.get(), h.T)
    # astype while transposing
    ob2, ov2 = dev_out("f8", shape)
    if dt[0] != "c":
        run_elementwise("copy", [ov2], [v])
        np.testing.assert_array_equal(ob2.get(), h.T.astype("f8"))


def test_astype_every_pair(context):
    from gpuarr.elementwise import run_elementwise
    rng = np.random.default_rng(2)
    for src in DTYPES:
        x = rand(src, (777,), rng)
        if src.kind == "f":
            x = np.clip(x, -100, 100)
        if src.kind == "c":
            x = (np.clip(x.real, -100, 100) + 1j * np.clip(x.imag, -100, 100)).astype(src)
        xb = DevBase(x)
        for dst in DTYPES:
            if src.kind in "fc" and dst.kind in "iu":
                continue  # float -> int of out-of-range values is unspecified
            if src.kind == "c" and dst.kind != "c":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exp = x.astype(dst)
            else:
                exp = x.astype(dst)
            ob, ov = dev_out(dst, x.shape)
            run_elementwise("copy", [ov], [xb.view(xb.host)])
            got = ob.get()
            if dst.kind == "f" and dst.itemsize == 2:
                np.testing.assert_array_equal(got, exp)
            else:
                check(got, exp, dst)


@pytest.mark.huge
def test_wide_index(context):
    """More than 2**31 - 1 elements: the 64-bit index kernels."""
    from gpuarr.elementwise import run_elementwise
    import gpuarr.driver as drv
    n = 2 ** 31 + 4099
    h = np.tile(np.arange(-120, 121, dtype=np.int8), n // 241 + 1)[:n]
    b = DevBase(h)
    ob, ov = dev_out(np.int8, (n,))
    run_elementwise("add", [ov], [b.view(b.host), np.int8(1)])
    got = ob.get()
    idx = np.r_[0:5000, n - 5000:n, 2 ** 31 - 3:2 ** 31 + 3]
    np.testing.assert_array_equal(got[idx], (h[idx] + 1).astype(np.int8))
    del drv


# --------------------------------------------------- ElementwiseKernel

def test_elementwise_kernel_axpy(context):
    from gpuarr.elementwise import ElementwiseKernel
    k = ElementwiseKernel("float a, float *x, float *y, float *z",
                          "z[i] = a * x[i] + y[i]", name="axpy")
    rng = np.random.default_rng(0)
    x, y = rand("f4", (10007,), rng), rand("f4", (10007,), rng)
    bx, by = DevBase(x), DevBase(y)
    bz, vz = dev_out("f4", (10007,))
    k(2.5, bx.view(bx.host), by.view(by.host), vz)
    # The compiler contracts a * x[i] + y[i] into one fused multiply-add (one
    # rounding, as in PyCUDA and CuPy), so compare with the exact value: the
    # error is at most half an ulp of the result, and numpy's two roundings
    # differ from it by up to an ulp of the terms when they cancel.
    exact = 2.5 * x.astype(np.float64) + y
    scale = np.abs(2.5 * x.astype(np.float64)) + np.abs(y)
    err = np.abs(bz.get().astype(np.float64) - exact)
    assert np.all(err <= 2.0 ** -24 * scale), err.max()
    bz.poison()
    k(np.float32(1.0), bx.view(bx.host), by.view(by.host), vz,
      range=slice(10, 5000, 7))
    got = bz.get()
    sel = np.arange(10, 5000, 7)
    np.testing.assert_allclose(got[sel], x[sel] + y[sel], rtol=1e-6)
    mask = np.ones(10007, bool)
    mask[sel] = False
    assert np.all(got.view(np.uint32)[mask] == 0xFFFFFFFF)


@pytest.mark.parametrize("decl,op,dts", [
    ("double a, float *x, double *y", "y[i] = a * x[i] + (double)i", ("f4", "f8")),
    ("int a, int *x, int *y",
     "y[i] = (int)((unsigned)x[i] * (unsigned)a + (unsigned)i)", ("i4", "i4")),
    ("signed char *x, signed char *y", "y[i] = x[i] ^ (signed char)(i & 127)",
     ("i1", "i1")),
])
def test_elementwise_kernel_vector_layout(context, decl, op, dts):
    """Unit steps over aligned, disjoint arrays take ``vec`` consecutive
    indices per thread; odd sizes, starts off the vector boundary and
    misaligned views take the other layout. Every element in range is
    written, none outside it."""
    from gpuarr.elementwise import ElementwiseKernel
    k = ElementwiseKernel(decl, op, name="vecl")
    scalar = "a" in [a.name for a in k.args]
    rng = np.random.default_rng(1)
    vec = k._vec
    assert vec > 1

    def expect(x, lo, hi):
        i = np.arange(lo, hi)
        xs = x[lo:hi]
        if dts[1] == "f8":
            return 1.75 * xs.astype(np.float64) + i
        if dts[1] == "i4":
            return (xs.astype(np.int64) * -3 + i).astype(np.int32)
        return xs ^ (i & 127).astype(np.int8)

    used = set()
    for n in (1, 3, 1023, 1025, 4099, 70001):
        for shift in (0, 1):                      # 1: views off alignment
            x = rand(dts[0], (n + shift,), rng)
            bx = DevBase(x)
            by, _ = dev_out(dts[1], (n + shift,))
            vx = bx.view(bx.host[shift:])
            vy = by.view(by.host[shift:])
            for lo, hi in ((0, n), (vec, n), (1, n - 1)):
                if hi <= lo:
                    continue
                by.poison()
                args = ((1.75 if dts[1] == "f8" else -3),) if scalar else ()
                k(*args, vx, vy, range=slice(lo, hi))
                got = by.get()[shift:]
                want = expect(x[shift:], lo, hi)
                if got.dtype.kind == "f":
                    np.testing.assert_allclose(got[lo:hi], want, rtol=1e-15)
                else:
                    np.testing.assert_array_equal(got[lo:hi], want)
                outside = np.r_[got[:lo], got[hi:]].view(np.uint8)
                assert np.all(outside == 0xFF), (n, shift, lo, hi)
    used = {key[3] for key in k._fns}
    assert used == {1, vec}, used


def test_elementwise_kernel_half_complex(context):
    from gpuarr.elementwise import ElementwiseKernel
    k = ElementwiseKernel("ga_half *h, ga_complex<double> *z",
                          "z[i] = ga_complex<double>((float)h[i], -(float)h[i])")
    rng = np.random.default_rng(0)
    h = rand("f2", (333,), rng)
    bh = DevBase(h)
    bz, vz = dev_out("c16", (333,))
    k(bh.view(bh.host), vz)
    np.testing.assert_array_equal(bz.get(), h.astype("f8") - 1j * h.astype("f8"))
