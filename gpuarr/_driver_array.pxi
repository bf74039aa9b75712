# CUDA arrays; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: its own table of entry points (_ar, filled on first use by
# _ar_load), ArrayDescriptor and ArrayDescriptor3D, the Array class (made
# with cuArrayCreate / cuArray3DCreate, destroyed in its own context), the
# 1-D copies memcpy_htoa/atoh/dtoa/atod, the dtype <-> array_format mapping
# and np_to_array / matrix_to_array / gpuarray_to_array. Copies through
# Memcpy2D/3D are in _driver_memcpy.pxi, textures in _driver_texture.pxi.

ctypedef void* GA_CUarray

ctypedef struct GA_CUDA_ARRAY_DESCRIPTOR:
    size_t Width
    size_t Height
    int Format
    unsigned int NumChannels

ctypedef struct GA_CUDA_ARRAY3D_DESCRIPTOR:
    size_t Width
    size_t Height
    size_t Depth
    int Format
    unsigned int NumChannels
    unsigned int Flags

ctypedef struct ArrayAPI:
    CUresult (*cuArrayCreate)(GA_CUarray*, const GA_CUDA_ARRAY_DESCRIPTOR*) noexcept nogil
    CUresult (*cuArray3DCreate)(GA_CUarray*, const GA_CUDA_ARRAY3D_DESCRIPTOR*) noexcept nogil
    CUresult (*cuArrayGetDescriptor)(GA_CUDA_ARRAY_DESCRIPTOR*, GA_CUarray) noexcept nogil
    CUresult (*cuArray3DGetDescriptor)(GA_CUDA_ARRAY3D_DESCRIPTOR*, GA_CUarray) noexcept nogil
    CUresult (*cuArrayDestroy)(GA_CUarray) noexcept nogil
    CUresult (*cuMemcpyHtoA)(GA_CUarray, size_t, const void*, size_t) noexcept nogil
    CUresult (*cuMemcpyAtoH)(void*, GA_CUarray, size_t, size_t) noexcept nogil
    CUresult (*cuMemcpyDtoA)(GA_CUarray, size_t, CUdeviceptr, size_t) noexcept nogil
    CUresult (*cuMemcpyAtoD)(CUdeviceptr, GA_CUarray, size_t, size_t) noexcept nogil

cdef ArrayAPI _ar
cdef bint _ar_loaded = False


cdef int _ar_load() except -1:
    global _ar_loaded
    if _ar_loaded:
        return 0
    _ensure()
    (<void**>&_ar.cuArrayCreate)[0] = _get(b"cuArrayCreate_v2", None)
    (<void**>&_ar.cuArray3DCreate)[0] = _get(b"cuArray3DCreate_v2", None)
    (<void**>&_ar.cuArrayGetDescriptor)[0] = _get(b"cuArrayGetDescriptor_v2", None)
    (<void**>&_ar.cuArray3DGetDescriptor)[0] = _get(b"cuArray3DGetDescriptor_v2", None)
    (<void**>&_ar.cuArrayDestroy)[0] = _get(b"cuArrayDestroy", None)
    (<void**>&_ar.cuMemcpyHtoA)[0] = _get(b"cuMemcpyHtoA_v2", None)
    (<void**>&_ar.cuMemcpyAtoH)[0] = _get(b"cuMemcpyAtoH_v2", None)
    (<void**>&_ar.cuMemcpyDtoA)[0] = _get(b"cuMemcpyDtoA_v2", None)
    (<void**>&_ar.cuMemcpyAtoD)[0] = _get(b"cuMemcpyAtoD_v2", None)
    _ar_loaded = True
    return 0


# Bytes of one channel of each CUarray_format gpuarr knows the size of;
# other formats (block-compressed, YUV, ...) are passed through unchecked.
_FORMAT_BYTES = {0x01: 1, 0x02: 2, 0x03: 4, 0x08: 1, 0x09: 2, 0x0a: 4,
                 0x10: 2, 0x20: 4}
_DTYPE_FORMAT = {"u1": 0x01, "u2": 0x02, "u4": 0x03, "i1": 0x08, "i2": 0x09,
                 "i4": 0x0a, "f2": 0x10, "f4": 0x20}


