# Page-locked host memory; part of gpuarr/_driver.pyx, which includes this
# file.
#
# Owns: HostAllocation (cuMemHostAlloc or cuMemHostRegister memory, seen
# through numpy arrays) and the pagelocked_* and register_host_memory
# functions that make those arrays.

cdef class HostAllocation:
    """Page-locked host memory (``cuMemHostAlloc``) or host memory registered
    with the driver (``cuMemHostRegister``), seen through numpy arrays whose
    ``base`` chain ends here. Released when the last array dies."""
    cdef void* ptr
    cdef size_t size
    cdef readonly Context context
    cdef bint registered
    cdef object owner
    cdef Py_ssize_t shape0
    cdef Py_ssize_t stride0

    def __init__(self):
        raise TypeError("use pagelocked_empty() or register_host_memory()")

    def __getbuffer__(self, Py_buffer* buf, int flags):
        self.shape0 = self.size
        self.stride0 = 1
        buf.buf = self.ptr
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
        """The device address of this memory (``cuMemHostGetDevicePointer``);
        needs the memory to have been mapped (``host_alloc_flags.DEVICEMAP``)."""
        cdef CUdeviceptr d = 0
        check(api.cuMemHostGetDevicePointer(&d, self.ptr, 0), "cuMemHostGetDevicePointer_v2")
        return d

    def __dealloc__(self):
        if self.ptr == NULL or not _release_ok(self.context, "page-locked host allocation"):
            return
        _release_in_context(self.context,
                            _REL_HOST_REGISTERED if self.registered else _REL_HOST,
                            <uintptr_t>self.ptr, None)
        self.ptr = NULL


cdef tuple _host_shape(object shape):
    """``(shape tuple, element count)`` of a numpy-style shape argument."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    count = 1
    for s in shape:
        if s < 0:
            raise ValueError("negative dimensions are not allowed")
        count *= int(s)
    return shape, count


cdef str _like_order(object array):
    return "F" if (array.flags.f_contiguous and not array.flags.c_contiguous) else "C"


def pagelocked_empty(shape, dtype, order="C", unsigned int mem_flags=0):
    """A numpy array in page-locked host memory (``cuMemHostAlloc``).

    Parameters
    ----------
    shape : int or tuple of int
    dtype : numpy dtype
    order : {'C', 'F'}
    mem_flags : int
        ``CU_MEMHOSTALLOC_*`` flags (PORTABLE=1, DEVICEMAP=2, WRITECOMBINED=4).

    Returns
    -------
    numpy.ndarray
        Uninitialized; the memory is freed when the array (and its views) die.
    """
    cdef void* p = NULL
    cdef CUresult r
    dt = np.dtype(dtype)
    shape, count = _host_shape(shape)
    cdef size_t nbytes = max(count * dt.itemsize, 1)
    ctx = _current_context()
    with nogil:
        r = api.cuMemHostAlloc(&p, nbytes, mem_flags)
    check(r, "cuMemHostAlloc")
    cdef HostAllocation h = HostAllocation.__new__(HostAllocation)
    h.ptr = p
    h.size = nbytes
    h.context = ctx
    return np.ndarray(shape, dt, buffer=h, order=order)


def pagelocked_zeros(shape, dtype, order="C", unsigned int mem_flags=0):
    """:func:`pagelocked_empty` filled with zeros (PyCUDA's
    ``pagelocked_zeros``).

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like
        The array's dtype.
    order : {'C', 'F'}, optional
        Memory order (default 'C').
    mem_flags : int, optional
        ``host_alloc_flags`` for ``cuMemHostAlloc`` (PORTABLE=1,
        DEVICEMAP=2, WRITECOMBINED=4); default 0.

    Returns
    -------
    numpy.ndarray
        Zeros in page-locked memory, freed when the array (and its views)
        die.

    Raises
    ------
    ValueError
        For a negative dimension.
    MemoryError
        When page-locked memory runs out.
    InvalidContextError
        When no context is current.
    """
    a = pagelocked_empty(shape, dtype, order, mem_flags)
    a.fill(0)
    return a


def pagelocked_empty_like(array, unsigned int mem_flags=0):
    """:func:`pagelocked_empty` with the shape, dtype and order of ``array``
    (PyCUDA's ``pagelocked_empty_like``).

    Parameters
    ----------
    array : numpy.ndarray
        Gives the shape, dtype and order ('F' when only F-contiguous, else
        'C').
    mem_flags : int, optional
        ``host_alloc_flags`` for ``cuMemHostAlloc``; default 0.

    Returns
    -------
    numpy.ndarray
        Uninitialized, in page-locked memory.

    Raises
    ------
    MemoryError
        When page-locked memory runs out.
    InvalidContextError
        When no context is current.
    """
    return pagelocked_empty(array.shape, array.dtype, _like_order(array), mem_flags)


def pagelocked_zeros_like(array, unsigned int mem_flags=0):
    """:func:`pagelocked_zeros` with the shape, dtype and order of ``array``
    (PyCUDA's ``pagelocked_zeros_like``).

    Parameters
    ----------
    array : numpy.ndarray
        Gives the shape, dtype and order ('F' when only F-contiguous, else
        'C').
    mem_flags : int, optional
        ``host_alloc_flags`` for ``cuMemHostAlloc``; default 0.

    Returns
    -------
    numpy.ndarray
        Zeros in page-locked memory.

    Raises
    ------
    MemoryError
        When page-locked memory runs out.
    InvalidContextError
        When no context is current.
    """
    a = pagelocked_empty_like(array, mem_flags)
    a.fill(0)
    return a


def register_host_memory(ary, unsigned int flags=0):
    """Page-lock an existing contiguous numpy array (``cuMemHostRegister``).

    PyCUDA's ``register_host_memory``; :func:`aligned_empty` makes a
    page-aligned array for it.

    Parameters
    ----------
    ary : numpy.ndarray
        A non-empty C- or F-contiguous array; it is kept alive by the
        returned view.
    flags : int, optional
        ``mem_host_register_flags`` (PORTABLE=1, DEVICEMAP=2, IOMEMORY=4,
        READ_ONLY=8); default 0.

    Returns
    -------
    numpy.ndarray
        A view of ``ary``; the memory stays registered until this view and
        its descendants die (then ``cuMemHostUnregister``).

    Raises
    ------
    TypeError
        When ``ary`` is not a numpy array.
    ValueError
        When ``ary`` is empty or not contiguous.
    LogicError
        ``CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`` for memory that is
        already registered, ``CUDA_ERROR_INVALID_VALUE`` for flags the
        driver refuses.
    InvalidContextError
        When no context is current.
    """
    cdef cnp.ndarray a = ary
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        raise ValueError("register_host_memory needs a contiguous array")
    if a.nbytes == 0:
        raise ValueError("cannot register an empty array")
    ctx = _current_context()
    p = <void*>cnp.PyArray_DATA(a)
    check(api.cuMemHostRegister(p, a.nbytes, flags), "cuMemHostRegister_v2")
    cdef HostAllocation h = HostAllocation.__new__(HostAllocation)
    h.ptr = p
    h.size = a.nbytes
    h.context = ctx
    h.registered = True
    h.owner = ary
    return np.ndarray(ary.shape, ary.dtype, buffer=h, strides=ary.strides)
