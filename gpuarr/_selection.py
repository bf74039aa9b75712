"""numpy's selection functions on GPUArrays (layer 5): ``nonzero``,
``flatnonzero``, ``argwhere``, ``take`` and ``put`` (numpy's, with
``axis`` and ``mode``), ``take_along_axis``, ``put_along_axis``,
``compress``, ``extract``, ``place`` and ``choose``.

They are advanced indexing (:mod:`gpuarr._indexing`) with numpy's
arguments: masks are counted per tile and their true elements placed in
one more pass; index arrays are gathered or scattered by one kernel that
checks them (``mode="raise"``) or wraps or clips them (the other modes)
as it reads them.
"""

import numpy as np

from . import _placement
from . import _creation, _indexing, _joining, _layout, _transfer
from . import _manipulation as _manip
from . import _ufunc
from ._array import GPUArray

__all__ = ["nonzero", "flatnonzero", "argwhere", "take", "put",
           "take_along_axis", "put_along_axis", "compress", "extract",
           "place", "choose"]

_I64 = np.dtype(np.int64)
_MODES = ("raise", "wrap", "clip")


def _array(a, name="a"):
    if isinstance(a, GPUArray):
        return a
    if hasattr(a, "__cuda_array_interface__"):
        return _creation.asarray(a)
    raise TypeError("%s must be a GPUArray (or expose "
                    "__cuda_array_interface__), not %s; copy host data with "
                    "gpuarr.to_gpu" % (name, type(a).__name__))


def _truth(a):
    """``a != 0`` as a bool device array (``a`` itself when bool)."""
    if a.dtype == np.bool_:
        return a
    return _ufunc.apply("not_equal", (a, 0))


def _coords(a, by_position):
    m = _indexing.device_mask(_truth(a))
    cs, count = _indexing.mask_scan(m)
    nd = a.ndim
    if by_position:
        out = _creation.empty_c((count, nd), _I64)
        if nd:
            _indexing.nonzero_coords(m, cs, count, out, nd, 1)
        return out
    return _indexing.nonzero_coords(m, cs, count)


def nonzero(a):
    """The indices of the nonzero elements, one array per axis
    (``numpy.nonzero``).

    Parameters
    ----------
    a : GPUArray
        Any dtype (complex: nonzero when either part is), at least 1-d.

    Returns
    -------
    tuple of GPUArray
        ``a.ndim`` int64 arrays of the same length, the coordinates of the
        nonzero elements in C order.  Their number is read back after a
        counting pass.

    Raises
    ------
    ValueError
        For a 0-d ``a``, as numpy 2.
    """
    a = _array(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead. If the "
                         "context of this error is of the form "
                         "`arr[nonzero(cond)]`, just use `arr[cond]`.")
    co = _coords(a, False)
    return tuple(co[d] for d in range(a.ndim))


def flatnonzero(a):
    """Indices of the nonzero elements of ``a.ravel()`` (numpy.flatnonzero).

    Parameters
    ----------
    a : GPUArray
        Any dtype (complex: nonzero when either part is), shape and strides
        (or an object with ``__cuda_array_interface__``).

    Returns
    -------
    GPUArray
        1-d int64, the flat C-order indices of the nonzero elements,
        ascending.  Their number is read back after a counting pass.

    Raises
    ------
    TypeError
        For an ``a`` that is no device array (host data: copy it with
        :func:`gpuarr.to_gpu`; numpy would accept it).
    """
    a = _array(a)
    return nonzero(a.reshape(-1) if a._c else a.ravel())[0]


def argwhere(a):
    """Coordinates of the nonzero elements, one row each (numpy.argwhere).

    Parameters
    ----------
    a : GPUArray
        Any dtype (complex: nonzero when either part is) and shape (or an
        object with ``__cuda_array_interface__``).

    Returns
    -------
    GPUArray
        int64, of shape ``(N, a.ndim)``, rows in C order; for a 0-d ``a``,
        ``(1, 0)`` or ``(0, 0)`` as numpy gives.

    Raises
    ------
    TypeError
        For an ``a`` that is no device array (copy host data with
        :func:`gpuarr.to_gpu`).
    """
    a = _array(a)
    if a.ndim == 0:
        return _coords(a.reshape(1), True)[:, :0]
    return _coords(a, True)


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' "
                         "(got %r)" % (mode,))


