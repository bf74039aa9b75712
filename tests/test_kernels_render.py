"""CPU tests: every elementwise template variant renders, deterministically,
and compiles for sm_90 (NVRTC or nvcc; no GPU needed)."""

import numpy as np
import pytest

from _util import FakeArray, batch_sources, kernel_compiler

from gpuarr import _dtypes
from gpuarr import elementwise as ew
from gpuarr.kernels import render
from gpuarr.kernels.ops import OPS, get_op

DTYPES = _dtypes.SUPPORTED




COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")


def spec_for(op, outs, ins):
    o = get_op(op)
    scal = [not hasattr(x, "ptr") for x in ins]
    li, oo = ew._resolve_tokens(o, ew._tokens(ins))
    return ew.plan_spec(o, li, oo, outs, ins, scal, outs[0].shape)


_batch = batch_sources


def _all_op_specs(shape=(1000,)):
    specs, labels = [], []
    for name, op in sorted(OPS.items()):
        for dt in DTYPES:
            ins = [FakeArray(dt, shape) for _ in range(op.nin)]
            if name == "where":
                ins[0] = FakeArray(bool, shape)
            try:
                li, oo = ew._resolve_tokens(op, ew._tokens(ins))
            except TypeError:
                continue
            specs.append(ew.plan_spec(op, li, oo,
                                      [FakeArray(d, shape) for d in oo],
                                      ins, [False] * op.nin, shape))
            labels.append((name, str(dt)))
    return specs, labels


def test_every_op_renders_deterministically():
    specs, labels = _all_op_specs()
    assert len(specs) > 500
    for sp in specs:
        a = sp.source()
        b = sp.source()
        assert a == b
        assert 'extern "C" __global__' in a


def test_rendering_is_stable_across_specs():
    a = spec_for("add", [FakeArray("f4", (4096,))],
                 [FakeArray("f4", (4096,)), FakeArray("f4", (4096,))])
    b = spec_for("add", [FakeArray("f4", (4096,))],
                 [FakeArray("f4", (4096,)), FakeArray("f4", (4096,))])
    assert a.kkey == b.kkey and a.source() == b.source()


def test_strict_undefined():
    with pytest.raises(NameError):
        render("elementwise.cu.mako", name="k")


@needs_compiler
@pytest.mark.parametrize("chunk", range(4))
def test_every_op_every_dtype_compiles(chunk):
    specs, labels = _all_op_specs()
    part = specs[chunk::4]
    COMPILE(_batch(part))


def _layout_specs():
    """Every path and its variants over a spread of dtypes."""
    n = 64
    out = []
    for dt in DTYPES:
        isz = np.dtype(dt).itemsize
        c = lambda shape: FakeArray(dt, shape)          # noqa: E731
        # contiguous (vectorized), misaligned (scalar), 0-d, strided 1-D
        out.append(spec_for("copy", [c((4096,))], [c((4096,))]))
        out.append(spec_for("copy", [c((4096,))],
                            [FakeArray(dt, (4096,), ptr=(1 << 24) + isz)]))
        out.append(spec_for("copy", [c(())], [c(())]))
        out.append(spec_for("copy", [c((4096,))],
                            [FakeArray(dt, (4096,), (-2 * isz,))]))
        # broadcast row, broadcast column, 3-D with big inner axis
        out.append(spec_for("copy", [c((n, 1024))],
                            [FakeArray(dt, (n, 1024), (0, isz))]))
        out.append(spec_for("copy", [c((n, 1024))],
                            [FakeArray(dt, (n, 1024), (isz, 0))]))
        out.append(spec_for("copy", [c((3, 5, 2048))],
                            [FakeArray(dt, (3, 5, 2048),
                                       (isz * 2048, isz * 2048 * 3, isz))]))
        # general n-d (small inner axis)
        out.append(spec_for("copy", [c((5, 6, 7))],
                            [FakeArray(dt, (5, 6, 7), (isz, 5 * isz, 30 * isz))]))
        # transposes: aligned (vector) and odd (scalar) shapes
        out.append(spec_for("copy", [c((256, 512))],
                            [FakeArray(dt, (256, 512), (isz, 256 * isz))]))
        out.append(spec_for("copy", [c((100, 37))],
                            [FakeArray(dt, (100, 37), (isz, 100 * isz))]))
        # wide indices
        out.append(spec_for("copy", [c((2 ** 31,))], [c((2 ** 31,))]))
    # mixed dtypes and scalars
    f4, f2 = np.dtype("f4"), np.dtype("f2")
    out.append(spec_for("add", [FakeArray("f8", (4096,))],
                        [FakeArray(f4, (4096,)), FakeArray("f8", (4096,))]))
    out.append(spec_for("multiply", [FakeArray(f2, (4096,))],
                        [FakeArray(f2, (4096,)), 3.0]))
    out.append(spec_for("add", [FakeArray("c8", (4096,))],
                        [FakeArray("c8", (4096,)), 1j]))
    out.append(spec_for("where", [FakeArray(f4, (300, 300))],
                        [FakeArray(bool, (300, 300)),
                         FakeArray(f4, (300, 300), (4, 1200)),
                         FakeArray(f4, (300, 300), (4, 1200))]))
    out.append(spec_for("less", [FakeArray(bool, (4096,))],
                        [FakeArray("i8", (4096,)), FakeArray("u8", (4096,))]))
    out.append(spec_for("clip", [FakeArray(f4, (4096,))],
                        [FakeArray(f4, (4096,)), 0.0, 1.0]))
    return out


