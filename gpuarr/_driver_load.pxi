# Loading libcuda and the one error funnel; part of gpuarr/_driver.pyx,
# which includes this file.
#
# Owns: resolving every entry point into the ``api`` table (_resolve,
# _load), cuInit (_ensure, init), the driver version queries, check() and
# _make_error (every CUresult passes through them), and the helpers that
# destructors use to release a handle in its own context without raising
# (_release_ok, _release_failed, _push_if_needed, _pop_if_pushed).

cdef void* _get(const char* name, list missing):
    cdef void* p = dlsym(_libcuda, name)
    if p == NULL and missing is not None:
        missing.append(name.decode())
    return p


cdef int _resolve() except -1:
    missing = []
    (<void**>&api.cuInit)[0] = _get(b"cuInit", missing)
    (<void**>&api.cuDriverGetVersion)[0] = _get(b"cuDriverGetVersion", missing)
    (<void**>&api.cuGetErrorName)[0] = _get(b"cuGetErrorName", missing)
    (<void**>&api.cuGetErrorString)[0] = _get(b"cuGetErrorString", missing)
    (<void**>&api.cuDeviceGet)[0] = _get(b"cuDeviceGet", missing)
    (<void**>&api.cuDeviceGetCount)[0] = _get(b"cuDeviceGetCount", missing)
    (<void**>&api.cuDeviceGetName)[0] = _get(b"cuDeviceGetName", missing)
    (<void**>&api.cuDeviceGetAttribute)[0] = _get(b"cuDeviceGetAttribute", missing)
    (<void**>&api.cuDeviceTotalMem)[0] = _get(b"cuDeviceTotalMem_v2", missing)
    (<void**>&api.cuDeviceGetPCIBusId)[0] = _get(b"cuDeviceGetPCIBusId", missing)
    (<void**>&api.cuDevicePrimaryCtxRetain)[0] = _get(b"cuDevicePrimaryCtxRetain", missing)
    (<void**>&api.cuDevicePrimaryCtxRelease)[0] = _get(b"cuDevicePrimaryCtxRelease_v2", missing)
    (<void**>&api.cuDevicePrimaryCtxGetState)[0] = _get(b"cuDevicePrimaryCtxGetState", missing)
    (<void**>&api.cuCtxCreate)[0] = _get(b"cuCtxCreate_v2", None)
    (<void**>&api.cuCtxCreate_v4)[0] = _get(b"cuCtxCreate_v4", None)
    (<void**>&api.cuCtxDestroy)[0] = _get(b"cuCtxDestroy_v2", missing)
    (<void**>&api.cuCtxPushCurrent)[0] = _get(b"cuCtxPushCurrent_v2", missing)
    (<void**>&api.cuCtxPopCurrent)[0] = _get(b"cuCtxPopCurrent_v2", missing)
    (<void**>&api.cuCtxGetCurrent)[0] = _get(b"cuCtxGetCurrent", missing)
    (<void**>&api.cuCtxSetCurrent)[0] = _get(b"cuCtxSetCurrent", missing)
    (<void**>&api.cuCtxSynchronize)[0] = _get(b"cuCtxSynchronize", missing)
    (<void**>&api.cuCtxGetDevice)[0] = _get(b"cuCtxGetDevice", missing)
    (<void**>&api.cuCtxGetLimit)[0] = _get(b"cuCtxGetLimit", missing)
    (<void**>&api.cuCtxSetLimit)[0] = _get(b"cuCtxSetLimit", missing)
    (<void**>&api.cuCtxGetCacheConfig)[0] = _get(b"cuCtxGetCacheConfig", missing)
    (<void**>&api.cuCtxSetCacheConfig)[0] = _get(b"cuCtxSetCacheConfig", missing)
    (<void**>&api.cuCtxGetApiVersion)[0] = _get(b"cuCtxGetApiVersion", missing)
    # PyCUDA-compatibility context calls; optional (cuCtxAttach and
    # cuCtxDetach are deprecated and may leave the driver).
    (<void**>&api.cuCtxGetStreamPriorityRange)[0] = _get(b"cuCtxGetStreamPriorityRange", None)
    (<void**>&api.cuCtxAttach)[0] = _get(b"cuCtxAttach", None)
    (<void**>&api.cuCtxDetach)[0] = _get(b"cuCtxDetach", None)
    (<void**>&api.cuMemAlloc)[0] = _get(b"cuMemAlloc_v2", missing)
    (<void**>&api.cuMemFree)[0] = _get(b"cuMemFree_v2", missing)
    (<void**>&api.cuMemGetInfo)[0] = _get(b"cuMemGetInfo_v2", missing)
    (<void**>&api.cuMemAllocAsync)[0] = _get(b"cuMemAllocAsync", None)
    (<void**>&api.cuMemFreeAsync)[0] = _get(b"cuMemFreeAsync", None)
    (<void**>&api.cuDeviceGetDefaultMemPool)[0] = _get(b"cuDeviceGetDefaultMemPool", None)
    (<void**>&api.cuMemPoolSetAttribute)[0] = _get(b"cuMemPoolSetAttribute", None)
    (<void**>&api.cuMemPoolGetAttribute)[0] = _get(b"cuMemPoolGetAttribute", None)
    (<void**>&api.cuMemPoolTrimTo)[0] = _get(b"cuMemPoolTrimTo", None)
    (<void**>&api.cuMemHostAlloc)[0] = _get(b"cuMemHostAlloc", missing)
    (<void**>&api.cuMemFreeHost)[0] = _get(b"cuMemFreeHost", missing)
    (<void**>&api.cuMemHostRegister)[0] = _get(b"cuMemHostRegister_v2", missing)
    (<void**>&api.cuMemHostUnregister)[0] = _get(b"cuMemHostUnregister", missing)
    (<void**>&api.cuMemHostGetDevicePointer)[0] = _get(b"cuMemHostGetDevicePointer_v2", missing)
    (<void**>&api.cuMemcpyHtoD)[0] = _get(b"cuMemcpyHtoD_v2", missing)
    (<void**>&api.cuMemcpyDtoH)[0] = _get(b"cuMemcpyDtoH_v2", missing)
    (<void**>&api.cuMemcpyDtoD)[0] = _get(b"cuMemcpyDtoD_v2", missing)
    (<void**>&api.cuMemcpyHtoDAsync)[0] = _get(b"cuMemcpyHtoDAsync_v2", missing)
    (<void**>&api.cuMemcpyDtoHAsync)[0] = _get(b"cuMemcpyDtoHAsync_v2", missing)
    (<void**>&api.cuMemcpyDtoDAsync)[0] = _get(b"cuMemcpyDtoDAsync_v2", missing)
    (<void**>&api.cuMemsetD8)[0] = _get(b"cuMemsetD8_v2", missing)
    (<void**>&api.cuMemsetD16)[0] = _get(b"cuMemsetD16_v2", missing)
    (<void**>&api.cuMemsetD32)[0] = _get(b"cuMemsetD32_v2", missing)
    (<void**>&api.cuMemsetD8Async)[0] = _get(b"cuMemsetD8Async", missing)
    (<void**>&api.cuMemsetD16Async)[0] = _get(b"cuMemsetD16Async", missing)
    (<void**>&api.cuMemsetD32Async)[0] = _get(b"cuMemsetD32Async", missing)
    (<void**>&api.cuPointerGetAttribute)[0] = _get(b"cuPointerGetAttribute", missing)
    (<void**>&api.cuModuleLoadDataEx)[0] = _get(b"cuModuleLoadDataEx", missing)
    (<void**>&api.cuModuleUnload)[0] = _get(b"cuModuleUnload", missing)
    (<void**>&api.cuModuleGetFunction)[0] = _get(b"cuModuleGetFunction", missing)
    (<void**>&api.cuModuleGetGlobal)[0] = _get(b"cuModuleGetGlobal_v2", missing)
    # linking (cuLink*; _driver_link.pxi): checked where used
    (<void**>&api.cuLinkCreate)[0] = _get(b"cuLinkCreate_v2", None)
    (<void**>&api.cuLinkAddData)[0] = _get(b"cuLinkAddData_v2", None)
    (<void**>&api.cuLinkAddFile)[0] = _get(b"cuLinkAddFile_v2", None)
    (<void**>&api.cuLinkComplete)[0] = _get(b"cuLinkComplete", None)
    (<void**>&api.cuLinkDestroy)[0] = _get(b"cuLinkDestroy", None)
    (<void**>&api.cuFuncGetAttribute)[0] = _get(b"cuFuncGetAttribute", missing)
    (<void**>&api.cuFuncSetAttribute)[0] = _get(b"cuFuncSetAttribute", missing)
    (<void**>&api.cuFuncSetCacheConfig)[0] = _get(b"cuFuncSetCacheConfig", missing)
    (<void**>&api.cuFuncGetParamInfo)[0] = _get(b"cuFuncGetParamInfo", None)
    (<void**>&api.cuFuncGetParamCount)[0] = _get(b"cuFuncGetParamCount", None)
    (<void**>&api.cuLaunchKernel)[0] = _get(b"cuLaunchKernel", missing)
    (<void**>&api.cuStreamCreate)[0] = _get(b"cuStreamCreate", missing)
    (<void**>&api.cuStreamCreateWithPriority)[0] = _get(b"cuStreamCreateWithPriority", missing)
    (<void**>&api.cuStreamGetPriority)[0] = _get(b"cuStreamGetPriority", missing)
    (<void**>&api.cuStreamGetFlags)[0] = _get(b"cuStreamGetFlags", missing)
    (<void**>&api.cuStreamDestroy)[0] = _get(b"cuStreamDestroy_v2", missing)
    (<void**>&api.cuStreamSynchronize)[0] = _get(b"cuStreamSynchronize", missing)
    (<void**>&api.cuStreamQuery)[0] = _get(b"cuStreamQuery", missing)
    (<void**>&api.cuStreamWaitEvent)[0] = _get(b"cuStreamWaitEvent", missing)
    (<void**>&api.cuEventCreate)[0] = _get(b"cuEventCreate", missing)
    (<void**>&api.cuEventDestroy)[0] = _get(b"cuEventDestroy_v2", missing)
    (<void**>&api.cuEventRecord)[0] = _get(b"cuEventRecord", missing)
    (<void**>&api.cuEventSynchronize)[0] = _get(b"cuEventSynchronize", missing)
    (<void**>&api.cuEventQuery)[0] = _get(b"cuEventQuery", missing)
    (<void**>&api.cuEventElapsedTime)[0] = _get(b"cuEventElapsedTime_v2", None)
    if api.cuEventElapsedTime == NULL:
        (<void**>&api.cuEventElapsedTime)[0] = _get(b"cuEventElapsedTime", missing)
    if api.cuCtxCreate == NULL and api.cuCtxCreate_v4 == NULL:
        missing.append("cuCtxCreate_v2")
    if missing:
        raise _errors.DriverNotFoundError(
            "the CUDA driver library was found but lacks %s; gpuarr needs a "
            "driver for CUDA 12.0 or newer (install a newer NVIDIA driver)"
            % ", ".join(missing))
    return 0


