# Launch features beyond cuLaunchKernel: the occupancy calculator,
# cooperative launches and thread-block clusters (cuLaunchKernelEx); part
# of gpuarr/_driver.pyx, which includes this file.
#
# Owns: their entry points (_lx, loaded on first use), the checks a
# cooperative or cluster launch gets before the driver sees it, the
# CUlaunchConfig they are made with (_launch_ex), and the functions
# behind Function's occupancy methods.

ctypedef struct _LaunchAttr:        # CUlaunchAttribute (72 bytes)
    int id                          # CUlaunchAttributeID
    char pad[4]
    unsigned long long value[8]     # CUlaunchAttributeValue (a 64-byte union, 8-aligned)

ctypedef struct _LaunchConfig:      # CUlaunchConfig
    unsigned int gridDimX, gridDimY, gridDimZ
    unsigned int blockDimX, blockDimY, blockDimZ
    unsigned int sharedMemBytes
    CUstream hStream
    _LaunchAttr* attrs
    unsigned int numAttrs

ctypedef struct _LaunchExAPI:
    CUresult (*cuLaunchKernelEx)(const _LaunchConfig*, CUfunction, void**, void**) noexcept nogil
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t) noexcept nogil
    CUresult (*cuOccupancyMaxPotentialBlockSize)(int*, int*, CUfunction, void*, size_t, int) noexcept nogil
    CUresult (*cuOccupancyAvailableDynamicSMemPerBlock)(size_t*, CUfunction, int, int) noexcept nogil
    CUresult (*cuOccupancyMaxPotentialClusterSize)(int*, CUfunction, const _LaunchConfig*) noexcept nogil
    CUresult (*cuOccupancyMaxActiveClusters)(int*, CUfunction, const _LaunchConfig*) noexcept nogil

cdef _LaunchExAPI _lx
cdef bint _lx_loaded = False

cdef enum:
    _ATTR_COOPERATIVE = 2           # CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    _ATTR_CLUSTER_DIMENSION = 4     # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    _DEV_ATTR_SM_COUNT = 16         # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    _DEV_ATTR_COOPERATIVE = 95      # CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
    _DEV_ATTR_CLUSTER = 120         # CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH


cdef int _load_launchex() except -1:
    global _lx_loaded
    if _lx_loaded:
        return 0
    _ensure()
    (<void**>&_lx.cuLaunchKernelEx)[0] = _get(b"cuLaunchKernelEx", None)
    (<void**>&_lx.cuOccupancyMaxActiveBlocksPerMultiprocessor)[0] = \
        _get(b"cuOccupancyMaxActiveBlocksPerMultiprocessor", None)
    (<void**>&_lx.cuOccupancyMaxPotentialBlockSize)[0] = \
        _get(b"cuOccupancyMaxPotentialBlockSize", None)
    (<void**>&_lx.cuOccupancyAvailableDynamicSMemPerBlock)[0] = \
        _get(b"cuOccupancyAvailableDynamicSMemPerBlock", None)
    (<void**>&_lx.cuOccupancyMaxPotentialClusterSize)[0] = \
        _get(b"cuOccupancyMaxPotentialClusterSize", None)
    (<void**>&_lx.cuOccupancyMaxActiveClusters)[0] = \
        _get(b"cuOccupancyMaxActiveClusters", None)
    _lx_loaded = True
    return 0


cdef int _current_device_attr(int attr) except? -1:
    cdef CUdevice dev = 0
    cdef int v = 0
    check(api.cuCtxGetDevice(&dev), "cuCtxGetDevice")
    check(api.cuDeviceGetAttribute(&v, attr, dev), "cuDeviceGetAttribute")
    return v


