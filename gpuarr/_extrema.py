"""numpy's extrema, arg-extrema and logical reductions on GPUArrays
(layer 5): ``max``/``amax``, ``min``/``amin``, ``nanmax``, ``nanmin``,
``ptp``, ``argmax``, ``argmin``, ``any``, ``all``; exported by
:mod:`gpuarr.reductions`, whose rules they follow (numpy 2's dtypes and
shapes, 0-d results of full reductions, ``out=`` and ``keepdims``, empty
inputs answered by numpy).  NaN propagates through ``max``/``min``/
``argmax``/``argmin`` (the first NaN wins); ``nanmax``/``nanmin`` ignore it.
"""

import operator

import numpy as np

from . import _placement
from . import _layout, _ufunc
from . import reduction as _red
from ._reducecore import as_array, normalize_axes, reduction_target
from ._reducecore import (numpy_empty as _numpy_empty,
                          shared_doc as _shared_doc,
                          reduce_array as _reduce, special as _special)

__all__ = ["max", "min", "amax", "amin", "nanmax", "nanmin", "ptp",
           "argmax", "argmin", "any", "all"]

_NoValue = np._NoValue
_B = np.dtype(bool)
_I8 = np.dtype(np.int64)


# ---------------------------------------------------------------------------
# extrema


@_shared_doc
def max(a, axis=None, out=None, keepdims=False, initial=_NoValue,  # noqa: A001
        where=_NoValue):
    """Maximum (``numpy.max``, also ``amax``); NaN propagates.

    The result is NaN if any element is.  Complex values are ordered as in
    numpy (lexicographically: real parts, then imaginary parts).

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), taken into each extremum; also the
        value of an empty reduction, which it then allows.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        As in numpy, it needs ``initial``.

    Returns
    -------
    GPUArray
        Of ``a.dtype``; 0-d for a full reduction; ``out`` when given.

    Raises
    ------
    ValueError
        For a reduction over an empty axis without ``initial``
        (``zero-size array to reduction operation maximum which has no
        identity``), or ``where=`` without ``initial``, as numpy.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("max", a, axis, None, out, keepdims, initial, where)
    if r is not None:
        return r
    return _reduce("max", np.max, "maximum", a, axis, out, keepdims, a.dtype,
                   a.dtype, {"axis": axis, "keepdims": keepdims})


@_shared_doc
def min(a, axis=None, out=None, keepdims=False, initial=_NoValue,  # noqa: A001
        where=_NoValue):
    """Minimum (``numpy.min``, also ``amin``); NaN propagates.

    See :func:`max`.

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), taken into each extremum; also the
        value of an empty reduction, which it then allows.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        As in numpy, it needs ``initial``.

    Returns
    -------
    GPUArray
        Of ``a.dtype``; 0-d for a full reduction; ``out`` when given.

    Raises
    ------
    ValueError
        For a reduction over an empty axis without ``initial``, or
        ``where=`` without ``initial``, as numpy.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("min", a, axis, None, out, keepdims, initial, where)
    if r is not None:
        return r
    return _reduce("min", np.min, "minimum", a, axis, out, keepdims, a.dtype,
                   a.dtype, {"axis": axis, "keepdims": keepdims})


amax = max
amin = min


@_shared_doc
def nanmax(a, axis=None, out=None, keepdims=False, initial=_NoValue,
           where=_NoValue):
    """Maximum ignoring NaN (``numpy.nanmax``).

    An all-NaN slice gives NaN (numpy also warns; gpuarr does not, the
    answer is on the device).

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), taken into each extremum; also the
        value of an empty reduction, which it then allows.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        As in numpy, it needs ``initial``.

    Returns
    -------
    GPUArray
        Of ``a.dtype``; 0-d for a full reduction; ``out`` when given.

    Raises
    ------
    ValueError
        For a reduction over an empty axis without ``initial``, as numpy.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("nanmax", a, axis, None, out, keepdims, initial, where)
    if r is not None:
        return r
    return _reduce("nanmax", np.nanmax, "fmax", a, axis, out, keepdims,
                   a.dtype, a.dtype, {"axis": axis, "keepdims": keepdims})


@_shared_doc
def nanmin(a, axis=None, out=None, keepdims=False, initial=_NoValue,
           where=_NoValue):
    """Minimum ignoring NaN (``numpy.nanmin``); see :func:`nanmax`.

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), taken into each extremum; also the
        value of an empty reduction, which it then allows.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        As in numpy, it needs ``initial``.

    Returns
    -------
    GPUArray
        Of ``a.dtype``; 0-d for a full reduction; ``out`` when given.

    Raises
    ------
    ValueError
        For a reduction over an empty axis without ``initial``, as numpy.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("nanmin", a, axis, None, out, keepdims, initial, where)
    if r is not None:
        return r
    return _reduce("nanmin", np.nanmin, "fmin", a, axis, out, keepdims,
                   a.dtype, a.dtype, {"axis": axis, "keepdims": keepdims})


