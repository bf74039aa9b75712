"""CPU tests of the float64 ``-2 ln u`` and ``sincospi`` of
``kernels/f64math.cu.mako`` (the random kernels' ``f64_math="own"``): the
same arithmetic compiled for the host with its C++ compiler, measured
against long double on millions of inputs of the grids the kernels feed
them (``u = (j + 1) 2**-53``, ``t = j 2**-52``) and at the edges; and the
kernels that use them compile."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

from gpuarr import _philox as P
from gpuarr import random as grandom

from test_random_cpu import _compiler_available

_rng = np.random.default_rng(2024)
_LD = np.longdouble
needs_long_double = pytest.mark.skipif(
    np.finfo(_LD).nmant < 60, reason="long double is no wider than double "
    "here (the reference needs at least 60 bits)")


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """The functions built as a host shared library (ctypes), or skip."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    from mako.template import Template
    from gpuarr.kernels import lookup
    src = Template('<%namespace name="m" file="f64math.cu.mako"/>'
                   '${m.functions(host=True)}', lookup=lookup()).render()
    src += """
extern "C" void neg2log_n(const double *u, double *o, long n)
{ for (long i = 0; i < n; ++i) o[i] = ga_neg2log_f64(u[i]); }
extern "C" void sincospi_n(const double *t, double *s, double *c, long n)
{ for (long i = 0; i < n; ++i) ga_sincospi_f64(t[i], s + i, c + i); }
"""
    d = tmp_path_factory.mktemp("f64math")
    cpp, so = os.path.join(d, "f64math.cpp"), os.path.join(d, "f64math.so")
    with open(cpp, "w") as f:
        f.write(src)
    # each operation one IEEE double operation, as the device's _rn ones
    r = subprocess.run([cxx, "-O2", "-ffp-contract=off", "-fno-fast-math",
                        "-shared", "-fPIC", "-o", so, cpp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    lib = ctypes.CDLL(so)
    dp = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    lib.neg2log_n.argtypes = [dp, dp, ctypes.c_long]
    lib.sincospi_n.argtypes = [dp, dp, dp, ctypes.c_long]
    return lib


def _ulps(got, ref):
    """|got - ref| in float64 ulps at ref (ref in long double)."""
    sp = np.spacing(np.abs(ref.astype(np.float64)))
    sp = np.maximum(sp, np.finfo(np.float64).tiny)
    return (np.abs(got.astype(_LD) - ref) / sp.astype(_LD)).astype(np.float64)


def _open01(n):
    w = _rng.integers(0, 2 ** 63, n, dtype=np.uint64) * np.uint64(2) \
        + _rng.integers(0, 2, n, dtype=np.uint64)
    return P.open01_f64(w)


def neg2log_inputs(n=2_000_000):
    """Edges, values near 1 (small -ln u) and ``n`` draws of the kernels'
    grid ``u = (j + 1) 2**-53``; index 4 is u = 1."""
    edges = np.array([2.0 ** -53, 2.0 ** -52, 0.5, 0.25, 1.0, 1 - 2.0 ** -53,
                      1 - 2.0 ** -52, 1 - 64 * 2.0 ** -53, np.sqrt(0.5),
                      np.nextafter(np.sqrt(0.5), 1), np.nextafter(np.sqrt(0.5), 0),
                      np.nextafter(0.5, 1), np.nextafter(0.5, 0)])
    near_one = 1 - np.arange(1, 5000) * 2.0 ** -53
    return np.concatenate([edges, near_one, _open01(n)])


def check_neg2log(u, got):
    """``got = -2 ln u`` (u from :func:`neg2log_inputs`) within an ulp of
    the long double value, half an ulp in the median."""
    ref = -2 * np.log(u.astype(_LD))
    assert got[4] == 0 and np.signbit(got[4])      # u = 1: -0.0, as -2 * log(1)
    err = _ulps(got, ref)
    assert err.max() <= 1.0, (err.max(), u[err.argmax()])
    assert np.median(err) <= 0.5


def sincospi_inputs(n=2_000_000):
    """Edges (index 0: t = 0, 3: t = 1/2, 5: t = 1) and ``n`` draws of the
    kernels' grid ``t = j 2**-52`` in [0, 2)."""
    edges = np.array([0.0, 2.0 ** -52, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75,
                      2 - 2.0 ** -52, 0.125, 1 - 2.0 ** -52, 0.5 + 2.0 ** -52])
    j = _rng.integers(0, 2 ** 53, n, dtype=np.uint64)
    return np.concatenate([edges, j.astype(np.float64) * 2.0 ** -52])


def check_sincospi(t, s, c):
    """``(s, c) = (sin(pi t), cos(pi t))`` (t from :func:`sincospi_inputs`)
    within the bounds below of the long double values, and within 2 ulps
    of the CPU reference the GPU tests use."""
    # the reference: the same exact reduction, then long double sin and cos
    q = np.rint(2 * t)
    x = (t - 0.5 * q).astype(_LD)
    pi = np.arccos(_LD(-1))
    rs, rc = np.sin(pi * x), np.cos(pi * x)
    qi = q.astype(np.int64) & 3
    ref_s = np.choose(qi, [rs, rc, -rs, -rc])
    ref_c = np.choose(qi, [rc, -rs, -rc, rs])
    for got, ref in ((s, ref_s), (c, ref_c)):
        exact_zero = ref == 0
        assert (got[exact_zero] == 0).all()
        err = _ulps(got[~exact_zero], ref[~exact_zero])
        # the cos series (cos itself, or sin in the odd quadrants) near
        # |x| = 1/4: 1 + z C(z) with |z C| <= 0.309 adds the relative
        # roundings of z and C (2**-53 each) to the final one: at most
        # 0.5 + 2 * 0.309 = 1.12 ulps (1.08 seen); the sin series stays
        # under an ulp.  CUDA documents 2 ulps for its sincospi.
        assert err.max() <= 1.12, (err.max(), t[~exact_zero][err.argmax()])
    assert s[0] == 0 and c[0] == 1 and s[3] == 1 and c[5] == -1
    # and against the CPU reference the GPU tests use (numpy's sin/cos)
    ps, pc = P.sincospi(t)
    assert (np.abs(s - ps) <= 2 * np.spacing(np.abs(ps)) + 1e-300).all()
    assert (np.abs(c - pc) <= 2 * np.spacing(np.abs(pc)) + 1e-300).all()


@needs_long_double
def test_neg2log_within_an_ulp(host):
    u = neg2log_inputs()
    got = np.empty_like(u)
    host.neg2log_n(u, got, u.size)
    check_neg2log(u, got)


@needs_long_double
def test_sincospi_within_an_ulp(host):
    t = sincospi_inputs()
    s = np.empty_like(t)
    c = np.empty_like(t)
    host.sincospi_n(t, s, c, t.size)
    check_sincospi(t, s, c)


def test_constants_are_the_series():
    assert P.NEG2LOG_F64_C[0] == 2 / 3 and P.NEG2LOG_F64_C[-1] == 2 / 21
    assert P.LN2_HI_F64 + P.LN2_LO_F64 == np.log(2.0)
    assert P.LN2_HI_F64 * 2 ** 42 == int(P.LN2_HI_F64 * 2 ** 42)  # 42 bits
    assert P.PI_HI_F64 == np.pi
    assert abs(P.SINPI_F64_C[0] + np.pi ** 3 / 6) <= 1e-15
    assert abs(P.COSPI_F64_C[0] + np.pi ** 2 / 2) <= 1e-15
    assert len(P.SINPI_F64_C) == len(P.COSPI_F64_C) == 8


def test_own_math_renders_only_where_used():
    for dist in ("normal", "exponential"):
        _, src, _ = grandom.kernel_spec(dist, np.dtype(np.float64), False, 2,
                                        f64_math="own")
        assert "ga_neg2log_f64(" in src
        assert "#define GA_F64_CONST __constant__" in src
        _, lib, _ = grandom.kernel_spec(dist, np.dtype(np.float64), False, 2,
                                        f64_math="library")
        assert "ga_neg2log_f64" not in lib and " log(" in lib
    _, src, _ = grandom.kernel_spec("normal", np.dtype(np.float32), False, 4,
                                    f64_math="own")
    assert "ga_neg2log_f64" not in src
    with pytest.raises(ValueError, match="f64_math"):
        grandom.kernel_spec("normal", np.dtype(np.float64), False, 2,
                            f64_math="fast")


@pytest.mark.skipif(not _compiler_available(), reason="no NVRTC or nvcc")
@pytest.mark.parametrize("dist", ["normal", "exponential"])
@pytest.mark.parametrize("affine", [False, True])
def test_own_math_kernels_compile(dist, affine):
    from gpuarr.compiler import compile
    name, src, _ = grandom.kernel_spec(dist, np.dtype(np.float64), affine, 2,
                                       f64_math="own")
    cubin = compile(src, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert name.encode() in cubin