cdef int _load() except -1:
    global _loaded, _libcuda
    if _loaded:
        return 0
    with _load_lock:
        if _loaded:
            return 0
        name = _config.settings.libcuda_path or "libcuda.so.1"
        handle = dlopen(os.fsencode(name), RTLD_NOW | RTLD_GLOBAL)
        if handle == NULL:
            err = dlerror()
            why = err.decode(errors="replace") if err != NULL else "unknown reason"
            raise _errors.DriverNotFoundError(
                "%s was not found (%s). gpuarr needs the NVIDIA driver, which "
                "provides libcuda.so.1: install the NVIDIA GPU driver for your "
                "system (the CUDA toolkit alone is not enough), or set "
                "GPUARR_LIBCUDA to the library's path." % (name, why))
        _libcuda = handle
        _resolve()
        _loaded = True
    return 0


# Set in a child made by os.fork() after this process had initialized
# the driver: CUDA state does not survive fork, so every call there fails
# (_forked_error) instead of reaching the driver.
cdef bint _forked = False


def _after_fork_in_child():
    global _forked, _initialized
    if _initialized or _forked:
        _forked = True
        _initialized = False


os.register_at_fork(after_in_child=_after_fork_in_child)


cdef object _forked_error():
    return _errors.RuntimeError(
        "CUDA was initialized in the parent of this process before "
        "os.fork(), and the CUDA driver cannot be used in a forked child: "
        "start worker processes with multiprocessing's 'spawn' (or "
        "'forkserver') start method, or initialize CUDA only in the "
        "children", name="CUDA_ERROR_INITIALIZATION_ERROR", code=3)


