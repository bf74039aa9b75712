"""Enumerations of the CUDA driver API, as declared in ``cuda.h`` of CUDA 13.0.

Pure data: each table maps the name (without its C prefix) to its value.
The driver may know values added after 13.0; those are reported by number.
"""
# Driver API status codes (``CUresult``).
CURESULT = {
    'CUDA_SUCCESS': 0,
    'CUDA_ERROR_INVALID_VALUE': 1,
    'CUDA_ERROR_OUT_OF_MEMORY': 2,
    'CUDA_ERROR_NOT_INITIALIZED': 3,
    'CUDA_ERROR_DEINITIALIZED': 4,
    'CUDA_ERROR_PROFILER_DISABLED': 5,
    'CUDA_ERROR_PROFILER_NOT_INITIALIZED': 6,
    'CUDA_ERROR_PROFILER_ALREADY_STARTED': 7,
    'CUDA_ERROR_PROFILER_ALREADY_STOPPED': 8,
    'CUDA_ERROR_STUB_LIBRARY': 34,
    'CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER': 36,
    'CUDA_ERROR_DEVICE_UNAVAILABLE': 46,
    'CUDA_ERROR_NO_DEVICE': 100,
    'CUDA_ERROR_INVALID_DEVICE': 101,
    'CUDA_ERROR_DEVICE_NOT_LICENSED': 102,
    'CUDA_ERROR_INVALID_IMAGE': 200,
    'CUDA_ERROR_INVALID_CONTEXT': 201,
    'CUDA_ERROR_CONTEXT_ALREADY_CURRENT': 202,
    'CUDA_ERROR_MAP_FAILED': 205,
    'CUDA_ERROR_UNMAP_FAILED': 206,
    'CUDA_ERROR_ARRAY_IS_MAPPED': 207,
    'CUDA_ERROR_ALREADY_MAPPED': 208,
    'CUDA_ERROR_NO_BINARY_FOR_GPU': 209,
    'CUDA_ERROR_ALREADY_ACQUIRED': 210,
    'CUDA_ERROR_NOT_MAPPED': 211,
    'CUDA_ERROR_NOT_MAPPED_AS_ARRAY': 212,
    'CUDA_ERROR_NOT_MAPPED_AS_POINTER': 213,
    'CUDA_ERROR_ECC_UNCORRECTABLE': 214,
    'CUDA_ERROR_UNSUPPORTED_LIMIT': 215,
    'CUDA_ERROR_CONTEXT_ALREADY_IN_USE': 216,
    'CUDA_ERROR_PEER_ACCESS_UNSUPPORTED': 217,
    'CUDA_ERROR_INVALID_PTX': 218,
    'CUDA_ERROR_INVALID_GRAPHICS_CONTEXT': 219,
    'CUDA_ERROR_NVLINK_UNCORRECTABLE': 220,
    'CUDA_ERROR_JIT_COMPILER_NOT_FOUND': 221,
    'CUDA_ERROR_UNSUPPORTED_PTX_VERSION': 222,
    'CUDA_ERROR_JIT_COMPILATION_DISABLED': 223,
    'CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY': 224,
    'CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC': 225,
    'CUDA_ERROR_CONTAINED': 226,
    'CUDA_ERROR_INVALID_SOURCE': 300,
    'CUDA_ERROR_FILE_NOT_FOUND': 301,
    'CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND': 302,
    'CUDA_ERROR_SHARED_OBJECT_INIT_FAILED': 303,
    'CUDA_ERROR_OPERATING_SYSTEM': 304,
    'CUDA_ERROR_INVALID_HANDLE': 400,
    'CUDA_ERROR_ILLEGAL_STATE': 401,
    'CUDA_ERROR_LOSSY_QUERY': 402,
    'CUDA_ERROR_NOT_FOUND': 500,
    'CUDA_ERROR_NOT_READY': 600,
    'CUDA_ERROR_ILLEGAL_ADDRESS': 700,
    'CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES': 701,
    'CUDA_ERROR_LAUNCH_TIMEOUT': 702,
    'CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING': 703,
    'CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED': 704,
    'CUDA_ERROR_PEER_ACCESS_NOT_ENABLED': 705,
    'CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE': 708,
    'CUDA_ERROR_CONTEXT_IS_DESTROYED': 709,
    'CUDA_ERROR_ASSERT': 710,
    'CUDA_ERROR_TOO_MANY_PEERS': 711,
    'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED': 712,
    'CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED': 713,
    'CUDA_ERROR_HARDWARE_STACK_ERROR': 714,
    'CUDA_ERROR_ILLEGAL_INSTRUCTION': 715,
    'CUDA_ERROR_MISALIGNED_ADDRESS': 716,
    'CUDA_ERROR_INVALID_ADDRESS_SPACE': 717,
    'CUDA_ERROR_INVALID_PC': 718,
    'CUDA_ERROR_LAUNCH_FAILED': 719,
    'CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE': 720,
    'CUDA_ERROR_TENSOR_MEMORY_LEAK': 721,
    'CUDA_ERROR_NOT_PERMITTED': 800,
    'CUDA_ERROR_NOT_SUPPORTED': 801,
    'CUDA_ERROR_SYSTEM_NOT_READY': 802,
    'CUDA_ERROR_SYSTEM_DRIVER_MISMATCH': 803,
    'CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE': 804,
    'CUDA_ERROR_MPS_CONNECTION_FAILED': 805,
    'CUDA_ERROR_MPS_RPC_FAILURE': 806,
    'CUDA_ERROR_MPS_SERVER_NOT_READY': 807,
    'CUDA_ERROR_MPS_MAX_CLIENTS_REACHED': 808,
    'CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED': 809,
    'CUDA_ERROR_MPS_CLIENT_TERMINATED': 810,
    'CUDA_ERROR_CDP_NOT_SUPPORTED': 811,
    'CUDA_ERROR_CDP_VERSION_MISMATCH': 812,
    'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED': 900,
    'CUDA_ERROR_STREAM_CAPTURE_INVALIDATED': 901,
    'CUDA_ERROR_STREAM_CAPTURE_MERGE': 902,
    'CUDA_ERROR_STREAM_CAPTURE_UNMATCHED': 903,
    'CUDA_ERROR_STREAM_CAPTURE_UNJOINED': 904,
    'CUDA_ERROR_STREAM_CAPTURE_ISOLATION': 905,
    'CUDA_ERROR_STREAM_CAPTURE_IMPLICIT': 906,
    'CUDA_ERROR_CAPTURED_EVENT': 907,
    'CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD': 908,
    'CUDA_ERROR_TIMEOUT': 909,
    'CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE': 910,
    'CUDA_ERROR_EXTERNAL_DEVICE': 911,
    'CUDA_ERROR_INVALID_CLUSTER_SIZE': 912,
    'CUDA_ERROR_FUNCTION_NOT_LOADED': 913,
    'CUDA_ERROR_INVALID_RESOURCE_TYPE': 914,
    'CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION': 915,
    'CUDA_ERROR_KEY_ROTATION': 916,
    'CUDA_ERROR_UNKNOWN': 999,
}

