"""numpy's functions that add, remove or assemble elements, over
GPUArrays (layer 6): ``append``, ``delete``, ``insert``, ``resize``,
``trim_zeros``, ``block``.

Each follows numpy 2's recipe out of gpuarr's joins, views and indexing,
so shapes, dtypes and errors are numpy's.  Index arguments (``obj``) are
host objects as in numpy; a GPUArray ``obj`` is read to the host first
(an index list, not data).  Results are new C-ordered arrays (numpy keeps
an F-ordered input's order), except ``trim_zeros``, which returns a view
as numpy does.
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _joining, _manipulation, _rearrange, _selection
from ._array import GPUArray

__all__ = ["append", "delete", "insert", "resize", "trim_zeros", "block"]

_normalize_axis = np.lib.array_utils.normalize_axis_index


def _along(ndim, axis, key):
    """An indexing tuple selecting ``key`` on ``axis`` of ``ndim`` axes."""
    return (slice(None),) * axis + (key,) + (slice(None),) * (ndim - axis - 1)


def _flat_or_axis(arr, axis):
    """numpy's start of delete and insert: ``(arr, axis)`` with ``arr``
    raveled when ``axis`` is None."""
    arr = _creation.asarray(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        return arr, arr.ndim - 1
    return arr, _normalize_axis(axis, arr.ndim)


def _host_obj(obj):
    """An index argument as numpy sees it: a GPUArray read to the host."""
    return obj.get() if isinstance(obj, GPUArray) else obj


def append(arr, values, axis=None):
    """``values`` joined after ``arr`` (numpy.append).

    Parameters
    ----------
    arr : GPUArray or array_like
    values : GPUArray, array_like or scalar
        With ``axis`` given, of ``arr``'s shape but along ``axis``.
    axis : int, optional
        The axis to join along; None joins the flattened arrays.

    Returns
    -------
    GPUArray
        A new array of the two dtypes' promotion (numpy's concatenate
        rules); 1-d when ``axis`` is None.

    Raises
    ------
    ValueError
        For shapes that do not join along ``axis`` (concatenate's).
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    arr = _creation.asarray(arr)
    values = _creation.asarray(values)
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        values = values.ravel()
        axis = arr.ndim - 1
    return _joining.concatenate((arr, values), axis=axis)


def delete(arr, obj, axis=None):
    """A copy without the sub-arrays ``obj`` picks along an axis
    (numpy.delete).

    Parameters
    ----------
    arr : GPUArray or array_like
    obj : slice, int, array_like of int, or array_like of bool
        What to remove: a slice, one index, indices (negative count from
        the end; repeats are allowed) or a mask as long as the axis.
    axis : int, optional
        The axis; None removes from the flattened array.

    Returns
    -------
    GPUArray
        ``arr``'s dtype, shorter along ``axis`` (1-d when ``axis`` is
        None).

    Raises
    ------
    IndexError
        For an index out of range (numpy's message), or indices that are
        not integers.
    ValueError
        For a mask not of the axis's length.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    arr, axis = _flat_or_axis(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        keep = np.ones(n, dtype=bool)
        keep[obj] = False
        if keep.all():
            return arr.copy()
        return arr[_along(arr.ndim, axis, keep)]
    obj = _host_obj(obj)
    single = isinstance(obj, (int, np.integer)) and not isinstance(
        obj, (bool, np.bool_))
    if not single:
        given = obj
        obj = np.asarray(obj)
        if obj.size == 0 and not isinstance(given, np.ndarray):
            obj = obj.astype(np.intp)
        elif obj.size == 1 and obj.dtype.kind in "ui":
            obj = obj.item()
            single = True
    if single:
        obj = operator.index(obj)
        if obj < -n or obj >= n:
            raise IndexError("index %d is out of bounds for axis %d with "
                             "size %d" % (obj, axis, n))
        obj += n if obj < 0 else 0
        return _joining.concatenate(
            (arr[_along(arr.ndim, axis, slice(None, obj))],
             arr[_along(arr.ndim, axis, slice(obj + 1, None))]), axis=axis)
    if obj.dtype == np.bool_:
        if obj.shape != (n,):
            raise ValueError("boolean array argument obj to delete must be "
                             "one dimensional and match the axis length of "
                             "%d" % n)
        keep = ~obj
    else:
        keep = np.ones(n, dtype=bool)
        keep[obj,] = False          # numpy's IndexError for a bad index
    return arr[_along(arr.ndim, axis, keep)]


def insert(arr, obj, values, axis=None):
    """A copy with ``values`` inserted before the given indices along an
    axis (numpy.insert).

    Parameters
    ----------
    arr : GPUArray or array_like
    obj : slice, int, array_like of int, or array_like of bool
        Where: indices into the axis before which values go (``n``, the
        axis's length, appends; negative count from the end), a slice of
        such, or a mask (its true positions).
    values : GPUArray, array_like or scalar
        Cast to ``arr``'s dtype (unsafe, as numpy's assignment) and
        broadcast: for one scalar index to ``arr``'s shape with any length
        along ``axis`` (the values' first axis moved there), else to the
        inserted sub-arrays.
    axis : int, optional
        The axis; None inserts into the flattened array.

    Returns
    -------
    GPUArray
        ``arr``'s dtype, longer along ``axis`` (1-d when ``axis`` is None).

    Raises
    ------
    IndexError
        For an index out of range (numpy's message).
    ValueError
        For an index array of more than one dimension, or values that do
        not broadcast.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    arr, axis = _flat_or_axis(arr, axis)
    nd = arr.ndim
    n = arr.shape[axis]
    if isinstance(obj, slice):
        indices = np.arange(*obj.indices(n), dtype=np.intp)
    else:
        given = _host_obj(obj)
        indices = np.array(given)
        if indices.dtype == np.bool_:
            if indices.ndim != 1:
                raise ValueError("boolean array argument obj to insert must "
                                 "be one dimensional")
            indices = np.flatnonzero(indices)
        elif indices.ndim > 1:
            raise ValueError("index array argument obj to insert must be "
                             "one dimensional or scalar")
    if indices.size == 1:
        index = operator.index(indices.item())
        if index < -n or index > n:
            raise IndexError("index %s is out of bounds for axis %d with "
                             "size %d" % (obj, axis, n))
        index += n if index < 0 else 0
        values = _creation.asarray(values, dtype=arr.dtype)
        if values.ndim < nd:
            values = values.reshape((1,) * (nd - values.ndim) + values.shape)
        if indices.ndim == 0:
            # numpy's: one scalar index takes the values' first axis as
            # the inserted length (a[:, 0:1] = ..., not a[:, 0] = ...)
            values = _manipulation.moveaxis(values, 0, axis)
        numnew = values.shape[axis]
        shape = list(arr.shape)
        shape[axis] = numnew
        if values.shape != tuple(shape):
            values = _manipulation.broadcast_to(values, tuple(shape))
        return _joining.concatenate(
            (arr[_along(nd, axis, slice(None, index))], values,
             arr[_along(nd, axis, slice(index, None))]), axis=axis)
    if indices.size == 0 and not isinstance(obj, (np.ndarray, GPUArray)):
        indices = indices.astype(np.intp)
    if indices.dtype.kind in "iu":
        indices = indices.astype(np.intp)    # others: numpy's IndexError below
    indices[indices < 0] += n
    numnew = len(indices)
    order = indices.argsort(kind="stable")
    indices[order] += np.arange(numnew)
    shape = list(arr.shape)
    shape[axis] += numnew
    old = np.ones(shape[axis], dtype=bool)
    old[indices] = False            # numpy's IndexError for a bad index
    new = _creation.empty_c(tuple(shape), arr.dtype)
    new[_along(nd, axis, indices)] = values
    new[_along(nd, axis, old)] = arr
    return new


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with ``a``'s elements in C order,
    repeated as needed (numpy.resize; zeros when ``a`` is empty).

    Parameters
    ----------
    a : GPUArray or array_like
    new_shape : int or tuple of int

    Returns
    -------
    GPUArray
        ``a``'s dtype, of ``new_shape``.

    Raises
    ------
    ValueError
        For a negative length (numpy's message).
    """
    a = _creation.asarray(a).ravel()
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    new_shape = tuple(operator.index(d) for d in new_shape)
    size = 1
    for d in new_shape:
        size *= d
        if d < 0:
            raise ValueError("all elements of `new_shape` must be "
                             "non-negative")
    if a.size == 0 or size == 0:
        return _creation.zeros(new_shape, a.dtype)
    reps = -(-size // a.size)
    flat = _rearrange.tile(a, reps)[:size] if reps > 1 else a[:size].copy()
    return flat.reshape(new_shape)


def trim_zeros(filt, trim="fb", axis=None):
    """A view without the leading and/or trailing zeros (numpy.trim_zeros).

    Parameters
    ----------
    filt : GPUArray
        Any shape; "zero" is what is false (``0``, ``False``, ``0j``).
    trim : {'fb', 'bf', 'f', 'b'}
        Trim the front ('f'), the back ('b') or both (case ignored).
    axis : int or tuple of int, optional
        Axes to trim along (default all): the result is the smallest box
        holding every nonzero element, cut only along these axes.

    Returns
    -------
    GPUArray
        A view of ``filt`` (empty along every axis when all is zero).

    Raises
    ------
    ValueError
        For an unknown ``trim``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    a = _creation.asarray(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError("unexpected character(s) in `trim`: %r" % trim)
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = np.lib.array_utils.normalize_axis_tuple(axis, a.ndim,
                                                       argname="axis")
    if not axes:
        return filt
    nz = _selection.argwhere(a)
    if nz.shape[0] == 0:
        start = stop = [0] * a.ndim
    else:
        start = nz.min(axis=0).get().tolist() if "f" in trim else \
            [None] * a.ndim
        stop = (nz.max(axis=0) + 1).get().tolist() if "b" in trim else \
            [None] * a.ndim
    key = tuple(slice(start[k], stop[k]) if k in axes else slice(None)
                for k in range(a.ndim))
    return a[key[0] if len(key) == 1 else key]


def _where(index):
    return "arrays" + "".join("[%s]" % i for i in index if i is not None)


def _depths(x, index):
    """numpy's depth check of block's nested lists: ``(index of the
    first leaf (None last for an empty list), greatest leaf ndim)``."""
    if type(x) is tuple:
        raise TypeError("%s is a tuple. Only lists can be used to arrange "
                        "blocks, and np.block does not allow implicit "
                        "conversion from tuple to ndarray." % _where(index))
    if type(x) is list:
        if not x:
            return index + [None], 0
        parts = [_depths(v, index + [k]) for k, v in enumerate(x)]
        first, ndim = parts[0]
        for idx, nd in parts[1:]:
            ndim = max(ndim, nd)
            if len(idx) != len(first):
                raise ValueError(
                    "List depths are mismatched. First element was at "
                    "depth %d, but there is an element at depth %d (%s)"
                    % (len(first), len(idx), _where(idx)))
            if idx[-1] is None:
                first = idx
        return first, ndim
    return index, np.ndim(x) if not isinstance(x, GPUArray) else x.ndim


def _assemble(x, depth, list_ndim, ndim):
    if depth < list_ndim:
        parts = [_assemble(v, depth + 1, list_ndim, ndim) for v in x]
        return _joining.concatenate(parts, axis=-(list_ndim - depth))
    a = _creation.asarray(x)
    if a.ndim < ndim:
        a = a.reshape((1,) * (ndim - a.ndim) + a.shape)
    return a


def block(arrays):
    """An array assembled from nested lists of blocks (numpy.block): the
    innermost lists joined along the last axis, the next ones out along
    the second last, and so on.

    Parameters
    ----------
    arrays : nested list of GPUArray, array_like or scalar
        Lists only (no tuples), of one depth throughout; blocks of fewer
        dimensions than the result get leading length-1 axes.

    Returns
    -------
    GPUArray
        A new array of the blocks' promoted dtype, of ``max(depth, the
        blocks' ndim)`` dimensions.

    Raises
    ------
    TypeError
        For a tuple among the lists (numpy's message).
    ValueError
        For an empty list, lists of different depths, or blocks whose
        shapes do not join (numpy's messages, concatenate's).
    """
    first, arr_ndim = _depths(arrays, [])
    if first and first[-1] is None:
        raise ValueError("List at %s cannot be empty" % _where(first))
    list_ndim = len(first)
    res = _assemble(arrays, 0, list_ndim, max(arr_ndim, list_ndim))
    return res.copy() if list_ndim == 0 else res


_placement.route(globals())
