"""PyCUDA's ``gpuarray`` reductions, by PyCUDA's signatures (layer 5).

``pycuda.gpuarray.sum(a, dtype=None, stream=None, allocator=None)`` and the
others take their arguments in PyCUDA's order (``sum(a, numpy.float64)``
means ``dtype``, ``min(a, stream)`` a stream); :mod:`gpuarr.gpuarray`
exports these.  The flat namespace (``gpuarr.sum``) and the array methods
keep numpy's signatures (:mod:`gpuarr.reductions`).  numpy's keywords
(``axis``, ``out``, ``keepdims``) are accepted here too, keyword-only.

Where PyCUDA and numpy disagree on a result, numpy's wins:

* dtypes: ``sum`` of int32 is int64 (PyCUDA: int32), ``dot`` and
  ``subset_dot`` of two dtypes give their promotion (PyCUDA: the first
  one's); ``dtype=`` is the accumulator's and result's dtype in all of them;
* ``min``/``max`` propagate NaN (PyCUDA's ``fmin``/``fmax`` skip it) and
  raise numpy's ValueError for an empty array;
* ``dot`` of two N-D arrays (N >= 2) is numpy's matrix product, which
  gpuarr does not implement (NotImplementedError); PyCUDA summed
  ``a * b`` over every element, which ``vdot`` of real arrays gives;
* the subset reductions index like numpy's ``a[subset]``: negative
  indices count from the end and an index outside ``[-n, n)`` raises
  IndexError before the reduction is launched (PyCUDA reads outside the
  array).  Checking costs two small reductions and a synchronization;
  ``mode="wrap"`` or ``mode="clip"`` (numpy.take's modes) skip it.

Every function returns a 0-d GPUArray for a full reduction (PyCUDA's
convention: ``float(x)`` or ``x.get()`` read it), allocated with
``allocator`` when given (else the context's pool), and launches on
``stream`` (default the legacy stream).
"""

import builtins

import numpy as np

from . import _placement
from . import _creation, _layout, _transfer, _ufunc
from . import driver as _drv
from . import reduction as _red
from . import reductions as _rs
from ._array import GPUArray

__all__ = ["sum", "dot", "vdot", "min", "max", "all", "any", "subset_sum",
           "subset_dot", "subset_min", "subset_max", "method_any",
           "method_all"]

_NoValue = np._NoValue
_B = np.dtype(bool)
_NP = {"sum": np.sum, "max": np.max, "min": np.min, "any": np.any,
       "all": np.all}


def _new(shape, dt, allocator):
    if allocator is None:
        return _creation.empty_c(shape, dt)
    return GPUArray(shape, dt, allocator=allocator)


def _zero(w, stream):
    """Set ``w`` (C-contiguous) to zeros, every dtype's 0 being all bits
    clear: one memset, no kernel."""
    if w.size:
        if stream is None:
            _drv.memset_d8(w.ptr, 0, w.nbytes)
        else:
            _drv.memset_d8_async(w.ptr, 0, w.nbytes, stream)
    return w


def _made(x, given):
    """Whether operand ``x`` is a temporary made from ``given`` (the
    caller's operand): a device copy of a host array, or a copy a reshape
    made; a view of ``given`` is not."""
    if x is given:
        return False
    if isinstance(given, GPUArray):
        return not _layout.overlaps(x, given)
    return True


def _empty_answer(npfn, a, kw, out):
    """numpy's answer (or error) for a reduction of an empty array."""
    r = np.asarray(npfn(np.zeros(a.shape, a.dtype), **kw))
    if out is None:
        return _creation.to_gpu(np.asarray(r, order="C"))
    if out.size:
        out.set(r.astype(out.dtype).reshape(out.shape))
    return out


