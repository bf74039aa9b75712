"""numpy's ``interp`` over GPUArrays (layer 6): numpy's C loop as one
kernel, a thread an ``x``.

The interval comes from a binary search for the last ``xp[j] <= x``;
then numpy's cases (NaN ``x``, below and above the points, a point hit
exactly, the last point) and its slope, every step rounded on its own as
numpy's loop does (no contraction into FMAs): real ``fp`` divides by the
step, complex ``fp`` multiplies by its reciprocal, as numpy's two loops.
``tests/test_interp_host_cpu.py`` compiles this body for the host and
holds it to numpy bit for bit.
"""

import numpy as np

from . import _placement
from . import _creation, _joining, _selection, _sorting, _ufunc, elementwise

__all__ = ["interp"]


# the kernels' pieces (read by tests/test_interp_host_cpu.py too)
_INTERP_PREAMBLE = r"""
__device__ __forceinline__ long long ga_interp_j(double x, const double *xp,
                                                 long long n)
{
    if (x < xp[0]) return -1;
    if (x > xp[n - 1]) return n;
    long long lo = 0, hi = n;
    while (hi - lo > 1) {
        const long long mid = lo + ((hi - lo) >> 1);
        if (xp[mid] <= x) lo = mid; else hi = mid;
    }
    return lo;
}

// slope (x - xp[k]) + f[k], rounded step by step
__device__ __forceinline__ double ga_interp_at(double slope, double x,
                                               double xk, double fk)
{
    return __dadd_rn(__dmul_rn(slope, __dsub_rn(x, xk)), fk);
}

// one part (real, or one of a complex value's) between xp[j] and xp[j+1]
__device__ __forceinline__ double ga_interp_part(double slope, double x,
        const double *xp, long long j, double f0, double f1)
{
    double r = ga_interp_at(slope, x, xp[j], f0);
    if (isnan(r)) {
        r = ga_interp_at(slope, x, xp[j + 1], f1);
        if (isnan(r) && f0 == f1) r = f0;
    }
    return r;
}
"""

_INTERP_REAL = r"""
const double xv = x[i];
const double lv = has_left ? left : fp[0];
const double rv = has_right ? right : fp[nxp - 1];
double r;
if (nxp == 1) {
    r = xv < xp[0] ? lv : (xv > xp[0] ? rv : fp[0]);
} else if (isnan(xv)) {
    r = xv;
} else {
    const long long j = ga_interp_j(xv, xp, nxp);
    if (j == -1) r = lv;
    else if (j == nxp) r = rv;
    else if (j == nxp - 1 || xp[j] == xv) r = fp[j];
    else {
        const double slope = __ddiv_rn(__dsub_rn(fp[j + 1], fp[j]),
                                       __dsub_rn(xp[j + 1], xp[j]));
        r = ga_interp_part(slope, xv, xp, j, fp[j], fp[j + 1]);
    }
}
out[i] = r;
"""

_INTERP_COMPLEX = r"""
const double xv = x[i];
const double lre = has_left ? left_re : fp[0], lim = has_left ? left_im : fp[1];
const double rre = has_right ? right_re : fp[2 * nxp - 2];
const double rim = has_right ? right_im : fp[2 * nxp - 1];
double re, im;
if (nxp == 1) {
    const bool below = xv < xp[0], above = xv > xp[0];
    re = below ? lre : (above ? rre : fp[0]);
    im = below ? lim : (above ? rim : fp[1]);
} else if (isnan(xv)) {
    re = xv;
    im = 0.0;
} else {
    const long long j = ga_interp_j(xv, xp, nxp);
    if (j == -1) { re = lre; im = lim; }
    else if (j == nxp) { re = rre; im = rim; }
    else if (j == nxp - 1 || xp[j] == xv) { re = fp[2 * j]; im = fp[2 * j + 1]; }
    else {
        const double inv = __drcp_rn(__dsub_rn(xp[j + 1], xp[j]));
        const double sre = __dmul_rn(__dsub_rn(fp[2 * j + 2], fp[2 * j]), inv);
        const double sim = __dmul_rn(__dsub_rn(fp[2 * j + 3], fp[2 * j + 1]), inv);
        re = ga_interp_part(sre, xv, xp, j, fp[2 * j], fp[2 * j + 2]);
        im = ga_interp_part(sim, xv, xp, j, fp[2 * j + 1], fp[2 * j + 3]);
    }
}
out[2 * i] = re;
out[2 * i + 1] = im;
"""

