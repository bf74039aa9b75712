"""numpy's reductions on GPUArrays (layer 5: the array methods ``sum``,
``max``, ... are these functions).

Every function takes the array first and has the signature of the numpy
function of the same name (``numpy.sum(a, axis=None, dtype=None, out=None,
keepdims=False)``...).  Results follow numpy 2:

* dtypes: numpy's own answer for the operand dtype and ``dtype=`` (asked
  once of numpy on tiny arrays and cached): ``sum`` of int32 is int64, of
  bool int64, of uint32 uint64; ``mean`` of integers float64; float16
  results are accumulated in float32 and rounded once;
* full reductions give 0-d GPUArrays (``float(x)``, ``int(x)``,
  ``x.get()`` read them, PyCUDA's convention), others GPUArrays;
  ``keepdims`` keeps the reduced axes with length 1; ``out=`` receives the
  result converted to its dtype (numpy's unsafe casting of reductions) and
  is returned;
* ``axis`` may be None, an int or a tuple of ints: numpy's AxisError when
  out of range, ValueError for duplicates, TypeError for non-integers;
* NaN propagates through ``max``/``min``/``argmax``/``argmin`` (the first
  NaN wins); ``nanmax``/``nanmin``/``nansum`` ignore NaN;
* empty inputs are answered by numpy itself on an empty host array of the
  same shape (same values, errors and warnings), then copied to the GPU.

Kernels come from :mod:`gpuarr.reduction` (one launch per reduction, two
for ``var``/``std``/``ptp``).  This module holds the sums, products and
moments; the extrema and logical reductions are :mod:`gpuarr._extrema`'s,
``dot``/``inner``/``vdot`` :mod:`gpuarr._dots`'s, the shared machinery
:mod:`gpuarr._reducecore`'s; all are exported here.
"""

import numpy as np

from . import _placement
from . import _creation, _manipulation
from . import _maskedreduce as _masked
from . import reduction as _red
from ._array import GPUArray
from . import _reducecore
from ._reducecore import (
    full_entry as _full_entry, launch_full as _launch_full,
    np_dtype as _np_dtype, numpy_empty as _numpy_empty,
    reduce_array as _reduce, shared_doc as _shared_doc, special as _special,
    state as _state)

__all__ = ["mean_dtype", "sum", "prod", "min", "max", "amin", "amax", "mean",
           "var", "std", "dot", "vdot", "inner", "argmin", "argmax", "any",
           "all", "count_nonzero", "ptp", "nansum", "nanmax", "nanmin"]

# the machinery's public helpers, which the other array modules reach here
as_array = _reducecore.as_array
mean_dtype = _reducecore.mean_dtype
normalize_axes = _reducecore.normalize_axes
reduction_target = _reducecore.reduction_target
result_dtype = _reducecore.result_dtype

_NoValue = np._NoValue
_builtin_max = max
_I8 = np.dtype(np.int64)
_F8 = np.dtype(np.float64)


# ---------------------------------------------------------------------------
# sums and products


@_shared_doc
def sum(a, axis=None, dtype=None, out=None, keepdims=False,  # noqa: A001
        initial=_NoValue, where=_NoValue):
    """Sum of array elements over the given axes (``numpy.sum``).

    Parameters
    ----------
    $OPERAND
    $AXIS
    dtype : dtype-like, optional
        Accumulator and result dtype.  Default numpy's: the platform
        integer (int64) for smaller signed integers and bool, uint64 for
        smaller unsigned ones, otherwise ``a.dtype``.
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), added to each sum (cast to the result
        dtype); also the value of an empty sum.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.

    Returns
    -------
    GPUArray
        Of the result dtype above; 0-d for a full reduction (``float(x)`` or
        ``x.get()`` reads it, PyCUDA's convention; numpy gives a scalar).
        float16 is accumulated in float32 and rounded once; integers are
        accumulated in 64 bits and wrap to the result dtype.  ``out`` when
        given.

    $RAISES
        Also for ``where=``/``initial=`` inside a function
        :func:`gpuarr.fuse` traces.
    """
    if (axis is None and out is None and dtype is None and not keepdims
            and initial is _NoValue and where is _NoValue
            and type(a) is GPUArray):
        # the plain full sum: one context lookup, one dict lookup, a pooled
        # 0-d result and one launch
        st = _state()
        key = ("sum", a.dtype, a.shape, a.strides, a.ptr & 15)
        ent = st.fast.get(key)
        if ent is None and a.size:
            res = _np_dtype("sum", np.sum, a.dtype, None)
            ent = _full_entry(st, key, "sum", a, res, res, 1.0)
        if ent is not None:
            return _launch_full(st, ent, a)
    r = _special("sum", a, axis, dtype, out, keepdims, initial, where)
    if r is not None:
        return r
    dt = a.dtype
    res = _np_dtype("sum", np.sum, dt, dtype)
    return _reduce("sum", np.sum, "add", a, axis, out, keepdims, res, res,
                   {"axis": axis, "dtype": dtype, "keepdims": keepdims})


