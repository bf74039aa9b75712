"""``numpy.linalg`` names (layer 6): :func:`norm` of vectors (and the
Frobenius norm); the products :func:`matmul`, :func:`tensordot`,
:func:`multi_dot`, :func:`matrix_power`, :func:`outer` (cuBLAS for float
and complex dtypes, gpuarr's own kernel for integers); :func:`dot`,
:func:`vdot`, :func:`inner` from :mod:`gpuarr.reductions`; and the TF32
switch :class:`allow_tf32` / :func:`tf32_allowed` of float32 products."""

import operator

import numpy as np

from . import _creation
from . import reduction as _red
from . import reductions as _rs
from ._blas import allow_tf32, tf32_allowed
from ._contract import matrix_power, multi_dot, outer
from ._matmul import matmul, tensordot
from .reductions import dot, vdot, inner

__all__ = ["norm", "dot", "vdot", "inner", "matmul", "tensordot",
           "multi_dot", "matrix_power", "outer", "allow_tf32",
           "tf32_allowed"]

_F4 = np.dtype(np.float32)
_F8 = np.dtype(np.float64)


def _float_dt(dt):
    """numpy's norm computes integers in float64."""
    if dt.kind in "biu":
        return _F8
    return dt


def _out_dt(dt):
    dt = _float_dt(dt)
    if dt.kind == "c":
        return _F4 if dt.itemsize == 8 else _F8
    return dt


def _vector(a, ord, axes, keepdims):
    ct = _float_dt(a.dtype)
    res = _out_dt(a.dtype)
    if a.size == 0:
        r = np.linalg.norm(np.zeros(a.shape, a.dtype), ord=ord,
                           axis=axes if len(axes) > 1 else axes[0],
                           keepdims=keepdims)
        return _creation.to_gpu(r)
    if ord is None or ord == 2 or ord == "fro":
        op = "sumsq"
    elif ord == 1:
        op = "abssum"
    elif ord == np.inf:
        op = "absmax"
    elif ord == -np.inf:
        op = "absmin"
    elif ord == 0:
        r = _rs.count_nonzero(a, axis=axes, keepdims=keepdims)
        return r.astype(res)
    else:
        try:
            p = float(ord)
        except (TypeError, ValueError):
            raise ValueError("Invalid norm order '%s' for vectors" % (ord,)) \
                from None
        x = abs(a)
        if x.dtype != res:
            x = x.astype(res)
        s = _rs.sum(x ** p, axis=axes, keepdims=keepdims)
        return s ** (1.0 / p)
    w, ret = _rs.reduction_target(a, axes, None, keepdims, res, "add")
    _red.run_reduction(op, (a,), w, axes, ct)
    return ret


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms and the Frobenius norm (``numpy.linalg.norm``).

    Parameters
    ----------
    x : GPUArray
    ord : {None, 2, 1, inf, -inf, 0, float, 'fro'}
        Vector norms: ``sum(|x|**ord)**(1/ord)``; None/2 the 2-norm (one
        fused pass, ``sqrt(sum |x|^2)``), 1 ``sum |x|``, inf ``max |x|``,
        -inf ``min |x|``, 0 the count of non-zeros.  For a 2-D ``x`` with
        ``axis=None``, None and 'fro' give the Frobenius norm; other matrix
        norms raise NotImplementedError.
    axis : None, int or 2-tuple of ints
    keepdims : bool

    Returns
    -------
    GPUArray
        0-d for one norm.  Real: float64 for integer input, the real dtype
        of complex input, otherwise ``x.dtype`` (numpy's dtypes).

    Raises
    ------
    ValueError
        "Improper number of dimensions to norm." for ``ord`` with
        ``axis=None`` and ``ndim > 2``; an invalid ``ord``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    x = _rs.as_array(x)
    nd = len(x.shape)
    if axis is None:
        if ord is None or (ord == "fro" and nd == 2):
            return _vector(x, None, tuple(range(nd)), keepdims)
        if nd == 1:
            if isinstance(ord, str):
                raise ValueError("Invalid norm order '%s' for vectors" % ord)
            return _vector(x, ord, (0,), keepdims)
        if nd == 2:
            raise NotImplementedError("matrix norm ord=%r" % (ord,))
        raise ValueError("Improper number of dimensions to norm.")
    if isinstance(axis, tuple) and len(axis) == 2:
        axes = _rs.normalize_axes(axis, nd)
        if ord is None or ord == "fro":
            return _vector(x, None, axes, keepdims)
        raise NotImplementedError("matrix norm ord=%r" % (ord,))
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise ValueError("Improper number of dimensions to norm.")
        axis = axis[0]
    try:
        operator.index(axis)
    except TypeError:
        raise TypeError("'axis' must be None, an integer or a tuple of "
                        "integers") from None
    if isinstance(ord, str):
        raise ValueError("Invalid norm order '%s' for vectors" % ord)
    return _vector(x, ord, _rs.normalize_axes(axis, nd), keepdims)