# ``CUdevice_attribute``: queried with ``cuDeviceGetAttribute``.
DEVICE_ATTRIBUTE = {
    'MAX_THREADS_PER_BLOCK': 1,
    'MAX_BLOCK_DIM_X': 2,
    'MAX_BLOCK_DIM_Y': 3,
    'MAX_BLOCK_DIM_Z': 4,
    'MAX_GRID_DIM_X': 5,
    'MAX_GRID_DIM_Y': 6,
    'MAX_GRID_DIM_Z': 7,
    'MAX_SHARED_MEMORY_PER_BLOCK': 8,
    'SHARED_MEMORY_PER_BLOCK': 8,
    'TOTAL_CONSTANT_MEMORY': 9,
    'WARP_SIZE': 10,
    'MAX_PITCH': 11,
    'MAX_REGISTERS_PER_BLOCK': 12,
    'REGISTERS_PER_BLOCK': 12,
    'CLOCK_RATE': 13,
    'TEXTURE_ALIGNMENT': 14,
    'GPU_OVERLAP': 15,
    'MULTIPROCESSOR_COUNT': 16,
    'KERNEL_EXEC_TIMEOUT': 17,
    'INTEGRATED': 18,
    'CAN_MAP_HOST_MEMORY': 19,
    'COMPUTE_MODE': 20,
    'MAXIMUM_TEXTURE1D_WIDTH': 21,
    'MAXIMUM_TEXTURE2D_WIDTH': 22,
    'MAXIMUM_TEXTURE2D_HEIGHT': 23,
    'MAXIMUM_TEXTURE3D_WIDTH': 24,
    'MAXIMUM_TEXTURE3D_HEIGHT': 25,
    'MAXIMUM_TEXTURE3D_DEPTH': 26,
    'MAXIMUM_TEXTURE2D_LAYERED_WIDTH': 27,
    'MAXIMUM_TEXTURE2D_LAYERED_HEIGHT': 28,
    'MAXIMUM_TEXTURE2D_LAYERED_LAYERS': 29,
    'MAXIMUM_TEXTURE2D_ARRAY_WIDTH': 27,
    'MAXIMUM_TEXTURE2D_ARRAY_HEIGHT': 28,
    'MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES': 29,
    'SURFACE_ALIGNMENT': 30,
    'CONCURRENT_KERNELS': 31,
    'ECC_ENABLED': 32,
    'PCI_BUS_ID': 33,
    'PCI_DEVICE_ID': 34,
    'TCC_DRIVER': 35,
    'MEMORY_CLOCK_RATE': 36,
    'GLOBAL_MEMORY_BUS_WIDTH': 37,
    'L2_CACHE_SIZE': 38,
    'MAX_THREADS_PER_MULTIPROCESSOR': 39,
    'ASYNC_ENGINE_COUNT': 40,
    'UNIFIED_ADDRESSING': 41,
    'MAXIMUM_TEXTURE1D_LAYERED_WIDTH': 42,
    'MAXIMUM_TEXTURE1D_LAYERED_LAYERS': 43,
    'CAN_TEX2D_GATHER': 44,
    'MAXIMUM_TEXTURE2D_GATHER_WIDTH': 45,
    'MAXIMUM_TEXTURE2D_GATHER_HEIGHT': 46,
    'MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE': 47,
    'MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE': 48,
    'MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE': 49,
    'PCI_DOMAIN_ID': 50,
    'TEXTURE_PITCH_ALIGNMENT': 51,
    'MAXIMUM_TEXTURECUBEMAP_WIDTH': 52,
    'MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH': 53,
    'MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS': 54,
    'MAXIMUM_SURFACE1D_WIDTH': 55,
    'MAXIMUM_SURFACE2D_WIDTH': 56,
    'MAXIMUM_SURFACE2D_HEIGHT': 57,
    'MAXIMUM_SURFACE3D_WIDTH': 58,
    'MAXIMUM_SURFACE3D_HEIGHT': 59,
    'MAXIMUM_SURFACE3D_DEPTH': 60,
    'MAXIMUM_SURFACE1D_LAYERED_WIDTH': 61,
    'MAXIMUM_SURFACE1D_LAYERED_LAYERS': 62,
    'MAXIMUM_SURFACE2D_LAYERED_WIDTH': 63,
    'MAXIMUM_SURFACE2D_LAYERED_HEIGHT': 64,
    'MAXIMUM_SURFACE2D_LAYERED_LAYERS': 65,
    'MAXIMUM_SURFACECUBEMAP_WIDTH': 66,
    'MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH': 67,
    'MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS': 68,
    'MAXIMUM_TEXTURE1D_LINEAR_WIDTH': 69,
    'MAXIMUM_TEXTURE2D_LINEAR_WIDTH': 70,
    'MAXIMUM_TEXTURE2D_LINEAR_HEIGHT': 71,
    'MAXIMUM_TEXTURE2D_LINEAR_PITCH': 72,
    'MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH': 73,
    'MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT': 74,
    'COMPUTE_CAPABILITY_MAJOR': 75,
    'COMPUTE_CAPABILITY_MINOR': 76,
    'MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH': 77,
    'STREAM_PRIORITIES_SUPPORTED': 78,
    'GLOBAL_L1_CACHE_SUPPORTED': 79,
    'LOCAL_L1_CACHE_SUPPORTED': 80,
    'MAX_SHARED_MEMORY_PER_MULTIPROCESSOR': 81,
    'MAX_REGISTERS_PER_MULTIPROCESSOR': 82,
    'MANAGED_MEMORY': 83,
    'MULTI_GPU_BOARD': 84,
    'MULTI_GPU_BOARD_GROUP_ID': 85,
    'HOST_NATIVE_ATOMIC_SUPPORTED': 86,
    'SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO': 87,
    'PAGEABLE_MEMORY_ACCESS': 88,
    'CONCURRENT_MANAGED_ACCESS': 89,
    'COMPUTE_PREEMPTION_SUPPORTED': 90,
    'CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM': 91,
    'CAN_USE_STREAM_MEM_OPS_V1': 92,
    'CAN_USE_64_BIT_STREAM_MEM_OPS_V1': 93,
    'CAN_USE_STREAM_WAIT_VALUE_NOR_V1': 94,
    'COOPERATIVE_LAUNCH': 95,
    'COOPERATIVE_MULTI_DEVICE_LAUNCH': 96,
    'MAX_SHARED_MEMORY_PER_BLOCK_OPTIN': 97,
    'CAN_FLUSH_REMOTE_WRITES': 98,
    'HOST_REGISTER_SUPPORTED': 99,
    'PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES': 100,
    'DIRECT_MANAGED_MEM_ACCESS_FROM_HOST': 101,
    'VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED': 102,
    'VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED': 102,
    'HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED': 103,
    'HANDLE_TYPE_WIN32_HANDLE_SUPPORTED': 104,
    'HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED': 105,
    'MAX_BLOCKS_PER_MULTIPROCESSOR': 106,
    'GENERIC_COMPRESSION_SUPPORTED': 107,
    'MAX_PERSISTING_L2_CACHE_SIZE': 108,
    'MAX_ACCESS_POLICY_WINDOW_SIZE': 109,
    'GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED': 110,
    'RESERVED_SHARED_MEMORY_PER_BLOCK': 111,
    'SPARSE_CUDA_ARRAY_SUPPORTED': 112,
    'READ_ONLY_HOST_REGISTER_SUPPORTED': 113,
    'TIMELINE_SEMAPHORE_INTEROP_SUPPORTED': 114,
    'MEMORY_POOLS_SUPPORTED': 115,
    'GPU_DIRECT_RDMA_SUPPORTED': 116,
    'GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS': 117,
    'GPU_DIRECT_RDMA_WRITES_ORDERING': 118,
    'MEMPOOL_SUPPORTED_HANDLE_TYPES': 119,
    'CLUSTER_LAUNCH': 120,
    'DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED': 121,
    'CAN_USE_64_BIT_STREAM_MEM_OPS': 122,
    'CAN_USE_STREAM_WAIT_VALUE_NOR': 123,
    'DMA_BUF_SUPPORTED': 124,
    'IPC_EVENT_SUPPORTED': 125,
    'MEM_SYNC_DOMAIN_COUNT': 126,
    'TENSOR_MAP_ACCESS_SUPPORTED': 127,
    'HANDLE_TYPE_FABRIC_SUPPORTED': 128,
    'UNIFIED_FUNCTION_POINTERS': 129,
    'NUMA_CONFIG': 130,
    'NUMA_ID': 131,
    'MULTICAST_SUPPORTED': 132,
    'MPS_ENABLED': 133,
    'HOST_NUMA_ID': 134,
    'D3D12_CIG_SUPPORTED': 135,
    'MEM_DECOMPRESS_ALGORITHM_MASK': 136,
    'MEM_DECOMPRESS_MAXIMUM_LENGTH': 137,
    'VULKAN_CIG_SUPPORTED': 138,
    'GPU_PCI_DEVICE_ID': 139,
    'GPU_PCI_SUBSYSTEM_ID': 140,
    'HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED': 141,
    'HOST_NUMA_MEMORY_POOLS_SUPPORTED': 142,
    'HOST_NUMA_MULTINODE_IPC_SUPPORTED': 143,
    'HOST_MEMORY_POOLS_SUPPORTED': 144,
    'HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED': 145,
    'HOST_ALLOC_DMA_BUF_SUPPORTED': 146,
    'ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED': 147,
}

