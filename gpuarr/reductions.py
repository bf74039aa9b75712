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
for ``var``/``std``/``ptp``).
"""

import operator
import warnings

import numpy as np

from . import _creation, _dtypes, _layout, _matmul, _transfer, _ufunc
from . import _maskedreduce as _masked
from . import reduction as _red
from ._array import GPUArray, make

__all__ = ["mean_dtype", "sum", "prod", "min", "max", "amin", "amax", "mean",
           "var", "std", "dot", "vdot", "inner", "argmin", "argmax", "any",
           "all", "count_nonzero", "ptp", "nansum", "nanmax", "nanmin"]

_NoValue = np._NoValue
_builtin_sum = sum
_builtin_max = max
_B = np.dtype(bool)
_I8 = np.dtype(np.int64)
_F2 = np.dtype(np.float16)
_F4 = np.dtype(np.float32)
_F8 = np.dtype(np.float64)


def _factory(shape, dtype):
    return _creation.empty_c(tuple(shape), _dtypes.canonical(dtype))


_red.set_array_factory(_factory)

_state = _red.state


def _full_entry(st, key, op, a, res_dt, ct, scale):
    """Cache (under ``key``) and return the launch entry of a full
    reduction of ``a`` into a new 0-d ``res_dt`` array."""
    if len(st.fast) >= _red.MAX_PLANS:
        st.fast.clear()
    ent = _red.full_entry(st, op, a, res_dt, ct, scale) + (res_dt,
                                                           res_dt.itemsize)
    st.fast[key] = ent
    return ent


def _launch_full(st, ent, a):
    """Launch a cached full reduction of ``a`` and return its 0-d result.

    The result is built like :func:`gpuarr._creation.empty_c` builds a
    0-d array, from the context's pool held by ``st``: no per-call pool or
    context lookup beyond :func:`gpuarr.reduction.state`'s one.
    """
    fn, grid, block, off, rest, dt, isz = ent
    blk = st.pool.allocate(isz)
    w = make((), dt, (), blk.ptr, blk, None, True, True, None, 1)
    fn.prepared_async_call(grid, block, None, w.ptr, a.ptr + off, *rest)
    return w

# ---------------------------------------------------------------------------
# argument normalization (cached)

_AXES = {}


def normalize_axes(axis, ndim):
    """numpy's ``normalize_axis_tuple`` of a reduction's ``axis``, sorted;
    None gives every axis (cached).

    Raises
    ------
    TypeError
        For a non-integer axis.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis.
    """
    key = (axis, ndim, type(axis))
    try:
        return _AXES[key]
    except (KeyError, TypeError):
        pass
    if axis is None:
        r = tuple(range(ndim))
    elif ndim == 0 and not isinstance(axis, (tuple, list)) and \
            operator.index(axis) in (0, -1):
        r = ()      # numpy's legacy: a scalar axis 0 or -1 of a 0-d array
    else:
        if not isinstance(axis, (tuple, list)):
            axis = (axis,)
        ax = [_layout.normalize_axis(a, ndim) for a in axis]
        if len(set(ax)) != len(ax):
            raise ValueError("duplicate value in 'axis'")
        r = tuple(sorted(ax))
    try:
        if len(_AXES) > 4096:
            _AXES.clear()
        _AXES[key] = r
    except TypeError:
        pass
    return r


def as_array(a):
    """``a`` as an operand of a reduction: GPUArrays and array-likes with
    ``ptr`` and ``strides`` as they are, anything else through
    :func:`gpuarr.asarray`."""
    if isinstance(a, GPUArray):
        return a
    if hasattr(a, "ptr") and hasattr(a, "strides"):
        return a
    return _creation.asarray(a)


_DT = {}


def _np_dtype(name, fn, dt, dtype, array_result=True):
    """numpy's result dtype of ``fn`` on a tiny array of ``dt`` (cached).

    ``array_result`` asks numpy for an array result (a reduction over one
    axis of a 2-D array) rather than a scalar one (a full reduction): numpy's
    ``std`` with an integer ``dtype=`` raises for the first only (its square
    root is taken in place, casting float64 to the integer dtype), and so
    does gpuarr.  numpy's error propagates unchanged.
    """
    key = (name, dt, dtype, array_result)
    try:
        return _DT[key]
    except KeyError:
        pass
    kw = {}
    if dtype is not None:
        kw["dtype"] = dtype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if array_result:
            r = np.asarray(fn(np.ones((2, 2), dt), axis=0, **kw)).dtype
        else:
            r = np.asarray(fn(np.ones(2, dt), **kw)).dtype
    _dtypes.canonical(r)
    _DT[key] = r
    return r


_NP_FUNCS = {
    "sum": np.sum, "prod": np.prod, "nansum": np.nansum, "mean": np.mean,
    "var": np.var, "std": np.std, "max": np.max, "min": np.min,
    "amax": np.max, "amin": np.min, "nanmax": np.nanmax,
    "nanmin": np.nanmin, "ptp": np.ptp, "argmax": np.argmax,
    "argmin": np.argmin, "any": np.any, "all": np.all,
    "count_nonzero": np.count_nonzero,
}
_WITH_DTYPE = ("sum", "prod", "nansum", "mean", "var", "std")


def result_dtype(name, dt, dtype=None, array_result=True):
    """The dtype numpy gives ``numpy.<name>`` of a ``dt`` array (and
    ``dtype=``), which gpuarr's function of that name returns.

    Parameters
    ----------
    name : str
        ``"sum"``, ``"mean"``, ``"argmax"``, ...
    dt : dtype-like
    dtype : dtype-like, optional
        The ``dtype=`` argument, for functions that take one.
    array_result : bool
        Whether the reduction gives an array (``axis`` leaves axes, or
        ``keepdims``) rather than a scalar (a full reduction).

    Raises
    ------
    TypeError
        Where numpy refuses the combination (numpy's own exception, e.g.
        ``std`` over an axis with an integer ``dtype=``).
    """
    dt = np.dtype(dt)
    if name in _WITH_DTYPE:
        return _np_dtype(name, _NP_FUNCS[name], dt, dtype, array_result)
    if name in ("max", "min", "amax", "amin", "nanmax", "nanmin", "ptp"):
        return dt
    if name in ("argmax", "argmin", "count_nonzero"):
        return _I8
    if name in ("any", "all"):
        return _B
    raise ValueError("unknown reduction %r" % (name,))


def mean_dtype(dt, dtype=None):
    """The dtype numpy's ``mean`` (and ``var``'s mean) accumulates in.

    Parameters
    ----------
    dt : numpy.dtype
        The operand's dtype.
    dtype : dtype-like, optional
        The ``dtype=`` argument of the reduction.

    Returns
    -------
    numpy.dtype
        ``dtype`` when given; float64 for bool and integers; float32 for
        float16; otherwise ``dt`` itself.
    """
    if dtype is not None:
        return np.dtype(dtype)
    if dt.kind in "biu":
        return _F8
    return _F4 if dt == _F2 else dt


def _special(name, a, axis, dtype, out, keepdims, initial, where):
    """The answer of a reduction that is not a plain one, else None: the
    recorded step when ``a`` is a value of a function :func:`gpuarr.fuse`
    is tracing; numpy's ``where=`` and ``initial=``
    (:func:`gpuarr._maskedreduce.reduce_masked`)."""
    if type(a) is not GPUArray:
        hook = getattr(a, "_gpuarr_fused_reduce", None)
        if hook is not None:
            if where is not _NoValue or initial is not _NoValue:
                raise TypeError("gpuarr.fuse cannot fuse where= or initial= "
                                "of a reduction")
            return hook(name, axis, dtype, out, keepdims)
    if (where is _NoValue or where is True) and initial is _NoValue:
        return None
    return _masked.reduce_masked(name, as_array(a), axis, dtype, out,
                                 keepdims, initial, where)


def _host_c(r):
    """``r`` as a C-contiguous host array of the same shape.

    ``numpy.ascontiguousarray`` would turn a 0-d result into shape (1,).
    """
    return np.asarray(r, order="C")


def _numpy_empty(fn, a, kw, out):
    """Answer a reduction of an empty array with numpy itself."""
    r = np.asarray(fn(np.zeros(a.shape, a.dtype), **kw))
    if out is not None:
        if out.size:
            out.set(_host_c(r.astype(out.dtype, copy=False)
                            .reshape(out.shape)))
        return out
    return _creation.to_gpu(_host_c(r))


def reduction_target(a, axes, out, keepdims, res_dt, name):
    """``(array the kernel writes, array returned)`` of a reduction of ``a``
    over the sorted ``axes`` into ``out`` (new when None, of ``res_dt``),
    by numpy's output shape rules (``keepdims``).

    Raises
    ------
    TypeError
        For an ``out`` that is no array.
    ValueError
        For an ``out`` of the wrong shape (numpy's messages, naming the
        operation ``name``).
    """
    shape = a.shape
    kshape = tuple(n for k, n in enumerate(shape) if k not in axes)
    if out is None:
        res = _creation.empty_c(kshape, res_dt)
        if keepdims:
            kd = tuple(1 if k in axes else n for k, n in enumerate(shape))
            return res, res.reshape(kd)
        return res, res
    if not hasattr(out, "ptr"):
        raise TypeError("out must be a GPUArray, not %s" % type(out).__name__)
    want = (tuple(1 if k in axes else n for k, n in enumerate(shape))
            if keepdims else kshape)
    if tuple(out.shape) != want:
        if len(out.shape) != len(want):
            raise ValueError(
                "output parameter for reduction operation %s has the wrong "
                "number of dimensions: Found %d but expected %d"
                % (name, len(out.shape), len(want)))
        raise ValueError("output parameter for reduction operation %s has a "
                         "non-reduced dimension with the wrong size: found "
                         "%s, expected %s" % (name, tuple(out.shape), want))
    if keepdims:
        st = tuple(s for k, s in enumerate(out.strides) if k not in axes)
        w = GPUArray(kshape, out.dtype, gpudata=out.ptr, strides=st, base=out)
        return w, out
    return out, out


def _reduce(op, fn, name, a, axis, out, keepdims, res_dt, ct, kw,
            scale=None, stream=None):
    a = as_array(a)
    axes = normalize_axes(axis, len(a.shape))
    if a.size == 0:
        return _numpy_empty(fn, a, kw, out)
    if (out is None and not keepdims and stream is None
            and len(axes) == len(a.shape) and type(a) is GPUArray):
        # a full reduction into a new 0-d array: one cached entry
        st = _state()
        key = (op, res_dt, ct, a.dtype, a.shape, a.strides, a.ptr & 15)
        ent = st.fast.get(key)
        if ent is None:
            ent = _full_entry(st, key, op, a, res_dt, ct,
                              1.0 if scale is None else scale(a.size))
        return _launch_full(st, ent, a)
    w, ret = reduction_target(a, axes, out, keepdims, res_dt, name)
    if scale is None:
        _red.run_reduction(op, (a,), w, axes, ct, stream=stream)
    else:
        n = 1
        for k in axes:
            n *= a.shape[k]
        _red.run_reduction(op, (a,), w, axes, ct, scale=float(scale(n)),
                           stream=stream)
    return ret


# ---------------------------------------------------------------------------
# sums and products


def sum(a, axis=None, dtype=None, out=None, keepdims=False,  # noqa: A001
        initial=_NoValue, where=_NoValue):
    """Sum of array elements over the given axes (``numpy.sum``).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    dtype : dtype-like, optional
        Accumulator and result dtype.  Default numpy's: the platform
        integer (int64) for smaller signed integers and bool, uint64 for
        smaller unsigned ones, otherwise ``a.dtype``.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
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


