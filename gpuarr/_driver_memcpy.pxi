# The 2-D and 3-D copy objects; part of gpuarr/_driver.pyx, which includes
# this file (after _driver_array.pxi and _driver_copy3d.pxi, whose
# structures and entry points it uses).
#
# Owns: Memcpy2D, Memcpy3D, Memcpy3DPeer (PyCUDA's classes): each side's
# memory (host buffer held while the object holds it, device address,
# array, unified address, context), the check that the region fits each
# side where gpuarr knows the side's extent, and the calls.

cdef enum:
    _MT_HOST = 1
    _MT_DEVICE = 2
    _MT_ARRAY = 3
    _MT_UNIFIED = 4

_SIDE_KINDS = {0: "unset", 1: "host", 2: "device", 3: "array", 4: "unified"}


cdef class _CopySide:
    """One side of a copy: what memory, where the region starts."""
    cdef int kind
    cdef Py_buffer view
    cdef bint has_view
    cdef CUdeviceptr dev
    cdef object obj              # kept alive: buffer owner, allocation, Array
    cdef object context          # Memcpy3DPeer: a Context or None
    cdef size_t x, y, z, lod, pitch, height

    cdef void drop(self):
        if self.has_view:
            PyBuffer_Release(&self.view)
            self.has_view = False
        self.obj = None
        self.kind = 0
        self.dev = 0

    def __dealloc__(self):
        if self.has_view:
            PyBuffer_Release(&self.view)
            self.has_view = False

    cdef int set_buffer(self, object buf, bint writable, int kind, str what) except -1:
        cdef Py_buffer view
        if kind == _MT_UNIFIED and not isinstance(buf, (bytes, bytearray, memoryview, np.ndarray)):
            try:
                PyObject_GetBuffer(buf, &view, PyBUF_ANY_CONTIGUOUS | (PyBUF_WRITABLE if writable else 0))
            except (TypeError, BufferError, ValueError):
                # a unified address given as an int or a device-pointer object
                dev = _devptr(buf)
                self.drop()
                self.kind, self.dev, self.obj = kind, dev, buf
                return 0
            PyBuffer_Release(&view)
        _get_host_buffer(buf, &view, writable, what)
        self.drop()
        self.view = view
        self.has_view = True
        self.kind = kind
        self.obj = buf
        self.dev = <CUdeviceptr><uintptr_t>view.buf
        return 0

    cdef int check(self, str name, object w, object h, object d, bint is3d) except -1:
        """The region of w bytes x h rows x d slices from (x, y, z) lies in
        this side's memory where its extent is known."""
        cdef Array a
        if self.kind == 0:
            raise ValueError("%s is not set: call set_%s_host/device/array/unified first"
                             % (name, name))
        if w == 0 or h == 0 or d == 0:
            return 0
        if self.kind == _MT_ARRAY:
            a = <Array>self.obj
            a._live(name + " array")
            if a.elsize and self.x + w > a.width * a.elsize:
                raise ValueError("%s_x_in_bytes + width_in_bytes = %d exceeds the array's "
                                 "row of %d bytes" % (name, self.x + w, a.width * a.elsize))
            if self.y + h > max(<object>a.height, 1):
                raise ValueError("%s_y + height = %d exceeds the array's height %d"
                                 % (name, self.y + h, max(<object>a.height, 1)))
            if self.z + d > max(<object>a.depth, 1):
                raise ValueError("%s_z + depth = %d exceeds the array's depth %d"
                                 % (name, self.z + d, max(<object>a.depth, 1)))
            return 0
        if (h > 1 or d > 1) and self.x + w > self.pitch:
            raise ValueError("%s_pitch (%d bytes) is less than %s_x_in_bytes + "
                             "width_in_bytes (%d)" % (name, self.pitch, name, self.x + w))
        rows = self.height if is3d else 0
        if d > 1 and self.y + h > rows:
            raise ValueError("%s_height (%d rows) is less than %s_y + height (%d)"
                             % (name, rows, name, self.y + h))
        end = ((self.z + d - 1) * rows + self.y + h - 1) * self.pitch + self.x + w
        if self.has_view:
            limit, what = self.view.len, "host buffer"
        elif type(self.obj) is DeviceAllocation:
            limit, what = (<DeviceAllocation>self.obj).size, "device allocation"
        else:
            return 0
        if end > limit:
            raise ValueError("%s: the region ends at byte %d of a %d-byte %s (check "
                             "%s_pitch, %s_x_in_bytes, %s_y, width_in_bytes and height)"
                             % (name, end, limit, what, name, name, name))
        return 0

    cdef GA_CUarray arr(self):
        return (<Array>self.obj).array if self.kind == _MT_ARRAY else NULL


