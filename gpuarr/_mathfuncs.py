"""numpy's rounding and difference functions over GPUArrays (layer 5):
``around`` (``round``), ``nan_to_num``, ``diff``, ``ediff1d``.

Each is numpy 2's recipe out of gpuarr's ufuncs, views and joins, so the
dtypes and special values are numpy's: ``around`` scales by a power of
ten, rounds half to even (``rint``) and scales back (integers through
float64, as numpy's); ``diff`` subtracts neighbouring views (``!=`` for
bool).
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _joining, _manipulation, _transfer, _ufunc, cumath

__all__ = ["around", "round", "nan_to_num", "diff", "ediff1d"]

_NoValue = np._NoValue


def around(a, decimals=0, out=None):
    """Round to ``decimals`` decimal places, halves to even (numpy.around,
    numpy.round).

    Parameters
    ----------
    a : GPUArray or array_like
        Any dtype; complex rounds both parts; integers with
        ``decimals >= 0`` are copied; bool gives float16 (``rint``) with
        ``decimals == 0`` and raises otherwise, as numpy.
    decimals : int
        Places after the point; negative rounds to tens, hundreds, ...
        (integers through float64, as numpy: exact below 2**53).
    out : GPUArray, optional
        Receives the result (of ``a``'s shape; cast under ``same_kind``).

    Returns
    -------
    GPUArray
        ``a``'s dtype (float16 for bool), or ``out``.

    Raises
    ------
    TypeError
        For a ``decimals`` that is no integer, bool with ``decimals`` other
        than 0, or an ``out`` the result cannot be cast to.
    """
    a = _creation.asarray(a)
    decimals = operator.index(decimals)
    kind = a.dtype.kind
    if kind in "iu" and decimals >= 0:
        if out is None:
            return a.copy()
        _transfer.assign(out, a)
        return out
    if kind == "c":
        res = _creation.empty_c(a.shape, a.dtype) if out is None else out
        _transfer.assign(res.real, around(a.real, decimals))
        _transfer.assign(res.imag, around(a.imag, decimals))
        return res
    if kind == "b":
        # numpy's: bool is no integer to its round, whose float path gives
        # rint's float16 at 0 decimals and, else, a float64 product or
        # quotient with no cast back to bool
        if decimals == 0:
            return cumath.rint(a, out=out)
        raise _ufunc.casting_error("multiply" if decimals > 0 else "divide",
                                   np.dtype(np.float64), a.dtype)
    x = a.astype(np.float64) if kind in "iu" else a
    if decimals >= 0:
        f = 10.0 ** decimals
        y = _ufunc.true_divide(cumath.rint(_ufunc.multiply(x, f)), f)
    else:
        f = 10.0 ** -decimals
        y = _ufunc.multiply(cumath.rint(_ufunc.true_divide(x, f)), f)
    if out is not None:
        _transfer.assign(out, y)
        return out
    return y.astype(a.dtype) if y.dtype != a.dtype else y


round = around      # numpy's name (numpy.round is numpy.around)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced by finite numbers (numpy.nan_to_num).

    Parameters
    ----------
    x : GPUArray or array_like
        Any dtype; only float and complex values change (each complex
        part on its own).
    copy : bool
        False replaces in ``x`` itself (a GPUArray) and returns it.
    nan : scalar
        The value for NaN.
    posinf, neginf : scalar, optional
        The values for +inf and -inf; default the dtype's largest and most
        negative finite values.

    Returns
    -------
    GPUArray
        ``x``'s dtype and shape: a new array, or ``x`` when ``copy`` is
        False.
    """
    x = _creation.asarray(x)
    res = x.copy() if copy else x
    kind = x.dtype.kind
    if kind not in "fc":
        return res
    parts = (res.real, res.imag) if kind == "c" else (res,)
    info = np.finfo(parts[0].dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    for p in parts:
        _ufunc.where(cumath.isnan(p), nan, p, out=p)
        _ufunc.where(cumath.isinf(p),
                     _ufunc.where(cumath.signbit(p), small, big), p, out=p)
    return res


def diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    """The ``n``-th differences along an axis (numpy.diff).

    Parameters
    ----------
    a : GPUArray or array_like
        At least 1-d.
    n : int
        How many times to difference; 0 gives ``a`` itself.
    axis : int
        The axis (negative counts from the end).
    prepend, append : scalar, GPUArray or array_like, optional
        Values joined to ``a`` along ``axis`` first (a scalar or a
        lower-dimensional value broadcast to ``a``'s other axes).

    Returns
    -------
    GPUArray
        ``a``'s shape less ``n`` along ``axis``; bool differences are
        ``!=`` (bool), others ``-`` (numpy's dtypes).

    Raises
    ------
    ValueError
        For a negative ``n`` or a 0-d ``a`` (numpy's messages).
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    a = _creation.asarray(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one "
                         "dimensional")
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    joined = []
    for v in (prepend, append):
        if v is _NoValue:
            joined.append(None)
            continue
        v = _creation.asarray(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = _manipulation.broadcast_to(v, tuple(shape))
        joined.append(v)
    if joined[0] is not None or joined[1] is not None:
        parts = [p for p in (joined[0], a, joined[1]) if p is not None]
        a = _joining.concatenate(parts, axis=axis)
    op = _ufunc.not_equal if a.dtype == np.bool_ else _ufunc.subtract
    for _ in range(n):
        hi = [slice(None)] * a.ndim
        lo = [slice(None)] * a.ndim
        hi[axis] = slice(1, None)
        lo[axis] = slice(None, -1)
        a = op(a[tuple(hi)], a[tuple(lo)])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with values joined at either
    end (numpy.ediff1d).

    Parameters
    ----------
    ary : GPUArray or array_like
    to_end, to_begin : scalar, GPUArray or array_like, optional
        Values put after and before the differences (flattened; cast to
        ``ary``'s dtype under ``same_kind``).

    Returns
    -------
    GPUArray
        1-d, ``ary``'s dtype.

    Raises
    ------
    TypeError
        For ``to_end`` or ``to_begin`` values that do not cast to
        ``ary``'s dtype under ``same_kind`` (numpy's message).
    """
    ary = _creation.asarray(ary).ravel()
    d = ary[1:] - ary[:-1]
    if d.dtype != ary.dtype:
        d = d.astype(ary.dtype)
    parts = []
    for name, v in (("to_begin", to_begin), (None, d), ("to_end", to_end)):
        if v is None:
            continue
        if name is not None:
            v = _creation.asarray(v).ravel()
            if not np.can_cast(v.dtype, ary.dtype, "same_kind"):
                raise TypeError("dtype of `%s` must be compatible with input "
                                "`ary` under the `same_kind` rule." % name)
            if v.dtype != ary.dtype:
                v = v.astype(ary.dtype)
        parts.append(v)
    return parts[0] if len(parts) == 1 else _joining.concatenate(parts)


_placement.route(globals())
