# Sharing memory and events between processes, and peer access between
# contexts; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the IPC and peer-access entry points (_ipc, loaded on first use),
# mem_get_ipc_handle and IPCMemoryHandle (cuIpc*MemHandle), the event
# handles behind Event.ipc_handle / Event.from_ipc_handle, and the calls
# behind Device.can_access_peer and Context.enable/disable_peer_access.

ctypedef struct _IpcHandle:
    unsigned char data[64]      # CU_IPC_HANDLE_SIZE; CUipcMemHandle and CUipcEventHandle

ctypedef struct _IpcAPI:
    CUresult (*cuIpcGetMemHandle)(_IpcHandle*, CUdeviceptr) noexcept nogil
    CUresult (*cuIpcOpenMemHandle)(CUdeviceptr*, _IpcHandle, unsigned int) noexcept nogil
    CUresult (*cuIpcCloseMemHandle)(CUdeviceptr) noexcept nogil
    CUresult (*cuIpcGetEventHandle)(_IpcHandle*, CUevent) noexcept nogil
    CUresult (*cuIpcOpenEventHandle)(CUevent*, _IpcHandle) noexcept nogil
    CUresult (*cuDeviceCanAccessPeer)(int*, CUdevice, CUdevice) noexcept nogil
    CUresult (*cuCtxEnablePeerAccess)(CUcontext, unsigned int) noexcept nogil
    CUresult (*cuCtxDisablePeerAccess)(CUcontext) noexcept nogil

cdef _IpcAPI _ipc
cdef bint _ipc_loaded = False

#: ``CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS``, PyCUDA's default for IPCMemoryHandle
_IPC_LAZY_ENABLE_PEER_ACCESS = 1


cdef int _load_ipc() except -1:
    global _ipc_loaded
    if _ipc_loaded:
        return 0
    _ensure()
    (<void**>&_ipc.cuIpcGetMemHandle)[0] = _get(b"cuIpcGetMemHandle", None)
    (<void**>&_ipc.cuIpcOpenMemHandle)[0] = _get(b"cuIpcOpenMemHandle_v2", None)
    (<void**>&_ipc.cuIpcCloseMemHandle)[0] = _get(b"cuIpcCloseMemHandle", None)
    (<void**>&_ipc.cuIpcGetEventHandle)[0] = _get(b"cuIpcGetEventHandle", None)
    (<void**>&_ipc.cuIpcOpenEventHandle)[0] = _get(b"cuIpcOpenEventHandle", None)
    (<void**>&_ipc.cuDeviceCanAccessPeer)[0] = _get(b"cuDeviceCanAccessPeer", None)
    (<void**>&_ipc.cuCtxEnablePeerAccess)[0] = _get(b"cuCtxEnablePeerAccess", None)
    (<void**>&_ipc.cuCtxDisablePeerAccess)[0] = _get(b"cuCtxDisablePeerAccess", None)
    _ipc_loaded = True
    return 0


cdef CUresult _ipc_close(CUdeviceptr p) noexcept nogil:
    if _ipc.cuIpcCloseMemHandle == NULL:
        return CUDA_ERROR_INVALID_VALUE
    return _ipc.cuIpcCloseMemHandle(p)


cdef int _handle_from_bytes(object handle, _IpcHandle* out, str what) except -1:
    try:
        raw = bytes(memoryview(handle))
    except TypeError:
        raise TypeError("%s must be the 64 bytes an IPC handle call returned, "
                        "not %s" % (what, type(handle).__name__)) from None
    if len(raw) != 64:
        raise ValueError("%s must be 64 bytes (CU_IPC_HANDLE_SIZE), got %d"
                         % (what, len(raw)))
    memcpy(out.data, <const char*>raw, 64)
    return 0


def mem_get_ipc_handle(devptr):
    """A handle another process can open to reach this device memory
    (``cuIpcGetMemHandle``; PyCUDA's ``mem_get_ipc_handle``).

    Parameters
    ----------
    devptr : DeviceAllocation or int
        The start of memory from :func:`mem_alloc` (``cuMemAlloc``).
        Memory from a stream-ordered pool (:func:`mem_alloc_async`, and
        so gpuarr's default array pool) cannot be shared this way.

    Returns
    -------
    bytes
        64 bytes to send to the other process (e.g. through a
        ``multiprocessing`` pipe), which opens them with
        :class:`IPCMemoryHandle`. The memory must stay allocated here while
        the other process uses it.

    Raises
    ------
    ValueError
        For memory from a stream-ordered pool.
    LogicError
        When the driver refuses the address (not the start of a
        ``cuMemAlloc`` allocation).
    """
    cdef _IpcHandle h
    cdef CUdeviceptr p
    if type(devptr) is DeviceAllocation and (<DeviceAllocation>devptr).is_async:
        raise ValueError("devptr: memory from a stream-ordered pool "
                         "(mem_alloc_async, gpuarr's default array pool) cannot "
                         "be shared with cuIpcGetMemHandle; allocate it with "
                         "mem_alloc")
    p = _devptr(devptr)
    _current_context()
    _load_ipc()
    _need(<void*>_ipc.cuIpcGetMemHandle, "cuIpcGetMemHandle", "4.1")
    check(_ipc.cuIpcGetMemHandle(&h, p), "cuIpcGetMemHandle")
    return bytes(h.data[:64])


# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
cdef class IPCMemoryHandle:
    """IPCMemoryHandle(ipc_handle, flags=1)
--

Device memory of another process, opened from its
    :func:`mem_get_ipc_handle` (``cuIpcOpenMemHandle``; PyCUDA's
    ``IPCMemoryHandle``).

    ``int(h)`` is the device address in the current context; pass the
    object wherever a device pointer is taken. The mapping is closed
    (``cuIpcCloseMemHandle``) by :meth:`close` or when the object dies.

    Parameters
    ----------
    ipc_handle : bytes
        The 64 bytes the other process got from :func:`mem_get_ipc_handle`.
    flags : int, optional
        ``ipc_mem_flags`` (default 1, ``LAZY_ENABLE_PEER_ACCESS``, as
        PyCUDA).

    Raises
    ------
    TypeError, ValueError
        When ``ipc_handle`` is not 64 bytes.
    LogicError
        When the driver cannot open it (e.g. in the process that made it).
    NotSupportedError
        When the driver has no ``cuIpcOpenMemHandle``.
    InvalidContextError
        When no context is current.
    """
    cdef readonly CUdeviceptr ptr
    cdef readonly Context context
    cdef bint closed

    def __cinit__(self, ipc_handle, unsigned int flags=_IPC_LAZY_ENABLE_PEER_ACCESS):
        cdef _IpcHandle h
        _handle_from_bytes(ipc_handle, &h, "ipc_handle")
        self.context = _current_context()
        _load_ipc()
        _need(<void*>_ipc.cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2", "4.1")
        check(_ipc.cuIpcOpenMemHandle(&self.ptr, h, flags), "cuIpcOpenMemHandle_v2")

    def close(self):
        """Close the mapping now (``cuIpcCloseMemHandle``); later calls do
        nothing. The other process's memory is not freed."""
        cdef bint pushed = False
        cdef CUresult r, r2 = CUDA_SUCCESS
        if self.closed or self.ptr == 0:
            return
        self.closed = True
        if not _release_ok(self.context, "IPC memory mapping"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = _ipc_close(self.ptr)
            r2 = _pop_if_pushed(pushed)
        check(r, "cuIpcCloseMemHandle")
        check(r2, "cuCtxPopCurrent_v2")

    def __int__(self):
        return self.ptr

    def __index__(self):
        return self.ptr

    def __repr__(self):
        return "<gpuarr.driver.IPCMemoryHandle 0x%x%s>" % (
            self.ptr, ", closed" if self.closed else "")

    def __dealloc__(self):
        if self.closed or self.ptr == 0 or not _release_ok(self.context, "IPC memory mapping"):
            return
        self.closed = True
        _release_in_context(self.context, _REL_IPC_MEM, <uintptr_t>self.ptr, None)


cdef bytes _event_ipc_handle(Event ev):
    cdef _IpcHandle h
    _load_ipc()
    _need(<void*>_ipc.cuIpcGetEventHandle, "cuIpcGetEventHandle", "4.1")
    check(_ipc.cuIpcGetEventHandle(&h, ev.event), "cuIpcGetEventHandle")
    return bytes(h.data[:64])


cdef int _event_open_ipc(Event ev, object handle) except -1:
    cdef _IpcHandle h
    _handle_from_bytes(handle, &h, "handle")
    _load_ipc()
    _need(<void*>_ipc.cuIpcOpenEventHandle, "cuIpcOpenEventHandle", "4.1")
    check(_ipc.cuIpcOpenEventHandle(&ev.event, h), "cuIpcOpenEventHandle")
    return 0


cdef bint _can_access_peer(CUdevice dev, CUdevice peer) except *:
    cdef int v = 0
    _load_ipc()
    _need(<void*>_ipc.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", "4.0")
    check(_ipc.cuDeviceCanAccessPeer(&v, dev, peer), "cuDeviceCanAccessPeer")
    return v != 0


cdef int _peer_access(object peer, bint enable, unsigned int flags) except -1:
    if not isinstance(peer, Context):
        raise TypeError("peer must be a Context, not %s" % type(peer).__name__)
    if not (<Context>peer).valid:
        raise _errors.InvalidContextError("peer: the context was detached")
    if flags != 0:
        raise ValueError("flags must be 0 (the driver defines none)")
    _current_context()
    _load_ipc()
    if enable:
        _need(<void*>_ipc.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", "4.0")
        check(_ipc.cuCtxEnablePeerAccess((<Context>peer).ctx, flags), "cuCtxEnablePeerAccess")
    else:
        _need(<void*>_ipc.cuCtxDisablePeerAccess, "cuCtxDisablePeerAccess", "4.0")
        check(_ipc.cuCtxDisablePeerAccess((<Context>peer).ctx), "cuCtxDisablePeerAccess")
    return 0
