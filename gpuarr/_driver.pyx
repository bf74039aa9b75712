# cython: language_level=3
"""The CUDA driver API, bound at run time.

``libcuda.so.1`` is opened with ``dlopen`` the first time a call needs it,
and every entry point used is resolved once into one table (``api``). Every
``CUresult`` passes through :func:`check`, which raises the exception class
that :mod:`gpuarr._errors` maps the code to, naming the call.

Each class here owns one driver handle and keeps a reference to the
:class:`Context` it was made in, so a context outlives what was allocated in
it. Handles are released in their own context (pushed for the release when
another is current). Destructors never raise: after interpreter shutdown has
begun, or once their context is gone, they drop the handle (with a warning
in the second case).
"""

from libc.stdint cimport uintptr_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from posix.dlfcn cimport dlopen, dlsym, dlerror, RTLD_NOW, RTLD_GLOBAL
from cpython.number cimport PyNumber_Index
from cpython.buffer cimport (PyObject_GetBuffer, PyBuffer_Release,
                             PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE,
                             PyBUF_FORMAT, PyBUF_ND, PyBUF_STRIDES)
cimport numpy as cnp

from gpuarr._cuda cimport *

import atexit
import functools
import os
import sys
import threading
import warnings
import weakref

import numpy as np

from gpuarr import _errors
from gpuarr._argtypes import parse_arg_types

cnp.import_array()

#: The CUDA version whose ``cuda.h`` these declarations follow.
CUDA_HEADER_VERSION = 13000

cdef DriverAPI api
cdef bint _loaded = False
cdef bint _initialized = False
cdef void* _libcuda = NULL
cdef bint _finalizing = False
_load_lock = threading.Lock()


def _on_exit():
    global _finalizing
    _finalizing = True


atexit.register(_on_exit)


# ---------------------------------------------------------------------------
# Loading libcuda and the one error funnel
# ---------------------------------------------------------------------------

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
    (<void**>&api.cuFuncGetAttribute)[0] = _get(b"cuFuncGetAttribute", missing)
    (<void**>&api.cuFuncSetAttribute)[0] = _get(b"cuFuncSetAttribute", missing)
    (<void**>&api.cuFuncSetCacheConfig)[0] = _get(b"cuFuncSetCacheConfig", missing)
    (<void**>&api.cuFuncGetParamInfo)[0] = _get(b"cuFuncGetParamInfo", None)
    (<void**>&api.cuLaunchKernel)[0] = _get(b"cuLaunchKernel", missing)
    (<void**>&api.cuStreamCreate)[0] = _get(b"cuStreamCreate", missing)
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
        name = os.environ.get("GPUARR_LIBCUDA") or "libcuda.so.1"
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


cdef int _ensure() except -1:
    """Load libcuda and call cuInit(0) once."""
    global _initialized
    if _initialized:
        return 0
    _load()
    check(api.cuInit(0), "cuInit")
    _initialized = True
    return 0


cdef object _make_error(CUresult result, str call, detail=None):
    cdef const char* text = NULL
    desc = None
    if api.cuGetErrorString != NULL:
        if api.cuGetErrorString(result, &text) == CUDA_SUCCESS and text != NULL:
            desc = text.decode(errors="replace")
    return _errors.make_error(result, call, desc, detail)


cdef int check(CUresult result, const char* call) except -1:
    """Raise the mapped exception when ``result`` is not CUDA_SUCCESS."""
    if result == CUDA_SUCCESS:
        return 0
    raise _make_error(result, call.decode())


def init(unsigned int flags=0):
    """Initialize the driver (``cuInit``).

    Loads ``libcuda.so.1`` first. Calling it is optional: the first call that
    needs the driver initializes it.

    Raises
    ------
    DriverNotFoundError
        When ``libcuda.so.1`` cannot be loaded.
    """
    global _initialized
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
    if _finalizing or not _loaded or ctx is None:
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


# ---------------------------------------------------------------------------
# Devices and contexts
# ---------------------------------------------------------------------------

cdef Device _device_from_handle(CUdevice h):
    cdef Device d = Device.__new__(Device)
    d.handle = h
    return d