cdef class _Memcpy:
    """What Memcpy2D, Memcpy3D and Memcpy3DPeer share."""
    cdef _CopySide src
    cdef _CopySide dst
    cdef public size_t width_in_bytes
    cdef public size_t height
    cdef size_t _depth

    def __cinit__(self, *args, **kwargs):
        self.src = _CopySide()
        self.dst = _CopySide()
        self.height = 1
        self._depth = 1

    # the sides' origins and pitches, PyCUDA's attribute names
    @property
    def src_x_in_bytes(self):
        return self.src.x

    @src_x_in_bytes.setter
    def src_x_in_bytes(self, size_t v):
        self.src.x = v

    @property
    def src_y(self):
        return self.src.y

    @src_y.setter
    def src_y(self, size_t v):
        self.src.y = v

    @property
    def src_pitch(self):
        return self.src.pitch

    @src_pitch.setter
    def src_pitch(self, size_t v):
        self.src.pitch = v

    @property
    def dst_x_in_bytes(self):
        return self.dst.x

    @dst_x_in_bytes.setter
    def dst_x_in_bytes(self, size_t v):
        self.dst.x = v

    @property
    def dst_y(self):
        return self.dst.y

    @dst_y.setter
    def dst_y(self, size_t v):
        self.dst.y = v

    @property
    def dst_pitch(self):
        return self.dst.pitch

    @dst_pitch.setter
    def dst_pitch(self, size_t v):
        self.dst.pitch = v

    def set_src_host(self, buf):
        """Copy from a contiguous host buffer (numpy array, bytes, ...),
        held by this object until another source is set or it dies."""
        self.src.set_buffer(buf, False, _MT_HOST, "set_src_host")

    def set_dst_host(self, buf):
        """Copy into a contiguous writable host buffer (held as the source's)."""
        self.dst.set_buffer(buf, True, _MT_HOST, "set_dst_host")

    def set_src_unified(self, buf):
        """Copy from unified (managed or mapped) memory: a buffer or an
        address (``CU_MEMORYTYPE_UNIFIED``)."""
        self.src.set_buffer(buf, False, _MT_UNIFIED, "set_src_unified")

    def set_dst_unified(self, buf):
        """Copy into unified memory: a writable buffer or an address."""
        self.dst.set_buffer(buf, True, _MT_UNIFIED, "set_dst_unified")

    def set_src_device(self, ptr):
        """Copy from a device address (DeviceAllocation, int, GPUArray);
        a DeviceAllocation's size is checked."""
        dev = _devptr(ptr)
        self.src.drop()
        self.src.kind, self.src.dev, self.src.obj = _MT_DEVICE, dev, ptr

    def set_dst_device(self, ptr):
        """Copy to a device address; a DeviceAllocation's size is checked."""
        dev = _devptr(ptr)
        self.dst.drop()
        self.dst.kind, self.dst.dev, self.dst.obj = _MT_DEVICE, dev, ptr

    def set_src_array(self, Array ary not None):
        """Copy from a CUDA :class:`Array` (the pitch is ignored)."""
        ary._live("set_src_array")
        self.src.drop()
        self.src.kind, self.src.obj = _MT_ARRAY, ary

    def set_dst_array(self, Array ary not None):
        """Copy to a CUDA :class:`Array` (the pitch is ignored)."""
        ary._live("set_dst_array")
        self.dst.drop()
        self.dst.kind, self.dst.obj = _MT_ARRAY, ary

    cdef int _check(self, bint is3d) except -1:
        d = self._depth if is3d else 1
        for side, name in ((self.src, "src"), (self.dst, "dst")):
            if (<_CopySide>side).kind == 0:
                raise ValueError("%s is not set: call set_%s_host/device/array/unified "
                                 "first" % (name, name))
        self.src.check("src", self.width_in_bytes, self.height, d, is3d)
        self.dst.check("dst", self.width_in_bytes, self.height, d, is3d)
        return 0

    def __repr__(self):
        return "<gpuarr.driver.%s %s -> %s, %d bytes x %d rows x %d>" % (
            type(self).__name__, _SIDE_KINDS[self.src.kind], _SIDE_KINDS[self.dst.kind],
            self.width_in_bytes, self.height, self._depth)