def dtype_to_array_format(dtype):
    """The ``array_format`` of a numpy dtype (PyCUDA's name).

    8-, 16- and 32-bit signed and unsigned integers, float16 and float32
    have one.

    Parameters
    ----------
    dtype : dtype-like
        Anything :class:`numpy.dtype` takes.

    Returns
    -------
    array_format
        ``UNSIGNED_INT8`` ... ``FLOAT``: the format of one channel.

    Raises
    ------
    TypeError
        For any other dtype (float64, int64, bool, complex, structs), or
        one numpy does not know.
    """
    from gpuarr._enums import array_format
    dt = np.dtype(dtype)
    key = "%s%d" % (dt.kind, dt.itemsize) if dt.kind in "uif" else None
    if key not in _DTYPE_FORMAT:
        raise TypeError("dtype %s has no CUDA array format (use uint8/16/32, "
                        "int8/16/32, float16 or float32)" % dt)
    return array_format(_DTYPE_FORMAT[key])


def array_format_to_dtype(fmt):
    """The numpy dtype of one channel of an ``array_format`` (PyCUDA's
    name); ``ValueError`` for a format without one.

    The inverse of :func:`dtype_to_array_format`.

    Parameters
    ----------
    fmt : array_format or int
        A ``CUarray_format`` value.

    Returns
    -------
    numpy.dtype
        uint8/16/32, int8/16/32, float16 or float32.

    Raises
    ------
    ValueError
        For a format with no numpy dtype (the block-compressed ones, ...).
    """
    for key, f in _DTYPE_FORMAT.items():
        if f == int(fmt):
            return np.dtype(key)
    raise ValueError("array format %r has no numpy dtype" % (fmt,))


cdef int _check_channels(unsigned int n) except -1:
    if n not in (1, 2, 4):
        raise ValueError("num_channels must be 1, 2 or 4, not %d" % n)
    return 0


cdef class ArrayDescriptor:
    """A 1-D or 2-D CUDA array's shape and element type
    (``CUDA_ARRAY_DESCRIPTOR``; PyCUDA's class).

    Attributes
    ----------
    width : int
        Elements per row.
    height : int
        Rows; 0 for a 1-D array.
    format : array_format
        The type of each channel.
    num_channels : int
        1, 2 or 4 channels per element.
    """
    cdef public size_t width
    cdef public size_t height
    cdef int _format
    cdef public unsigned int num_channels

    def __init__(self, width=0, height=0, format=0x20, num_channels=1):
        self.width = width
        self.height = height
        self.format = format
        self.num_channels = num_channels

    @property
    def format(self):
        from gpuarr._enums import array_format
        try:
            return array_format(self._format)
        except ValueError:
            return self._format

    @format.setter
    def format(self, value):
        self._format = int(value)

    def __repr__(self):
        return "ArrayDescriptor(width=%d, height=%d, format=%r, num_channels=%d)" % (
            self.width, self.height, self.format, self.num_channels)


cdef class ArrayDescriptor3D:
    """A CUDA array's shape, element type and flags
    (``CUDA_ARRAY3D_DESCRIPTOR``; PyCUDA's class).

    Attributes
    ----------
    width, height, depth : int
        Elements per row, rows (0: 1-D) and slices (0: 1-D or 2-D); for a
        layered array ``depth`` is the number of layers, for a cubemap 6
        (times the layers).
    format : array_format
    num_channels : int
        1, 2 or 4.
    flags : int
        ``array3d_flags``: ``LAYERED``, ``SURFACE_LDST`` (needed by a
        :class:`SurfaceObject`), ``CUBEMAP``, ``TEXTURE_GATHER``.
    """
    cdef public size_t width
    cdef public size_t height
    cdef public size_t depth
    cdef int _format
    cdef public unsigned int num_channels
    cdef public unsigned int flags

    def __init__(self, width=0, height=0, depth=0, format=0x20, num_channels=1, flags=0):
        self.width = width
        self.height = height
        self.depth = depth
        self.format = format
        self.num_channels = num_channels
        self.flags = flags

    @property
    def format(self):
        from gpuarr._enums import array_format
        try:
            return array_format(self._format)
        except ValueError:
            return self._format

    @format.setter
    def format(self, value):
        self._format = int(value)

    def __repr__(self):
        return ("ArrayDescriptor3D(width=%d, height=%d, depth=%d, format=%r, "
                "num_channels=%d, flags=%d)" % (self.width, self.height, self.depth,
                                                self.format, self.num_channels, self.flags))


