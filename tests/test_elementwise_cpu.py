"""CPU tests of gpuarr.elementwise: resolution of the special ops,
ElementwiseKernel argument parsing and every error it raises before a
launch, and run_elementwise's launch flow against a recording fake."""
import numpy as np

from gpuarr import _dtypes
import pytest

from _util import FakeArray

from gpuarr import elementwise as ew
from gpuarr.elementwise import (ElementwiseKernel, ScalarArg, VectorArg,
                                resolve)



class FakeFunction:
    def __init__(self):
        self.calls = []

    def prepared_async_call(self, grid, block, stream, *args):
        self.calls.append((grid, block, stream, args))


@pytest.fixture
def fake_launch(monkeypatch):
    """run_elementwise without a GPU: kernels are 'compiled' to recorders."""
    state = ({}, {}, 132)
    fns = []

    def compile_(kernels, kkey, source, name, chars, options=None):
        fn = FakeFunction()
        fn.source, fn.chars = source, chars
        kernels[kkey] = (fn, None)
        fns.append(fn)
        return fn
    monkeypatch.setattr(ew, "_ctx_state", lambda: state)
    monkeypatch.setattr(ew, "_compile", compile_)
    return fns


# ---------------------------------------------------------------- resolve

def test_resolve_special_ops():
    f4, f8, i4 = np.dtype("f4"), np.dtype("f8"), np.dtype("i4")
    b = np.dtype(bool)
    assert resolve("copy", f4) == ((f4,), (f4,))
    assert resolve("where", b, f4, i4) == ((b, f8, f8), (f8,))
    assert resolve("where", b, f4, 2.0) == ((b, f4, f4), (f4,))
    assert resolve("if_positive", i4, f4, f4) == ((i4, f4, f4), (f4,))
    assert resolve("clip", f4, 0, 1) == ((f4, f4, f4), (f4,))
    assert resolve("angle", np.dtype("c8")) == ((np.dtype("c8"),), (f4,))
    assert resolve("angle", f4)[1] == (f4,)
    assert resolve("angle", i4)[1] == (f8,)
    assert resolve("divide", i4, i4)[1] == (f8,)
    assert resolve("abs", np.dtype("c16"))[1] == (f8,)


def test_resolve_errors():
    with pytest.raises(TypeError):
        resolve("subtract", np.dtype(bool), np.dtype(bool))
    with pytest.raises(TypeError):
        resolve("negative", np.dtype(bool))
    with pytest.raises(OverflowError):
        resolve("add", np.dtype("u1"), 300)
    with pytest.raises(OverflowError):
        resolve("add", np.dtype("i8"), 2 ** 64)
    # numpy 2 compares exactly: no OverflowError, a bool result
    assert resolve("less", np.dtype("u1"), 300)[1] == (np.dtype(bool),)
    with pytest.raises(ValueError, match="negative integer powers"):
        resolve("power", np.dtype("i4"), -1)
    with pytest.raises(ValueError, match="negative integer powers"):
        resolve("power", np.dtype("i4"), np.int32(-2))
    assert resolve("power", np.dtype("f4"), -1)[1] == (np.dtype("f4"),)
    assert resolve("sin", np.dtype("c8")) == ((np.dtype("c8"),), (np.dtype("c8"),))
    with pytest.raises(TypeError):
        resolve("if_positive", np.dtype("c8"), np.dtype("f4"), np.dtype("f4"))
    with pytest.raises(ValueError, match="unknown"):
        resolve("frobnicate", np.dtype("f4"))
    with pytest.raises(TypeError):
        resolve("add", np.dtype("f4"))
    with pytest.raises(TypeError):
        resolve("add", np.dtype("U3"), np.dtype("U3"))


def test_every_numpy_loop_has_a_kernel():
    """Every dtype loop numpy has for a built-in op, gpuarr has too (no
    'no GPU implementation' gaps), for each supported dtype."""
    from gpuarr.kernels.ops import OPS
    missing = []
    for name, op in OPS.items():
        if op.ufunc is None or op.resolver != "ufunc":
            continue
        for dt in _dtypes.SUPPORTED:
            dts = (np.dtype(dt),) * op.nin
            try:
                want = op.ufunc.resolve_dtypes(dts + (None,) * op.ufunc.nout)
            except (TypeError, np._core._exceptions._UFuncNoLoopError):
                continue
            try:
                got = resolve(name, *dts)
            except TypeError as exc:
                missing.append((name, str(dt), str(exc)))
            else:
                # and it gives numpy's result dtypes
                assert tuple(got[1]) == tuple(want[op.nin:]), (name, dt, got, want)
    assert not missing, missing


