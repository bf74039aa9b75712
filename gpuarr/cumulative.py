"""Cumulative sums and products of GPUArrays (layer 5; the array methods): ``numpy.cumsum``
and ``numpy.cumprod`` with numpy's result dtypes, ``axis``, ``dtype`` and
``out``.

Dispatch (see ``docs/scan.md``):

* ``axis=None``, or an axis with nothing but size-1 axes after it: the
  single-pass look-back scan over the flat data, rows of the axis' length
  scanned independently (one launch for any number of rows of any length);
* another axis with many columns (``prod(shape[:axis]) *
  prod(shape[axis+1:]) >= 16384``) or a short axis: one thread per column
  walking down the axis (coalesced, one pass);
* otherwise (few long columns): the axis is moved last through a transposed
  copy, scanned as rows, and transposed back.

A non-contiguous input is first copied contiguous.
"""

import warnings

import numpy as np

from . import _placement
from . import _creation, _dtypes, _layout
from . import scan as _scan
from ._array import GPUArray
from .elementwise import run_elementwise

__all__ = ["cumsum", "cumprod", "accumulate_dtypes"]

_COLUMN_MIN = 16384     # columns from which the column kernel is used
_COLUMN_SHORT = 64      # or axis lengths up to which it is used anyway
_UFUNCS = {"add": np.add, "multiply": np.multiply}


def accumulate_dtypes(op, dtype_in, dtype=None, out_dtype=None):
    """numpy's dtypes of ``cumsum``/``cumprod``.

    Parameters
    ----------
    op : {"add", "multiply"}
    dtype_in : numpy.dtype
        The input's dtype.
    dtype : dtype-like, optional
        The ``dtype=`` argument.
    out_dtype : numpy.dtype, optional
        The dtype of ``out=``.

    Returns
    -------
    (loop, result) : tuple of numpy.dtype
        The dtype the accumulation runs in and the dtype of the result.
        Without ``dtype`` and ``out``, bool and integers narrower than 64
        bits accumulate in int64 (unsigned: uint64), as numpy's.  With
        ``out`` only, the loop is numpy's ufunc resolution of ``(out,
        input)`` (``cumsum`` of float16 into a float32 ``out`` adds in
        float32).  The result is cast to ``out`` unsafely, as numpy does.

    Raises
    ------
    TypeError
        For dtypes gpuarr does not support.
    """
    dt_in = _dtypes.check_supported(dtype_in)
    if dtype is not None:
        loop = _dtypes.check_supported(dtype)
    elif out_dtype is not None:
        loop = _UFUNCS[op].resolve_dtypes(
            (np.dtype(out_dtype), dt_in, None))[2]
        _dtypes.check_supported(loop)
    elif dt_in.kind == "b" or (dt_in.kind == "i" and dt_in.itemsize < 8):
        loop = np.dtype(np.int64)
    elif dt_in.kind == "u" and dt_in.itemsize < 8:
        loop = np.dtype(np.uint64)
    else:
        loop = dt_in
    res = _dtypes.check_supported(out_dtype) if out_dtype is not None else loop
    return loop, res


_RESOLVED = {}   # (op, input dtype, dtype=, out dtype) -> dtypes, operator


def _dtypes_and_operator(op, dtype_in, dtype, out_dtype):
    """:func:`accumulate_dtypes` and the scan operator, remembered per
    arguments (a repeated call skips numpy's dtype resolution)."""
    try:
        key = (op, dtype_in, dtype, out_dtype)
        hit = _RESOLVED.get(key)
    except TypeError:           # an unhashable dtype= spelling
        key = hit = None
    if hit is None:
        loop, res_dt = accumulate_dtypes(op, dtype_in, dtype, out_dtype)
        hit = (loop, res_dt) + _scan.builtin_operator(op, loop)
        if key is not None:
            _RESOLVED[key] = hit
    return hit


def _contiguous_copy(a, stream):
    t = _creation.empty(a.shape, a.dtype)
    run_elementwise("copy", [t], [a], stream=stream)
    return t


def _merged(shape, strides):
    """Element strides of ``shape`` merged to one axis, or None."""
    mshape, (mst,) = _layout.merge_dims(tuple(shape), [tuple(strides)])
    if len(mshape) == 0:
        return 0
    if len(mshape) == 1:
        return mst[0]
    return None


