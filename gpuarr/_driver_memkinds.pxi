# Memory kinds beyond cuMemAlloc: managed (unified) memory, prefetching
# and advice, pointer attributes, and created stream-ordered pools; part
# of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the entry points of these calls (_mk, loaded on first use),
# ManagedAllocation and the managed_* functions, mem_prefetch_async,
# mem_advise, pointer_get_attribute(s), and the calls behind
# MemoryPool(...), MemoryPool.allocate and Device.get/set_mem_pool.

ctypedef struct _MemLocation:       # CUmemLocation
    int type                        # CUmemLocationType: DEVICE 1, HOST 2
    int id

ctypedef struct _MemPoolProps:      # CUmemPoolProps (88 bytes)
    int allocType                   # CU_MEM_ALLOCATION_TYPE_PINNED = 1
    int handleTypes                 # CUmemAllocationHandleType
    _MemLocation location
    void* win32SecurityAttributes
    size_t maxSize
    unsigned short usage
    unsigned char reserved[54]

ctypedef struct _MemKindsAPI:
    CUresult (*cuMemAllocManaged)(CUdeviceptr*, size_t, unsigned int) noexcept nogil
    CUresult (*cuStreamAttachMemAsync)(CUstream, CUdeviceptr, size_t, unsigned int) noexcept nogil
    CUresult (*cuMemPrefetchAsync_v2)(CUdeviceptr, size_t, _MemLocation, unsigned int, CUstream) noexcept nogil
    CUresult (*cuMemPrefetchAsync)(CUdeviceptr, size_t, CUdevice, CUstream) noexcept nogil
    CUresult (*cuMemAdvise_v2)(CUdeviceptr, size_t, int, _MemLocation) noexcept nogil
    CUresult (*cuMemAdvise)(CUdeviceptr, size_t, int, CUdevice) noexcept nogil
    CUresult (*cuPointerGetAttributes)(unsigned int, int*, void**, CUdeviceptr) noexcept nogil
    CUresult (*cuMemPoolCreate)(CUmemoryPool*, const _MemPoolProps*) noexcept nogil
    CUresult (*cuMemPoolDestroy)(CUmemoryPool) noexcept nogil
    CUresult (*cuDeviceSetMemPool)(CUdevice, CUmemoryPool) noexcept nogil
    CUresult (*cuDeviceGetMemPool)(CUmemoryPool*, CUdevice) noexcept nogil
    CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr*, size_t, CUmemoryPool, CUstream) noexcept nogil

cdef _MemKindsAPI _mk
cdef bint _mk_loaded = False

# CUmemAttach_flags (PyCUDA's mem_attach_flags)
_ATTACH_GLOBAL = 1
_ATTACH_HOST = 2
_ATTACH_SINGLE = 4
# CU_DEVICE_CPU: the host as a prefetch or advice target before CUDA 12.2
_DEVICE_CPU = -1


cdef int _load_memkinds() except -1:
    global _mk_loaded
    if _mk_loaded:
        return 0
    _ensure()
    (<void**>&_mk.cuMemAllocManaged)[0] = _get(b"cuMemAllocManaged", None)
    (<void**>&_mk.cuStreamAttachMemAsync)[0] = _get(b"cuStreamAttachMemAsync", None)
    (<void**>&_mk.cuMemPrefetchAsync_v2)[0] = _get(b"cuMemPrefetchAsync_v2", None)
    (<void**>&_mk.cuMemPrefetchAsync)[0] = _get(b"cuMemPrefetchAsync", None)
    (<void**>&_mk.cuMemAdvise_v2)[0] = _get(b"cuMemAdvise_v2", None)
    (<void**>&_mk.cuMemAdvise)[0] = _get(b"cuMemAdvise", None)
    (<void**>&_mk.cuPointerGetAttributes)[0] = _get(b"cuPointerGetAttributes", None)
    (<void**>&_mk.cuMemPoolCreate)[0] = _get(b"cuMemPoolCreate", None)
    (<void**>&_mk.cuMemPoolDestroy)[0] = _get(b"cuMemPoolDestroy", None)
    (<void**>&_mk.cuDeviceSetMemPool)[0] = _get(b"cuDeviceSetMemPool", None)
    (<void**>&_mk.cuDeviceGetMemPool)[0] = _get(b"cuDeviceGetMemPool", None)
    (<void**>&_mk.cuMemAllocFromPoolAsync)[0] = _get(b"cuMemAllocFromPoolAsync", None)
    _mk_loaded = True
    return 0


