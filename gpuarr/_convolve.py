"""numpy's ``correlate`` and ``convolve`` of 1-d sequences over GPUArrays
(layer 6): one kernel, a thread an output element summing its products
directly, as numpy's loop of dot products does (no FFT).

numpy's rules throughout: the common dtype of the two inputs; for
``correlate`` the second input conjugated (complex), and, when it is the
longer one, the two swapped and the output reversed; ``convolve`` is the
correlation with the reversed shorter input.  Sums run in the dtype
(integers wrap as numpy's), float16 in float32, bool as "any of the
ands"; float sums may differ from numpy's in the last places (numpy hands
float dot products to BLAS, whose order is its own).
"""

import numpy as np

from . import _placement
from . import _creation, _dtypes, _ufunc, elementwise

__all__ = ["correlate", "convolve"]

_MODES = {"valid": 0, "same": 1, "full": 2, 0: 0, 1: 1, 2: 2}

_BODY = r"""
const long long lo = nl - i > 0 ? nl - i : 0;
const long long end = n1 + nl - i;
const long long hi = end < n2 ? end : n2;
%(acc)s s = %(zero)s;
for (long long j = lo; j < hi; ++j)
    %(step)s;
out[i] = %(store)s;
"""

_kernels = {}


def _kernel(dt):
    k = _kernels.get(dt)
    if k is None:
        c = _dtypes.ctype(dt)
        if dt.kind == "b":
            parts = dict(acc="bool", zero="false",
                         step="s = s || (x[i - nl + j] && y[j])", store="s")
        elif dt.char == "e":
            parts = dict(acc="float", zero="0.0f",
                         step="s += (float)x[i - nl + j] * (float)y[j]",
                         store="ga_half(s)")
        else:
            # integers wrap at each step; the sum mod 2**bits is numpy's
            # (which sums in a long and casts at the end)
            parts = dict(acc="ga_t", zero="(ga_t)0",
                         step="s = (ga_t)(s + x[i - nl + j] * y[j])",
                         store="s")
        args = ("%s *out, const %s *x, const %s *y, long long n1, "
                "long long n2, long long nl" % (c, c, c))
        k = elementwise.ElementwiseKernel(args, _BODY % parts,
                                          name="gpuarr_correlate",
                                          preamble="typedef %s ga_t;" % c)
        _kernels[dt] = k
    return k


def _mode(mode):
    m = _MODES.get(mode)
    if m is None:
        raise ValueError("mode must be one of 'valid', 'same', or 'full' "
                         "(got %r)" % (mode,))
    return m


def _vector(v):
    v = _creation.asarray(v)
    if v.ndim == 0:
        v = v.reshape((1,))
    if v.ndim != 1:
        raise ValueError("object too deep for desired array")
    return v


def _core(x, y, mode, dt):
    """numpy's correlation of ``x`` with ``y`` (``len(x) >= len(y)``):
    ``out[k] = sum_j x[k - nl + j] y[j]`` over the terms inside ``x``."""
    n1, n2 = x.shape[0], y.shape[0]
    if mode == 0:
        length, nl = n1 - n2 + 1, 0
    elif mode == 1:
        length, nl = n1, n2 // 2
    else:
        length, nl = n1 + n2 - 1, n2 - 1
    out = _creation.empty_c((length,), dt)
    xc = x if x.flags.c_contiguous else x.copy()
    yc = y if y.flags.c_contiguous else y.copy()
    _kernel(dt)(out, xc, yc, n1, n2, nl)
    return out


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-d sequences (numpy.correlate):
    ``c[k] = sum_n a[n + k] * conj(v[n])``.

    Parameters
    ----------
    a, v : GPUArray or array_like
        1-d (a scalar counts as one element), not empty.
    mode : {'valid', 'same', 'full'}
        Output length ``max(M, N) - min(M, N) + 1``, ``max(M, N)`` or
        ``M + N - 1``.

    Returns
    -------
    GPUArray
        1-d of the two inputs' promoted dtype.

    Raises
    ------
    ValueError
        For an empty input, more than one dimension, or an unknown mode.
    """
    m = _mode(mode)
    a, v = _vector(a), _vector(v)
    if a.shape[0] == 0:
        raise ValueError("first array argument cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("second array argument cannot be empty")
    dt = np.result_type(a.dtype, v.dtype)
    a = a if a.dtype == dt else a.astype(dt)
    v = v if v.dtype == dt else v.astype(dt)
    if dt.kind == "c":
        v = _ufunc.conjugate(v)
    if a.shape[0] < v.shape[0]:
        return _core(v, a, m, dt)[::-1].copy()
    return _core(a, v, m, dt)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-d sequences
    (numpy.convolve): ``c[k] = sum_n a[n] * v[k - n]``.

    Parameters
    ----------
    a, v : GPUArray or array_like
        1-d (a scalar counts as one element), not empty.
    mode : {'full', 'same', 'valid'}
        Output length ``M + N - 1``, ``max(M, N)`` or ``max(M, N) -
        min(M, N) + 1``.

    Returns
    -------
    GPUArray
        1-d of the two inputs' promoted dtype.

    Raises
    ------
    ValueError
        For an empty input (numpy's messages), more than one dimension or
        an unknown mode.
    """
    m = _mode(mode)
    a, v = _vector(a), _vector(v)
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    dt = np.result_type(a.dtype, v.dtype)
    a = a if a.dtype == dt else a.astype(dt)
    v = v if v.dtype == dt else v.astype(dt)
    return _core(a, v[::-1], m, dt)


_placement.route(globals())