@_shared_doc
def nansum(a, axis=None, dtype=None, out=None, keepdims=False,
           initial=_NoValue, where=_NoValue):
    """Sum treating NaN as zero (``numpy.nansum``); dtypes as :func:`sum`.

    Parameters
    ----------
    $OPERAND
    $AXIS
    dtype : dtype-like, optional
        Accumulator and result dtype; default as :func:`sum`.
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), added to each sum.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.

    Returns
    -------
    GPUArray
        The sums of the non-NaN elements (0 for an all-NaN slice), 0-d for
        a full reduction; ``out`` when given.

    $RAISES
    """
    r = _special("nansum", a, axis, dtype, out, keepdims, initial, where)
    if r is not None:
        return r
    res = _np_dtype("nansum", np.nansum, a.dtype, dtype)
    return _reduce("nansum", np.nansum, "add", a, axis, out, keepdims, res,
                   res, {"axis": axis, "dtype": dtype, "keepdims": keepdims})


@_shared_doc
def prod(a, axis=None, dtype=None, out=None, keepdims=False,
         initial=_NoValue, where=_NoValue):
    """Product of array elements (``numpy.prod``); dtypes as :func:`sum`.

    Integer products wrap around modulo ``2**bits`` like numpy's.

    Parameters
    ----------
    $OPERAND
    $AXIS
    dtype : dtype-like, optional
        Accumulator and result dtype; default as :func:`sum` (int64 for
        smaller signed integers and bool, uint64 for smaller unsigned ones).
    $OUT
    $KEEPDIMS
    initial : scalar, optional
        The starting value (numpy's), multiplied into each product; also the
        value of an empty product (default 1).
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.

    Returns
    -------
    GPUArray
        0-d for a full reduction; ``out`` when given.

    $RAISES
    """
    r = _special("prod", a, axis, dtype, out, keepdims, initial, where)
    if r is not None:
        return r
    res = _np_dtype("prod", np.prod, a.dtype, dtype)
    return _reduce("prod", np.prod, "multiply", a, axis, out, keepdims, res,
                   res, {"axis": axis, "dtype": dtype, "keepdims": keepdims})