def _reduce(op, name, a, res_dt, ct, axis, out, keepdims, stream, allocator,
            kw, given=None):
    """A reduction of ``a`` on ``stream`` into ``out`` or a new array from
    ``allocator``; numpy's shapes, errors and empty answers.  ``given``: what
    the caller was passed, when ``a`` is already its device copy (which must
    then outlive the work queued on ``stream``)."""
    if given is None:
        given = a
    a = _rs.as_array(a)
    axes = _rs.normalize_axes(axis, len(a.shape))
    if out is None and allocator is not None:
        shape = (tuple(1 if k in axes else n for k, n in enumerate(a.shape))
                 if keepdims else
                 tuple(n for k, n in enumerate(a.shape) if k not in axes))
        out = GPUArray(shape, res_dt, allocator=allocator)
    if a.size == 0:
        return _empty_answer(_NP[op], a, kw, out)
    w, ret = _rs.reduction_target(a, axes, out, keepdims, res_dt, name)
    _red.run_reduction(op, (a,), w, axes, ct, stream=stream)
    _transfer.settle_temporaries(stream, _made(a, given))
    return ret


def sum(a, dtype=None, stream=None, allocator=None, *, axis=None,  # noqa: A001
        out=None, keepdims=False):
    """Sum of the elements (PyCUDA's ``gpuarray.sum``; numpy's dtypes).

    Parameters
    ----------
    a : GPUArray
    dtype : dtype-like, optional
        Accumulator and result dtype; default numpy's (int64 for smaller
        signed integers and bool, uint64 for smaller unsigned ones, else
        ``a.dtype``; PyCUDA's default was ``a.dtype``).
    stream : gpuarr.driver.Stream, optional
    allocator : callable, optional
        ``allocator(nbytes)`` for the result.
    axis, out, keepdims
        numpy's (keyword-only).

    Returns
    -------
    GPUArray
        0-d for a full reduction.

    Raises
    ------
    TypeError, ValueError, numpy.exceptions.AxisError
        As :func:`gpuarr.reductions.sum`.
    """
    if stream is None and allocator is None:
        return _rs.sum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    dev = _rs.as_array(a)
    res = _rs.result_dtype("sum", dev.dtype, dtype,
                           keepdims or axis is not None)
    return _reduce("sum", "add", dev, res, res, axis, out, keepdims, stream,
                   allocator, {"axis": axis, "dtype": dtype,
                               "keepdims": keepdims}, given=a)


def _extremum(op, name, a, stream, axis, out, keepdims):
    if stream is None:
        fn = _rs.max if op == "max" else _rs.min
        return fn(a, axis=axis, out=out, keepdims=keepdims)
    dev = _rs.as_array(a)
    return _reduce(op, name, dev, dev.dtype, dev.dtype, axis, out, keepdims,
                   stream, None, {"axis": axis, "keepdims": keepdims},
                   given=a)


def max(a, stream=None, *, axis=None, out=None, keepdims=False):  # noqa: A001
    """Largest element (PyCUDA's ``gpuarray.max``), NaN-propagating like
    numpy's (PyCUDA's ignored NaN).

    Parameters
    ----------
    a : GPUArray
    stream : gpuarr.driver.Stream, optional
    axis, out, keepdims
        numpy's (keyword-only).

    Returns
    -------
    GPUArray
        0-d of ``a.dtype`` for a full reduction.

    Raises
    ------
    ValueError
        For an empty array (numpy's "zero-size array to reduction operation
        maximum which has no identity").
    """
    return _extremum("max", "maximum", a, stream, axis, out, keepdims)


def min(a, stream=None, *, axis=None, out=None, keepdims=False):  # noqa: A001
    """Smallest element (PyCUDA's ``gpuarray.min``), NaN-propagating as
    numpy's ``min`` (PyCUDA's skips NaN).

    Parameters
    ----------
    a : GPUArray or array_like
        Any shape and supported dtype.
    stream : gpuarr.driver.Stream, optional
    axis, out, keepdims
        numpy's, keyword-only.

    Returns
    -------
    GPUArray
        0-d of ``a``'s dtype for a full reduction, else the reduced shape.

    Raises
    ------
    ValueError
        For an empty array (numpy's "zero-size array to reduction operation
        minimum which has no identity").
    """
    return _extremum("min", "minimum", a, stream, axis, out, keepdims)


def _logical(op, name, a, stream, allocator, axis, out, keepdims):
    if stream is None and allocator is None:
        fn = _rs.any if op == "any" else _rs.all
        return fn(a, axis=axis, out=out, keepdims=keepdims)
    return _reduce(op, name, a, _B, _B, axis, out, keepdims, stream,
                   allocator, {"axis": axis, "keepdims": keepdims})