def nansum(a, axis=None, dtype=None, out=None, keepdims=False,
           initial=_NoValue, where=_NoValue):
    """Sum treating NaN as zero (``numpy.nansum``); dtypes as :func:`sum`.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    dtype : dtype-like, optional
        Accumulator and result dtype; default as :func:`sum`.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("nansum", a, axis, dtype, out, keepdims, initial, where)
    if r is not None:
        return r
    res = _np_dtype("nansum", np.nansum, a.dtype, dtype)
    return _reduce("nansum", np.nansum, "add", a, axis, out, keepdims, res,
                   res, {"axis": axis, "dtype": dtype, "keepdims": keepdims})


def prod(a, axis=None, dtype=None, out=None, keepdims=False,
         initial=_NoValue, where=_NoValue):
    """Product of array elements (``numpy.prod``); dtypes as :func:`sum`.

    Integer products wrap around modulo ``2**bits`` like numpy's.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    dtype : dtype-like, optional
        Accumulator and result dtype; default as :func:`sum` (int64 for
        smaller signed integers and bool, uint64 for smaller unsigned ones).
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("prod", a, axis, dtype, out, keepdims, initial, where)
    if r is not None:
        return r
    res = _np_dtype("prod", np.prod, a.dtype, dtype)
    return _reduce("prod", np.prod, "multiply", a, axis, out, keepdims, res,
                   res, {"axis": axis, "dtype": dtype, "keepdims": keepdims})


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of non-zero elements (``numpy.count_nonzero``).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.

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


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *,
         where=_NoValue):
    """Arithmetic mean (``numpy.mean``).

    Integers and bool are averaged in float64; float16 is summed in float32
    and the result rounded to float16 (numpy's rule).  The sum is divided by
    the count in double precision and rounded once.  An empty reduction
    gives NaN with numpy's RuntimeWarning.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    dtype : dtype-like, optional
        Accumulator and result dtype; default float64 for bool and
        integers, ``a.dtype`` for inexact dtypes.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.

    Returns
    -------
    GPUArray
        Of the dtype above, 0-d for a full reduction; ``out`` when given.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
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


def _var(op, fn, a, axis, dtype, out, ddof, keepdims):
    a = as_array(a)
    dt = a.dtype
    axes = normalize_axes(axis, len(a.shape))
    res = _np_dtype(op, fn, dt, dtype,
                    keepdims or len(axes) < len(a.shape))
    kw = {"axis": axis, "dtype": dtype, "keepdims": keepdims, "ddof": ddof}
    if a.size == 0:
        return _numpy_empty(fn, a, kw, out)
    md = mean_dtype(dt, dtype)
    if md.kind not in "fc":
        md = _F8
    n = 1
    for k in axes:
        n *= a.shape[k]
    kshape = tuple(m for k, m in enumerate(a.shape) if k not in axes)
    m = _creation.empty_c(kshape, md)
    _red.run_reduction("mean", (a,), m, axes, md, scale=float(n))
    w, ret = reduction_target(a, axes, out, keepdims, res, "add")
    _red.run_reduction(op, (a,), w, axes, md, aux=m,
                       scale=float(_builtin_max(n - ddof, 0)))
    return ret


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
        where=_NoValue, mean=_NoValue, correction=_NoValue):
    """Variance (``numpy.var``): ``sum(|x - mean|**2) / (n - ddof)``.

    Two passes (the mean, then the squared deviations), as numpy computes
    it.  The result is real (float64 for integers, the real dtype for
    complex).  ``n - ddof <= 0`` gives inf or NaN like numpy.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    dtype : dtype-like, optional
        The dtype the mean and deviations are computed in; default float64
        for bool and integers, ``a.dtype`` otherwise.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (default 0).
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        The mean of the selected elements, then their squared deviations
        over ``count - ddof``.
    mean : optional
        The precomputed mean of numpy 2: not supported.
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
        For ``mean=`` (numpy 2's precomputed mean).
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    if mean is not _NoValue:
        raise NotImplementedError("mean= is not supported by gpuarr")
    if correction is not _NoValue:
        ddof = correction
    if where is not _NoValue and where is not True:
        return _masked.var_masked("var", as_array(a), axis, dtype, out, ddof,
                                  keepdims, where)
    return _var("var", np.var, a, axis, dtype, out, ddof, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
        where=_NoValue, mean=_NoValue, correction=_NoValue):
    """Standard deviation (``numpy.std``): the square root of :func:`var`.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    dtype : dtype-like, optional
        The dtype the mean and deviations are computed in; default float64
        for bool and integers, ``a.dtype`` otherwise.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (default 0).
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
    where : bool GPUArray or array_like, optional
        The mask (numpy's): only the elements where it is True take part; it
        broadcasts to ``a``'s shape.  One fused kernel of
        ``where(mask, a, neutral)``.
        The mean of the selected elements, then their squared deviations
        over ``count - ddof``.
    mean : optional
        The precomputed mean of numpy 2: not supported.
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
        For ``mean=`` (numpy 2's precomputed mean).
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
    if mean is not _NoValue:
        raise NotImplementedError("mean= is not supported by gpuarr")
    if correction is not _NoValue:
        ddof = correction
    if where is not _NoValue and where is not True:
        return _masked.var_masked("std", as_array(a), axis, dtype, out, ddof,
                                  keepdims, where)
    return _var("std", np.std, a, axis, dtype, out, ddof, keepdims)


# ---------------------------------------------------------------------------
# extrema


def max(a, axis=None, out=None, keepdims=False, initial=_NoValue,  # noqa: A001
        where=_NoValue):
    """Maximum (``numpy.max``, also ``amax``); NaN propagates.

    The result is NaN if any element is.  Complex values are ordered as in
    numpy (lexicographically: real parts, then imaginary parts).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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


def min(a, axis=None, out=None, keepdims=False, initial=_NoValue,  # noqa: A001
        where=_NoValue):
    """Minimum (``numpy.min``, also ``amin``); NaN propagates.

    See :func:`max`.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NoValue,
           where=_NoValue):
    """Maximum ignoring NaN (``numpy.nanmax``).

    An all-NaN slice gives NaN (numpy also warns; gpuarr does not, the
    answer is on the device).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NoValue,
           where=_NoValue):
    """Minimum ignoring NaN (``numpy.nanmin``); see :func:`nanmax`.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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


def ptp(a, axis=None, out=None, keepdims=False):
    """Range of values, ``max - min`` (``numpy.ptp``).

    Computed as :func:`max`, :func:`min` and a subtraction (three
    launches); NaN propagates; complex values are ordered as numpy orders
    them.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.

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


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum (``numpy.argmax``).

    NaN counts as the maximum (the first NaN's index).  With ``axis=None``
    the index is into the flattened (C order) array, whatever the strides.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
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


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum (``numpy.argmin``); see :func:`argmax`.

    NaN counts as the minimum (the first NaN's index).

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
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


def any(a, axis=None, out=None, keepdims=False, *, where=_NoValue):  # noqa: A001
    """Whether any element is non-zero (``numpy.any``); bool result.

    An empty reduction gives False.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("any", a, axis, None, out, keepdims, _NoValue, where)
    if r is not None:
        return r
    return _reduce("any", np.any, "logical_or", a, axis, out, keepdims, _B,
                   _B, {"axis": axis, "keepdims": keepdims})


def all(a, axis=None, out=None, keepdims=False, *, where=_NoValue):  # noqa: A001
    """Whether every element is non-zero (``numpy.all``); bool result.

    An empty reduction gives True.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand; anything else than a GPUArray goes through
        :func:`gpuarr.asarray` (a host copy).
    axis : None, int or tuple of ints, optional
        Axes reduced over; None (the default) reduces every axis.  Negative
        axes count from the end.
    out : GPUArray, optional
        Receives the result: the result's shape (``keepdims`` included); the
        values are converted to its dtype (numpy's unsafe casting of
        reductions), and it is returned.
    keepdims : bool, optional
        Keep the reduced axes with length 1, so the result broadcasts
        against ``a``.
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

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis, or an ``out`` of the wrong shape (numpy's
        messages).
    TypeError
        For a non-integer axis or an ``out`` that is no GPUArray.
    """
    r = _special("all", a, axis, None, out, keepdims, _NoValue, where)
    if r is not None:
        return r
    return _reduce("all", np.all, "logical_and", a, axis, out, keepdims, _B,
                   _B, {"axis": axis, "keepdims": keepdims})


# ---------------------------------------------------------------------------
# products of two arrays (one fused pass, no temporary)


def _dot_dtype(name, fn, d1, d2):
    key = (name, d1, d2)
    try:
        return _DT[key]
    except KeyError:
        pass
    r = np.asarray(fn(np.ones(2, d1), np.ones(2, d2))).dtype
    _dtypes.canonical(r)
    _DT[key] = r
    return r


def _check_dot_out(out, shape, dt):
    if out is None:
        return
    if not hasattr(out, "ptr"):
        raise TypeError("out must be a GPUArray")
    if tuple(out.shape) != tuple(shape) or out.dtype != dt or \
            not out.flags.c_contiguous:
        raise ValueError("output array is not acceptable (must have the right "
                         "datatype, number of dimensions, and be a C-Array)")


def _inner_last(name, a, b, out):
    """Sum over the last axis of ``a * b`` where ``b`` is 1-D (a vector, a
    matrix-vector product): ``b`` is broadcast with stride 0."""
    fn = np.dot if name == "dot" else np.inner
    res = _dot_dtype(name, fn, a.dtype, b.dtype)
    _layout.check_vector_product(a.shape, b.shape)
    nd = len(a.shape)
    kshape = a.shape[:-1]
    _check_dot_out(out, kshape, res)
    if a.size == 0:
        r = fn(np.zeros(a.shape, a.dtype), np.zeros(b.shape, b.dtype))
        if out is not None:
            out.set(np.asarray(r, out.dtype).reshape(out.shape))
            return out
        return _creation.to_gpu(_host_c(r))
    bb = GPUArray(a.shape, b.dtype, gpudata=b.ptr,
                  strides=(0,) * (nd - 1) + (b.strides[0],), base=b)
    w = out if out is not None else _creation.empty_c(kshape, res)
    _red.run_reduction("dot", (a, bb), w, (nd - 1,), res)
    return w


def _not_aligned(ashape, bshape, bdim):
    """numpy's ValueError of dot/inner: ``a``'s last axis against axis
    ``bdim`` of ``b``."""
    return ValueError("shapes %s and %s not aligned: %d (dim %d) != %d (dim %d)"
                      % (_layout.shape_str(ashape), _layout.shape_str(bshape),
                         ashape[-1], len(ashape) - 1, bshape[bdim], bdim))


def dot(a, b, out=None):
    """Dot product (``numpy.dot``): of vectors, matrices, and N-D arrays.

    Vectors, and N-D times a vector: one fused pass computing
    ``sum(a[..., i] * b[i])`` (no temporary), any strides.  A matrix second
    operand: the matrix product (:func:`gpuarr.matmul`, cuBLAS for float
    and complex dtypes); for N-D operands ``dot(a, b)[i, j, k, m] =
    sum(a[i, j, :] * b[k, :, m])`` (numpy.tensordot over ``a``'s last and
    ``b``'s second-to-last axis).  Result dtype numpy's (``int8 . int8``
    is int8, wrapping; ``bool . bool`` is bool); float16 accumulates in
    float32.  0-d operands multiply.

    Parameters
    ----------
    a, b : GPUArray or array_like
        The operands, any dtypes numpy's ``dot`` takes; array-likes go
        through :func:`gpuarr.asarray`.
    out : GPUArray, optional
        Receives the result; numpy's rule: the exact shape and dtype of
        the result, C-contiguous.

    Returns
    -------
    GPUArray
        Of numpy's result dtype (the promotion of the operands' dtypes) and
        shape ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``; 0-d for two
        vectors; ``out`` when given.

    Raises
    ------
    ValueError
        For misaligned shapes (numpy's message) or an unacceptable ``out``.
    TypeError
        For an ``out`` that is no GPUArray.
    """
    a = as_array(a)
    b = as_array(b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        if out is None:
            return _ufunc.multiply(a, b)
        return _ufunc.multiply(a, b, out=out)
    if len(b.shape) == 1:
        return _inner_last("dot", a, b, out)
    if a.shape[-1] != b.shape[-2]:
        raise _not_aligned(a.shape, b.shape, len(b.shape) - 2)
    res = _dot_dtype("dot", np.dot, a.dtype, b.dtype)
    shape = a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    _check_dot_out(out, shape, res)
    if len(a.shape) <= 2 and len(b.shape) == 2:
        return _matmul.matmul(a, b, out=out)
    r = _matmul.tensordot(a, b, ([len(a.shape) - 1], [len(b.shape) - 2]))
    if out is None:
        return r
    _transfer.copy_into(out, r)
    return out


def inner(a, b):
    """Inner product over the last axes (``numpy.inner``).

    A vector (or 0-d) operand: one fused pass (see :func:`dot`); otherwise
    ``inner(a, b)[i0, ..., j0, ...] = sum(a[i0, ..., :] * b[j0, ..., :])``
    through :func:`gpuarr.tensordot` (a matrix product).  0-d operands
    multiply.

    Parameters
    ----------
    a, b : GPUArray or array_like
        The operands; their last axes must have the same length.

    Returns
    -------
    GPUArray
        Shape ``a.shape[:-1] + b.shape[:-1]``, numpy's result dtype (the
        promotion of the operands' dtypes); 0-d for two vectors.

    Raises
    ------
    ValueError
        numpy's "shapes ... not aligned" when the last axes differ.
    """
    a = as_array(a)
    b = as_array(b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _ufunc.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise _not_aligned(a.shape, b.shape, len(b.shape) - 1)
    if len(b.shape) == 1:
        return _inner_last("inner", a, b, None)
    if len(a.shape) == 1:
        return _inner_last("inner", b, a, None)
    res = _dot_dtype("inner", np.inner, a.dtype, b.dtype)
    r = _matmul.tensordot(a, b, ([len(a.shape) - 1], [len(b.shape) - 1]))
    return r if r.dtype == res else r.astype(res)


def vdot(a, b):
    """``sum(conj(a) * b)`` over the flattened arrays (``numpy.vdot``).

    One fused pass; ``a`` is conjugated when complex.  Operands of
    different shapes but the same size are flattened (C order).

    Parameters
    ----------
    a, b : GPUArray or array_like
        Operands of the same number of elements, any dtypes numpy's
        ``vdot`` takes.

    Returns
    -------
    GPUArray
        0-d, of numpy's result dtype (the promotion of the operands'
        dtypes); 0 for empty operands.

    Raises
    ------
    ValueError
        When the sizes differ (numpy's reshape message).
    """
    a = as_array(a)
    b = as_array(b)
    if a.size != b.size:
        raise ValueError("cannot reshape array of size %d into shape (%d,)"
                         % (b.size, a.size))
    res = _dot_dtype("vdot", np.vdot, a.dtype, b.dtype)
    if a.size == 0:
        return _creation.to_gpu(np.zeros((), res))
    if tuple(a.shape) != tuple(b.shape):
        a = a.reshape(-1)
        b = b.reshape(-1)
    w = _creation.empty_c((), res)
    _red.run_reduction("vdot", (a, b), w, tuple(range(len(a.shape))), res)
    return w
