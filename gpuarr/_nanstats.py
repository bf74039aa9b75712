"""numpy's NaN-ignoring statistics that gpuarr's reductions did not have
(layer 5): ``nanmean``, ``nanvar``, ``nanstd``, ``nanprod``,
``nanargmax``, ``nanargmin``.

Each is numpy's own definition written with gpuarr's elementwise
operations and reductions (NaN replaced by the operation's identity, or
counted out), so dtypes, axes, ``keepdims`` and ``out`` are those of the
reductions underneath; integer and bool arrays hold no NaN and take the
plain reductions.  ``nanargmax``/``nanargmin`` raise numpy's ValueError
for an all-NaN slice, which reads one bool back.
"""

import numpy as np

from . import _creation, _manipulation
from . import _transfer
from . import _ufunc
from . import cumulative as _cum
from . import reductions as _rs
from ._array import GPUArray

__all__ = ["nanmean", "nanvar", "nanstd", "nanprod", "nanargmax",
           "nanargmin", "nancumsum", "nancumprod"]

_NoValue = getattr(np, "_NoValue", object())


def _array(a):
    return a if isinstance(a, GPUArray) else _creation.asarray(a)


def _masked(where):
    """Whether ``where=`` selects elements (not absent, not ``True``)."""
    return where is not _NoValue and where is not True


def _not_nan_and(a, where):
    """The mask of the elements ``where`` selects that are not NaN."""
    return _ufunc.logical_and(where, _ufunc.logical_not(_isnan(a)))


def _inexact(a):
    return a.dtype.kind in "fc"


def _isnan(a):
    return _ufunc.apply("isnan", (a,))


def _finish(r, out):
    if out is None:
        return r
    _transfer.copy_into(out, r)
    return out


