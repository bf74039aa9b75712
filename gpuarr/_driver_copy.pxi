# Copies and memsets; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: memcpy_* and memset_* (synchronous and on a stream), the size check
# against a DeviceAllocation (_check_fits), stream arguments (_stream_handle)
# and host buffers (_get_host_buffer).

cdef int _check_fits(object dest, size_t nbytes, str what) except -1:
    if type(dest) is DeviceAllocation and nbytes > (<DeviceAllocation>dest).size:
        raise ValueError("%s: %d bytes do not fit in a device allocation of %d bytes"
                         % (what, nbytes, (<DeviceAllocation>dest).size))
    return 0


cdef CUstream _stream_handle(object stream) except? NULL:
    if stream is None:
        return NULL
    if type(stream) is Stream:
        return (<Stream>stream).stream
    # another library's stream: the CUDA stream protocol (__cuda_stream__()
    # -> (version, handle): CuPy, PyTorch, Numba, cuda.core), else the
    # handle under the name each library gives it
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        got = proto()
        if not (isinstance(got, tuple) and len(got) == 2):
            raise TypeError("%s.__cuda_stream__() must return (version, handle), "
                            "not %r" % (type(stream).__name__, got))
        return <CUstream><uintptr_t>int(got[1])
    h = getattr(stream, "handle", None)
    if h is None:
        h = getattr(stream, "ptr", None)            # CuPy
    if h is None:
        h = getattr(stream, "cuda_stream", None)    # PyTorch
    if h is None:
        raise TypeError("stream must be a gpuarr.driver.Stream, None, an object "
                        "with __cuda_stream__, or have an integer .handle, "
                        ".ptr or .cuda_stream, not %s" % type(stream).__name__)
    return <CUstream><uintptr_t>int(h)


def stream_handle(stream):
    """The ``CUstream`` of a stream argument, as an int.

    Parameters
    ----------
    stream : Stream, None, or another library's stream
        None is the legacy default stream (0); a foreign stream is read
        through the CUDA stream protocol (``__cuda_stream__``) or its
        ``handle``, ``ptr`` (CuPy) or ``cuda_stream`` (PyTorch) attribute,
        as every stream argument of gpuarr is.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        For an object that is none of these.
    """
    return <uintptr_t>_stream_handle(stream)


cdef int _get_host_buffer(object obj, Py_buffer* view, bint writable, str what) except -1:
    cdef int flags = PyBUF_ANY_CONTIGUOUS
    if writable:
        flags |= PyBUF_WRITABLE
    try:
        PyObject_GetBuffer(obj, view, flags)
    except (BufferError, ValueError) as exc:
        raise ValueError("%s: the host buffer must be a contiguous%s array or "
                         "buffer (%s)" % (what, " writable" if writable else "", exc)) from None
    except TypeError:
        raise TypeError("%s: %s does not expose a host buffer" % (what, type(obj).__name__)) from None
    return 0