cdef class ManagedAllocation(DeviceAllocation):
    """Managed (unified) memory from ``cuMemAllocManaged``: one address
    valid on the host and on the device (PyCUDA's ``ManagedAllocation``).

    Made by :func:`managed_empty` and friends, which return numpy arrays
    over it (their ``base`` chain ends here); freed (``cuMemFree``) when
    the last of them dies. ``int(alloc)`` is the device address, equal to
    the host address. The host may read or write it only while no kernel
    that uses it is running (synchronize first) unless the device reports
    ``CONCURRENT_MANAGED_ACCESS`` (an H200 does).
    """
    cdef Py_ssize_t shape0
    cdef Py_ssize_t stride0

    def __getbuffer__(self, Py_buffer* buf, int flags):
        self.shape0 = self.size
        self.stride0 = 1
        buf.buf = <void*><uintptr_t>self.ptr
        buf.len = self.size
        buf.obj = self
        buf.readonly = 0
        buf.itemsize = 1
        buf.format = NULL
        if flags & PyBUF_FORMAT:
            buf.format = b"B"
        buf.ndim = 1
        buf.shape = NULL
        if flags & PyBUF_ND:
            buf.shape = &self.shape0
        buf.strides = NULL
        if (flags & PyBUF_STRIDES) == PyBUF_STRIDES:
            buf.strides = &self.stride0
        buf.suboffsets = NULL
        buf.internal = NULL

    def __releasebuffer__(self, Py_buffer* buf):
        pass

    def get_device_pointer(self):
        """The device address (equal to the host address; PyCUDA's name)."""
        return self.ptr

    def attach(self, unsigned int mem_flags, stream=None):
        """Say which streams may use the memory (``cuStreamAttachMemAsync``
        on the whole allocation, ordered in ``stream``; PyCUDA's
        ``ManagedAllocation.attach``).

        Parameters
        ----------
        mem_flags : int
            ``mem_attach_flags``: ``GLOBAL`` (any stream), ``HOST`` (the
            host only) or ``SINGLE`` (``stream`` only; needs a stream).
        stream : Stream, optional
            Default: the legacy default stream.

        Raises
        ------
        ValueError
            For other flags, or ``SINGLE`` without a stream.
        """
        if mem_flags not in (_ATTACH_GLOBAL, _ATTACH_HOST, _ATTACH_SINGLE):
            raise ValueError("mem_flags must be one of mem_attach_flags.GLOBAL, "
                             "HOST or SINGLE, not %d" % mem_flags)
        if mem_flags == _ATTACH_SINGLE and stream is None:
            raise ValueError("mem_attach_flags.SINGLE needs a stream")
        cdef CUstream s = _stream_handle(stream)
        _load_memkinds()
        _need(<void*>_mk.cuStreamAttachMemAsync, "cuStreamAttachMemAsync", "6.0")
        check(_mk.cuStreamAttachMemAsync(s, self.ptr, 0, mem_flags), "cuStreamAttachMemAsync")

    def __repr__(self):
        return "<gpuarr.driver.ManagedAllocation 0x%x, %d bytes%s>" % (
            self.ptr, self.size, ", freed" if self.freed else "")


