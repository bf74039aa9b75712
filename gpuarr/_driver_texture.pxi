# Texture and surface objects; part of gpuarr/_driver.pyx, which includes
# this file (after _driver_array.pxi).
#
# Owns: its own table of entry points (_tx, filled on first use by
# _tx_load), CUDA_RESOURCE_DESC / CUDA_TEXTURE_DESC /
# CUDA_RESOURCE_VIEW_DESC, ResourceViewDescriptor, TextureObject (over an
# Array, linear or pitched 2-D memory) and SurfaceObject (over an Array made
# with SURFACE_LDST), the checks of their arguments against the device's
# texture alignments, and their release in their own context. Kernels take
# both as 8-byte arguments (the branch in Function._pack).

ctypedef unsigned long long GA_CUtexObject

ctypedef struct GA_RES_ARRAY:
    GA_CUarray hArray

ctypedef struct GA_RES_MIPMAP:
    void* hMipmappedArray

ctypedef struct GA_RES_LINEAR:
    CUdeviceptr devPtr
    int format
    unsigned int numChannels
    size_t sizeInBytes

ctypedef struct GA_RES_PITCH2D:
    CUdeviceptr devPtr
    int format
    unsigned int numChannels
    size_t width
    size_t height
    size_t pitchInBytes

ctypedef union GA_RES_UNION:
    GA_RES_ARRAY array
    GA_RES_MIPMAP mipmap
    GA_RES_LINEAR linear
    GA_RES_PITCH2D pitch2D
    int reserved[32]

ctypedef struct GA_CUDA_RESOURCE_DESC:
    int resType
    GA_RES_UNION res
    unsigned int flags

ctypedef struct GA_CUDA_TEXTURE_DESC:
    int addressMode[3]
    int filterMode
    unsigned int flags
    unsigned int maxAnisotropy
    int mipmapFilterMode
    float mipmapLevelBias
    float minMipmapLevelClamp
    float maxMipmapLevelClamp
    float borderColor[4]
    int reserved[12]

ctypedef struct GA_CUDA_RESOURCE_VIEW_DESC:
    int format
    size_t width
    size_t height
    size_t depth
    unsigned int firstMipmapLevel
    unsigned int lastMipmapLevel
    unsigned int firstLayer
    unsigned int lastLayer
    unsigned int reserved[16]

ctypedef struct TextureAPI:
    CUresult (*cuTexObjectCreate)(GA_CUtexObject*, const GA_CUDA_RESOURCE_DESC*,
                                  const GA_CUDA_TEXTURE_DESC*,
                                  const GA_CUDA_RESOURCE_VIEW_DESC*) noexcept nogil
    CUresult (*cuTexObjectDestroy)(GA_CUtexObject) noexcept nogil
    CUresult (*cuSurfObjectCreate)(GA_CUtexObject*, const GA_CUDA_RESOURCE_DESC*) noexcept nogil
    CUresult (*cuSurfObjectDestroy)(GA_CUtexObject) noexcept nogil

cdef TextureAPI _tx
cdef bint _tx_loaded = False

cdef enum:
    _RES_ARRAY = 0
    _RES_LINEAR = 2
    _RES_PITCH2D = 3
    _TRSF_READ_AS_INTEGER = 0x01
    _TRSF_NORMALIZED_COORDINATES = 0x02
    _TRSF_SRGB = 0x10

_INT_FORMATS = (0x01, 0x02, 0x03, 0x08, 0x09, 0x0a)
_INT32_FORMATS = (0x03, 0x0a)
# (TEXTURE_ALIGNMENT, TEXTURE_PITCH_ALIGNMENT) by device ordinal
_tex_alignments = {}


cdef int _tx_load() except -1:
    global _tx_loaded
    if _tx_loaded:
        return 0
    _ensure()
    (<void**>&_tx.cuTexObjectCreate)[0] = _get(b"cuTexObjectCreate", None)
    (<void**>&_tx.cuTexObjectDestroy)[0] = _get(b"cuTexObjectDestroy", None)
    (<void**>&_tx.cuSurfObjectCreate)[0] = _get(b"cuSurfObjectCreate", None)
    (<void**>&_tx.cuSurfObjectDestroy)[0] = _get(b"cuSurfObjectDestroy", None)
    _tx_loaded = True
    return 0


