# Pitched memory, 2-D memsets, 2-D/3-D and peer copies; part of
# gpuarr/_driver.pyx, which includes this file.
#
# Owns: its own table of entry points (_c3, filled on first use by
# _c3_load), the C structures of the 2-D/3-D copies, mem_alloc_pitch,
# memset_d2d8/16/32 (+ _async), memcpy_peer(_async).
# The objects are in _driver_memcpy.pxi; the CUDA array class they copy to
# and from (and GA_CUarray) in _driver_array.pxi, included before this file.

# CUDA_MEMCPY2D, CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER of cuda.h (13.0), by
# hand; the memory types are CUmemorytype (1 host, 2 device, 3 array,
# 4 unified). GA_ names so that other sections' declarations never clash.
ctypedef struct GA_CUDA_MEMCPY2D:
    size_t srcXInBytes
    size_t srcY
    int srcMemoryType
    const void* srcHost
    CUdeviceptr srcDevice
    GA_CUarray srcArray
    size_t srcPitch
    size_t dstXInBytes
    size_t dstY
    int dstMemoryType
    void* dstHost
    CUdeviceptr dstDevice
    GA_CUarray dstArray
    size_t dstPitch
    size_t WidthInBytes
    size_t Height

ctypedef struct GA_CUDA_MEMCPY3D:
    size_t srcXInBytes
    size_t srcY
    size_t srcZ
    size_t srcLOD
    int srcMemoryType
    const void* srcHost
    CUdeviceptr srcDevice
    GA_CUarray srcArray
    void* reserved0
    size_t srcPitch
    size_t srcHeight
    size_t dstXInBytes
    size_t dstY
    size_t dstZ
    size_t dstLOD
    int dstMemoryType
    void* dstHost
    CUdeviceptr dstDevice
    GA_CUarray dstArray
    void* reserved1
    size_t dstPitch
    size_t dstHeight
    size_t WidthInBytes
    size_t Height
    size_t Depth

ctypedef struct GA_CUDA_MEMCPY3D_PEER:
    size_t srcXInBytes
    size_t srcY
    size_t srcZ
    size_t srcLOD
    int srcMemoryType
    const void* srcHost
    CUdeviceptr srcDevice
    GA_CUarray srcArray
    CUcontext srcContext
    size_t srcPitch
    size_t srcHeight
    size_t dstXInBytes
    size_t dstY
    size_t dstZ
    size_t dstLOD
    int dstMemoryType
    void* dstHost
    CUdeviceptr dstDevice
    GA_CUarray dstArray
    CUcontext dstContext
    size_t dstPitch
    size_t dstHeight
    size_t WidthInBytes
    size_t Height
    size_t Depth

ctypedef struct Copy3DAPI:
    CUresult (*cuMemAllocPitch)(CUdeviceptr*, size_t*, size_t, size_t, unsigned int) noexcept nogil
    CUresult (*cuMemsetD2D8)(CUdeviceptr, size_t, unsigned char, size_t, size_t) noexcept nogil
    CUresult (*cuMemsetD2D16)(CUdeviceptr, size_t, unsigned short, size_t, size_t) noexcept nogil
    CUresult (*cuMemsetD2D32)(CUdeviceptr, size_t, unsigned int, size_t, size_t) noexcept nogil
    CUresult (*cuMemsetD2D8Async)(CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream) noexcept nogil
    CUresult (*cuMemsetD2D16Async)(CUdeviceptr, size_t, unsigned short, size_t, size_t, CUstream) noexcept nogil
    CUresult (*cuMemsetD2D32Async)(CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream) noexcept nogil
    CUresult (*cuMemcpy2D)(const GA_CUDA_MEMCPY2D*) noexcept nogil
    CUresult (*cuMemcpy2DUnaligned)(const GA_CUDA_MEMCPY2D*) noexcept nogil
    CUresult (*cuMemcpy2DAsync)(const GA_CUDA_MEMCPY2D*, CUstream) noexcept nogil
    CUresult (*cuMemcpy3D)(const GA_CUDA_MEMCPY3D*) noexcept nogil
    CUresult (*cuMemcpy3DAsync)(const GA_CUDA_MEMCPY3D*, CUstream) noexcept nogil
    CUresult (*cuMemcpy3DPeer)(const GA_CUDA_MEMCPY3D_PEER*) noexcept nogil
    CUresult (*cuMemcpy3DPeerAsync)(const GA_CUDA_MEMCPY3D_PEER*, CUstream) noexcept nogil
    CUresult (*cuMemcpyPeer)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t) noexcept nogil
    CUresult (*cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream) noexcept nogil