def _moded(indices, n, mode):
    """Device indices with numpy's ``mode`` applied (``"raise"``: as they
    are, checked when used)."""
    idx = indices if isinstance(indices, GPUArray) else (
        _creation.asarray(indices)
        if hasattr(indices, "__cuda_array_interface__")
        else _creation.to_gpu(_host_indices(indices)))
    if idx.dtype.kind not in "biu":
        raise TypeError("Cannot cast array data from %r to %r according to "
                        "the rule 'safe'" % (idx.dtype, np.dtype(np.intp)))
    if idx.dtype.kind == "b":
        idx = idx.astype(_I64)      # numpy.take: False is 0, True is 1
    if mode == "raise" or not idx.size:
        return idx
    idx = idx.astype(_I64)
    if mode == "wrap":
        return _ufunc.apply("remainder", (idx, n))
    return _ufunc.apply("clip", (idx, 0, n - 1))


def _host_indices(indices):
    h = np.asarray(indices)
    if h.dtype.kind not in "biu":
        if h.size == 0:
            return h.astype(np.intp)
        raise TypeError("Cannot cast array data from %r to %r according to "
                        "the rule 'safe'" % (h.dtype, np.dtype(np.intp)))
    return h


def _into(out, res):
    if out is None:
        return res
    if not isinstance(out, GPUArray):
        raise TypeError("out must be a GPUArray")
    if out.shape != res.shape:
        raise ValueError("output array does not match result of ndarray.take")
    _transfer.copy_into(out, res)
    return out


def take(a, indices, axis=None, out=None, mode="raise", *, stream=None):
    """Elements of ``a`` at ``indices`` along an axis (``numpy.take``).

    Parameters
    ----------
    a : GPUArray
    indices : GPUArray or array_like of integers
        Any shape.
    axis : int, optional
        None (default): ``a`` flattened (C order).
    out : GPUArray, optional
        Of the result's shape; cast into.
    mode : {"raise", "wrap", "clip"}
        numpy's: an index out of range raises IndexError (after the
        kernel, which records the first), wraps around, or clips (then
        negative indices clip to 0).
    stream : gpuarr.driver.Stream, optional
        gpuarr's: where the flat take (``axis=None``) runs; with an axis
        the stream is waited for and the take runs on the legacy stream.

    Returns
    -------
    GPUArray
        ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``, ``a``'s
        dtype.

    Raises
    ------
    IndexError
        For an index out of range (``mode="raise"``), or any index into
        an empty axis ("cannot do a non-empty take from an empty axes.").
    TypeError
        For indices that are not integers.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For an unknown mode or an ``out`` of the wrong shape.

    Notes
    -----
    ``gpuarr.gpuarray.take`` keeps PyCUDA's signature ``take(a, indices,
    out=None, stream=None, mode="raise")``; this is numpy's.
    """
    a = _array(a)
    _check_mode(mode)
    if axis is None:
        # the flat take of PyCUDA's signature: the same kernel, streams
        return _joining.take(a, indices, out=out, stream=stream, mode=mode)
    axis = _layout.normalize_axis(axis, a.ndim)
    if stream is not None:
        stream.synchronize()
    n = a.shape[axis]
    idx = _moded(indices, n, mode)
    if n == 0 and idx.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    key = (slice(None),) * axis + (idx,)
    return _into(out, _indexing.getitem(a, key))


def put(a, ind, v, mode="raise"):
    """Set ``a.flat[ind] = v``, ``v`` repeated as needed (``numpy.put``).

    Parameters
    ----------
    a : GPUArray
        Written in place (any layout: its elements in C order).
    ind : GPUArray or array_like of integers
    v : GPUArray, array_like or scalar
        Cast to ``a``'s dtype; cycled over ``ind`` (numpy's put).
    mode : {"raise", "wrap", "clip"}

    Raises
    ------
    IndexError
        For an index out of range (``mode="raise"``; nothing is written),
        or indices into an empty ``a``.
    ValueError
        For an unknown mode.
    """
    a = _array(a)
    _check_mode(mode)
    flat = a.reshape(-1) if a._c else None
    work = flat if flat is not None else a.copy().reshape(-1)
    idx = _moded(ind, work.size, mode)
    nidx = idx.size
    if not nidx:
        return
    if work.size == 0:
        raise IndexError("cannot replace elements of an empty array")
    vals = _cycled(v, nidx, a.dtype)
    if vals is None:
        return
    _indexing.setitem(work, idx.reshape(-1) if idx._c else idx.ravel(),
                      vals)
    if flat is None:
        _transfer.copy_into(a, work.reshape(a.shape))


