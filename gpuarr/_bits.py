"""numpy's ``packbits`` and ``unpackbits`` over GPUArrays (layer 6), out
of gpuarr's ufuncs and reductions: eight bits a byte along an axis, the
most significant first ('big') or the least ('little')."""

import operator

import numpy as np

from . import _placement
from . import _creation, _joining, _manipulation, _ufunc

__all__ = ["packbits", "unpackbits"]

_U8 = np.dtype(np.uint8)


def _order(bitorder):
    if not isinstance(bitorder, str) or bitorder[:1] not in ("b", "l"):
        raise ValueError("'order' must begin with 'l' or 'b'")
    return bitorder[0] == "b"


def _along_last(a, axis):
    """``(a with the axis last, the axis or None)``: None when ``a`` was
    flattened (``axis`` None, or a 0-d ``a``) or the axis is last."""
    if axis is None or a.ndim == 0:
        return a.reshape(-1), None
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    if axis == a.ndim - 1:
        return a, None
    return _manipulation.moveaxis(a, axis, -1), axis


def _put_back(res, axis):
    """The result with its last axis moved back, C-ordered as numpy's."""
    return res if axis is None else _manipulation.moveaxis(res, -1,
                                                           axis).copy()


def packbits(a, axis=None, bitorder="big"):
    """Each run of eight truth values along an axis as the bits of one
    uint8 (numpy.packbits; a short last run padded with zeros).

    Parameters
    ----------
    a : GPUArray or array_like
        Integers or bools; nonzero is a 1 bit.
    axis : int, optional
        None packs the flattened array.
    bitorder : {'big', 'little'}
        The first value the most or the least significant bit.

    Returns
    -------
    GPUArray
        uint8, ``ceil(n / 8)`` long along ``axis``.

    Raises
    ------
    TypeError
        For float or complex input (numpy's message).
    ValueError
        For a ``bitorder`` beginning with neither 'b' nor 'l'.
    """
    a = _creation.asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data "
                        "type")
    big = _order(bitorder)
    x, axis = _along_last(a, axis)
    n = x.shape[-1]
    m = -(-n // 8)
    bits = _ufunc.not_equal(x, 0).astype(_U8)
    if m * 8 != n:
        pad = _creation.zeros(x.shape[:-1] + (m * 8 - n,), _U8)
        bits = _joining.concatenate([bits, pad], axis=-1)
    bits = bits.reshape(x.shape[:-1] + (m, 8))
    weights = np.array([1 << (7 - k if big else k) for k in range(8)], _U8)
    res = _ufunc.multiply(bits, _creation.to_gpu(weights)).sum(axis=-1,
                                                                dtype=_U8)
    return _put_back(res, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of uint8 values as uint8 zeros and ones along an axis
    (numpy.unpackbits).

    Parameters
    ----------
    a : GPUArray or array_like
        uint8.
    axis : int, optional
        None unpacks the flattened array.
    count : int, optional
        Keep this many bits along ``axis`` (more pads with zeros; a
        negative count drops that many from the end).
    bitorder : {'big', 'little'}
        The most or the least significant bit first.

    Returns
    -------
    GPUArray
        uint8, eight times as long along ``axis`` (or ``count`` long).

    Raises
    ------
    TypeError
        For a dtype other than uint8 (numpy's message).
    ValueError
        For a negative ``count`` larger than the bits there are, or a bad
        ``bitorder``.
    """
    a = _creation.asarray(a)
    if a.dtype != _U8:
        raise TypeError("Expected an input array of unsigned byte data type")
    big = _order(bitorder)
    x, axis = _along_last(a, axis)
    n = x.shape[-1] * 8
    if count is not None:
        count = operator.index(count)
        if count < 0:
            if -count > n:
                raise ValueError("-count larger than number of elements")
            count += n
    shifts = np.array([7 - k if big else k for k in range(8)], _U8)
    bits = _ufunc.bitwise_and(_ufunc.right_shift(
        x.reshape(x.shape + (1,)), _creation.to_gpu(shifts)), 1)
    bits = bits.reshape(x.shape[:-1] + (n,))
    if count is not None and count < n:
        bits = bits[..., :count].copy()
    elif count is not None and count > n:
        pad = _creation.zeros(x.shape[:-1] + (count - n,), _U8)
        bits = _joining.concatenate([bits, pad], axis=-1)
    return _put_back(bits, axis)


_placement.route(globals())