cdef class Memcpy2D(_Memcpy):
    """A 2-D copy between host memory, device memory and CUDA arrays
    (``CUDA_MEMCPY2D``; PyCUDA's class).

    Set each side with ``set_src_*`` / ``set_dst_*``, the region with
    ``width_in_bytes`` (bytes, not elements) and ``height`` (rows, default
    1), each side's origin with ``*_x_in_bytes`` and ``*_y`` and its row
    stride with ``*_pitch`` (bytes; ignored for an array). Then call the
    object, ``c = Memcpy2D()`` ... (PyCUDA's form):

    - ``c()`` or ``c(aligned=True)``: ``cuMemcpy2D``;
      ``c(aligned=False)``: ``cuMemcpy2DUnaligned`` (any pitch and offset);
    - ``c(stream)``: ``cuMemcpy2DAsync`` on ``stream``. A host buffer
      stays held by the object until it is replaced or the object dies: keep
      the object alive until the stream has finished the copy. Truly
      asynchronous only for page-locked host memory.

    Raises
    ------
    ValueError
        Before any driver call, when a side is not set or the region does
        not fit a side whose extent gpuarr knows (a host buffer's length, a
        DeviceAllocation's size, an Array's shape), naming the field.
    """

    def __call__(self, *args, aligned=True, stream=None):
        cdef GA_CUDA_MEMCPY2D p
        cdef CUstream s = NULL
        cdef CUresult r
        if len(args) > 1:
            raise TypeError("Memcpy2D() takes aligned or a stream, not %d arguments" % len(args))
        if args:
            if isinstance(args[0], bool):
                aligned = args[0]
            else:
                stream = args[0]
        if stream is not None and not aligned:
            raise ValueError("Memcpy2D: an unaligned copy cannot be asynchronous "
                             "(cuMemcpy2DUnaligned has no stream form)")
        s = _stream_handle(stream)
        self._check(False)
        _c3_load()
        memset(&p, 0, sizeof(p))
        p.srcXInBytes, p.srcY, p.srcPitch = self.src.x, self.src.y, self.src.pitch
        p.srcMemoryType = self.src.kind
        p.srcHost = self.src.view.buf if self.src.kind == _MT_HOST else NULL
        p.srcDevice = self.src.dev if self.src.kind in (_MT_DEVICE, _MT_UNIFIED) else 0
        p.srcArray = self.src.arr()
        p.dstXInBytes, p.dstY, p.dstPitch = self.dst.x, self.dst.y, self.dst.pitch
        p.dstMemoryType = self.dst.kind
        p.dstHost = self.dst.view.buf if self.dst.kind == _MT_HOST else NULL
        p.dstDevice = self.dst.dev if self.dst.kind in (_MT_DEVICE, _MT_UNIFIED) else 0
        p.dstArray = self.dst.arr()
        p.WidthInBytes, p.Height = self.width_in_bytes, self.height
        if stream is not None:
            _need_entry(<void*>_c3.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", "3.2")
            check(_c3.cuMemcpy2DAsync(&p, s), "cuMemcpy2DAsync_v2")
        elif aligned:
            _need_entry(<void*>_c3.cuMemcpy2D, "cuMemcpy2D_v2", "3.2")
            with nogil:
                r = _c3.cuMemcpy2D(&p)
            check(r, "cuMemcpy2D_v2")
        else:
            _need_entry(<void*>_c3.cuMemcpy2DUnaligned, "cuMemcpy2DUnaligned_v2", "3.2")
            with nogil:
                r = _c3.cuMemcpy2DUnaligned(&p)
            check(r, "cuMemcpy2DUnaligned_v2")


cdef class Memcpy3D(_Memcpy):
    """A 3-D copy (``CUDA_MEMCPY3D``; PyCUDA's class): :class:`Memcpy2D`'s
    attributes plus ``src_z``/``dst_z`` (slice of the origin), ``src_lod``/
    ``dst_lod`` (mipmap level, 0), ``src_height``/``dst_height`` (rows per
    slice of a linear side; may stay 0 when ``depth`` is 1) and ``depth``
    (slices, default 1; the layers of a layered array).

    Calling it, ``c()``, is ``cuMemcpy3D``, ``c(stream)`` ``cuMemcpy3DAsync`` (host
    buffers held as in :class:`Memcpy2D`). ``ValueError`` as there, naming
    the field.
    """

    @property
    def src_z(self):
        return self.src.z

    @src_z.setter
    def src_z(self, size_t v):
        self.src.z = v

    @property
    def dst_z(self):
        return self.dst.z

    @dst_z.setter
    def dst_z(self, size_t v):
        self.dst.z = v

    @property
    def src_lod(self):
        return self.src.lod

    @src_lod.setter
    def src_lod(self, size_t v):
        self.src.lod = v

    @property
    def dst_lod(self):
        return self.dst.lod

    @dst_lod.setter
    def dst_lod(self, size_t v):
        self.dst.lod = v

    @property
    def src_height(self):
        return self.src.height

    @src_height.setter
    def src_height(self, size_t v):
        self.src.height = v

    @property
    def dst_height(self):
        return self.dst.height

    @dst_height.setter
    def dst_height(self, size_t v):
        self.dst.height = v

    @property
    def depth(self):
        return self._depth

    @depth.setter
    def depth(self, size_t v):
        self._depth = v

    def __call__(self, stream=None):
        cdef GA_CUDA_MEMCPY3D p
        cdef CUstream s = _stream_handle(stream)
        cdef CUresult r
        self._check(True)
        _c3_load()
        memset(&p, 0, sizeof(p))
        p.srcXInBytes, p.srcY, p.srcZ, p.srcLOD = self.src.x, self.src.y, self.src.z, self.src.lod
        p.srcMemoryType = self.src.kind
        p.srcHost = self.src.view.buf if self.src.kind == _MT_HOST else NULL
        p.srcDevice = self.src.dev if self.src.kind in (_MT_DEVICE, _MT_UNIFIED) else 0
        p.srcArray = self.src.arr()
        p.srcPitch, p.srcHeight = self.src.pitch, self.src.height
        p.dstXInBytes, p.dstY, p.dstZ, p.dstLOD = self.dst.x, self.dst.y, self.dst.z, self.dst.lod
        p.dstMemoryType = self.dst.kind
        p.dstHost = self.dst.view.buf if self.dst.kind == _MT_HOST else NULL
        p.dstDevice = self.dst.dev if self.dst.kind in (_MT_DEVICE, _MT_UNIFIED) else 0
        p.dstArray = self.dst.arr()
        p.dstPitch, p.dstHeight = self.dst.pitch, self.dst.height
        p.WidthInBytes, p.Height, p.Depth = self.width_in_bytes, self.height, self._depth
        if stream is not None:
            _need_entry(<void*>_c3.cuMemcpy3DAsync, "cuMemcpy3DAsync_v2", "3.2")
            check(_c3.cuMemcpy3DAsync(&p, s), "cuMemcpy3DAsync_v2")
        else:
            _need_entry(<void*>_c3.cuMemcpy3D, "cuMemcpy3D_v2", "3.2")
            with nogil:
                r = _c3.cuMemcpy3D(&p)
            check(r, "cuMemcpy3D_v2")


cdef class Memcpy3DPeer(Memcpy3D):
    """A 3-D copy between contexts (``CUDA_MEMCPY3D_PEER``; PyCUDA's
    class): :class:`Memcpy3D` plus ``set_src_context(ctx)`` and
    ``set_dst_context(ctx)`` (default: the context current at the call;
    ignored for an array side). ``c()`` is ``cuMemcpy3DPeer``,
    ``c(stream)`` ``cuMemcpy3DPeerAsync``."""

    def set_src_context(self, ctx):
        """The :class:`Context` the source memory belongs to (or None)."""
        if ctx is not None:
            _ctx_arg(ctx, "set_src_context")
        self.src.context = ctx

    def set_dst_context(self, ctx):
        """The :class:`Context` the destination memory belongs to (or None)."""
        if ctx is not None:
            _ctx_arg(ctx, "set_dst_context")
        self.dst.context = ctx

    def __call__(self, stream=None):
        cdef GA_CUDA_MEMCPY3D_PEER p
        cdef CUstream s = _stream_handle(stream)
        cdef CUresult r
        self._check(True)
        _c3_load()
        memset(&p, 0, sizeof(p))
        p.srcXInBytes, p.srcY, p.srcZ, p.srcLOD = self.src.x, self.src.y, self.src.z, self.src.lod
        p.srcMemoryType = self.src.kind
        p.srcHost = self.src.view.buf if self.src.kind == _MT_HOST else NULL
        p.srcDevice = self.src.dev if self.src.kind in (_MT_DEVICE, _MT_UNIFIED) else 0
        p.srcArray = self.src.arr()
        p.srcContext = _ctx_arg(self.src.context, "src context")
        p.srcPitch, p.srcHeight = self.src.pitch, self.src.height
        p.dstXInBytes, p.dstY, p.dstZ, p.dstLOD = self.dst.x, self.dst.y, self.dst.z, self.dst.lod
        p.dstMemoryType = self.dst.kind
        p.dstHost = self.dst.view.buf if self.dst.kind == _MT_HOST else NULL
        p.dstDevice = self.dst.dev if self.dst.kind in (_MT_DEVICE, _MT_UNIFIED) else 0
        p.dstArray = self.dst.arr()
        p.dstContext = _ctx_arg(self.dst.context, "dst context")
        p.dstPitch, p.dstHeight = self.dst.pitch, self.dst.height
        p.WidthInBytes, p.Height, p.Depth = self.width_in_bytes, self.height, self._depth
        if stream is not None:
            _need_entry(<void*>_c3.cuMemcpy3DPeerAsync, "cuMemcpy3DPeerAsync", "4.0")
            check(_c3.cuMemcpy3DPeerAsync(&p, s), "cuMemcpy3DPeerAsync")
        else:
            _need_entry(<void*>_c3.cuMemcpy3DPeer, "cuMemcpy3DPeer", "4.0")
            with nogil:
                r = _c3.cuMemcpy3DPeer(&p)
            check(r, "cuMemcpy3DPeer")