cdef Copy3DAPI _c3
cdef bint _c3_loaded = False


cdef int _c3_load() except -1:
    global _c3_loaded
    if _c3_loaded:
        return 0
    _ensure()
    (<void**>&_c3.cuMemAllocPitch)[0] = _get(b"cuMemAllocPitch_v2", None)
    (<void**>&_c3.cuMemsetD2D8)[0] = _get(b"cuMemsetD2D8_v2", None)
    (<void**>&_c3.cuMemsetD2D16)[0] = _get(b"cuMemsetD2D16_v2", None)
    (<void**>&_c3.cuMemsetD2D32)[0] = _get(b"cuMemsetD2D32_v2", None)
    (<void**>&_c3.cuMemsetD2D8Async)[0] = _get(b"cuMemsetD2D8Async", None)
    (<void**>&_c3.cuMemsetD2D16Async)[0] = _get(b"cuMemsetD2D16Async", None)
    (<void**>&_c3.cuMemsetD2D32Async)[0] = _get(b"cuMemsetD2D32Async", None)
    (<void**>&_c3.cuMemcpy2D)[0] = _get(b"cuMemcpy2D_v2", None)
    (<void**>&_c3.cuMemcpy2DUnaligned)[0] = _get(b"cuMemcpy2DUnaligned_v2", None)
    (<void**>&_c3.cuMemcpy2DAsync)[0] = _get(b"cuMemcpy2DAsync_v2", None)
    (<void**>&_c3.cuMemcpy3D)[0] = _get(b"cuMemcpy3D_v2", None)
    (<void**>&_c3.cuMemcpy3DAsync)[0] = _get(b"cuMemcpy3DAsync_v2", None)
    (<void**>&_c3.cuMemcpy3DPeer)[0] = _get(b"cuMemcpy3DPeer", None)
    (<void**>&_c3.cuMemcpy3DPeerAsync)[0] = _get(b"cuMemcpy3DPeerAsync", None)
    (<void**>&_c3.cuMemcpyPeer)[0] = _get(b"cuMemcpyPeer", None)
    (<void**>&_c3.cuMemcpyPeerAsync)[0] = _get(b"cuMemcpyPeerAsync", None)
    _c3_loaded = True
    return 0


cdef int _need_entry(void* p, str name, str version) except -1:
    """NotSupportedError for an entry point this driver lacks."""
    if p == NULL:
        raise _errors.NotSupportedError(
            "this CUDA driver has no %s (it needs a driver for CUDA %s or newer)"
            % (name, version))
    return 0


def mem_alloc_pitch(size_t width, size_t height, unsigned int access_size):
    """Allocate a pitched 2-D region (``cuMemAllocPitch``; PyCUDA's name).

    Parameters
    ----------
    width : int
        Bytes of each row (not elements).
    height : int
        Number of rows.
    access_size : {4, 8, 16}
        Bytes of the widest access a kernel makes to one element; the driver
        pads rows so such accesses stay coalesced.

    Returns
    -------
    (DeviceAllocation, int)
        The allocation (``pitch * height`` bytes) and the pitch in bytes, at
        least ``width``. Row ``y`` starts at ``int(alloc) + y * pitch``.

    Raises
    ------
    ValueError
        ``access_size`` not 4, 8 or 16; ``width`` or ``height`` 0.
    MemoryError
        When the device is out of memory.
    """
    cdef CUdeviceptr p = 0
    cdef size_t pitch = 0
    cdef CUresult r
    if access_size not in (4, 8, 16):
        raise ValueError("access_size must be 4, 8 or 16 (bytes), not %d" % access_size)
    if width == 0 or height == 0:
        raise ValueError("mem_alloc_pitch: width and height must be positive, got %d x %d"
                         % (width, height))
    ctx = _current_context()
    _c3_load()
    _need_entry(<void*>_c3.cuMemAllocPitch, "cuMemAllocPitch_v2", "3.2")
    with nogil:
        r = _c3.cuMemAllocPitch(&p, &pitch, width, height, access_size)
    check(r, "cuMemAllocPitch_v2")
    return _new_allocation(p, pitch * height, ctx), pitch