def _mixed_op_specs():
    """The ops whose inputs differ in kind (ldexp's float and integer) and
    the two-output ops, on every layout path."""
    specs = []
    for m in ("f2", "f4", "f8", "i2", "u1", "?"):
        for e in ("i1", "u2", "i4", "i8", "?"):
            specs.append(spec_for("ldexp", [FakeArray(
                np.ldexp.resolve_dtypes((np.dtype(m), np.dtype(e), None))[2],
                (4096,))], [FakeArray(m, (4096,)), FakeArray(e, (4096,))]))
        specs.append(spec_for("ldexp", [FakeArray("f8" if m[0] in "iu?"
                                                  else m, (4096,))],
                              [FakeArray(m, (4096,)), 3]))
    for op in ("frexp", "modf"):
        for dt in ("f2", "f4", "f8", "i1", "u8", "?"):
            li, oo = ew._resolve_tokens(get_op(op), ew._tokens(
                [FakeArray(dt, (1,))]))
            for shape, st in (((4096,), None), ((300, 300), "T"),
                              ((5, 6, 7), "nd")):
                isz = np.dtype(dt).itemsize
                if st == "T":
                    x = FakeArray(dt, shape, (isz, 300 * isz))
                elif st == "nd":
                    x = FakeArray(dt, shape, (isz, 5 * isz, 30 * isz))
                else:
                    x = FakeArray(dt, shape)
                specs.append(spec_for(op, [FakeArray(d, shape) for d in oo],
                                      [x]))
    return specs


def test_two_output_ops_render_one_result_each():
    sp = spec_for("frexp", [FakeArray("f4", (4096,)), FakeArray("i4", (4096,))],
                  [FakeArray("f4", (4096,))])
    src = sp.source()
    assert "o0 = r0;" in src and "o1 = r1;" in src
    assert "ga_frexp_m(x0)" in src and "ga_frexp_e(x0)" in src
    sp = spec_for("modf", [FakeArray("f2", (64,)), FakeArray("f8", (64,))],
                  [FakeArray("f2", (64,))])
    src = sp.source()
    assert "truncf(x0)" in src and "ga_modf_frac(x0)" in src
    # a single-output op still renders one ``r``
    assert "const float r = " in spec_for(
        "add", [FakeArray("f4", (64,))],
        [FakeArray("f4", (64,)), FakeArray("f4", (64,))]).source()
    assert {sp.path for sp in _mixed_op_specs()} == {"rows", "nd",
                                                     "transpose"}


@needs_compiler
def test_mixed_and_two_output_ops_compile():
    COMPILE(_batch(_mixed_op_specs()))