def _counts(a, axis, keepdims):
    """Non-NaN elements per slice (int64)."""
    return _rs.count_nonzero(_ufunc.logical_not(_isnan(a)), axis=axis,
                             keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *,
            where=_NoValue):
    """Mean of the non-NaN elements (numpy.nanmean): ``nansum / count``;
    NaN for an all-NaN slice (numpy warns there; gpuarr does not read the
    result back to know).

    Parameters
    ----------
    a : GPUArray
    axis, dtype, out, keepdims
        As :func:`gpuarr.mean`.

    Returns
    -------
    GPUArray
        numpy.mean's dtype (float64 for integers, ``a``'s for floats).
    """
    a = _array(a)
    if _masked(where):
        mask = _not_nan_and(a, where) if _inexact(a) else where
        return _rs.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                        where=mask)
    if not _inexact(a):
        return _rs.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    s = _rs.nansum(a, axis=axis, dtype=dtype, keepdims=keepdims)
    n = _counts(a, axis, keepdims)
    real = np.dtype(s.dtype.char.lower()) if s.dtype.kind == "c" else s.dtype
    return _finish(_ufunc.true_divide(s, n.astype(real)), out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
           where=_NoValue, mean=_NoValue, correction=_NoValue):
    """Variance of the non-NaN elements (numpy.nanvar):
    ``sum(|x - nanmean|**2) / (count - ddof)`` over non-NaN ``x``; NaN
    where ``count - ddof <= 0``.

    Returns
    -------
    GPUArray
        Real: float64 for integers, the real dtype of complex input.
    """
    if mean is not _NoValue:
        raise NotImplementedError("mean= is not supported by gpuarr")
    if correction is not _NoValue:
        ddof = correction
    a = _array(a)
    if _masked(where):
        # numpy's nanvar: the selected non-NaN elements, NaN where
        # count - ddof <= 0
        mask = _not_nan_and(a, where) if _inexact(a) else where
        r = _rs.var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                    where=mask)
        full = mask if isinstance(mask, GPUArray) else _creation.asarray(mask)
        n = _rs.count_nonzero(_manipulation.broadcast_to(full, a.shape),
                              axis=axis, keepdims=keepdims)
        r = _ufunc.where(_ufunc.greater(n, ddof), r, np.nan)
        return _finish(r, out)
    if not _inexact(a):
        return _rs.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                       keepdims=keepdims)
    m = nanmean(a, axis=axis, dtype=dtype, keepdims=True)
    nan = _isnan(a)
    d = _ufunc.where(nan, 0, _ufunc.subtract(a, m))
    sq = abs(d)
    sq = _ufunc.multiply(sq, sq)
    s = _rs.sum(sq, axis=axis, keepdims=keepdims)
    n = _counts(a, axis, keepdims)
    dof = _ufunc.subtract(n, ddof).astype(s.dtype)
    r = _ufunc.where(_ufunc.greater(dof, 0), _ufunc.true_divide(s, dof),
                     np.nan)
    return _finish(r.astype(s.dtype) if r.dtype != s.dtype else r, out)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
           where=_NoValue, mean=_NoValue, correction=_NoValue):
    """Standard deviation of the non-NaN elements (numpy.nanstd): the
    square root of :func:`nanvar`."""
    v = nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
               where=where, mean=mean, correction=correction)
    return _finish(_ufunc.apply("sqrt", (v,)), out)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False,
            initial=_NoValue, where=_NoValue):
    """Product treating NaN as one (numpy.nanprod); dtypes as
    :func:`gpuarr.prod`."""
    a = _array(a)
    if _inexact(a):
        a = _ufunc.where(_isnan(a), np.ones((), a.dtype), a)
    return _rs.prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                    initial=initial, where=where)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaN as zero (numpy.nancumsum).

    Parameters
    ----------
    a : GPUArray or array_like
        Any shape and strides.
    axis : int, optional
        The axis to accumulate along; None: the flattened array, in C order.
    dtype : dtype-like, optional
        The accumulator's and result's dtype (default as
        :func:`gpuarr.cumsum`: int64 for bool and narrower signed integers,
        uint64 for narrower unsigned ones, else ``a``'s dtype).
    out : GPUArray, optional
        Of the result's shape; the result is cast to its dtype (unsafely,
        as numpy).

    Returns
    -------
    GPUArray
        ``a``'s shape, or ``(a.size,)`` for ``axis=None``; an all-NaN
        prefix sums to 0.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError
        As :func:`gpuarr.cumsum` (an axis out of range, a wrong ``out``).
    """
    a = _array(a)
    if _inexact(a):
        a = _ufunc.where(_isnan(a), np.zeros((), a.dtype), a)
    return _cum.cumsum(a, axis=axis, dtype=dtype, out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaN as one (numpy.nancumprod).

    Parameters, result shape, dtypes and errors as :func:`nancumsum` (with
    :func:`gpuarr.cumprod`'s default dtypes); an all-NaN prefix gives 1.
    """
    a = _array(a)
    if _inexact(a):
        a = _ufunc.where(_isnan(a), np.ones((), a.dtype), a)
    return _cum.cumprod(a, axis=axis, dtype=dtype, out=out)


def _nanarg(a, axis, out, keepdims, fill, plain):
    a = _array(a)
    if not _inexact(a):
        return plain(a, axis=axis, out=out, keepdims=keepdims)
    nan = _isnan(a)
    if a.size and bool(_rs.any(_rs.all(nan, axis=axis)).get()):
        raise ValueError("All-NaN slice encountered")
    b = _ufunc.where(nan, np.array(fill, a.dtype), a)
    return plain(b, axis=axis, out=out, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the largest non-NaN element (numpy.nanargmax): NaN counts
    as ``-inf``, as numpy's.

    Raises
    ------
    ValueError
        "All-NaN slice encountered" (one bool read back), and the errors
        of :func:`gpuarr.argmax`.
    """
    return _nanarg(a, axis, out, keepdims, -np.inf, _rs.argmax)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the smallest non-NaN element (numpy.nanargmin): NaN counts
    as ``+inf``; see :func:`nanargmax`."""
    return _nanarg(a, axis, out, keepdims, np.inf, _rs.argmin)
