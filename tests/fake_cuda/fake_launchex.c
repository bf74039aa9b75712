/* cuLaunchKernelEx and the occupancy calculator for the fake libcuda
 * (#included at the end of fake_libcuda.c). A kernel's occupancy is
 * worked out from its registers, shared memory and the H200's limits in
 * ATTRS, so tests can predict it; the last CUlaunchConfig's attributes are
 * recorded. */

typedef struct {
    int id;
    char pad[4];
    unsigned value[16];
} FakeLaunchAttr;

typedef struct {
    unsigned gx, gy, gz, bx, by, bz, shared;
    void *stream;
    FakeLaunchAttr *attrs;
    unsigned nattrs;
} FakeLaunchConfig;

static struct {
    long long calls;
    int cooperative;
    unsigned cluster[3];
} last_ex;

static int fake_attr(int attr)
{
    for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++)
        if (ATTRS[i].attr == attr)
            return ATTRS[i].value;
    return 0;
}

/* Blocks of `threads` with `smem` dynamic bytes one SM holds. */
static int fake_occupancy(Func *f, int threads, size_t smem)
{
    if (threads <= 0 || threads > f->attrs[0])
        return 0;
    int warps = (threads + 31) / 32;
    int by_threads = fake_attr(39) / (warps * 32);
    int regs = f->attrs[4] * warps * 32;
    int by_regs = regs ? fake_attr(82) / regs : by_threads;
    size_t per_block = smem + (size_t)f->attrs[1];
    int by_smem = per_block ? (int)(fake_attr(81) / per_block) : by_threads;
    int n = fake_attr(106);
    if (by_threads < n) n = by_threads;
    if (by_regs < n) n = by_regs;
    if (by_smem < n) n = by_smem;
    return n;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *h, int threads,
                                                            size_t smem)
{
    NEED_CTX(NULL);
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (!n || threads <= 0)
        return FAIL(E_INVALID_VALUE);
    *n = fake_occupancy(f, threads, smem);
    return OK;
}

EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *grid, int *block, void *h, void *b2d,
                                                 size_t smem, int limit)
{
    NEED_CTX(NULL);
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (!grid || !block || b2d)
        return FAIL(E_INVALID_VALUE);
    int top = f->attrs[0];
    if (limit > 0 && limit < top)
        top = limit;
    int best = 0, best_bs = 0, best_n = 0;
    for (int bs = top - top % 32; bs >= 32; bs -= 32) {
        int n = fake_occupancy(f, bs, smem);
        if (n * bs > best) {
            best = n * bs;
            best_bs = bs;
            best_n = n;
        }
    }
    *block = best_bs;
    *grid = best_n * fake_attr(16);
    return OK;
}

EXPORT CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *out, void *h, int nblocks,
                                                        int threads)
{
    NEED_CTX(NULL);
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (!out || nblocks <= 0 || threads <= 0)
        return FAIL(E_INVALID_VALUE);
    size_t each = (size_t)fake_attr(81) / nblocks;
    *out = each > (size_t)f->attrs[1] ? each - f->attrs[1] : 0;
    return OK;
}

static const unsigned *config_cluster(const FakeLaunchConfig *cfg)
{
    for (unsigned i = 0; i < cfg->nattrs; i++)
        if (cfg->attrs[i].id == 4)
            return cfg->attrs[i].value;
    return NULL;
}

EXPORT CUresult cuOccupancyMaxPotentialClusterSize(int *n, void *h, const FakeLaunchConfig *cfg)
{
    NEED_CTX(NULL);
    if (!live_func(h))
        return FAIL(E_INVALID_HANDLE);
    if (!n || !cfg)
        return FAIL(E_INVALID_VALUE);
    *n = 8;
    return OK;
}

EXPORT CUresult cuOccupancyMaxActiveClusters(int *n, void *h, const FakeLaunchConfig *cfg)
{
    NEED_CTX(NULL);
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    const unsigned *c = cfg ? config_cluster(cfg) : NULL;
    if (!n || !c)
        return FAIL(E_INVALID_VALUE);
    int size = (int)(c[0] * c[1] * c[2]);
    int per_sm = fake_occupancy(f, (int)(cfg->bx * cfg->by * cfg->bz), cfg->shared);
    *n = size ? per_sm * fake_attr(16) / size : 0;
    return OK;
}

EXPORT CUresult cuLaunchKernelEx(const FakeLaunchConfig *cfg, void *h, void **params,
                                 void **extra)
{
    NEED_CTX(NULL);
    if (!cfg || (cfg->nattrs && !cfg->attrs))
        return FAIL(E_INVALID_VALUE);
    int cooperative = 0;
    const unsigned *c = NULL;
    for (unsigned i = 0; i < cfg->nattrs; i++) {
        if (cfg->attrs[i].id == 2)
            cooperative = cfg->attrs[i].value[0] != 0;
        else if (cfg->attrs[i].id == 4)
            c = cfg->attrs[i].value;
        else
            return FAIL(E_INVALID_VALUE);
    }
    if (c && (!c[0] || !c[1] || !c[2] || cfg->gx % c[0] || cfg->gy % c[1] || cfg->gz % c[2]))
        return FAIL(E_INVALID_VALUE);
    if (cooperative) {
        Func *f = live_func(h);
        if (f && (long long)cfg->gx * cfg->gy * cfg->gz
                 > (long long)fake_occupancy(f, (int)(cfg->bx * cfg->by * cfg->bz),
                                             cfg->shared) * fake_attr(16))
            return FAIL(720);    /* CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
    }
    CUresult r = cuLaunchKernel(h, cfg->gx, cfg->gy, cfg->gz, cfg->bx, cfg->by, cfg->bz,
                                cfg->shared, cfg->stream, params, extra);
    if (r)
        return r;
    last_ex.calls++;
    last_ex.cooperative = cooperative;
    for (int k = 0; k < 3; k++)
        last_ex.cluster[k] = c ? c[k] : 0;
    return OK;
}

/* The last cuLaunchKernelEx: out[4] = {cooperative, cluster x, y, z}
 * (cluster 0 when none); returns how many there were. */
EXPORT long long fake_last_launch_ex(unsigned *out)
{
    out[0] = (unsigned)last_ex.cooperative;
    for (int k = 0; k < 3; k++)
        out[k + 1] = last_ex.cluster[k];
    return last_ex.calls;
}
