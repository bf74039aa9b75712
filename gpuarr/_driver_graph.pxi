# CUDA graphs and host callbacks, part 1; part of gpuarr/_driver.pyx, which
# includes this file (and _driver_graph_nodes.pxi after it).
#
# Owns: the graph section's own table of entry points (gapi, filled by
# _graph_api() on first use), the host-function trampoline shared by
# Stream.add_callback, Stream.launch_host_func and host nodes, and stream
# capture: the helpers Stream's capture methods call and the registry that
# gives each capture in progress one Graph object.

from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF
from cpython.exc cimport PyErr_WriteUnraisable, PyErr_Restore

ctypedef void* CUgraph
ctypedef void* CUgraphNode
ctypedef void* CUgraphExec
ctypedef void (*_HostFn)(void*) noexcept nogil
ctypedef void (*_StreamCallback)(CUstream, CUresult, void*) noexcept nogil

# CUDA_KERNEL_NODE_PARAMS (the _v2 layout cuda.h 12+ names so)
ctypedef struct _KernelNodeParams:
    CUfunction func
    unsigned int gridDimX
    unsigned int gridDimY
    unsigned int gridDimZ
    unsigned int blockDimX
    unsigned int blockDimY
    unsigned int blockDimZ
    unsigned int sharedMemBytes
    void** kernelParams
    void** extra
    void* kern
    CUcontext ctx

# CUDA_MEMCPY3D (CUmemorytype fields are C enums: int)
ctypedef struct _Memcpy3DParams:
    size_t srcXInBytes
    size_t srcY
    size_t srcZ
    size_t srcLOD
    int srcMemoryType
    const void* srcHost
    CUdeviceptr srcDevice
    void* srcArray
    void* reserved0
    size_t srcPitch
    size_t srcHeight
    size_t dstXInBytes
    size_t dstY
    size_t dstZ
    size_t dstLOD
    int dstMemoryType
    void* dstHost
    CUdeviceptr dstDevice
    void* dstArray
    void* reserved1
    size_t dstPitch
    size_t dstHeight
    size_t WidthInBytes
    size_t Height
    size_t Depth

# CUDA_MEMSET_NODE_PARAMS
ctypedef struct _MemsetNodeParams:
    CUdeviceptr dst
    size_t pitch
    unsigned int value
    unsigned int elementSize
    size_t width
    size_t height

# CUDA_HOST_NODE_PARAMS
ctypedef struct _HostNodeParams:
    _HostFn fn
    void* userData

# CUgraphExecUpdateResultInfo
ctypedef struct _ExecUpdateResultInfo:
    int result
    CUgraphNode errorNode
    CUgraphNode errorFromNode

cdef enum:
    _CAPTURE_NONE = 0
    _CAPTURE_ACTIVE = 1
    _CAPTURE_INVALIDATED = 2
    _MEMORYTYPE_HOST = 1
    _MEMORYTYPE_DEVICE = 2
    _NODE_KERNEL = 0