cdef int _check_2d_fits(object dest, size_t pitch, size_t width, size_t height,
                        int elsize, str what) except -1:
    """A 2-D memset of ``height`` rows of ``width`` elements lies in the
    allocation ``dest`` (when it is a DeviceAllocation)."""
    if height == 0 or width == 0:
        return 0
    if height > 1 and <object>width * elsize > pitch:
        raise ValueError("%s: width (%d elements of %d bytes) exceeds pitch (%d bytes)"
                         % (what, width, elsize, pitch))
    end = (<object>height - 1) * pitch + <object>width * elsize
    if type(dest) is DeviceAllocation and end > (<DeviceAllocation>dest).size:
        raise ValueError("%s: %d rows of pitch %d bytes (%d bytes) do not fit in a "
                         "device allocation of %d bytes"
                         % (what, height, pitch, end, (<DeviceAllocation>dest).size))
    return 0


def memset_d2d8(dest, size_t pitch, unsigned char data, size_t width, size_t height):
    """Set a 2-D region of bytes (``cuMemsetD2D8``; PyCUDA's argument order).

    ``height`` rows of ``width`` bytes, each row ``pitch`` bytes after the
    last, are set to ``data``. ``ValueError`` when the region does not fit
    a :class:`DeviceAllocation` ``dest`` or ``width`` exceeds ``pitch``.

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address of the first row: a :class:`DeviceAllocation`,
        an int, or an object with ``ptr``, ``gpudata`` or
        ``__cuda_array_interface__``.
    pitch : int
        Bytes from the start of one row to the start of the next.
    data : int
        The value of each element (uint8: 0 to 255).
    width : int
        Elements (bytes) per row.
    height : int
        Rows.

    Raises
    ------
    ValueError
        When the region does not fit a :class:`DeviceAllocation` ``dest``,
        or (for more than one row) ``width`` elements exceed ``pitch``.
    TypeError
        When ``dest`` is not a device pointer.
    OverflowError
        For a ``data``, ``pitch``, ``width`` or ``height`` out of range.
    NotSupportedError
        When the driver lacks the entry point.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for an address or pitch the driver
        refuses.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest)
    _check_2d_fits(dest, pitch, width, height, 1, "memset_d2d8")
    _need_entry(<void*>_c3.cuMemsetD2D8, "cuMemsetD2D8_v2", "3.2")
    check(_c3.cuMemsetD2D8(d, pitch, data, width, height), "cuMemsetD2D8_v2")


def memset_d2d16(dest, size_t pitch, unsigned short data, size_t width, size_t height):
    """:func:`memset_d2d8` for 16-bit words (``cuMemsetD2D16``): ``width``
    counts elements, ``pitch`` bytes; ``dest`` and ``pitch`` 2-byte aligned.

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address of the first row: a :class:`DeviceAllocation`,
        an int, or an object with ``ptr``, ``gpudata`` or
        ``__cuda_array_interface__``.
    pitch : int
        Bytes from the start of one row to the start of the next (a multiple of 2).
    data : int
        The value of each element (uint16: 0 to 65535).
    width : int
        Elements (16-bit words) per row.
    height : int
        Rows.

    Raises
    ------
    ValueError
        When the region does not fit a :class:`DeviceAllocation` ``dest``,
        or (for more than one row) ``width`` elements exceed ``pitch``.
    TypeError
        When ``dest`` is not a device pointer.
    OverflowError
        For a ``data``, ``pitch``, ``width`` or ``height`` out of range.
    NotSupportedError
        When the driver lacks the entry point.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for a misaligned ``dest`` or ``pitch``.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest)
    _check_2d_fits(dest, pitch, width, height, 2, "memset_d2d16")
    _need_entry(<void*>_c3.cuMemsetD2D16, "cuMemsetD2D16_v2", "3.2")
    check(_c3.cuMemsetD2D16(d, pitch, data, width, height), "cuMemsetD2D16_v2")


