"""numpy's set routines (layer 5): ``isin``, ``intersect1d``, ``union1d``,
``setdiff1d``, ``setxor1d``, and numpy 2's ``unique_values``, ``unique_counts``,
``unique_inverse``, ``unique_all``.

Built from the sorting module: ``isin`` sorts the test elements once and
looks each element up with :func:`gpuarr._sorting.searchsorted`; the
others follow numpy's own recipes (unique values, a sorted join, equal
neighbours).  Comparisons are numpy's ``==`` in the operands' common
dtype, so NaN is never found (numpy's ``isin`` and ``intersect1d`` give
the same answer) and -0.0 equals 0.0.  Results are new C-contiguous
arrays; the functions wait for the device where :func:`unique` or a
boolean selection does (the number of results).
"""

import collections

import numpy as np

from . import _placement
from . import _creation, _joining, _selection, _sorting, _ufunc

__all__ = ["isin", "intersect1d", "union1d", "setdiff1d", "setxor1d",
           "unique_values", "unique_counts", "unique_inverse", "unique_all"]

_BOOL = np.dtype(np.bool_)



def _common(*arrays):
    """The arrays cast to their common dtype (numpy's promotion)."""
    dt = np.result_type(*[x.dtype for x in arrays])
    return [x if x.dtype == dt else x.astype(dt) for x in arrays]


def isin(element, test_elements, assume_unique=False, invert=False, *,
         kind=None):
    """Whether each element is among ``test_elements`` (numpy.isin).

    Parameters
    ----------
    element : GPUArray or array_like
        Any shape.
    test_elements : GPUArray or array_like
        Any shape (flattened).
    assume_unique : bool
        Accepted (the result does not depend on it).
    invert : bool
        The result negated (``not in``).
    kind : {None, 'sort', 'table'}
        numpy's choice of algorithm; every kind sorts here, with the same
        result.  ``'table'`` keeps numpy's check that the inputs are
        integers or booleans.

    Returns
    -------
    GPUArray
        bool, of ``element``'s shape.

    Raises
    ------
    ValueError
        For an unknown ``kind``, or ``'table'`` with other dtypes (numpy's
        messages).
    TypeError
        For an unsupported dtype.
    """
    if kind not in (None, "sort", "table"):
        raise ValueError("Invalid kind: '%s'. Please use None, 'sort' or "
                         "'table'." % (kind,))
    e = _creation.asarray(element)
    t = _creation.asarray(test_elements)
    if kind == "table" and not (e.dtype.kind in "biu" and t.dtype.kind in "biu"):
        raise ValueError("The 'table' method is only supported for boolean "
                         "or integer arrays. Please select 'sort' or None "
                         "for kind.")
    if t.size == 0 or e.size == 0:
        return _creation.full(e.shape, bool(invert), _BOOL)
    e, t = _common(e, t)
    s = _sorting.sort(t, axis=None)
    pos = _sorting.searchsorted(s, e, "left")
    # positions past the end look at the last value, which then differs
    found = _ufunc.apply("equal", (_selection.take(s, pos, mode="clip"), e))
    if invert:
        return _ufunc.apply("logical_not", (found,), out=found)
    return found