def _cycled(v, n, dt):
    """``v`` flattened and repeated to ``n`` values of ``dt`` (None when
    ``v`` is empty: numpy's put then does nothing)."""
    if isinstance(v, GPUArray) or hasattr(v, "__cuda_array_interface__"):
        src = _creation.asarray(v)
        src = src.reshape(-1) if src._c else src.ravel()
    else:
        h = np.asarray(v)
        if h.ndim == 0 or h.size == 1:
            return h.reshape(()).astype(dt)
        src = _creation.to_gpu(np.ascontiguousarray(h.reshape(-1)))
    if src.size == 0:
        return None
    if src.size == n:
        return src
    if src.size == 1:
        return src.reshape(())
    pos = _creation.arange(n, dtype=_I64)
    return take(src, pos, mode="wrap")


def _along_key(arr, indices, axis):
    """The advanced key of ``take_along_axis``: ``indices`` on ``axis``,
    ``arange`` on the other axes, broadcast together (numpy's rule)."""
    nd = arr.ndim
    if indices.ndim != nd:
        raise ValueError("`indices` and `arr` must have the same number of "
                         "dimensions")
    key = []
    for d in range(nd):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * nd
            shape[d] = arr.shape[d]
            key.append(np.arange(arr.shape[d], dtype=np.intp).reshape(shape))
    return tuple(key)


def _along_args(arr, indices, axis, name):
    arr = _array(arr, "arr")
    idx = indices if isinstance(indices, GPUArray) else (
        _creation.asarray(indices) if hasattr(indices,
                                              "__cuda_array_interface__")
        else _creation.to_gpu(_host_indices(indices)))
    if idx.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single "
                             "dimension.")
        arr = arr.reshape(-1) if arr._c else arr.ravel()
        axis = 0
    else:
        axis = _layout.normalize_axis(axis, arr.ndim)
    return arr, idx, axis


def take_along_axis(arr, indices, axis=-1):
    """Values of ``arr`` at ``indices`` along ``axis``, matching 1-d
    slices (``numpy.take_along_axis``).

    Parameters
    ----------
    arr : GPUArray
        ``(Ni..., M, Nk...)``.
    indices : GPUArray or array_like of integers
        ``(Ni..., J, Nk...)`` (broadcast against ``arr`` on the other
        axes); negative indices count from the end.
    axis : int or None
        None: ``arr`` flattened, ``indices`` 1-d.

    Returns
    -------
    GPUArray
        ``(Ni..., J, Nk...)``, ``arr``'s dtype.

    Raises
    ------
    IndexError
        For an index out of range, or indices that are not integers.
    ValueError
        For ``indices`` of another number of dimensions.
    """
    arr, idx, axis = _along_args(arr, indices, axis, "take_along_axis")
    return _indexing.getitem(arr, _along_key(arr, idx, axis))


def put_along_axis(arr, indices, values, axis):
    """Write ``values`` into ``arr`` at ``indices`` along ``axis``
    (``numpy.put_along_axis``): ``arr`` changes in place.

    Parameters
    ----------
    arr : GPUArray
    indices : GPUArray or array_like of integers
        As :func:`take_along_axis`'s.
    values : GPUArray, array_like or scalar
        Broadcast to the selection, cast to ``arr``'s dtype.
    axis : int or None

    Raises
    ------
    IndexError, ValueError
        As :func:`take_along_axis`; nothing is written for a bad index.
    """
    arr0 = _array(arr, "arr")
    arr, idx, axis = _along_args(arr0, indices, axis, "put_along_axis")
    _indexing.setitem(arr, _along_key(arr, idx, axis), values)


