/* Managed memory, prefetching, advice, pointer attributes in bulk and
 * created memory pools for the fake libcuda (#included at the end of
 * fake_libcuda.c). Managed memory is host memory marked FAKE_MANAGED;
 * prefetches and advice are checked and recorded, nothing moves. */

typedef struct { int type; int id; } FakeMemLocation;

static struct {
    CUdeviceptr ptr;
    size_t count;
    int loc_type, loc_id;     /* prefetch target, or advice location */
    int advice;               /* 0 for a prefetch */
    void *stream;
    long long calls;
} last_migration;

static int fake_created_pools[8];   /* tokens; 1 while alive */
static void *device_pool;           /* set by cuDeviceSetMemPool, else default */

static CUresult check_managed(CUdeviceptr p, size_t n)
{
    LOCK();
    Res *r = find_range((uintptr_t)p, n ? n : 1);
    int ok = r && r->kind == R_DEV && (r->flags & FAKE_MANAGED);
    UNLOCK();
    return ok ? OK : E_INVALID_VALUE;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *out, size_t n, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (flags != 1 && flags != 2)
        return FAIL(E_INVALID_VALUE);
    CUresult r = alloc_dev(out, n, c);
    if (r)
        return FAIL(r);
    LOCK();
    find_ptr(DP(*out), R_DEV)->flags |= FAKE_MANAGED;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuStreamAttachMemAsync(void *stream, CUdeviceptr p, size_t n, unsigned int flags)
{
    NEED_CTX(NULL);
    if (flags != 1 && flags != 2 && flags != 4)
        return FAIL(E_INVALID_VALUE);
    if (flags == 4 && stream == NULL)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    UNLOCK();
    if (!r)
        r = check_managed(p, n);
    return r ? FAIL(r) : OK;
}

static CUresult record_migration(CUdeviceptr p, size_t n, FakeMemLocation loc, int advice,
                                 void *stream)
{
    NEED_CTX(NULL);
    if ((loc.type == 1 && check_device(loc.id)) || (loc.type != 1 && loc.type != 2))
        return FAIL(E_INVALID_DEVICE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    UNLOCK();
    if (!r)
        r = check_managed(p, n);
    if (r)
        return FAIL(r);
    last_migration.ptr = p;
    last_migration.count = n;
    last_migration.loc_type = loc.type;
    last_migration.loc_id = loc.id;
    last_migration.advice = advice;
    last_migration.stream = stream;
    last_migration.calls++;
    return OK;
}

EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, FakeMemLocation loc,
                                      unsigned int flags, void *stream)
{
    if (flags)
        return FAIL(E_INVALID_VALUE);
    return record_migration(p, n, loc, 0, stream);
}

EXPORT CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t n, CUdevice d, void *stream)
{
    FakeMemLocation loc = {d == -1 ? 2 : 1, d == -1 ? 0 : d};
    return record_migration(p, n, loc, 0, stream);
}

EXPORT CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, FakeMemLocation loc)
{
    if (advice < 1 || advice > 6)
        return FAIL(E_INVALID_VALUE);
    return record_migration(p, n, loc, advice, NULL);
}

EXPORT CUresult cuMemAdvise(CUdeviceptr p, size_t n, int advice, CUdevice d)
{
    FakeMemLocation loc = {d == -1 ? 2 : 1, d == -1 ? 0 : d};
    if (advice < 1 || advice > 6)
        return FAIL(E_INVALID_VALUE);
    return record_migration(p, n, loc, advice, NULL);
}

/* The last prefetch or advice: fills out[6] = {ptr, count, loc_type,
 * loc_id, advice, stream}; returns how many there were. */
EXPORT long long fake_last_migration(unsigned long long *out)
{
    out[0] = last_migration.ptr;
    out[1] = last_migration.count;
    out[2] = (unsigned long long)last_migration.loc_type;
    out[3] = (unsigned long long)last_migration.loc_id;
    out[4] = (unsigned long long)last_migration.advice;
    out[5] = (unsigned long long)(uintptr_t)last_migration.stream;
    return last_migration.calls;
}

/* As the real call: memory the driver does not know is no error (memory
 * type 0, context NULL); each value is written at its own width. */
EXPORT CUresult cuPointerGetAttributes(unsigned int n, int *attrs, void **data, CUdeviceptr p)
{
    NEED_INIT();
    if (!attrs || !data)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = find_range((uintptr_t)p, 1);
    Res copy = {0};
    if (r)
        copy = *r;
    UNLOCK();
    for (unsigned i = 0; i < n; i++) {
        int a = attrs[i];
        if (!data[i])
            return FAIL(E_INVALID_VALUE);
        if (!r) {
            if (a == 1 || a == 3 || a == 4 || a == 11 || a == 12)
                memset(data[i], 0, 8);
            else
                memset(data[i], 0, 4);
            continue;
        }
        switch (a) {
        case 13: *(unsigned *)data[i] = copy.kind == R_HOST && (copy.flags & 2); break;
        default: {
            CUresult e = cuPointerGetAttribute(data[i], a, p);
            if (e)
                return e;
        }
        }
    }
    return OK;
}

EXPORT CUresult cuMemPoolCreate(void **pool, const void *props)
{
    NEED_INIT();
    if (!pool || !props)
        return FAIL(E_INVALID_VALUE);
    const int *p = props;           /* allocType, handleTypes, location */
    if (p[0] != 1 || p[2] != 1 || check_device(p[3]))
        return FAIL(E_INVALID_VALUE);
    for (int i = 0; i < 8; i++)
        if (!fake_created_pools[i]) {
            fake_created_pools[i] = 1;
            *pool = &fake_created_pools[i];
            return OK;
        }
    return FAIL(E_OUT_OF_MEMORY);
}

static int created_pool(void *pool)
{
    for (int i = 0; i < 8; i++)
        if (pool == &fake_created_pools[i] && fake_created_pools[i])
            return 1;
    return 0;
}

EXPORT CUresult cuMemPoolDestroy(void *pool)
{
    if (!created_pool(pool))
        return FAIL(E_INVALID_VALUE);
    *(int *)pool = 0;
    if (device_pool == pool)
        device_pool = NULL;
    return OK;
}

EXPORT CUresult cuDeviceSetMemPool(CUdevice d, void *pool)
{
    NEED_DEVICE(d);
    if (pool != &fake_pool_token && !created_pool(pool))
        return FAIL(E_INVALID_VALUE);
    device_pool = pool == &fake_pool_token ? NULL : pool;
    return OK;
}

EXPORT CUresult cuDeviceGetMemPool(void **pool, CUdevice d)
{
    NEED_DEVICE(d);
    if (!pool)
        return FAIL(E_INVALID_VALUE);
    *pool = device_pool ? device_pool : (void *)&fake_pool_token;
    return OK;
}

EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *out, size_t n, void *pool, void *stream)
{
    if (pool != &fake_pool_token && !created_pool(pool))
        return FAIL(E_INVALID_VALUE);
    return cuMemAllocAsync(out, n, stream);
}

/* Created pools alive. */
EXPORT int fake_live_pools(void)
{
    int n = 0;
    for (int i = 0; i < 8; i++)
        n += fake_created_pools[i];
    return n;
}
