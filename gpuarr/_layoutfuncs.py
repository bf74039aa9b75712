"""numpy's memory-layout and conversion functions over GPUArrays (layer
6): ``ascontiguousarray``, ``asfortranarray``, ``require``,
``asarray_chkfinite``, ``isfortran``, ``shares_memory``,
``may_share_memory``.

The two memory-overlap tests hand numpy's own solver stand-ins for the
arrays: host ndarrays made from each GPUArray's device address, shape,
strides and dtype (``__array_interface__``), which numpy only compares as
numbers and never reads through.  Device addresses are unique in the
process (CUDA's unified virtual addressing), so numpy's exact answer for
the stand-ins is the answer for the device arrays.
"""

import numpy as np

from . import _placement
from . import _creation, _transfer, _ufunc, reductions
from ._array import GPUArray

__all__ = ["ascontiguousarray", "asfortranarray", "require",
           "asarray_chkfinite", "isfortran", "shares_memory",
           "may_share_memory"]


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


#: numpy.require's requirement letters, spelled out
_REQUIRE = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
            "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
            "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W",
            "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None):
    """``a`` as an array of ``dtype`` meeting the layout requirements,
    copied only when needed (numpy.require).

    Parameters
    ----------
    a : GPUArray or array_like
    dtype : dtype-like, optional
    requirements : str or sequence of str, optional
        numpy's letters or names: 'C' (C-contiguous), 'F'
        (F-contiguous), 'O' (owns its memory: a copy of a view), and 'A',
        'W', 'E', which every GPUArray meets (aligned, writeable, an
        array).

    Returns
    -------
    GPUArray
        ``a`` itself when it meets them all.

    Raises
    ------
    ValueError
        For both 'C' and 'F', or an unknown requirement (numpy's
        messages).
    """
    if isinstance(requirements, str):
        requirements = [requirements]
    wanted = set()
    for r in requirements or ():
        key = _REQUIRE.get(r.upper())
        if key is None:
            raise KeyError(r)
        wanted.add(key)
    if "C" in wanted and "F" in wanted:
        raise ValueError("Cannot specify both \"C\" and \"F\" order")
    a = _creation.asarray(a, dtype=dtype)
    if "C" in wanted and not a.flags.c_contiguous:
        return a.copy(order="C")
    if "F" in wanted and not a.flags.f_contiguous:
        out = _creation.empty(a.shape, a.dtype, order="F")
        _transfer.assign(out, a)
        return out
    if "O" in wanted and not a.flags.owndata:
        return a.copy(order="F" if a.flags.fnc else "C")
    return a


def asarray_chkfinite(a, dtype=None, order=None):
    """``a`` as an array, checked to hold no infinity or NaN
    (numpy.asarray_chkfinite).

    Parameters
    ----------
    a : GPUArray or array_like
    dtype : dtype-like, optional
    order : None
        numpy's memory order; only None (keep ``a``'s).

    Returns
    -------
    GPUArray
        ``a`` itself (or a converted copy).  The check reads one bool
        back for float and complex dtypes.

    Raises
    ------
    ValueError
        Where an element is infinite or NaN (numpy's message).
    NotImplementedError
        For an ``order``.
    """
    if order is not None:
        raise NotImplementedError("gpuarr's asarray_chkfinite takes no "
                                  "order")
    a = _creation.asarray(a, dtype=dtype)
    if a.dtype.kind in "fc" and a.size and not bool(
            reductions.all(_ufunc.isfinite(a)).get()):
        raise ValueError("array must not contain infs or NaNs")
    return a


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