cdef int _max_active_blocks(Function f, int block_size, size_t smem) except -1:
    cdef int n = 0
    if block_size <= 0:
        raise ValueError("block_size must be positive, got %d" % block_size)
    _load_launchex()
    _need(<void*>_lx.cuOccupancyMaxActiveBlocksPerMultiprocessor,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor", "6.5")
    check(_lx.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f.func, block_size, smem),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor")
    return n


cdef tuple _max_potential_block_size(Function f, object smem, int limit):
    """(min_grid_size, block_size) with the most resident threads."""
    cdef int grid = 0, block = 0, best_threads = 0, best_block = 0, best_blocks = 0
    cdef int bs, nb, warp = 32, top
    _load_launchex()
    if limit < 0:
        raise ValueError("block_size_limit cannot be negative")
    if not callable(smem):
        if smem < 0:
            raise ValueError("dynamic_smem cannot be negative")
        _need(<void*>_lx.cuOccupancyMaxPotentialBlockSize,
              "cuOccupancyMaxPotentialBlockSize", "6.5")
        check(_lx.cuOccupancyMaxPotentialBlockSize(&grid, &block, f.func, NULL,
                                                   <size_t>smem, limit),
              "cuOccupancyMaxPotentialBlockSize")
        return grid, block
    # dynamic shared memory as a function of the block size: the driver's
    # callback has no user argument, so search here as it would, over
    # whole warps from the largest block down
    top = f.max_threads_per_block
    if limit:
        top = min(top, limit)
    sms = _current_device_attr(_DEV_ATTR_SM_COUNT)
    bs = top - top % warp
    while bs >= warp:
        need = smem(bs)
        if not isinstance(need, (int, np.integer)) or need < 0:
            raise ValueError("dynamic_smem(%d) must return a non-negative int, got %r"
                             % (bs, need))
        nb = _max_active_blocks(f, bs, need)
        if nb * bs > best_threads:
            best_threads = nb * bs
            best_block = bs
            best_blocks = nb
        bs -= warp
    if best_block == 0:
        raise ValueError("no block size fits this kernel's resources with that "
                         "dynamic shared memory")
    return best_blocks * sms, best_block


cdef int _check_cluster(unsigned int* g, unsigned int* c) except -1:
    for k in range(3):
        if c[k] == 0:
            raise ValueError("cluster entries must be positive, got %r"
                             % ((c[0], c[1], c[2]),))
        if g[k] % c[k]:
            raise ValueError("grid %r is not a whole number of clusters %r in "
                             "each dimension" % ((g[0], g[1], g[2]), (c[0], c[1], c[2])))
    if not _current_device_attr(_DEV_ATTR_CLUSTER):
        raise _errors.NotSupportedError(
            "this device cannot launch thread-block clusters (compute "
            "capability 9.0 or newer is needed)")
    return 0


cdef int _check_cooperative(Function f, unsigned int* g, unsigned int* b,
                            unsigned int shared) except -1:
    if not _current_device_attr(_DEV_ATTR_COOPERATIVE):
        raise _errors.NotSupportedError("this device cannot launch cooperative kernels")
    blocks = <unsigned long long>g[0] * g[1] * g[2]
    per_sm = _max_active_blocks(f, <int>(b[0] * b[1] * b[2]), shared)
    sms = _current_device_attr(_DEV_ATTR_SM_COUNT)
    if blocks > <unsigned long long>per_sm * sms:
        raise ValueError(
            "a cooperative launch of kernel %r needs all %d blocks resident at "
            "once, but only %d fit (%d per multiprocessor x %d multiprocessors "
            "with block=%r and shared=%d bytes); use a smaller grid"
            % (f.function_name, blocks, per_sm * sms, per_sm, sms,
               (b[0], b[1], b[2]), shared))
    return 0


cdef void _fill_config(_LaunchConfig* cfg, _LaunchAttr* attrs, unsigned int* g,
                       unsigned int* b, unsigned int shared, CUstream s,
                       bint cooperative, unsigned int* cluster) noexcept:
    memset(cfg, 0, sizeof(_LaunchConfig))
    memset(attrs, 0, 2 * sizeof(_LaunchAttr))
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = g[0], g[1], g[2]
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = b[0], b[1], b[2]
    cfg.sharedMemBytes = shared
    cfg.hStream = s
    cfg.attrs = attrs
    cdef unsigned int* v
    if cooperative:
        attrs[cfg.numAttrs].id = _ATTR_COOPERATIVE
        v = <unsigned int*>attrs[cfg.numAttrs].value     # int cooperative
        v[0] = 1
        cfg.numAttrs += 1
    if cluster != NULL:
        attrs[cfg.numAttrs].id = _ATTR_CLUSTER_DIMENSION
        v = <unsigned int*>attrs[cfg.numAttrs].value     # struct {x, y, z} clusterDim
        v[0] = cluster[0]
        v[1] = cluster[1]
        v[2] = cluster[2]
        cfg.numAttrs += 1


cdef CUresult _launch_ex(Function f, unsigned int* g, unsigned int* b,
                         unsigned int shared, CUstream s, void** params,
                         bint cooperative, unsigned int* cluster) except? -1:
    """cuLaunchKernelEx with the cooperative and cluster attributes, after
    checking what the driver would refuse (or hang on) late."""
    cdef _LaunchConfig cfg
    cdef _LaunchAttr attrs[2]
    _load_launchex()
    _need(<void*>_lx.cuLaunchKernelEx, "cuLaunchKernelEx", "12.0")
    if cluster != NULL:
        _check_cluster(g, cluster)
    if cooperative:
        _check_cooperative(f, g, b, shared)
    _fill_config(&cfg, attrs, g, b, shared, s, cooperative, cluster)
    return _lx.cuLaunchKernelEx(&cfg, f.func, params, NULL)


cdef int _cluster_occupancy(Function f, object grid, object block, object cluster,
                            unsigned int shared, bint potential) except? -1:
    cdef _LaunchConfig cfg
    cdef _LaunchAttr attrs[2]
    cdef unsigned int g[3]
    cdef unsigned int b[3]
    cdef unsigned int c[3]
    cdef int n = 0
    _dims3(grid, g, "grid")
    _dims3(block, b, "block")
    if cluster is not None:
        _dims3(cluster, c, "cluster")
        _check_cluster(g, c)
    _load_launchex()
    _fill_config(&cfg, attrs, g, b, shared, NULL, False,
                 c if cluster is not None else NULL)
    if potential:
        _need(<void*>_lx.cuOccupancyMaxPotentialClusterSize,
              "cuOccupancyMaxPotentialClusterSize", "11.8")
        check(_lx.cuOccupancyMaxPotentialClusterSize(&n, f.func, &cfg),
              "cuOccupancyMaxPotentialClusterSize")
    else:
        _need(<void*>_lx.cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters", "11.8")
        check(_lx.cuOccupancyMaxActiveClusters(&n, f.func, &cfg),
              "cuOccupancyMaxActiveClusters")
    return n
