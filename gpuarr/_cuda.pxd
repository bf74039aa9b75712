# Types of the CUDA driver API (cuda.h, CUDA 13.0), declared by hand so that
# gpuarr builds with no CUDA toolkit installed. Handles are opaque pointers;
# entry points are resolved at run time (see _driver.pyx), never linked.

ctypedef int CUresult
ctypedef int CUdevice
ctypedef unsigned long long CUdeviceptr
ctypedef void* CUcontext
ctypedef void* CUmodule
ctypedef void* CUfunction
ctypedef void* CUstream
ctypedef void* CUevent
ctypedef void* CUmemoryPool
ctypedef void* CUlinkState

cdef enum:
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_NOT_READY = 600
    CUDA_ERROR_INVALID_CONTEXT = 201
    CUDA_ERROR_DEINITIALIZED = 4

# Function attributes (CUfunction_attribute) and JIT options (CUjit_option).
cdef enum:
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4
    CU_JIT_INFO_LOG_BUFFER = 3
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
    CU_JIT_ERROR_LOG_BUFFER = 5
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
    CU_JIT_LOG_VERBOSE = 12
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
    CU_MEMHOSTALLOC_PORTABLE = 1
    CU_EVENT_DEFAULT = 0

# One table of entry points, filled by dlsym when libcuda is first needed.
ctypedef struct DriverAPI:
    CUresult (*cuInit)(unsigned int) noexcept nogil
    CUresult (*cuDriverGetVersion)(int*) noexcept nogil
    CUresult (*cuGetErrorName)(CUresult, const char**) noexcept nogil
    CUresult (*cuGetErrorString)(CUresult, const char**) noexcept nogil
    CUresult (*cuDeviceGet)(CUdevice*, int) noexcept nogil
    CUresult (*cuDeviceGetCount)(int*) noexcept nogil
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) noexcept nogil
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) noexcept nogil
    CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) noexcept nogil
    CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) noexcept nogil
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) noexcept nogil
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) noexcept nogil
    CUresult (*cuDevicePrimaryCtxGetState)(CUdevice, unsigned int*, int*) noexcept nogil
    CUresult (*cuCtxCreate)(CUcontext*, unsigned int, CUdevice) noexcept nogil
    CUresult (*cuCtxCreate_v4)(CUcontext*, void*, unsigned int, CUdevice) noexcept nogil
    CUresult (*cuCtxDestroy)(CUcontext) noexcept nogil
    CUresult (*cuCtxPushCurrent)(CUcontext) noexcept nogil
    CUresult (*cuCtxPopCurrent)(CUcontext*) noexcept nogil
    CUresult (*cuCtxGetCurrent)(CUcontext*) noexcept nogil
    CUresult (*cuCtxSetCurrent)(CUcontext) noexcept nogil
    CUresult (*cuCtxSynchronize)() noexcept nogil
    CUresult (*cuCtxGetDevice)(CUdevice*) noexcept nogil
    CUresult (*cuCtxGetLimit)(size_t*, int) noexcept nogil
    CUresult (*cuCtxSetLimit)(int, size_t) noexcept nogil
    CUresult (*cuCtxGetCacheConfig)(int*) noexcept nogil
    CUresult (*cuCtxSetCacheConfig)(int) noexcept nogil
    CUresult (*cuCtxGetApiVersion)(CUcontext, unsigned int*) noexcept nogil
    # PyCUDA-compatibility context calls (Context.attach,
    # Context.get_stream_priority_range); optional: NULL when not exported.
    CUresult (*cuCtxGetStreamPriorityRange)(int*, int*) noexcept nogil
    CUresult (*cuCtxAttach)(CUcontext*, unsigned int) noexcept nogil
    CUresult (*cuCtxDetach)(CUcontext) noexcept nogil
    CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) noexcept nogil
    CUresult (*cuMemFree)(CUdeviceptr) noexcept nogil
    CUresult (*cuMemGetInfo)(size_t*, size_t*) noexcept nogil
    CUresult (*cuMemAllocAsync)(CUdeviceptr*, size_t, CUstream) noexcept nogil
    CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream) noexcept nogil
    CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool*, CUdevice) noexcept nogil
    CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void*) noexcept nogil
    CUresult (*cuMemPoolGetAttribute)(CUmemoryPool, int, void*) noexcept nogil
    CUresult (*cuMemPoolTrimTo)(CUmemoryPool, size_t) noexcept nogil
    CUresult (*cuMemHostAlloc)(void**, size_t, unsigned int) noexcept nogil
    CUresult (*cuMemFreeHost)(void*) noexcept nogil
    CUresult (*cuMemHostRegister)(void*, size_t, unsigned int) noexcept nogil
    CUresult (*cuMemHostUnregister)(void*) noexcept nogil
    CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr*, void*, unsigned int) noexcept nogil
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) noexcept nogil
    CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) noexcept nogil
    CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) noexcept nogil
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream) noexcept nogil
    CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream) noexcept nogil
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) noexcept nogil
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) noexcept nogil
    CUresult (*cuMemsetD16)(CUdeviceptr, unsigned short, size_t) noexcept nogil
    CUresult (*cuMemsetD32)(CUdeviceptr, unsigned int, size_t) noexcept nogil
    CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) noexcept nogil
    CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream) noexcept nogil
    CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream) noexcept nogil
    CUresult (*cuPointerGetAttribute)(void*, int, CUdeviceptr) noexcept nogil
    CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned int, int*, void**) noexcept nogil
    CUresult (*cuModuleUnload)(CUmodule) noexcept nogil
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) noexcept nogil
    CUresult (*cuModuleGetGlobal)(CUdeviceptr*, size_t*, CUmodule, const char*) noexcept nogil
    # linking (cuLink*; _driver_link.pxi), optional in the table
    CUresult (*cuLinkCreate)(unsigned int, int*, void**, CUlinkState*) noexcept nogil
    CUresult (*cuLinkAddData)(CUlinkState, int, void*, size_t, const char*,
                              unsigned int, int*, void**) noexcept nogil
    CUresult (*cuLinkAddFile)(CUlinkState, int, const char*,
                              unsigned int, int*, void**) noexcept nogil
    CUresult (*cuLinkComplete)(CUlinkState, void**, size_t*) noexcept nogil
    CUresult (*cuLinkDestroy)(CUlinkState) noexcept nogil
    CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) noexcept nogil
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int) noexcept nogil
    CUresult (*cuFuncSetCacheConfig)(CUfunction, int) noexcept nogil
    CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t*, size_t*) noexcept nogil
    CUresult (*cuFuncGetParamCount)(CUfunction, size_t*) noexcept nogil
    CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
                               unsigned int, unsigned int, unsigned int,
                               unsigned int, CUstream, void**, void**) noexcept nogil
    CUresult (*cuStreamCreate)(CUstream*, unsigned int) noexcept nogil
    CUresult (*cuStreamCreateWithPriority)(CUstream*, unsigned int, int) noexcept nogil
    CUresult (*cuStreamGetPriority)(CUstream, int*) noexcept nogil
    CUresult (*cuStreamGetFlags)(CUstream, unsigned int*) noexcept nogil
    CUresult (*cuStreamDestroy)(CUstream) noexcept nogil
    CUresult (*cuStreamSynchronize)(CUstream) noexcept nogil
    CUresult (*cuStreamQuery)(CUstream) noexcept nogil
    CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned int) noexcept nogil
    CUresult (*cuEventCreate)(CUevent*, unsigned int) noexcept nogil
    CUresult (*cuEventDestroy)(CUevent) noexcept nogil
    CUresult (*cuEventRecord)(CUevent, CUstream) noexcept nogil
    CUresult (*cuEventSynchronize)(CUevent) noexcept nogil
    CUresult (*cuEventQuery)(CUevent) noexcept nogil
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) noexcept nogil