def managed_empty(shape, dtype, order="C", unsigned int mem_flags=_ATTACH_GLOBAL):
    """A numpy array in managed memory (``cuMemAllocManaged``; PyCUDA's
    ``managed_empty``): the same bytes are reachable from the host (the
    array) and from kernels (``arr.base`` ... is a
    :class:`ManagedAllocation`; pass the array's address, e.g.
    ``ManagedAllocation`` or ``arr.ctypes.data``, to a kernel).

    Parameters
    ----------
    shape : int or tuple of int
    dtype : numpy dtype
    order : {'C', 'F'}
    mem_flags : int
        ``mem_attach_flags.GLOBAL`` (default: any stream may use it) or
        ``HOST`` (until :meth:`ManagedAllocation.attach`).

    Returns
    -------
    numpy.ndarray
        Uninitialized.

    Raises
    ------
    ValueError
        For a negative dimension or other ``mem_flags``.
    NotSupportedError
        When the device has no managed memory (``MANAGED_MEMORY``
        attribute 0).
    """
    cdef CUdeviceptr p = 0
    cdef CUresult r
    if mem_flags not in (_ATTACH_GLOBAL, _ATTACH_HOST):
        raise ValueError("mem_flags must be mem_attach_flags.GLOBAL or HOST, not %d"
                         % mem_flags)
    dt = np.dtype(dtype)
    shape, count = _host_shape(shape)
    cdef size_t nbytes = max(count * dt.itemsize, 1)
    ctx = _current_context()
    _load_memkinds()
    _need(<void*>_mk.cuMemAllocManaged, "cuMemAllocManaged", "6.0")
    if ctx.deferred:
        _drain_deferred(ctx)
    with nogil:
        r = _mk.cuMemAllocManaged(&p, nbytes, mem_flags)
    check(r, "cuMemAllocManaged")
    cdef ManagedAllocation m = ManagedAllocation.__new__(ManagedAllocation)
    m.ptr = p
    m.size = nbytes
    m.context = ctx
    return np.ndarray(shape, dt, buffer=m, order=order)


def managed_zeros(shape, dtype, order="C", unsigned int mem_flags=_ATTACH_GLOBAL):
    """:func:`managed_empty` filled with zeros (on the host; PyCUDA's
    ``managed_zeros``).

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like
        The array's dtype.
    order : {'C', 'F'}, optional
        Memory order (default 'C').
    mem_flags : int, optional
        ``mem_attach_flags.GLOBAL`` (default: any stream may use it) or
        ``HOST`` (until :meth:`ManagedAllocation.attach`).

    Returns
    -------
    numpy.ndarray
        Zeros in managed memory.

    Raises
    ------
    ValueError
        For a negative dimension or other ``mem_flags``.
    NotSupportedError
        When the device has no managed memory, or the driver no
        ``cuMemAllocManaged``.
    MemoryError
        ``CUDA_ERROR_OUT_OF_MEMORY``.
    InvalidContextError
        When no context is current.
    """
    a = managed_empty(shape, dtype, order, mem_flags)
    a.fill(0)
    return a


def managed_empty_like(array, unsigned int mem_flags=_ATTACH_GLOBAL):
    """:func:`managed_empty` with the shape, dtype and order of ``array``
    (PyCUDA's ``managed_empty_like``).

    Parameters
    ----------
    array : numpy.ndarray
        Gives the shape, dtype and order ('F' when only F-contiguous, else
        'C').
    mem_flags : int, optional
        ``mem_attach_flags.GLOBAL`` (default: any stream may use it) or
        ``HOST`` (until :meth:`ManagedAllocation.attach`).

    Returns
    -------
    numpy.ndarray
        Uninitialized, in managed memory.

    Raises
    ------
    ValueError
        For other ``mem_flags``.
    NotSupportedError
        When the device has no managed memory, or the driver no
        ``cuMemAllocManaged``.
    MemoryError
        ``CUDA_ERROR_OUT_OF_MEMORY``.
    InvalidContextError
        When no context is current.
    """
    return managed_empty(array.shape, array.dtype, _like_order(array), mem_flags)