cdef class Array:
    """A CUDA array (``CUarray``): texture-laid-out memory for
    :class:`TextureObject` and :class:`SurfaceObject` (PyCUDA's class).

    ``Array(ArrayDescriptor)`` makes a 1-D or 2-D array (``cuArrayCreate``),
    ``Array(ArrayDescriptor3D)`` any kind (``cuArray3DCreate``): 1-D, 2-D,
    3-D, layered, cubemap, surface-capable. The array is destroyed by
    :meth:`free` or when it and every texture or surface over it have died,
    in the context it was made in.

    Raises
    ------
    TypeError
        ``descriptor`` not one of the two descriptor classes.
    ValueError
        ``width`` 0 or ``num_channels`` not 1, 2 or 4.
    """
    cdef GA_CUarray array
    cdef readonly Context context
    cdef readonly size_t width
    cdef readonly size_t height
    cdef readonly size_t depth
    cdef int _format
    cdef readonly unsigned int num_channels
    cdef readonly unsigned int flags
    cdef size_t elsize          # bytes per element; 0 when the format is unknown
    cdef bint freed

    def __cinit__(self, descriptor):
        cdef GA_CUDA_ARRAY_DESCRIPTOR d2
        cdef GA_CUDA_ARRAY3D_DESCRIPTOR d3
        cdef CUresult r
        if type(descriptor) is ArrayDescriptor:
            a = <ArrayDescriptor>descriptor
            self.width, self.height, self.depth = a.width, a.height, 0
            self._format, self.num_channels, self.flags = a._format, a.num_channels, 0
        elif type(descriptor) is ArrayDescriptor3D:
            b = <ArrayDescriptor3D>descriptor
            self.width, self.height, self.depth = b.width, b.height, b.depth
            self._format, self.num_channels, self.flags = b._format, b.num_channels, b.flags
        else:
            raise TypeError("Array needs an ArrayDescriptor or ArrayDescriptor3D, not %s"
                            % type(descriptor).__name__)
        if self.width == 0:
            raise ValueError("Array: descriptor width must be positive")
        _check_channels(self.num_channels)
        self.elsize = _FORMAT_BYTES.get(self._format, 0) * self.num_channels
        self.context = _current_context()
        _ar_load()
        if type(descriptor) is ArrayDescriptor:
            d2.Width, d2.Height = self.width, self.height
            d2.Format, d2.NumChannels = self._format, self.num_channels
            _need_entry(<void*>_ar.cuArrayCreate, "cuArrayCreate_v2", "3.2")
            with nogil:
                r = _ar.cuArrayCreate(&self.array, &d2)
            check(r, "cuArrayCreate_v2")
        else:
            d3.Width, d3.Height, d3.Depth = self.width, self.height, self.depth
            d3.Format, d3.NumChannels, d3.Flags = self._format, self.num_channels, self.flags
            _need_entry(<void*>_ar.cuArray3DCreate, "cuArray3DCreate_v2", "3.2")
            with nogil:
                r = _ar.cuArray3DCreate(&self.array, &d3)
            check(r, "cuArray3DCreate_v2")

    @property
    def handle(self):
        """The ``CUarray`` as an int."""
        return <uintptr_t>self.array

    @property
    def format(self):
        from gpuarr._enums import array_format
        try:
            return array_format(self._format)
        except ValueError:
            return self._format

    cdef int _live(self, str what) except -1:
        if self.freed:
            raise ValueError("%s: the Array was freed" % what)
        return 0

    def get_descriptor(self):
        """The array's :class:`ArrayDescriptor` as the driver reports it
        (``cuArrayGetDescriptor``); for 3-D, layered or flagged arrays use
        :meth:`get_descriptor_3d`, which reports depth and flags."""
        cdef GA_CUDA_ARRAY_DESCRIPTOR d
        self._live("get_descriptor")
        check(_ar.cuArrayGetDescriptor(&d, self.array), "cuArrayGetDescriptor_v2")
        return ArrayDescriptor(d.Width, d.Height, d.Format, d.NumChannels)

    def get_descriptor_3d(self):
        """The array's :class:`ArrayDescriptor3D` as the driver reports it
        (``cuArray3DGetDescriptor``)."""
        cdef GA_CUDA_ARRAY3D_DESCRIPTOR d
        self._live("get_descriptor_3d")
        check(_ar.cuArray3DGetDescriptor(&d, self.array), "cuArray3DGetDescriptor_v2")
        return ArrayDescriptor3D(d.Width, d.Height, d.Depth, d.Format, d.NumChannels, d.Flags)

    cdef int _release(self, bint raise_errors) except -1:
        cdef bint pushed = False
        cdef CUresult r
        if self.freed or self.array == NULL:
            self.freed = True
            return 0
        self.freed = True
        if not _release_ok(self.context, "CUDA array"):
            self.array = NULL
            return 0
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = _ar.cuArrayDestroy(self.array)
            _pop_if_pushed(pushed)
        self.array = NULL
        if r != CUDA_SUCCESS:
            if raise_errors:
                raise _make_error(r, "cuArrayDestroy")
            _release_failed("CUDA array", r)
        return 0

    def free(self):
        """Destroy the array now (``cuArrayDestroy``); later calls do
        nothing. Textures and surfaces over it must not be used after."""
        self._release(True)

    def __dealloc__(self):
        self._release(False)

    def __repr__(self):
        return "<gpuarr.driver.Array %dx%dx%d %r x%d%s>" % (
            self.width, self.height, self.depth, self.format, self.num_channels,
            ", freed" if self.freed else "")


