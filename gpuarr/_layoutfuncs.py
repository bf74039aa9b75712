"""numpy's memory-layout functions over GPUArrays (layer 6):
``ascontiguousarray``, ``asfortranarray``, ``isfortran``,
``shares_memory``, ``may_share_memory``.

The two memory-overlap tests hand numpy's own solver stand-ins for the
arrays: host ndarrays made from each GPUArray's device address, shape,
strides and dtype (``__array_interface__``), which numpy only compares as
numbers and never reads through.  Device addresses are unique in the
process (CUDA's unified virtual addressing), so numpy's exact answer for
the stand-ins is the answer for the device arrays.
"""

import numpy as np

from . import _placement
from . import _creation, _transfer
from ._array import GPUArray

__all__ = ["ascontiguousarray", "asfortranarray", "isfortran",
           "shares_memory", "may_share_memory"]


def ascontiguousarray(a, dtype=None):
    """``a`` as a C-contiguous array of at least one dimension
    (numpy.ascontiguousarray).

    Parameters
    ----------
    a : GPUArray or array_like
    dtype : dtype-like, optional

    Returns
    -------
    GPUArray
        ``a`` itself when it already is C-contiguous of ``dtype`` and not
        0-d; a 1-element view of a 0-d one; else a C-ordered copy.
    """
    a = _creation.asarray(a, dtype=dtype)
    if not a.flags.c_contiguous:
        a = a.copy(order="C")
    return a.reshape((1,)) if a.ndim == 0 else a


def asfortranarray(a, dtype=None):
    """``a`` as an F-contiguous array of at least one dimension
    (numpy.asfortranarray).

    Parameters
    ----------
    a : GPUArray or array_like
    dtype : dtype-like, optional

    Returns
    -------
    GPUArray
        ``a`` itself when it already is F-contiguous of ``dtype`` and not
        0-d; else an F-ordered copy (a 0-d ``a`` becomes 1-d).
    """
    a = _creation.asarray(a, dtype=dtype)
    if a.ndim == 0:
        a = a.reshape((1,))
    if a.flags.f_contiguous:
        return a
    out = _creation.empty(a.shape, a.dtype, order="F")
    _transfer.assign(out, a)
    return out


def isfortran(a):
    """Whether ``a`` is F-contiguous and not C-contiguous
    (numpy.isfortran).

    Parameters
    ----------
    a : GPUArray

    Returns
    -------
    bool
    """
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)


class _StandIn:
    """An object whose ``__array_interface__`` describes a GPUArray's
    device memory; numpy makes an ndarray of it without reading it."""

    def __init__(self, x):
        self.__array_interface__ = {
            "version": 3, "shape": x.shape, "typestr": x.dtype.str,
            "data": (int(x.ptr), True), "strides": x.strides}


def _overlap(fn, a, b, max_work):
    arrays = [x for x in (a, b) if isinstance(x, GPUArray)]
    if len(arrays) < 2:
        # a host array and a device array never share memory
        return False if arrays else bool(fn(a, b, max_work=max_work))
    if a.size == 0 or b.size == 0:
        return False
    return bool(fn(np.asarray(_StandIn(a)), np.asarray(_StandIn(b)),
                   max_work=max_work))


def shares_memory(a, b, max_work=-1):
    """Whether the two arrays share memory: an element of one overlaps an
    element of the other (numpy.shares_memory, numpy's exact solver).

    Parameters
    ----------
    a, b : GPUArray
    max_work : int
        numpy's bound on the solver's work (-1: exact; 0: only the
        extents compared).

    Returns
    -------
    bool

    Raises
    ------
    numpy.exceptions.TooHardError
        Where the bound is reached before the answer (numpy's).
    """
    return _overlap(np.shares_memory, a, b, max_work)


def may_share_memory(a, b, max_work=0):
    """Whether the two arrays might share memory: their extents overlap
    (numpy.may_share_memory).

    Parameters
    ----------
    a, b : GPUArray
    max_work : int
        0 (default): the extents alone; -1 the exact answer.

    Returns
    -------
    bool
    """
    return _overlap(np.may_share_memory, a, b, max_work)


_placement.route(globals(), skip=("isfortran", "shares_memory",
                                  "may_share_memory"))
