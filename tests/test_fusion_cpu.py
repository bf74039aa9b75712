"""gpuarr.fuse without a GPU: traced dtypes agree with numpy running the
same function, what cannot be fused raises TypeError naming it, programs
prune and key as they should, and the fused kernels (elementwise paths and
reductions) render and compile."""
import numpy as np
import pytest

from _util import FakeArray, batch_sources, kernel_compiler

import gpuarr
from gpuarr._elementwise_plan import plan_spec
from gpuarr._fusion import Fusion
from gpuarr._reduction_plan import reduce_spec
from gpuarr.kernels.program import Program, constant

COMPILE = kernel_compiler()
ALL = [np.dtype(t) for t in "?bhilBHILefdFD"]


def sig_of(*items):
    """A call signature: dtypes are 1-D arrays, Python types weak scalars,
    numpy scalar types strong scalars."""
    out = []
    for x in items:
        if isinstance(x, tuple):
            out.append(("a", np.dtype(x[0]), x[1]))
        elif isinstance(x, (np.dtype, str)):
            out.append(("a", np.dtype(x), 1))
        elif any(x is t for t in (bool, int, float, complex)):
            out.append(("w", x, False))
        elif isinstance(x, type):
            out.append(("s", np.dtype(x)))
        else:
            out.append(("a", np.dtype(x), 1))
    return tuple(out)


def host_args(sig):
    vals = []
    for t in sig:
        if t[0] == "a":
            vals.append(np.ones((3,) * t[2], t[1]))
        elif t[0] == "w":
            vals.append(t[1](1))
        else:
            vals.append(t[1].type(1))
    return vals


def traced_dtypes(fn, sig):
    ent = Fusion(fn).trace(sig)
    if ent.reduction is not None:
        name, prog = ent.reduction[:2]
        return [prog.out_dtypes[0]]
    return [ent.program.steps[c[0]][1] for c in ent.computed]