def test_path_selection():
    f4 = "f4"
    sp = spec_for("add", [FakeArray(f4, (2 ** 28,))],
                  [FakeArray(f4, (2 ** 28,)), FakeArray(f4, (2 ** 28,))])
    assert sp.path == "rows" and sp.kkey[-1][1] == 4 and sp.kkey[-2] == "int"
    # one 16-byte vector per operand per thread (unroll 1)
    assert sp.kkey[-1][2] == 1 and sp.render_kw["unroll"] == 1
    sp = spec_for("add", [FakeArray(f4, (16384, 16384))],
                  [FakeArray(f4, (16384, 16384)),
                   FakeArray(f4, (16384, 16384), (0, 4))])
    assert sp.path == "rows" and sp.kkey[-1][0] == 2 and sp.kkey[-1][1] == 4
    sp = spec_for("add", [FakeArray(f4, (2 ** 27,))],
                  [FakeArray(f4, (2 ** 27,), (8,)), FakeArray(f4, (2 ** 27,), (8,))])
    assert sp.path == "rows" and sp.kkey[-1][1] == 1 and sp.kkey[-2] == "int"
    # scalar gathers of a strided operand: two per thread (8 bytes)
    assert sp.kkey[-1][2] == 2
    sp = spec_for("add", [FakeArray(f4, (2 ** 22,), ptr=(1 << 30) + 4)],
                  [FakeArray(f4, (2 ** 22,)), FakeArray(f4, (2 ** 22,))])
    # misaligned output: scalar accesses, four per thread (16 bytes)
    assert sp.kkey[-1][1:3] == (1, 4)
    sp = spec_for("copy", [FakeArray(f4, (16384, 16384))],
                  [FakeArray(f4, (16384, 16384), (4, 65536))])
    assert sp.path == "transpose" and sp.kkey[-1][:2] == (4, 64)
    sp = spec_for("copy", [FakeArray(f4, (3, 4, 5))],
                  [FakeArray(f4, (3, 4, 5), (4, 12, 48))])
    assert sp.path == "nd"
    sp = spec_for("copy", [FakeArray("i1", (2 ** 31 + 5,))],
                  [FakeArray("i1", (2 ** 31 + 5,))])
    assert sp.kkey[-2] == "long long"
    # one block per chunk (256 threads x 16 bytes), no grid-stride tail
    assert sp.grid[0] == -(-(2 ** 31 + 5) // (256 * 16))


@needs_compiler
def test_every_path_compiles():
    specs = _layout_specs()
    paths = {sp.path for sp in specs}
    assert paths == {"rows", "nd", "transpose"}
    COMPILE(_batch(specs))


@needs_compiler
def test_user_kernel_compiles():
    k = ew.ElementwiseKernel("float a, float *x, float *y, float *z",
                             "z[i] = a * x[i] + y[i]", name="axpy")
    COMPILE(k.get_source())
    COMPILE(k.get_source(wide=True))
    COMPILE(k.get_source(dense=True, restrict=True))
    COMPILE(k.get_source(wide=True, dense=True))
    COMPILE(k.get_source(dense=True, restrict=True, vec=4))
    COMPILE(k.get_source(wide=True, dense=True, restrict=True, vec=4))
    k = ew.ElementwiseKernel("double a, const double *x, signed char *m",
                             "if (m[i]) { m[i] = (signed char)(a * x[i]); }",
                             name="vec2", loop_prep="int q = 1;",
                             after_loop="(void)q;")
    assert k._vec == 2
    COMPILE(k.get_source(dense=True, restrict=True, vec=2))
    k = ew.ElementwiseKernel("ga_half *x, ga_complex<double> *z, double s",
                             "z[i] = ga_complex<double>((float)x[i] * s, 1.0)",
                             name="mix", preamble="#define TWO 2",
                             loop_prep="int q = TWO;", after_loop="(void)q;")
    COMPILE(k.get_source())
    COMPILE(k.get_source(dense=True))


_DIGEST_CHILD = r"""
import hashlib
import numpy as np
from _util import FakeArray
from gpuarr import reduction as R, scan, random as grandom
from test_kernels_render import _all_op_specs

h = hashlib.sha256()
for sp in _all_op_specs()[0]:                 # elementwise: every op, dtype
    h.update(sp.source().encode())
for op, dt, shp, axes, ct, out, nin in [       # reductions: each path
        ("sum", "f4", (4099,), (0,), "f4", "f4", 1),
        ("sum", "f2", (1000, 37), (0,), "f2", "f2", 1),
        ("max", "f8", (1000, 37), (1,), "f8", "f8", 1),
        ("argmax", "i4", (1000, 37), (1,), "i4", "i8", 1),
        ("var", "f4", (1000, 37), (1,), "f4", "f4", 1),
        ("dot", "c8", (4099,), (0,), "c8", "c8", 2)]:
    ins = [FakeArray(dt, shp) for _ in range(nin)]
    kept = tuple(n for k, n in enumerate(shp) if k not in axes)
    aux = np.dtype(ct) if op == "var" else None
    h.update(R.reduce_spec(op, ins, FakeArray(out, kept), axes, np.dtype(ct),
                           aux, 132).source().encode())
for impl in ("block-per-tile", "pipelined"):                     # scans
    for seg in (False, True):
        h.update(scan.scan_source("lookback", np.float32, np.float32,
                                  np.float32, "a + b", "0", seg=seg,
                                  impl=impl).encode())
    h.update(scan.scan_source("lookback", np.int32, np.int64, np.int64,
                              "a + b", "0", exclusive=True,
                              impl=impl).encode())
h.update(scan.scan_source("columns", np.float16, np.float16, np.float16,
                          "a + b", "0").encode())
for dist, dt, aff, per in [("uniform", np.float32, False, 4),   # random
                           ("normal", np.float64, True, 2),
                           ("exponential", np.float32, True, 4),
                           ("integers", np.int64, False, 2)]:
    name, src, chars = grandom.kernel_spec(dist, np.dtype(dt), aff, per)
    h.update((name + src + chars).encode())
print(h.hexdigest())
"""


def test_rendering_does_not_depend_on_the_hash_seed():
    """The deterministic-rendering tests render twice in one process, where
    str hashes (set and dict-of-set orders) are the same both times; the
    disk cache of compiled kernels needs the same source in every process.
    Representative kernels of each template, rendered in two processes with
    other PYTHONHASHSEEDs, must hash alike."""
    import os
    import subprocess
    import sys
    from _util import CHILD_CWD, child_env
    here = os.path.dirname(os.path.abspath(__file__))
    digests = []
    for seed in ("1", "2"):
        r = subprocess.run([sys.executable, "-c", _DIGEST_CHILD],
                           capture_output=True, text=True, timeout=300,
                           cwd=CHILD_CWD,
                           env=child_env(PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join(
                               [here, os.environ.get("PYTHONPATH", "")])))
        assert r.returncode == 0, r.stderr
        digests.append(r.stdout.split()[-1])
    assert len(digests[0]) == 64 and digests[0] == digests[1], digests