# The CUDA 13.0 names (cuda.h maps cuStreamGetCaptureInfo to _v3 and the
# edge-data calls to _v2); the older symbols are the fallbacks of drivers
# before CUDA 12.3.
ctypedef struct GraphAPI:
    CUresult (*cuStreamAddCallback)(CUstream, _StreamCallback, void*, unsigned int) noexcept nogil
    CUresult (*cuLaunchHostFunc)(CUstream, _HostFn, void*) noexcept nogil
    CUresult (*cuStreamBeginCapture_v2)(CUstream, int) noexcept nogil
    CUresult (*cuStreamEndCapture)(CUstream, CUgraph*) noexcept nogil
    CUresult (*cuStreamIsCapturing)(CUstream, int*) noexcept nogil
    CUresult (*cuStreamGetCaptureInfo_v3)(CUstream, int*, uint64_t*, CUgraph*,
                                          const CUgraphNode**, const void**,
                                          size_t*) noexcept nogil
    CUresult (*cuStreamGetCaptureInfo_v2)(CUstream, int*, uint64_t*, CUgraph*,
                                          const CUgraphNode**, size_t*) noexcept nogil
    CUresult (*cuStreamUpdateCaptureDependencies_v2)(CUstream, CUgraphNode*, const void*,
                                                     size_t, unsigned int) noexcept nogil
    CUresult (*cuStreamUpdateCaptureDependencies)(CUstream, CUgraphNode*, size_t,
                                                  unsigned int) noexcept nogil
    CUresult (*cuGraphCreate)(CUgraph*, unsigned int) noexcept nogil
    CUresult (*cuGraphDestroy)(CUgraph) noexcept nogil
    CUresult (*cuGraphClone)(CUgraph*, CUgraph) noexcept nogil
    CUresult (*cuGraphAddEmptyNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t) noexcept nogil
    CUresult (*cuGraphAddKernelNode_v2)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                        const _KernelNodeParams*) noexcept nogil
    CUresult (*cuGraphAddMemcpyNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                     const _Memcpy3DParams*, CUcontext) noexcept nogil
    CUresult (*cuGraphAddMemsetNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                     const _MemsetNodeParams*, CUcontext) noexcept nogil
    CUresult (*cuGraphAddHostNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                   const _HostNodeParams*) noexcept nogil
    CUresult (*cuGraphAddEventRecordNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                          CUevent) noexcept nogil
    CUresult (*cuGraphAddEventWaitNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                        CUevent) noexcept nogil
    CUresult (*cuGraphAddChildGraphNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                         CUgraph) noexcept nogil
    CUresult (*cuGraphGetNodes)(CUgraph, CUgraphNode*, size_t*) noexcept nogil
    CUresult (*cuGraphGetRootNodes)(CUgraph, CUgraphNode*, size_t*) noexcept nogil
    CUresult (*cuGraphAddDependencies_v2)(CUgraph, const CUgraphNode*, const CUgraphNode*,
                                          const void*, size_t) noexcept nogil
    CUresult (*cuGraphAddDependencies)(CUgraph, const CUgraphNode*, const CUgraphNode*,
                                       size_t) noexcept nogil
    CUresult (*cuGraphNodeGetType)(CUgraphNode, int*) noexcept nogil
    CUresult (*cuGraphNodeGetDependencies_v2)(CUgraphNode, CUgraphNode*, void*, size_t*) noexcept nogil
    CUresult (*cuGraphNodeGetDependencies)(CUgraphNode, CUgraphNode*, size_t*) noexcept nogil
    CUresult (*cuGraphDebugDotPrint)(CUgraph, const char*, unsigned int) noexcept nogil
    CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long) noexcept nogil
    CUresult (*cuGraphLaunch)(CUgraphExec, CUstream) noexcept nogil
    CUresult (*cuGraphExecDestroy)(CUgraphExec) noexcept nogil
    CUresult (*cuGraphExecKernelNodeSetParams_v2)(CUgraphExec, CUgraphNode,
                                                  const _KernelNodeParams*) noexcept nogil
    CUresult (*cuGraphExecUpdate_v2)(CUgraphExec, CUgraph, _ExecUpdateResultInfo*) noexcept nogil

cdef GraphAPI gapi
cdef bint _gapi_loaded = False