def any(a, stream=None, allocator=None, *, axis=None, out=None,  # noqa: A001
        keepdims=False):
    """Whether any element is non-zero (PyCUDA's ``gpuarray.any``).

    PyCUDA's argument order; :func:`gpuarr.any` is numpy's signature.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand, any dtype (tested for non-zero; complex: either part);
        host data is copied to the device first.
    stream : gpuarr.driver.Stream, optional
        The stream the reduction is enqueued on (PyCUDA's); default the
        legacy default stream.
    allocator : callable, optional
        ``allocator(nbytes)`` for the result (PyCUDA's); default the
        current context's pool.
    axis : None, int or tuple of ints, optional
        numpy's (keyword-only): the axes reduced; None every axis.
    out : GPUArray, optional
        numpy's (keyword-only): receives the result, converted to its dtype.
    keepdims : bool, optional
        numpy's (keyword-only): keep the reduced axes with length 1.

    Returns
    -------
    GPUArray
        bool; 0-d for a full reduction (empty: False, numpy's answer);
        ``out`` when given.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As :func:`gpuarr.reductions.any`: an axis out of range or repeated,
        a non-integer axis, an ``out`` of the wrong shape.
    """
    return _logical("any", "logical_or", a, stream, allocator, axis, out,
                    keepdims)


def all(a, stream=None, allocator=None, *, axis=None, out=None,  # noqa: A001
        keepdims=False):
    """Whether every element is non-zero (PyCUDA's ``gpuarray.all``).

    PyCUDA's argument order; :func:`gpuarr.all` is numpy's signature.

    Parameters
    ----------
    a : GPUArray or array_like
        The operand, any dtype (tested for non-zero; complex: either part);
        host data is copied to the device first.
    stream : gpuarr.driver.Stream, optional
        The stream the reduction is enqueued on (PyCUDA's); default the
        legacy default stream.
    allocator : callable, optional
        ``allocator(nbytes)`` for the result (PyCUDA's); default the
        current context's pool.
    axis : None, int or tuple of ints, optional
        numpy's (keyword-only): the axes reduced; None every axis.
    out : GPUArray, optional
        numpy's (keyword-only): receives the result, converted to its dtype.
    keepdims : bool, optional
        numpy's (keyword-only): keep the reduced axes with length 1.

    Returns
    -------
    GPUArray
        bool; 0-d for a full reduction (empty: True, numpy's answer);
        ``out`` when given.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As :func:`gpuarr.reductions.all`: an axis out of range or repeated,
        a non-integer axis, an ``out`` of the wrong shape.
    """
    return _logical("all", "logical_and", a, stream, allocator, axis, out,
                    keepdims)


def _method(op, name, a, axis, out, keepdims, where, stream, allocator):
    if where is not _NoValue and where is not True:
        raise NotImplementedError("where= is not supported by gpuarr")
    return _logical(op, name, a, stream, allocator, axis, out, keepdims)


def method_any(a, axis=None, out=None, keepdims=False, *, where=_NoValue,
               stream=None, allocator=None):
    """``GPUArray.any``: numpy's signature, plus PyCUDA's ``stream`` and
    ``allocator`` keywords."""
    return _method("any", "logical_or", a, axis, out, keepdims, where,
                   stream, allocator)


def method_all(a, axis=None, out=None, keepdims=False, *, where=_NoValue,
               stream=None, allocator=None):
    """``GPUArray.all``: numpy's signature, plus PyCUDA's ``stream`` and
    ``allocator`` keywords."""
    return _method("all", "logical_and", a, axis, out, keepdims, where,
                   stream, allocator)


# ---------------------------------------------------------------------------
# products of two arrays


def _check_out(out, shape, dt):
    if out is None:
        return
    if not isinstance(out, GPUArray):
        raise TypeError("out must be a GPUArray")
    if out.shape != tuple(shape) or out.dtype != dt or not out.flags.c_contiguous:
        raise ValueError("output array is not acceptable (must have the right "
                         "datatype, number of dimensions, and be a C-Array)")