def memset_d2d32(dest, size_t pitch, unsigned int data, size_t width, size_t height):
    """:func:`memset_d2d8` for 32-bit words (``cuMemsetD2D32``): ``width``
    counts elements, ``pitch`` bytes; ``dest`` and ``pitch`` 4-byte aligned.

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address of the first row: a :class:`DeviceAllocation`,
        an int, or an object with ``ptr``, ``gpudata`` or
        ``__cuda_array_interface__``.
    pitch : int
        Bytes from the start of one row to the start of the next (a multiple of 4).
    data : int
        The value of each element (uint32: 0 to 4294967295).
    width : int
        Elements (32-bit words) per row.
    height : int
        Rows.

    Raises
    ------
    ValueError
        When the region does not fit a :class:`DeviceAllocation` ``dest``,
        or (for more than one row) ``width`` elements exceed ``pitch``.
    TypeError
        When ``dest`` is not a device pointer.
    OverflowError
        For a ``data``, ``pitch``, ``width`` or ``height`` out of range.
    NotSupportedError
        When the driver lacks the entry point.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for a misaligned ``dest`` or ``pitch``.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest)
    _check_2d_fits(dest, pitch, width, height, 4, "memset_d2d32")
    _need_entry(<void*>_c3.cuMemsetD2D32, "cuMemsetD2D32_v2", "3.2")
    check(_c3.cuMemsetD2D32(d, pitch, data, width, height), "cuMemsetD2D32_v2")


def memset_d2d8_async(dest, size_t pitch, unsigned char data, size_t width,
                      size_t height, stream=None):
    """:func:`memset_d2d8` on ``stream`` (``cuMemsetD2D8Async``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address of the first row: a :class:`DeviceAllocation`,
        an int, or an object with ``ptr``, ``gpudata`` or
        ``__cuda_array_interface__``.
    pitch : int
        Bytes from the start of one row to the start of the next.
    data : int
        The value of each element (uint8: 0 to 255).
    width : int
        Elements (bytes) per row.
    height : int
        Rows.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When the region does not fit a :class:`DeviceAllocation` ``dest``,
        or (for more than one row) ``width`` elements exceed ``pitch``.
    TypeError
        When ``dest`` is not a device pointer or ``stream`` is not a stream.
    OverflowError
        For a ``data``, ``pitch``, ``width`` or ``height`` out of range.
    NotSupportedError
        When the driver lacks the entry point.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for an address or pitch the driver
        refuses.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest)
    cdef CUstream s = _stream_handle(stream)
    _check_2d_fits(dest, pitch, width, height, 1, "memset_d2d8_async")
    _need_entry(<void*>_c3.cuMemsetD2D8Async, "cuMemsetD2D8Async", "3.2")
    check(_c3.cuMemsetD2D8Async(d, pitch, data, width, height, s), "cuMemsetD2D8Async")


def memset_d2d16_async(dest, size_t pitch, unsigned short data, size_t width,
                       size_t height, stream=None):
    """:func:`memset_d2d16` on ``stream`` (``cuMemsetD2D16Async``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address of the first row: a :class:`DeviceAllocation`,
        an int, or an object with ``ptr``, ``gpudata`` or
        ``__cuda_array_interface__``.
    pitch : int
        Bytes from the start of one row to the start of the next (a multiple of 2).
    data : int
        The value of each element (uint16: 0 to 65535).
    width : int
        Elements (16-bit words) per row.
    height : int
        Rows.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When the region does not fit a :class:`DeviceAllocation` ``dest``,
        or (for more than one row) ``width`` elements exceed ``pitch``.
    TypeError
        When ``dest`` is not a device pointer or ``stream`` is not a stream.
    OverflowError
        For a ``data``, ``pitch``, ``width`` or ``height`` out of range.
    NotSupportedError
        When the driver lacks the entry point.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for a misaligned ``dest`` or ``pitch``.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest)
    cdef CUstream s = _stream_handle(stream)
    _check_2d_fits(dest, pitch, width, height, 2, "memset_d2d16_async")
    _need_entry(<void*>_c3.cuMemsetD2D16Async, "cuMemsetD2D16Async", "3.2")
    check(_c3.cuMemsetD2D16Async(d, pitch, data, width, height, s), "cuMemsetD2D16Async")


def memset_d2d32_async(dest, size_t pitch, unsigned int data, size_t width,
                       size_t height, stream=None):
    """:func:`memset_d2d32` on ``stream`` (``cuMemsetD2D32Async``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address of the first row: a :class:`DeviceAllocation`,
        an int, or an object with ``ptr``, ``gpudata`` or
        ``__cuda_array_interface__``.
    pitch : int
        Bytes from the start of one row to the start of the next (a multiple of 4).
    data : int
        The value of each element (uint32: 0 to 4294967295).
    width : int
        Elements (32-bit words) per row.
    height : int
        Rows.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        When the region does not fit a :class:`DeviceAllocation` ``dest``,
        or (for more than one row) ``width`` elements exceed ``pitch``.
    TypeError
        When ``dest`` is not a device pointer or ``stream`` is not a stream.
    OverflowError
        For a ``data``, ``pitch``, ``width`` or ``height`` out of range.
    NotSupportedError
        When the driver lacks the entry point.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for a misaligned ``dest`` or ``pitch``.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest)
    cdef CUstream s = _stream_handle(stream)
    _check_2d_fits(dest, pitch, width, height, 4, "memset_d2d32_async")
    _need_entry(<void*>_c3.cuMemsetD2D32Async, "cuMemsetD2D32Async", "3.2")
    check(_c3.cuMemsetD2D32Async(d, pitch, data, width, height, s), "cuMemsetD2D32Async")