@_shared_doc
def ptp(a, axis=None, out=None, keepdims=False):
    """Range of values, ``max - min`` (``numpy.ptp``).

    Computed as :func:`max`, :func:`min` and a subtraction (three
    launches); NaN propagates; complex values are ordered as numpy orders
    them.

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS

    Returns
    -------
    GPUArray
        In ``a``'s dtype (unsigned and integer results wrap like numpy's);
        0-d for a full reduction; ``out`` when given.

    Raises
    ------
    TypeError
        For a bool ``a`` (numpy's boolean subtract error).
    ValueError
        For a reduction over an empty axis (numpy's), or a wrong ``out``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    a = as_array(a)
    if a.size == 0:
        return _numpy_empty(np.ptp, a, {"axis": axis, "keepdims": keepdims},
                            out)
    if a.dtype == _B:
        raise TypeError("numpy boolean subtract, the `-` operator, is not "
                        "supported, use the bitwise_xor, the `^` operator, or "
                        "the logical_xor function instead.")
    hi = max(a, axis=axis, keepdims=keepdims)
    lo = min(a, axis=axis, keepdims=keepdims)
    if out is None:
        return _ufunc.subtract(hi, lo)
    reduction_target(a, normalize_axes(axis, len(a.shape)), out, keepdims, a.dtype, "subtract")
    return _ufunc.subtract(hi, lo, out=out)


def _arg(op, fn, a, axis, out, keepdims):
    a = as_array(a)
    nd = len(a.shape)
    if axis is None:
        axes = tuple(range(nd))
    else:
        if nd == 0 and operator.index(axis) in (0, -1):
            axes = ()       # numpy's legacy for 0-d arrays, as in normalize_axes
        else:
            axes = (_layout.normalize_axis(axis, nd),)
    kw = {"axis": axis, "keepdims": keepdims}
    if a.size == 0:
        return _numpy_empty(fn, a, kw, out)
    if out is not None and out.dtype != _I8:
        raise TypeError("Cannot cast array data from %r to dtype('int64') "
                        "according to the rule 'safe'" % (out.dtype,))
    if axis is None and keepdims:
        w, ret = reduction_target(a, axes, out, True, _I8, op)
    else:
        w, ret = reduction_target(a, axes, out, keepdims, _I8, op)
    _red.run_reduction(op, (a,), w, axes, a.dtype)
    return ret


@_shared_doc
def argmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum (``numpy.argmax``).

    NaN counts as the maximum (the first NaN's index).  With ``axis=None``
    the index is into the flattened (C order) array, whatever the strides.

    Parameters
    ----------
    $OPERAND
    axis : int, optional
        The axis searched; None (the default) searches the flattened array.
    out : GPUArray of int64, optional
        Receives the indices (the result's shape, ``keepdims`` included).
    keepdims : bool, optional
        Keep the reduced axis (every axis for ``axis=None``) with length 1.

    Returns
    -------
    GPUArray of int64
        0-d when ``axis`` is None; ``out`` when given.

    Raises
    ------
    ValueError
        For an empty ``a`` or axis (numpy's ``attempt to get argmax of an
        empty sequence``), or an ``out`` of the wrong shape.
    TypeError
        For an ``out`` whose dtype is not int64 (numpy's safe-casting
        message).
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return _arg("argmax", np.argmax, a, axis, out, keepdims)


@_shared_doc
def argmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum (``numpy.argmin``); see :func:`argmax`.

    NaN counts as the minimum (the first NaN's index).

    Parameters
    ----------
    $OPERAND
    axis : int, optional
        The axis searched; None (the default) searches the flattened array.
    out : GPUArray of int64, optional
        Receives the indices (the result's shape, ``keepdims`` included).
    keepdims : bool, optional
        Keep the reduced axis (every axis for ``axis=None``) with length 1.

    Returns
    -------
    GPUArray of int64
        0-d when ``axis`` is None; ``out`` when given.

    Raises
    ------
    ValueError
        For an empty ``a`` or axis (numpy's ``attempt to get argmin of an
        empty sequence``), or an ``out`` of the wrong shape.
    TypeError
        For an ``out`` whose dtype is not int64 (numpy's safe-casting
        message).
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return _arg("argmin", np.argmin, a, axis, out, keepdims)


# ---------------------------------------------------------------------------
# logical


@_shared_doc
def any(a, axis=None, out=None, keepdims=False, *, where=_NoValue):  # noqa: A001
    """Whether any element is non-zero (``numpy.any``); bool result.

    An empty reduction gives False.

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        ``initial=`` is not taken (numpy's signature).

    Returns
    -------
    GPUArray of bool
        0-d for a full reduction; ``out`` when given (converted to its
        dtype).

    $RAISES
    """
    r = _special("any", a, axis, None, out, keepdims, _NoValue, where)
    if r is not None:
        return r
    return _reduce("any", np.any, "logical_or", a, axis, out, keepdims, _B,
                   _B, {"axis": axis, "keepdims": keepdims})


@_shared_doc
def all(a, axis=None, out=None, keepdims=False, *, where=_NoValue):  # noqa: A001
    """Whether every element is non-zero (``numpy.all``); bool result.

    An empty reduction gives True.

    Parameters
    ----------
    $OPERAND
    $AXIS
    $OUT
    $KEEPDIMS
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        ``initial=`` is not taken (numpy's signature).

    Returns
    -------
    GPUArray of bool
        0-d for a full reduction; ``out`` when given (converted to its
        dtype).

    $RAISES
    """
    r = _special("all", a, axis, None, out, keepdims, _NoValue, where)
    if r is not None:
        return r
    return _reduce("all", np.all, "logical_and", a, axis, out, keepdims, _B,
                   _B, {"axis": axis, "keepdims": keepdims})


# run on the arrays' device (issue 16)
_placement.route(globals())
