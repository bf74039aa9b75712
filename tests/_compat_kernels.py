"""CUDA sources shared by the CPU and GPU tests of nvcc-style kernels under
NVRTC (tests/test_compiler_compat.py, tests/test_compiler_compat_gpu.py),
and the numpy references of the complex functions."""
import numpy as np

#: Every C header gpuarr supplies to NVRTC, used the way nvcc code uses them.
HEADERS_KERNEL = r"""
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <limits.h>
#include <float.h>
#include <assert.h>

__global__ void headers(double *out, uint a, ushort b, ulong c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(n > 0);
    uint32_t u32 = UINT32_MAX; int64_t i64 = INT64_MIN; uint8_t u8 = UINT8_MAX;
    int16_t i16 = INT16_MIN; uint64_t u64 = UINT64_C(1) << 40; intptr_t ip = 0;
    size_t sz = sizeof(double); ptrdiff_t pd = &out[1] - &out[0];
    double v[20] = {M_PI, M_E, M_SQRT2, M_LN2, (double)INT_MAX, (double)INT_MIN,
                    (double)UINT_MAX, (double)CHAR_BIT, (double)LLONG_MAX, (double)FLT_MAX,
                    DBL_EPSILON, (double)FLT_EPSILON, (double)u32, (double)i64, (double)u8,
                    (double)i16, (double)u64, (double)(ip + (intptr_t)sz + pd),
                    (double)(a + b + c), isinf(INFINITY) && isnan(NAN) && HUGE_VAL > DBL_MAX ? 1.0 : 0.0};
    out[i] = v[i % 20];
    if (i == 0)
        printf("gpuarr printf: n=%d a=%u pi=%.3f\n", n, a, M_PI);
}
"""


def headers_expected(n, a, b, c):
    """What HEADERS_KERNEL writes, computed on the host."""
    v = [np.pi, np.e, np.sqrt(2), np.log(2), 2 ** 31 - 1, -2 ** 31, 2 ** 32 - 1,
         8, float(2 ** 63 - 1), float(np.finfo(np.float32).max),
         np.finfo(np.float64).eps, float(np.finfo(np.float32).eps),
         2 ** 32 - 1, float(-2 ** 63), 255, -32768, 2 ** 40, 9, a + b + c, 1]
    return np.array([v[i % 20] for i in range(n)], np.float64)


#: (name, C expression of z, w (complex) and r (real), numpy reference,
#: ulp tolerance for complex128).  Real-valued results are stored as the
#: real part.
FUNCTIONS = [
    ("exp", "exp(z)", lambda z, w, r: np.exp(z), 8),
    ("log", "log(z)", lambda z, w, r: np.log(z), 8),
    ("log10", "log10(z)", lambda z, w, r: np.log10(z), 8),
    ("sin", "sin(z)", lambda z, w, r: np.sin(z), 8),
    ("cos", "cos(z)", lambda z, w, r: np.cos(z), 8),
    ("tan", "tan(z)", lambda z, w, r: np.tan(z), 16),
    ("sinh", "sinh(z)", lambda z, w, r: np.sinh(z), 8),
    ("cosh", "cosh(z)", lambda z, w, r: np.cosh(z), 8),
    ("tanh", "tanh(z)", lambda z, w, r: np.tanh(z), 16),
    ("sqrt", "sqrt(z)", lambda z, w, r: np.sqrt(z), 4),
    ("asin", "asin(z)", lambda z, w, r: np.arcsin(z), 16),
    ("acos", "acos(z)", lambda z, w, r: np.arccos(z), 16),
    ("atan", "atan(z)", lambda z, w, r: np.arctan(z), 16),
    ("asinh", "asinh(z)", lambda z, w, r: np.arcsinh(z), 16),
    ("acosh", "acosh(z)", lambda z, w, r: np.arccosh(z), 16),
    ("atanh", "atanh(z)", lambda z, w, r: np.arctanh(z), 16),
    ("pow_cc", "pow(z, w)", lambda z, w, r: z ** w, 64),
    ("pow_cr", "pow(z, r)", lambda z, w, r: z ** (r + 0j), 64),
    ("pow_rc", "pow(r, z)", lambda z, w, r: (r + 0j) ** z, 64),
    ("pow_c2", "pow(z, 2)", lambda z, w, r: z * z, 4),
    ("abs", "C(abs(z))", lambda z, w, r: np.abs(z) + 0j, 4),
    ("arg", "C(arg(z))", lambda z, w, r: np.angle(z) + 0j, 4),
    ("norm", "C(norm(z))", lambda z, w, r: (z.real ** 2 + z.imag ** 2) + 0j, 4),
    ("conj", "conj(z)", lambda z, w, r: np.conj(z), 0),
    ("real_imag", "C(real(z) + 2 * imag(z))", lambda z, w, r: (z.real + 2 * z.imag) + 0j, 2),
    ("polar", "gpuarr::polar(abs(r), r)", lambda z, w, r: np.abs(r) * np.exp(1j * r), 8),
    ("proj", "proj(z)", lambda z, w, r: z, 0),
    ("mul_real", "z * 2.0 + 3 * z", lambda z, w, r: 5 * z, 2),
    ("add_real", "(z + r) - (1.5f - w)", lambda z, w, r: (z + r) - (1.5 - w), 4),
    ("div_real", "r / z + z / 4.0", lambda z, w, r: r / z + z / 4, 8),
    ("arith", "z * w - z / w + (-z) + (+w)", lambda z, w, r: z * w - z / w - z + w, 8),
    ("compare", "C((z == z) + 2 * (z != w) + 4 * (z == r) + 8 * (C(r) == r))",
     lambda z, w, r: np.full(z.shape, 11 + 0j), 0),
]