def memcpy_htod(dest, src):
    """Copy a contiguous host buffer ``src`` to device address ``dest``
    (``cuMemcpyHtoD``); ``src.nbytes`` bytes are copied.

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    src : numpy.ndarray or buffer
        A C- or F-contiguous host buffer; its bytes are copied.

    Raises
    ------
    ValueError
        When ``src`` is not contiguous, or its bytes exceed ``dest``'s
        :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer or ``src`` exposes no buffer.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for an address the driver refuses.
    """
    _ensure()
    cdef Py_buffer view
    cdef CUresult r
    cdef CUdeviceptr d = _devptr(dest)
    _get_host_buffer(src, &view, False, "memcpy_htod")
    try:
        _check_fits(dest, view.len, "memcpy_htod")
        with nogil:
            r = api.cuMemcpyHtoD(d, view.buf, view.len)
        check(r, "cuMemcpyHtoD_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtoh(dest, src):
    """Copy ``dest.nbytes`` bytes from device address ``src`` into the
    contiguous writable host buffer ``dest`` (``cuMemcpyDtoH``).

    Parameters
    ----------
    dest : numpy.ndarray or buffer
        A C- or F-contiguous writable host buffer, filled in place.
    src : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.

    Raises
    ------
    ValueError
        When ``dest`` is not contiguous or not writable, or its bytes
        exceed ``src``'s :class:`DeviceAllocation`.
    TypeError
        When ``src`` is not a device pointer or ``dest`` exposes no buffer.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for an address the driver refuses.
    """
    _ensure()
    cdef Py_buffer view
    cdef CUresult r
    cdef CUdeviceptr s = _devptr(src)
    _get_host_buffer(dest, &view, True, "memcpy_dtoh")
    try:
        _check_fits(src, view.len, "memcpy_dtoh")
        with nogil:
            r = api.cuMemcpyDtoH(view.buf, s, view.len)
        check(r, "cuMemcpyDtoH_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtod(dest, src, size_t size):
    """Copy ``size`` bytes between device addresses (``cuMemcpyDtoD``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    src : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    size : int
        Bytes to copy.

    Raises
    ------
    ValueError
        When ``size`` exceeds the :class:`DeviceAllocation` of ``dest`` or
        ``src``.
    TypeError
        When ``dest`` or ``src`` is not a device pointer.
    """
    _ensure()
    cdef CUresult r
    cdef CUdeviceptr d = _devptr(dest), s = _devptr(src)
    _check_fits(dest, size, "memcpy_dtod")
    _check_fits(src, size, "memcpy_dtod")
    with nogil:
        r = api.cuMemcpyDtoD(d, s, size)
    check(r, "cuMemcpyDtoD_v2")


def memcpy_htod_async(dest, src, stream=None):
    """Asynchronous :func:`memcpy_htod` on ``stream`` (``cuMemcpyHtoDAsync``).

    Truly asynchronous only when ``src`` is page-locked
    (:func:`pagelocked_empty`); ``src`` must stay alive until the copy ends.

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    src : numpy.ndarray or buffer
        A C- or F-contiguous host buffer; ``src.nbytes`` bytes are copied.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When ``src`` is not contiguous, or its bytes exceed ``dest``'s
        :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer, ``src`` exposes no buffer
        or ``stream`` is not a stream.
    """
    _ensure()
    cdef Py_buffer view
    cdef CUdeviceptr d = _devptr(dest)
    cdef CUstream s = _stream_handle(stream)
    _get_host_buffer(src, &view, False, "memcpy_htod_async")
    try:
        _check_fits(dest, view.len, "memcpy_htod_async")
        check(api.cuMemcpyHtoDAsync(d, view.buf, view.len, s), "cuMemcpyHtoDAsync_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtoh_async(dest, src, stream=None):
    """Asynchronous :func:`memcpy_dtoh` on ``stream`` (``cuMemcpyDtoHAsync``).

    Truly asynchronous only when ``dest`` is page-locked; read ``dest``
    only after the stream has reached the copy.

    Parameters
    ----------
    dest : numpy.ndarray or buffer
        A C- or F-contiguous writable host buffer; ``dest.nbytes`` bytes
        are copied into it.
    src : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When ``dest`` is not contiguous or not writable, or its bytes
        exceed ``src``'s :class:`DeviceAllocation`.
    TypeError
        When ``src`` is not a device pointer, ``dest`` exposes no buffer
        or ``stream`` is not a stream.
    """
    _ensure()
    cdef Py_buffer view
    cdef CUdeviceptr s_ptr = _devptr(src)
    cdef CUstream s = _stream_handle(stream)
    _get_host_buffer(dest, &view, True, "memcpy_dtoh_async")
    try:
        _check_fits(src, view.len, "memcpy_dtoh_async")
        check(api.cuMemcpyDtoHAsync(view.buf, s_ptr, view.len, s), "cuMemcpyDtoHAsync_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtod_async(dest, src, size_t size, stream=None):
    """Asynchronous :func:`memcpy_dtod` on ``stream`` (``cuMemcpyDtoDAsync``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    src : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    size : int
        Bytes to copy.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When ``size`` exceeds the :class:`DeviceAllocation` of ``dest`` or
        ``src``.
    TypeError
        When ``dest`` or ``src`` is not a device pointer, or ``stream`` is
        not a stream.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest), s_ptr = _devptr(src)
    cdef CUstream s = _stream_handle(stream)
    _check_fits(dest, size, "memcpy_dtod_async")
    _check_fits(src, size, "memcpy_dtod_async")
    check(api.cuMemcpyDtoDAsync(d, s_ptr, size, s), "cuMemcpyDtoDAsync_v2")


def memset_d8(dest, unsigned char data, size_t count):
    """Set ``count`` bytes at ``dest`` to ``data`` (``cuMemsetD8``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    data : int
        The value of each byte (uint8: 0 to 255).
    count : int
        Number of bytes to set.

    Raises
    ------
    ValueError
        When ``count`` bytes exceed ``dest``'s :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer.
    OverflowError
        For a ``data`` or ``count`` out of range.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, count, "memset_d8")
    check(api.cuMemsetD8(d, data, count), "cuMemsetD8_v2")


def memset_d16(dest, unsigned short data, size_t count):
    """Set ``count`` 16-bit words at ``dest`` to ``data`` (``cuMemsetD16``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    data : int
        The value of each word (uint16: 0 to 65535).
    count : int
        Number of 16-bit words to set.

    Raises
    ------
    ValueError
        When ``2 * count`` bytes exceed ``dest``'s :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer.
    OverflowError
        For a ``data`` or ``count`` out of range.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 2 * count, "memset_d16")
    check(api.cuMemsetD16(d, data, count), "cuMemsetD16_v2")


def memset_d32(dest, unsigned int data, size_t count):
    """Set ``count`` 32-bit words at ``dest`` to ``data`` (``cuMemsetD32``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    data : int
        The value of each word (uint32: 0 to 4294967295).
    count : int
        Number of 32-bit words to set.

    Raises
    ------
    ValueError
        When ``4 * count`` bytes exceed ``dest``'s :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer.
    OverflowError
        For a ``data`` or ``count`` out of range.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 4 * count, "memset_d32")
    check(api.cuMemsetD32(d, data, count), "cuMemsetD32_v2")


def memset_d8_async(dest, unsigned char data, size_t count, stream=None):
    """Asynchronous :func:`memset_d8` (``cuMemsetD8Async``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    data : int
        The value of each byte (uint8: 0 to 255).
    count : int
        Number of bytes to set.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When ``count`` bytes exceed ``dest``'s :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer or ``stream`` is not a stream.
    OverflowError
        For a ``data`` or ``count`` out of range.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, count, "memset_d8_async")
    check(api.cuMemsetD8Async(d, data, count, _stream_handle(stream)), "cuMemsetD8Async")


def memset_d16_async(dest, unsigned short data, size_t count, stream=None):
    """Asynchronous :func:`memset_d16` (``cuMemsetD16Async``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    data : int
        The value of each word (uint16: 0 to 65535).
    count : int
        Number of 16-bit words to set.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When ``2 * count`` bytes exceed ``dest``'s :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer or ``stream`` is not a stream.
    OverflowError
        For a ``data`` or ``count`` out of range.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 2 * count, "memset_d16_async")
    check(api.cuMemsetD16Async(d, data, count, _stream_handle(stream)), "cuMemsetD16Async")


def memset_d32_async(dest, unsigned int data, size_t count, stream=None):
    """Asynchronous :func:`memset_d32` (``cuMemsetD32Async``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    data : int
        The value of each word (uint32: 0 to 4294967295).
    count : int
        Number of 32-bit words to set.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When ``4 * count`` bytes exceed ``dest``'s :class:`DeviceAllocation`.
    TypeError
        When ``dest`` is not a device pointer or ``stream`` is not a stream.
    OverflowError
        For a ``data`` or ``count`` out of range.
    """
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 4 * count, "memset_d32_async")
    check(api.cuMemsetD32Async(d, data, count, _stream_handle(stream)), "cuMemsetD32Async")