@_shared_doc
def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of non-zero elements (``numpy.count_nonzero``).

    Parameters
    ----------
    $OPERAND
    $AXIS
    $KEEPDIMS

    Returns
    -------
    GPUArray of int64
        0-d when ``axis`` is None (numpy returns a Python int there).

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As numpy: axis out of range, repeated, or not an integer.
    """
    return _reduce("count_nonzero", np.count_nonzero, "add", a, axis, None,
                   keepdims, _I8, _I8, {"axis": axis, "keepdims": keepdims})


@_shared_doc
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *,
         where=_NoValue):
    """Arithmetic mean (``numpy.mean``).

    Integers and bool are averaged in float64; float16 is summed in float32
    and the result rounded to float16 (numpy's rule).  The sum is divided by
    the count in double precision and rounded once.  An empty reduction
    gives NaN with numpy's RuntimeWarning.

    Parameters
    ----------
    $OPERAND
    $AXIS
    dtype : dtype-like, optional
        Accumulator and result dtype; default float64 for bool and
        integers, ``a.dtype`` for inexact dtypes.
    $OUT
    $KEEPDIMS
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.

    Returns
    -------
    GPUArray
        Of the dtype above, 0-d for a full reduction; ``out`` when given.

    $RAISES
    """
    r = _special("mean", a, axis, dtype, out, keepdims, _NoValue, where)
    if r is not None:
        return r
    dt = a.dtype
    res = _np_dtype("mean", np.mean, dt, dtype)
    ct = mean_dtype(dt, dtype)
    return _reduce("mean", np.mean, "add", a, axis, out, keepdims, res, ct,
                   {"axis": axis, "dtype": dtype, "keepdims": keepdims},
                   scale=lambda n: n)


def _var(op, fn, a, axis, dtype, out, ddof, keepdims, mean=_NoValue):
    a = as_array(a)
    dt = a.dtype
    axes = normalize_axes(axis, len(a.shape))
    res = _np_dtype(op, fn, dt, dtype,
                    keepdims or len(axes) < len(a.shape))
    md = mean_dtype(dt, dtype)
    if md.kind not in "fc":
        md = _F8
    if mean is not _NoValue:
        mean = as_array(mean)
        wide = np.result_type(dt, mean.dtype)
        if dtype is None and wide != dt:
            # numpy subtracts the given mean: its dtype may widen the work
            md = np.result_type(md, wide)
            res = np.dtype(md.char.lower()) if md.kind == "c" else md
    kw = {"axis": axis, "dtype": dtype, "keepdims": keepdims, "ddof": ddof}
    if a.size == 0:
        if mean is not _NoValue:
            kw["mean"] = np.zeros(mean.shape, mean.dtype)
        return _numpy_empty(fn, a, kw, out)
    n = 1
    for k in axes:
        n *= a.shape[k]
    kshape = tuple(m for k, m in enumerate(a.shape) if k not in axes)
    if mean is _NoValue:
        m = _creation.empty_c(kshape, md)
        _red.run_reduction("mean", (a,), m, axes, md, scale=float(n))
    else:
        # the mean of keepdims's shape (numpy broadcasts it against a):
        # made C-contiguous in the dtype the deviations are computed in,
        # laid out as the kernel reads its own mean
        kd = tuple(1 if k in axes else m for k, m in enumerate(a.shape))
        try:
            mb = _manipulation.broadcast_to(mean, kd)
        except ValueError:
            raise ValueError("mean of shape %s does not broadcast to %s, the "
                             "shape of the mean over axis=%r with keepdims"
                             % (mean.shape, kd, axis)) from None
        m = mb.astype(md, order="C").reshape(kshape)
    w, ret = reduction_target(a, axes, out, keepdims, res, "add")
    _red.run_reduction(op, (a,), w, axes, md, aux=m,
                       scale=float(_builtin_max(n - ddof, 0)))
    return ret


@_shared_doc
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
        where=_NoValue, mean=_NoValue, correction=_NoValue):
    """Variance (``numpy.var``): ``sum(|x - mean|**2) / (n - ddof)``.

    Two passes (the mean, then the squared deviations), as numpy computes
    it.  The result is real (float64 for integers, the real dtype for
    complex).  ``n - ddof <= 0`` gives inf or NaN like numpy.

    Parameters
    ----------
    $OPERAND
    $AXIS
    dtype : dtype-like, optional
        The dtype the mean and deviations are computed in; default float64
        for bool and integers, ``a.dtype`` otherwise.
    $OUT
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (default 0).
    $KEEPDIMS
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        The mean of the selected elements, then their squared deviations
        over ``count - ddof``.
    mean : GPUArray or array_like, optional
        numpy 2's precomputed mean: of the shape the mean over ``axis`` has
        with ``keepdims=True`` (or broadcasting to it), so the first pass is
        skipped.  A wider dtype than ``a``'s widens the computation, as
        numpy's subtraction does.  Not with ``where=``.
    correction : int, optional
        The Array API's name of ``ddof``; when given it replaces ``ddof``.

    Returns
    -------
    GPUArray
        Real: float64 for bool and integers, float32 for complex64, float64
        for complex128, else ``a.dtype`` (numpy's); 0-d for a full
        reduction; ``out`` when given.

    Raises
    ------
    NotImplementedError
        For ``mean=`` together with ``where=``.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    if correction is not _NoValue:
        ddof = correction
    if where is not _NoValue and where is not True:
        if mean is not _NoValue:
            raise NotImplementedError("mean= together with where= is not "
                                      "supported by gpuarr")
        return _masked.var_masked("var", as_array(a), axis, dtype, out, ddof,
                                  keepdims, where)
    return _var("var", np.var, a, axis, dtype, out, ddof, keepdims, mean)


@_shared_doc
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
        where=_NoValue, mean=_NoValue, correction=_NoValue):
    """Standard deviation (``numpy.std``): the square root of :func:`var`.

    Parameters
    ----------
    $OPERAND
    $AXIS
    dtype : dtype-like, optional
        The dtype the mean and deviations are computed in; default float64
        for bool and integers, ``a.dtype`` otherwise.
    $OUT
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (default 0).
    $KEEPDIMS
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        The mean of the selected elements, then their squared deviations
        over ``count - ddof``.
    mean : GPUArray or array_like, optional
        numpy 2's precomputed mean: of the shape the mean over ``axis`` has
        with ``keepdims=True`` (or broadcasting to it), so the first pass is
        skipped.  A wider dtype than ``a``'s widens the computation, as
        numpy's subtraction does.  Not with ``where=``.
    correction : int, optional
        The Array API's name of ``ddof``; when given it replaces ``ddof``.

    Returns
    -------
    GPUArray
        Real, of :func:`var`'s dtype; 0-d for a full reduction; ``out`` when
        given.

    Raises
    ------
    NotImplementedError
        For ``mean=`` together with ``where=``.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
        Also for an integer ``dtype=`` with a reduction that leaves an
        array (numpy takes the square root in place and refuses the cast);
        a full ``std`` accepts it.
    """
    if correction is not _NoValue:
        ddof = correction
    if where is not _NoValue and where is not True:
        if mean is not _NoValue:
            raise NotImplementedError("mean= together with where= is not "
                                      "supported by gpuarr")
        return _masked.var_masked("std", as_array(a), axis, dtype, out, ddof,
                                  keepdims, where)
    return _var("std", np.std, a, axis, dtype, out, ddof, keepdims, mean)


# the extrema, logical reductions and products of two arrays, defined in
# their own modules (they use the machinery above through _reducecore)
from ._extrema import (  # noqa: E402
    all, amax, amin, any, argmax, argmin, max, min, nanmax, nanmin, ptp)
from ._dots import dot, inner, vdot  # noqa: E402


# run on the arrays' device (issue 16)
_placement.route(globals())
