"""The machinery of numpy's reductions (layer 5), shared by
:mod:`gpuarr.reductions` (sums, products, moments), :mod:`gpuarr._extrema`
(extrema, arg-extrema, logical reductions) and :mod:`gpuarr._dots` (dot,
inner, vdot).

Argument normalization (``axis`` as numpy checks it), numpy's result
dtypes (asked of numpy once on tiny arrays, cached), the array a reduction
writes and the one it returns (``out=``, ``keepdims``), empty inputs
answered by numpy itself, the cached one-launch path of full reductions
into new 0-d arrays, and numpy's ``where=`` / ``initial=`` through
:mod:`gpuarr._maskedreduce`.  The kernels come from
:mod:`gpuarr.reduction`.
"""

import operator
import warnings

import numpy as np

from . import _creation, _docpieces, _dtypes, _layout
from . import _maskedreduce as _masked
from . import reduction as _red
from ._array import GPUArray, make

#: numpy's marker of an argument not given (``initial=``, ``where=``)
NoValue = np._NoValue
_NoValue = NoValue
_B = np.dtype(bool)
_I8 = np.dtype(np.int64)
_F2 = np.dtype(np.float16)
_F4 = np.dtype(np.float32)
_F8 = np.dtype(np.float64)


#: Pieces the reductions' docstrings share, put in by ``shared_doc``
#: where a docstring line is ``$NAME`` alone (:mod:`gpuarr._docpieces`).
DOC_PIECES = {
    "OPERAND": """a : GPUArray or array_like
    The operand; anything else than a GPUArray goes through
    :func:`gpuarr.asarray` (a host copy).""",
    "AXIS": """axis : None, int or tuple of ints, optional
    Axes reduced over; None (the default) reduces every axis.  Negative
    axes count from the end.""",
    "KEEPDIMS": """keepdims : bool, optional
    Keep the reduced axes with length 1, so the result broadcasts
    against ``a``.""",
    "OUT": """out : GPUArray, optional
    Receives the result: the result's shape (``keepdims`` included); the
    values are converted to its dtype (numpy's unsafe casting of
    reductions), and it is returned.""",
    "RAISES": """Raises
------
numpy.exceptions.AxisError
    For an axis out of range.
ValueError
    For a repeated axis, or an ``out`` of the wrong shape (numpy's
    messages).
TypeError
    For a non-integer axis or an ``out`` that is no GPUArray.""",
}


#: the decorator putting :data:`DOC_PIECES` into a reduction's docstring
shared_doc = _docpieces.filler(DOC_PIECES)

def _factory(shape, dtype):
    return _creation.empty_c(tuple(shape), _dtypes.canonical(dtype))


_red.set_array_factory(_factory)

state = _red.state


def full_entry(st, key, op, a, res_dt, ct, scale):
    """Cache (under ``key``) and return the launch entry of a full
    reduction of ``a`` into a new 0-d ``res_dt`` array."""
    if len(st.fast) >= _red.MAX_PLANS:
        st.fast.clear()
    ent = _red.full_entry(st, op, a, res_dt, ct, scale) + (res_dt,
                                                           res_dt.itemsize)
    st.fast[key] = ent
    return ent


def launch_full(st, ent, a):
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


def np_dtype(name, fn, dt, dtype, array_result=True):
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
        return np_dtype(name, _NP_FUNCS[name], dt, dtype, array_result)
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


def special(name, a, axis, dtype, out, keepdims, initial, where):
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


def host_c(r):
    """``r`` as a C-contiguous host array of the same shape.

    ``numpy.ascontiguousarray`` would turn a 0-d result into shape (1,).
    """
    return np.asarray(r, order="C")


def numpy_empty(fn, a, kw, out):
    """Answer a reduction of an empty array with numpy itself."""
    r = np.asarray(fn(np.zeros(a.shape, a.dtype), **kw))
    if out is not None:
        if out.size:
            out.set(host_c(r.astype(out.dtype, copy=False)
                            .reshape(out.shape)))
        return out
    return _creation.to_gpu(host_c(r))


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


def reduce_array(op, fn, name, a, axis, out, keepdims, res_dt, ct, kw,
            scale=None, stream=None):
    a = as_array(a)
    axes = normalize_axes(axis, len(a.shape))
    if a.size == 0:
        return numpy_empty(fn, a, kw, out)
    if (out is None and not keepdims and stream is None
            and len(axes) == len(a.shape) and type(a) is GPUArray):
        # a full reduction into a new 0-d array: one cached entry
        st = state()
        key = (op, res_dt, ct, a.dtype, a.shape, a.strides, a.ptr & 15)
        ent = st.fast.get(key)
        if ent is None:
            ent = full_entry(st, key, op, a, res_dt, ct,
                              1.0 if scale is None else scale(a.size))
        return launch_full(st, ent, a)
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