def dot(a, b, dtype=None, stream=None, allocator=None, *, out=None):
    """Dot product (PyCUDA's ``gpuarray.dot``, numpy's ``dot`` semantics)
    of two vectors, or of an N-D array and a vector (over ``a``'s last
    axis); 0-d operands multiply.  Without ``dtype``, ``stream`` and
    ``allocator`` this is :func:`gpuarr.dot`, matrix products included
    (cuBLAS).

    Parameters
    ----------
    a, b : GPUArray
    dtype : dtype-like, optional
        Accumulator and result dtype; default numpy's promotion of the two
        (``int8 . int8`` is int8, wrapping; ``bool . bool`` bool).
    stream : gpuarr.driver.Stream, optional
    allocator : callable, optional
    out : GPUArray, optional
        numpy's ``out`` (keyword-only): C-contiguous, of the result's shape
        and dtype.

    Returns
    -------
    GPUArray
        0-d for two vectors.  One fused pass, any strides; float16
        accumulates in float32.

    Raises
    ------
    ValueError
        For misaligned shapes (numpy's message) or an unacceptable ``out``.
    NotImplementedError
        For a ``b`` of 2 or more dimensions with ``dtype``, ``stream`` or
        ``allocator`` given (the matrix product takes none of them: call
        without, or :func:`gpuarr.matmul` with ``dtype=``/``stream=``;
        PyCUDA's sum of ``a * b`` over every element is ``vdot`` for real
        arrays).
    """
    if dtype is None and stream is None and allocator is None:
        return _rs.dot(a, b, out=out)
    given = (a, b)
    a = _rs.as_array(a)
    b = _rs.as_array(b)
    res = np.result_type(a.dtype, b.dtype) if dtype is None else np.dtype(dtype)
    if len(a.shape) == 0 or len(b.shape) == 0:
        if out is not None:
            # before any launch: an error then drops no temporary in use
            _check_out(out, b.shape if len(a.shape) == 0 else a.shape, res)
        if dtype is not None:
            # computed in ``dtype``, as the vector products are
            a = a.astype(res, stream=stream)
            b = b.astype(res, stream=stream)
        r = _ufunc.apply("multiply", (a, b), None, stream)
        made = _made(a, given[0]) or _made(b, given[1])
        if r.dtype != res:
            r = r.astype(res, stream=stream)
            made = True
        if out is None:
            _transfer.settle_temporaries(stream, made)
            return r
        _transfer.copy_into(out, r, stream)
        # r and the casts are dropped on return
        _transfer.settle_temporaries(stream, True)
        return out
    if len(b.shape) != 1:
        raise NotImplementedError(
            "gpuarr.gpuarray.dot with dtype=, stream= or allocator= supports "
            "vector . vector and N-D . vector; for matrix products call it "
            "without them (numpy's dot) or use gpuarr.matmul(a, b, dtype=, "
            "stream=); for PyCUDA's sum of a*b over every element use vdot")
    _layout.check_vector_product(a.shape, b.shape)
    nd = len(a.shape)
    kshape = a.shape[:-1]
    _check_out(out, kshape, res)
    w = out if out is not None else _new(kshape, res, allocator)
    if a.size == 0:
        return _zero(w, stream)
    bb = GPUArray(a.shape, b.dtype, gpudata=b.ptr,
                  strides=(0,) * (nd - 1) + (b.strides[0],), base=b)
    _red.run_reduction("dot", (a, bb), w, (nd - 1,), res, stream=stream)
    # host operands were copied to the device
    _transfer.settle_temporaries(stream, _made(a, given[0])
                                 or _made(b, given[1]))
    return w


def vdot(a, b, dtype=None, stream=None, allocator=None):
    """``sum(conj(a) * b)`` over the flattened arrays (numpy's ``vdot``),
    with PyCUDA's ``dot`` keywords; one fused pass.

    Parameters
    ----------
    a, b : GPUArray
        Of one size, any shapes and strides.
    dtype : dtype-like, optional
        Accumulator and result dtype; default numpy's promotion.
    stream : gpuarr.driver.Stream, optional
    allocator : callable, optional

    Returns
    -------
    GPUArray
        0-d.

    Raises
    ------
    ValueError
        For arrays of different sizes.
    """
    if dtype is None and stream is None and allocator is None:
        return _rs.vdot(a, b)
    given = (a, b)
    a = _rs.as_array(a)
    b = _rs.as_array(b)
    if a.size != b.size:
        raise ValueError("cannot reshape array of size %d into shape (%d,)"
                         % (b.size, a.size))
    res = np.result_type(a.dtype, b.dtype) if dtype is None else np.dtype(dtype)
    w = _new((), res, allocator)
    if a.size == 0:
        return _zero(w, stream)
    if a.shape != b.shape:
        # views when the layouts allow, else copies
        a = a.reshape(-1)
        b = b.reshape(-1)
    _red.run_reduction("vdot", (a, b), w, tuple(range(len(a.shape))), res,
                       stream=stream)
    _transfer.settle_temporaries(stream, _made(a, given[0])
                                 or _made(b, given[1]))
    return w