cdef int _graph_api() except -1:
    """Initialize the driver and resolve this section's entry points once
    (each may be NULL: _gneed raises where one is used)."""
    global _gapi_loaded
    if _gapi_loaded:
        return 0
    _ensure()
    (<void**>&gapi.cuStreamAddCallback)[0] = _get(b"cuStreamAddCallback", None)
    (<void**>&gapi.cuLaunchHostFunc)[0] = _get(b"cuLaunchHostFunc", None)
    (<void**>&gapi.cuStreamBeginCapture_v2)[0] = _get(b"cuStreamBeginCapture_v2", None)
    (<void**>&gapi.cuStreamEndCapture)[0] = _get(b"cuStreamEndCapture", None)
    (<void**>&gapi.cuStreamIsCapturing)[0] = _get(b"cuStreamIsCapturing", None)
    (<void**>&gapi.cuStreamGetCaptureInfo_v3)[0] = _get(b"cuStreamGetCaptureInfo_v3", None)
    (<void**>&gapi.cuStreamGetCaptureInfo_v2)[0] = _get(b"cuStreamGetCaptureInfo_v2", None)
    (<void**>&gapi.cuStreamUpdateCaptureDependencies_v2)[0] = \
        _get(b"cuStreamUpdateCaptureDependencies_v2", None)
    (<void**>&gapi.cuStreamUpdateCaptureDependencies)[0] = \
        _get(b"cuStreamUpdateCaptureDependencies", None)
    (<void**>&gapi.cuGraphCreate)[0] = _get(b"cuGraphCreate", None)
    (<void**>&gapi.cuGraphDestroy)[0] = _get(b"cuGraphDestroy", None)
    (<void**>&gapi.cuGraphClone)[0] = _get(b"cuGraphClone", None)
    (<void**>&gapi.cuGraphAddEmptyNode)[0] = _get(b"cuGraphAddEmptyNode", None)
    (<void**>&gapi.cuGraphAddKernelNode_v2)[0] = _get(b"cuGraphAddKernelNode_v2", None)
    (<void**>&gapi.cuGraphAddMemcpyNode)[0] = _get(b"cuGraphAddMemcpyNode", None)
    (<void**>&gapi.cuGraphAddMemsetNode)[0] = _get(b"cuGraphAddMemsetNode", None)
    (<void**>&gapi.cuGraphAddHostNode)[0] = _get(b"cuGraphAddHostNode", None)
    (<void**>&gapi.cuGraphAddEventRecordNode)[0] = _get(b"cuGraphAddEventRecordNode", None)
    (<void**>&gapi.cuGraphAddEventWaitNode)[0] = _get(b"cuGraphAddEventWaitNode", None)
    (<void**>&gapi.cuGraphAddChildGraphNode)[0] = _get(b"cuGraphAddChildGraphNode", None)
    (<void**>&gapi.cuGraphGetNodes)[0] = _get(b"cuGraphGetNodes", None)
    (<void**>&gapi.cuGraphGetRootNodes)[0] = _get(b"cuGraphGetRootNodes", None)
    (<void**>&gapi.cuGraphAddDependencies_v2)[0] = _get(b"cuGraphAddDependencies_v2", None)
    (<void**>&gapi.cuGraphAddDependencies)[0] = _get(b"cuGraphAddDependencies", None)
    (<void**>&gapi.cuGraphNodeGetType)[0] = _get(b"cuGraphNodeGetType", None)
    (<void**>&gapi.cuGraphNodeGetDependencies_v2)[0] = _get(b"cuGraphNodeGetDependencies_v2", None)
    (<void**>&gapi.cuGraphNodeGetDependencies)[0] = _get(b"cuGraphNodeGetDependencies", None)
    (<void**>&gapi.cuGraphDebugDotPrint)[0] = _get(b"cuGraphDebugDotPrint", None)
    (<void**>&gapi.cuGraphInstantiateWithFlags)[0] = _get(b"cuGraphInstantiateWithFlags", None)
    (<void**>&gapi.cuGraphLaunch)[0] = _get(b"cuGraphLaunch", None)
    (<void**>&gapi.cuGraphExecDestroy)[0] = _get(b"cuGraphExecDestroy", None)
    (<void**>&gapi.cuGraphExecKernelNodeSetParams_v2)[0] = \
        _get(b"cuGraphExecKernelNodeSetParams_v2", None)
    (<void**>&gapi.cuGraphExecUpdate_v2)[0] = _get(b"cuGraphExecUpdate_v2", None)
    _gapi_loaded = True
    return 0


cdef int _gneed(const void* entry, str name, str version="12.0") except -1:
    """Raise NotSupportedError when the driver lacks ``name``."""
    if entry == NULL:
        raise _errors.NotSupportedError(
            "this CUDA driver has no %s (it needs a driver for CUDA %s or newer)"
            % (name, version))
    return 0


# ---------------------------------------------------------------------------
# Host functions: one trampoline for stream callbacks, cuLaunchHostFunc and
# host nodes. It runs on a thread of the driver, takes the GIL and calls the
# Python callable; an exception goes to sys.unraisablehook.
# ---------------------------------------------------------------------------

cdef class _HostCall:
    """A Python callable and its arguments, as a host function's userData."""
    cdef object func
    cdef tuple args
    cdef object stream          # add_callback: the Stream passed to func
    cdef bint with_status       # add_callback: func(stream, status)
    cdef bint once              # one run, then given up by the trampoline


# One-shot calls that have run. The trampoline cannot drop them (their
# arguments may own CUDA memory, and CUDA calls are not allowed in a host
# function), so they are dropped here on an ordinary thread, at the next
# add_callback, launch_host_func or graph launch.
_finished_calls = []