# ``CUfunction_attribute``: ``cuFuncGetAttribute``/``cuFuncSetAttribute``.
FUNCTION_ATTRIBUTE = {
    'MAX_THREADS_PER_BLOCK': 0,
    'SHARED_SIZE_BYTES': 1,
    'CONST_SIZE_BYTES': 2,
    'LOCAL_SIZE_BYTES': 3,
    'NUM_REGS': 4,
    'PTX_VERSION': 5,
    'BINARY_VERSION': 6,
    'CACHE_MODE_CA': 7,
    'MAX_DYNAMIC_SHARED_SIZE_BYTES': 8,
    'PREFERRED_SHARED_MEMORY_CARVEOUT': 9,
    'CLUSTER_SIZE_MUST_BE_SET': 10,
    'REQUIRED_CLUSTER_WIDTH': 11,
    'REQUIRED_CLUSTER_HEIGHT': 12,
    'REQUIRED_CLUSTER_DEPTH': 13,
    'NON_PORTABLE_CLUSTER_SIZE_ALLOWED': 14,
    'CLUSTER_SCHEDULING_POLICY_PREFERENCE': 15,
}

# ``CUlimit``: ``cuCtxGetLimit``/``cuCtxSetLimit``.
LIMIT = {
    'STACK_SIZE': 0,
    'PRINTF_FIFO_SIZE': 1,
    'MALLOC_HEAP_SIZE': 2,
    'DEV_RUNTIME_SYNC_DEPTH': 3,
    'DEV_RUNTIME_PENDING_LAUNCH_COUNT': 4,
    'MAX_L2_FETCH_GRANULARITY': 5,
    'PERSISTING_L2_CACHE_SIZE': 6,
    'SHMEM_SIZE': 7,
    'CIG_ENABLED': 8,
    'CIG_SHMEM_FALLBACK_ENABLED': 9,
}