# ---------------------------------------------------------------------------
# reductions over a[subset]


def _subset(op, subset, arrays, res, ct, stream, allocator, mode, given):
    """Reduce ``arrays[k][subset]`` into a new 0-d ``res`` array
    (``arrays``: the caller's operands ``given`` made arrays)."""
    given = [subset] + list(given)
    subset = _rs.as_array(subset)
    arrays = [_rs.as_array(x) for x in arrays]
    if subset.dtype.kind == "b":
        raise TypeError("%s: boolean subsets (masks) are not supported; "
                        "pass integer indices" % op)
    if subset.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or "
                         "boolean) type")
    for x in arrays:
        if len(x.shape) != 1:
            raise ValueError("%s needs 1-D arrays to index, not shape %s "
                             "(PyCUDA indexes the flattened memory: pass "
                             "a.ravel())" % (op, x.shape))
    if mode not in _red.INDEX_MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' "
                         "(got %r)" % (mode,))
    if subset.size == 0:
        if op in ("subset_min", "subset_max"):
            raise ValueError("zero-size array to reduction operation %s which "
                             "has no identity" % ("minimum" if op ==
                                                  "subset_min" else "maximum"))
        w = _new((), res, allocator)
        return _zero(w, stream)
    for x in arrays:
        if x.shape[0] == 0:
            if mode == "raise":
                raise IndexError("index 0 is out of bounds for axis 0 with "
                                 "size 0")
            raise IndexError("cannot do a non-empty take from an empty axes.")
    if mode == "raise":
        _check_bounds(subset, arrays, stream)
    w = _new((), res, allocator)
    _red.run_subset_reduction(op, subset, arrays, w, ct, mode, stream)
    _transfer.settle_temporaries(stream, builtins.any(
        _made(x, g) for x, g in zip([subset] + arrays, given)))
    return w


def _check_bounds(subset, arrays, stream):
    """numpy's IndexError for an index of ``subset`` outside ``[-n, n)``
    of any of ``arrays``: the least and greatest index are reduced on the
    device and read back (the one synchronization of ``mode="raise"``)."""
    lohi = _creation.empty_c((2,), subset.dtype)
    axes = tuple(range(len(subset.shape)))
    _red.run_reduction("min", (subset,), lohi[0], axes, subset.dtype,
                       stream=stream)
    _red.run_reduction("max", (subset,), lohi[1], axes, subset.dtype,
                       stream=stream)
    if stream is not None:
        stream.synchronize()
    lo, hi = (int(v) for v in lohi.get())
    for x in arrays:
        n = x.shape[0]
        bad = hi if hi >= n else (lo if lo < -n else None)
        if bad is not None:
            raise IndexError("index %d is out of bounds for axis 0 with size "
                             "%d" % (bad, n))


_MODE_DOC = """
    mode : {"raise", "wrap", "clip"}
        Keyword-only, numpy.take's: "raise" (default) indexes like
        ``a[subset]`` (negative indices from the end; IndexError, before
        the reduction runs, for one outside ``[-n, n)``: two small
        reductions and a synchronization check it), "wrap" takes indices
        modulo ``n``, "clip" clamps them to ``[0, n - 1]`` (neither checks
        nor synchronizes).
"""


