# Devices; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the Device class (count, name, attributes, total memory, the
# default memory pool), the two ways a context is made from a device
# (retain_primary_context, make_context), and the primary context kept for
# ``with device:`` (get_primary_context).

# The MemoryPool set with Device.set_mem_pool, per device ordinal: kept
# alive while the driver draws from it.
_chosen_pools = {}
# Device.get_primary_context's contexts, by device handle, kept for the life
# of the process (released, if at all, by the interpreter's teardown)
_kept_primary = {}
_kept_lock = threading.Lock()


cdef Device _device_from_handle(CUdevice h):
    cdef Device d = Device.__new__(Device)
    d.handle = h
    return d


# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
# __init__ embeds no signature of its own, which would come first and hide it.
cdef class Device:
    """Device(ordinal)
--

A CUDA device (``CUdevice``).

    PyCUDA's ``Device``; ``Device(n)`` is the handle of ``cuDeviceGet``,
    made without a context.

    Parameters
    ----------
    ordinal : int
        The device number, from 0 to ``Device.count() - 1``.

    Raises
    ------
    LogicError
        ``CUDA_ERROR_INVALID_DEVICE`` for an ordinal with no device.
    DriverNotFoundError
        When ``libcuda.so.1`` cannot be loaded.
    """

    @cython.embedsignature(False)
    def __init__(self, int ordinal):
        _ensure()
        check(api.cuDeviceGet(&self.handle, ordinal), "cuDeviceGet")

    @staticmethod
    def count():
        """Number of CUDA devices (``cuDeviceGetCount``)."""
        cdef int n = 0
        _ensure()
        check(api.cuDeviceGetCount(&n), "cuDeviceGetCount")
        return n

    def name(self):
        """The device's name, such as ``'NVIDIA H200'``."""
        cdef char buf[256]
        check(api.cuDeviceGetName(buf, 256, self.handle), "cuDeviceGetName")
        return buf.decode(errors="replace")

    def get_attribute(self, attr):
        """Value of one ``CUdevice_attribute`` (``cuDeviceGetAttribute``).

        Parameters
        ----------
        attr : device_attribute or int
        """
        cdef int v = 0
        check(api.cuDeviceGetAttribute(&v, int(attr), self.handle), "cuDeviceGetAttribute")
        return v

    def get_attributes(self):
        """Every attribute the driver reports, as ``{device_attribute: int}``."""
        from gpuarr._enums import device_attribute
        cdef int v = 0
        out = {}
        for a in device_attribute:
            if api.cuDeviceGetAttribute(&v, int(a), self.handle) == CUDA_SUCCESS:
                out[a] = v
        return out

    def compute_capability(self):
        """``(major, minor)``, such as ``(9, 0)`` for an H200."""
        return (self.get_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                self.get_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))

    def total_memory(self):
        """Device memory in bytes (``cuDeviceTotalMem``)."""
        cdef size_t n = 0
        check(api.cuDeviceTotalMem(&n, self.handle), "cuDeviceTotalMem_v2")
        return n

    def get_default_mem_pool(self):
        """The device's default stream-ordered pool (``cuDeviceGetDefaultMemPool``).

        Returns
        -------
        MemoryPool
            The pool ``cuMemAllocAsync`` draws from (see
            :func:`mem_alloc_async`). The driver owns it; it is shared by
            every user of the device in the process.

        Raises
        ------
        NotSupportedError
            When the driver has no stream-ordered allocator.
        """
        cdef CUmemoryPool pool = NULL
        if api.cuDeviceGetDefaultMemPool == NULL or api.cuMemPoolSetAttribute == NULL \
                or api.cuMemPoolGetAttribute == NULL or api.cuMemPoolTrimTo == NULL:
            raise _errors.NotSupportedError("this driver has no stream-ordered memory pools")
        check(api.cuDeviceGetDefaultMemPool(&pool, self.handle), "cuDeviceGetDefaultMemPool")
        cdef MemoryPool mp = MemoryPool.__new__(MemoryPool)
        mp.pool = pool
        mp.device = self
        return mp

    def get_mem_pool(self):
        """The pool ``cuMemAllocAsync`` draws from on this device now
        (``cuDeviceGetMemPool``): the default pool, or the one
        :meth:`set_mem_pool` chose (then the same object)."""
        cdef CUmemoryPool pool = NULL
        _load_memkinds()
        _need(<void*>_mk.cuDeviceGetMemPool, "cuDeviceGetMemPool", "11.2")
        check(_mk.cuDeviceGetMemPool(&pool, self.handle), "cuDeviceGetMemPool")
        chosen = _chosen_pools.get(self.handle)
        if chosen is not None and (<MemoryPool>chosen).pool == pool:
            return chosen
        cdef MemoryPool mp = MemoryPool.__new__(MemoryPool)
        mp.pool = pool
        mp.device = self
        return mp

    def set_mem_pool(self, MemoryPool pool not None):
        """Make ``pool`` (of this device) the one ``cuMemAllocAsync`` draws
        from here (``cuDeviceSetMemPool``), so gpuarr's default array pool
        and :func:`mem_alloc_async` use it. The device keeps the object
        alive until another pool is set.

        Raises
        ------
        ValueError
            For a pool of another device.
        """
        if pool.device is not None and pool.device != self:
            raise ValueError("pool belongs to %r, not %r" % (pool.device, self))
        _load_memkinds()
        _need(<void*>_mk.cuDeviceSetMemPool, "cuDeviceSetMemPool", "11.2")
        check(_mk.cuDeviceSetMemPool(self.handle, pool.pool), "cuDeviceSetMemPool")
        _chosen_pools[self.handle] = pool

    def pci_bus_id(self):
        """PCI bus id string, such as ``'0000:1B:00.0'``."""
        cdef char buf[64]
        check(api.cuDeviceGetPCIBusId(buf, 64, self.handle), "cuDeviceGetPCIBusId")
        return buf.decode()

    def retain_primary_context(self):
        """Retain the device's primary context (``cuDevicePrimaryCtxRetain``).

        The primary context is the one the CUDA runtime, CuPy and PyTorch use,
        so objects made in it can be shared with them. The returned
        :class:`Context` is not made current: call ``push()``. It is released
        (``cuDevicePrimaryCtxRelease``) by ``detach()`` or when it dies.
        While a :class:`Context` of it is alive (``gpuarr.autoinit``'s, say)
        that same object is returned, holding one more retain, which one
        ``detach()`` gives back without popping or invalidating it.
        """
        cdef CUcontext c = NULL
        check(api.cuDevicePrimaryCtxRetain(&c, self.handle), "cuDevicePrimaryCtxRetain")
        return _new_context(c, self, True, True)

    def get_primary_context(self):
        """This device's primary context, retained once and kept for the
        life of the process: the context ``with device:`` makes current
        and :meth:`gpuarr.GPUArray.to_device` allocates in (a gpuarr
        addition; PyCUDA has none).

        Returns
        -------
        Context
            The same object at every call while it is valid (the one
            :meth:`retain_primary_context` returns meanwhile, each of whose
            extra retains ``detach()`` gives back).
        """
        with _kept_lock:
            ctx = _kept_primary.get(self.handle)
            if ctx is None or not (<Context>ctx).valid:
                ctx = self.retain_primary_context()
                _kept_primary[self.handle] = ctx
        return ctx

    def __enter__(self):
        """``with device:``: make the device's primary context
        (:meth:`get_primary_context`) current for the block, as CuPy's
        ``with cupy.cuda.Device(n):`` switches devices.

        Returns
        -------
        Device
            ``self``.
        """
        self.get_primary_context().push()
        return self

    def __exit__(self, exc_type, exc, tb):
        """Pop the context ``__enter__`` pushed, making current again the
        one that was.

        Returns
        -------
        bool
            False: exceptions propagate.
        """
        Context.pop()
        return False

    def make_context(self, unsigned int flags=0):
        """Create a new context on this device and make it current
        (``cuCtxCreate``). It is destroyed by ``detach()`` or when it dies."""
        cdef CUcontext c = NULL
        if api.cuCtxCreate_v4 != NULL:
            check(api.cuCtxCreate_v4(&c, NULL, flags, self.handle), "cuCtxCreate_v4")
        else:
            check(api.cuCtxCreate(&c, flags, self.handle), "cuCtxCreate_v2")
        ctx = _new_context(c, self, False, True)
        _stack().append(ctx)      # cuCtxCreate made it current
        return ctx

    def can_access_peer(self, Device peer not None):
        """Whether contexts of this device can map memory of ``peer``
        (``cuDeviceCanAccessPeer``; PyCUDA's ``Device.can_access_peer``).
        False for the device itself: peer access is between two devices.

        Raises
        ------
        TypeError
            When ``peer`` is not a :class:`Device`.
        """
        return _can_access_peer(self.handle, peer.handle)

    def __eq__(self, other):
        return isinstance(other, Device) and (<Device>other).handle == self.handle

    def __hash__(self):
        return hash(("Device", self.handle))

    def __repr__(self):
        return "<gpuarr.driver.Device %d>" % self.handle

    def __reduce__(self):
        return (Device, (self.handle,))