# ------------------------------------------------------- run_elementwise

def test_run_elementwise_contiguous_flow(fake_launch):
    n = 1 << 24
    out, a, b = (FakeArray("f4", (n,), ptr=p) for p in (1 << 30, 2 << 30, 3 << 30))
    ew.run_elementwise("add", [out], [a, b])
    ew.run_elementwise("add", [out], [a, b])
    assert len(fake_launch) == 1                      # compiled once
    calls = fake_launch[0].calls
    assert len(calls) == 2
    grid, block, stream, args = calls[0]
    assert args[:3] == (1 << 30, 2 << 30, 3 << 30)
    # one block per chunk of 256 threads x one 16-byte vector (4 floats)
    assert block == (256, 1, 1) and grid == (n // 1024, 1, 1)
    assert fake_launch[0].chars == "PPPiii"
    assert "ld" not in fake_launch[0].chars
    assert "ga_vec<float, 4>" in fake_launch[0].source


def test_run_elementwise_checks_input_shapes_on_every_call(fake_launch):
    """A plan is keyed by strides, not shapes: an input of another shape
    with the same strides must still be refused (it would be read past its
    end), after the plan exists as before it."""
    out, a = FakeArray("f4", (100,)), FakeArray("f4", (100,), ptr=1 << 26)
    short = FakeArray("f4", (60,), ptr=1 << 27)
    for _ in range(2):
        with pytest.raises(ValueError, match="shape \\(60,\\) where \\(100,\\)"):
            ew.run_elementwise("add", [out], [a, short])
        ew.run_elementwise("add", [out], [a, a])
    assert len(fake_launch) == 1 and len(fake_launch[0].calls) == 2


def test_run_elementwise_scalars_and_errors(fake_launch):
    a = FakeArray("u1", (100,))
    out = FakeArray("u1", (100,))
    ew.run_elementwise("add", [out], [a, 3])
    args = fake_launch[-1].calls[-1][3]
    assert args[2] == np.uint8(3) and isinstance(args[2], np.uint8)
    with pytest.raises(OverflowError):
        ew.run_elementwise("add", [out], [a, 300])
    # float16 scalars travel as float32
    h = FakeArray("f2", (10,))
    ew.run_elementwise("multiply", [h], [h, 2.5])
    assert isinstance(fake_launch[-1].calls[-1][3][2], np.float32)
    # comparisons with out-of-range ints become constant fills
    bo = FakeArray(bool, (100,))
    def fill_args():
        fill = [f for f in fake_launch if "gpuarr_rows_fill" in f.source]
        return fill[-1].calls[-1][3]
    ew.run_elementwise("less", [bo], [a, 300])
    assert fill_args()[1] == np.bool_(True)
    ew.run_elementwise("less", [bo], [300, a])
    assert fill_args()[1] == np.bool_(False)
    ew.run_elementwise("not_equal", [bo], [a, -5])
    assert fill_args()[1] == np.bool_(True)
    with pytest.raises(ValueError, match="negative integer powers"):
        ew.run_elementwise("power", [FakeArray("i1", (100,))],
                           [FakeArray("i1", (100,)), -1])
    with pytest.raises(TypeError):
        ew.run_elementwise("add", [out], [a])
    with pytest.raises(ValueError):
        ew.run_elementwise("add", [out], [a, FakeArray("u1", (99,))])


def test_run_elementwise_empty_launches_nothing(fake_launch):
    a = FakeArray("f4", (0, 5))
    ew.run_elementwise("sin", [a], [a])
    assert fake_launch == []


def test_run_elementwise_paths(fake_launch):
    t_in = FakeArray("f4", (1024, 512), (4, 4096))
    out = FakeArray("f4", (1024, 512))
    ew.run_elementwise("copy", [out], [t_in])
    assert "__shared__" in fake_launch[-1].source
    row = FakeArray("f4", (1024, 512), (0, 4))
    ew.run_elementwise("add", [out], [out, row])
    assert "b_" not in fake_launch[-1].source      # row vectorized, not hoisted
    col = FakeArray("f4", (1024, 512), (4, 0))
    ew.run_elementwise("add", [out], [out, col])
    assert "b_2" in fake_launch[-1].source         # column value loaded once
    zero_d = FakeArray("f8", ())
    ew.run_elementwise("exp", [zero_d], [zero_d])
    assert fake_launch[-1].calls[-1][0] == (1, 1, 1)


# ---------------------------------------------------- ElementwiseKernel

def test_parse_string_arguments():
    k = ElementwiseKernel("float a, const float *x, double* y, "
                          "unsigned int n2, ga_complex<float> *z, bool *m",
                          "y[i] = a * x[i]", name="k1")
    kinds = [(type(a).__name__, a.dtype, a.name) for a in k.args]
    assert kinds == [("ScalarArg", np.dtype("f4"), "a"),
                     ("VectorArg", np.dtype("f4"), "x"),
                     ("VectorArg", np.dtype("f8"), "y"),
                     ("ScalarArg", np.dtype("u4"), "n2"),
                     ("VectorArg", np.dtype("c8"), "z"),
                     ("VectorArg", np.dtype(bool), "m")]


def test_parse_object_arguments():
    k = ElementwiseKernel([ScalarArg(np.float32, "a"),
                           VectorArg(np.float32, "x")], "x[i] *= a")
    assert isinstance(k.args[0], ScalarArg)
    assert k.args[1] == VectorArg(np.float32, "x")
    src = k.get_source()
    assert "float a" in src and "float * x" in src
    assert "typedef int I;" in src
    assert "typedef long long I;" in k.get_source(wide=True)


@pytest.mark.parametrize("args,match", [
    ("float *x, float *x", "twice"),
    ("float *1x", "parse|identifier|unknown"),
    ("float *int", "keyword"),
    ("widget *x", "unknown C type"),
    ("float **x", "pointers to pointers"),
    ("float a", "pointer argument"),
    ("", "argument"),
    ("float *i", "reserved"),
])
def test_bad_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        ElementwiseKernel(args, "x[i] = 0")


@pytest.mark.parametrize("name", ["for", "int", "1abc", "a-b", "", "class",
                                  "__global__", "my kernel"])
def test_bad_kernel_names(name):
    with pytest.raises(ValueError, match="kernel name"):
        ElementwiseKernel("float *x", "x[i] = 0", name=name)


def test_bad_operation():
    with pytest.raises(ValueError):
        ElementwiseKernel("float *x", "   ")
    with pytest.raises(TypeError):
        ElementwiseKernel([object()], "x[i] = 0")


def test_call_errors_before_launch():
    k = ElementwiseKernel("float a, float *x, float *y", "y[i] = a * x[i]",
                          name="scale")
    x = FakeArray("f4", (10,))
    y = FakeArray("f4", (10,))
    with pytest.raises(TypeError, match="3 arguments"):
        k(1.0, x)
    with pytest.raises(TypeError, match="3 arguments"):
        k(1.0, x, y, y)
    with pytest.raises(TypeError, match="'x'"):
        k(1.0, FakeArray("f8", (10,)), y)
    with pytest.raises(ValueError, match="'y'"):
        k(1.0, x, FakeArray("f4", (11,)))
    with pytest.raises(ValueError, match="contiguous"):
        k(1.0, FakeArray("f4", (10,), (8,)), y)
    with pytest.raises(TypeError, match="'a'"):
        k(x, x, y)
    with pytest.raises(TypeError, match="'x'"):
        k(1.0, 2.0, y)
    with pytest.raises(TypeError):
        k(1.0, x, y, bogus=1)
    ki = ElementwiseKernel("unsigned char v, unsigned char *x", "x[i] = v")
    with pytest.raises(OverflowError, match="'v'"):
        ki(300, FakeArray("u1", (4,)))
    with pytest.raises(TypeError, match="'v'"):
        ki(1.5, FakeArray("u1", (4,)))


@pytest.fixture
def user_kernels(monkeypatch):
    """ElementwiseKernel without a GPU: SourceModule 'compiles' to
    recorders, listed in build order; returns (per-context state, list)."""
    state = ({}, {}, 132)
    built = []

    class FakeModule:
        def __init__(self, source, options=None, no_extern_c=False, keep=False):
            assert no_extern_c
            self.source = source

        def get_function(self, name):
            f = FakeFunction()
            f.prepare = lambda chars: setattr(f, "chars", chars)
            f.source = self.source
            built.append(f)
            return f
    import gpuarr.compiler
    monkeypatch.setattr(ew, "_ctx_state", lambda: state)
    monkeypatch.setattr(gpuarr.compiler, "SourceModule", FakeModule)
    return state, built


def test_call_launch_flow(monkeypatch, user_kernels):
    state, launched = user_kernels
    k = ElementwiseKernel("float a, float *x, float *y", "y[i] = a * x[i]")
    x, y = FakeArray("f4", (1000,)), FakeArray("f4", (1000,), ptr=1 << 25)
    k(2, x, y)
    k(np.float64(2.5), x, y, range=slice(10, 500, 3))
    k(2.0, x, y, slice=slice(None, None, -1))
    # unit step: the dense variant, __restrict__ since x and y are disjoint,
    # one block per 1024 indices; other steps: the grid-stride loop
    assert len(launched) == 2
    dense, loop = launched
    assert "*__restrict__ x" in dense.source and "ga_u" in dense.source
    assert "*__restrict__" not in loop.source and "ga_nthreads" in loop.source
    assert dense.chars == loop.chars == "fPPiii"
    assert dense.calls[0][3] == (np.float32(2), x.ptr, y.ptr, 0, 1000, 1)
    assert dense.calls[0][0] == (1, 1, 1)
    assert isinstance(loop.calls[0][3][0], np.float32)
    assert loop.calls[0][3][3:] == (10, 500, 3)
    assert loop.calls[1][3][3:] == (999, -1, -1)
    k(2.0, x, y, range=slice(5, 5))               # empty: no launch
    assert len(dense.calls) + len(loop.calls) == 3
    # overlapping arrays (in place): dense but without __restrict__
    k(2.0, x, x)
    assert len(launched) == 3 and "*__restrict__" not in launched[2].source
    k(2.0, x, FakeArray("f4", (1000,), ptr=x.ptr + 400))
    assert len(launched) == 3 and launched[2].calls[-1][0] == (1, 1, 1)
    # a range reaching past the arrays is refused before any launch
    calls = sum(len(f.calls) for f in launched)
    for bad in (slice(0, 1001), slice(-1, 10), slice(999, -2, -1)):
        with pytest.raises(ValueError, match="outside the arrays"):
            k(2.0, x, y, range=bad)
    assert sum(len(f.calls) for f in launched) == calls
    # a new context's state (even at a reused address) gets its own kernel
    state2 = (state[0], {}, state[2])
    monkeypatch.setattr(ew, "_ctx_state", lambda: state2)
    k(2.0, x, y)
    assert len(launched) == 4


def test_user_kernel_vector_layout(user_kernels):
    """Unit steps over disjoint, aligned arrays of C types use the vector
    layout (consecutive indices per thread, alignment promised); anything
    the promise would not hold for gets the block-apart layout."""
    _, built = user_kernels
    k = ElementwiseKernel("float a, float *x, double *y", "y[i] = a * x[i]")
    assert (k._vec, k._align) == (2, [8, 16])
    x, y = FakeArray("f4", (5000,)), FakeArray("f8", (5000,), ptr=1 << 26)
    k(2.0, x, y)
    vec = built[-1]
    assert "__builtin_assume_aligned(x, 8)" in vec.source
    assert "__builtin_assume_aligned(y, 16)" in vec.source
    assert "ga_u * 1;" in vec.source
    # one block per 256 x 2 indices
    assert vec.calls[-1][0] == (-(-5000 // 512), 1, 1)
    k(2.0, x, y, range=slice(2, 5000))            # start a multiple of 2
    assert len(built) == 1 and vec.calls[-1][3][-3:] == (2, 5000, 1)
    assert vec.calls[-1][0] == (-(-4998 // 512), 1, 1)
    # an odd start, a misaligned pointer, overlapping arrays: no promise
    for args, kw in [((2.0, x, y), {"range": slice(1, 5000)}),
                     ((2.0, FakeArray("f4", (5000,), ptr=(1 << 24) + 4), y), {}),
                     ((2.0, x, FakeArray("f8", (5000,), ptr=(1 << 24) + 8)), {})]:
        k(*args, **kw)
        src = built[-1].source
        assert "__builtin_assume_aligned" not in src and "ga_u * 256;" in src
    assert len(built) == 3       # dense block-apart, then dense unrestricted
    # the last launch's choice is remembered by addresses and range: going
    # back to the aligned arrays picks the vector kernel again
    before = len(vec.calls)
    k(2.0, x, y)
    k(2.0, x, y)
    assert len(vec.calls) == before + 2
    assert vec.calls[-1][3] == (np.float32(2.0), x.ptr, y.ptr, 0, 5000, 1)
    # float16 and complex arrays never take the vector layout
    for decl in ("ga_half *x, ga_half *y", "ga_complex<float> *x, float *y"):
        assert ElementwiseKernel(decl, "y[i] = x[i]")._vec == 1