def managed_zeros_like(array, unsigned int mem_flags=_ATTACH_GLOBAL):
    """:func:`managed_zeros` with the shape, dtype and order of ``array``
    (PyCUDA's ``managed_zeros_like``).

    Parameters
    ----------
    array : numpy.ndarray
        Gives the shape, dtype and order ('F' when only F-contiguous, else
        'C').
    mem_flags : int, optional
        ``mem_attach_flags.GLOBAL`` (default: any stream may use it) or
        ``HOST`` (until :meth:`ManagedAllocation.attach`).

    Returns
    -------
    numpy.ndarray
        Zeros in managed memory.

    Raises
    ------
    ValueError
        For other ``mem_flags``.
    NotSupportedError
        When the device has no managed memory, or the driver no
        ``cuMemAllocManaged``.
    MemoryError
        ``CUDA_ERROR_OUT_OF_MEMORY``.
    InvalidContextError
        When no context is current.
    """
    a = managed_empty_like(array, mem_flags)
    a.fill(0)
    return a


cdef tuple _address_range(object obj, object nbytes):
    """(address, bytes) of a managed array, an allocation or an address."""
    if isinstance(obj, np.ndarray):
        if not (obj.flags.c_contiguous or obj.flags.f_contiguous):
            raise ValueError("the array must be contiguous")
        p = obj.__array_interface__["data"][0]
        n = obj.nbytes
    else:
        p = _devptr(obj)
        if isinstance(obj, DeviceAllocation):
            n = (<DeviceAllocation>obj).size
        else:
            n = getattr(obj, "nbytes", None)     # a GPUArray, say
            if not isinstance(n, int):
                n = None
    if nbytes is not None:
        nbytes = PyNumber_Index(nbytes)
        if nbytes < 0:
            raise ValueError("nbytes cannot be negative")
        if n is not None and nbytes > n:
            raise ValueError("nbytes=%d is past the end of the %d-byte memory"
                             % (nbytes, n))
        n = nbytes
    if n is None:
        raise TypeError("nbytes must be given for a bare address")
    return p, n


cdef _MemLocation _location(object device) except *:
    """A CUmemLocation for a Device, a device ordinal, or "host"."""
    cdef _MemLocation loc
    if isinstance(device, str):
        if device != "host":
            raise ValueError('device must be a Device, an ordinal or "host", not %r'
                             % device)
        loc.type = 2
        loc.id = 0
    elif isinstance(device, Device):
        loc.type = 1
        loc.id = (<Device>device).handle
    elif isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        if device < 0:
            raise ValueError('device ordinal cannot be negative (use "host")')
        loc.type = 1
        loc.id = device
    else:
        raise TypeError('device must be a Device, an ordinal or "host", not %s'
                        % type(device).__name__)
    return loc


def mem_prefetch_async(memory, device, nbytes=None, stream=None):
    """Migrate managed memory to ``device`` or to the host ahead of use
    (``cuMemPrefetchAsync``), ordered in ``stream``.

    Parameters
    ----------
    memory : numpy.ndarray, ManagedAllocation or int
        A contiguous array from :func:`managed_empty`, an allocation, or
        an address (then ``nbytes`` is needed).
    device : Device, int or "host"
        Where the pages should go.
    nbytes : int, optional
        Bytes from the start (default: all of ``memory``).
    stream : Stream, optional
        Default: the legacy default stream.

    Raises
    ------
    TypeError, ValueError
        For a bad ``device``, ``nbytes`` past the end, or a bare address
        without ``nbytes``.
    LogicError
        For memory that is not managed (``CUDA_ERROR_INVALID_VALUE``).
    """
    cdef _MemLocation loc = _location(device)
    p, n = _address_range(memory, nbytes)
    cdef CUstream s = _stream_handle(stream)
    _current_context()
    _load_memkinds()
    if _mk.cuMemPrefetchAsync_v2 != NULL:
        check(_mk.cuMemPrefetchAsync_v2(p, n, loc, 0, s), "cuMemPrefetchAsync_v2")
    else:
        _need(<void*>_mk.cuMemPrefetchAsync, "cuMemPrefetchAsync", "8.0")
        check(_mk.cuMemPrefetchAsync(p, n, loc.id if loc.type == 1 else _DEVICE_CPU, s),
              "cuMemPrefetchAsync")