cdef class Device:
    """A CUDA device (``CUdevice``).

    Parameters
    ----------
    ordinal : int
        The device number, from 0 to ``Device.count() - 1``.

    Raises
    ------
    LogicError
        ``CUDA_ERROR_INVALID_DEVICE`` for an ordinal with no device.
    """

    def __init__(self, int ordinal):
        _ensure()
        check(api.cuDeviceGet(&self.handle, ordinal), "cuDeviceGet")

    @staticmethod
    def count():
        """Number of CUDA devices (``cuDeviceGetCount``)."""
        cdef int n = 0
        _ensure()
        check(api.cuDeviceGetCount(&n), "cuDeviceGetCount")
        return n

    def name(self):
        """The device's name, such as ``'NVIDIA H200'``."""
        cdef char buf[256]
        check(api.cuDeviceGetName(buf, 256, self.handle), "cuDeviceGetName")
        return buf.decode(errors="replace")

    def get_attribute(self, attr):
        """Value of one ``CUdevice_attribute`` (``cuDeviceGetAttribute``).

        Parameters
        ----------
        attr : device_attribute or int
        """
        cdef int v = 0
        check(api.cuDeviceGetAttribute(&v, int(attr), self.handle), "cuDeviceGetAttribute")
        return v

    def get_attributes(self):
        """Every attribute the driver reports, as ``{device_attribute: int}``."""
        from gpuarr._enums import device_attribute
        cdef int v = 0
        out = {}
        for a in device_attribute:
            if api.cuDeviceGetAttribute(&v, int(a), self.handle) == CUDA_SUCCESS:
                out[a] = v
        return out

    def compute_capability(self):
        """``(major, minor)``, such as ``(9, 0)`` for an H200."""
        return (self.get_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                self.get_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))

    def total_memory(self):
        """Device memory in bytes (``cuDeviceTotalMem``)."""
        cdef size_t n = 0
        check(api.cuDeviceTotalMem(&n, self.handle), "cuDeviceTotalMem_v2")
        return n

    def get_default_mem_pool(self):
        """The device's default stream-ordered pool (``cuDeviceGetDefaultMemPool``).

        Returns
        -------
        MemoryPool
            The pool ``cuMemAllocAsync`` draws from (see
            :func:`mem_alloc_async`). The driver owns it; it is shared by
            every user of the device in the process.

        Raises
        ------
        NotSupportedError
            When the driver has no stream-ordered allocator.
        """
        cdef CUmemoryPool pool = NULL
        if api.cuDeviceGetDefaultMemPool == NULL or api.cuMemPoolSetAttribute == NULL \
                or api.cuMemPoolGetAttribute == NULL or api.cuMemPoolTrimTo == NULL:
            raise _errors.NotSupportedError("this driver has no stream-ordered memory pools")
        check(api.cuDeviceGetDefaultMemPool(&pool, self.handle), "cuDeviceGetDefaultMemPool")
        cdef MemoryPool mp = MemoryPool.__new__(MemoryPool)
        mp.pool = pool
        mp.device = self
        return mp

    def pci_bus_id(self):
        """PCI bus id string, such as ``'0000:1B:00.0'``."""
        cdef char buf[64]
        check(api.cuDeviceGetPCIBusId(buf, 64, self.handle), "cuDeviceGetPCIBusId")
        return buf.decode()

    def retain_primary_context(self):
        """Retain the device's primary context (``cuDevicePrimaryCtxRetain``).

        The primary context is the one the CUDA runtime, CuPy and PyTorch use,
        so objects made in it can be shared with them. The returned
        :class:`Context` is not made current: call ``push()``. It is released
        (``cuDevicePrimaryCtxRelease``) by ``detach()`` or when it dies.
        """
        cdef CUcontext c = NULL
        check(api.cuDevicePrimaryCtxRetain(&c, self.handle), "cuDevicePrimaryCtxRetain")
        return _new_context(c, self, True, True)

    def make_context(self, unsigned int flags=0):
        """Create a new context on this device and make it current
        (``cuCtxCreate``). It is destroyed by ``detach()`` or when it dies."""
        cdef CUcontext c = NULL
        if api.cuCtxCreate_v4 != NULL:
            check(api.cuCtxCreate_v4(&c, NULL, flags, self.handle), "cuCtxCreate_v4")
        else:
            check(api.cuCtxCreate(&c, flags, self.handle), "cuCtxCreate_v2")
        ctx = _new_context(c, self, False, True)
        _stack().append(ctx)      # cuCtxCreate made it current
        return ctx

    def __eq__(self, other):
        return isinstance(other, Device) and (<Device>other).handle == self.handle

    def __hash__(self):
        return hash(("Device", self.handle))

    def __repr__(self):
        return "<gpuarr.driver.Device %d>" % self.handle

    def __reduce__(self):
        return (Device, (self.handle,))


# Callables run with a Context about to be detached, so upper layers (the
# compiler's module cache) can drop what they hold in it without the driver
# importing them.
_detach_hooks = []


def add_detach_hook(func):
    """Call ``func(context)`` whenever a context is detached, before it is
    released. For caches of upper layers; exceptions are ignored."""
    if func not in _detach_hooks:
        _detach_hooks.append(func)


# Context wrappers by handle, so one CUcontext has one Python object.
_contexts = weakref.WeakValueDictionary()
# (handle, weak reference to its Context) of the last lookup, replaced as one
# object so that threads with different current contexts never see a mixed
# pair; weak, so the cache never keeps a context alive.
cdef tuple _last = (0, None)
# Per thread, the Context objects this module pushed, so that a pushed
# context stays alive while it is on the stack (as the driver's stack
# would have it), e.g. after Device(0).retain_primary_context().push().
_tls = threading.local()


cdef list _stack():
    st = getattr(_tls, "stack", None)
    if st is None:
        st = _tls.stack = []
    return st


cdef void _stack_remove(Context ctx):
    st = _stack()
    for k in range(len(st) - 1, -1, -1):
        if st[k] is ctx:
            del st[k]
            return


cdef Context _new_context(CUcontext c, Device dev, bint primary, bint owned):
    cdef Context ctx
    key = <uintptr_t>c
    old = _contexts.get(key)
    if old is not None and (<Context>old).valid:
        # A second retain of the same primary context: keep one wrapper,
        # and give back the extra reference the driver just counted.
        if owned and primary and (<Context>old).owned:
            check(api.cuDevicePrimaryCtxRelease(dev.handle), "cuDevicePrimaryCtxRelease_v2")
        return old
    ctx = Context.__new__(Context)
    ctx.ctx = c
    ctx.device = dev
    ctx.primary = primary
    ctx.owned = owned
    ctx.valid = True
    _contexts[key] = ctx
    return ctx


