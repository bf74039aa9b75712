# Releasing handles, now or later; part of gpuarr/_driver.pyx, which
# includes this file.
#
# Owns: the one switch that releases a handle of each kind
# (_release_handle), the release path every destructor takes
# (_release_in_context), the deferred release queue of each Context, and
# its draining (_drain_deferred) at the context's next allocation,
# synchronize, push or detach.
#
# A handle is released in its own context, pushed for the release when
# another (or none) is current on the releasing thread: CUDA lets a
# context be current on several threads, so an object dropped on another
# thread, or by the garbage collector while another context is current,
# is released at once (PyCUDA refuses there and leaks). What cannot be
# released at once is queued: a handle dropped while a stream capture is
# in progress (in any context: a GLOBAL-mode capture forbids cuMemFree or
# a destroy on every thread, and they would invalidate it).

# Captures begun with Stream.begin_capture and not yet ended, in every
# context (_driver_graph.pxi counts them; capture_in_progress). A GLOBAL
# capture forbids unsafe calls such as cuMemFree on every thread, so while
# one is in progress anywhere, releases wait.
cdef int _active_captures = 0

cdef enum:
    _REL_MEM = 1             # cuMemFree
    _REL_MEM_ASYNC = 2       # cuMemFreeAsync on the Stream in extra (or NULL)
    _REL_EVENT = 3           # cuEventDestroy
    _REL_STREAM = 4          # cuStreamDestroy
    _REL_MODULE = 5          # cuModuleUnload
    _REL_HOST = 6            # cuMemFreeHost
    _REL_HOST_REGISTERED = 7 # cuMemHostUnregister
    _REL_IPC_MEM = 8         # cuIpcCloseMemHandle

_RELEASE_NAMES = {
    _REL_MEM: "device allocation", _REL_MEM_ASYNC: "device allocation",
    _REL_EVENT: "event", _REL_STREAM: "stream", _REL_MODULE: "module",
    _REL_HOST: "page-locked host allocation",
    _REL_HOST_REGISTERED: "page-locked host allocation",
    _REL_IPC_MEM: "IPC memory mapping",
}


cdef CUresult _release_handle(int kind, uintptr_t h, object extra) noexcept:
    """Release one handle; its context is current on this thread."""
    cdef CUstream s = NULL
    cdef CUresult r = CUDA_SUCCESS
    if kind == _REL_MEM_ASYNC and extra is not None:
        s = (<Stream>extra).stream
    with nogil:
        if kind == _REL_MEM:
            r = api.cuMemFree(<CUdeviceptr>h)
        elif kind == _REL_MEM_ASYNC:
            r = api.cuMemFreeAsync(<CUdeviceptr>h, s)
        elif kind == _REL_EVENT:
            r = api.cuEventDestroy(<CUevent>h)
        elif kind == _REL_STREAM:
            r = api.cuStreamDestroy(<CUstream>h)
        elif kind == _REL_MODULE:
            r = api.cuModuleUnload(<CUmodule>h)
        elif kind == _REL_HOST:
            r = api.cuMemFreeHost(<void*>h)
        elif kind == _REL_HOST_REGISTERED:
            r = api.cuMemHostUnregister(<void*>h)
        elif kind == _REL_IPC_MEM:
            r = _ipc_close(<CUdeviceptr>h)
    return r


cdef void _release_in_context(Context ctx, int kind, uintptr_t h, object extra) noexcept:
    """What a destructor does with its handle once ``_release_ok`` said
    yes: release it in its context now, or queue it on the context while a
    capture is in progress there. Never raises; a failure is a warning."""
    cdef bint pushed = False
    cdef CUresult r
    try:
        if _active_captures:
            if ctx.deferred is None:
                ctx.deferred = []
            ctx.deferred.append((kind, h, extra))
            return
        r = _push_if_needed(ctx.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = _release_handle(kind, h, extra)
            _pop_if_pushed(pushed)
        if r != CUDA_SUCCESS:
            _release_failed(_RELEASE_NAMES[kind], r)
    except BaseException:
        pass


cdef int _drain_deferred(Context ctx) except -1:
    """Release the handles queued on ``ctx``, which is current on this
    thread; nothing while a capture is in progress there. Failures are
    warnings, as they would have been in the destructors."""
    cdef CUresult r
    if _active_captures or not ctx.valid:
        return 0
    items = ctx.deferred
    ctx.deferred = None
    for kind, h, extra in items:
        r = _release_handle(kind, h, extra)
        if r != CUDA_SUCCESS:
            _release_failed(_RELEASE_NAMES[kind], r)
    return 0


cdef int _drain_pushed(Context ctx) except -1:
    """_drain_deferred for a context that may not be current (pushed for
    it); for detach and the context's own destructor."""
    cdef bint pushed = False
    cdef CUresult r
    if not ctx.deferred or _active_captures:
        return 0
    r = _push_if_needed(ctx.ctx, &pushed)
    if r != CUDA_SUCCESS:
        ctx.deferred = None
        return 0
    try:
        _drain_deferred(ctx)
    finally:
        _pop_if_pushed(pushed)
    return 0
