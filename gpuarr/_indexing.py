"""Indexing GPUArrays (layer 5).

Basic indexing (integers, slices, ``None`` and ``Ellipsis``) gives views,
by numpy's rules; assignment through any basic key broadcasts and casts the
value as numpy's ``__setitem__`` does.
"""

import operator

import numpy as np

from . import _transfer
from ._array import GPUArray

__all__ = ["getitem", "setitem"]


def getitem(a, key):
    """``a[key]`` for a basic key: a view.

    Raises
    ------
    IndexError
        For an index out of range, too many indices, two ellipses, or an
        invalid index type.
    NotImplementedError
        For integer-array and boolean indices (not supported yet).
    """
    shape = a.shape
    strides = a.strides
    if type(key) is slice and shape:
        # one slice of the first axis (``a[::2]``), the common case
        start, stop, step = key.indices(shape[0])
        return a._view((len(range(start, stop, step)),) + shape[1:],
                       (step * strides[0],) + strides[1:],
                       start * strides[0])
    if type(key) is not tuple:
        key = (key,)
    nd = len(shape)
    # count the indices that consume axes, find the ellipsis
    consumed = 0
    ell = -1
    for i, k in enumerate(key):
        if k is None:
            continue
        if k is Ellipsis:
            if ell >= 0:
                raise IndexError("an index can only have a single "
                                 "ellipsis ('...')")
            ell = i
            continue
        consumed += 1
    if consumed > nd:
        raise IndexError("too many indices for array: array is "
                         "%d-dimensional, but %d were indexed"
                         % (nd, consumed))
    new_shape = []
    new_strides = []
    offset = 0
    axis = 0
    for i, k in enumerate(key):
        if i == ell:
            for _ in range(nd - consumed):
                new_shape.append(shape[axis])
                new_strides.append(strides[axis])
                axis += 1
            continue
        if k is None:
            new_shape.append(1)
            new_strides.append(0)
            continue
        if type(k) is slice:
            n = shape[axis]
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            offset += start * strides[axis]
            new_shape.append(length)
            new_strides.append(step * strides[axis])
            axis += 1
            continue
        if isinstance(k, (bool, np.bool_)):
            raise NotImplementedError("boolean scalar indexing is not "
                                      "supported by GPUArray")
        try:
            idx = operator.index(k)
        except TypeError:
            _fancy_index_error(k)
        n = shape[axis]
        if idx < 0:
            idx += n
        if not 0 <= idx < n:
            raise IndexError("index %d is out of bounds for axis %d with "
                             "size %d" % (operator.index(k), axis, n))
        offset += idx * strides[axis]
        axis += 1
    while axis < nd:
        new_shape.append(shape[axis])
        new_strides.append(strides[axis])
        axis += 1
    return a._view(tuple(new_shape), tuple(new_strides), offset)


def setitem(a, key, value):
    """``a[key] = value``: the view ``a[key]`` receives ``value``
    broadcast and cast (:func:`gpuarr._transfer.assign`)."""
    _transfer.assign(getitem(a, key), value)


def _fancy_index_error(k):
    if isinstance(k, (GPUArray, np.ndarray, list)) or \
            hasattr(k, "__cuda_array_interface__"):
        raise NotImplementedError(
            "advanced (integer-array or boolean) indexing is not supported by "
            "GPUArray yet; index with ints, slices, None and Ellipsis, or use "
            ".get() and numpy")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), "
                     "numpy.newaxis (`None`) and integer or boolean arrays are "
                     "valid indices")
