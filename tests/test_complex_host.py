"""gpuarr/complex.hpp's division and tanh run on the host (g++), against
numpy and C99 Annex G, with no GPU.

The header is device code, but these two functions use nothing a host
compiler lacks once ``GA_DEV`` is ``inline`` and ``__longlong_as_double``
is given; the GPU half is tests/test_compiler_compat_gpu.py.
"""
import os
import shutil
import struct
import subprocess
import warnings

import numpy as np
import pytest

CXX = shutil.which("g++") or shutil.which("c++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler")

INCLUDE = os.path.join(os.path.dirname(__file__), os.pardir, "gpuarr", "include")

# reads (op, n) then n rows of 4 doubles; writes n rows of 4 doubles:
# op 0: complex<double> and complex<float> a / b for a = r0 + i r1, b = r2 + i r3
# op 1: tanh of r0 + i r1 in both types
HARNESS = r"""
#include <cmath>
#include <cstdio>
#include <cstring>
using std::isnan; using std::isinf; using std::isfinite;
#define GA_DEV inline
inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
#include <gpuarr/complex.hpp>
typedef gpuarr::complex<double> C;
typedef gpuarr::complex<float> F;
int main() {
    int op; long long n;
    if (fread(&op, 4, 1, stdin) != 1 || fread(&n, 8, 1, stdin) != 1) return 1;
    for (long long k = 0; k < n; ++k) {
        double r[4], out[4];
        if (fread(r, 8, 4, stdin) != 4) return 2;
        C a(r[0], r[1]);
        F af((float)r[0], (float)r[1]);
        C d = op == 0 ? a / C(r[2], r[3]) : gpuarr::tanh(a);
        F f = op == 0 ? af / F((float)r[2], (float)r[3]) : gpuarr::tanh(af);
        out[0] = d.re; out[1] = d.im; out[2] = f.re; out[3] = f.im;
        fwrite(out, 8, 4, stdout);
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    where = tmp_path_factory.mktemp("complex-host")
    src, exe = where / "harness.cpp", where / "harness"
    src.write_text(HARNESS)
    subprocess.run([CXX, "-std=c++14", "-O1", "-ffp-contract=off", "-I", INCLUDE,
                    str(src), "-o", str(exe)], check=True)

    def run(op, rows):
        rows = np.ascontiguousarray(rows, np.float64).reshape(-1, 4)
        out = subprocess.run([str(exe)], input=struct.pack("<iq", op, len(rows))
                             + rows.tobytes(), stdout=subprocess.PIPE,
                             check=True).stdout
        got = np.frombuffer(out, np.float64).reshape(-1, 2, 2)
        # (no x + 1j * y: 1j * inf has a NaN real part)
        return (got[:, 0].copy().view(np.complex128)[:, 0],
                got[:, 1].astype(np.float32).view(np.complex64)[:, 0])
    return run


def ulps(got, want):
    """Per-part distance in units in the last place of ``want``'s type
    (0 where both are the same NaN or infinity)."""
    real = np.finfo(want.dtype).dtype
    out = []
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        g, w = g.astype(real), w.astype(real)
        with np.errstate(all="ignore"):
            d = np.abs(g.astype(np.float64) - w.astype(np.float64))
            u = d / np.spacing(np.abs(w)).astype(np.float64)
        u[(g == w) | (np.isnan(g) & np.isnan(w))] = 0
        out.append(u)
    return np.maximum(*out)


def spread(rng, n):
    """Finite values of every magnitude and sign."""
    return rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-300, 300, n)


def test_division_is_smiths_within_an_ulp_of_numpy(harness):
    rng = np.random.default_rng(11)
    n = 20000
    rows = np.concatenate([np.stack([spread(rng, n) for _ in range(4)], 1),
                           rng.standard_normal((n, 4)) * 10])
    a = rows[:, 0] + 1j * rows[:, 1]
    b = rows[:, 2] + 1j * rows[:, 3]
    got, got32 = harness(0, rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a / b
        want32 = a.astype(np.complex64) / b.astype(np.complex64)
    # numpy multiplies by a rounded reciprocal, we divide: at most an ulp
    # apart in double; float's overflowing reciprocal aside (below), a few
    assert ulps(got, want).max() <= 1
    ok = np.isfinite(want32)
    assert ulps(got32[ok], want32[ok]).max() <= 4
    # the quotient is closer to the exact one (long double) at least as often
    exact = a.astype(np.clongdouble) / b.astype(np.clongdouble)
    fine = np.isfinite(want) & (np.abs(exact) > 1e-290)
    ours = ulps(got[fine], exact[fine].astype(np.complex128)) <= 0.5
    theirs = ulps(want[fine], exact[fine].astype(np.complex128)) <= 0.5
    assert ours.mean() >= theirs.mean()


def test_division_special_values(harness):
    inf, nan, tiny = np.inf, np.nan, 1e-43    # tiny: a float32 subnormal
    rows = [(1, 2, 0, 0), (-1, 0, 0, 0), (0, 0, 0, 0), (0, -1, -0.0, 0),
            (3, 4, inf, 0), (3, 4, 0, -inf), (inf, 1, 1, 1), (1, 1, nan, 0),
            (1, 1, 0, nan), (0, 0, tiny, 0), (-0.0, 0, 0, tiny),
            (1e300, 1e300, 1e-300, 1e-300), (6, 8, 3, 4), (1, 0, 0, 2)]
    got, got32 = harness(0, rows)
    # a zero divisor: each part over +0 (numpy's result)
    assert got[0] == complex(inf, inf) and got32[0] == complex(inf, inf)
    assert got[1].real == -inf and np.isnan(got[1].imag)
    assert np.isnan(got[2].real) and np.isnan(got[2].imag)
    assert np.isnan(got[3].real) and got[3].imag == -inf
    # a finite number over an infinity is zero
    assert got[4] == 0 and got[5] == 0
    # a NaN part of the divisor makes both parts NaN
    for k in (7, 8):
        assert np.isnan(got[k].real) and np.isnan(got[k].imag), k
    # zero over a float32 subnormal: zero (numpy's complex64 reciprocal
    # overflows to inf and gives NaN here)
    assert got32[9] == 0 and got32[10] == 0 and got[9] == 0
    # no overflow inside: (1e300 + 1e300 i) / (1e-300 + 1e-300 i) overflows
    # only in the quotient's own range
    assert got[11].real == inf or got[11].real > 1e307
    assert got[12] == 2 and got32[12] == 2
    assert got[13] == complex(0, -0.5) and got32[13] == complex(0, -0.5)


def test_tanh_within_a_few_ulp_of_numpy(harness):
    rng = np.random.default_rng(12)
    n = 20000
    x = np.concatenate([rng.uniform(-30, 30, n), rng.standard_normal(n),
                        rng.uniform(-400, 400, n), spread(rng, n)])
    y = np.concatenate([rng.uniform(-10, 10, n), 3 * rng.standard_normal(n),
                        rng.uniform(-4, 4, n), spread(rng, n)])
    rows = np.stack([x, y, 0 * x, 0 * y], 1)
    got, got32 = harness(1, rows)
    z = x + 1j * y
    assert ulps(got, np.tanh(z)).max() <= 8
    # complex<float> is computed in double and rounded once
    with np.errstate(all="ignore"):
        exact32 = np.tanh(z.astype(np.complex64).astype(np.complex128)).astype(np.complex64)
    assert ulps(got32, exact32).max() <= 1


def test_tanh_large_real_part_needs_no_overflow(harness):
    x = np.array([21.9, 22.0, 30.0, 354.0, 356.0, 710.0, 1e300, -22.0, -800.0])
    y = np.array([0.5, -0.5, 2.0, 1.0, -1.0, 3.0, 0.25, 1.5, -2.5])
    got, _ = harness(1, np.stack([x, y, 0 * x, 0 * y], 1))
    want = np.sign(x) + 1j * 2 * np.sin(2 * y) * np.exp(-2 * np.abs(x))
    assert np.all(np.isfinite(got.real)) and np.all(np.isfinite(got.imag))
    np.testing.assert_allclose(got.real, want.real, rtol=1e-15)
    np.testing.assert_allclose(got.imag, want.imag, rtol=1e-12, atol=0)
    # e^(-2|x|) underflows: a zero of the sign of sin 2y
    assert np.all(np.signbit(got.imag[5:7]) == np.signbit(np.sin(2 * y[5:7])))


def test_tanh_special_values_follow_annex_g(harness):
    inf, nan = np.inf, np.nan
    cases = [  # (x, y) -> (re, im); None: any NaN, "0": a zero of either sign
        ((0.0, 0.0), (0.0, 0.0)), ((-0.0, -0.0), (-0.0, -0.0)),
        ((1.0, inf), (None, None)), ((1.0, nan), (None, None)),
        ((0.0, inf), (0.0, None)), ((-0.0, nan), (-0.0, None)),
        ((inf, 1.0), (1.0, 0.0)), ((-inf, 2.0), (-1.0, -0.0)),   # sin 4 < 0
        ((inf, inf), (1.0, 0.0)), ((-inf, -inf), (-1.0, -0.0)),
        ((inf, nan), (1.0, "0")), ((nan, 0.0), (None, 0.0)),
        ((nan, -0.0), (None, -0.0)), ((nan, 1.0), (None, None)),
        ((nan, nan), (None, None)),
    ]
    rows = [(x, y, 0, 0) for (x, y), _ in cases]
    got, got32 = harness(1, rows)
    for k, (arg, want) in enumerate(cases):
        for g in (got[k], complex(got32[k])):
            for part, w in ((g.real, want[0]), (g.imag, want[1])):
                if w is None:
                    assert np.isnan(part), (arg, g)
                elif w == "0":
                    assert part == 0, (arg, g)
                else:
                    assert part == w and np.signbit(part) == np.signbit(w), (arg, g)
