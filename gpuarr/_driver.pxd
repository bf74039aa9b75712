# Handle-owning classes of gpuarr's driver layer, for cimport by other
# Cython modules. Every object that owns a handle keeps its Context alive.
from gpuarr._cuda cimport (CUresult, CUdevice, CUdeviceptr, CUcontext,
                           CUmodule, CUfunction, CUstream, CUevent)

cdef int check(CUresult result, const char* call) except -1


cdef class Device:
    cdef readonly CUdevice handle


cdef class Context:
    cdef CUcontext ctx
    cdef readonly Device device
    cdef bint primary
    cdef bint owned
    cdef bint valid
    cdef list deferred   # handles waiting to be released here (_driver_release.pxi)
    cdef int captures    # stream captures in progress in this context
    cdef object __weakref__


cdef class DeviceAllocation:
    cdef readonly CUdeviceptr ptr
    cdef readonly size_t size
    cdef readonly Context context
    cdef object stream       # Stream for cuMemFreeAsync, or None
    cdef bint is_async
    cdef bint freed
    cdef object owner        # what must outlive the memory (a created MemoryPool)


cdef class Stream:
    cdef CUstream stream
    cdef readonly Context context
    cdef readonly bint capturing   # between begin_capture and end_capture
    cdef unsigned long long capture_id   # the driver's id of that capture


cdef class Event:
    cdef CUevent event
    cdef readonly Context context


cdef class Module:
    cdef CUmodule module
    cdef readonly Context context
    cdef object param_counts       # {kernel: count} read from the image, or None
    cdef object __weakref__


cdef class Function:
    cdef CUfunction func
    cdef readonly Module module
    cdef readonly str function_name
    cdef int nparams               # -1: unknown (no count, no info, not prepared)
    cdef bint params_from_driver   # layout reported by cuFuncGetParamInfo
    cdef bint layout_unsure        # prepare() could not know a struct's offset
    cdef size_t* param_offsets
    cdef size_t* param_sizes
    cdef size_t param_bytes
    cdef int nprepared             # -1: not prepared
    cdef char* prepared_kinds
    cdef size_t* prepared_sizes
    cdef str _argname(self, int k)
    cdef size_t _pack_bytes(self, Py_ssize_t nargs) except? 0
    cdef int _pack(self, tuple args, char* buf, void** params, list handlers) except -1
    cdef int _launch_prepared(self, object grid, object block, CUstream s,
                              tuple args, unsigned int shared, int repeat=*) except -1