def compress(condition, a, axis=None, out=None):
    """Slices of ``a`` along ``axis`` where ``condition`` is true.

    ``numpy.compress``: ``take(a, nonzero(condition)[0], axis)``.

    Parameters
    ----------
    condition : GPUArray or array_like, 1-d
        Truth values (host values are converted to bool); shorter than the
        axis selects among its first elements only.
    a : GPUArray
        The array selected from, any dtype.
    axis : int, optional
        The axis along which slices are taken; None: ``a`` flattened (C
        order).
    out : GPUArray, optional
        Of the result's shape; the result is cast into it and it is
        returned.

    Returns
    -------
    GPUArray
        ``a``'s dtype; along ``axis`` as many slices as ``condition`` has
        true values (1-d for ``axis=None``).

    Raises
    ------
    ValueError
        For a ``condition`` that is not 1-d, or an ``out`` of the wrong
        shape.
    IndexError
        When ``condition`` is longer than the axis and true past its end.
    TypeError
        For an ``a`` that is no device array, or an ``out`` that is no
        GPUArray.
    """
    a = _array(a)
    cond = condition if isinstance(condition, GPUArray) else (
        _creation.asarray(condition)
        if hasattr(condition, "__cuda_array_interface__")
        else _creation.to_gpu(np.asarray(condition, dtype=np.bool_)))
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return take(a, nonzero(cond)[0], axis=axis, out=out)


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true, flattened
    (``numpy.extract``).

    Parameters
    ----------
    condition : GPUArray or array_like
        Of ``arr``'s size (nonzero counts as true).
    arr : GPUArray

    Returns
    -------
    GPUArray
        1-d, ``arr``'s dtype.
    """
    arr = _array(arr, "arr")
    cond = condition if isinstance(condition, GPUArray) else (
        _creation.asarray(condition)
        if hasattr(condition, "__cuda_array_interface__")
        else _creation.to_gpu(np.asarray(condition)))
    flat = arr.reshape(-1) if arr._c else arr.ravel()
    cflat = cond.reshape(-1) if cond._c else cond.ravel()
    return take(flat, nonzero(cflat)[0])


def place(arr, mask, vals):
    """Set the elements of ``arr`` where ``mask`` is true to the first
    values of ``vals``, repeated as needed (``numpy.place``).

    Parameters
    ----------
    arr : GPUArray
        Written in place.
    mask : GPUArray or array_like
        Of ``arr``'s size.
    vals : GPUArray, array_like or scalar

    Raises
    ------
    ValueError
        For an empty ``vals`` while ``mask`` selects elements ("Cannot
        insert from an empty array!"), or a ``mask`` of another size.
    """
    arr = _array(arr, "arr")
    m = mask if isinstance(mask, GPUArray) else (
        _creation.asarray(mask) if hasattr(mask, "__cuda_array_interface__")
        else _creation.to_gpu(np.asarray(mask)))
    if m.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    m = _indexing.device_mask(_truth(m).reshape(arr.shape) if m._c else
                              _truth(m.copy()).reshape(arr.shape))
    _, count = _indexing.mask_scan(m)
    if not count:
        return
    vals_ = _cycled(vals, count, arr.dtype)
    if vals_ is None:
        raise ValueError("Cannot insert from an empty array!")
    _indexing.setitem(arr, m, vals_)


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every ``i``, all broadcast (numpy.choose).

    Parameters
    ----------
    a : GPUArray or array_like of integers
        The index of the choice for each element, in ``range(len(choices))``
        (or mapped into it by ``mode``).
    choices : sequence of GPUArray or array_like
        The arrays chosen from; their dtypes promote as numpy's.
    out : GPUArray, optional
        Of the broadcast shape; the result is cast into it and it is
        returned.
    mode : {"raise", "wrap", "clip"}
        numpy's: an index out of range raises, wraps around, or is clipped.

    Returns
    -------
    GPUArray
        Of the broadcast shape of ``a`` and the choices, dtype the
        promotion of the choices' dtypes.

    Raises
    ------
    ValueError
        For an index out of ``range(len(choices))`` with ``mode="raise"``
        ("invalid entry in choice array", numpy's), shapes that do not
        broadcast, an unknown mode, no choices, or an ``out`` of the wrong
        shape.
    TypeError
        For non-integer indices, or an ``out`` that is no GPUArray.
    """
    _check_mode(mode)
    if not len(choices):
        raise ValueError("0-length sequence.")
    idx = a if isinstance(a, GPUArray) else (
        _creation.asarray(a) if hasattr(a, "__cuda_array_interface__")
        else _creation.to_gpu(_host_indices(a)))
    devs = [c if isinstance(c, GPUArray) else (
        _creation.asarray(c) if hasattr(c, "__cuda_array_interface__")
        else _creation.to_gpu(np.asarray(c))) for c in choices]
    shape = _layout.broadcast_shapes(idx.shape, *[c.shape for c in devs])
    dt = np.result_type(*[c.dtype for c in devs])
    stacked = _creation.empty_c((len(devs),) + shape, dt)
    for k, c in enumerate(devs):
        _transfer.assign(stacked[k], c)
    sel = _moded(_manip.broadcast_to(idx, shape), len(devs), mode)
    key = (sel,) + tuple(
        np.arange(n, dtype=np.intp).reshape((1,) * d + (n,)
                                            + (1,) * (len(shape) - d - 1))
        for d, n in enumerate(shape))
    try:
        res = _indexing.getitem(stacked, key)
    except IndexError:
        raise ValueError("invalid entry in choice array") from None
    return _into(out, res)


# run on the arrays' device (issue 16)
_placement.route(globals())