cdef int _ensure() except -1:
    """Load libcuda and call cuInit(0) once."""
    global _initialized
    if _initialized:
        return 0
    if _forked:
        raise _forked_error()
    _load()
    check(api.cuInit(0), "cuInit")
    _initialized = True
    return 0


cdef object _make_error(CUresult result, str call, detail=None):
    cdef const char* text = NULL
    if _forked:
        return _forked_error()
    desc = None
    if api.cuGetErrorString != NULL:
        if api.cuGetErrorString(result, &text) == CUDA_SUCCESS and text != NULL:
            desc = text.decode(errors="replace")
    return _errors.make_error(result, call, desc, detail)


cdef int check(CUresult result, const char* call) except -1:
    """Raise the mapped exception when ``result`` is not CUDA_SUCCESS."""
    if result == CUDA_SUCCESS:
        return 0
    if _forked:
        raise _forked_error()
    raise _make_error(result, call.decode())


def init(unsigned int flags=0):
    """Initialize the driver (``cuInit``).

    Loads ``libcuda.so.1`` first. Calling it is optional: the first call that
    needs the driver initializes it.

    Parameters
    ----------
    flags : int, optional
        Passed to ``cuInit``, which takes 0 only (the default; PyCUDA's
        ``init(flags=0)``).

    Raises
    ------
    DriverNotFoundError
        When ``libcuda.so.1`` cannot be loaded.
    RuntimeError
        In a child forked after the driver was initialized (CUDA does not
        survive ``fork``), or for a ``cuInit`` failure such as
        ``CUDA_ERROR_NO_DEVICE``.
    LogicError
        ``CUDA_ERROR_INVALID_VALUE`` for nonzero ``flags``.
    """
    global _initialized
    if _forked:
        raise _forked_error()
    _load()
    check(api.cuInit(flags), "cuInit")
    _initialized = True