def subset_sum(subset, a, dtype=None, stream=None, allocator=None, *,
               mode="raise"):
    """``sum(a[subset])`` in one pass, without forming ``a[subset]``
    (PyCUDA's ``gpuarray.subset_sum``).

    Parameters
    ----------
    subset : GPUArray
        Integer indices into ``a``, any shape and strides.
    a : GPUArray
        1-D, any strides.
    dtype : dtype-like, optional
        Accumulator and result dtype; default numpy's ``sum`` dtype of
        ``a.dtype`` (int64 for int32; PyCUDA's default was ``a.dtype``).
    stream : gpuarr.driver.Stream, optional
    allocator : callable, optional
    %s
    Returns
    -------
    GPUArray
        0-d; 0 for an empty subset.

    Raises
    ------
    IndexError
        For an out-of-range index (``mode="raise"``), non-integer indices,
        or a non-empty subset of an empty ``a``.
    TypeError
        For a boolean subset.
    ValueError
        For an ``a`` that is not 1-D, or an unknown ``mode``.
    """
    x = _rs.as_array(a)
    res = _rs.result_dtype("sum", x.dtype, dtype, False)
    return _subset("subset_sum", subset, (x,), res, res, stream, allocator,
                   mode, (a,))


def subset_dot(subset, a, b, dtype=None, stream=None, allocator=None, *,
               mode="raise"):
    """``dot(a[subset], b[subset])`` in one pass (PyCUDA's
    ``gpuarray.subset_dot``): ``a`` and ``b`` are both indexed by
    ``subset`` and may differ in length (each index must lie within
    both).

    Parameters
    ----------
    subset : GPUArray
        Integer indices, any shape and strides.
    a, b : GPUArray
        1-D, any strides.
    dtype : dtype-like, optional
        Accumulator and result dtype; default numpy's promotion of ``a``'s
        and ``b``'s (PyCUDA's default was ``a.dtype``).
    stream : gpuarr.driver.Stream, optional
    allocator : callable, optional
    %s
    Returns
    -------
    GPUArray
        0-d; 0 for an empty subset.

    Raises
    ------
    IndexError, TypeError, ValueError
        As :func:`subset_sum`.
    """
    x = _rs.as_array(a)
    y = _rs.as_array(b)
    res = np.result_type(x.dtype, y.dtype) if dtype is None else np.dtype(dtype)
    return _subset("subset_dot", subset, (x, y), res, res, stream, allocator,
                   mode, (a, b))


def subset_max(subset, a, stream=None, *, mode="raise"):
    """``max(a[subset])`` in one pass (PyCUDA's ``gpuarray.subset_max``);
    NaN propagates like numpy's ``max`` (PyCUDA ignored it).

    Parameters
    ----------
    subset : GPUArray
        Integer indices, any shape and strides.
    a : GPUArray
        1-D, any strides.
    stream : gpuarr.driver.Stream, optional
    %s
    Returns
    -------
    GPUArray
        0-d of ``a.dtype``.

    Raises
    ------
    ValueError
        For an empty subset (numpy's "zero-size array to reduction
        operation maximum which has no identity"), a non-1-D ``a`` or an
        unknown ``mode``.
    IndexError, TypeError
        As :func:`subset_sum`.
    """
    x = _rs.as_array(a)
    return _subset("subset_max", subset, (x,), x.dtype, x.dtype, stream, None,
                   mode, (a,))


def subset_min(subset, a, stream=None, *, mode="raise"):
    """``min(a[subset])`` in one pass (PyCUDA's ``gpuarray.subset_min``),
    NaN-propagating; the gathered array is never built.

    Parameters
    ----------
    subset : GPUArray or array_like
        Integer indices into ``a`` (any integer dtype, any shape).
    a : GPUArray or array_like
        1-D, any supported dtype.
    stream : gpuarr.driver.Stream, optional
    mode : {"raise", "wrap", "clip"}, optional
        As :func:`subset_max` (numpy.take's rules for the indices).

    Returns
    -------
    GPUArray
        0-d of ``a``'s dtype.

    Raises
    ------
    IndexError
        With ``mode="raise"``, for an index outside ``[-len(a), len(a))``,
        before the reduction.
    ValueError
        For an empty subset, or an ``a`` that is not 1-D.
    """
    x = _rs.as_array(a)
    return _subset("subset_min", subset, (x,), x.dtype, x.dtype, stream, None,
                   mode, (a,))


for _f in (subset_sum, subset_dot, subset_max):
    if _f.__doc__:      # None under python -OO
        _f.__doc__ = _f.__doc__ % _MODE_DOC
del _f


# run on the arrays' device (issue 16)
_placement.route(globals())
