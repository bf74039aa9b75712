"""numpy.linalg's functions built on the SVD (layer 5): ``pinv``,
``lstsq``, ``matrix_rank``; exported by :mod:`gpuarr.linalg`.  The SVD
and the shared argument handling are :mod:`gpuarr._decomp`'s.
"""

import numpy as np

from . import _placement
from . import _creation
from . import _cusolver
from . import _manipulation as _manip
from . import _matmul
from . import _ufunc
from . import reductions as _rs
from ._array import GPUArray
from ._decomp import linalg_dtype, on_host, prepare, svd, swap_last

__all__ = ["pinv", "lstsq", "matrix_rank"]

#: numpy's "no value given" default (pinv's rtol)
_NOVALUE = getattr(np, "_NoValue", object())
_LinAlgError = np.linalg.LinAlgError
_I64 = np.dtype(np.int64)


def _ch(x):
    """The conjugate transpose of each matrix of ``x``."""
    t = swap_last(x)
    return _ufunc.apply("conjugate", (t,)) if x.dtype.kind == "c" else t


def _cutoff_inverse(s, cutoff):
    """1/s where s > cutoff, else 0 (in s's dtype)."""
    keep = _ufunc.greater(s, cutoff)
    return _ufunc.where(keep, _ufunc.true_divide(1, s), 0).astype(s.dtype)


def pinv(a, rcond=None, hermitian=False, *, rtol=_NOVALUE):
    """Moore-Penrose pseudo-inverse of each matrix (numpy.linalg.pinv),
    from the SVD: singular values at most ``rcond * max(s)`` count as
    zero.

    Parameters
    ----------
    a : GPUArray, (..., M, N)
    rcond, rtol : float or GPUArray, optional
        The relative cutoff (numpy 2's rules: 1e-15 when neither is
        given, ``max(M, N) * eps`` for ``rtol=None``).
    hermitian : bool
        Accepted; see :func:`svd`.

    Returns
    -------
    GPUArray, (..., N, M)
    """
    a = prepare(a, square=False)
    dt = linalg_dtype(a.dtype)
    m, n = a.shape[-2:]
    if rcond is not None and rtol is not _NOVALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if rcond is not None:
        rc = rcond
    elif rtol is _NOVALUE:
        rc = 1e-15
    elif rtol is None:
        rc = max(m, n) * np.finfo(_cusolver.DTYPES[dt][1]).eps
    else:
        rc = rtol
    if not a.size:
        return _creation.zeros(a.shape[:-2] + (n, m), dt)
    u, s, vh = svd(a, full_matrices=False)
    smax = _rs.max(s, axis=-1, keepdims=True)
    sinv = _cutoff_inverse(s, _ufunc.multiply(rc, smax))
    scaled = _ufunc.multiply(_manip.expand_dims(sinv, -1), _ch(u))
    return _matmul.matmul(_ch(vh), scaled)


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b`` (numpy.linalg.lstsq), from
    the SVD (numpy's LAPACK ``gelsd`` is SVD-based too).

    Parameters
    ----------
    a : GPUArray, (M, N)
    b : GPUArray, (M,) or (M, K)
    rcond : float, optional
        Singular values at most ``rcond * max(s)`` count as zero; default
        ``eps * max(M, N)`` (numpy 2's).

    Returns
    -------
    (x, residuals, rank, s)
        ``x`` (N,) or (N, K); ``residuals`` the squared 2-norms of
        ``b - a @ x`` per column ((K,), or (1,) for a 1-D ``b``) when
        ``rank == N < M``, else empty; ``rank`` an int (read back); ``s``
        the singular values.

    Raises
    ------
    numpy.linalg.LinAlgError
        For ``a`` or ``b`` that are not 2-D / 1-D as numpy requires, or
        lengths that differ.
    """
    a = prepare(a, square=False)
    b = b if isinstance(b, GPUArray) else _creation.asarray(b)
    if len(a.shape) != 2:
        raise _LinAlgError("%d-dimensional array given. Array must be "
                           "two-dimensional" % len(a.shape))
    if len(b.shape) not in (1, 2):
        raise _LinAlgError("%d-dimensional array given. Array must be one or "
                           "two-dimensional" % len(b.shape))
    m, n = a.shape
    if b.shape[0] != m:
        raise _LinAlgError("Incompatible dimensions")
    dt = linalg_dtype(a.dtype, b.dtype)
    rdt = _cusolver.DTYPES[dt][1]
    vec = len(b.shape) == 1
    b2 = b.reshape(m, 1) if vec else b
    if not a.size or not b2.size:
        return on_host(np.linalg.lstsq, [(a.shape, dt), (b.shape, dt)],
                        rcond=rcond)
    if rcond is None:
        rcond = np.finfo(rdt).eps * max(m, n)
    u, s, vh = svd(a.astype(dt), full_matrices=False)
    cut = _ufunc.multiply(rcond, _rs.max(s))
    sinv = _cutoff_inverse(s, cut)
    rank = int(_rs.count_nonzero(_ufunc.greater(s, cut)).get())
    uhb = _matmul.matmul(_ch(u), b2.astype(dt))
    x = _matmul.matmul(_ch(vh), _ufunc.multiply(_manip.expand_dims(sinv, -1), uhb))
    if rank == n and m > n:
        res = _matmul.matmul(a.astype(dt), x)
        d = abs(_ufunc.subtract(b2.astype(dt), res))
        resid = _rs.sum(_ufunc.multiply(d, d), axis=0)
    else:
        resid = _creation.empty_c((0,), rdt)
    return (x.reshape(n) if vec else x), resid, rank, s


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Rank of each matrix (numpy.linalg.matrix_rank): singular values
    above ``tol`` (default ``max(s) * max(M, N) * eps``, or ``rtol *
    max(s)``); for fewer than 2 dimensions, 1 unless every element is 0.

    The singular values come from :func:`svd` with ``compute_uv=False``
    (cuSOLVER's ``gesvd``); the count stays on the device.

    Parameters
    ----------
    A : GPUArray or array_like, (..., M, N)
        Copied to the device first when it is not a GPUArray.
    tol : float or GPUArray, optional
        The absolute threshold; a GPUArray of shape ``A.shape[:-2]``
        gives one per matrix.
    hermitian : bool
        Accepted for numpy's signature; the general SVD is computed
        either way.
    rtol : float, optional
        The threshold relative to ``max(s)`` (numpy 2), used when ``tol``
        is None.

    Returns
    -------
    GPUArray
        int64 of shape ``A.shape[:-2]`` (0-d for one matrix).

    Raises
    ------
    ValueError
        When both ``tol`` and ``rtol`` are given.
    numpy.linalg.LinAlgError
        "SVD did not converge".
    TypeError
        For float16 input.
    """
    A = A if isinstance(A, GPUArray) else _creation.asarray(A)
    if len(A.shape) < 2:
        return _rs.any(_ufunc.not_equal(A, 0)).astype(_I64)
    if tol is not None and rtol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    s = svd(A, compute_uv=False)
    m, n = A.shape[-2:]
    if not s.size or not s.shape[-1]:
        return _creation.zeros(A.shape[:-2], _I64)
    smax = _rs.max(s, axis=-1, keepdims=True)
    if tol is None:
        rel = rtol if rtol is not None else max(m, n) * np.finfo(s.dtype).eps
        tol = _ufunc.multiply(smax, rel)
    elif isinstance(tol, GPUArray):
        tol = _manip.expand_dims(tol, -1)
    return _rs.count_nonzero(_ufunc.greater(s, tol), axis=-1).astype(_I64)


# run on the arrays' device (issue 16)
_placement.route(globals())