# ``CUfunc_cache``: cache configuration preferences.
FUNC_CACHE = {
    'PREFER_NONE': 0,
    'PREFER_SHARED': 1,
    'PREFER_L1': 2,
    'PREFER_EQUAL': 3,
}

# ``CUctx_flags``: flags of ``cuCtxCreate``.
CTX_FLAGS = {
    'SCHED_AUTO': 0,
    'SCHED_SPIN': 1,
    'SCHED_YIELD': 2,
    'SCHED_BLOCKING_SYNC': 4,
    'BLOCKING_SYNC': 4,
    'SCHED_MASK': 7,
    'MAP_HOST': 8,
    'COREDUMP_ENABLE': 32,
    'USER_COREDUMP_ENABLE': 64,
    'SYNC_MEMOPS': 128,
}

# ``CUstream_flags``: flags of ``cuStreamCreate``.
STREAM_FLAGS = {
    'DEFAULT': 0,
    'NON_BLOCKING': 1,
}

# ``CUevent_flags``: flags of ``cuEventCreate``.
EVENT_FLAGS = {
    'DEFAULT': 0,
    'BLOCKING_SYNC': 1,
    'DISABLE_TIMING': 2,
    'INTERPROCESS': 4,
}

# ``CUjit_option``: options of ``cuModuleLoadDataEx``.
JIT_OPTION = {
    'MAX_REGISTERS': 0,
    'THREADS_PER_BLOCK': 1,
    'WALL_TIME': 2,
    'INFO_LOG_BUFFER': 3,
    'INFO_LOG_BUFFER_SIZE_BYTES': 4,
    'ERROR_LOG_BUFFER': 5,
    'ERROR_LOG_BUFFER_SIZE_BYTES': 6,
    'OPTIMIZATION_LEVEL': 7,
    'TARGET_FROM_CUCONTEXT': 8,
    'TARGET': 9,
    'FALLBACK_STRATEGY': 10,
    'GENERATE_DEBUG_INFO': 11,
    'LOG_VERBOSE': 12,
    'GENERATE_LINE_INFO': 13,
    'CACHE_MODE': 14,
    'NEW_SM3X_OPT': 15,
    'FAST_COMPILE': 16,
    'GLOBAL_SYMBOL_NAMES': 17,
    'GLOBAL_SYMBOL_ADDRESSES': 18,
    'GLOBAL_SYMBOL_COUNT': 19,
    'LTO': 20,
    'FTZ': 21,
    'PREC_DIV': 22,
    'PREC_SQRT': 23,
    'FMA': 24,
    'REFERENCED_KERNEL_NAMES': 25,
    'REFERENCED_KERNEL_COUNT': 26,
    'REFERENCED_VARIABLE_NAMES': 27,
    'REFERENCED_VARIABLE_COUNT': 28,
    'OPTIMIZE_UNUSED_DEVICE_VARIABLES': 29,
    'POSITION_INDEPENDENT_CODE': 30,
    'MIN_CTA_PER_SM': 31,
    'MAX_THREADS_PER_BLOCK': 32,
    'OVERRIDE_DIRECTIVE_VALUES': 33,
    'SPLIT_COMPILE': 34,
}