def mem_advise(memory, advice, device, nbytes=None):
    """Tell the driver how managed memory will be used (``cuMemAdvise``).

    Parameters
    ----------
    memory : numpy.ndarray, ManagedAllocation or int
        As for :func:`mem_prefetch_async`.
    advice : mem_advice
        ``SET_READ_MOSTLY``, ``SET_PREFERRED_LOCATION``,
        ``SET_ACCESSED_BY`` and their ``UNSET_`` forms.
    device : Device, int or "host"
        The location the advice names (ignored by the READ_MOSTLY ones).
    nbytes : int, optional
        Bytes from the start (default: all of ``memory``).

    Raises
    ------
    ValueError
        For an unknown ``advice``, or as :func:`mem_prefetch_async`.
    """
    a = int(advice)
    if not 1 <= a <= 6:
        raise ValueError("advice must be a mem_advice value (1 to 6), not %d" % a)
    cdef _MemLocation loc = _location(device)
    p, n = _address_range(memory, nbytes)
    _current_context()
    _load_memkinds()
    if _mk.cuMemAdvise_v2 != NULL:
        check(_mk.cuMemAdvise_v2(p, n, a, loc), "cuMemAdvise_v2")
    else:
        _need(<void*>_mk.cuMemAdvise, "cuMemAdvise", "8.0")
        check(_mk.cuMemAdvise(p, n, a, loc.id if loc.type == 1 else _DEVICE_CPU),
              "cuMemAdvise")


# CUpointer_attribute -> how its value is read: "ctx", "u32" (an enum or a
# count), "bool", "i32", "u64" (addresses, sizes, ids, handles).
_POINTER_ATTR_KINDS = {
    1: "ctx", 2: "u32", 3: "u64", 4: "u64", 6: "bool", 7: "u64", 8: "bool",
    9: "i32", 10: "bool", 11: "u64", 12: "u64", 13: "bool", 14: "u64",
    15: "bool", 16: "u64", 17: "u64", 18: "u64", 19: "u64", 20: "u64",
    21: "bool",
}


cdef object _pointer_value(int attr, unsigned long long raw):
    kind = _POINTER_ATTR_KINDS[attr]
    if kind == "ctx":
        if raw == 0:
            return None
        ctx = _contexts.get(<uintptr_t>raw)
        return ctx if ctx is not None else <uintptr_t>raw
    if kind == "bool":
        return (raw & 0xffffffff) != 0
    if kind == "i32":
        # the low 32 bits as a signed int (-2 for a host pointer's device
        # ordinal), not a C cast of a value past INT_MAX, which raises
        return <int><unsigned int>(raw & 0xffffffffULL)
    if kind == "u32":
        v = raw & 0xffffffff
        if attr == 2:
            from gpuarr._enums import memory_type
            try:
                return memory_type(v)
            except ValueError:
                return v
        return v
    return raw


cdef CUdeviceptr _any_address(object ptr) except? 0:
    if isinstance(ptr, np.ndarray):
        return <CUdeviceptr>ptr.__array_interface__["data"][0]
    return _devptr(ptr)


def pointer_get_attribute(attribute, ptr):
    """One attribute of the memory at ``ptr`` (``cuPointerGetAttribute``).

    Parameters
    ----------
    attribute : pointer_attribute
        E.g. ``CONTEXT`` (a :class:`Context`, or its handle as an int when
        gpuarr has no object for it), ``MEMORY_TYPE`` (a ``memory_type``:
        HOST, DEVICE, ARRAY or UNIFIED), ``DEVICE_ORDINAL``, ``IS_MANAGED``
        (bool), ``RANGE_START_ADDR`` and ``RANGE_SIZE`` (the allocation
        holding ``ptr``), ``DEVICE_POINTER``, ``HOST_POINTER``.
    ptr : DeviceAllocation, numpy.ndarray, int or device array
        A device address, or the address of host memory the driver knows
        (page-locked, registered or managed).

    Raises
    ------
    ValueError
        For an attribute gpuarr cannot return (``P2P_TOKENS``) or does not
        know.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for memory the driver does not know
        (pageable host memory); :func:`pointer_get_attributes` answers for
        it instead.
    """
    cdef unsigned long long raw[8]
    a = int(attribute)
    if a not in _POINTER_ATTR_KINDS:
        raise ValueError("pointer_attribute %d cannot be read here" % a)
    cdef CUdeviceptr p = _any_address(ptr)
    memset(raw, 0, sizeof(raw))
    _current_context()
    check(api.cuPointerGetAttribute(raw, a, p), "cuPointerGetAttribute")
    return _pointer_value(a, raw[0])


