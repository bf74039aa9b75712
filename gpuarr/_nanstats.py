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

from . import _placement
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
    """Mean of the non-NaN elements (numpy.nanmean): ``nansum / count``.

    NaN for an all-NaN slice (numpy warns there; gpuarr does not read the
    result back to know).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (default) every axis.
    dtype : dtype-like, optional
        Accumulator and result dtype, as :func:`gpuarr.mean`'s.
    out : GPUArray, optional
        Receives the result (the result's shape, cast to its dtype) and is
        returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    where : bool GPUArray or array_like, optional
        The elements taking part (numpy's ``where=``), broadcast to ``a``'s
        shape; NaN elements among them are still left out.

    Returns
    -------
    GPUArray
        numpy.mean's dtype (float64 for integers, ``a``'s for floats); 0-d
        for a full reduction.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis or an ``out`` of the wrong shape.
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
    """Variance of the non-NaN elements (numpy.nanvar).

    ``sum(|x - nanmean|**2) / (count - ddof)`` over non-NaN ``x``; NaN
    where ``count - ddof <= 0`` (without numpy's warning).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (default) every axis.
    dtype : dtype-like, optional
        The dtype of the mean and deviations (as :func:`gpuarr.var`'s).
    out : GPUArray, optional
        Receives the result (the result's shape, cast to its dtype) and is
        returned.
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``count - ddof`` (default 0).
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    where : bool GPUArray or array_like, optional
        The elements taking part (numpy's ``where=``), broadcast to ``a``'s
        shape; NaN elements among them are still left out.
    mean : GPUArray or array_like, optional
        numpy 2's precomputed mean (of the ``keepdims`` shape, or
        broadcasting to it) instead of :func:`nanmean`'s; the deviations
        keep the data's dtype, as numpy's.  Not with ``where=``.
    correction : int, optional
        The Array API's name of ``ddof``; when given it replaces ``ddof``.

    Returns
    -------
    GPUArray
        Real: float64 for integers, the real dtype of complex input, else
        ``a``'s dtype; 0-d for a full reduction.

    Raises
    ------
    NotImplementedError
        For ``mean=`` together with ``where=``.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis or an ``out`` of the wrong shape.
    """
    if correction is not _NoValue:
        ddof = correction
    a = _array(a)
    if _masked(where):
        if mean is not _NoValue:
            raise NotImplementedError("mean= together with where= is not "
                                      "supported by gpuarr")
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
                       keepdims=keepdims, mean=mean)
    if mean is _NoValue:
        m = nanmean(a, axis=axis, dtype=dtype, keepdims=True)
    else:
        m = _creation.asarray(mean)
    nan = _isnan(a)
    d = _ufunc.subtract(a, m)
    if mean is not _NoValue and d.dtype != a.dtype:
        # numpy's nanvar subtracts a given mean into a copy of the data:
        # the deviations keep the data's dtype (an unsafe cast)
        d = d.astype(a.dtype)
    d = _ufunc.where(nan, 0, d)
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
    """Standard deviation of the non-NaN elements (numpy.nanstd).

    The square root of :func:`nanvar`.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (default) every axis.
    dtype : dtype-like, optional
        The dtype of the mean and deviations (as :func:`gpuarr.var`'s).
    out : GPUArray, optional
        Receives the result (the result's shape, cast to its dtype) and is
        returned.
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``count - ddof`` (default 0).
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    where : bool GPUArray or array_like, optional
        The elements taking part (numpy's ``where=``), broadcast to ``a``'s
        shape; NaN elements among them are still left out.
    mean : GPUArray or array_like, optional
        numpy 2's precomputed mean (of the ``keepdims`` shape, or
        broadcasting to it) instead of :func:`nanmean`'s; the deviations
        keep the data's dtype, as numpy's.  Not with ``where=``.
    correction : int, optional
        The Array API's name of ``ddof``; when given it replaces ``ddof``.

    Returns
    -------
    GPUArray
        Real, of :func:`nanvar`'s dtype; NaN where ``count - ddof <= 0``.

    Raises
    ------
    NotImplementedError
        For ``mean=`` together with ``where=``.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis or an ``out`` of the wrong shape.
    """
    v = nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
               where=where, mean=mean, correction=correction)
    return _finish(_ufunc.apply("sqrt", (v,)), out)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False,
            initial=_NoValue, where=_NoValue):
    """Product treating NaN as one (numpy.nanprod); dtypes as gpuarr.prod's.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (default) every axis.
    dtype : dtype-like, optional
        Accumulator and result dtype; default as :func:`gpuarr.prod`
        (int64 for narrower signed integers and bool, uint64 for narrower
        unsigned ones, else ``a``'s dtype).
    out : GPUArray, optional
        Receives the result (the result's shape, cast to its dtype) and is
        returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    initial : scalar, optional
        The starting value (numpy's), multiplied into each product.
    where : bool GPUArray or array_like, optional
        The elements taking part (numpy's ``where=``).

    Returns
    -------
    GPUArray
        The products of the non-NaN elements (1 for an all-NaN slice); 0-d
        for a full reduction.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis or an ``out`` of the wrong shape.
    """
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

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : int, optional
        The axis to accumulate along; None: the flattened array, in C order.
    dtype : dtype-like, optional
        The accumulator's and result's dtype (default as
        :func:`gpuarr.cumprod`: int64 for bool and narrower signed integers,
        uint64 for narrower unsigned ones, else ``a``'s dtype).
    out : GPUArray, optional
        Of the result's shape; the result is cast to its dtype (unsafely,
        as numpy).

    Returns
    -------
    GPUArray
        ``a``'s shape, or ``(a.size,)`` for ``axis=None``; an all-NaN
        prefix gives 1.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError
        As :func:`gpuarr.cumprod` (an axis out of range, a wrong ``out``).
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
    """Index of the largest non-NaN element (numpy.nanargmax).

    NaN counts as ``-inf``, as numpy's.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : int, optional
        The axis searched; None (default) searches the flattened array
        (C order).
    out : GPUArray of int64, optional
        Receives the indices.
    keepdims : bool, optional
        Keep the reduced axis (every axis for ``axis=None``) with length 1.

    Returns
    -------
    GPUArray of int64
        The indices; 0-d when ``axis`` is None; ``out`` when given.

    Raises
    ------
    ValueError
        "All-NaN slice encountered" (one bool read back), and the errors
        of :func:`gpuarr.argmax`.
    """
    return _nanarg(a, axis, out, keepdims, -np.inf, _rs.argmax)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the smallest non-NaN element (numpy.nanargmin).

    NaN counts as ``+inf``; see :func:`nanargmax`.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray`.  Integer and bool arrays hold no NaN and
        take the plain reduction.
    axis : int, optional
        The axis searched; None (default) searches the flattened array
        (C order).
    out : GPUArray of int64, optional
        Receives the indices.
    keepdims : bool, optional
        Keep the reduced axis (every axis for ``axis=None``) with length 1.

    Returns
    -------
    GPUArray of int64
        The indices; 0-d when ``axis`` is None; ``out`` when given.

    Raises
    ------
    ValueError
        "All-NaN slice encountered" (one bool read back), and the errors
        of :func:`gpuarr.argmin`.
    """
    return _nanarg(a, axis, out, keepdims, np.inf, _rs.argmin)


# run on the arrays' device (issue 16)
_placement.route(globals())