cdef inline void _drop_finished_calls():
    if _finished_calls:
        del _finished_calls[:]


cdef void _run_host_call(void* data, CUresult status) noexcept with gil:
    cdef _HostCall call = <_HostCall>data
    cdef PyObject* et
    cdef PyObject* ev
    cdef PyObject* tb
    failed = None
    try:
        if call.with_status:
            call.func(call.stream, int(status))
        else:
            call.func(*call.args)
    except BaseException as exc:
        failed = exc
    if failed is not None:
        # report as Python reports what it cannot raise: sys.unraisablehook,
        # with the callable as the object ("Exception ignored in: <func>")
        etype = type(failed)
        etb = failed.__traceback__
        et = <PyObject*>etype
        ev = <PyObject*>failed
        tb = <PyObject*>etb
        Py_INCREF(etype)         # PyErr_Restore steals the three references
        Py_INCREF(failed)
        Py_INCREF(etb)
        PyErr_Restore(et, ev, tb)
        PyErr_WriteUnraisable(call.func)
        failed = None
    if call.once:
        _finished_calls.append(call)
        Py_DECREF(call)          # the reference taken when it was queued


cdef void _host_fn_trampoline(void* data) noexcept nogil:
    # at interpreter exit a driver thread must not take the GIL
    if not _finalizing:
        _run_host_call(data, CUDA_SUCCESS)


cdef void _stream_callback_trampoline(CUstream s, CUresult status, void* data) noexcept nogil:
    if not _finalizing:
        _run_host_call(data, status)


cdef _HostCall _new_host_call(object func, tuple args, str what):
    if not callable(func):
        raise TypeError("%s: the callback must be callable, not %s"
                        % (what, type(func).__name__))
    cdef _HostCall call = _HostCall.__new__(_HostCall)
    call.func = func
    call.args = args
    return call


# ---------------------------------------------------------------------------
# Stream capture
# ---------------------------------------------------------------------------

# capture id -> the Graph being captured (one object per capture, so that
# get_capture_info_v2 and end_capture return the same Graph, and what host
# functions launched into the capture need stays alive with it)
_captures = {}
def capture_in_progress():
    """Whether a stream capture begun with :meth:`Stream.begin_capture` is
    in progress in this process (on any stream, in any context). gpuarr's
    memory pools ask it before they hand out memory a graph must not own."""
    return _active_captures > 0

# What host functions captured into a capture gpuarr did not begin (one
# begun by other code) need: kept for the life of the process, since no
# Graph object of gpuarr's will own the captured graph.
_foreign_capture_keep = []

_CAPTURE_HINTS = _errors.CAPTURE_HINTS


cdef int _check_capturable(Stream st, str what) except -1:
    cdef uintptr_t h = <uintptr_t>st.stream
    if h == 0 or h == 1 or h == 2:
        raise ValueError("%s: the legacy default stream (and the per-thread default "
                         "stream) cannot be captured; capture a Stream() made for it"
                         % what)
    return 0


cdef int _capture_mode_value(object mode) except -1:
    try:
        m = PyNumber_Index(mode)
    except TypeError:
        raise TypeError("begin_capture: mode must be a capture_mode, not %s"
                        % type(mode).__name__) from None
    if m < 0 or m > 2:
        raise ValueError("begin_capture: mode must be capture_mode.GLOBAL, "
                         "THREAD_LOCAL or RELAXED (0, 1, 2), not %r" % (mode,))
    return m


cdef int _capture_info(CUstream s, int* status, uint64_t* cid, CUgraph* g,
                       const CUgraphNode** deps, size_t* ndeps) except -1:
    status[0] = _CAPTURE_NONE
    cid[0] = 0
    g[0] = NULL
    deps[0] = NULL
    ndeps[0] = 0
    if gapi.cuStreamGetCaptureInfo_v3 != NULL:
        check(gapi.cuStreamGetCaptureInfo_v3(s, status, cid, g, deps, NULL, ndeps),
              "cuStreamGetCaptureInfo_v3")
    elif gapi.cuStreamGetCaptureInfo_v2 != NULL:
        check(gapi.cuStreamGetCaptureInfo_v2(s, status, cid, g, deps, ndeps),
              "cuStreamGetCaptureInfo_v2")
    else:
        _gneed(NULL, "cuStreamGetCaptureInfo_v3")
    return 0