def _neighbours_equal(aux):
    """``aux[1:] == aux[:-1]`` of a sorted 1-d array (empty for size 0)."""
    if aux.size < 2:
        return _creation.zeros((0,), _BOOL)
    return _ufunc.apply("equal", (aux[1:], aux[:-1]))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values found in both arrays (numpy.intersect1d).

    Parameters
    ----------
    ar1, ar2 : GPUArray or array_like
        Flattened.
    assume_unique : bool
        The inputs hold no repeated values (skips :func:`unique`; with
        repeats the result is numpy's for the same promise broken).
    return_indices : bool
        Also return the indices in the flattened inputs of each common
        value's first occurrence (of its occurrence with
        ``assume_unique``).

    Returns
    -------
    GPUArray or tuple of GPUArray
        The values (1-d, the common dtype), then with ``return_indices``
        two int64 arrays.
    """
    a1 = _creation.asarray(ar1).reshape(-1)
    a2 = _creation.asarray(ar2).reshape(-1)
    a1, a2 = _common(a1, a2)
    if not assume_unique:
        if return_indices:
            a1, ind1 = _sorting.unique(a1, return_index=True)
            a2, ind2 = _sorting.unique(a2, return_index=True)
        else:
            a1 = _sorting.unique(a1)
            a2 = _sorting.unique(a2)
    aux = _joining.concatenate([a1, a2])
    if return_indices:
        order = _sorting.argsort(aux)
        aux = _selection.take(aux, order, mode="clip")
    else:
        aux = _sorting.sort(aux)
    mask = _neighbours_equal(aux)
    if aux.size < 2:
        values = aux[:0]
    else:
        values = aux[:-1][mask]
    if not return_indices:
        return values
    if aux.size < 2:
        empty = _creation.zeros((0,), np.int64)
        return values, empty, empty.copy()
    i1 = order[:-1][mask]
    i2 = order[1:][mask] - a1.size
    if not assume_unique:
        i1 = _selection.take(ind1, i1, mode="clip")
        i2 = _selection.take(ind2, i2, mode="clip")
    return values, i1, i2


def union1d(ar1, ar2):
    """The sorted values of either array (numpy.union1d): the unique
    values of both, flattened and joined.

    Parameters
    ----------
    ar1, ar2 : GPUArray or array_like
        Any shapes (flattened).

    Returns
    -------
    GPUArray
        1-d, the common dtype.
    """
    a1, a2 = _common(_creation.asarray(ar1), _creation.asarray(ar2))
    return _sorting.unique(_joining.concatenate([a1, a2], axis=None))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` not in ``ar2``
    (numpy.setdiff1d; with ``assume_unique``, ``ar1``'s values in their
    order).

    Parameters
    ----------
    ar1 : GPUArray or array_like
        Any shape (flattened).
    ar2 : GPUArray or array_like
        The values to leave out, any shape.
    assume_unique : bool
        ``ar1`` holds no repeats (skips its :func:`unique`).

    Returns
    -------
    GPUArray
        1-d, ``ar1``'s dtype.

    Raises
    ------
    TypeError
        For an unsupported dtype.
    """
    a1 = _creation.asarray(ar1).reshape(-1)
    if not assume_unique:
        a1 = _sorting.unique(a1)
    keep = isin(a1, ar2, invert=True)
    return a1[keep]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the two arrays
    (numpy.setxor1d).

    Parameters
    ----------
    ar1, ar2 : GPUArray or array_like
        Any shapes (flattened).
    assume_unique : bool
        Neither holds repeats (skips their :func:`unique`; with repeats
        the result is numpy's for the same promise broken).

    Returns
    -------
    GPUArray
        1-d, the common dtype: the values whose sorted run in the joined
        unique values has length one.
    """
    a1, a2 = _creation.asarray(ar1), _creation.asarray(ar2)
    if not assume_unique:
        a1, a2 = _sorting.unique(a1), _sorting.unique(a2)
    a1, a2 = _common(a1, a2)
    aux = _sorting.sort(_joining.concatenate([a1, a2], axis=None))
    if aux.size == 0:
        return aux
    # flag[k]: aux[k] differs from aux[k - 1] (True at both ends); a value
    # is kept where it differs from both neighbours
    flag = _creation.empty_c((aux.size + 1,), _BOOL)
    flag[0] = True
    flag[aux.size] = True
    if aux.size > 1:
        _ufunc.logical_not(_neighbours_equal(aux), out=flag[1:aux.size])
    return aux[_ufunc.logical_and(flag[1:], flag[:-1])]


#: numpy 2's result tuples of the unique_* functions (its field names)
UniqueAllResult = collections.namedtuple(
    "UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple(
    "UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple(
    "UniqueInverseResult", ["values", "inverse_indices"])


def unique_values(x):
    """The unique values of ``x`` (numpy.unique_values: the array API's
    spelling, NaNs not merged).

    Parameters
    ----------
    x : GPUArray or array_like
        Any shape (flattened), any supported dtype.

    Returns
    -------
    GPUArray
        1-d, ``x``'s dtype; sorted here (numpy leaves the order
        unspecified), every NaN its own value.
    """
    return _sorting.unique(x, equal_nan=False)


def unique_counts(x):
    """The unique values of ``x`` and how often each occurs
    (numpy.unique_counts).

    Parameters
    ----------
    x : GPUArray or array_like

    Returns
    -------
    UniqueCountsResult
        ``(values, counts)``: as :func:`unique_values`, and int64 counts.
    """
    return UniqueCountsResult(*_sorting.unique(x, return_counts=True,
                                               equal_nan=False))


def unique_inverse(x):
    """The unique values of ``x`` and where each element's value is among
    them (numpy.unique_inverse).

    Parameters
    ----------
    x : GPUArray or array_like

    Returns
    -------
    UniqueInverseResult
        ``(values, inverse_indices)``: as :func:`unique_values`, and int64
        indices of ``x``'s shape.
    """
    return UniqueInverseResult(*_sorting.unique(x, return_inverse=True,
                                                equal_nan=False))


def unique_all(x):
    """The unique values of ``x``, each one's first index, every
    element's index among them and the counts (numpy.unique_all).

    Parameters
    ----------
    x : GPUArray or array_like

    Returns
    -------
    UniqueAllResult
        ``(values, indices, inverse_indices, counts)``: int64 indices of
        the first occurrences in the flattened ``x``, inverse of ``x``'s
        shape, int64 counts.
    """
    return UniqueAllResult(*_sorting.unique(
        x, return_index=True, return_inverse=True, return_counts=True,
        equal_nan=False))


# run on the arrays' device (issue 16)
_placement.route(globals())
