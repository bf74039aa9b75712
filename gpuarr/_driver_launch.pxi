# Kernels: argument packing and launch; part of gpuarr/_driver.pyx, which
# includes this file.
#
# Owns: the In/Out/InOut argument handlers, the Function class (its
# parameter layout, the checks and packing of __call__, prepare and the
# prepared calls, attributes) and _new_function, which reads a kernel's
# parameters when it is taken from its module, with no failing driver call.

DEF STACK_ARGS = 64
DEF STACK_BYTES = 1024


cdef class ArgumentHandler:
    """Base of :class:`In`, :class:`Out`, :class:`InOut`: a host numpy array
    that a kernel call copies to a temporary device buffer and/or back."""
    cdef readonly object array
    cdef bint copy_in
    cdef bint copy_out
    cdef object dev

    def __init__(self, array):
        if not isinstance(array, np.ndarray):
            raise TypeError("%s needs a numpy array, not %s"
                            % (type(self).__name__, type(array).__name__))
        if not (array.flags.c_contiguous or array.flags.f_contiguous):
            raise ValueError("%s needs a contiguous array" % type(self).__name__)
        if self.copy_out and not array.flags.writeable:
            raise ValueError("%s needs a writeable array" % type(self).__name__)
        self.array = array

    cdef CUdeviceptr acquire(self) except? 0:
        a = self.array
        self.dev = mem_alloc(a.nbytes)
        if self.copy_in and a.nbytes:
            memcpy_htod(self.dev, a)
        return (<DeviceAllocation>self.dev).ptr

    cdef int release(self) except -1:
        if self.copy_out and self.array.nbytes:
            memcpy_dtoh(self.array, self.dev)
        self.dev = None
        return 0


cdef class In(ArgumentHandler):
    """Copy a host array to the device before the launch."""
    def __cinit__(self, *args, **kwargs):
        self.copy_in = True


cdef class Out(ArgumentHandler):
    """Copy a device buffer back into a host array after the launch."""
    def __cinit__(self, *args, **kwargs):
        self.copy_out = True


cdef class InOut(ArgumentHandler):
    """Copy a host array in before and back out after the launch."""
    def __cinit__(self, *args, **kwargs):
        self.copy_in = True
        self.copy_out = True


cdef Function _new_function(Module mod, CUfunction f, str name):
    cdef Function fn = Function.__new__(Function)
    cdef size_t off = 0, size = 0, count = 0
    cdef size_t i
    fn.func = f
    fn.module = mod
    fn.function_name = name
    fn.nparams = -1
    fn.nprepared = -1
    if api.cuFuncGetParamInfo == NULL:
        return fn
    # The count first, so that cuFuncGetParamInfo is asked only for
    # parameters that exist: compute-sanitizer reports every failing driver
    # call, the one past the last parameter too. Without a count the
    # parameters stay unknown (not checked).
    if api.cuFuncGetParamCount != NULL:
        if api.cuFuncGetParamCount(f, &count) != CUDA_SUCCESS:
            return fn
    else:
        n = mod.param_counts.get(name) if mod.param_counts is not None else None
        if n is None:
            return fn
        count = n
    offsets = []
    sizes = []
    for i in range(count):
        if api.cuFuncGetParamInfo(f, i, &off, &size) != CUDA_SUCCESS:
            return fn
        offsets.append(off)
        sizes.append(size)
    fn._set_params(offsets, sizes)
    fn.params_from_driver = True
    return fn


cdef int _dims3(object t, unsigned int* out, str what) except -1:
    cdef Py_ssize_t n, k
    out[0] = out[1] = out[2] = 1
    if type(t) is not tuple:
        if t is None:
            raise ValueError("%s must be given, as a tuple of 1 to 3 positive ints" % what)
        if isinstance(t, (int, np.integer)):
            t = (t,)
        else:
            t = tuple(t)
    n = len(<tuple>t)
    if n < 1 or n > 3:
        raise ValueError("%s must have 1 to 3 entries, got %r" % (what, t))
    try:
        for k in range(n):
            out[k] = (<tuple>t)[k]
    except (OverflowError, TypeError):
        raise ValueError("%s entries must be non-negative 32-bit ints, got %r" % (what, t)) from None
    return 0