cdef object _capture_graph(uint64_t cid, CUgraph h, Context ctx):
    """The Graph object of capture ``cid`` (made on first sight: a capture
    begun by other code has one too, which does not own the graph)."""
    g = _captures.get(cid)
    if g is None:
        g = _new_graph(h, ctx, False)
        (<Graph>g).foreign = True
        _captures[cid] = g
    return g


cdef object _stream_begin_capture(Stream st, object mode):
    cdef int m = _capture_mode_value(mode)
    cdef int status
    cdef uint64_t cid
    cdef CUgraph h
    cdef const CUgraphNode* deps
    cdef size_t ndeps
    _check_capturable(st, "begin_capture")
    _graph_api()
    _gneed(gapi.cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2")
    check(gapi.cuStreamBeginCapture_v2(st.stream, m), "cuStreamBeginCapture_v2")
    # from here releases in the context wait in its queue (_driver_release.pxi)
    global _active_captures
    st.context.captures += 1
    _active_captures += 1
    st.capturing = True
    _capture_info(st.stream, &status, &cid, &h, &deps, &ndeps)
    st.capture_id = cid
    _captures[cid] = _new_graph(h, st.context, False)
    return None


cdef void _capture_abandoned(Context ctx) noexcept:
    """A stream died while capturing: its capture counts no more."""
    global _active_captures
    if ctx is not None and ctx.captures > 0:
        ctx.captures -= 1
    if _active_captures > 0:
        _active_captures -= 1


cdef int _capture_ended(Context ctx) except -1:
    """A capture begun by begin_capture in ``ctx`` is over: release what
    died meanwhile once none is left."""
    global _active_captures
    if ctx.captures > 0:
        ctx.captures -= 1
    if _active_captures > 0:
        _active_captures -= 1
    if not _active_captures and ctx.deferred:
        _drain_pushed(ctx)
    return 0


cdef object _stream_end_capture(Stream st):
    cdef int status
    cdef uint64_t cid
    cdef CUgraph h = NULL, out = NULL
    cdef const CUgraphNode* deps
    cdef size_t ndeps
    cdef CUresult r
    _graph_api()
    _gneed(gapi.cuStreamEndCapture, "cuStreamEndCapture")
    _capture_info(st.stream, &status, &cid, &h, &deps, &ndeps)
    if status == _CAPTURE_NONE:
        raise _errors.LogicError("end_capture: the stream is not capturing "
                                 "(call begin_capture first)")
    if st.capturing and status != _CAPTURE_ACTIVE:
        cid = st.capture_id      # the driver reports no id for an invalidated capture
    g = _captures.pop(cid, None)
    r = gapi.cuStreamEndCapture(st.stream, &out)
    if r != CUDA_SUCCESS:
        if r == 908 or r == 903:
            # the capture goes on (wrong thread or stream): keep its Graph
            if g is not None:
                _captures[cid] = g
        else:
            if g is not None:
                (<Graph>g).graph = NULL     # the driver destroyed it
                (<Graph>g).owned = False
            if st.capturing:
                st.capturing = False
                _capture_ended(st.context)
        raise _make_error(r, "cuStreamEndCapture", _CAPTURE_HINTS.get(r))
    if st.capturing:
        st.capturing = False
        _capture_ended(st.context)
    if g is None:
        g = _new_graph(out, st.context, True)
    else:
        (<Graph>g).graph = out
        (<Graph>g).owned = True
        if (<Graph>g).foreign:
            (<Graph>g).foreign = False
    return g


cdef object _stream_is_capturing(Stream st):
    cdef int status = 0
    _graph_api()
    _gneed(gapi.cuStreamIsCapturing, "cuStreamIsCapturing")
    check(gapi.cuStreamIsCapturing(st.stream, &status), "cuStreamIsCapturing")
    return status != _CAPTURE_NONE


cdef object _stream_capture_info(Stream st):
    cdef int status
    cdef uint64_t cid
    cdef CUgraph h
    cdef const CUgraphNode* deps
    cdef size_t ndeps, k
    _graph_api()
    _capture_info(st.stream, &status, &cid, &h, &deps, &ndeps)
    if status == _CAPTURE_NONE:
        return (capture_status(status), 0, None, [])
    g = _capture_graph(cid, h, st.context)
    nodes = [_new_node(<Graph>g, deps[k]) for k in range(ndeps)]
    return (capture_status(status), cid, g, nodes)


cdef object _stream_update_capture_dependencies(Stream st, object nodes, object flags):
    cdef int status
    cdef uint64_t cid
    cdef CUgraph h
    cdef const CUgraphNode* deps
    cdef size_t ndeps, n = 0
    cdef CUgraphNode* arr = NULL
    cdef CUresult r
    f = PyNumber_Index(flags)
    if f != 0 and f != 1:
        raise ValueError("update_capture_dependencies: flags must be "
                         "update_capture_dependencies_flags.ADD_CAPTURE_DEPENDENCIES "
                         "or SET_CAPTURE_DEPENDENCIES (0, 1), not %r" % (flags,))
    _graph_api()
    _capture_info(st.stream, &status, &cid, &h, &deps, &ndeps)
    if status != _CAPTURE_ACTIVE:
        raise _errors.LogicError("update_capture_dependencies: the stream is not "
                                 "capturing")
    g = _capture_graph(cid, h, st.context)
    arr = _node_array(<Graph>g, nodes, "dependencies", &n)
    try:
        if gapi.cuStreamUpdateCaptureDependencies_v2 != NULL:
            r = gapi.cuStreamUpdateCaptureDependencies_v2(st.stream, arr, NULL, n, f)
            check(r, "cuStreamUpdateCaptureDependencies_v2")
        else:
            _gneed(gapi.cuStreamUpdateCaptureDependencies,
                   "cuStreamUpdateCaptureDependencies_v2")
            r = gapi.cuStreamUpdateCaptureDependencies(st.stream, arr, n, f)
            check(r, "cuStreamUpdateCaptureDependencies")
    finally:
        free(arr)
    return None


cdef object _stream_add_callback(Stream st, object callback, object flags):
    cdef int status = 0
    cdef CUresult r
    call = _new_host_call(callback, (), "add_callback")
    if flags != 0:
        raise ValueError("add_callback: flags must be 0 (CUDA reserves them), not %r"
                         % (flags,))
    _graph_api()
    _gneed(gapi.cuStreamAddCallback, "cuStreamAddCallback")
    _drop_finished_calls()
    if gapi.cuStreamIsCapturing != NULL:
        check(gapi.cuStreamIsCapturing(st.stream, &status), "cuStreamIsCapturing")
        if status != _CAPTURE_NONE:
            raise _errors.LogicError("add_callback: the stream is capturing and "
                                     "cuStreamAddCallback cannot be captured; use "
                                     "launch_host_func, which becomes a host node")
    call.stream = st
    call.with_status = True
    call.once = True
    Py_INCREF(call)
    r = gapi.cuStreamAddCallback(st.stream, _stream_callback_trampoline, <void*>call, 0)
    if r != CUDA_SUCCESS:
        Py_DECREF(call)
        raise _make_error(r, "cuStreamAddCallback")
    return None


cdef object _stream_launch_host_func(Stream st, object func, tuple args):
    cdef int status
    cdef uint64_t cid
    cdef CUgraph h
    cdef const CUgraphNode* deps
    cdef size_t ndeps
    cdef CUresult r
    call = _new_host_call(func, args, "launch_host_func")
    _graph_api()
    _gneed(gapi.cuLaunchHostFunc, "cuLaunchHostFunc")
    _drop_finished_calls()
    _capture_info(st.stream, &status, &cid, &h, &deps, &ndeps)
    if status == _CAPTURE_NONE:
        call.once = True
        Py_INCREF(call)
    else:
        # captured: a host node that runs at every launch of the graph, so
        # the graph keeps the call alive (process-long for a foreign capture)
        g = _capture_graph(cid, h, st.context)
        if (<Graph>g).foreign:
            _foreign_capture_keep.append(call)
        else:
            (<Graph>g)._keep.append(call)
    r = gapi.cuLaunchHostFunc(st.stream, _host_fn_trampoline, <void*>call)
    if r != CUDA_SUCCESS:
        if call.once:
            Py_DECREF(call)
        raise _make_error(r, "cuLaunchHostFunc", _CAPTURE_HINTS.get(r))
    return None