_interp_kernels = {}


def _interp_kernel(cplx):
    k = _interp_kernels.get(cplx)
    if k is None:
        if cplx:
            args = ("const double *x, double *out, const double *xp, "
                    "const double *fp, long long nxp, int has_left, "
                    "double left_re, double left_im, int has_right, "
                    "double right_re, double right_im")
        else:
            args = ("const double *x, double *out, const double *xp, "
                    "const double *fp, long long nxp, int has_left, "
                    "double left, int has_right, double right")
        k = elementwise.ElementwiseKernel(args, _INTERP_COMPLEX if cplx else
                              _INTERP_REAL, name="gpuarr_interp",
                              preamble=_INTERP_PREAMBLE)
        _interp_kernels[cplx] = k
    return k


def _one_d(v, dt):
    v = _creation.asarray(v, dtype=dt)
    if v.ndim != 1:
        raise ValueError("object too deep for desired array" if v.ndim > 1
                         else "object of too small depth for desired array")
    return v if v.flags.c_contiguous else v.copy()


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` at ``x``
    (numpy.interp).

    Parameters
    ----------
    x : GPUArray or array_like
        Where to evaluate (any shape; float64 inside).
    xp : GPUArray or array_like
        1-d, increasing (not checked, as numpy; without ``period``).
    fp : GPUArray or array_like
        1-d, as long as ``xp``; real or complex.
    left, right : scalar, optional
        The value below ``xp[0]`` and above ``xp[-1]`` (default ``fp[0]``
        and ``fp[-1]``).
    period : float, optional
        For angles: ``x`` and ``xp`` taken modulo it (``xp`` sorted
        then), ``left`` and ``right`` ignored.

    Returns
    -------
    GPUArray
        ``x``'s shape, float64 (complex128 for complex ``fp``).

    Raises
    ------
    ValueError
        For an empty ``xp``, lengths that differ, arrays not 1-d, or a
        zero ``period`` (numpy's messages).
    """
    fp_dev = _creation.asarray(fp)
    cplx = fp_dev.dtype.kind == "c"
    fdt = np.dtype(np.complex128 if cplx else np.float64)
    x = _creation.asarray(x, dtype=np.float64)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        xp = _creation.asarray(xp, dtype=np.float64)
        fp_dev = fp_dev.astype(fdt) if fp_dev.dtype != fdt else fp_dev
        if xp.ndim != 1 or fp_dev.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp_dev.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x = _ufunc.remainder(x, period)
        xp = _ufunc.remainder(xp, period)
        order = _sorting.argsort(xp)
        xp = _selection.take(xp, order)
        fp_dev = _selection.take(fp_dev, order)
        xp = _joining.concatenate((_ufunc.subtract(xp[-1:], period), xp,
                                   _ufunc.add(xp[0:1], period)))
        fp_dev = _joining.concatenate((fp_dev[-1:], fp_dev, fp_dev[0:1]))
    xp = _one_d(xp, np.float64)
    fp_dev = _one_d(fp_dev, fdt)
    n = fp_dev.shape[0]
    if n == 0:
        raise ValueError("array of sample points is empty")
    if xp.shape[0] != n:
        raise ValueError("fp and xp are not of the same length.")
    xc = x if x.flags.c_contiguous else x.copy()
    out = _creation.empty_c(x.shape, fdt)
    if x.size == 0:
        return out
    flat_fp = fp_dev.view(np.float64) if cplx else fp_dev
    # (flattened first: a 0-d array cannot change its item size)
    flat_out = out.reshape(-1)
    flat_out = flat_out.view(np.float64) if cplx else flat_out

    def scalar(v):
        if v is None:
            return (0, 0.0, 0.0) if cplx else (0, 0.0)
        c = complex(v) if cplx else float(v)
        return (1, c.real, c.imag) if cplx else (1, c)
    _interp_kernel(cplx)(xc.reshape(-1), flat_out, xp, flat_fp,
                         n, *scalar(left), *scalar(right))
    return out


_placement.route(globals())
