"""CPU test of gpuarr.interp's kernel body (``gpuarr._interp``'s
preamble and operations, unchanged) compiled for the host, with CUDA's
round-to-nearest double intrinsics as the plain operations they are and
no contraction into FMAs: on fresh random data every value must equal
numpy.interp's bit for bit, real and complex, with ``x`` below, inside,
on and above the sample points, NaN ``x``, one sample point, given
``left``/``right`` and infinite ``fp`` (numpy's NaN fallbacks)."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

from gpuarr import _interp as mf

HOST = r"""
#include <cmath>
using std::isnan;
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __drcp_rn(double a) { return 1.0 / a; }
#define __device__
#define __forceinline__ inline
"""

RUN = r"""
extern "C" void run_%s(long long m, const double *x, double *out,
                       const double *xp, const double *fp, long long nxp,
                       int has_left, %s, int has_right, %s)
{
    for (long long i = 0; i < m; ++i) {
%s
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    src = HOST + mf._INTERP_PREAMBLE
    src += RUN % ("real", "double left", "double right", mf._INTERP_REAL)
    src += RUN % ("complex", "double left_re, double left_im",
                  "double right_re, double right_im", mf._INTERP_COMPLEX)
    d = tmp_path_factory.mktemp("interp")
    cpp, so = os.path.join(d, "interp.cpp"), os.path.join(d, "interp.so")
    with open(cpp, "w") as f:
        f.write(src)
    r = subprocess.run([cxx, "-O2", "-ffp-contract=off", "-shared", "-fPIC",
                        "-o", so, cpp], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return ctypes.CDLL(so)


def _p(a):
    return ctypes.c_void_p(a.ctypes.data)


def _host_interp(lib, x, xp, fp, left=None, right=None):
    x = np.ascontiguousarray(x, np.float64)
    xp = np.ascontiguousarray(xp, np.float64)
    cplx = np.iscomplexobj(fp)
    fp = np.ascontiguousarray(fp, np.complex128 if cplx else np.float64)
    out = np.full(x.shape, np.nan, fp.dtype)
    L = ctypes.c_longlong
    D = ctypes.c_double
    if cplx:
        lv = [0, 0.0, 0.0] if left is None else [1, complex(left).real,
                                                 complex(left).imag]
        rv = [0, 0.0, 0.0] if right is None else [1, complex(right).real,
                                                  complex(right).imag]
        lib.run_complex(L(x.size), _p(x), _p(out), _p(xp), _p(fp),
                        L(xp.size), ctypes.c_int(lv[0]), D(lv[1]), D(lv[2]),
                        ctypes.c_int(rv[0]), D(rv[1]), D(rv[2]))
    else:
        lv = [0, 0.0] if left is None else [1, float(left)]
        rv = [0, 0.0] if right is None else [1, float(right)]
        lib.run_real(L(x.size), _p(x), _p(out), _p(xp), _p(fp), L(xp.size),
                     ctypes.c_int(lv[0]), D(lv[1]), ctypes.c_int(rv[0]),
                     D(rv[1]))
    return out


@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_interp_body_equals_numpy_bit_for_bit(lib, cplx):
    rng = np.random.default_rng()
    for nxp, nx in ((50, 2000), (50, 20), (2, 100), (1, 30), (7, 7)):
        xp = np.sort(rng.uniform(-5, 5, nxp))
        if nxp > 3:
            xp[2] = xp[3]                       # a repeated sample point
        fp = rng.standard_normal(nxp)
        if cplx:
            fp = fp + 1j * rng.standard_normal(nxp)
        if nxp > 5:
            fp[4] = np.inf                      # numpy's NaN fallbacks
            fp[5] = -np.inf if not cplx else complex(np.inf, -np.inf)
        x = rng.uniform(-7, 7, nx)
        x[:min(nx, nxp)] = xp[:min(nx, nxp)]    # exactly on the points
        x[-1] = np.nan
        for left, right in ((None, None), (-9.5, 11.25)):
            if cplx and left is not None:
                left, right = complex(left, 2), complex(right, -3)
            with np.errstate(all="ignore"):
                want = np.interp(x, xp, fp, left, right)
            got = _host_interp(lib, x, xp, fp, left, right)
            assert got.tobytes() == want.tobytes(), (nxp, nx, left)