cdef tuple _alignments():
    """The current device's (TEXTURE_ALIGNMENT, TEXTURE_PITCH_ALIGNMENT)
    in bytes (``cuDeviceGetAttribute`` 14 and 51), asked once per device."""
    cdef CUdevice dev = 0
    cdef int a = 0, b = 0
    check(api.cuCtxGetDevice(&dev), "cuCtxGetDevice")
    got = _tex_alignments.get(dev)
    if got is None:
        check(api.cuDeviceGetAttribute(&a, 14, dev), "cuDeviceGetAttribute")
        check(api.cuDeviceGetAttribute(&b, 51, dev), "cuDeviceGetAttribute")
        got = _tex_alignments[dev] = (max(a, 1), max(b, 1))
    return got


cdef class ResourceViewDescriptor:
    """How a texture sees an array (``CUDA_RESOURCE_VIEW_DESC``): a
    ``resource_view_format`` (``NONE``: the array's own), the view's
    ``width``/``height``/``depth`` in elements, and the mipmap levels and
    layers it spans (``first_layer``..``last_layer`` of a layered array)."""
    cdef public int format
    cdef public size_t width
    cdef public size_t height
    cdef public size_t depth
    cdef public unsigned int first_mipmap_level
    cdef public unsigned int last_mipmap_level
    cdef public unsigned int first_layer
    cdef public unsigned int last_layer

    def __init__(self, format=0, width=0, height=0, depth=0, first_mipmap_level=0,
                 last_mipmap_level=0, first_layer=0, last_layer=0):
        self.format = int(format)
        self.width, self.height, self.depth = width, height, depth
        self.first_mipmap_level, self.last_mipmap_level = first_mipmap_level, last_mipmap_level
        self.first_layer, self.last_layer = first_layer, last_layer


cdef class _TexHandle:
    """What TextureObject and SurfaceObject share: the 8-byte object, the
    resource it keeps alive, its context."""
    cdef GA_CUtexObject obj
    cdef readonly object resource
    cdef readonly Context context
    cdef bint surface

    @property
    def handle(self):
        """The ``cudaTextureObject_t`` / ``cudaSurfaceObject_t`` value."""
        return self.obj

    def __int__(self):
        return self.obj

    def __index__(self):
        return self.obj

    cdef int _release(self, bint raise_errors) except -1:
        cdef bint pushed = False
        cdef CUresult r
        what = "surface object" if self.surface else "texture object"
        if self.obj == 0:
            return 0
        if not _release_ok(self.context, what):
            self.obj = 0
            return 0
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            if self.surface:
                r = _tx.cuSurfObjectDestroy(self.obj)
            else:
                r = _tx.cuTexObjectDestroy(self.obj)
            _pop_if_pushed(pushed)
        self.obj = 0
        self.resource = None
        if r != CUDA_SUCCESS:
            if raise_errors:
                raise _make_error(r, "cuSurfObjectDestroy" if self.surface else "cuTexObjectDestroy")
            _release_failed(what, r)
        return 0

    def destroy(self):
        """Destroy the object now (``cuTexObjectDestroy`` /
        ``cuSurfObjectDestroy``); later calls do nothing."""
        self._release(True)

    def __dealloc__(self):
        self._release(False)

    def __repr__(self):
        return "<gpuarr.driver.%s 0x%x>" % (type(self).__name__, self.obj)


cdef int _format_channels(object dtype, object format, object num_channels,
                          int* fmt, unsigned int* nch) except -1:
    if dtype is not None and format is not None:
        raise TypeError("TextureObject: give dtype or format, not both")
    if dtype is None and format is None:
        raise TypeError("TextureObject over device memory needs dtype= or format=")
    nch[0] = 1 if num_channels is None else num_channels
    _check_channels(nch[0])
    fmt[0] = int(dtype_to_array_format(dtype)) if dtype is not None else int(format)
    return 0


# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
# __init__ embeds no signature of its own, which would come first and hide it.
# One line: Sphinx takes each line of a longer one for a signature of its own.
cdef class TextureObject(_TexHandle):
    """TextureObject(resource, dtype=None, *, format=None, num_channels=None, nbytes=None, width=None, height=None, pitch=None, address_mode=1, filter_mode=0, normalized_coordinates=False, read_mode=0, border_color=None, srgb=False, max_anisotropy=0, view=None)
--

A texture object (``cuTexObjectCreate``): sampled, cached reads of an
    :class:`Array`, of linear device memory (``tex1Dfetch``) or of pitched
    2-D device memory (``tex2D``). Kernels take it as a
    ``cudaTextureObject_t`` argument; ``int(tex)`` is that value. The
    resource is kept alive while the texture is; the texture is destroyed
    by :meth:`destroy` or when it dies, in its context.

    Parameters
    ----------
    resource : Array, DeviceAllocation or device address
        The memory read. Device memory must start at a multiple of the
        device's ``TEXTURE_ALIGNMENT``.
    dtype : dtype-like, optional
        Device memory only: the element type (see
        :func:`dtype_to_array_format`); or ``format=`` an ``array_format``.
    format : array_format, optional
        Device memory only: the element type as an ``array_format``,
        instead of ``dtype``.
    num_channels : {1, 2, 4}, optional
        Device memory only: channels per element (default 1).
    nbytes : int, optional
        Linear memory: bytes the texture spans (default: the whole
        DeviceAllocation; needed for a bare address).
    width, height, pitch : int, optional
        Pitched 2-D memory (``CU_RESOURCE_TYPE_PITCH2D``): elements per
        row, rows and the bytes between rows (a multiple of
        ``TEXTURE_PITCH_ALIGNMENT``; :func:`mem_alloc_pitch` gives one).
    address_mode : address_mode or sequence of up to 3, optional
        Per dimension (one value: all); default ``CLAMP``. ``WRAP`` and
        ``MIRROR`` need ``normalized_coordinates``.
    filter_mode : filter_mode, optional
        ``POINT`` (default) or ``LINEAR`` (interpolated; needs a float
        format, or an 8/16-bit integer format read as ``NORMALIZED_FLOAT``).
    normalized_coordinates : bool, optional
        Coordinates in [0, 1) instead of [0, size); default False.
    read_mode : texture_read_mode, optional
        ``ELEMENT_TYPE`` (default: integers read as integers) or
        ``NORMALIZED_FLOAT`` (8/16-bit integers read as floats in [0, 1],
        signed ones in [-1, 1]).
    border_color : sequence of 4 float, optional
        What ``BORDER`` returns outside the texture (default zeros).
    srgb : bool, optional
        ``CU_TRSF_SRGB``: read 8-bit data as sRGB; default False.
    max_anisotropy : int, optional
        The anisotropy ratio (default 0; 0 or 1: off).
    view : ResourceViewDescriptor, optional
        Array resources only.

    Raises
    ------
    ValueError
        Memory too small for ``nbytes`` or the pitched region (naming the
        argument), a pitch or address the device's alignment forbids, a
        ``width`` wider than ``pitch``, an address mode, filter mode or
        channel count that is not allowed, a view over device memory, a
        freed Array.
    TypeError
        A resource of another kind, a dtype without an array format, both
        or neither of ``dtype`` and ``format`` for device memory.
    """

    @cython.embedsignature(False)
    def __init__(self, resource, dtype=None, *, format=None, num_channels=None,
                 nbytes=None, width=None, height=None, pitch=None, address_mode=1,
                 filter_mode=0, normalized_coordinates=False, read_mode=0,
                 border_color=None, srgb=False, unsigned int max_anisotropy=0,
                 view=None):
        cdef GA_CUDA_RESOURCE_DESC rd
        cdef GA_CUDA_TEXTURE_DESC td
        cdef GA_CUDA_RESOURCE_VIEW_DESC vd
        cdef GA_CUDA_RESOURCE_VIEW_DESC* vp = NULL
        cdef int fmt = 0
        cdef unsigned int nch = 1
        cdef CUdeviceptr p
        cdef Array a
        cdef ResourceViewDescriptor v
        cdef CUresult r
        cdef int k
        memset(&rd, 0, sizeof(rd))
        memset(&td, 0, sizeof(td))
        memset(&vd, 0, sizeof(vd))
        if self.obj:
            raise TypeError("TextureObject is already initialized")
        if isinstance(resource, Array):
            a = <Array>resource
            a._live("TextureObject")
            for name, val in (("dtype", dtype), ("format", format), ("num_channels", num_channels),
                              ("nbytes", nbytes), ("width", width), ("height", height),
                              ("pitch", pitch)):
                if val is not None:
                    raise ValueError("TextureObject: %s is for device memory; an Array "
                                     "has its own" % name)
            rd.resType = _RES_ARRAY
            rd.res.array.hArray = a.array
            fmt = a._format
        else:
            p = _devptr(resource)
            _format_channels(dtype, format, num_channels, &fmt, &nch)
            es = _FORMAT_BYTES.get(fmt, 0) * nch
            if view is not None:
                raise ValueError("TextureObject: view is for Array resources only")
            self.context = _current_context()
            align, pitch_align = _alignments()
            if p % align:
                raise ValueError("TextureObject: the resource address 0x%x is not a multiple "
                                 "of the device's TEXTURE_ALIGNMENT (%d bytes)" % (p, align))
            limit = (<DeviceAllocation>resource).size if type(resource) is DeviceAllocation else None
            if pitch is None:
                if width is not None or height is not None:
                    raise ValueError("TextureObject: width and height need pitch= "
                                     "(pitched 2-D memory); linear memory takes nbytes=")
                if nbytes is None:
                    if limit is None:
                        raise ValueError("TextureObject: nbytes is needed for a bare "
                                         "device address")
                    nbytes = limit
                if nbytes <= 0:
                    raise ValueError("TextureObject: nbytes must be positive, not %d" % nbytes)
                if limit is not None and nbytes > limit:
                    raise ValueError("TextureObject: nbytes (%d) exceeds the %d-byte "
                                     "device allocation" % (nbytes, limit))
                if es and nbytes % es:
                    raise ValueError("TextureObject: nbytes (%d) is not a whole number of "
                                     "%d-byte elements" % (nbytes, es))
                rd.resType = _RES_LINEAR
                rd.res.linear.devPtr = p
                rd.res.linear.format = fmt
                rd.res.linear.numChannels = nch
                rd.res.linear.sizeInBytes = nbytes
            else:
                if nbytes is not None:
                    raise ValueError("TextureObject: nbytes is for linear memory; pitched "
                                     "memory takes width, height and pitch")
                if width is None or height is None:
                    raise ValueError("TextureObject: pitched memory needs width= and height=")
                if width <= 0 or height <= 0:
                    raise ValueError("TextureObject: width and height must be positive, "
                                     "got %d x %d" % (width, height))
                if pitch <= 0 or pitch % pitch_align:
                    raise ValueError("TextureObject: pitch (%d bytes) must be a positive "
                                     "multiple of the device's TEXTURE_PITCH_ALIGNMENT (%d)"
                                     % (pitch, pitch_align))
                if width * es > pitch:
                    raise ValueError("TextureObject: width (%d elements of %d bytes) exceeds "
                                     "pitch (%d bytes)" % (width, es, pitch))
                end = (height - 1) * pitch + width * es
                if limit is not None and end > limit:
                    raise ValueError("TextureObject: height (%d rows of pitch %d) needs %d "
                                     "bytes; the device allocation has %d"
                                     % (height, pitch, end, limit))
                rd.resType = _RES_PITCH2D
                rd.res.pitch2D.devPtr = p
                rd.res.pitch2D.format = fmt
                rd.res.pitch2D.numChannels = nch
                rd.res.pitch2D.width = width
                rd.res.pitch2D.height = height
                rd.res.pitch2D.pitchInBytes = pitch
        if self.context is None:
            self.context = _current_context()
        # the sampler
        modes = [address_mode] * 3 if isinstance(address_mode, (int, np.integer)) \
            else list(address_mode)
        if not 1 <= len(modes) <= 3:
            raise ValueError("TextureObject: address_mode takes 1 to 3 modes, got %d" % len(modes))
        modes += [modes[len(modes) - 1]] * (3 - len(modes))
        for k in range(3):
            m = int(modes[k])
            if m not in (0, 1, 2, 3):
                raise ValueError("TextureObject: address_mode %r is not an address_mode" % (modes[k],))
            if m in (0, 2) and not normalized_coordinates:
                raise ValueError("TextureObject: address_mode WRAP and MIRROR need "
                                 "normalized_coordinates=True")
            td.addressMode[k] = m
        if int(filter_mode) not in (0, 1):
            raise ValueError("TextureObject: filter_mode must be POINT or LINEAR, not %r"
                             % (filter_mode,))
        if int(read_mode) not in (0, 1):
            raise ValueError("TextureObject: read_mode must be ELEMENT_TYPE or "
                             "NORMALIZED_FLOAT, not %r" % (read_mode,))
        if int(filter_mode) == 1 and fmt in _INT_FORMATS and (
                int(read_mode) == 0 or fmt in _INT32_FORMATS):
            raise ValueError("TextureObject: filter_mode LINEAR needs a float format or an "
                             "8/16-bit integer format with read_mode NORMALIZED_FLOAT")
        td.filterMode = int(filter_mode)
        if fmt in _INT_FORMATS and int(read_mode) == 0:
            td.flags |= _TRSF_READ_AS_INTEGER
        if normalized_coordinates:
            td.flags |= _TRSF_NORMALIZED_COORDINATES
        if srgb:
            td.flags |= _TRSF_SRGB
        td.maxAnisotropy = max_anisotropy
        if border_color is not None:
            bc = [float(c) for c in border_color]
            if len(bc) != 4:
                raise ValueError("TextureObject: border_color takes 4 floats, got %d" % len(bc))
            for k in range(4):
                td.borderColor[k] = bc[k]
        if view is not None:
            if type(view) is not ResourceViewDescriptor:
                raise TypeError("TextureObject: view must be a ResourceViewDescriptor, not %s"
                                % type(view).__name__)
            v = <ResourceViewDescriptor>view
            vd.format = v.format
            vd.width, vd.height, vd.depth = v.width, v.height, v.depth
            vd.firstMipmapLevel, vd.lastMipmapLevel = v.first_mipmap_level, v.last_mipmap_level
            vd.firstLayer, vd.lastLayer = v.first_layer, v.last_layer
            vp = &vd
        _tx_load()
        _need_entry(<void*>_tx.cuTexObjectCreate, "cuTexObjectCreate", "5.0")
        r = _tx.cuTexObjectCreate(&self.obj, &rd, &td, vp)
        if r != CUDA_SUCCESS:
            self.obj = 0
            raise _make_error(r, "cuTexObjectCreate")
        self.resource = resource