cdef int _check_1d(Array ary, size_t index, size_t nbytes, str what) except -1:
    """The driver's HtoA/AtoH/DtoA/AtoD copy bytes of a 1-D array only:
    ``index`` is a byte offset into its one row."""
    ary._live(what)
    if ary.height != 0 or ary.depth != 0:
        raise ValueError("%s: ary is %dx%dx%d; these copies take 1-D arrays only "
                         "(use Memcpy2D or Memcpy3D)" % (what, ary.width, ary.height, ary.depth))
    if ary.elsize and <object>index + nbytes > <object>ary.width * ary.elsize:
        raise ValueError("%s: index %d + %d bytes exceed the array's %d bytes"
                         % (what, index, nbytes, ary.width * ary.elsize))
    return 0


def memcpy_htoa(Array ary not None, size_t index, src):
    """Copy the contiguous host buffer ``src`` into the 1-D array ``ary`` at
    byte offset ``index`` (``cuMemcpyHtoA``; PyCUDA's argument order).

    Parameters
    ----------
    ary : Array
        A 1-D CUDA array (height and depth 0), not freed.
    index : int
        Byte offset into the array's row (bytes, not elements).
    src : numpy.ndarray or buffer
        A C- or F-contiguous host buffer; ``src.nbytes`` bytes are copied.

    Raises
    ------
    ValueError
        ``ary`` not 1-D or freed, ``index + src.nbytes`` past its end, or
        ``src`` not contiguous.
    TypeError
        When ``src`` exposes no buffer.
    """
    cdef Py_buffer view
    cdef CUresult r
    _ar_load()
    _get_host_buffer(src, &view, False, "memcpy_htoa")
    try:
        _check_1d(ary, index, view.len, "memcpy_htoa")
        with nogil:
            r = _ar.cuMemcpyHtoA(ary.array, index, view.buf, view.len)
        check(r, "cuMemcpyHtoA_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_atoh(dest, Array ary not None, size_t index):
    """Copy ``dest.nbytes`` bytes from byte offset ``index`` of the 1-D array
    ``ary`` into the writable host buffer ``dest`` (``cuMemcpyAtoH``).

    Parameters
    ----------
    dest : numpy.ndarray or buffer
        A C- or F-contiguous writable host buffer, filled in place.
    ary : Array
        A 1-D CUDA array (height and depth 0), not freed.
    index : int
        Byte offset into the array's row (bytes, not elements).

    Raises
    ------
    ValueError
        ``ary`` not 1-D or freed, ``index + dest.nbytes`` past its end, or
        ``dest`` not contiguous or not writable.
    TypeError
        When ``dest`` exposes no buffer.
    """
    cdef Py_buffer view
    cdef CUresult r
    _ar_load()
    _get_host_buffer(dest, &view, True, "memcpy_atoh")
    try:
        _check_1d(ary, index, view.len, "memcpy_atoh")
        with nogil:
            r = _ar.cuMemcpyAtoH(view.buf, ary.array, index, view.len)
        check(r, "cuMemcpyAtoH_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtoa(Array ary not None, size_t index, src, size_t len):
    """Copy ``len`` bytes from device address ``src`` into the 1-D array
    ``ary`` at byte offset ``index`` (``cuMemcpyDtoA``).

    Parameters
    ----------
    ary : Array
        A 1-D CUDA array (height and depth 0), not freed.
    index : int
        Byte offset into the array's row (bytes, not elements).
    src : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    len : int
        Bytes to copy.

    Raises
    ------
    ValueError
        ``ary`` not 1-D or freed, ``index + len`` past its end, or ``len``
        more than ``src``'s :class:`DeviceAllocation` holds.
    TypeError
        When ``src`` is not a device pointer.
    """
    _ar_load()
    cdef CUdeviceptr s = _devptr(src)
    _check_fits(src, len, "memcpy_dtoa")
    _check_1d(ary, index, len, "memcpy_dtoa")
    check(_ar.cuMemcpyDtoA(ary.array, index, s, len), "cuMemcpyDtoA_v2")


def memcpy_atod(dest, Array ary not None, size_t index, size_t len):
    """Copy ``len`` bytes from byte offset ``index`` of the 1-D array ``ary``
    to device address ``dest`` (``cuMemcpyAtoD``).

    Parameters
    ----------
    dest : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``ptr``, ``gpudata`` or ``__cuda_array_interface__``.
    ary : Array
        A 1-D CUDA array (height and depth 0), not freed.
    index : int
        Byte offset into the array's row (bytes, not elements).
    len : int
        Bytes to copy.

    Raises
    ------
    ValueError
        ``ary`` not 1-D or freed, ``index + len`` past its end, or ``len``
        more than ``dest``'s :class:`DeviceAllocation` holds.
    TypeError
        When ``dest`` is not a device pointer.
    """
    _ar_load()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, len, "memcpy_atod")
    _check_1d(ary, index, len, "memcpy_atod")
    check(_ar.cuMemcpyAtoD(d, ary.array, index, len), "cuMemcpyAtoD_v2")


def _format_of(dtype, bint double_hack):
    """(format, channels) for an array of ``dtype``; float64 and complex as
    32-bit int pairs (PyCUDA's convention) when ``double_hack``."""
    dt = np.dtype(dtype)
    if double_hack:
        if dt == np.float64 or dt == np.complex64:
            return 0x0a, 2
        if dt == np.complex128:
            return 0x0a, 4
    return int(dtype_to_array_format(dt)), 1


def _array_from(src, bint on_host, shape, dtype, order, bint surface, bint double_hack, str what):
    if order not in ("C", "F"):
        raise ValueError("%s: order must be 'C' or 'F', not %r" % (what, order))
    shape = tuple(int(n) for n in shape)
    if order == "F":
        shape = shape[::-1]      # an F-ordered (w, h) is a C-ordered (h, w)
    nd = len(shape)
    if nd not in (1, 2, 3):
        raise ValueError("%s: CUDA arrays have 1 to 3 dimensions, got shape %r" % (what, shape))
    if 0 in shape:
        raise ValueError("%s: a CUDA array cannot be empty (shape %r)" % (what, shape))
    fmt, nch = _format_of(dtype, double_hack)
    w = shape[nd - 1]
    h = shape[nd - 2] if nd >= 2 else 0
    d = shape[0] if nd == 3 else 0
    if nd == 3 or surface:
        desc = ArrayDescriptor3D(w, h, d, fmt, nch, 2 if surface else 0)
    else:
        desc = ArrayDescriptor(w, h, fmt, nch)
    ary = Array(desc)
    row = w * np.dtype(dtype).itemsize
    copy = Memcpy3D() if nd == 3 else Memcpy2D()
    if on_host:
        copy.set_src_host(src)
    else:
        copy.set_src_device(src)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = row
    copy.height = max(h, 1)
    if nd == 3:
        copy.src_height = h
        copy.depth = d
    copy()
    return ary


def np_to_array(nparray, order, allowSurfaceBind=False):
    """A new :class:`Array` holding a numpy array's data (PyCUDA's name).

    Parameters
    ----------
    nparray : numpy.ndarray
        1-, 2- or 3-D, of a dtype with an ``array_format`` (see
        :func:`dtype_to_array_format`), or float64/complex64 (two int32
        channels) or complex128 (four), which kernels read as ``int2`` /
        ``int4`` and rebuild with ``__hiloint2double`` (PyCUDA's convention).
    order : {'C', 'F'}
        'C': the last axis is x (the array's width), shape ``(h, w)`` or
        ``(d, h, w)``; 'F': the first axis is x, shape ``(w, h)`` or
        ``(w, h, d)``. The data is copied to that order first if needed.
    allowSurfaceBind : bool
        Make the array with ``SURFACE_LDST`` (for :class:`SurfaceObject`).
        A 2-D array stays a plain 2-D array (PyCUDA makes a one-layer
        layered array, for surface references, which CUDA 12 removed).

    Returns
    -------
    Array
        Copied with :class:`Memcpy2D` (1-D, 2-D) or :class:`Memcpy3D`.

    Raises
    ------
    ValueError
        ``order`` not 'C'/'F', 0 or more than 3 dimensions, an empty array.
    TypeError
        A dtype without an array format.
    """
    a = np.asarray(nparray, order=order if order in ("C", "F") else None)
    return _array_from(a, True, a.shape, a.dtype, order, allowSurfaceBind, True, "np_to_array")


def matrix_to_array(matrix, order="C", allow_double_hack=False):
    """A 2-D :class:`Array` from a 2-D numpy array (PyCUDA's name).

    ``order`` as in :func:`np_to_array` ('F': ``matrix.shape`` is
    ``(w, h)``). float64 needs ``allow_double_hack=True`` (two int32
    channels), else ``TypeError``; ``ValueError`` for a matrix not 2-D.

    Parameters
    ----------
    matrix : numpy.ndarray
        2-D, of a dtype with an ``array_format`` (see
        :func:`dtype_to_array_format`), or float64 with
        ``allow_double_hack``.
    order : {'C', 'F'}, optional
        'C' (default): shape ``(h, w)``; 'F': shape ``(w, h)``.
    allow_double_hack : bool, optional
        Store float64 (and complex64) as two int32 channels, complex128 as
        four, which kernels rebuild with ``__hiloint2double`` (PyCUDA's
        convention). Default False.

    Returns
    -------
    Array
        A new 2-D array holding a copy of ``matrix`` (:class:`Memcpy2D`).

    Raises
    ------
    ValueError
        ``matrix`` not 2-D or empty, ``order`` not 'C'/'F'.
    TypeError
        A dtype without an array format (complex128, or float64 without
        ``allow_double_hack``).
    """
    a = np.asarray(matrix, order=order if order in ("C", "F") else None)
    if a.ndim != 2:
        raise ValueError("matrix_to_array: matrix must be 2-D, got shape %r" % (a.shape,))
    if a.dtype != np.float64 and a.dtype.kind == "c":
        raise TypeError("matrix_to_array: dtype %s has no CUDA array format" % a.dtype)
    return _array_from(a, True, a.shape, a.dtype, order, False, allow_double_hack,
                       "matrix_to_array")


def gpuarray_to_array(gpuarray, order, allowSurfaceBind=False):
    """:func:`np_to_array` of a contiguous GPUArray (device to array copy;
    PyCUDA's name). ``ValueError`` when ``gpuarray`` is not contiguous in
    ``order``.

    Parameters
    ----------
    gpuarray : GPUArray
        1-, 2- or 3-D, contiguous in ``order``, of a dtype as in
        :func:`np_to_array` (float64 and complex become int32 channels).
    order : {'C', 'F'}
        As in :func:`np_to_array`: 'C' has the last axis as x (width), 'F'
        the first.
    allowSurfaceBind : bool, optional
        Make the array with ``SURFACE_LDST`` (for :class:`SurfaceObject`).
        Default False.

    Returns
    -------
    Array
        A new CUDA array holding a copy of ``gpuarray`` (:class:`Memcpy2D`
        or :class:`Memcpy3D` from device memory).

    Raises
    ------
    ValueError
        ``gpuarray`` not contiguous in ``order``, ``order`` not 'C'/'F',
        0 or more than 3 dimensions, an empty array.
    TypeError
        A dtype without an array format.
    """
    flags = gpuarray.flags
    if order == "C" and not flags.c_contiguous or order == "F" and not flags.f_contiguous:
        raise ValueError("gpuarray_to_array: the array is not %s-contiguous" % order)
    return _array_from(gpuarray, False, gpuarray.shape, gpuarray.dtype, order,
                       allowSurfaceBind, True, "gpuarray_to_array")
