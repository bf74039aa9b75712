# Device memory and memory pools; part of gpuarr/_driver.pyx, which
# includes this file.
#
# Owns: MemoryPool (a device's stream-ordered pool), DeviceAllocation and
# its release in its own context, mem_alloc, mem_alloc_async,
# mem_get_info, and _devptr (what counts as a device address).

# CUmemPool_attribute values whose type is int; the others are cuuint64_t
_MEMPOOL_INT_ATTRS = (1, 2, 3)


# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
# __init__ embeds no signature of its own, which would come first and hide it.
cdef class MemoryPool:
    """MemoryPool(device=None, max_size=0)
--

A stream-ordered memory pool (``CUmemoryPool``).

    ``MemoryPool(device=None, max_size=0)`` creates a pool of device memory
    (``cuMemPoolCreate``), destroyed when this object and every allocation
    from it have died. :meth:`Device.get_default_mem_pool` and
    :meth:`Device.get_mem_pool` give the driver's pools, which nothing
    destroys.

    Parameters
    ----------
    device : Device, optional
        Default: the current context's device.
    max_size : int, optional
        Upper bound of the pool in bytes (0: the driver's default, all of
        the device's memory).

    Raises
    ------
    TypeError
        When ``device`` is not a :class:`Device`.
    NotSupportedError
        When the driver has no ``cuMemPoolCreate`` (CUDA 11.2).
    InvalidContextError
        When ``device`` is None and no context is current.
    """
    cdef CUmemoryPool pool
    cdef readonly object device
    cdef bint owned

    @cython.embedsignature(False)
    def __init__(self, device=None, size_t max_size=0):
        if device is None:
            device = _current_context().device
        if not isinstance(device, Device):
            raise TypeError("device must be a Device, not %s" % type(device).__name__)
        _ensure()
        self.pool = _create_pool(<Device>device, max_size)
        self.owned = True
        self.device = device

    def __dealloc__(self):
        if self.owned and self.pool != NULL:
            _destroy_pool(self.pool)

    def allocate(self, size_t nbytes, Stream stream=None):
        """``nbytes`` of device memory from this pool, ordered in
        ``stream`` (``cuMemAllocFromPoolAsync``); freed with
        ``cuMemFreeAsync`` on that stream when it dies, as from
        :func:`mem_alloc_async`. The allocation keeps the pool alive.

        Raises
        ------
        MemoryError
            When the pool cannot grow (``max_size``, or the device is full).
        """
        cdef CUdeviceptr p = 0
        cdef CUstream s = NULL
        ctx = _current_context()
        _load_memkinds()
        _need(<void*>_mk.cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", "11.2")
        if stream is not None:
            s = stream.stream
        if nbytes:
            check(_mk.cuMemAllocFromPoolAsync(&p, nbytes, self.pool, s),
                  "cuMemAllocFromPoolAsync")
        a = _new_allocation(p, nbytes, ctx)
        a.is_async = True
        a.stream = stream
        a.owner = self
        return a

    @property
    def handle(self):
        """The ``CUmemoryPool`` handle as an int."""
        return <size_t>self.pool

    def get_attribute(self, attr):
        """Value of a ``mem_pool_attribute`` (``cuMemPoolGetAttribute``).

        Returns
        -------
        int
            A flag (the ``REUSE_*`` attributes) or a size in bytes.
        """
        cdef int iv = 0
        cdef unsigned long long uv = 0
        a = int(attr)
        if a in _MEMPOOL_INT_ATTRS:
            check(api.cuMemPoolGetAttribute(self.pool, a, &iv), "cuMemPoolGetAttribute")
            return iv
        check(api.cuMemPoolGetAttribute(self.pool, a, &uv), "cuMemPoolGetAttribute")
        return uv

    def set_attribute(self, attr, value):
        """Set a ``mem_pool_attribute`` (``cuMemPoolSetAttribute``).

        ``RELEASE_THRESHOLD`` (bytes, up to ``2**64 - 1``) is how much
        unused memory the pool keeps at synchronizations; the ``REUSE_*``
        flags are 0 or 1; the high-water marks can only be reset to 0.
        """
        cdef int iv
        cdef unsigned long long uv
        a = int(attr)
        if a in _MEMPOOL_INT_ATTRS:
            iv = int(value)
            check(api.cuMemPoolSetAttribute(self.pool, a, &iv), "cuMemPoolSetAttribute")
        else:
            uv = int(value)
            check(api.cuMemPoolSetAttribute(self.pool, a, &uv), "cuMemPoolSetAttribute")

    def trim_to(self, size_t min_bytes_to_keep=0):
        """Release unused memory to the OS down to ``min_bytes_to_keep``
        (``cuMemPoolTrimTo``); memory whose asynchronous free has not run
        yet is still in use."""
        check(api.cuMemPoolTrimTo(self.pool, min_bytes_to_keep), "cuMemPoolTrimTo")

    def __eq__(self, other):
        return isinstance(other, MemoryPool) and (<MemoryPool>other).pool == self.pool

    def __hash__(self):
        return hash(("MemoryPool", <size_t>self.pool))

    def __repr__(self):
        return "<MemoryPool 0x%x%s>" % (<size_t>self.pool, ", created" if self.owned else "")


cdef int _free_allocation(DeviceAllocation a, bint raise_errors) except -1:
    cdef bint pushed = False
    cdef CUresult r
    cdef CUstream s = NULL
    if a.freed or a.ptr == 0:
        a.freed = True
        return 0
    a.freed = True
    if not _release_ok(a.context, "device allocation"):
        return 0
    if not raise_errors or _active_captures:
        # a destructor, or free() while a capture is in progress (then
        # queued on the context)
        _release_in_context(a.context, _REL_MEM_ASYNC if a.is_async else _REL_MEM,
                            <uintptr_t>a.ptr, a.stream)
        return 0
    if a.is_async and a.stream is not None:
        s = (<Stream>a.stream).stream
    with nogil:
        r = _push_if_needed(a.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            if a.is_async:
                r = api.cuMemFreeAsync(a.ptr, s)
            else:
                r = api.cuMemFree(a.ptr)
            _pop_if_pushed(pushed)
    if r != CUDA_SUCCESS:
        if raise_errors:
            raise _make_error(r, "cuMemFreeAsync" if a.is_async else "cuMemFree_v2")
        _release_failed("device allocation", r)
    return 0


cdef class DeviceAllocation:
    """Device memory from :func:`mem_alloc` (``cuMemAlloc``).

    ``int(alloc)`` is the device address. The memory is freed by
    :meth:`free` or when the object dies, in the context it came from.
    """

    def __init__(self):
        raise TypeError("device memory comes from mem_alloc() or mem_alloc_async()")

    def free(self):
        """Free the memory now (``cuMemFree``); later calls do nothing."""
        _free_allocation(self, True)

    def __int__(self):
        return self.ptr

    def __index__(self):
        return self.ptr

    @property
    def handle(self):
        return self.ptr

    def __repr__(self):
        return "<gpuarr.driver.DeviceAllocation 0x%x, %d bytes%s>" % (
            self.ptr, self.size, ", freed" if self.freed else "")

    def __dealloc__(self):
        _free_allocation(self, False)


cdef DeviceAllocation _new_allocation(CUdeviceptr p, size_t n, Context ctx):
    cdef DeviceAllocation a = DeviceAllocation.__new__(DeviceAllocation)
    a.ptr = p
    a.size = n
    a.context = ctx
    return a


def mem_alloc(size_t nbytes):
    """Allocate ``nbytes`` of device memory in the current context
    (``cuMemAlloc``).

    PyCUDA's ``mem_alloc``, except that 0 bytes are allowed.

    Parameters
    ----------
    nbytes : int
        Bytes to allocate.

    Returns
    -------
    DeviceAllocation
        Freed when it dies. ``nbytes == 0`` gives an allocation at address 0.

    Raises
    ------
    MemoryError
        ``CUDA_ERROR_OUT_OF_MEMORY`` (also a builtin ``MemoryError``).
    InvalidContextError
        When no context is current.
    """
    cdef CUdeviceptr p = 0
    cdef CUresult r
    ctx = _current_context()
    if ctx.deferred:
        _drain_deferred(ctx)
    if nbytes:
        with nogil:
            r = api.cuMemAlloc(&p, nbytes)
        check(r, "cuMemAlloc_v2")
    return _new_allocation(p, nbytes, ctx)


def mem_alloc_async(size_t nbytes, Stream stream=None):
    """Allocate from the device's stream-ordered pool (``cuMemAllocAsync``).

    The memory may be used in ``stream`` (and, after synchronization, anywhere)
    and is freed with ``cuMemFreeAsync`` on the same stream when it dies.

    Parameters
    ----------
    nbytes : int
        Bytes to allocate; 0 gives an allocation at address 0.
    stream : Stream, optional
        The stream the allocation is ordered on; None (default) is the
        legacy default stream. The allocation keeps it alive.

    Returns
    -------
    DeviceAllocation
        Usable once ``stream`` reaches the allocation.

    Raises
    ------
    NotSupportedError
        When the driver has no stream-ordered allocator.
    MemoryError
        ``CUDA_ERROR_OUT_OF_MEMORY``.
    InvalidContextError
        When no context is current.
    TypeError
        When ``stream`` is not a :class:`Stream` or None.
    """
    cdef CUdeviceptr p = 0
    cdef CUstream s = NULL
    ctx = _current_context()
    if ctx.deferred:
        _drain_deferred(ctx)
    if api.cuMemAllocAsync == NULL:
        raise _errors.NotSupportedError("this driver has no cuMemAllocAsync")
    if stream is not None:
        s = stream.stream
    if nbytes:
        check(api.cuMemAllocAsync(&p, nbytes, s), "cuMemAllocAsync")
    a = _new_allocation(p, nbytes, ctx)
    a.is_async = True
    a.stream = stream
    return a


def mem_get_info():
    """``(free, total)`` device memory in bytes (``cuMemGetInfo``)."""
    cdef size_t free_b = 0, total_b = 0
    _current_context()
    check(api.cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo_v2")
    return (free_b, total_b)


cdef CUdeviceptr _devptr(object obj) except? 0:
    """The device address an argument stands for."""
    t = type(obj)
    if t is DeviceAllocation:
        return (<DeviceAllocation>obj).ptr
    if t is int:
        if obj < 0:
            raise ValueError("a device address cannot be negative")
        return <CUdeviceptr>obj
    p = getattr(obj, "ptr", None)
    if p is not None and type(p) is int:
        return <CUdeviceptr>p
    g = getattr(obj, "gpudata", None)
    if g is not None:
        return _devptr(g)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return <CUdeviceptr>cai["data"][0]
    if isinstance(obj, (np.integer, int)):
        return <CUdeviceptr>int(obj)
    raise TypeError("%s is not a device pointer (expected a DeviceAllocation, "
                    "an int address, or an object with .gpudata or "
                    "__cuda_array_interface__)" % type(obj).__name__)