cdef class SurfaceObject(_TexHandle):
    """A surface object over an :class:`Array` made with
    ``array3d_flags.SURFACE_LDST`` (``cuSurfObjectCreate``): kernels take it
    as a ``cudaSurfaceObject_t`` argument for ``surf2Dread``/``surf2Dwrite``
    and friends (x in bytes). The array is kept alive; the surface is
    destroyed by :meth:`destroy` or when it dies, in its context.

    Raises
    ------
    TypeError
        ``array`` not an :class:`Array`.
    ValueError
        An array without ``SURFACE_LDST`` or one that was freed.
    """

    def __init__(self, array):
        cdef GA_CUDA_RESOURCE_DESC rd
        cdef CUresult r
        if self.obj:
            raise TypeError("SurfaceObject is already initialized")
        if not isinstance(array, Array):
            raise TypeError("SurfaceObject needs an Array, not %s" % type(array).__name__)
        (<Array>array)._live("SurfaceObject")
        if not ((<Array>array).flags & 2):
            raise ValueError("SurfaceObject: the array was not made with "
                             "array3d_flags.SURFACE_LDST (use an ArrayDescriptor3D)")
        self.surface = True
        self.context = _current_context()
        memset(&rd, 0, sizeof(rd))
        rd.resType = _RES_ARRAY
        rd.res.array.hArray = (<Array>array).array
        _tx_load()
        _need_entry(<void*>_tx.cuSurfObjectCreate, "cuSurfObjectCreate", "5.0")
        r = _tx.cuSurfObjectCreate(&self.obj, &rd)
        if r != CUDA_SUCCESS:
            self.obj = 0
            raise _make_error(r, "cuSurfObjectCreate")
        self.resource = array