def get_version():
    """The CUDA version gpuarr's declarations follow, as ``(13, 0, 0)``."""
    return (CUDA_HEADER_VERSION // 1000, CUDA_HEADER_VERSION % 1000 // 10, 0)


def get_driver_version():
    """The CUDA version the installed driver supports (``cuDriverGetVersion``),
    as an int such as 13000."""
    cdef int v = 0
    _load()
    check(api.cuDriverGetVersion(&v), "cuDriverGetVersion")
    return v


def _is_finalizing():
    return _finalizing


cdef bint _release_ok(Context ctx, str what):
    """Whether a handle of ``ctx`` may be released now (never raises)."""
    if _finalizing or _forked or not _loaded or ctx is None:
        return False
    try:
        if sys.is_finalizing():
            return False
        if not ctx.valid:
            warnings.warn("gpuarr: a %s outlived its context, which was "
                          "detached; its handle is dropped" % what,
                          ResourceWarning, stacklevel=2)
            return False
    except BaseException:
        return False
    return True


cdef void _release_failed(str what, CUresult r) noexcept:
    try:
        if r == CUDA_ERROR_DEINITIALIZED or _finalizing:
            return
        warnings.warn("gpuarr: releasing a %s failed: %s" % (what, _make_error(r, what)),
                      ResourceWarning, stacklevel=2)
    except BaseException:
        pass


cdef CUresult _push_if_needed(CUcontext c, bint* pushed) noexcept nogil:
    cdef CUcontext cur = NULL
    cdef CUresult r = api.cuCtxGetCurrent(&cur)
    pushed[0] = False
    if r != CUDA_SUCCESS:
        return r
    if cur != c:
        r = api.cuCtxPushCurrent(c)
        if r == CUDA_SUCCESS:
            pushed[0] = True
    return r


cdef CUresult _pop_if_pushed(bint pushed) noexcept nogil:
    """Undo _push_if_needed. Destructors ignore the result (they cannot
    raise); other callers check it."""
    cdef CUcontext dummy = NULL
    if pushed:
        return api.cuCtxPopCurrent(&dummy)
    return CUDA_SUCCESS


cdef int _need(void* fn, str name, str since) except -1:
    """Raise NotSupportedError for an optional entry point the driver
    lacks (``fn`` NULL): ``name`` came with CUDA ``since``."""
    if fn == NULL:
        raise _errors.NotSupportedError(
            "this CUDA driver has no %s (it came with CUDA %s): install a "
            "newer NVIDIA driver" % (name, since), call=name)
    return 0