# ``CUjitInputType``: what ``cuLinkAddData``/``cuLinkAddFile`` are given.
JIT_INPUT_TYPE = {
    'CUBIN': 0,
    'PTX': 1,
    'FATBINARY': 2,
    'OBJECT': 3,
    'LIBRARY': 4,
    'NVVM': 5,
}

# ``CUpointer_attribute``: ``cuPointerGetAttribute``.
POINTER_ATTRIBUTE = {
    'CONTEXT': 1,
    'MEMORY_TYPE': 2,
    'DEVICE_POINTER': 3,
    'HOST_POINTER': 4,
    'P2P_TOKENS': 5,
    'SYNC_MEMOPS': 6,
    'BUFFER_ID': 7,
    'IS_MANAGED': 8,
    'DEVICE_ORDINAL': 9,
    'IS_LEGACY_CUDA_IPC_CAPABLE': 10,
    'RANGE_START_ADDR': 11,
    'RANGE_SIZE': 12,
    'MAPPED': 13,
    'ALLOWED_HANDLE_TYPES': 14,
    'IS_GPU_DIRECT_RDMA_CAPABLE': 15,
    'ACCESS_FLAGS': 16,
    'MEMPOOL_HANDLE': 17,
    'MAPPING_SIZE': 18,
    'MAPPING_BASE_ADDR': 19,
    'MEMORY_BLOCK_ID': 20,
    'IS_HW_DECOMPRESS_CAPABLE': 21,
}

# ``CUmemPool_attribute``: ``cuMemPoolGetAttribute``/``cuMemPoolSetAttribute``.
MEM_POOL_ATTRIBUTE = {
    'REUSE_FOLLOW_EVENT_DEPENDENCIES': 1,
    'REUSE_ALLOW_OPPORTUNISTIC': 2,
    'REUSE_ALLOW_INTERNAL_DEPENDENCIES': 3,
    'RELEASE_THRESHOLD': 4,
    'RESERVED_MEM_CURRENT': 5,
    'RESERVED_MEM_HIGH': 6,
    'USED_MEM_CURRENT': 7,
    'USED_MEM_HIGH': 8,
}


# ``CUmemorytype``: the ``MEMORY_TYPE`` pointer attribute, the sides of a
# Memcpy2D/3D (PyCUDA's ``memory_type``).
MEMORY_TYPE = {'HOST': 1, 'DEVICE': 2, 'ARRAY': 3, 'UNIFIED': 4}

# ``CUmemAttach_flags``: ``cuMemAllocManaged``, ``cuStreamAttachMemAsync``
# (PyCUDA's ``mem_attach_flags``).
MEM_ATTACH_FLAGS = {'GLOBAL': 1, 'HOST': 2, 'SINGLE': 4}

# ``CUmem_advise``: ``cuMemAdvise``.
MEM_ADVICE = {
    'SET_READ_MOSTLY': 1,
    'UNSET_READ_MOSTLY': 2,
    'SET_PREFERRED_LOCATION': 3,
    'UNSET_PREFERRED_LOCATION': 4,
    'SET_ACCESSED_BY': 5,
    'UNSET_ACCESSED_BY': 6,
}

# ``CUipcMem_flags``: ``cuIpcOpenMemHandle`` (PyCUDA's ``ipc_mem_flags``).
IPC_MEM_FLAGS = {'LAZY_ENABLE_PEER_ACCESS': 1}
# ``CUstreamCaptureMode``: ``Stream.begin_capture``.
CAPTURE_MODE = {
    'GLOBAL': 0,
    'THREAD_LOCAL': 1,
    'RELAXED': 2,
}

# ``CUstreamCaptureStatus``: ``Stream.get_capture_info_v2``.
CAPTURE_STATUS = {
    'NONE': 0,
    'ACTIVE': 1,
    'INVALIDATED': 2,
}

# ``CUstreamUpdateCaptureDependencies_flags``.
UPDATE_CAPTURE_DEPENDENCIES_FLAGS = {
    'ADD_CAPTURE_DEPENDENCIES': 0,
    'SET_CAPTURE_DEPENDENCIES': 1,
}

# ``CUgraphNodeType``: ``GraphNode.type``.
GRAPH_NODE_TYPE = {
    'KERNEL': 0,
    'MEMCPY': 1,
    'MEMSET': 2,
    'HOST': 3,
    'GRAPH': 4,
    'EMPTY': 5,
    'WAIT_EVENT': 6,
    'EVENT_RECORD': 7,
    'EXT_SEMAS_SIGNAL': 8,
    'EXT_SEMAS_WAIT': 9,
    'MEM_ALLOC': 10,
    'MEM_FREE': 11,
    'BATCH_MEM_OP': 12,
    'CONDITIONAL': 13,
}

