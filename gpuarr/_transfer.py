"""Moving data: host <-> device copies, device copies and casts, fill and
assignment (layer 5).

Copies between layouts that ``cuMemcpy`` cannot do (non-contiguous
arrays, casts, broadcast values) run the built-in ``copy`` elementwise
kernel. Assignment follows numpy: values broadcast to the destination and
are cast with numpy's unsafe rule (Python numbers with numpy's range
checks), and a value overlapping the destination is copied first.
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _dtypes, _layout
from . import driver as _drv
from . import elementwise as _ew
from ._array import GPUArray

__all__ = ["get", "set", "copy", "astype", "fill", "assign", "copy_into",
           "copy_order", "settle_temporaries"]


def get(a, ary=None, pagelocked=False, async_=False, stream=None):
    """``a.get(...)``: see :meth:`gpuarr.GPUArray.get`."""
    if ary is not None:
        if not isinstance(ary, np.ndarray):
            raise TypeError("ary must be a numpy.ndarray")
        if ary.size != a.size:
            raise ValueError("ary has size %d, the GPUArray %d"
                             % (ary.size, a.size))
        if ary.dtype != a.dtype:
            raise ValueError("ary has dtype %s, the GPUArray %s"
                             % (ary.dtype, a.dtype))
    src = a
    if not (a._c or a._f):
        src = a.copy(order="C", stream=stream)
    f_layout = src._f and not src._c
    if ary is None:
        if pagelocked:
            if f_layout:
                ary = _drv.pagelocked_empty(a.shape[::-1], a.dtype).T
            else:
                ary = _drv.pagelocked_empty(a.shape, a.dtype)
        else:
            ary = np.empty(a.shape, a.dtype,
                           order="F" if f_layout else "C")
        dest = ary
    elif ary.shape == a.shape and (
            ary.flags.f_contiguous if f_layout else ary.flags.c_contiguous):
        dest = ary
    else:
        dest = None
    if not a.size:
        return ary
    tmp = dest
    if tmp is None:
        tmp = np.empty(a.shape, a.dtype, order="F" if f_layout else "C")
        async_ = False  # the host-side scatter below needs the data now
    flat = tmp.T if f_layout else tmp
    if async_:
        _drv.memcpy_dtoh_async(flat, src.ptr, stream)
        if src is not a and stream is not None:
            # the gathered temporary returns to the pool (which does not
            # track streams) when this function returns: let it finish
            stream.synchronize()
    else:
        _drv.memcpy_dtoh(flat, src.ptr)
    if dest is None:
        ary[...] = tmp.reshape(ary.shape)
    return ary


def set(a, ary, async_=False, stream=None):
    """``a.set(...)``: see :meth:`gpuarr.GPUArray.set`."""
    ary = (ary if isinstance(ary, np.ndarray)
           else np.asarray(ary, dtype=a.dtype))   # numpy's range checks
    if ary.shape != a.shape:
        if ary.size != a.size:
            raise ValueError("could not broadcast input array from shape "
                             "%s into shape %s" % (_layout.shape_str(ary.shape),
                                                   _layout.shape_str(a.shape)))
        ary = ary.reshape(a.shape)
    if ary.dtype != a.dtype:
        ary = ary.astype(a.dtype)
    if not a.size:
        return a
    if a._c:
        host, dst = np.ascontiguousarray(ary), a
    elif a._f:
        host, dst = np.asfortranarray(ary).T, a
    else:
        host = np.ascontiguousarray(ary)
        dst = _creation.empty(a.shape, a.dtype)
    if async_:
        _drv.memcpy_htod_async(dst.ptr, host, stream)
    else:
        _drv.memcpy_htod(dst.ptr, host)
    if dst is not a:
        _ew.run_elementwise("copy", [a], [dst], stream=stream)
        if async_ and stream is not None:
            # the staging temporary goes back to the pool on return, and
            # the pool does not track streams: let the scatter finish
            stream.synchronize()
    return a


def copy(a, order="C", stream=None):
    """``a.copy(...)``: see :meth:`gpuarr.GPUArray.copy`."""
    order = copy_order(order, a)
    out = _creation.empty(a.shape, a.dtype, order=order)
    copy_into(out, a, stream)
    return out


def astype(a, dtype, order="K", casting="unsafe", copy=True, stream=None):
    """``a.astype(...)``: see :meth:`gpuarr.GPUArray.astype`."""
    dtype = _dtypes.canonical(dtype)
    if casting != "unsafe" and not np.can_cast(a.dtype, dtype, casting):
        raise TypeError("Cannot cast array data from %r to %r according "
                        "to the rule %r" % (a.dtype, dtype, casting))
    if dtype == a.dtype and not copy:
        return a
    out = _creation.empty(a.shape, dtype, order=copy_order(order, a))
    copy_into(out, a, stream)
    return out


def to_device(a, device):
    """``a`` on ``device``: the Array API's ``x.to_device(device)``,
    PyTorch's ``x.to("cuda:n")``.

    The copy is allocated in ``device``'s primary context
    (:meth:`gpuarr.driver.Device.get_primary_context`, the one
    ``with device:`` makes current) and filled by ``cuMemcpyPeer`` from
    the context ``a``'s memory belongs to; a non-contiguous ``a`` is made
    C-contiguous on its own device first.  No peer access is needed.

    Parameters
    ----------
    a : GPUArray
    device : gpuarr.driver.Device or int
        The target device, or its ordinal.

    Returns
    -------
    GPUArray
        ``a`` itself when its memory is on ``device`` already (as the
        Array API allows); else a new C-contiguous array of ``a``'s shape
        and dtype on ``device``, complete when the function returns.

    Raises
    ------
    TypeError
        For a ``device`` that is neither a Device nor an integer.
    gpuarr.driver.LogicError
        ``CUDA_ERROR_INVALID_DEVICE`` for an ordinal with no device.
    """
    if not isinstance(device, _drv.Device):
        device = _drv.Device(operator.index(device))
    if a.device == device:
        return a
    src_ctx = _drv.pointer_get_attribute(
        _drv.pointer_attribute.CONTEXT, a.ptr) if a.size else None
    dst_ctx = device.get_primary_context()
    src = a
    if not a.flags.c_contiguous:
        src_ctx.push()
        try:
            src = copy(a)
        finally:
            _drv.Context.pop()
    dst_ctx.push()
    try:
        out = _creation.empty(a.shape, a.dtype)
    finally:
        _drv.Context.pop()
    if a.size:
        _drv.memcpy_peer(out.ptr, src.ptr, src.nbytes, dest_context=dst_ctx,
                         src_context=src_ctx)
    return out


def copy_order(order, a):
    """numpy's ``order`` of a copy of ``a`` as 'C' or 'F' ('K' and 'A'
    keep F order for an F- and not C-contiguous ``a``); ValueError for
    anything else."""
    if order in ("K", "A", None):
        return "F" if (a._f and not a._c) else "C"
    if order not in ("C", "F"):
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)"
                         % (order,))
    return order


#: same-dtype copies of these dtypes move the items' bits (numpy's copy)
_AS_BITS = {np.dtype(np.float16): np.dtype(np.uint16),
            np.dtype(np.bool_): np.dtype(np.uint8)}


def copy_into(out, src, stream=None):
    """Copy ``src`` into ``out`` (same shape), casting; memcpy when possible,
    and bit for bit between arrays of one dtype."""
    if not out.size:
        return
    if (out.dtype == src.dtype and ((out._c and src._c) or (out._f and src._f))
            and (out._c or out.strides == src.strides)):
        if stream is None:
            _drv.memcpy_dtod(out.ptr, src.ptr, out.nbytes)
        else:
            _drv.memcpy_dtod_async(out.ptr, src.ptr, out.nbytes, stream)
        return
    bits = _AS_BITS.get(out.dtype) if out.dtype == src.dtype else None
    if bits is not None and isinstance(src, GPUArray):
        # numpy copies items of one dtype as they are: float16 NaN payloads
        # (the copy kernel computes float16 in float, whose conversion back
        # makes every NaN 0x7fff) and bool bytes other than 0 and 1 survive
        out = out._view(out.shape, out.strides, 0, bits)
        src = src._view(src.shape, src.strides, 0, bits)
    _ew.run_elementwise("copy", [out], [src], stream=stream)


def settle_temporaries(stream, made):
    """Wait for ``stream`` before a caller drops temporaries it made for
    work queued there.

    The memory pool does not track streams: a temporary dropped while a
    kernel or copy on ``stream`` still reads or writes it can be handed to
    the next allocation (and written) at once.  Without a stream (the
    legacy default stream, which orders later work after it) nothing
    waits, as everywhere in gpuarr.

    Parameters
    ----------
    stream : gpuarr.driver.Stream or None
        Where the work that uses the temporaries was queued.
    made : bool
        Whether any temporary was made; when False nothing waits.
    """
    if made and stream is not None:
        stream.synchronize()


# ---------------------------------------------------------------------------
# assignment and fill

def fill(a, value, stream=None):
    """Set every element of ``a`` to ``value`` (PyCUDA's ``fill``).

    Cast like numpy assignment; an array value is broadcast, as
    ``a[...] = value``.

    Parameters
    ----------
    a : GPUArray
        The array filled, any shape and strides.
    value : scalar, GPUArray or numpy.ndarray
        A scalar converted to ``a.dtype`` (a Python int out of range raises
        OverflowError, as numpy's); an array broadcast to ``a.shape`` and
        cast unsafely.  Without a stream, a contiguous ``a`` of items up to
        4 bytes (or a zero value) is set with one ``memset``.
    stream : gpuarr.driver.Stream, optional
        The stream the work is enqueued on; default the legacy default
        stream.

    Returns
    -------
    GPUArray
        ``a`` (PyCUDA's ``fill`` returns it).

    Raises
    ------
    OverflowError, ValueError
        For a scalar the dtype cannot hold (numpy's conversion), or an array
        value that does not broadcast to ``a.shape``.
    """
    if a.size:
        _fill(a, value, stream)
    return a


def _fill(a, value, stream):
    if isinstance(value, GPUArray) or hasattr(value, "__cuda_array_interface__"):
        assign(a, value, stream)
        return
    if a.dtype.kind == "V":
        _fill_struct(a, value, stream)
        return
    if isinstance(value, np.ndarray):
        if value.ndim:
            assign(a, value, stream)
            return
        value = value[()]
    scalar = a.dtype.type(value)
    if (a._c or a._f) and stream is None:
        bits = np.array(scalar).view("u%d" % a.dtype.itemsize) \
            if a.dtype.itemsize <= 8 else None
        if bits is not None:
            b = int(bits)
            isz = a.dtype.itemsize
            if b == 0:
                _drv.memset_d8(a.ptr, 0, a.nbytes)
                return
            if isz == 1:
                _drv.memset_d8(a.ptr, b, a.size)
                return
            if isz == 2:
                _drv.memset_d16(a.ptr, b, a.size)
                return
            if isz == 4:
                _drv.memset_d32(a.ptr, b, a.size)
                return
    _ew.run_elementwise("copy", [a], [scalar], stream=stream)


def _fill_struct(a, value, stream):
    # a struct dtype (gpuarr.gpuarray.vec, registered structs): the value's
    # bytes copied from the host, as numpy's assignment converts them
    host = np.asarray(value, dtype=a.dtype)
    if a.size != 1 and not (a._c or a._f):
        raise TypeError("filling a non-contiguous array of the struct dtype "
                        "%s is not supported: fill a contiguous one and "
                        "copy it" % (a.dtype,))
    host = np.broadcast_to(host, a.shape)
    host = np.asfortranarray(host) if (a._f and not a._c) \
        else np.ascontiguousarray(host)
    if stream is not None:
        _drv.memcpy_htod_async(a.ptr, host, stream)
        stream.synchronize()        # the host copy is a temporary
    else:
        _drv.memcpy_htod(a.ptr, host)


def assign(dst, value, stream=None):
    """``dst[...] = value`` with numpy's broadcasting and unsafe casting.

    With a ``stream``, a call that had to make a device temporary (a host
    value of another shape, or a source overlapping ``dst``) waits for the
    stream before returning (:func:`settle_temporaries`).
    """
    made = False
    if isinstance(value, GPUArray) or (
            not isinstance(value, np.ndarray)
            and hasattr(value, "__cuda_array_interface__")):
        src = _creation.asarray(value)
    elif isinstance(value, (np.ndarray, list, tuple)):
        # Python numbers convert with numpy's checks (300 into uint8 raises
        # OverflowError, NaN into an int raises ValueError); arrays cast as
        # numpy's setitem casts them.
        host = (value if isinstance(value, np.ndarray)
                else np.asarray(value, dtype=dst.dtype))
        if host.ndim == 0:
            fill(dst, host[()], stream)
            return
        _dtypes.canonical(host.dtype) if host.dtype.kind != "O" else None
        host = host.astype(dst.dtype, copy=False)
        if host.shape == dst.shape and (dst._c or dst._f) and dst.size:
            dst.set(host, async_=stream is not None, stream=stream)
            return
        _layout.value_shape(host.shape, dst.shape)     # refuse before any copy
        src = _creation.to_gpu(host)
        made = True
    else:
        fill(dst, value, stream)
        return
    shape = _layout.value_shape(src.shape, dst.shape)
    if len(shape) < len(src.shape):     # extra leading length-1 axes dropped
        src = src._view(shape, src.strides[len(src.shape) - len(shape):], 0)
    if shape != dst.shape:
        src = src._view(dst.shape, _layout.broadcast_strides(
            shape, src.strides, dst.shape), 0)
    if not dst.size:
        return
    if src.ptr == dst.ptr and src.strides == dst.strides and src.dtype == dst.dtype:
        return
    if src.size and _layout.overlaps(src, dst):
        src = src.copy(stream=stream)
        made = True
    copy_into(dst, src, stream)
    settle_temporaries(stream, made)


# run on the arrays' device (issue 16)
_placement.route(globals(),
                 skip=("to_device", "copy_order", "settle_temporaries"),
                 copies={"copy_into": 1, "assign": 1})