cdef CUcontext _ctx_arg(object ctx, str what) except? NULL:
    """The CUcontext of a context argument; None is the current one."""
    if ctx is None:
        return (<Context>_current_context()).ctx
    if type(ctx) is not Context:
        raise TypeError("%s must be a gpuarr.driver.Context or None, not %s"
                        % (what, type(ctx).__name__))
    if not (<Context>ctx).valid:
        raise ValueError("%s was detached" % what)
    return (<Context>ctx).ctx


def memcpy_peer(dest, src, size_t size, dest_context=None, src_context=None):
    """Copy ``size`` bytes between device memory of two contexts
    (``cuMemcpyPeer``; PyCUDA's argument order).

    Parameters
    ----------
    dest, src : DeviceAllocation or int
        Device addresses; a DeviceAllocation's size is checked.
    size : int
        Bytes.
    dest_context, src_context : Context, optional
        The contexts the memory belongs to; default the current one.

    Raises
    ------
    ValueError
        ``size`` exceeds a DeviceAllocation side, or a context was detached.
    TypeError
        A context that is not a :class:`Context`.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest), s = _devptr(src)
    cdef CUcontext dc = _ctx_arg(dest_context, "dest_context")
    cdef CUcontext sc = _ctx_arg(src_context, "src_context")
    cdef CUresult r
    _check_fits(dest, size, "memcpy_peer (dest)")
    _check_fits(src, size, "memcpy_peer (src)")
    _need_entry(<void*>_c3.cuMemcpyPeer, "cuMemcpyPeer", "4.0")
    with nogil:
        r = _c3.cuMemcpyPeer(d, dc, s, sc, size)
    check(r, "cuMemcpyPeer")


def memcpy_peer_async(dest, src, size_t size, dest_context=None, src_context=None,
                      stream=None):
    """:func:`memcpy_peer` on ``stream`` (``cuMemcpyPeerAsync``).

    Parameters
    ----------
    dest, src : DeviceAllocation or int
        Device addresses; a DeviceAllocation's size is checked.
    size : int
        Bytes.
    dest_context, src_context : Context, optional
        The contexts the memory belongs to; default the current one.
    stream : Stream, optional
        The stream; None (default) is the legacy default stream. Another
        library's stream is taken too (see :func:`stream_handle`).

    Raises
    ------
    ValueError
        ``size`` exceeds a DeviceAllocation side, or a context was detached.
    TypeError
        A context that is not a :class:`Context`, a ``stream`` that is not
        a stream, or an address that is not a device pointer.
    NotSupportedError
        When the driver has no ``cuMemcpyPeerAsync``.
    """
    _c3_load()
    cdef CUdeviceptr d = _devptr(dest), s = _devptr(src)
    cdef CUcontext dc = _ctx_arg(dest_context, "dest_context")
    cdef CUcontext sc = _ctx_arg(src_context, "src_context")
    cdef CUstream st = _stream_handle(stream)
    _check_fits(dest, size, "memcpy_peer_async (dest)")
    _check_fits(src, size, "memcpy_peer_async (src)")
    _need_entry(<void*>_c3.cuMemcpyPeerAsync, "cuMemcpyPeerAsync", "4.0")
    check(_c3.cuMemcpyPeerAsync(d, dc, s, sc, size, st), "cuMemcpyPeerAsync")

