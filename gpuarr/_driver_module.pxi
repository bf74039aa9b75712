# Modules; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the Module class (get_function, get_global, unloading in its own
# context), module_from_buffer with its JIT options and logs (and, where the
# driver cannot count a kernel's parameters, the counts read from the
# image), and module_from_file.

DEF LOG_SIZE = 16384


cdef class Module:
    """Code loaded into a context (``cuModuleLoadDataEx``); unloaded when it
    and every :class:`Function` taken from it have died."""

    def __init__(self):
        raise TypeError("use module_from_buffer() or module_from_file()")

    @property
    def handle(self):
        return <uintptr_t>self.module

    def get_function(self, name):
        """The kernel ``name`` (``cuModuleGetFunction``).

        Raises
        ------
        LogicError
            ``CUDA_ERROR_NOT_FOUND`` when the module has no such kernel
            (C++ names are mangled unless declared ``extern "C"``).
        """
        cdef CUfunction f = NULL
        bname = name.encode()
        r = api.cuModuleGetFunction(&f, self.module, bname)
        if r != CUDA_SUCCESS:
            raise _make_error(r, "cuModuleGetFunction", "kernel name: %r" % name)
        return _new_function(self, f, name)

    def get_global(self, name):
        """``(address, nbytes)`` of the ``__device__`` or ``__constant__``
        variable ``name`` (``cuModuleGetGlobal``)."""
        cdef CUdeviceptr p = 0
        cdef size_t n = 0
        bname = name.encode()
        r = api.cuModuleGetGlobal(&p, &n, self.module, bname)
        if r != CUDA_SUCCESS:
            raise _make_error(r, "cuModuleGetGlobal_v2", "variable name: %r" % name)
        return (p, n)

    def get_texref(self, name):
        """PyCUDA's texture-reference lookup, which cannot exist any more.

        Raises
        ------
        NotSupportedError
            Always: CUDA 12 removed texture references (and
            ``cuModuleGetTexRef``) from the driver API. The message names
            what to use instead: texture objects (``cudaTextureObject_t``
            kernel arguments), or a plain ``const T *__restrict__``
            pointer argument, whose loads use the same read-only cache.
        """
        raise _errors.NotSupportedError(
            "Module.get_texref(%r): texture references were removed in CUDA "
            "12 (cuModuleGetTexRef is gone); declare the kernel argument as "
            "a cudaTextureObject_t and pass a gpuarr.driver.TextureObject "
            "(over an Array, linear or pitched memory), or read the data "
            "through a plain const T *__restrict__ argument" % (name,))

    def get_surfref(self, name):
        """PyCUDA's surface-reference lookup, which cannot exist any more.

        Raises
        ------
        NotSupportedError
            Always: CUDA 12 removed surface references; use surface objects
            (``cudaSurfaceObject_t`` kernel arguments).
        """
        raise _errors.NotSupportedError(
            "Module.get_surfref(%r): surface references were removed in CUDA "
            "12 (cuModuleGetSurfRef is gone); declare the kernel argument as "
            "a cudaSurfaceObject_t and pass a gpuarr.driver.SurfaceObject" % (name,))

    def __dealloc__(self):
        if self.module == NULL or not _release_ok(self.context, "module"):
            return
        _release_in_context(self.context, _REL_MODULE, <uintptr_t>self.module, None)
        self.module = NULL


def module_from_buffer(buffer, options=None, message_handler=None):
    """Load a cubin, fatbin or PTX image into the current context
    (``cuModuleLoadDataEx``).

    Parameters
    ----------
    buffer : bytes, bytearray, memoryview or str
        The image; a ``str`` is PTX text.
    options : list of (jit_option, int), optional
        JIT options for PTX.
    message_handler : callable, optional
        Called as ``message_handler(succeeded, info_log, error_log)``.

    Raises
    ------
    LogicError
        ``CUDA_ERROR_INVALID_IMAGE``, ``CUDA_ERROR_INVALID_PTX`` and the like,
        with the JIT's error log in the message.
    NotSupportedError
        ``CUDA_ERROR_UNSUPPORTED_PTX_VERSION`` (PTX newer than the driver) or
        ``CUDA_ERROR_NO_BINARY_FOR_GPU``.
    """
    cdef CUmodule m = NULL
    cdef int opts[32]
    cdef void* vals[32]
    cdef char info_log[LOG_SIZE]
    cdef char error_log[LOG_SIZE]
    cdef unsigned int nopts = 4
    cdef CUresult r
    if isinstance(buffer, str):
        data = buffer.encode()
    else:
        data = bytes(buffer)
    if not data.endswith(b"\0"):
        data += b"\0"
    ctx = _current_context()
    info_log[0] = 0
    error_log[0] = 0
    opts[0] = CU_JIT_INFO_LOG_BUFFER
    vals[0] = <void*>info_log
    opts[1] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
    vals[1] = <void*><uintptr_t>LOG_SIZE
    opts[2] = CU_JIT_ERROR_LOG_BUFFER
    vals[2] = <void*>error_log
    opts[3] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
    vals[3] = <void*><uintptr_t>LOG_SIZE
    for opt, val in (options or ()):
        if nopts >= 32:
            raise ValueError("too many JIT options")
        opts[nopts] = int(opt)
        vals[nopts] = <void*><uintptr_t>int(val)
        nopts += 1
    cdef const char* p = data
    with nogil:
        r = api.cuModuleLoadDataEx(&m, p, nopts, opts, vals)
    info = info_log[:LOG_SIZE].split(b"\0", 1)[0].decode(errors="replace")
    err = error_log[:LOG_SIZE].split(b"\0", 1)[0].decode(errors="replace")
    if message_handler is not None:
        message_handler(r == CUDA_SUCCESS, info, err)
    if r != CUDA_SUCCESS:
        raise _make_error(r, "cuModuleLoadDataEx", ("JIT log:\n" + err) if err else None)
    cdef Module mod = Module.__new__(Module)
    mod.module = m
    mod.context = ctx
    if api.cuFuncGetParamInfo != NULL and api.cuFuncGetParamCount == NULL:
        # Read here, while the image is at hand: _new_function needs the
        # count to ask cuFuncGetParamInfo for existing parameters only.
        mod.param_counts = _image.param_counts(data)
    return mod


def module_from_file(filename):
    """Load a cubin, fatbin or PTX file into the current context.

    Reads the file and passes its bytes to :func:`module_from_buffer`
    (``cuModuleLoadDataEx``, with no JIT options); PyCUDA's
    ``module_from_file``.

    Parameters
    ----------
    filename : str or os.PathLike
        The file to load.

    Returns
    -------
    Module
        The loaded module.

    Raises
    ------
    OSError
        When the file cannot be read.
    LogicError
        For an image the driver refuses (``CUDA_ERROR_INVALID_IMAGE``,
        ``CUDA_ERROR_INVALID_PTX``, ...; the JIT log is in the message).
    InvalidContextError
        When no context is current.
    """
    with open(filename, "rb") as f:
        return module_from_buffer(f.read())