def pointer_get_attributes(ptr, attributes=None):
    """Several attributes of the memory at ``ptr`` in one call
    (``cuPointerGetAttributes``), as ``{pointer_attribute: value}``.

    Unlike :func:`pointer_get_attribute`, memory the driver does not know
    (pageable host memory) is no error: its ``MEMORY_TYPE`` is 0 and its
    ``CONTEXT`` None.

    Parameters
    ----------
    ptr
        As for :func:`pointer_get_attribute`.
    attributes : iterable of pointer_attribute, optional
        Default: ``CONTEXT``, ``MEMORY_TYPE``, ``DEVICE_POINTER``,
        ``DEVICE_ORDINAL``, ``IS_MANAGED``, ``RANGE_START_ADDR``,
        ``RANGE_SIZE``, ``MAPPED``.
    """
    from gpuarr._enums import pointer_attribute
    if attributes is None:
        attributes = (1, 2, 3, 9, 8, 11, 12, 13)
    names = [int(x) for x in attributes]
    for a in names:
        if a not in _POINTER_ATTR_KINDS:
            raise ValueError("pointer_attribute %d cannot be read here" % a)
    cdef Py_ssize_t n = len(names), k
    if n == 0:
        return {}
    cdef CUdeviceptr p = _any_address(ptr)
    cdef int* ids = <int*>malloc(n * sizeof(int))
    cdef void** slots = <void**>malloc(n * sizeof(void*))
    cdef unsigned long long* vals = <unsigned long long*>malloc(n * 8 * sizeof(unsigned long long))
    try:
        if ids == NULL or slots == NULL or vals == NULL:
            raise MemoryError()
        memset(vals, 0, n * 8 * sizeof(unsigned long long))
        for k in range(n):
            ids[k] = names[k]
            slots[k] = &vals[8 * k]
        _current_context()
        _load_memkinds()
        _need(<void*>_mk.cuPointerGetAttributes, "cuPointerGetAttributes", "7.0")
        check(_mk.cuPointerGetAttributes(<unsigned int>n, ids, slots, p),
              "cuPointerGetAttributes")
        out = {}
        for k in range(n):
            try:
                key = pointer_attribute(names[k])
            except ValueError:
                key = names[k]
            out[key] = _pointer_value(names[k], vals[8 * k])
        return out
    finally:
        free(ids)
        free(slots)
        free(vals)


cdef CUmemoryPool _create_pool(Device dev, size_t max_size) except NULL:
    cdef _MemPoolProps props
    cdef CUmemoryPool pool = NULL
    memset(&props, 0, sizeof(props))
    props.allocType = 1
    props.location.type = 1
    props.location.id = dev.handle
    props.maxSize = max_size
    _load_memkinds()
    _need(<void*>_mk.cuMemPoolCreate, "cuMemPoolCreate", "11.2")
    check(_mk.cuMemPoolCreate(&pool, &props), "cuMemPoolCreate")
    return pool


cdef void _destroy_pool(CUmemoryPool pool) noexcept:
    cdef CUresult r
    if _mk.cuMemPoolDestroy == NULL or _finalizing or _forked:
        return
    r = _mk.cuMemPoolDestroy(pool)
    if r != CUDA_SUCCESS:
        _release_failed("memory pool", r)