cdef Context _wrap_current(CUcontext c):
    """The Context object for ``c``, which is current on this thread."""
    global _last
    cdef CUdevice dev = 0
    cdef CUcontext primary = NULL
    cdef unsigned int flags = 0
    cdef int active = 0
    cdef tuple last = _last
    if <uintptr_t>c == <uintptr_t>last[0] and last[1] is not None:
        ctx = last[1]()
        if ctx is not None and (<Context>ctx).valid:
            return ctx
    ctx = _contexts.get(<uintptr_t>c)
    if ctx is None or not (<Context>ctx).valid:
        check(api.cuCtxGetDevice(&dev), "cuCtxGetDevice")
        d = _device_from_handle(dev)
        check(api.cuDevicePrimaryCtxGetState(dev, &flags, &active), "cuDevicePrimaryCtxGetState")
        ctx = None
        if active:
            check(api.cuDevicePrimaryCtxRetain(&primary, dev), "cuDevicePrimaryCtxRetain")
            if primary == c:
                # Current because someone else (CuPy, PyTorch, the runtime)
                # made it so: hold our own reference while we use it.
                ctx = _new_context(c, d, True, True)
            else:
                check(api.cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease_v2")
        if ctx is None:
            ctx = _new_context(c, d, False, False)
    _last = (<uintptr_t>c, weakref.ref(ctx))
    return ctx


cdef Context _current_context():
    """The current Context; raises when none is current."""
    cdef CUcontext c = NULL
    _ensure()
    check(api.cuCtxGetCurrent(&c), "cuCtxGetCurrent")
    if c == NULL:
        raise _errors.InvalidContextError(
            "no CUDA context is current on this thread: import gpuarr.autoinit, "
            "or call Device(n).retain_primary_context().push()",
            code=201, name="CUDA_ERROR_INVALID_CONTEXT")
    return _wrap_current(c)


class _ContextMethod:
    """A method that acts on the instance, or on the current context when
    called on the class (PyCUDA's ``Context.synchronize()`` is static)."""

    def __init__(self, func):
        self.func = func
        functools.update_wrapper(self, func)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return functools.partial(self.func, None)
        return functools.partial(self.func, obj)


def _ctx_synchronize(Context self=None):
    """Wait for all work in the context to finish (``cuCtxSynchronize``).

    Called on the class, synchronizes the current context.
    """
    cdef CUresult r, r2 = CUDA_SUCCESS
    cdef bint pushed = False
    if self is None:
        self = _current_context()
    if not self.valid:
        raise _errors.InvalidContextError("the context was detached")
    with nogil:
        r = _push_if_needed(self.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuCtxSynchronize()
            r2 = _pop_if_pushed(pushed)
    check(r, "cuCtxSynchronize")
    check(r2, "cuCtxPopCurrent_v2")


def _ctx_get_device(Context self=None):
    """The :class:`Device` of this context (of the current one, on the class)."""
    if self is None:
        self = _current_context()
    return self.device


cdef class Context:
    """A CUDA context (``CUcontext``).

    Made by :meth:`Device.retain_primary_context` (the default, shared with
    CuPy and PyTorch), :meth:`Device.make_context`, or returned by
    :meth:`get_current`. Every handle made in a context keeps it alive.
    """

    def __init__(self):
        raise TypeError("contexts come from Device.retain_primary_context(), "
                        "Device.make_context() or Context.get_current()")

    synchronize = _ContextMethod(_ctx_synchronize)
    get_device = _ContextMethod(_ctx_get_device)

    @property
    def handle(self):
        """The ``CUcontext`` as an int."""
        return <uintptr_t>self.ctx

    @property
    def is_primary(self):
        return bool(self.primary)

    def push(self):
        """Make this context current on this thread (``cuCtxPushCurrent``)."""
        if not self.valid:
            raise _errors.InvalidContextError("the context was detached")
        check(api.cuCtxPushCurrent(self.ctx), "cuCtxPushCurrent_v2")
        _stack().append(self)

    @staticmethod
    def pop():
        """Pop the current context off this thread's stack
        (``cuCtxPopCurrent``) and return it."""
        cdef CUcontext c = NULL
        _ensure()
        check(api.cuCtxPopCurrent(&c), "cuCtxPopCurrent_v2")
        ctx = _contexts.get(<uintptr_t>c)
        st = _stack()
        if st and (<Context>st[len(st) - 1]).ctx == c:
            ctx = st.pop()
        return ctx

    @staticmethod
    def get_current():
        """The current context, or None when none is current."""
        cdef CUcontext c = NULL
        _ensure()
        check(api.cuCtxGetCurrent(&c), "cuCtxGetCurrent")
        if c == NULL:
            return None
        return _wrap_current(c)

    def detach(self):
        """Give up this object's hold on the context.

        Pops it if it is current, then releases the primary context
        (``cuDevicePrimaryCtxRelease``) or destroys a created one
        (``cuCtxDestroy``). Handles still alive in it are dropped, with a
        warning, when they die.
        """
        global _last
        cdef CUcontext cur = NULL
        if not self.valid:
            return
        for hook in list(_detach_hooks):
            try:
                hook(self)
            except Exception:
                pass
        self.valid = False
        if _last[1] is not None and _last[1]() is self:
            _last = (0, None)
        if not self.owned:
            return
        check(api.cuCtxGetCurrent(&cur), "cuCtxGetCurrent")
        if cur == self.ctx and self.primary:
            check(api.cuCtxPopCurrent(&cur), "cuCtxPopCurrent_v2")
        if cur == self.ctx:       # popped above, or by cuCtxDestroy below
            _stack_remove(self)
        if self.primary:
            check(api.cuDevicePrimaryCtxRelease(self.device.handle), "cuDevicePrimaryCtxRelease_v2")
        else:
            check(api.cuCtxDestroy(self.ctx), "cuCtxDestroy_v2")

    @staticmethod
    def get_limit(limit):
        """Value of a ``CUlimit`` of the current context (``cuCtxGetLimit``)."""
        cdef size_t v = 0
        _current_context()
        check(api.cuCtxGetLimit(&v, int(limit)), "cuCtxGetLimit")
        return v

    @staticmethod
    def set_limit(limit, size_t value):
        """Set a ``CUlimit`` of the current context (``cuCtxSetLimit``)."""
        _current_context()
        check(api.cuCtxSetLimit(int(limit), value), "cuCtxSetLimit")

    @staticmethod
    def get_cache_config():
        """The current context's ``func_cache`` preference."""
        cdef int v = 0
        _current_context()
        check(api.cuCtxGetCacheConfig(&v), "cuCtxGetCacheConfig")
        from gpuarr._enums import func_cache
        return func_cache(v)

    @staticmethod
    def set_cache_config(config):
        """Set the current context's ``func_cache`` preference."""
        _current_context()
        check(api.cuCtxSetCacheConfig(int(config)), "cuCtxSetCacheConfig")

    def __eq__(self, other):
        return isinstance(other, Context) and (<Context>other).ctx == self.ctx

    def __hash__(self):
        return hash(("Context", <uintptr_t>self.ctx))

    def __repr__(self):
        return "<gpuarr.driver.Context %s0x%x on device %d%s>" % (
            "primary " if self.primary else "", <uintptr_t>self.ctx,
            self.device.handle if self.device is not None else -1,
            "" if self.valid else ", detached")

    def __dealloc__(self):
        cdef CUcontext cur = NULL
        if not self.owned or not self.valid or _finalizing or not _loaded:
            return
        self.valid = False
        if self.primary:
            r = api.cuDevicePrimaryCtxRelease(self.device.handle)
        else:
            r = api.cuCtxDestroy(self.ctx)
        if r != CUDA_SUCCESS:
            _release_failed("context", r)


# ---------------------------------------------------------------------------
# Device memory
# ---------------------------------------------------------------------------

# CUmemPool_attribute values whose type is int; the others are cuuint64_t
_MEMPOOL_INT_ATTRS = (1, 2, 3)


cdef class MemoryPool:
    """A stream-ordered memory pool (``CUmemoryPool``).

    Obtained from :meth:`Device.get_default_mem_pool`; the driver owns the
    default pool, so nothing is destroyed when this object dies.
    """
    cdef CUmemoryPool pool
    cdef readonly object device

    def __init__(self):
        raise TypeError("memory pools come from Device.get_default_mem_pool()")

    @property
    def handle(self):
        """The ``CUmemoryPool`` handle as an int."""
        return <size_t>self.pool

    def get_attribute(self, attr):
        """Value of a ``mem_pool_attribute`` (``cuMemPoolGetAttribute``).

        Returns
        -------
        int
            A flag (the ``REUSE_*`` attributes) or a size in bytes.
        """
        cdef int iv = 0
        cdef unsigned long long uv = 0
        a = int(attr)
        if a in _MEMPOOL_INT_ATTRS:
            check(api.cuMemPoolGetAttribute(self.pool, a, &iv), "cuMemPoolGetAttribute")
            return iv
        check(api.cuMemPoolGetAttribute(self.pool, a, &uv), "cuMemPoolGetAttribute")
        return uv

    def set_attribute(self, attr, value):
        """Set a ``mem_pool_attribute`` (``cuMemPoolSetAttribute``).

        ``RELEASE_THRESHOLD`` (bytes, up to ``2**64 - 1``) is how much
        unused memory the pool keeps at synchronizations; the ``REUSE_*``
        flags are 0 or 1; the high-water marks can only be reset to 0.
        """
        cdef int iv
        cdef unsigned long long uv
        a = int(attr)
        if a in _MEMPOOL_INT_ATTRS:
            iv = int(value)
            check(api.cuMemPoolSetAttribute(self.pool, a, &iv), "cuMemPoolSetAttribute")
        else:
            uv = int(value)
            check(api.cuMemPoolSetAttribute(self.pool, a, &uv), "cuMemPoolSetAttribute")

    def trim_to(self, size_t min_bytes_to_keep=0):
        """Release unused memory to the OS down to ``min_bytes_to_keep``
        (``cuMemPoolTrimTo``); memory whose asynchronous free has not run
        yet is still in use."""
        check(api.cuMemPoolTrimTo(self.pool, min_bytes_to_keep), "cuMemPoolTrimTo")

    def __repr__(self):
        return "<MemoryPool 0x%x>" % (<size_t>self.pool)


cdef int _free_allocation(DeviceAllocation a, bint raise_errors) except -1:
    cdef bint pushed = False
    cdef CUresult r
    cdef CUstream s = NULL
    if a.freed or a.ptr == 0:
        a.freed = True
        return 0
    a.freed = True
    if not _release_ok(a.context, "device allocation"):
        return 0
    if a.is_async and a.stream is not None:
        s = (<Stream>a.stream).stream
    with nogil:
        r = _push_if_needed(a.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            if a.is_async:
                r = api.cuMemFreeAsync(a.ptr, s)
            else:
                r = api.cuMemFree(a.ptr)
            _pop_if_pushed(pushed)
    if r != CUDA_SUCCESS:
        if raise_errors:
            raise _make_error(r, "cuMemFreeAsync" if a.is_async else "cuMemFree_v2")
        _release_failed("device allocation", r)
    return 0


cdef class DeviceAllocation:
    """Device memory from :func:`mem_alloc` (``cuMemAlloc``).

    ``int(alloc)`` is the device address. The memory is freed by
    :meth:`free` or when the object dies, in the context it came from.
    """

    def __init__(self):
        raise TypeError("device memory comes from mem_alloc() or mem_alloc_async()")

    def free(self):
        """Free the memory now (``cuMemFree``); later calls do nothing."""
        _free_allocation(self, True)

    def __int__(self):
        return self.ptr

    def __index__(self):
        return self.ptr

    @property
    def handle(self):
        return self.ptr

    def __repr__(self):
        return "<gpuarr.driver.DeviceAllocation 0x%x, %d bytes%s>" % (
            self.ptr, self.size, ", freed" if self.freed else "")

    def __dealloc__(self):
        _free_allocation(self, False)


cdef DeviceAllocation _new_allocation(CUdeviceptr p, size_t n, Context ctx):
    cdef DeviceAllocation a = DeviceAllocation.__new__(DeviceAllocation)
    a.ptr = p
    a.size = n
    a.context = ctx
    return a


def mem_alloc(size_t nbytes):
    """Allocate ``nbytes`` of device memory in the current context
    (``cuMemAlloc``).

    Returns
    -------
    DeviceAllocation
        Freed when it dies. ``nbytes == 0`` gives an allocation at address 0.

    Raises
    ------
    MemoryError
        ``CUDA_ERROR_OUT_OF_MEMORY`` (also a builtin ``MemoryError``).
    InvalidContextError
        When no context is current.
    """
    cdef CUdeviceptr p = 0
    cdef CUresult r
    ctx = _current_context()
    if nbytes:
        with nogil:
            r = api.cuMemAlloc(&p, nbytes)
        check(r, "cuMemAlloc_v2")
    return _new_allocation(p, nbytes, ctx)


def mem_alloc_async(size_t nbytes, Stream stream=None):
    """Allocate from the device's stream-ordered pool (``cuMemAllocAsync``).

    The memory may be used in ``stream`` (and, after synchronization, anywhere)
    and is freed with ``cuMemFreeAsync`` on the same stream when it dies.

    Raises
    ------
    NotSupportedError
        When the driver has no stream-ordered allocator.
    """
    cdef CUdeviceptr p = 0
    cdef CUstream s = NULL
    ctx = _current_context()
    if api.cuMemAllocAsync == NULL:
        raise _errors.NotSupportedError("this driver has no cuMemAllocAsync")
    if stream is not None:
        s = stream.stream
    if nbytes:
        check(api.cuMemAllocAsync(&p, nbytes, s), "cuMemAllocAsync")
    a = _new_allocation(p, nbytes, ctx)
    a.is_async = True
    a.stream = stream
    return a


def mem_get_info():
    """``(free, total)`` device memory in bytes (``cuMemGetInfo``)."""
    cdef size_t free_b = 0, total_b = 0
    _current_context()
    check(api.cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo_v2")
    return (free_b, total_b)


cdef CUdeviceptr _devptr(object obj) except? 0:
    """The device address an argument stands for."""
    t = type(obj)
    if t is DeviceAllocation:
        return (<DeviceAllocation>obj).ptr
    if t is int:
        if obj < 0:
            raise ValueError("a device address cannot be negative")
        return <CUdeviceptr>obj
    p = getattr(obj, "ptr", None)
    if p is not None and type(p) is int:
        return <CUdeviceptr>p
    g = getattr(obj, "gpudata", None)
    if g is not None:
        return _devptr(g)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return <CUdeviceptr>cai["data"][0]
    if isinstance(obj, (np.integer, int)):
        return <CUdeviceptr>int(obj)
    raise TypeError("%s is not a device pointer (expected a DeviceAllocation, "
                    "an int address, or an object with .gpudata or "
                    "__cuda_array_interface__)" % type(obj).__name__)


cdef int _check_fits(object dest, size_t nbytes, str what) except -1:
    if type(dest) is DeviceAllocation and nbytes > (<DeviceAllocation>dest).size:
        raise ValueError("%s: %d bytes do not fit in a device allocation of %d bytes"
                         % (what, nbytes, (<DeviceAllocation>dest).size))
    return 0


cdef CUstream _stream_handle(object stream) except? NULL:
    if stream is None:
        return NULL
    if type(stream) is Stream:
        return (<Stream>stream).stream
    h = getattr(stream, "handle", None)
    if h is None:
        h = getattr(stream, "ptr", None)
    if h is None:
        raise TypeError("stream must be a gpuarr.driver.Stream, None, or have "
                        "an integer .handle, not %s" % type(stream).__name__)
    return <CUstream><uintptr_t>int(h)


cdef int _get_host_buffer(object obj, Py_buffer* view, bint writable, str what) except -1:
    cdef int flags = PyBUF_ANY_CONTIGUOUS
    if writable:
        flags |= PyBUF_WRITABLE
    try:
        PyObject_GetBuffer(obj, view, flags)
    except (BufferError, ValueError) as exc:
        raise ValueError("%s: the host buffer must be a contiguous%s array or "
                         "buffer (%s)" % (what, " writable" if writable else "", exc)) from None
    except TypeError:
        raise TypeError("%s: %s does not expose a host buffer" % (what, type(obj).__name__)) from None
    return 0


def memcpy_htod(dest, src):
    """Copy a contiguous host buffer ``src`` to device address ``dest``
    (``cuMemcpyHtoD``); ``src.nbytes`` bytes are copied."""
    _ensure()
    cdef Py_buffer view
    cdef CUresult r
    cdef CUdeviceptr d = _devptr(dest)
    _get_host_buffer(src, &view, False, "memcpy_htod")
    try:
        _check_fits(dest, view.len, "memcpy_htod")
        with nogil:
            r = api.cuMemcpyHtoD(d, view.buf, view.len)
        check(r, "cuMemcpyHtoD_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtoh(dest, src):
    """Copy ``dest.nbytes`` bytes from device address ``src`` into the
    contiguous writable host buffer ``dest`` (``cuMemcpyDtoH``)."""
    _ensure()
    cdef Py_buffer view
    cdef CUresult r
    cdef CUdeviceptr s = _devptr(src)
    _get_host_buffer(dest, &view, True, "memcpy_dtoh")
    try:
        _check_fits(src, view.len, "memcpy_dtoh")
        with nogil:
            r = api.cuMemcpyDtoH(view.buf, s, view.len)
        check(r, "cuMemcpyDtoH_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtod(dest, src, size_t size):
    """Copy ``size`` bytes between device addresses (``cuMemcpyDtoD``)."""
    _ensure()
    cdef CUresult r
    cdef CUdeviceptr d = _devptr(dest), s = _devptr(src)
    _check_fits(dest, size, "memcpy_dtod")
    _check_fits(src, size, "memcpy_dtod")
    with nogil:
        r = api.cuMemcpyDtoD(d, s, size)
    check(r, "cuMemcpyDtoD_v2")


def memcpy_htod_async(dest, src, stream=None):
    """Asynchronous :func:`memcpy_htod` on ``stream`` (``cuMemcpyHtoDAsync``).

    Truly asynchronous only when ``src`` is page-locked
    (:func:`pagelocked_empty`); ``src`` must stay alive until the copy ends.
    """
    _ensure()
    cdef Py_buffer view
    cdef CUdeviceptr d = _devptr(dest)
    cdef CUstream s = _stream_handle(stream)
    _get_host_buffer(src, &view, False, "memcpy_htod_async")
    try:
        _check_fits(dest, view.len, "memcpy_htod_async")
        check(api.cuMemcpyHtoDAsync(d, view.buf, view.len, s), "cuMemcpyHtoDAsync_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtoh_async(dest, src, stream=None):
    """Asynchronous :func:`memcpy_dtoh` on ``stream`` (``cuMemcpyDtoHAsync``)."""
    _ensure()
    cdef Py_buffer view
    cdef CUdeviceptr s_ptr = _devptr(src)
    cdef CUstream s = _stream_handle(stream)
    _get_host_buffer(dest, &view, True, "memcpy_dtoh_async")
    try:
        _check_fits(src, view.len, "memcpy_dtoh_async")
        check(api.cuMemcpyDtoHAsync(view.buf, s_ptr, view.len, s), "cuMemcpyDtoHAsync_v2")
    finally:
        PyBuffer_Release(&view)


def memcpy_dtod_async(dest, src, size_t size, stream=None):
    """Asynchronous :func:`memcpy_dtod` on ``stream`` (``cuMemcpyDtoDAsync``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest), s_ptr = _devptr(src)
    cdef CUstream s = _stream_handle(stream)
    _check_fits(dest, size, "memcpy_dtod_async")
    _check_fits(src, size, "memcpy_dtod_async")
    check(api.cuMemcpyDtoDAsync(d, s_ptr, size, s), "cuMemcpyDtoDAsync_v2")


def memset_d8(dest, unsigned char data, size_t count):
    """Set ``count`` bytes at ``dest`` to ``data`` (``cuMemsetD8``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, count, "memset_d8")
    check(api.cuMemsetD8(d, data, count), "cuMemsetD8_v2")


def memset_d16(dest, unsigned short data, size_t count):
    """Set ``count`` 16-bit words at ``dest`` to ``data`` (``cuMemsetD16``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 2 * count, "memset_d16")
    check(api.cuMemsetD16(d, data, count), "cuMemsetD16_v2")


def memset_d32(dest, unsigned int data, size_t count):
    """Set ``count`` 32-bit words at ``dest`` to ``data`` (``cuMemsetD32``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 4 * count, "memset_d32")
    check(api.cuMemsetD32(d, data, count), "cuMemsetD32_v2")


def memset_d8_async(dest, unsigned char data, size_t count, stream=None):
    """Asynchronous :func:`memset_d8` (``cuMemsetD8Async``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, count, "memset_d8_async")
    check(api.cuMemsetD8Async(d, data, count, _stream_handle(stream)), "cuMemsetD8Async")


def memset_d16_async(dest, unsigned short data, size_t count, stream=None):
    """Asynchronous :func:`memset_d16` (``cuMemsetD16Async``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 2 * count, "memset_d16_async")
    check(api.cuMemsetD16Async(d, data, count, _stream_handle(stream)), "cuMemsetD16Async")


def memset_d32_async(dest, unsigned int data, size_t count, stream=None):
    """Asynchronous :func:`memset_d32` (``cuMemsetD32Async``)."""
    _ensure()
    cdef CUdeviceptr d = _devptr(dest)
    _check_fits(dest, 4 * count, "memset_d32_async")
    check(api.cuMemsetD32Async(d, data, count, _stream_handle(stream)), "cuMemsetD32Async")


# ---------------------------------------------------------------------------
# Page-locked host memory
# ---------------------------------------------------------------------------

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
        cdef bint pushed = False
        cdef CUresult r
        if self.ptr == NULL or not _release_ok(self.context, "page-locked host allocation"):
            return
        with nogil:
            r = _push_if_needed(self.context.ctx, &pushed)
            if r == CUDA_SUCCESS:
                if self.registered:
                    r = api.cuMemHostUnregister(self.ptr)
                else:
                    r = api.cuMemFreeHost(self.ptr)
                _pop_if_pushed(pushed)
        self.ptr = NULL
        if r != CUDA_SUCCESS:
            _release_failed("page-locked host allocation", r)


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
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    count = 1
    for s in shape:
        if s < 0:
            raise ValueError("negative dimensions are not allowed")
        count *= int(s)
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
    """:func:`pagelocked_empty` filled with zeros."""
    a = pagelocked_empty(shape, dtype, order, mem_flags)
    a.fill(0)
    return a


def pagelocked_empty_like(array, unsigned int mem_flags=0):
    """:func:`pagelocked_empty` with the shape, dtype and order of ``array``."""
    order = "F" if (array.flags.f_contiguous and not array.flags.c_contiguous) else "C"
    return pagelocked_empty(array.shape, array.dtype, order, mem_flags)


def pagelocked_zeros_like(array, unsigned int mem_flags=0):
    """:func:`pagelocked_zeros` with the shape, dtype and order of ``array``."""
    a = pagelocked_empty_like(array, mem_flags)
    a.fill(0)
    return a


def register_host_memory(ary, unsigned int flags=0):
    """Page-lock an existing contiguous numpy array (``cuMemHostRegister``).

    Returns
    -------
    numpy.ndarray
        A view of ``ary``; the memory stays registered until this view and
        its descendants die (then ``cuMemHostUnregister``).
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


# ---------------------------------------------------------------------------
# Streams and events
# ---------------------------------------------------------------------------

cdef class Stream:
    """A CUDA stream (``cuStreamCreate``) in the current context.

    Parameters
    ----------
    flags : int
        ``stream_flags`` (``NON_BLOCKING`` = 1 does not synchronize with the
        legacy default stream).
    """

    def __cinit__(self, unsigned int flags=0):
        self.context = _current_context()
        check(api.cuStreamCreate(&self.stream, flags), "cuStreamCreate")

    @property
    def handle(self):
        """The ``CUstream`` as an int."""
        return <uintptr_t>self.stream

    def synchronize(self):
        """Wait for the stream's work to finish (``cuStreamSynchronize``)."""
        cdef CUresult r
        with nogil:
            r = api.cuStreamSynchronize(self.stream)
        check(r, "cuStreamSynchronize")

    def is_done(self):
        """Whether all the stream's work has finished (``cuStreamQuery``)."""
        r = api.cuStreamQuery(self.stream)
        if r == CUDA_ERROR_NOT_READY:
            return False
        check(r, "cuStreamQuery")
        return True

    def wait_for_event(self, Event event not None):
        """Make later work in this stream wait for ``event``
        (``cuStreamWaitEvent``)."""
        check(api.cuStreamWaitEvent(self.stream, event.event, 0), "cuStreamWaitEvent")

    def __repr__(self):
        return "<gpuarr.driver.Stream 0x%x>" % <uintptr_t>self.stream

    def __dealloc__(self):
        cdef bint pushed = False
        cdef CUresult r
        if self.stream == NULL or not _release_ok(self.context, "stream"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuStreamDestroy(self.stream)
            _pop_if_pushed(pushed)
        self.stream = NULL
        if r != CUDA_SUCCESS:
            _release_failed("stream", r)


cdef class Event:
    """A CUDA event (``cuEventCreate``) in the current context.

    Parameters
    ----------
    flags : int
        ``event_flags`` (``BLOCKING_SYNC`` = 1, ``DISABLE_TIMING`` = 2).
    """

    def __cinit__(self, unsigned int flags=0):
        self.context = _current_context()
        check(api.cuEventCreate(&self.event, flags), "cuEventCreate")

    @property
    def handle(self):
        return <uintptr_t>self.event

    def record(self, stream=None):
        """Record the event in ``stream`` (default: the legacy default
        stream) (``cuEventRecord``). Returns ``self``."""
        check(api.cuEventRecord(self.event, _stream_handle(stream)), "cuEventRecord")
        return self

    def synchronize(self):
        """Wait until the event has happened (``cuEventSynchronize``).
        Returns ``self``."""
        cdef CUresult r
        with nogil:
            r = api.cuEventSynchronize(self.event)
        check(r, "cuEventSynchronize")
        return self

    def query(self):
        """Whether the event has happened (``cuEventQuery``)."""
        r = api.cuEventQuery(self.event)
        if r == CUDA_ERROR_NOT_READY:
            return False
        check(r, "cuEventQuery")
        return True

    def time_since(self, Event start not None):
        """Milliseconds from ``start`` to this event (``cuEventElapsedTime``)."""
        cdef float ms = 0
        check(api.cuEventElapsedTime(&ms, start.event, self.event), "cuEventElapsedTime")
        return ms

    def time_till(self, Event end not None):
        """Milliseconds from this event to ``end`` (``cuEventElapsedTime``)."""
        cdef float ms = 0
        check(api.cuEventElapsedTime(&ms, self.event, end.event), "cuEventElapsedTime")
        return ms

    def __dealloc__(self):
        cdef bint pushed = False
        cdef CUresult r
        if self.event == NULL or not _release_ok(self.context, "event"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuEventDestroy(self.event)
            _pop_if_pushed(pushed)
        self.event = NULL
        if r != CUDA_SUCCESS:
            _release_failed("event", r)


# ---------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------

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

    def __dealloc__(self):
        cdef bint pushed = False
        cdef CUresult r
        if self.module == NULL or not _release_ok(self.context, "module"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuModuleUnload(self.module)
            _pop_if_pushed(pushed)
        self.module = NULL
        if r != CUDA_SUCCESS:
            _release_failed("module", r)


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
    return mod


def module_from_file(filename):
    """Load a cubin, fatbin or PTX file into the current context."""
    with open(filename, "rb") as f:
        return module_from_buffer(f.read())


# ---------------------------------------------------------------------------
# Kernels: argument packing and launch
# ---------------------------------------------------------------------------

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
    cdef size_t off = 0, size = 0
    cdef size_t i
    fn.func = f
    fn.module = mod
    fn.function_name = name
    fn.nparams = -1
    fn.nprepared = -1
    if api.cuFuncGetParamInfo != NULL:
        offsets = []
        sizes = []
        i = 0
        while True:
            r = api.cuFuncGetParamInfo(f, i, &off, &size)
            if r != CUDA_SUCCESS:
                break
            offsets.append(off)
            sizes.append(size)
            i += 1
        if r == CUDA_ERROR_INVALID_VALUE:
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
    parameter.
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
        None when the driver cannot report them."""
        if self.nparams < 0:
            return None
        return [(self.param_offsets[k], self.param_sizes[k]) for k in range(self.nparams)]

    cdef str _argname(self, int k):
        return "argument %d (0-based) of kernel %r" % (k, self.function_name)

    def __call__(self, *args, block=None, grid=(1, 1), stream=None,
                 unsigned int shared=0, texrefs=None, bint time_kernel=False):
        cdef unsigned int g[3]
        cdef unsigned int b[3]
        cdef Py_ssize_t nargs = len(args), k
        cdef char stack_buf[STACK_BYTES]
        cdef void* stack_params[STACK_ARGS]
        cdef char scratch[32]
        cdef char* buf = stack_buf
        cdef void** params = stack_params
        cdef size_t off = 0, size = 0, total
        cdef CUstream s
        cdef CUresult r
        cdef CUdeviceptr dp
        cdef const char* src = scratch
        if block is None:
            raise ValueError("block=(x, y, z) must be given")
        _dims3(block, b, "block")
        _dims3(grid, g, "grid")
        if self.nparams >= 0 and nargs != self.nparams:
            raise TypeError("kernel %r takes %d arguments (%d given)"
                            % (self.function_name, self.nparams, nargs))
        s = _stream_handle(stream)
        total = self.param_bytes if self.nparams >= 0 else <size_t>(nargs * 32)
        handlers = None
        if total > STACK_BYTES:
            buf = <char*>malloc(total)
        if nargs > STACK_ARGS:
            params = <void**>malloc(nargs * sizeof(void*))
        try:
            if buf == NULL or params == NULL:
                raise MemoryError()
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
                elif isinstance(arg, ArgumentHandler):
                    if handlers is None:
                        handlers = []
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
            if time_kernel:
                start = Event()
                end = Event()
                start.record(stream)
            r = api.cuLaunchKernel(self.func, g[0], g[1], g[2], b[0], b[1], b[2],
                                   shared, s, params, NULL)
            if r != CUDA_SUCCESS:
                raise _make_error(r, "cuLaunchKernel",
                                  "kernel %r, grid=%r, block=%r, shared=%d bytes"
                                  % (self.function_name, grid, block, shared))
            if time_kernel:
                end.record(stream)
            if handlers is not None:
                if stream is not None:
                    check(api.cuStreamSynchronize(s), "cuStreamSynchronize")
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
            if handlers is not None:
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
        """
        kinds = parse_arg_types(arg_types)
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
            for kind, size in kinds:
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