# ``CUgraphExecUpdateResult``: why ``GraphExec.update`` was refused.
GRAPH_EXEC_UPDATE_RESULT = {
    'SUCCESS': 0,
    'ERROR': 1,
    'ERROR_TOPOLOGY_CHANGED': 2,
    'ERROR_NODE_TYPE_CHANGED': 3,
    'ERROR_FUNCTION_CHANGED': 4,
    'ERROR_PARAMETERS_CHANGED': 5,
    'ERROR_NOT_SUPPORTED': 6,
    'ERROR_UNSUPPORTED_FUNCTION_CHANGE': 7,
    'ERROR_ATTRIBUTES_CHANGED': 8,
}

# ``CUgraphInstantiate_flags``: ``Graph.instantiate``.
GRAPH_INSTANTIATE_FLAGS = {
    'AUTO_FREE_ON_LAUNCH': 1,
    'UPLOAD': 2,
    'DEVICE_LAUNCH': 4,
    'USE_NODE_PRIORITY': 8,
}

# ``CUgraphDebugDot_flags``: ``Graph.debug_dot_print``.
GRAPH_DEBUG_DOT_FLAGS = {
    'VERBOSE': 1 << 0,
    'RUNTIME_TYPES': 1 << 1,
    'KERNEL_NODE_PARAMS': 1 << 2,
    'MEMCPY_NODE_PARAMS': 1 << 3,
    'MEMSET_NODE_PARAMS': 1 << 4,
    'HOST_NODE_PARAMS': 1 << 5,
    'EVENT_NODE_PARAMS': 1 << 6,
    'EXT_SEMAS_SIGNAL_NODE_PARAMS': 1 << 7,
    'EXT_SEMAS_WAIT_NODE_PARAMS': 1 << 8,
    'KERNEL_NODE_ATTRIBUTES': 1 << 9,
    'HANDLES': 1 << 10,
    'MEM_ALLOC_NODE_PARAMS': 1 << 11,
    'MEM_FREE_NODE_PARAMS': 1 << 12,
    'BATCH_MEM_OP_NODE_PARAMS': 1 << 13,
    'EXTRA_TOPO_INFO': 1 << 14,
    'CONDITIONAL_NODE_PARAMS': 1 << 15,
}

# ``CUarray_format``: the channel type of a CUDA array (PyCUDA's
# ``array_format`` has the first eight).
ARRAY_FORMAT = {
    'UNSIGNED_INT8': 0x01,
    'UNSIGNED_INT16': 0x02,
    'UNSIGNED_INT32': 0x03,
    'SIGNED_INT8': 0x08,
    'SIGNED_INT16': 0x09,
    'SIGNED_INT32': 0x0a,
    'HALF': 0x10,
    'FLOAT': 0x20,
    'NV12': 0xb0,
    'UNORM_INT8X1': 0xc0,
    'UNORM_INT8X2': 0xc1,
    'UNORM_INT8X4': 0xc2,
    'UNORM_INT16X1': 0xc3,
    'UNORM_INT16X2': 0xc4,
    'UNORM_INT16X4': 0xc5,
    'SNORM_INT8X1': 0xc6,
    'SNORM_INT8X2': 0xc7,
    'SNORM_INT8X4': 0xc8,
    'SNORM_INT16X1': 0xc9,
    'SNORM_INT16X2': 0xca,
    'SNORM_INT16X4': 0xcb,
}

# ``CUDA_ARRAY3D_*`` flags of ``ArrayDescriptor3D.flags`` (PyCUDA's
# ``array3d_flags``; ``LAYERED`` is also ``ARRAY3D_LAYERED``/``2DARRAY``).
ARRAY3D_FLAGS = {
    'LAYERED': 0x01,
    'ARRAY3D_LAYERED': 0x01,
    'SURFACE_LDST': 0x02,
    'CUBEMAP': 0x04,
    'TEXTURE_GATHER': 0x08,
    'DEPTH_TEXTURE': 0x10,
    'COLOR_ATTACHMENT': 0x20,
}

# ``CUaddress_mode``: texture addressing per dimension.
ADDRESS_MODE = {'WRAP': 0, 'CLAMP': 1, 'MIRROR': 2, 'BORDER': 3}

# ``CUfilter_mode``: texture filtering.
FILTER_MODE = {'POINT': 0, 'LINEAR': 1}

# ``CUresourcetype``: what a texture or surface object reads.
RESOURCE_TYPE = {'ARRAY': 0, 'MIPMAPPED_ARRAY': 1, 'LINEAR': 2, 'PITCH2D': 3}

# How a texture returns integer data (the runtime API's
# ``cudaTextureReadMode``; the driver's ``CU_TRSF_READ_AS_INTEGER`` flag).
TEXTURE_READ_MODE = {'ELEMENT_TYPE': 0, 'NORMALIZED_FLOAT': 1}