FUNCS = [
    lambda a, b: (a * b + 1) / 2,
    lambda a, b: (a // 2, a % 3, a ** 3),
    lambda a, b: np.where(a > b, a, b * 2.5),
    lambda a, b: (np.sqrt(abs(a)) + np.sin(b)).astype(np.float32),
    lambda a, b: (a == b, a != 1, a >= 0.5),
    lambda a, b: np.maximum(a, b) - np.minimum(a, 3),
    lambda a, b: np.clip(a, 0, 2) * True,
]


@pytest.mark.parametrize("k", range(len(FUNCS)))
@pytest.mark.parametrize("dt", ALL, ids=str)
def test_traced_dtypes_agree_with_numpy(k, dt):
    fn = FUNCS[k]
    for other in (np.float32, np.int8, int, float, np.float64):
        sig = sig_of(dt, other)
        with np.errstate(all="ignore"):
            try:
                want = fn(*host_args(sig))
            except (TypeError, ValueError) as e:
                with pytest.raises(type(e)):
                    traced_dtypes(fn, sig)
                continue
        want = want if isinstance(want, tuple) else (want,)
        got = traced_dtypes(fn, sig)
        assert got == [np.asarray(w).dtype for w in want], (sig, got, want)


def test_weak_scalar_arithmetic_stays_weak():
    # s * 2 of a Python float argument is a Python float in numpy: it must
    # not promote a float32 array
    got = traced_dtypes(lambda x, s: x * (s * 2) - (s > 1), sig_of("f4", float))
    assert got == [np.dtype("f4")]
    got = traced_dtypes(lambda x, s: x + s, sig_of("f4", np.float64))
    assert got == [np.dtype("f8")]


def test_reduction_dtypes():
    cases = [(lambda x: np.sum(x * 2), "i2", "i8"),
             (lambda x: x.mean(), "i4", "f8"),
             (lambda x: gpuarr.max(x - 1), "u1", "u1"),
             (lambda x: np.any(x), "f4", "?")]
    for fn, dt, res in cases:
        ent = Fusion(fn).trace(sig_of(dt))
        assert ent.reduction is not None
        assert ent.reduction[0] in ("sum", "mean", "max", "any")


@pytest.mark.parametrize("fn, words", [
    (lambda x: x[0], "indexing"),
    (lambda x: len(x), "len"),
    (lambda x: [v for v in x], "iterating"),
    (lambda x: x if x > 0 else x, "truth value"),
    (lambda x: np.linalg.norm(x), "numpy.linalg.norm"),
    (lambda x: np.cumsum(x), "cumsum"),
    (lambda x: x @ x, "matmul"),
    (lambda x: x.reshape(3), "reshape"),
    (lambda x: np.add.accumulate(x), "accumulate"),
    (lambda x: np.sqrt(x.sum()), "after the reduction"),
    (lambda x: (x.sum(), x + 1), "beside"),
    (lambda x: x.sum() + x.max(), "reduction"),
    (lambda x: 1.0, "float"),
    (lambda x: None if True else x, None),
])
def test_what_cannot_be_fused(fn, words):
    if words is None:
        # nothing returned and nothing written: a fused no-op
        assert Fusion(fn).trace(sig_of("f4")).computed == []
        return
    with pytest.raises(TypeError, match=words):
        Fusion(fn).trace(sig_of("f4"))


def test_stale_alias_of_an_updated_argument_is_refused():
    def f(x, y):
        z = x
        x += y
        return z * 2
    with pytest.raises(TypeError, match="in-place"):
        Fusion(f).trace(sig_of("f4", "f4"))


def test_in_place_casting_follows_same_kind():
    def f(x, y):
        x += y
    with pytest.raises(TypeError, match="same_kind"):
        Fusion(f).trace(sig_of("i4", "f4"))
    ent = Fusion(f).trace(sig_of("f4", "i4"))
    assert [c[2] for c in ent.computed] == [0]


def test_constants_and_out_of_range_comparisons():
    ent = Fusion(lambda x: (x < 300, x + np.nan)).trace(sig_of("u1"))
    steps = ent.program.steps
    # x < 300 is answered exactly: a constant True, no comparison
    j = ent.computed[0][0]
    assert steps[j][0] == "const" and steps[j][2] == constant(True, "?")
    with pytest.raises(OverflowError):
        Fusion(lambda x: x + 300).trace(sig_of("u1"))
    with pytest.raises(ValueError, match="negative"):
        Fusion(lambda x: x ** -1).trace(sig_of("i4"))


def test_program_keys_and_pruning():
    f4 = np.dtype("f4")
    nan = constant(np.nan, f4)
    steps = [("in", f4, 0), ("in", f4, 1), ("const", f4, nan),
             ("op", f4, "add", (f4, f4), (0, 2), 0),
             ("op", f4, "multiply", (f4, f4), (1, 1), 0)]
    p = Program(steps, [3, 4], 2)
    q = Program(list(steps), [3, 4], 2)
    assert p == q and hash(p) == hash(q) and {p: 1}[q] == 1
    small, ins = p.pruned([4])
    assert ins == (1,) and small.nin == 1
    assert small.steps == (("in", f4, 0),
                           ("op", f4, "multiply", (f4, f4), (0, 0), 0))
    with pytest.raises(ValueError):
        Program([("op", f4, "negative", (f4,), (1,), 0), ("in", f4, 0)],
                [0], 1)


def _fused_specs():
    """Fused kernels over every dtype and the elementwise paths, and fused
    reductions over both reduction paths."""
    def chain(a, b, c, s):
        return (a * b + c) * s, np.where(a > c, np.exp(a), b) - s
    specs = []
    for dt in ALL:
        if dt.kind == "b":
            continue
        sig = sig_of(dt, dt, dt, float)
        ent = Fusion(chain).trace(sig)
        prog, ins = ent.group(tuple(range(len(ent.computed))))
        for shape, strides in (((4096,), None), ((64, 1024), None),
                               ((64, 64), (dt.itemsize, 64 * dt.itemsize)),
                               ((3, 5, 7), None)):
            arr = FakeArray(dt, shape, strides)
            outs = [FakeArray(d, shape) for d in prog.out_dtypes]
            specs.append(plan_spec(prog, prog.in_dtypes, prog.out_dtypes,
                                   outs, [arr, arr, arr, 0.5],
                                   [False, False, False, True], shape))
    for dt in (np.dtype("f4"), np.dtype("f2"), np.dtype("i8"),
               np.dtype("c8")):
        ent = Fusion(lambda x, y, s: np.sum(x * y + s, axis=0)).trace(
            sig_of((dt, 2), (dt, 2), float))
        name, prog = ent.reduction[:2]
        ct = np.dtype("i8") if dt.kind == "i" else (
            np.dtype("f2") if dt.itemsize == 2 else dt)
        for shape, axes in (((300, 500), (0,)), ((300, 500), (0, 1))):
            ins = [FakeArray(dt, shape), FakeArray(dt, shape)]
            kshape = tuple(n for k, n in enumerate(shape) if k not in axes)
            specs.append(reduce_spec("sum", ins, FakeArray(ct, kshape), axes,
                                     ct, fused=prog))
    return specs


def test_fused_specs_key_their_sources():
    a, b = _fused_specs(), _fused_specs()
    assert [s.source() for s in a] == [s.source() for s in b]
    # one kernel key, one source (layouts that merge to the same kernel
    # share it); different programs never share a key
    by_key = {}
    for s in a:
        assert by_key.setdefault(s.kkey, s.source()) == s.source()
    assert len(by_key) > len(a) // 3


@pytest.mark.skipif(COMPILE is None, reason="no NVRTC or nvcc here")
@pytest.mark.parametrize("chunk", range(2))
def test_fused_kernels_compile(chunk):
    specs = _fused_specs()[chunk::2]
    COMPILE(batch_sources(specs))


def test_call_signatures():
    from gpuarr._fusion import _signature

    class F(float):
        pass
    sig, vals = _signature([True, 3, F(2.0), 2 ** 64 - 1, np.float32(1),
                            np.array(2.5)])
    assert sig == (("w", bool, False), ("w", int, False),
                   ("w", float, False), ("w", int, True),
                   ("s", np.dtype("f4")), ("s", np.dtype("f8")))
    assert type(vals[2]) is float and vals[5] == 2.5
    with pytest.raises(TypeError, match="numpy arrays"):
        _signature([np.ones(3)])
    with pytest.raises(TypeError, match="not str"):
        _signature(["x"])
