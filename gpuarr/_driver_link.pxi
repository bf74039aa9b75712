# Linking; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the Linker class: a cuLink* state (cuLinkCreate_v2,
# cuLinkAddData_v2, cuLinkAddFile_v2, cuLinkComplete, cuLinkDestroy) with
# its info and error logs, made in the current context and destroyed with
# the object; link_module() loads the result through module_from_buffer.
# Every cuLink* call after cuLinkCreate, the load and the destroy run with
# the Linker's own context current (pushed for the call when another is).

cdef enum:
    _LINK_LOG = 65536
    _LINK_NOPTS = 5


# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
# __init__ embeds no signature of its own, which would come first and hide it.
cdef class Linker:
    """Linker(message_handler=None, options=None, log_verbose=False)
--

Links relocatable device code into one image (PyCUDA's ``Linker``):
    PTX, cubins, fatbinaries, objects and libraries (``libcudadevrt.a``),
    with the driver's linker (``cuLink*``).

    Parameters
    ----------
    message_handler : callable, optional
        Called as ``message_handler(succeeded, info_log, error_log)`` after
        :meth:`link_module` (and after a failing :meth:`add_data` or
        :meth:`add_file`).
    options : list of (jit_option, int), optional
        More JIT/link options for ``cuLinkCreate``, as ``(option, value)``
        pairs; each value is passed as an integer.
    log_verbose : bool, optional
        ``CU_JIT_LOG_VERBOSE``: the info log tells more.

    Raises
    ------
    InvalidContextError
        No context is current (later calls: this Linker's context was
        detached).
    NotSupportedError
        The driver lacks the cuLink entry points.

    Notes
    -----
    The link belongs to the context current at creation; later calls, the
    load of :meth:`link_module` and the destruction push it for their
    duration when another context is current.
    """
    cdef CUlinkState state
    cdef Context context
    cdef char* info_buf
    cdef char* error_buf
    cdef int* opts
    cdef void** vals
    cdef object message_handler
    cdef list keep
    cdef bint done

    def __cinit__(self):
        self.state = NULL
        self.info_buf = NULL
        self.error_buf = NULL
        self.opts = NULL
        self.vals = NULL

    @cython.embedsignature(False)
    def __init__(self, message_handler=None, options=None, log_verbose=False):
        cdef unsigned int n = 0
        cdef CUresult r
        self.context = _current_context()
        if api.cuLinkCreate == NULL:
            raise _errors.NotSupportedError("this driver has no cuLinkCreate_v2")
        extra = list(options or ())
        self.info_buf = <char*>malloc(_LINK_LOG)
        self.error_buf = <char*>malloc(_LINK_LOG)
        self.opts = <int*>malloc((_LINK_NOPTS + len(extra)) * sizeof(int))
        self.vals = <void**>malloc((_LINK_NOPTS + len(extra)) * sizeof(void*))
        if (self.info_buf == NULL or self.error_buf == NULL or self.opts == NULL
                or self.vals == NULL):
            raise MemoryError()
        self.info_buf[0] = 0
        self.error_buf[0] = 0
        self.opts[0] = CU_JIT_INFO_LOG_BUFFER
        self.vals[0] = <void*>self.info_buf
        self.opts[1] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
        self.vals[1] = <void*><uintptr_t>_LINK_LOG
        self.opts[2] = CU_JIT_ERROR_LOG_BUFFER
        self.vals[2] = <void*>self.error_buf
        self.opts[3] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
        self.vals[3] = <void*><uintptr_t>_LINK_LOG
        n = 4
        if log_verbose:
            self.opts[n] = CU_JIT_LOG_VERBOSE
            self.vals[n] = <void*><uintptr_t>1
            n += 1
        for opt, val in extra:
            self.opts[n] = int(opt)
            self.vals[n] = <void*><uintptr_t>int(val)
            n += 1
        self.message_handler = message_handler
        self.keep = []
        r = api.cuLinkCreate(n, self.opts, self.vals, &self.state)
        if r != CUDA_SUCCESS:
            self.state = NULL
            raise _make_error(r, "cuLinkCreate_v2", None)

    @property
    def info_log(self):
        """The linker's info log so far (str)."""
        if self.info_buf == NULL:
            return ""
        return (<bytes>self.info_buf[:_LINK_LOG]).split(b"\0", 1)[0].decode(errors="replace")

    @property
    def error_log(self):
        """The linker's error log so far (str)."""
        if self.error_buf == NULL:
            return ""
        return (<bytes>self.error_buf[:_LINK_LOG]).split(b"\0", 1)[0].decode(errors="replace")

    cdef int _alive(self) except -1:
        if self.state == NULL or self.done:
            raise _errors.LogicError("this Linker has completed (or failed to start)")
        return 0

    cdef int _enter(self, bint* pushed) except -1:
        """Make this Linker's context current (pushed if another is)."""
        if not self.context.valid:
            raise _errors.InvalidContextError("this Linker's context was detached")
        check(_push_if_needed(self.context.ctx, pushed), "cuCtxPushCurrent_v2")
        return 0

    cdef _fail(self, CUresult r, str call, str what):
        err = self.error_log
        if self.message_handler is not None:
            self.message_handler(False, self.info_log, err)
        detail = what + ((";\nlink log:\n" + err) if err else "")
        return _make_error(r, call, detail)

    def add_data(self, data, input_type, name="unknown"):
        """Add an image held in memory (``cuLinkAddData_v2``).

        Parameters
        ----------
        data : bytes, bytearray, memoryview or str
            PTX (``str`` or bytes), a cubin, fatbinary, object or library.
        input_type : jit_input_type or int
            ``jit_input_type.PTX``, ``CUBIN``, ``FATBINARY``, ``OBJECT``,
            ``LIBRARY``.
        name : str, optional
            The name the logs use.

        Raises
        ------
        LogicError
            An invalid image (the link log is in the message).
        """
        cdef CUresult r, r2 = CUDA_SUCCESS
        cdef bint pushed = False
        self._alive()
        if isinstance(data, str):
            buf = data.encode()
        else:
            buf = bytes(data)
        cdef int kind = int(input_type)
        if kind == 1 and not buf.endswith(b"\0"):
            buf += b"\0"          # PTX is NUL-terminated
        self.keep.append(buf)
        bname = str(name).encode()
        cdef const char* p = buf
        cdef size_t size = len(buf)
        cdef const char* cname = bname
        self._enter(&pushed)
        with nogil:
            r = api.cuLinkAddData(self.state, kind, <void*>p, size, cname, 0, NULL, NULL)
            r2 = _pop_if_pushed(pushed)
        if r != CUDA_SUCCESS:
            raise self._fail(r, "cuLinkAddData_v2", "adding %r" % (name,))
        check(r2, "cuCtxPopCurrent_v2")
        return self

    def add_file(self, filename, input_type):
        """Add an image file, such as ``libcudadevrt.a``
        (``cuLinkAddFile_v2``).

        Raises
        ------
        FileNotFoundError
            No such file (checked first).
        LogicError
            The driver refused the file (link log in the message).
        """
        cdef CUresult r, r2 = CUDA_SUCCESS
        cdef bint pushed = False
        self._alive()
        path = os.fspath(filename)
        if not os.path.isfile(path):
            raise FileNotFoundError("no such file to link: %r" % (path,))
        bpath = os.fsencode(path)
        cdef int kind = int(input_type)
        cdef const char* cpath = bpath
        self._enter(&pushed)
        with nogil:
            r = api.cuLinkAddFile(self.state, kind, cpath, 0, NULL, NULL)
            r2 = _pop_if_pushed(pushed)
        if r != CUDA_SUCCESS:
            raise self._fail(r, "cuLinkAddFile_v2", "adding %r" % (path,))
        check(r2, "cuCtxPopCurrent_v2")
        return self

    def complete(self):
        """Link what was added (``cuLinkComplete``) and return the image.

        Returns
        -------
        bytes
            The linked cubin (a copy: the driver's buffer dies with the
            link state).
        """
        cdef void* out = NULL
        cdef size_t size = 0
        cdef CUresult r, r2 = CUDA_SUCCESS
        cdef bint pushed = False
        self._alive()
        self._enter(&pushed)
        with nogil:
            r = api.cuLinkComplete(self.state, &out, &size)
            r2 = _pop_if_pushed(pushed)
        if r != CUDA_SUCCESS:
            raise self._fail(r, "cuLinkComplete", "linking")
        image = (<char*>out)[:size]     # host memory of the link state
        check(r2, "cuCtxPopCurrent_v2")
        self.done = True
        if self.message_handler is not None:
            self.message_handler(True, self.info_log, self.error_log)
        return image

    def link_module(self):
        """Link and load the result into this Linker's context.

        Returns
        -------
        Module
        """
        cdef bint pushed = False
        cdef CUresult r2
        image = self.complete()
        self._enter(&pushed)
        try:
            module = module_from_buffer(image)
        finally:
            r2 = _pop_if_pushed(pushed)
        check(r2, "cuCtxPopCurrent_v2")
        return module

    def __dealloc__(self):
        cdef bint pushed = False
        cdef bint valid = False
        if self.state != NULL and api.cuLinkDestroy != NULL and not _finalizing:
            try:
                valid = self.context is not None and self.context.valid
            except BaseException:
                valid = False
            # A detached context: the state is still destroyed (host memory
            # of the driver's), with no context to push.
            if not valid or _push_if_needed(self.context.ctx, &pushed) == CUDA_SUCCESS:
                api.cuLinkDestroy(self.state)
                _pop_if_pushed(pushed)
        self.state = NULL
        free(self.info_buf)
        free(self.error_buf)
        free(self.opts)
        free(self.vals)