# ``CUresourceViewFormat``: ``ResourceViewDescriptor.format``.
RESOURCE_VIEW_FORMAT = {
    'NONE': 0x00,
    'UINT_1X8': 0x01, 'UINT_2X8': 0x02, 'UINT_4X8': 0x03,
    'SINT_1X8': 0x04, 'SINT_2X8': 0x05, 'SINT_4X8': 0x06,
    'UINT_1X16': 0x07, 'UINT_2X16': 0x08, 'UINT_4X16': 0x09,
    'SINT_1X16': 0x0a, 'SINT_2X16': 0x0b, 'SINT_4X16': 0x0c,
    'UINT_1X32': 0x0d, 'UINT_2X32': 0x0e, 'UINT_4X32': 0x0f,
    'SINT_1X32': 0x10, 'SINT_2X32': 0x11, 'SINT_4X32': 0x12,
    'FLOAT_1X16': 0x13, 'FLOAT_2X16': 0x14, 'FLOAT_4X16': 0x15,
    'FLOAT_1X32': 0x16, 'FLOAT_2X32': 0x17, 'FLOAT_4X32': 0x18,
    'UNSIGNED_BC1': 0x19, 'UNSIGNED_BC2': 0x1a, 'UNSIGNED_BC3': 0x1b,
    'UNSIGNED_BC4': 0x1c, 'SIGNED_BC4': 0x1d, 'UNSIGNED_BC5': 0x1e,
    'SIGNED_BC5': 0x1f, 'UNSIGNED_BC6H': 0x20, 'SIGNED_BC6H': 0x21,
    'UNSIGNED_BC7': 0x22,
}


# Each enumeration's docstring: (the C enum it mirrors, what it is for: a
# summary line, maybe a paragraph after it); _ENUM_DOC is the whole text.
_ENUM_DOCS = {
    "device_attribute": ("CUdevice_attribute", "Device properties, queried "
                         "with ``cuDeviceGetAttribute`` "
                         "(:meth:`Device.get_attribute`)."),
    "function_attribute": ("CUfunction_attribute", "Kernel properties, read "
                           "with ``cuFuncGetAttribute`` and set with "
                           "``cuFuncSetAttribute``."),
    "limit": ("CUlimit", "Context limits of ``cuCtxGetLimit`` / "
              "``cuCtxSetLimit``."),
    "func_cache": ("CUfunc_cache", "L1 cache / shared memory configuration "
                   "preferences."),
    "ctx_flags": ("CUctx_flags", "Flags of context creation "
                  "(``cuCtxCreate``)."),
    "stream_flags": ("CUstream_flags", "Flags of :class:`Stream` "
                     "(``cuStreamCreate``)."),
    "event_flags": ("CUevent_flags", "Flags of :class:`Event` "
                    "(``cuEventCreate``)."),
    "jit_option": ("CUjit_option", "JIT options of module loading "
                   "(``cuModuleLoadDataEx``) and linking."),
    "jit_input_type": ("CUjitInputType", "Kinds of input given to "
                       "``cuLinkAddData`` / ``cuLinkAddFile`` "
                       "(:class:`Linker`)."),
    "pointer_attribute": ("CUpointer_attribute", "Pointer properties, "
                          "queried with ``cuPointerGetAttribute`` "
                          "(:func:`pointer_get_attribute`)."),
    "mem_pool_attribute": ("CUmemPool_attribute", "Memory pool properties "
                           "of ``cuMemPoolGetAttribute`` / "
                           "``cuMemPoolSetAttribute`` (:class:`MemoryPool`)."),
    "memory_type": ("CUmemorytype", "Kinds of memory (PyCUDA's "
                    "``memory_type``).\n\nThe ``MEMORY_TYPE`` pointer "
                    "attribute and the sides of a :class:`Memcpy2D` / "
                    ":class:`Memcpy3D`."),
    "mem_attach_flags": ("CUmemAttach_flags", "Attachment of managed memory "
                         "(PyCUDA's ``mem_attach_flags``).\n\nFor "
                         "``cuMemAllocManaged`` and "
                         "``cuStreamAttachMemAsync``."),
    "mem_advice": ("CUmem_advise", "Advice on managed memory given to "
                   "``cuMemAdvise`` (:func:`mem_advise`)."),
    "ipc_mem_flags": ("CUipcMem_flags", "Flags of opening an IPC memory "
                      "handle (``cuIpcOpenMemHandle``; PyCUDA's "
                      "``ipc_mem_flags``)."),
    "capture_mode": ("CUstreamCaptureMode", "Modes of stream capture "
                     "(:meth:`Stream.begin_capture`)."),
    "capture_status": ("CUstreamCaptureStatus", "States of a stream's "
                       "capture (:meth:`Stream.get_capture_info_v2`)."),
    "update_capture_dependencies_flags": (
        "CUstreamUpdateCaptureDependencies_flags", "Whether nodes are added "
        "to or replace a capturing stream's dependencies."),
    "graph_node_type": ("CUgraphNodeType", "Kinds of graph node "
                        "(:attr:`GraphNode.type`)."),
    "graph_exec_update_result": ("CUgraphExecUpdateResult", "Why "
                                 ":meth:`GraphExec.update` refused a graph."),
    "graph_instantiate_flags": ("CUgraphInstantiate_flags", "Flags of "
                                ":meth:`Graph.instantiate`."),
    "graph_debug_dot_flags": ("CUgraphDebugDot_flags", "What "
                              ":meth:`Graph.debug_dot_print` writes."),
    "array_format": ("CUarray_format", "Channel types of a CUDA array "
                     "(PyCUDA's ``array_format`` has the first eight)."),
    "array3d_flags": ("CUDA_ARRAY3D_*", "Flags of "
                      ":attr:`ArrayDescriptor3D.flags` (PyCUDA's "
                      "``array3d_flags``).\n\n``LAYERED`` is also named "
                      "``ARRAY3D_LAYERED``."),
    "address_mode": ("CUaddress_mode", "Texture addressing, per "
                     "dimension, of a :class:`TextureObject`."),
    "filter_mode": ("CUfilter_mode", "Texture filtering of a "
                    ":class:`TextureObject`."),
    "resource_type": ("CUresourcetype", "What a texture or surface object "
                      "reads."),
    "texture_read_mode": ("cudaTextureReadMode", "How a texture returns "
                          "integer data.\n\nThe runtime API's enum; in the "
                          "driver it is the ``CU_TRSF_READ_AS_INTEGER`` "
                          "flag."),
    "resource_view_format": ("CUresourceViewFormat", "Formats of "
                             ":attr:`ResourceViewDescriptor.format`."),
    "host_alloc_flags": ("CU_MEMHOSTALLOC_*", "Flags of page-locked host "
                         "allocation (``cuMemHostAlloc``; "
                         ":func:`pagelocked_empty`)."),
    "mem_host_register_flags": ("CU_MEMHOSTREGISTER_*", "Flags of "
                                ":func:`register_host_memory` "
                                "(``cuMemHostRegister``)."),
}