def _accumulate(op, a, axis, dtype, out, stream):
    if not isinstance(a, GPUArray):
        a = _creation.asarray(a)
    if out is not None and not isinstance(out, GPUArray):
        raise TypeError("out must be a GPUArray, not %s" % type(out).__name__)
    loop, res_dt, expr, neutral = _dtypes_and_operator(
        op, a.dtype, dtype, None if out is None else out.dtype)
    if a.dtype.kind == "c" and loop.kind != "c" or (
            loop.kind == "c" and res_dt.kind != "c"):
        warnings.warn("Casting complex values to real discards the "
                      "imaginary part", np.exceptions.ComplexWarning,
                      stacklevel=3)
    if axis is None:
        shape = (a.size,)
        ax = 0
    else:
        ax = _layout.normalize_axis(axis, max(a.ndim, 1))
        shape = a.shape if a.ndim else (1,)
    if out is not None:
        if axis is None:
            if tuple(out.shape) != shape:
                raise ValueError("provided out is the wrong size for the "
                                 "accumulation.")
        elif tuple(out.shape) != tuple(shape):
            raise ValueError(
                "operands could not be broadcast together with remapped "
                "shapes [original->remapped]: %s->%s %s->%s "
                % (_fmt(out.shape), _fmt(out.shape), _fmt(shape),
                   _fmt(shape)))
    n = a.size
    if n == 0:
        return out if out is not None else _creation.empty(shape, res_dt)
    # where the results go: out itself when it is C-contiguous and either
    # distinct from a or the very same elements (an in-place scan)
    direct = (out is not None and out._c
              and (not _layout.overlaps(a, out)
                   or (a.ptr == out.ptr and a.strides == out.strides
                       and a.dtype.itemsize == out.dtype.itemsize
                       and a._c)))
    res = out if direct else _creation.empty(shape, res_dt)
    src = a if a.ndim else a.reshape(1)
    length = shape[ax]
    outer = _layout.prod(shape[:ax])
    inner = _layout.prod(shape[ax + 1:])
    if axis is None or inner == 1:
        if not src._c:
            src = _contiguous_copy(src, stream)
        _scan.run_scan(src.ptr, src.dtype, res.ptr, res_dt, n, expr, loop,
                       neutral=neutral,
                       row_len=None if outer == 1 else length,
                       stream=stream, commutative=True)
    elif outer * inner >= _COLUMN_MIN or length <= _COLUMN_SHORT:
        isz = src.dtype.itemsize
        so = _merged(src.shape[:ax], [s // isz for s in src.strides[:ax]])
        si = _merged(src.shape[ax + 1:],
                     [s // isz for s in src.strides[ax + 1:]])
        if so is None or si is None or any(s % isz for s in src.strides):
            src = _contiguous_copy(src, stream)
            so, si = length * inner, 1
        sl = src.strides[ax] // isz
        _scan.run_column_scan(src.ptr, src.dtype, res.ptr, res_dt, outer,
                              length, inner, (so, sl, si), expr, loop,
                              neutral=neutral, stream=stream)
    else:
        perm = tuple(k for k in range(len(shape)) if k != ax) + (ax,)
        moved = src.transpose(perm)
        t_in = _contiguous_copy(moved, stream)
        t_out = _creation.empty(t_in.shape, res_dt)
        _scan.run_scan(t_in.ptr, t_in.dtype, t_out.ptr, res_dt, n, expr,
                       loop, neutral=neutral, row_len=length, stream=stream,
                       commutative=True)
        inv = [0] * len(perm)
        for k, p in enumerate(perm):
            inv[p] = k
        run_elementwise("copy", [res], [t_out.transpose(tuple(inv))],
                        stream=stream)
    if out is not None and res is not out:
        run_elementwise("copy", [out], [res], stream=stream)
        return out
    return res


def _fmt(shape):
    return "(%s%s)" % (",".join(str(n) for n in shape),
                       "," if len(shape) == 1 else "")


def cumsum(a, axis=None, dtype=None, out=None, *, stream=None):
    """Cumulative sum of the elements along an axis (``numpy.cumsum``).

    Parameters
    ----------
    a : GPUArray or array_like
        Input (host data is copied to the device first).
    axis : int, optional
        Axis along which to sum; None (default): the flattened array, in C
        order.
    dtype : dtype-like, optional
        The dtype to accumulate in and of the result.  Default: ``a``'s
        dtype, except that bool and integers narrower than 64 bits
        accumulate in int64 (unsigned ones in uint64), as numpy's.
    out : GPUArray, optional
        Where to put the result: the shape of the result (``(a.size,)`` for
        ``axis=None``); any strides; its dtype is cast to (unsafely, like
        numpy).
    stream : gpuarr.driver.Stream, optional
        Stream to run on.

    Returns
    -------
    GPUArray
        ``out`` when given, else a new C-contiguous array.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    TypeError
        For a non-integer axis, an unsupported dtype, or an ``out`` that is
        not a GPUArray.
    ValueError
        For an ``out`` of the wrong shape.

    Notes
    -----
    The sum is computed in parallel (one pass over the data, decoupled
    look-back), so floating-point results differ from numpy's sequential
    ones by rounding; the error bound is that of any summation order,
    ``n * eps * sum(abs(a))``.  float16 accumulates in float32 and rounds
    each stored result to float16 (numpy rounds each partial sum to
    float16, so gpuarr's results are closer to the exact sums).  Integer
    sums wrap around on overflow, as numpy's.
    """
    return _accumulate("add", a, axis, dtype, out, stream)


def cumprod(a, axis=None, dtype=None, out=None, *, stream=None):
    """Cumulative product of the elements along an axis (``numpy.cumprod``).

    Parameters
    ----------
    a : GPUArray or array_like
        Input (host data is copied to the device first).
    axis : int, optional
        Axis along which to multiply; None (default): the flattened array,
        in C order.
    dtype : dtype-like, optional
        The dtype to accumulate in and of the result.  Default: ``a``'s
        dtype, except that bool and integers narrower than 64 bits
        accumulate in int64 (unsigned ones in uint64), as numpy's.
    out : GPUArray, optional
        Where to put the result: the shape of the result (``(a.size,)`` for
        ``axis=None``); any strides; its dtype is cast to (unsafely, like
        numpy).
    stream : gpuarr.driver.Stream, optional
        Stream to run on (gpuarr's keyword; numpy has none).

    Returns
    -------
    GPUArray
        ``out`` when given, else a new C-contiguous array of ``a``'s shape
        (``(a.size,)`` for ``axis=None``).

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    TypeError
        For a non-integer axis, an unsupported dtype, or an ``out`` that is
        not a GPUArray.
    ValueError
        For an ``out`` of the wrong shape.

    Notes
    -----
    Products are formed in parallel; floating-point results differ from
    numpy's sequential ones by rounding (a relative error bounded by about
    ``n * eps``).  float16 multiplies in float32 and rounds at each store.
    Integer products wrap around on overflow, as numpy's.
    """
    return _accumulate("multiply", a, axis, dtype, out, stream)


# run on the arrays' device (issue 16)
_placement.route(globals())