#: One kernel evaluating FUNCTIONS for complex<T> through PyCUDA's header.
COMPLEX_KERNEL = r"""
#include <pycuda-complex.hpp>

template <class T>
__device__ void all_functions(pycuda::complex<T> *out, const pycuda::complex<T> *zs,
                              const pycuda::complex<T> *ws, const T *rs, int n)
{
    typedef pycuda::complex<T> C;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const C z = zs[i], w = ws[i];
    const T r = rs[i];
    int k = 0;
%(body)s
}

extern "C" __global__ void functions_f(pycuda::complex<float> *out, const pycuda::complex<float> *z,
                                       const pycuda::complex<float> *w, const float *r, int n)
{ all_functions(out, z, w, r, n); }

extern "C" __global__ void functions_d(pycuda::complex<double> *out, const pycuda::complex<double> *z,
                                       const pycuda::complex<double> *w, const double *r, int n)
{ all_functions(out, z, w, r, n); }
""" % {"body": "\n".join("    out[(k++) * n + i] = C(%s);  // %s" % (expr, name)
                         for name, expr, _, _ in FUNCTIONS)}


def function_inputs(rng, n, real):
    """Fresh z, w (complex, both signs of the real part, |Im| >= 0.1: off
    the branch cuts) and r (real, |r| >= 0.1) for COMPLEX_KERNEL."""
    def cplx():
        re = rng.uniform(-3, 3, n)
        im = rng.uniform(0.1, 3, n) * rng.choice([-1, 1], n)
        return re + 1j * im
    r = rng.uniform(0.1, 3, n) * rng.choice([-1, 1], n)
    ctype = np.complex64 if real == np.float32 else np.complex128
    return cplx().astype(ctype), cplx().astype(ctype), r.astype(real)


_ARITH = ("mul_real", "add_real", "div_real", "arith")


def check_functions(out, z, w, r):
    """Compare COMPLEX_KERNEL's output (len(FUNCTIONS) rows of len(z)) with
    numpy evaluated in complex128 on the same inputs.

    The error is measured in units of eps of the precision, relative to
    max(|reference|, 1/4) (so that a result near 0, whose relative error
    is ill-conditioned, is held to an absolute error), and for the
    arithmetic rows relative to the size of the operands. complex<float>
    results are computed in double and rounded once: 4 eps (8 for the
    arithmetic, done in float); complex<double> ones use FUNCTIONS' ulps.

    Returns
    -------
    list of str
        One line per function with errors past its tolerance.
    """
    n = len(z)
    out = np.asarray(out).reshape(len(FUNCTIONS), n)
    single = z.dtype == np.complex64
    z2, w2, r2 = z.astype(np.complex128), w.astype(np.complex128), r.astype(np.float64)
    eps = np.finfo(np.float32 if single else np.float64).eps
    bad = []
    for k, (name, expr, ref_fn, ulps) in enumerate(FUNCTIONS):
        with np.errstate(all="ignore"):
            ref = np.asarray(ref_fn(z2, w2, r2), np.complex128)
        got = out[k].astype(np.complex128)
        if single and ulps:
            ulps = 4 if name not in _ARITH else 8
        scale = np.maximum(np.abs(ref), 0.25)
        if name in _ARITH:
            scale = np.maximum(scale, np.abs(z2) * np.abs(w2) + np.abs(z2) / np.abs(w2)
                               + np.abs(z2) + np.abs(w2) + np.abs(r2) / np.abs(z2)
                               + np.abs(r2) + 1.5)
        err = np.abs(got - ref) / scale
        if ulps == 0:
            ok = got == ref.astype(z.dtype).astype(np.complex128)
        else:
            ok = err <= ulps * eps
        if not ok.all():
            i = int(np.argmax(~ok))
            bad.append("%s (%s): %d of %d off, e.g. z=%r w=%r r=%r got %r want %r "
                       "(%.1f eps)" % (name, expr, int((~ok).sum()), n, z[i], w[i], r[i],
                                       got[i], ref[i], err[i] / eps))
    return bad