# What every enumeration's docstring says after its summary line.
_ENUM_DOC = """{summary}

An :class:`enum.IntEnum` mirroring ``{cname}``: the member names are the
C names without their prefix, the values are the C values, and a member
passes wherever the driver takes the int.

Parameters
----------
value : int
    Looks up the member of that value: ``{name}({first})`` is
    ``{name}.{first_name}``.
names, module, qualname, type, start, boundary : optional
    :class:`enum.IntEnum`'s functional API, for making a new enumeration;
    this one has members, so passing ``names`` raises TypeError.

Raises
------
ValueError
    For a ``value`` no member has.
"""


def _make_enums():
    import enum
    made = {}
    for table, name in ((DEVICE_ATTRIBUTE, "device_attribute"),
                        (FUNCTION_ATTRIBUTE, "function_attribute"),
                        (LIMIT, "limit"), (FUNC_CACHE, "func_cache"),
                        (CTX_FLAGS, "ctx_flags"), (STREAM_FLAGS, "stream_flags"),
                        (EVENT_FLAGS, "event_flags"), (JIT_OPTION, "jit_option"),
                        (JIT_INPUT_TYPE, "jit_input_type"),
                        (POINTER_ATTRIBUTE, "pointer_attribute"),
                        (MEM_POOL_ATTRIBUTE, "mem_pool_attribute"),
                        (MEMORY_TYPE, "memory_type"),
                        (MEM_ATTACH_FLAGS, "mem_attach_flags"),
                        (MEM_ADVICE, "mem_advice"),
                        (IPC_MEM_FLAGS, "ipc_mem_flags"),
                        # graphs and stream capture
                        (CAPTURE_MODE, "capture_mode"),
                        (CAPTURE_STATUS, "capture_status"),
                        (UPDATE_CAPTURE_DEPENDENCIES_FLAGS,
                         "update_capture_dependencies_flags"),
                        (GRAPH_NODE_TYPE, "graph_node_type"),
                        (GRAPH_EXEC_UPDATE_RESULT, "graph_exec_update_result"),
                        (GRAPH_INSTANTIATE_FLAGS, "graph_instantiate_flags"),
                        (GRAPH_DEBUG_DOT_FLAGS, "graph_debug_dot_flags"),
                        # arrays, copies, textures
                        (ARRAY_FORMAT, "array_format"), (ARRAY3D_FLAGS, "array3d_flags"),
                        (ADDRESS_MODE, "address_mode"), (FILTER_MODE, "filter_mode"),
                        (RESOURCE_TYPE, "resource_type"),
                        (TEXTURE_READ_MODE, "texture_read_mode"),
                        (RESOURCE_VIEW_FORMAT, "resource_view_format")):
        made[name] = enum.IntEnum(name, table, module="gpuarr.driver")
    made["host_alloc_flags"] = enum.IntEnum(
        "host_alloc_flags", {"PORTABLE": 1, "DEVICEMAP": 2, "WRITECOMBINED": 4},
        module="gpuarr.driver")
    made["mem_host_register_flags"] = enum.IntEnum(
        "mem_host_register_flags",
        {"PORTABLE": 1, "DEVICEMAP": 2, "IOMEMORY": 4, "READ_ONLY": 8},
        module="gpuarr.driver")
    for name, cls in made.items():
        cname, summary = _ENUM_DOCS[name]
        first = next(iter(cls))
        cls.__doc__ = _ENUM_DOC.format(summary=summary, cname=cname, name=name,
                                       first=int(first), first_name=first.name)
    return made


globals().update(_make_enums())