cdef bytes _struct_bytes(object arg, size_t size, str what):
    """The bytes of a struct parameter (prepared kind 'V'): a numpy struct
    scalar or array of ``size`` bytes, or bytes-like of that length."""
    if isinstance(arg, (bytes, bytearray, memoryview)):
        raw = bytes(arg)
    elif isinstance(arg, (np.void, np.ndarray)):
        raw = arg.tobytes()
    else:
        raise TypeError("%s: a %d-byte struct parameter takes a numpy struct "
                        "scalar or bytes, not %s" % (what, size, type(arg).__name__))
    if <size_t>len(raw) != size:
        raise TypeError("%s: a %d-byte struct parameter, got %d bytes"
                        % (what, size, len(raw)))
    return raw


cdef class Function:
    """A kernel of a :class:`Module` (``CUfunction``).

    Call it like PyCUDA's: ``f(*args, block=(x, y, z), grid=(x, y[, z]),
    stream=None, shared=0, time_kernel=False)``. Arguments are numpy scalars
    (packed as their dtype), :class:`DeviceAllocation`, objects with a device
    address (``.ptr``, ``.gpudata`` or ``__cuda_array_interface__``), and
    :class:`In`/:class:`Out`/:class:`InOut` wrappers of numpy arrays.

    Where the driver reports kernel parameters (``cuFuncGetParamInfo``,
    CUDA 12.4+), the number of arguments and each argument's size are
    checked before the launch; a mismatch raises ``TypeError`` naming the
    parameter. The number of parameters comes from ``cuFuncGetParamCount``
    where the driver has it, else from the cubin or PTX image the module was
    loaded from; where neither can tell (a fatbin, say), nothing is checked.
    """

    def __init__(self):
        raise TypeError("kernels come from Module.get_function()")

    def __dealloc__(self):
        free(self.param_offsets)
        free(self.param_sizes)
        free(self.prepared_kinds)
        free(self.prepared_sizes)

    def _set_params(self, offsets, sizes):
        cdef Py_ssize_t n = len(offsets), k
        free(self.param_offsets)
        free(self.param_sizes)
        self.param_offsets = <size_t*>malloc((n + 1) * sizeof(size_t))
        self.param_sizes = <size_t*>malloc((n + 1) * sizeof(size_t))
        if self.param_offsets == NULL or self.param_sizes == NULL:
            raise MemoryError()
        self.param_bytes = 0
        for k in range(n):
            self.param_offsets[k] = offsets[k]
            self.param_sizes[k] = sizes[k]
            if offsets[k] + sizes[k] > self.param_bytes:
                self.param_bytes = offsets[k] + sizes[k]
        self.nparams = <int>n

    @property
    def handle(self):
        return <uintptr_t>self.func

    @property
    def param_info(self):
        """``[(offset, size), ...]`` of the kernel's parameters in bytes, or
        None when they are not known (see the class docstring).

        Where the driver cannot report them, :meth:`prepare` lays the
        prepared types out as C does; this stays None when a struct's
        alignment (``"<n>s"``) leaves its offset open. Launches do not
        depend on it: ``cuLaunchKernel`` takes one pointer per parameter and
        places them from the kernel's image."""
        if self.nparams < 0 or self.layout_unsure:
            return None
        return [(self.param_offsets[k], self.param_sizes[k]) for k in range(self.nparams)]

    cdef str _argname(self, int k):
        return "argument %d (0-based) of kernel %r" % (k, self.function_name)

    cdef size_t _pack_bytes(self, Py_ssize_t nargs) except? 0:
        """Bytes of the parameter block :meth:`_pack` fills for ``nargs``
        arguments (checking their number where it is known)."""
        if self.nparams >= 0 and nargs != self.nparams:
            raise TypeError("kernel %r takes %d arguments (%d given)"
                            % (self.function_name, self.nparams, nargs))
        return self.param_bytes if self.nparams >= 0 else <size_t>(nargs * 32)

    cdef int _pack(self, tuple args, char* buf, void** params, list handlers) except -1:
        """Check and pack ``args`` into ``buf`` (``_pack_bytes`` bytes) with
        ``params[k]`` pointing at argument k, as ``cuLaunchKernel``'s
        ``kernelParams`` take them. In/Out/InOut handlers are acquired and
        appended to ``handlers``; the caller releases them."""
        cdef Py_ssize_t nargs = len(args), k
        cdef char scratch[32]
        cdef size_t off = 0, size = 0
        cdef CUdeviceptr dp
        cdef const char* src = scratch
        for k in range(nargs):
            arg = args[k]
            t = type(arg)
            if t is DeviceAllocation:
                dp = (<DeviceAllocation>arg).ptr
                memcpy(scratch, &dp, 8)
                size = 8
            elif isinstance(arg, np.generic):
                descr = cnp.PyArray_DescrFromScalar(arg)
                size = (<cnp.dtype>descr).itemsize
                if size <= 32 and (<cnp.dtype>descr).type_num != cnp.NPY_VOID:
                    cnp.PyArray_ScalarAsCtype(arg, scratch)
                else:
                    raw = arg.tobytes()
                    size = len(raw)
                    src = <const char*>raw
                    if self.nparams < 0:
                        raise TypeError("%s: cannot pass a %d-byte %s without parameter "
                                        "information from the driver"
                                        % (self._argname(k), size, arg.dtype))
            elif t is TextureObject or t is SurfaceObject:
                # cudaTextureObject_t / cudaSurfaceObject_t: 8 bytes
                if (<_TexHandle>arg).obj == 0:
                    raise ValueError("%s: the %s was destroyed" % (self._argname(k),
                                                                  t.__name__))
                memcpy(scratch, &(<_TexHandle>arg).obj, 8)
                size = 8
            elif isinstance(arg, ArgumentHandler):
                handlers.append(arg)
                dp = (<ArgumentHandler>arg).acquire()
                memcpy(scratch, &dp, 8)
                size = 8
            elif t is int or t is float or t is complex or t is bool:
                raise TypeError("%s: a Python %s has no C type; pass a numpy scalar "
                                "such as numpy.int32(...) or numpy.float32(...)"
                                % (self._argname(k), t.__name__))
            else:
                try:
                    dp = _devptr(arg)
                except TypeError:
                    raise TypeError("%s: cannot pass %s (expected a numpy scalar, a "
                                    "device array or pointer, or In/Out/InOut)"
                                    % (self._argname(k), t.__name__)) from None
                memcpy(scratch, &dp, 8)
                size = 8
            if self.nparams >= 0:
                if size != self.param_sizes[k]:
                    raise TypeError("%s: parameter is %d bytes, got %s of %d bytes"
                                    % (self._argname(k), self.param_sizes[k],
                                       getattr(arg, "dtype", t.__name__), size))
                off = self.param_offsets[k]
            else:
                off = (off + 7) & ~(<size_t>7) if k else 0
            memcpy(buf + off, src, size)
            params[k] = buf + off
            src = scratch
            if self.nparams < 0:
                off += size
        return 0

    def __call__(self, *args, block=None, grid=(1, 1), stream=None,
                 unsigned int shared=0, texrefs=None, bint time_kernel=False,
                 bint cooperative=False, cluster=None):
        cdef unsigned int g[3]
        cdef unsigned int b[3]
        cdef unsigned int c[3]
        cdef Py_ssize_t nargs = len(args)
        cdef char stack_buf[STACK_BYTES]
        cdef void* stack_params[STACK_ARGS]
        cdef char* buf = stack_buf
        cdef void** params = stack_params
        cdef size_t total
        cdef CUstream s
        cdef CUresult r
        if block is None:
            raise ValueError("block=(x, y, z) must be given")
        _dims3(block, b, "block")
        _dims3(grid, g, "grid")
        if cluster is not None:
            _dims3(cluster, c, "cluster")
        total = self._pack_bytes(nargs)
        s = _stream_handle(stream)
        handlers = []
        if total > STACK_BYTES:
            buf = <char*>malloc(total)
        if nargs > STACK_ARGS:
            params = <void**>malloc(nargs * sizeof(void*))
        try:
            if buf == NULL or params == NULL:
                raise MemoryError()
            self._pack(args, buf, params, handlers)
            if time_kernel:
                start = Event()
                end = Event()
                start.record(stream)
            if cooperative or cluster is not None:
                r = _launch_ex(self, g, b, shared, s, params, cooperative,
                               c if cluster is not None else NULL)
            else:
                r = api.cuLaunchKernel(self.func, g[0], g[1], g[2], b[0], b[1], b[2],
                                       shared, s, params, NULL)
            if r != CUDA_SUCCESS:
                raise _make_error(r, "cuLaunchKernel" if not cooperative and cluster is None
                                  else "cuLaunchKernelEx",
                                  "kernel %r, grid=%r, block=%r, shared=%d bytes"
                                  % (self.function_name, grid, block, shared))
            if time_kernel:
                end.record(stream)
            if handlers:
                if stream is not None:
                    with nogil:     # a host callback pending there needs the GIL
                        r = api.cuStreamSynchronize(s)
                    check(r, "cuStreamSynchronize")
                for h in handlers:
                    (<ArgumentHandler>h).release()
            if time_kernel:
                end.synchronize()
                return end.time_since(start) / 1000.0
        finally:
            if buf != stack_buf:
                free(buf)
            if params != stack_params:
                free(params)
            for h in handlers:
                (<ArgumentHandler>h).dev = None

    def prepare(self, arg_types, block=None, shared=None, texrefs=None):
        """Fix the argument types for :meth:`prepared_call` and friends.

        Parameters
        ----------
        arg_types : str or iterable
            :mod:`struct` characters (``"PPi"``; ``P`` is a device pointer) or
            numpy dtypes, one per kernel parameter.

        Returns
        -------
        Function
            ``self``.

        Raises
        ------
        TypeError
            When the count or a size disagrees with the kernel's parameters.

        Notes
        -----
        Without ``cuFuncGetParamInfo`` (drivers before CUDA 12.4) the
        prepared types are laid out as C would: a struct given as a dtype
        at its C alignment (CUDA's for vector types such as ``float4``,
        16 bytes; else its largest field's); a struct whose alignment is
        not known (``"<n>s"``, or a dtype that is no C layout) where every
        alignment it could have (powers of two dividing ``n``, at most 16)
        gives one offset, else :attr:`param_info` is None (unknown).
        """
        kinds = parse_arg_types(arg_types, alignments=True)
        cdef Py_ssize_t n = len(kinds), k
        if self.params_from_driver:
            if n != self.nparams:
                raise TypeError("kernel %r takes %d arguments, prepare() got %d types"
                                % (self.function_name, self.nparams, n))
            for k in range(n):
                if kinds[k][1] != self.param_sizes[k]:
                    raise TypeError("%s: parameter is %d bytes, prepared type %r is %d bytes"
                                    % (self._argname(k), self.param_sizes[k], kinds[k][0], kinds[k][1]))
        free(self.prepared_kinds)
        free(self.prepared_sizes)
        self.prepared_kinds = <char*>malloc(n + 1)
        self.prepared_sizes = <size_t*>malloc((n + 1) * sizeof(size_t))
        if self.prepared_kinds == NULL or self.prepared_sizes == NULL:
            raise MemoryError()
        for k in range(n):
            self.prepared_kinds[k] = ord(kinds[k][0])
            self.prepared_sizes[k] = kinds[k][1]
        self.nprepared = <int>n
        if not self.params_from_driver:
            # The driver cannot say; lay the parameters out as C would.
            offs = []
            sizes = []
            off = 0
            self.layout_unsure = False
            for kind, size, align in kinds:
                if kind == "V":
                    if align is None:
                        # "<n>s": its alignment divides n and is at most 16;
                        # the offset is known only if all of them agree
                        align = min(size & -size, 16)
                        if off % align:
                            self.layout_unsure = True
                    off = (off + align - 1) // align * align
                else:
                    off = (off + size - 1) // size * size if size <= 8 else (off + 7) // 8 * 8
                offs.append(off)
                sizes.append(size)
                off += size
            self._set_params(offs, sizes)
        return self

    cdef int _launch_prepared(self, object grid, object block, CUstream s,
                              tuple args, unsigned int shared, int repeat=1) except -1:
        cdef unsigned int g[3]
        cdef unsigned int b[3]
        cdef char stack_buf[STACK_BYTES]
        cdef void* stack_params[STACK_ARGS]
        cdef char* buf = stack_buf
        cdef void** params = stack_params
        cdef Py_ssize_t nargs = len(args), k
        cdef char kind
        cdef size_t size
        cdef char* dst
        cdef CUdeviceptr dp
        cdef int64_t iv
        cdef uint64_t uv
        cdef double dv
        cdef float fv
        cdef CUresult r
        if self.nprepared < 0:
            raise TypeError("call prepare() before prepared_call()")
        if nargs != self.nprepared:
            raise TypeError("kernel %r was prepared for %d arguments (%d given)"
                            % (self.function_name, self.nprepared, nargs))
        _dims3(block, b, "block")
        _dims3(grid, g, "grid")
        if self.param_bytes > STACK_BYTES:
            buf = <char*>malloc(self.param_bytes)
        if nargs > STACK_ARGS:
            params = <void**>malloc(nargs * sizeof(void*))
        try:
            if buf == NULL or params == NULL:
                raise MemoryError()
            for k in range(nargs):
                arg = args[k]
                kind = self.prepared_kinds[k]
                size = self.prepared_sizes[k]
                dst = buf + self.param_offsets[k]
                params[k] = dst
                if kind == b'P':
                    if type(arg) is DeviceAllocation:
                        dp = (<DeviceAllocation>arg).ptr
                    else:
                        dp = _devptr(arg)
                    memcpy(dst, &dp, 8)
                elif kind == b'i':
                    iv = PyNumber_Index(arg)
                    if size < 8 and not (-((<int64_t>1) << (8 * size - 1)) <= iv
                                         < ((<int64_t>1) << (8 * size - 1))):
                        raise OverflowError("%s: %d does not fit in a %d-byte signed int"
                                            % (self._argname(k), iv, size))
                    memcpy(dst, &iv, size)
                elif kind == b'u':
                    arg = PyNumber_Index(arg)
                    if arg < 0:
                        raise OverflowError("%s: %d does not fit in an unsigned int"
                                            % (self._argname(k), arg))
                    uv = PyNumber_Index(arg)
                    if size < 8 and uv >= ((<uint64_t>1) << (8 * size)):
                        raise OverflowError("%s: %d does not fit in a %d-byte unsigned int"
                                            % (self._argname(k), uv, size))
                    memcpy(dst, &uv, size)
                elif kind == b'f':
                    if size == 4:
                        fv = arg
                        memcpy(dst, &fv, 4)
                    elif size == 8:
                        dv = arg
                        memcpy(dst, &dv, 8)
                    else:
                        raw = np.float16(arg).tobytes()
                        memcpy(dst, <const char*>raw, 2)
                elif kind == b'c':
                    raw = np.asarray(arg, dtype=np.complex64 if size == 8 else np.complex128).tobytes()
                    memcpy(dst, <const char*>raw, size)
                elif kind == b'V':
                    raw = _struct_bytes(arg, size, self._argname(k))
                    memcpy(dst, <const char*>raw, size)
                else:
                    dst[0] = 1 if arg else 0
            for _ in range(repeat):
                r = api.cuLaunchKernel(self.func, g[0], g[1], g[2], b[0], b[1], b[2],
                                       shared, s, params, NULL)
                if r != CUDA_SUCCESS:
                    raise _make_error(r, "cuLaunchKernel",
                                      "kernel %r, grid=%r, block=%r, shared=%d bytes"
                                      % (self.function_name, grid, block, shared))
        finally:
            if buf != stack_buf:
                free(buf)
            if params != stack_params:
                free(params)
        return 0

    def prepared_call(self, grid, block, *args, unsigned int shared_size=0):
        """Launch with the types fixed by :meth:`prepare` on the default
        stream. Pointer arguments may be ints."""
        self._launch_prepared(grid, block, NULL, args, shared_size)

    def prepared_async_call(self, grid, block, stream, *args, unsigned int shared_size=0):
        """:meth:`prepared_call` on ``stream``."""
        self._launch_prepared(grid, block, _stream_handle(stream), args, shared_size)

    def prepared_timed_call(self, grid, block, *args, unsigned int shared_size=0):
        """:meth:`prepared_call` between two events; returns a callable that
        waits and gives the kernel's time in seconds."""
        start = Event()
        end = Event()
        start.record()
        self._launch_prepared(grid, block, NULL, args, shared_size)
        end.record()

        def get_time():
            end.synchronize()
            return end.time_since(start) / 1000.0
        return get_time

    def _repeat_prepared_call(self, int repeat, grid, block, *args):
        """Pack the arguments once and call ``cuLaunchKernel`` ``repeat``
        times from C: the launch-overhead floor, for benchmarks."""
        self._launch_prepared(grid, block, NULL, args, 0, repeat)

    def get_attribute(self, attr):
        """Value of a ``function_attribute`` (``cuFuncGetAttribute``)."""
        cdef int v = 0
        check(api.cuFuncGetAttribute(&v, int(attr), self.func), "cuFuncGetAttribute")
        return v

    def set_attribute(self, attr, int value):
        """Set a ``function_attribute`` (``cuFuncSetAttribute``)."""
        check(api.cuFuncSetAttribute(self.func, int(attr), value), "cuFuncSetAttribute")

    def set_cache_config(self, config):
        """Set this kernel's ``func_cache`` preference (``cuFuncSetCacheConfig``)."""
        check(api.cuFuncSetCacheConfig(self.func, int(config)), "cuFuncSetCacheConfig")

    def max_active_blocks_per_multiprocessor(self, int block_size, size_t dynamic_smem=0):
        """How many blocks of ``block_size`` threads, each with
        ``dynamic_smem`` bytes of dynamic shared memory, one multiprocessor
        holds at once (``cuOccupancyMaxActiveBlocksPerMultiprocessor``).

        Raises
        ------
        ValueError
            For ``block_size <= 0``.
        """
        return _max_active_blocks(self, block_size, dynamic_smem)

    def max_potential_block_size(self, dynamic_smem=0, int block_size_limit=0):
        """The block size that keeps the most threads resident, and the
        smallest grid that fills the device with it
        (``cuOccupancyMaxPotentialBlockSize``).

        Parameters
        ----------
        dynamic_smem : int or callable, optional
            Bytes of dynamic shared memory per block, or a function of the
            block size returning them (then gpuarr searches the block sizes,
            whole warps, itself).
        block_size_limit : int, optional
            Largest block size to consider (0: the kernel's own limit).

        Returns
        -------
        (min_grid_size, block_size) : tuple of int
        """
        return _max_potential_block_size(self, dynamic_smem, block_size_limit)

    def available_dynamic_smem_per_block(self, int num_blocks, int block_size):
        """Bytes of dynamic shared memory each block may use with
        ``num_blocks`` blocks of ``block_size`` threads resident on one
        multiprocessor (``cuOccupancyAvailableDynamicSMemPerBlock``)."""
        cdef size_t v = 0
        if num_blocks <= 0 or block_size <= 0:
            raise ValueError("num_blocks and block_size must be positive")
        _load_launchex()
        _need(<void*>_lx.cuOccupancyAvailableDynamicSMemPerBlock,
              "cuOccupancyAvailableDynamicSMemPerBlock", "11.0")
        check(_lx.cuOccupancyAvailableDynamicSMemPerBlock(&v, self.func, num_blocks,
                                                         block_size),
              "cuOccupancyAvailableDynamicSMemPerBlock")
        return v

    def max_potential_cluster_size(self, grid, block, unsigned int shared=0):
        """The largest cluster (in blocks) a launch of this kernel with
        ``grid``, ``block`` and ``shared`` bytes could use
        (``cuOccupancyMaxPotentialClusterSize``); 8 is portable, more needs
        ``function_attribute.NON_PORTABLE_CLUSTER_SIZE_ALLOWED``."""
        return _cluster_occupancy(self, grid, block, None, shared, True)

    def max_active_clusters(self, grid, block, cluster, unsigned int shared=0):
        """How many clusters of ``cluster`` blocks can be resident at once
        for this launch shape (``cuOccupancyMaxActiveClusters``).

        Raises
        ------
        ValueError
            When ``grid`` is not a whole number of clusters.
        """
        return _cluster_occupancy(self, grid, block, cluster, shared, False)

    @property
    def num_regs(self):
        return self.get_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)

    @property
    def shared_size_bytes(self):
        return self.get_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)

    @property
    def local_size_bytes(self):
        return self.get_attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)

    @property
    def const_size_bytes(self):
        return self.get_attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)

    @property
    def max_threads_per_block(self):
        return self.get_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)

    def __repr__(self):
        return "<gpuarr.driver.Function %r>" % self.function_name
