/*
 * A fake libcuda.so.1 for gpuarr's CPU tests.
 *
 * It exports every entry point gpuarr's driver layer resolves (in
 * gpuarr/_driver_load.pxi, with the versioned names it asks dlsym for) and implements them on host memory:
 * one device ("Fake GPU", compute capability 9.0, 132 SMs), a context stack
 * per thread, a primary context with a reference count, device memory from
 * malloc, streams and events that complete at once, and "modules" read from
 * a small text format:
 *
 *     FAKE
 *     kernel NAME SIZES [noinfo] [effect=inc|effect=copy]
 *     global NAME SIZE
 *
 * SIZES is a comma-separated list of parameter sizes in bytes ("-" for a
 * kernel without parameters). Parameters are laid out with natural
 * alignment (the largest power of two dividing the size, at most 16), which
 * is what cuFuncGetParamInfo reports. "noinfo" makes cuFuncGetParamCount
 * and cuFuncGetParamInfo answer CUDA_ERROR_NOT_SUPPORTED, as a driver older
 * than CUDA 12.4 would.
 * Effects run at launch: "inc" adds 1 to each of the n bytes at p for a
 * kernel (p, int n); "copy" copies n bytes from src to dst for a kernel
 * (dst, src, int n).
 *
 * A PTX image (text with a ".version" directive) is read too: each
 * ".entry NAME(...)" becomes a kernel whose parameters have the sizes of
 * their ".param" types (.b8/.u8/.s8: 1 byte ... .b64/.u64/.s64/.f64: 8,
 * times the count of an array "name[N]"), each at its ".align" or else its
 * type's size. Nothing else of the PTX is checked.
 *
 * cuFuncGetParamCount is exported unless built with -DFAKE_NO_PARAM_COUNT,
 * which makes the driver of CUDA 12.4 to 13.0 (cuFuncGetParamInfo only).
 * The counters param_count_calls, param_info_calls and param_info_errors
 * (calls of cuFuncGetParamInfo that did not return CUDA_SUCCESS) show how
 * gpuarr asked; asking past the last parameter is an error, as it is in a
 * compute-sanitizer run.
 *
 * Every launch records its packed parameter bytes, grid, block, shared
 * memory and stream; helpers prefixed fake_ let Python read that record and
 * the counters with ctypes (dlopen of the same path returns the same
 * handle, so the state is shared with gpuarr's own dlopen).
 *
 * Build: cc -shared -fPIC -O1 -o libcuda.so.1 fake_libcuda.c
 */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

#define EXPORT __attribute__((visibility("default")))

enum {
    OK = 0,
    E_INVALID_VALUE = 1,
    E_OUT_OF_MEMORY = 2,
    E_NOT_INITIALIZED = 3,
    E_INVALID_DEVICE = 101,
    E_INVALID_IMAGE = 200,
    E_INVALID_CONTEXT = 201,
    E_UNSUPPORTED_LIMIT = 215,
    E_INVALID_HANDLE = 400,
    E_FILE_NOT_FOUND = 301,
    E_NOT_FOUND = 500,
    E_NOT_READY = 600,
    E_ILLEGAL_ADDRESS = 700,
    E_CONTEXT_IS_DESTROYED = 709,
    E_HOST_MEMORY_ALREADY_REGISTERED = 712,
    E_HOST_MEMORY_NOT_REGISTERED = 713,
    E_NOT_SUPPORTED = 801,
    E_UNKNOWN = 999,
};

static const struct {
    int code;
    const char *name;
    const char *text;
} ERRORS[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

/* ------------------------------------------------------------------------ */
/* State                                                                     */
/* ------------------------------------------------------------------------ */

#define FAKE_MANAGED 0x100u     /* Res.flags of cuMemAllocManaged memory */
#define MAX_PARAMS 128
#define RECORD_BYTES 8192
#define STACK_DEPTH 64

typedef struct Ctx {
    int primary;
    int alive;
    unsigned flags;
    size_t limits[7];
    int cache_config;
    struct Ctx *next_all;     /* every context ever made; never freed */
    int attached;             /* cuCtxAttach holds not yet detached */
    int device;               /* its device's ordinal */
} Ctx;

typedef struct Func {
    char name[64];
    int nparams;
    size_t sizes[MAX_PARAMS];
    size_t offsets[MAX_PARAMS];
    size_t total;
    int noinfo;
    int effect;               /* 0 none, 1 inc, 2 copy */
    int alive;
    int attrs[16];
    int cache_config;
    struct Func *next_in_module;
} Func;

enum { R_DEV = 1, R_HOST, R_REG, R_GLOBAL, R_STREAM, R_EVENT, R_MODULE };

typedef struct Res {
    int kind;
    unsigned char *ptr;       /* memory kinds: the bytes */
    size_t size;
    Ctx *ctx;                 /* current context when it was made */
    unsigned flags;
    int recorded;             /* events */
    char name[64];            /* globals */
    struct Res *module;       /* globals: their module */
    Func *funcs;              /* modules: their kernels */
    struct Res *next;
} Res;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
/* Devices: FAKE_CUDA_DEVICES (1 to MAX_DEVICES, default 1), read by cuInit.
 * Device 0's primary context is primary_ctx (the counters report it); the
 * others' are made on their first retain and joined to all_ctx. */
#define MAX_DEVICES 8
static int ndevices = 1;
static Ctx primary_ctx = {1, 0, 0, {0}, 0, NULL};
static Ctx *all_ctx = &primary_ctx;
static int primary_refcount;
static Ctx other_primary[MAX_DEVICES];
static int other_refcount[MAX_DEVICES];
static int peer_enabled[MAX_DEVICES][MAX_DEVICES];
static Res *resources;
static __thread Ctx *stack[STACK_DEPTH];
static __thread int depth;
static int not_ready;

static struct {
    long long init_calls, launches, mem_free_calls, wrong_context_frees,
        wrong_context_releases, wrong_context_launches, errors, sync_calls,
        contexts_created, contexts_destroyed, primary_resets,
        stream_syncs, module_loads, param_count_calls, param_info_calls,
        param_info_errors, foreign_device_launches;
    Ctx *last_sync_ctx;
} cnt;

static struct {
    int valid;
    char name[64];
    unsigned grid[3], block[3], shared;
    void *stream;
    Ctx *ctx;
    size_t nbytes;
    unsigned char bytes[RECORD_BYTES];
} last_launch;

static char last_error_call[64];
static int last_error_code;

#define LOCK() pthread_mutex_lock(&lock)
#define UNLOCK() pthread_mutex_unlock(&lock)

/* Every failure goes through here (with the lock held or not: it only
 * writes plain counters used by the single-threaded tests). */
static CUresult fail(CUresult code, const char *call)
{
    cnt.errors++;
    last_error_code = code;
    snprintf(last_error_call, sizeof last_error_call, "%s", call);
    return code;
}

#define FAIL(code) fail((code), __func__)
#define NEED_INIT() do { if (!initialized) return FAIL(E_NOT_INITIALIZED); } while (0)

static Ctx *current(void)
{
    return depth ? stack[depth - 1] : NULL;
}

/* The current context, or the error a call needing one returns. */
static CUresult need_ctx(Ctx **out)
{
    Ctx *c = current();
    if (!initialized)
        return E_NOT_INITIALIZED;
    if (c == NULL)
        return E_INVALID_CONTEXT;
    if (!c->alive)
        return E_CONTEXT_IS_DESTROYED;
    if (out)
        *out = c;
    return OK;
}

#define NEED_CTX(var) do { CUresult r_ = need_ctx(var); if (r_) return FAIL(r_); } while (0)

static Ctx *find_ctx(void *h)
{
    for (Ctx *c = all_ctx; c; c = c->next_all)
        if ((void *)c == h)
            return c;
    return NULL;
}

static Res *add_res(int kind, void *ptr, size_t size, Ctx *ctx)
{
    Res *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = kind;
    r->ptr = ptr;
    r->size = size;
    r->ctx = ctx;
    r->next = resources;
    resources = r;
    return r;
}

static Res *find_handle(void *h, int kind)
{
    for (Res *r = resources; r; r = r->next)
        if ((void *)r == h && r->kind == kind)
            return r;
    return NULL;
}

static Res *find_ptr(const void *p, int kind)
{
    for (Res *r = resources; r; r = r->next)
        if (r->kind == kind && r->ptr == p)
            return r;
    return NULL;
}

/* The memory resource holding [p, p + n), or NULL. */
static Res *find_range(uintptr_t p, size_t n)
{
    for (Res *r = resources; r; r = r->next) {
        if (r->kind != R_DEV && r->kind != R_HOST && r->kind != R_REG && r->kind != R_GLOBAL)
            continue;
        uintptr_t b = (uintptr_t)r->ptr;
        if (p >= b && n <= r->size && p - b <= r->size - n)
            return r;
    }
    return NULL;
}

static void unlink_res(Res *dead)
{
    for (Res **pp = &resources; *pp; pp = &(*pp)->next) {
        if (*pp == dead) {
            *pp = dead->next;
            return;
        }
    }
}

static void drop_res(Res *r)
{
    unlink_res(r);
    if (r->kind == R_DEV || r->kind == R_HOST || r->kind == R_GLOBAL)
        free(r->ptr);
    if (r->kind == R_MODULE) {
        for (Func *f = r->funcs; f; f = f->next_in_module)
            f->alive = 0;        /* kept as tombstones: handles stay readable */
        Res *g = resources;
        while (g) {
            Res *next = g->next;
            if (g->kind == R_GLOBAL && g->module == r)
                drop_res(g);
            g = next;
        }
    }
    free(r);
}

/* What a context's destruction (or a primary context's reset) frees. */
static void drop_context_resources(Ctx *c)
{
    Res *r = resources;
    while (r) {
        Res *next = r->next;
        if (r->ctx == c && r->kind != R_GLOBAL) {
            drop_res(r);
            next = resources;    /* the list may have lost several nodes */
        }
        r = next;
    }
}

static CUresult check_stream(void *s, Res **out)
{
    if (out)
        *out = NULL;
    if (s == NULL || s == (void *)1 || s == (void *)2)
        return OK;
    Res *r = find_handle(s, R_STREAM);
    if (!r)
        return E_INVALID_HANDLE;
    if (out)
        *out = r;
    return OK;
}

/* ------------------------------------------------------------------------ */
/* Initialization, versions, errors                                          */
/* ------------------------------------------------------------------------ */

EXPORT CUresult cuInit(unsigned int flags)
{
    if (flags != 0)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    initialized = 1;
    cnt.init_calls++;
    const char *nd = getenv("FAKE_CUDA_DEVICES");
    if (nd && atoi(nd) >= 1 && atoi(nd) <= MAX_DEVICES)
        ndevices = atoi(nd);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
    if (!v)
        return FAIL(E_INVALID_VALUE);
    *v = 13000;
    return OK;
}

EXPORT CUresult cuGetErrorName(CUresult code, const char **out)
{
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++) {
        if (ERRORS[i].code == code) {
            *out = ERRORS[i].name;
            return OK;
        }
    }
    *out = NULL;
    return E_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult code, const char **out)
{
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++) {
        if (ERRORS[i].code == code) {
            *out = ERRORS[i].text;
            return OK;
        }
    }
    *out = NULL;
    return E_INVALID_VALUE;
}

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

static const struct {
    int attr;
    int value;
} ATTRS[] = {
    {1, 1024},        /* MAX_THREADS_PER_BLOCK */
    {2, 1024}, {3, 1024}, {4, 64},
    {5, 2147483647}, {6, 65535}, {7, 65535},
    {8, 49152},       /* MAX_SHARED_MEMORY_PER_BLOCK */
    {9, 65536},       /* TOTAL_CONSTANT_MEMORY */
    {10, 32},         /* WARP_SIZE */
    {12, 65536},      /* MAX_REGISTERS_PER_BLOCK */
    {13, 1980000},    /* CLOCK_RATE */
    {14, 16},         /* TEXTURE_ALIGNMENT: what malloc guarantees (fake_array.c) */
    {16, 132},        /* MULTIPROCESSOR_COUNT */
    {19, 1},          /* CAN_MAP_HOST_MEMORY */
    {20, 0},          /* COMPUTE_MODE */
    {31, 1},          /* CONCURRENT_KERNELS */
    {38, 62914560},   /* L2_CACHE_SIZE: 60 MiB, as an H200 */
    {33, 27},         /* PCI_BUS_ID */
    {34, 0},          /* PCI_DEVICE_ID */
    {39, 2048},       /* MAX_THREADS_PER_MULTIPROCESSOR */
    {41, 1},          /* UNIFIED_ADDRESSING */
    {50, 0},          /* PCI_DOMAIN_ID */
    {51, 32},         /* TEXTURE_PITCH_ALIGNMENT (fake_array.c) */
    {75, 9},          /* COMPUTE_CAPABILITY_MAJOR */
    {76, 0},          /* COMPUTE_CAPABILITY_MINOR */
    {81, 233472},     /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    {82, 65536},      /* MAX_REGISTERS_PER_MULTIPROCESSOR */
    {97, 232448},     /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    {106, 32},        /* MAX_BLOCKS_PER_MULTIPROCESSOR */
    {115, 0},         /* MEMORY_POOLS_SUPPORTED: the fake has no cuMemAllocAsync pools */
    {83, 1},          /* MANAGED_MEMORY */
    {95, 1},          /* COOPERATIVE_LAUNCH */
    {120, 1},         /* CLUSTER_LAUNCH */
};

#define TOTAL_MEM (80ULL << 30)

static CUresult check_device(CUdevice d)
{
    if (!initialized)
        return E_NOT_INITIALIZED;
    return d >= 0 && d < ndevices ? OK : E_INVALID_DEVICE;
}

#define NEED_DEVICE(d) do { CUresult r_ = check_device(d); if (r_) return FAIL(r_); } while (0)

EXPORT CUresult cuDeviceGet(CUdevice *out, int ordinal)
{
    NEED_INIT();
    if (!out)
        return FAIL(E_INVALID_VALUE);
    if (ordinal < 0 || ordinal >= ndevices)
        return FAIL(E_INVALID_DEVICE);
    *out = ordinal;
    return OK;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
    NEED_INIT();
    if (!n)
        return FAIL(E_INVALID_VALUE);
    *n = ndevices;
    return OK;
}

EXPORT CUresult cuDeviceGetName(char *buf, int len, CUdevice d)
{
    NEED_DEVICE(d);
    if (!buf || len <= 0)
        return FAIL(E_INVALID_VALUE);
    snprintf(buf, (size_t)len, "%s", "Fake GPU");
    return OK;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
    NEED_DEVICE(d);
    if (!v)
        return FAIL(E_INVALID_VALUE);
    for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++) {
        if (ATTRS[i].attr == attr) {
            *v = ATTRS[i].value;
            return OK;
        }
    }
    return FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *n, CUdevice d)
{
    NEED_DEVICE(d);
    if (!n)
        return FAIL(E_INVALID_VALUE);
    *n = TOTAL_MEM;
    return OK;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d)
{
    NEED_DEVICE(d);
    if (!buf || len <= 0)
        return FAIL(E_INVALID_VALUE);
    snprintf(buf, (size_t)len, "0000:%02X:00.0", 0x1B + d);
    return OK;
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                  */
/* ------------------------------------------------------------------------ */

static void reset_limits(Ctx *c)
{
    static const size_t defaults[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
    memcpy(c->limits, defaults, sizeof defaults);
    c->cache_config = 0;
}

/* Device d's primary context and its retain count (call with the lock). */
static Ctx *primary_of(CUdevice d)
{
    if (d == 0)
        return &primary_ctx;
    Ctx *c = &other_primary[d];
    if (!c->primary) {
        c->primary = 1;
        c->device = d;
        c->next_all = all_ctx;
        all_ctx = c;
    }
    return c;
}

static int *refcount_of(CUdevice d)
{
    return d == 0 ? &primary_refcount : &other_refcount[d];
}

EXPORT CUresult cuDevicePrimaryCtxRetain(void **out, CUdevice d)
{
    NEED_DEVICE(d);
    if (!out)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Ctx *p = primary_of(d);
    if (!p->alive) {
        p->alive = 1;
        reset_limits(p);
    }
    (*refcount_of(d))++;
    *out = p;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    NEED_DEVICE(d);
    LOCK();
    int *n = refcount_of(d);
    if (*n == 0) {
        UNLOCK();
        return FAIL(E_INVALID_CONTEXT);
    }
    if (--*n == 0) {
        /* The context is reset, but (unlike cuCtxDestroy) never popped. */
        Ctx *p = primary_of(d);
        drop_context_resources(p);
        p->alive = 0;
        cnt.primary_resets++;
    }
    UNLOCK();
    return OK;
}

EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int *flags, int *active)
{
    NEED_DEVICE(d);
    if (!flags || !active)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Ctx *p = primary_of(d);
    *flags = p->flags;
    *active = p->alive;
    UNLOCK();
    return OK;
}

static CUresult create_ctx(void **out, unsigned flags, CUdevice d)
{
    if (!out)
        return E_INVALID_VALUE;
    if (depth >= STACK_DEPTH)
        return E_UNKNOWN;
    Ctx *c = calloc(1, sizeof *c);
    if (!c)
        return E_OUT_OF_MEMORY;
    c->device = d;
    c->alive = 1;
    c->flags = flags;
    reset_limits(c);
    LOCK();
    c->next_all = all_ctx;
    all_ctx = c;
    cnt.contexts_created++;
    UNLOCK();
    stack[depth++] = c;
    *out = c;
    return OK;
}

EXPORT CUresult cuCtxCreate_v2(void **out, unsigned int flags, CUdevice d)
{
    NEED_DEVICE(d);
    CUresult r = create_ctx(out, flags, d);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuCtxCreate_v4(void **out, void *params, unsigned int flags, CUdevice d)
{
    NEED_DEVICE(d);
    if (params != NULL)
        return FAIL(E_NOT_SUPPORTED);
    CUresult r = create_ctx(out, flags, d);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuCtxDestroy_v2(void *h)
{
    NEED_INIT();
    LOCK();
    Ctx *c = find_ctx(h);
    if (!c || c->primary || !c->alive) {
        UNLOCK();
        return FAIL(E_INVALID_CONTEXT);
    }
    drop_context_resources(c);
    c->alive = 0;
    cnt.contexts_destroyed++;
    UNLOCK();
    if (current() == c)
        depth--;
    return OK;
}

EXPORT CUresult cuCtxPushCurrent_v2(void *h)
{
    NEED_INIT();
    LOCK();
    Ctx *c = find_ctx(h);
    int ok = c && c->alive;
    UNLOCK();
    if (!ok)
        return FAIL(E_INVALID_CONTEXT);
    if (depth >= STACK_DEPTH)
        return FAIL(E_UNKNOWN);
    stack[depth++] = c;
    return OK;
}

EXPORT CUresult cuCtxPopCurrent_v2(void **out)
{
    NEED_INIT();
    if (depth == 0)
        return FAIL(E_INVALID_CONTEXT);
    Ctx *c = stack[--depth];
    if (out)
        *out = c;
    return OK;
}

EXPORT CUresult cuCtxGetCurrent(void **out)
{
    NEED_INIT();
    if (!out)
        return FAIL(E_INVALID_VALUE);
    *out = current();
    return OK;
}

EXPORT CUresult cuCtxSetCurrent(void *h)
{
    NEED_INIT();
    if (h == NULL) {
        if (depth)
            depth--;
        return OK;
    }
    LOCK();
    Ctx *c = find_ctx(h);
    int ok = c && c->alive;
    UNLOCK();
    if (!ok)
        return FAIL(E_INVALID_CONTEXT);
    if (depth == 0)
        depth = 1;
    stack[depth - 1] = c;
    return OK;
}

EXPORT CUresult cuCtxSynchronize(void)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    cnt.sync_calls++;
    cnt.last_sync_ctx = c;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *out)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out)
        return FAIL(E_INVALID_VALUE);
    *out = c->device;
    return OK;
}

EXPORT CUresult cuCtxGetLimit(size_t *v, int limit)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!v)
        return FAIL(E_INVALID_VALUE);
    if (limit < 0 || limit >= 7)
        return FAIL(E_UNSUPPORTED_LIMIT);
    *v = c->limits[limit];
    return OK;
}

EXPORT CUresult cuCtxSetLimit(int limit, size_t value)
{
    Ctx *c;
    NEED_CTX(&c);
    if (limit < 0 || limit >= 7)
        return FAIL(E_UNSUPPORTED_LIMIT);
    c->limits[limit] = value;
    return OK;
}

EXPORT CUresult cuCtxGetCacheConfig(int *v)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!v)
        return FAIL(E_INVALID_VALUE);
    *v = c->cache_config;
    return OK;
}

EXPORT CUresult cuCtxSetCacheConfig(int v)
{
    Ctx *c;
    NEED_CTX(&c);
    if (v < 0 || v > 3)
        return FAIL(E_INVALID_VALUE);
    c->cache_config = v;
    return OK;
}

EXPORT CUresult cuCtxGetApiVersion(void *h, unsigned int *v)
{
    NEED_INIT();
    if (!v)
        return FAIL(E_INVALID_VALUE);
    if (h == NULL) {
        NEED_CTX(NULL);
    } else {
        LOCK();
        Ctx *c = find_ctx(h);
        int ok = c && c->alive;
        UNLOCK();
        if (!ok)
            return FAIL(E_INVALID_CONTEXT);
    }
    *v = 13000;
    return OK;
}

/* PyCUDA-compatibility context calls (Context.get_stream_priority_range,
 * Context.attach). The range is an H100's/H200's. Built with
 * -DFAKE_NO_ATTACH, cuCtxAttach and cuCtxDetach are not exported, as a
 * driver that dropped them would have it. */
EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
    NEED_CTX(NULL);
    if (least)
        *least = 0;
    if (greatest)
        *greatest = -5;
    return OK;
}

#ifndef FAKE_NO_ATTACH
EXPORT CUresult cuCtxAttach(void **out, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out || flags != 0)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    c->attached++;
    UNLOCK();
    *out = c;
    return OK;
}

static int fail_next_detach;   /* fake_fail_next_detach */

/* Gives back one cuCtxAttach hold; the context must be current. */
EXPORT CUresult cuCtxDetach(void *h)
{
    Ctx *c;
    NEED_CTX(&c);
    if ((void *)c != h)
        return FAIL(E_INVALID_CONTEXT);
    if (__sync_lock_test_and_set(&fail_next_detach, 0))
        return FAIL(E_INVALID_VALUE);
    LOCK();
    int ok = c->attached > 0;
    if (ok)
        c->attached--;
    UNLOCK();
    return ok ? OK : FAIL(E_INVALID_CONTEXT);
}

/* The next cuCtxDetach fails (with the hold kept), as a driver's might. */
EXPORT void fake_fail_next_detach(void)
{
    __sync_lock_test_and_set(&fail_next_detach, 1);
}
#endif

/* The cuCtxAttach holds of context h not yet given back (-1: no such). */
EXPORT int fake_attach_count(void *h)
{
    LOCK();
    Ctx *c = find_ctx(h);
    int n = c ? c->attached : -1;
    UNLOCK();
    return n;
}

/* ------------------------------------------------------------------------ */
/* Device memory                                                             */
/* ------------------------------------------------------------------------ */

static CUresult alloc_dev(CUdeviceptr *out, size_t n, Ctx *c)
{
    if (!out || n == 0)
        return E_INVALID_VALUE;
    if (n > (1ULL << 40))
        return E_OUT_OF_MEMORY;
    unsigned char *p = malloc(n);
    if (!p)
        return E_OUT_OF_MEMORY;
    memset(p, 0xCD, n);     /* "uninitialized" device memory */
    LOCK();
    Res *r = add_res(R_DEV, p, n, c);
    UNLOCK();
    if (!r) {
        free(p);
        return E_OUT_OF_MEMORY;
    }
    *out = (CUdeviceptr)(uintptr_t)p;
    return OK;
}

static CUresult free_dev(CUdeviceptr p)
{
    Ctx *c;
    CUresult r = need_ctx(&c);
    if (r)
        return r;
    LOCK();
    cnt.mem_free_calls++;
    Res *res = find_ptr((void *)(uintptr_t)p, R_DEV);
    if (!res) {
        UNLOCK();
        return E_INVALID_VALUE;
    }
    if (res->ctx != c)
        cnt.wrong_context_frees++;
    drop_res(res);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t n)
{
    Ctx *c;
    NEED_CTX(&c);
    CUresult r = alloc_dev(out, n, c);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
    CUresult r = free_dev(p);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *out, size_t n, void *stream)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    UNLOCK();
    if (r)
        return FAIL(r);
    r = alloc_dev(out, n, c);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, void *stream)
{
    LOCK();
    CUresult r = check_stream(stream, NULL);
    UNLOCK();
    if (r)
        return FAIL(r);
    r = free_dev(p);
    return r ? FAIL(r) : OK;
}

/* The device's default memory pool: one token and its attributes.  The
   fake frees asynchronous memory at once, so the pool holds nothing: its
   reserved and used figures are both the live device memory. */
static int fake_pool_token;
static unsigned long long pool_release_threshold;
static int pool_reuse[4] = {0, 1, 1, 1};

static unsigned long long dev_bytes_live(void)
{
    unsigned long long used = 0;
    LOCK();
    for (Res *r = resources; r; r = r->next)
        if (r->kind == R_DEV)
            used += r->size;
    UNLOCK();
    return used;
}

EXPORT CUresult cuDeviceGetDefaultMemPool(void **pool, CUdevice d)
{
    NEED_DEVICE(d);
    if (!pool)
        return FAIL(E_INVALID_VALUE);
    *pool = &fake_pool_token;
    return OK;
}

EXPORT CUresult cuMemPoolSetAttribute(void *pool, int attr, void *value)
{
    if (pool != &fake_pool_token || !value)
        return FAIL(E_INVALID_VALUE);
    if (attr >= 1 && attr <= 3) {
        pool_reuse[attr] = *(int *)value;
        return OK;
    }
    if (attr == 4) {
        pool_release_threshold = *(unsigned long long *)value;
        return OK;
    }
    if ((attr == 6 || attr == 8) && *(unsigned long long *)value == 0)
        return OK;      /* high-water marks can only be reset */
    return FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuMemPoolGetAttribute(void *pool, int attr, void *value)
{
    if (pool != &fake_pool_token || !value)
        return FAIL(E_INVALID_VALUE);
    if (attr >= 1 && attr <= 3)
        *(int *)value = pool_reuse[attr];
    else if (attr == 4)
        *(unsigned long long *)value = pool_release_threshold;
    else if (attr >= 5 && attr <= 8)
        *(unsigned long long *)value = dev_bytes_live();
    else
        return FAIL(E_INVALID_VALUE);
    return OK;
}

EXPORT CUresult cuMemPoolTrimTo(void *pool, size_t keep)
{
    (void)keep;
    return pool == &fake_pool_token ? OK : FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b)
{
    NEED_CTX(NULL);
    if (!free_b || !total_b)
        return FAIL(E_INVALID_VALUE);
    *total_b = TOTAL_MEM;
    *free_b = TOTAL_MEM - dev_bytes_live();
    return OK;
}

/* ------------------------------------------------------------------------ */
/* Host memory                                                               */
/* ------------------------------------------------------------------------ */

static int overlaps_registered(uintptr_t p, size_t n)
{
    for (Res *r = resources; r; r = r->next) {
        if (r->kind != R_REG && r->kind != R_HOST)
            continue;
        uintptr_t b = (uintptr_t)r->ptr;
        if (p < b + r->size && b < p + n)
            return 1;
    }
    return 0;
}

EXPORT CUresult cuMemHostAlloc(void **out, size_t n, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out || n == 0 || (flags & ~7u))
        return FAIL(E_INVALID_VALUE);
    if (n > (1ULL << 40))
        return FAIL(E_OUT_OF_MEMORY);
    unsigned char *p = malloc(n);
    if (!p)
        return FAIL(E_OUT_OF_MEMORY);
    memset(p, 0xAB, n);
    LOCK();
    Res *r = add_res(R_HOST, p, n, c);
    if (r)
        r->flags = flags;
    UNLOCK();
    if (!r) {
        free(p);
        return FAIL(E_OUT_OF_MEMORY);
    }
    *out = p;
    return OK;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    Res *r = find_ptr(p, R_HOST);
    if (!r) {
        UNLOCK();
        return FAIL(E_INVALID_VALUE);
    }
    if (r->ctx != c)
        cnt.wrong_context_releases++;
    drop_res(r);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!p || n == 0 || (flags & ~15u))
        return FAIL(E_INVALID_VALUE);
    LOCK();
    if (overlaps_registered((uintptr_t)p, n)) {
        UNLOCK();
        return FAIL(E_HOST_MEMORY_ALREADY_REGISTERED);
    }
    Res *r = add_res(R_REG, p, n, c);
    if (r)
        r->flags = flags;
    UNLOCK();
    return r ? OK : FAIL(E_OUT_OF_MEMORY);
}

EXPORT CUresult cuMemHostUnregister(void *p)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    Res *r = find_ptr(p, R_REG);
    if (!r) {
        UNLOCK();
        return FAIL(E_HOST_MEMORY_NOT_REGISTERED);
    }
    if (r->ctx != c)
        cnt.wrong_context_releases++;
    drop_res(r);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *out, void *p, unsigned int flags)
{
    NEED_CTX(NULL);
    if (!out || flags != 0)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = find_range((uintptr_t)p, 1);
    int ok = r && (r->kind == R_HOST || r->kind == R_REG);
    UNLOCK();
    if (!ok)
        return FAIL(E_INVALID_VALUE);
    *out = (CUdeviceptr)(uintptr_t)p;
    return OK;
}

/* ------------------------------------------------------------------------ */
/* Copies and fills: the device side must lie inside known memory            */
/* ------------------------------------------------------------------------ */

static CUresult check_dev_range(CUdeviceptr p, size_t n)
{
    if (n == 0)
        return OK;
    LOCK();
    Res *r = find_range((uintptr_t)p, n);
    UNLOCK();
    return r ? OK : E_INVALID_VALUE;
}

static CUresult do_copy(void *dst, const void *src, size_t n, CUdeviceptr dcheck,
                        CUdeviceptr scheck, int which, void *stream)
{
    CUresult r = need_ctx(NULL);
    if (r)
        return r;
    LOCK();
    r = check_stream(stream, NULL);
    UNLOCK();
    if (r)
        return r;
    if ((which & 1) && (r = check_dev_range(dcheck, n)))
        return r;
    if ((which & 2) && (r = check_dev_range(scheck, n)))
        return r;
    if (n && (!dst || !src))
        return E_INVALID_VALUE;
    if (n)
        memmove(dst, src, n);
    return OK;
}

#define DP(x) ((void *)(uintptr_t)(x))

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
    CUresult r = do_copy(DP(d), s, n, d, 0, 1, NULL);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    CUresult r = do_copy(d, DP(s), n, 0, s, 2, NULL);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    CUresult r = do_copy(DP(d), DP(s), n, d, s, 3, NULL);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st)
{
    CUresult r = do_copy(DP(d), s, n, d, 0, 1, st);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st)
{
    CUresult r = do_copy(d, DP(s), n, 0, s, 2, st);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st)
{
    CUresult r = do_copy(DP(d), DP(s), n, d, s, 3, st);
    return r ? FAIL(r) : OK;
}

static CUresult do_set(CUdeviceptr d, unsigned value, size_t count, int width, void *stream)
{
    CUresult r = need_ctx(NULL);
    if (r)
        return r;
    LOCK();
    r = check_stream(stream, NULL);
    UNLOCK();
    if (r)
        return r;
    if ((d % (uintptr_t)width) != 0)
        return E_INVALID_VALUE;
    if ((r = check_dev_range(d, count * (size_t)width)))
        return r;
    unsigned char *p = DP(d);
    for (size_t i = 0; i < count; i++) {
        if (width == 1) {
            p[i] = (unsigned char)value;
        } else if (width == 2) {
            uint16_t v = (uint16_t)value;
            memcpy(p + 2 * i, &v, 2);
        } else {
            uint32_t v = (uint32_t)value;
            memcpy(p + 4 * i, &v, 4);
        }
    }
    return OK;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
    CUresult r = do_set(d, v, n, 1, NULL);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n)
{
    CUresult r = do_set(d, v, n, 2, NULL);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n)
{
    CUresult r = do_set(d, v, n, 4, NULL);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s)
{
    CUresult r = do_set(d, v, n, 1, s);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void *s)
{
    CUresult r = do_set(d, v, n, 2, s);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, void *s)
{
    CUresult r = do_set(d, v, n, 4, s);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuPointerGetAttribute(void *out, int attr, CUdeviceptr p)
{
    NEED_INIT();
    if (!out)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = find_range((uintptr_t)p, 1);
    Res copy;
    if (r)
        copy = *r;
    UNLOCK();
    if (!r)
        return FAIL(E_INVALID_VALUE);
    int host = copy.kind == R_HOST || copy.kind == R_REG;
    switch (attr) {
    case 1: *(void **)out = copy.ctx; return OK;
    case 2: *(unsigned *)out = host ? 1u : 2u; return OK;   /* managed: DEVICE, as the driver */
    case 3: *(CUdeviceptr *)out = p; return OK;
    case 4:
        if (!host)
            return FAIL(E_INVALID_VALUE);
        *(void **)out = DP(p);
        return OK;
    case 8: *(unsigned *)out = (copy.flags & FAKE_MANAGED) != 0; return OK;
    case 9: *(int *)out = copy.ctx ? ((Ctx *)copy.ctx)->device : 0; return OK;
    case 11: *(CUdeviceptr *)out = (CUdeviceptr)(uintptr_t)copy.ptr; return OK;
    case 12: *(size_t *)out = copy.size; return OK;
    default: return FAIL(E_INVALID_VALUE);
    }
}

/* ------------------------------------------------------------------------ */
/* Modules                                                                   */
/* ------------------------------------------------------------------------ */

static size_t natural_align(size_t size)
{
    size_t a = 1;
    while (a < 16 && size % (a * 2) == 0)
        a *= 2;
    return a;
}

static void write_log(char *buf, size_t cap, const char *text)
{
    if (buf && cap)
        snprintf(buf, cap, "%s", text);
}

/* A kernel with no parameters yet, and the attributes every kernel has. */
static Func *new_func(const char *name, size_t len)
{
    Func *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    snprintf(f->name, sizeof f->name, "%.*s", (int)len, name);
    f->alive = 1;
    f->attrs[0] = 1024;
    f->attrs[4] = 32;
    f->attrs[5] = 90;
    f->attrs[6] = 90;
    f->attrs[8] = 49152;
    f->attrs[9] = -1;
    return f;
}

/* Append a parameter of `size` bytes at the next multiple of `align`.
 * Returns 0, or -1 when there are too many or they are too large. */
static int add_param(Func *f, size_t size, size_t align)
{
    if (f->nparams >= MAX_PARAMS)
        return -1;
    size_t off = (f->total + align - 1) / align * align;
    if (off + size > RECORD_BYTES)
        return -1;
    f->sizes[f->nparams] = size;
    f->offsets[f->nparams] = off;
    f->nparams++;
    f->total = off + size;
    return 0;
}

static size_t ptx_type_size(const char *t, size_t n)
{
    static const struct { const char *name; size_t size; } TYPES[] = {
        {"b8", 1}, {"u8", 1}, {"s8", 1}, {"b16", 2}, {"u16", 2}, {"s16", 2},
        {"f16", 2}, {"b32", 4}, {"u32", 4}, {"s32", 4}, {"f32", 4},
        {"b64", 8}, {"u64", 8}, {"s64", 8}, {"f64", 8},
    };
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (strlen(TYPES[i].name) == n && strncmp(t, TYPES[i].name, n) == 0)
            return TYPES[i].size;
    return 0;
}

/* One ".param ..." declaration between p and end: its size and alignment. */
static int ptx_param(const char *p, const char *end, size_t *size, size_t *align)
{
    size_t type = 0, count = 1;
    int pointee = 0;            /* after ".ptr", ".align" is the pointee's */
    *align = 0;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        const char *w = p;
        while (p < end && !isspace((unsigned char)*p) && *p != '[')
            p++;
        if (w == p) {
            if (p < end && *p == '[') {
                count = strtoul(p + 1, NULL, 10);
                break;
            }
            continue;
        }
        if (*w == '.' && strncmp(w, ".align", 6) == 0 && p - w == 6) {
            size_t a = strtoul(p, (char **)&p, 10);
            if (!pointee)
                *align = a;
        } else if (*w == '.' && strncmp(w, ".ptr", 4) == 0 && p - w == 4) {
            pointee = 1;
        } else if (*w == '.') {
            size_t t = ptx_type_size(w + 1, (size_t)(p - w - 1));
            if (t)
                type = t;
        } else if (p < end && *p == '[') {
            count = strtoul(p + 1, NULL, 10);
            break;
        }
    }
    if (!type || !count)
        return -1;
    *size = type * count;
    if (!*align)
        *align = type;
    return 0;
}

/* Kernels of a PTX image, from its ".entry" declarations. */
static int parse_ptx(const char *image, Res *mod, int *nk, char *msg, size_t cap)
{
    for (const char *p = strstr(image, ".entry"); p; p = strstr(p, ".entry")) {
        p += 6;
        if (!isspace((unsigned char)*p))
            continue;
        while (isspace((unsigned char)*p))
            p++;
        const char *name = p;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || *p == '%')
            p++;
        Func *f = new_func(name, (size_t)(p - name));
        if (!f) {
            snprintf(msg, cap, "fake-jit: out of memory");
            return -1;
        }
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '(') {
            const char *close = strchr(p, ')');
            if (!close) {
                snprintf(msg, cap, "fake-jit: unclosed parameter list of %s", f->name);
                free(f);
                return -1;
            }
            for (const char *q = strstr(p, ".param"); q && q < close; ) {
                const char *next = strstr(q + 6, ".param");
                const char *stop = (next && next < close) ? next : close;
                const char *comma = memchr(q, ',', (size_t)(stop - q));
                size_t size, align;
                if (ptx_param(q + 6, comma ? comma : stop, &size, &align) != 0
                        || add_param(f, size, align) != 0) {
                    snprintf(msg, cap, "fake-jit: bad parameter %d of %s", f->nparams, f->name);
                    free(f);
                    return -1;
                }
                q = (next && next < close) ? next : NULL;
            }
            p = close;
        }
        f->next_in_module = mod->funcs;
        mod->funcs = f;
        (*nk)++;
    }
    return 0;
}

/* Parse a FAKE or PTX image into kernels (prepended to the module's list)
 * and globals (made into resources of the module). Returns 0, or writes why
 * into msg. */
static int parse_image(const char *image, Res *mod, Ctx *c, int *nk, int *ng, char *msg, size_t cap)
{
    if (strncmp(image, "FAKE", 4) != 0 && strstr(image, ".version"))
        return parse_ptx(image, mod, nk, msg, cap);
    if (strncmp(image, "FAKE", 4) != 0) {
        snprintf(msg, cap, "fake-jit: not a FAKE image (it starts with %.8s...)", image);
        return -1;
    }
    char *text = strdup(image);
    if (!text) {
        snprintf(msg, cap, "fake-jit: out of memory");
        return -1;
    }
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (lineno == 1)
            continue;
        char word[32], name[64], sizes[1024], opt1[32], opt2[32];
        opt1[0] = opt2[0] = 0;
        int got = sscanf(line, "%31s %63s %1023s %31s %31s", word, name, sizes, opt1, opt2);
        if (got <= 0 || word[0] == '#')
            continue;
        if (strcmp(word, "kernel") == 0 && got >= 3) {
            Func *f = new_func(name, strlen(name));
            if (!f)
                goto oom;
            if (strcmp(sizes, "-") != 0) {
                char *s2 = NULL;
                for (char *tok = strtok_r(sizes, ",", &s2); tok; tok = strtok_r(NULL, ",", &s2)) {
                    long v = strtol(tok, NULL, 10);
                    if (v <= 0 || f->nparams >= MAX_PARAMS) {
                        snprintf(msg, cap, "fake-jit: line %d: bad parameter size '%.32s'", lineno, tok);
                        free(f);
                        free(text);
                        return -1;
                    }
                    if (add_param(f, (size_t)v, natural_align((size_t)v)) != 0) {
                        snprintf(msg, cap, "fake-jit: line %d: parameters too large", lineno);
                        free(f);
                        free(text);
                        return -1;
                    }
                }
            }
            const char *opts[2] = {opt1, opt2};
            for (int i = 0; i < 2; i++) {
                if (!opts[i][0])
                    continue;
                if (strcmp(opts[i], "noinfo") == 0)
                    f->noinfo = 1;
                else if (strcmp(opts[i], "effect=inc") == 0)
                    f->effect = 1;
                else if (strcmp(opts[i], "effect=copy") == 0)
                    f->effect = 2;
                else {
                    snprintf(msg, cap, "fake-jit: line %d: unknown option '%s'", lineno, opts[i]);
                    free(f);
                    free(text);
                    return -1;
                }
            }
            f->next_in_module = mod->funcs;
            mod->funcs = f;
            (*nk)++;
        } else if (strcmp(word, "global") == 0 && got >= 3) {
            long n = strtol(sizes, NULL, 10);
            if (n <= 0) {
                snprintf(msg, cap, "fake-jit: line %d: bad global size '%.64s'", lineno, sizes);
                free(text);
                return -1;
            }
            unsigned char *p = calloc(1, (size_t)n);
            Res *g = p ? add_res(R_GLOBAL, p, (size_t)n, c) : NULL;
            if (!g) {
                free(p);
                goto oom;
            }
            snprintf(g->name, sizeof g->name, "%s", name);
            g->module = mod;
            (*ng)++;
        } else {
            snprintf(msg, cap, "fake-jit: line %d: syntax error near '%s'", lineno, word);
            free(text);
            return -1;
        }
    }
    free(text);
    return 0;
oom:
    snprintf(msg, cap, "fake-jit: out of memory");
    free(text);
    return -1;
}

EXPORT CUresult cuModuleLoadDataEx(void **out, const void *image, unsigned int nopts,
                                   int *opts, void **vals)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out || !image || (nopts && (!opts || !vals)))
        return FAIL(E_INVALID_VALUE);
    char *info = NULL, *err = NULL;
    size_t info_cap = 0, err_cap = 0;
    for (unsigned i = 0; i < nopts; i++) {
        switch (opts[i]) {
        case 3: info = vals[i]; break;
        case 4: info_cap = (size_t)(uintptr_t)vals[i]; break;
        case 5: err = vals[i]; break;
        case 6: err_cap = (size_t)(uintptr_t)vals[i]; break;
        default: break;
        }
    }
    char msg[512];
    int nk = 0, ng = 0;
    LOCK();
    Res *mod = add_res(R_MODULE, NULL, 0, c);
    if (!mod) {
        UNLOCK();
        return FAIL(E_OUT_OF_MEMORY);
    }
    if (parse_image(image, mod, c, &nk, &ng, msg, sizeof msg) != 0) {
        drop_res(mod);
        UNLOCK();
        write_log(err, err_cap, msg);
        return FAIL(E_INVALID_IMAGE);
    }
    cnt.module_loads++;
    UNLOCK();
    snprintf(msg, sizeof msg, "fake-jit: loaded %d kernels and %d globals", nk, ng);
    write_log(info, info_cap, msg);
    *out = mod;
    return OK;
}

EXPORT CUresult cuModuleUnload(void *h)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    Res *m = find_handle(h, R_MODULE);
    if (!m) {
        UNLOCK();
        return FAIL(E_INVALID_HANDLE);
    }
    if (m->ctx != c)
        cnt.wrong_context_releases++;
    drop_res(m);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuModuleGetFunction(void **out, void *h, const char *name)
{
    NEED_CTX(NULL);
    if (!out || !name)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *m = find_handle(h, R_MODULE);
    Func *found = NULL;
    if (m)
        for (Func *f = m->funcs; f; f = f->next_in_module)
            if (strcmp(f->name, name) == 0)
                found = f;
    UNLOCK();
    if (!m)
        return FAIL(E_INVALID_HANDLE);
    if (!found)
        return FAIL(E_NOT_FOUND);
    *out = found;
    return OK;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *size, void *h, const char *name)
{
    NEED_CTX(NULL);
    if (!name)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *m = find_handle(h, R_MODULE);
    Res *found = NULL;
    if (m)
        for (Res *g = resources; g; g = g->next)
            if (g->kind == R_GLOBAL && g->module == m && strcmp(g->name, name) == 0)
                found = g;
    UNLOCK();
    if (!m)
        return FAIL(E_INVALID_HANDLE);
    if (!found)
        return FAIL(E_NOT_FOUND);
    if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)found->ptr;
    if (size)
        *size = found->size;
    return OK;
}

/* Function handles are never freed, so a live-check can read them. */
static Func *live_func(void *h)
{
    Func *f = h;
    return (f && f->alive) ? f : NULL;
}

EXPORT CUresult cuFuncGetAttribute(int *v, int attr, void *h)
{
    NEED_INIT();
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (!v || attr < 0 || attr > 9)
        return FAIL(E_INVALID_VALUE);
    *v = f->attrs[attr];
    return OK;
}

EXPORT CUresult cuFuncSetAttribute(void *h, int attr, int value)
{
    NEED_INIT();
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (attr == 8 && value >= 0 && value <= 232448) {
        f->attrs[8] = value;
        return OK;
    }
    if (attr == 9 && value >= -1 && value <= 100) {
        f->attrs[9] = value;
        return OK;
    }
    return FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuFuncSetCacheConfig(void *h, int config)
{
    NEED_INIT();
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (config < 0 || config > 3)
        return FAIL(E_INVALID_VALUE);
    f->cache_config = config;
    return OK;
}

#ifndef FAKE_NO_PARAM_COUNT
EXPORT CUresult cuFuncGetParamCount(void *h, size_t *count)
{
    NEED_INIT();
    cnt.param_count_calls++;
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (f->noinfo)
        return E_NOT_SUPPORTED;     /* an expected answer: not an error */
    if (!count)
        return FAIL(E_INVALID_VALUE);
    *count = (size_t)f->nparams;
    return OK;
}
#endif

static CUresult param_info(void *h, size_t index, size_t *offset, size_t *size)
{
    NEED_INIT();
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (f->noinfo)
        return E_NOT_SUPPORTED;     /* an expected answer: not an error */
    if (index >= (size_t)f->nparams)
        return FAIL(E_INVALID_VALUE);   /* past the last parameter */
    if (offset)
        *offset = f->offsets[index];
    if (size)
        *size = f->sizes[index];
    return OK;
}

EXPORT CUresult cuFuncGetParamInfo(void *h, size_t index, size_t *offset, size_t *size)
{
    CUresult r = param_info(h, index, offset, size);
    cnt.param_info_calls++;
    if (r != OK)
        cnt.param_info_errors++;
    return r;
}

static CUresult run_effect(Func *f, const unsigned char *b)
{
    uint64_t p0, p1;
    int32_t n;
    if (f->effect == 1 && f->nparams >= 2 && f->sizes[0] == 8 && f->sizes[1] == 4) {
        memcpy(&p0, b + f->offsets[0], 8);
        memcpy(&n, b + f->offsets[1], 4);
        if (n < 0 || (n && !find_range((uintptr_t)p0, (size_t)n)))
            return E_ILLEGAL_ADDRESS;
        for (int32_t i = 0; i < n; i++)
            ((unsigned char *)(uintptr_t)p0)[i] += 1;
    } else if (f->effect == 2 && f->nparams >= 3 && f->sizes[0] == 8 && f->sizes[1] == 8
               && f->sizes[2] == 4) {
        memcpy(&p0, b + f->offsets[0], 8);
        memcpy(&p1, b + f->offsets[1], 8);
        memcpy(&n, b + f->offsets[2], 4);
        if (n < 0 || (n && (!find_range((uintptr_t)p0, (size_t)n)
                            || !find_range((uintptr_t)p1, (size_t)n))))
            return E_ILLEGAL_ADDRESS;
        memmove((void *)(uintptr_t)p0, (void *)(uintptr_t)p1, (size_t)n);
    }
    return OK;
}

EXPORT CUresult cuLaunchKernel(void *h, unsigned int gx, unsigned int gy, unsigned int gz,
                               unsigned int bx, unsigned int by, unsigned int bz,
                               unsigned int shared, void *stream, void **params, void **extra)
{
    Ctx *c;
    NEED_CTX(&c);
    Func *f = live_func(h);
    if (!f)
        return FAIL(E_INVALID_HANDLE);
    if (extra != NULL)
        return FAIL(E_NOT_SUPPORTED);
    if (bx == 0 || by == 0 || bz == 0 || bx > 1024 || by > 1024 || bz > 64
        || (unsigned long long)bx * by * bz > 1024)
        return FAIL(E_INVALID_VALUE);
    if (gx == 0 || gy == 0 || gz == 0 || gx > 2147483647u || gy > 65535 || gz > 65535)
        return FAIL(E_INVALID_VALUE);
    if (shared > (unsigned)f->attrs[8])
        return FAIL(E_INVALID_VALUE);
    if (f->nparams && !params)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    if (r) {
        UNLOCK();
        return FAIL(r);
    }
    Res *any = NULL;
    for (Res *m = resources; m; m = m->next)
        if (m->kind == R_MODULE)
            for (Func *g = m->funcs; g; g = g->next_in_module)
                if (g == f)
                    any = m;
    if (any && any->ctx != c)
        cnt.wrong_context_launches++;
    /* a pointer-sized parameter into device memory of another device's
     * context: the kernel would read memory it cannot reach without peer
     * access (what issue 16's routing of operations to their arrays'
     * device must avoid) */
    for (int i = 0; i < f->nparams; i++) {
        if (f->sizes[i] != sizeof(uintptr_t))
            continue;
        uintptr_t v;
        memcpy(&v, params[i], sizeof v);
        Res *m = v ? find_range(v, 1) : NULL;
        if (m && m->kind == R_DEV && m->ctx && m->ctx->device != c->device) {
            cnt.foreign_device_launches++;
            break;
        }
    }
    memset(last_launch.bytes, 0, sizeof last_launch.bytes);
    for (int i = 0; i < f->nparams; i++)
        memcpy(last_launch.bytes + f->offsets[i], params[i], f->sizes[i]);
    last_launch.valid = 1;
    snprintf(last_launch.name, sizeof last_launch.name, "%s", f->name);
    last_launch.grid[0] = gx;
    last_launch.grid[1] = gy;
    last_launch.grid[2] = gz;
    last_launch.block[0] = bx;
    last_launch.block[1] = by;
    last_launch.block[2] = bz;
    last_launch.shared = shared;
    last_launch.stream = stream;
    last_launch.ctx = c;
    last_launch.nbytes = f->total;
    cnt.launches++;
    r = run_effect(f, last_launch.bytes);
    UNLOCK();
    return r ? FAIL(r) : OK;
}

/* ------------------------------------------------------------------------ */
/* Streams and events (all work is finished when it is issued)               */
/* ------------------------------------------------------------------------ */

EXPORT CUresult cuStreamCreate(void **out, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out || flags > 1)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = add_res(R_STREAM, NULL, 0, c);
    if (r)
        r->flags = flags;
    UNLOCK();
    if (!r)
        return FAIL(E_OUT_OF_MEMORY);
    *out = r;
    return OK;
}

/* Priorities as an H200 reports them: 0 (least) to -5 (greatest), clamped. */
EXPORT CUresult cuStreamCreateWithPriority(void **out, unsigned int flags, int priority)
{
    CUresult r = cuStreamCreate(out, flags);
    if (r)
        return r;
    if (priority > 0)
        priority = 0;
    if (priority < -5)
        priority = -5;
    ((Res *)*out)->recorded = priority;    /* streams do not use "recorded" */
    return OK;
}

EXPORT CUresult cuStreamGetPriority(void *h, int *priority)
{
    NEED_CTX(NULL);
    if (!priority)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = h ? find_handle(h, R_STREAM) : NULL;
    if (h && !r) {
        UNLOCK();
        return FAIL(E_INVALID_HANDLE);
    }
    *priority = r ? r->recorded : 0;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuStreamGetFlags(void *h, unsigned int *flags)
{
    NEED_CTX(NULL);
    if (!flags)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = h ? find_handle(h, R_STREAM) : NULL;
    if (h && !r) {
        UNLOCK();
        return FAIL(E_INVALID_HANDLE);
    }
    *flags = r ? r->flags : 0;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuStreamDestroy_v2(void *h)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    Res *r = find_handle(h, R_STREAM);
    if (!r) {
        UNLOCK();
        return FAIL(E_INVALID_HANDLE);
    }
    if (r->ctx != c)
        cnt.wrong_context_releases++;
    drop_res(r);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuStreamSynchronize(void *h)
{
    NEED_CTX(NULL);
    LOCK();
    CUresult r = check_stream(h, NULL);
    if (!r)
        cnt.stream_syncs++;
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuStreamQuery(void *h)
{
    NEED_CTX(NULL);
    LOCK();
    CUresult r = check_stream(h, NULL);
    UNLOCK();
    if (r)
        return FAIL(r);
    return not_ready ? E_NOT_READY : OK;
}

EXPORT CUresult cuStreamWaitEvent(void *s, void *e, unsigned int flags)
{
    NEED_CTX(NULL);
    LOCK();
    CUresult r = check_stream(s, NULL);
    if (!r && !find_handle(e, R_EVENT))
        r = E_INVALID_HANDLE;
    UNLOCK();
    if (!r && flags > 1)
        r = E_INVALID_VALUE;
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuEventCreate(void **out, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out || flags > 7)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = add_res(R_EVENT, NULL, 0, c);
    if (r)
        r->flags = flags;
    UNLOCK();
    if (!r)
        return FAIL(E_OUT_OF_MEMORY);
    *out = r;
    return OK;
}

EXPORT CUresult cuEventDestroy_v2(void *h)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    Res *r = find_handle(h, R_EVENT);
    if (!r) {
        UNLOCK();
        return FAIL(E_INVALID_HANDLE);
    }
    if (r->ctx != c)
        cnt.wrong_context_releases++;
    drop_res(r);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuEventRecord(void *h, void *stream)
{
    NEED_CTX(NULL);
    LOCK();
    Res *e = find_handle(h, R_EVENT);
    CUresult r = e ? check_stream(stream, NULL) : E_INVALID_HANDLE;
    if (!r)
        e->recorded = 1;
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuEventSynchronize(void *h)
{
    NEED_CTX(NULL);
    LOCK();
    Res *e = find_handle(h, R_EVENT);
    UNLOCK();
    return e ? OK : FAIL(E_INVALID_HANDLE);
}

EXPORT CUresult cuEventQuery(void *h)
{
    NEED_CTX(NULL);
    LOCK();
    Res *e = find_handle(h, R_EVENT);
    UNLOCK();
    if (!e)
        return FAIL(E_INVALID_HANDLE);
    return not_ready ? E_NOT_READY : OK;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end)
{
    NEED_CTX(NULL);
    if (!ms)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *a = find_handle(start, R_EVENT), *b = find_handle(end, R_EVENT);
    int ok = a && b && a->recorded && b->recorded && !(a->flags & 2) && !(b->flags & 2);
    UNLOCK();
    if (!ok)
        return FAIL(E_INVALID_HANDLE);
    *ms = 1.5f;
    return OK;
}

EXPORT CUresult cuEventElapsedTime(float *ms, void *start, void *end)
{
    return cuEventElapsedTime_v2(ms, start, end);
}

/* ---- linking (cuLink*) ----
 * A link state concatenates the FAKE images given to it (their directive
 * lines under one "FAKE" header); libraries are counted, not read (a real
 * libcudadevrt.a is binary). Anything else is refused, with a log. Calls on a
 * link state while another context than its creator's is current are
 * counted (fake_link_off_ctx): the driver ties a link state to its context. */
typedef struct FakeLink {
    char *text;
    size_t len;
    int images, libraries, completed;
    char *error_log;
    size_t error_cap;
    Ctx *ctx;                 /* current when it was created */
    struct FakeLink *next;
} FakeLink;
static FakeLink *links;
static int link_off_ctx;

static void link_note_ctx(FakeLink *l)
{
    if (l && current() != l->ctx)
        __sync_fetch_and_add(&link_off_ctx, 1);
}

static FakeLink *find_link(void *h)
{
    for (FakeLink *l = links; l; l = l->next)
        if (l == h)
            return l;
    return NULL;
}

EXPORT CUresult cuLinkCreate_v2(unsigned int nopts, int *opts, void **vals, void **out)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!out || (nopts && (!opts || !vals)))
        return FAIL(E_INVALID_VALUE);
    FakeLink *l = calloc(1, sizeof *l);
    if (!l)
        return FAIL(E_OUT_OF_MEMORY);
    for (unsigned i = 0; i < nopts; i++) {
        if (opts[i] == 5) l->error_log = vals[i];
        if (opts[i] == 6) l->error_cap = (size_t)(uintptr_t)vals[i];
    }
    l->ctx = c;
    l->text = strdup("FAKE\n");
    l->len = 5;
    LOCK();
    l->next = links;
    links = l;
    UNLOCK();
    *out = l;
    return OK;
}

static CUresult link_add(FakeLink *l, int type, const char *data, size_t size, const char *name)
{
    char msg[256];
    if (type == 4) {                 /* CU_JIT_INPUT_LIBRARY */
        l->libraries++;
        return OK;
    }
    if (size < 5 || strncmp(data, "FAKE\n", 5) != 0) {
        snprintf(msg, sizeof msg, "fake-link: %s is not a FAKE image", name ? name : "?");
        write_log(l->error_log, l->error_cap, msg);
        return FAIL(E_INVALID_IMAGE);
    }
    size_t body = strnlen(data + 5, size - 5);
    char *t = realloc(l->text, l->len + body + 2);
    if (!t)
        return FAIL(E_OUT_OF_MEMORY);
    memcpy(t + l->len, data + 5, body);
    l->len += body;
    if (l->len && t[l->len - 1] != '\n')
        t[l->len++] = '\n';
    t[l->len] = 0;
    l->text = t;
    l->images++;
    return OK;
}

EXPORT CUresult cuLinkAddData_v2(void *h, int type, void *data, size_t size, const char *name,
                                 unsigned int nopts, int *opts, void **vals)
{
    (void)opts; (void)vals;
    FakeLink *l = find_link(h);
    link_note_ctx(l);
    if (!l || l->completed)
        return FAIL(E_INVALID_HANDLE);
    if (!data || !size || nopts)
        return FAIL(E_INVALID_VALUE);
    return link_add(l, type, data, size, name);
}

EXPORT CUresult cuLinkAddFile_v2(void *h, int type, const char *path, unsigned int nopts,
                                 int *opts, void **vals)
{
    (void)opts; (void)vals;
    FakeLink *l = find_link(h);
    link_note_ctx(l);
    if (!l || l->completed)
        return FAIL(E_INVALID_HANDLE);
    if (!path || nopts)
        return FAIL(E_INVALID_VALUE);
    FILE *f = fopen(path, "rb");
    if (!f)
        return FAIL(E_FILE_NOT_FOUND);
    if (type == 4) {
        fclose(f);
        l->libraries++;
        return OK;
    }
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return link_add(l, type, buf, n, path);
}

EXPORT CUresult cuLinkComplete(void *h, void **out, size_t *size)
{
    FakeLink *l = find_link(h);
    link_note_ctx(l);
    if (!l || l->completed)
        return FAIL(E_INVALID_HANDLE);
    if (!out || !size)
        return FAIL(E_INVALID_VALUE);
    if (!l->images) {
        write_log(l->error_log, l->error_cap, "fake-link: nothing to link");
        return FAIL(E_INVALID_IMAGE);
    }
    l->completed = 1;
    *out = l->text;
    *size = l->len + 1;
    return OK;
}

EXPORT CUresult cuLinkDestroy(void *h)
{
    LOCK();
    FakeLink **pp = &links;
    while (*pp && *pp != h)
        pp = &(*pp)->next;
    FakeLink *l = *pp;
    if (l)
        *pp = l->next;
    UNLOCK();
    link_note_ctx(l);
    if (!l)
        return FAIL(E_INVALID_HANDLE);
    free(l->text);
    free(l);
    return OK;
}

/* Calls on link states made while another context was current. */
EXPORT int fake_link_off_ctx(void)
{
    return link_off_ctx;
}

/* The context a module was loaded into (NULL: no such module). */
EXPORT void *fake_module_ctx(void *h)
{
    LOCK();
    Res *r = find_handle(h, R_MODULE);
    void *c = r ? (void *)r->ctx : NULL;
    UNLOCK();
    return c;
}

/* Live link states (a helper for the tests). */
EXPORT int fake_live_links(void)
{
    int n = 0;
    LOCK();
    for (FakeLink *l = links; l; l = l->next)
        n++;
    UNLOCK();
    return n;
}

/* ------------------------------------------------------------------------ */
/* Helpers for the tests (read with ctypes)                                  */
/* ------------------------------------------------------------------------ */

static const char COUNTER_NAMES[] =
    "live_allocations,live_alloc_bytes,live_host_allocs,live_host_registrations,"
    "live_modules,live_globals,live_streams,live_events,live_contexts,"
    "primary_refcount,primary_active,wrong_context_frees,wrong_context_releases,"
    "wrong_context_launches,mem_free_calls,launches,errors,sync_calls,last_sync_ctx,"
    "stack_depth,current_ctx,init_calls,contexts_created,contexts_destroyed,"
    "primary_resets,stream_syncs,module_loads,param_count_calls,param_info_calls,"
    "param_info_errors,foreign_device_launches";

/* Comma-separated names of what fake_counters fills, in order. */
EXPORT const char *fake_counter_names(void)
{
    return COUNTER_NAMES;
}

/* Fill out[0..n) with the counters; returns how many there are. The
 * stack depth and current context are the calling thread's. */
EXPORT int fake_counters(long long *out, int n)
{
    long long v[64] = {0};
    LOCK();
    for (Res *r = resources; r; r = r->next) {
        switch (r->kind) {
        case R_DEV: v[0]++; v[1] += (long long)r->size; break;
        case R_HOST: v[2]++; break;
        case R_REG: v[3]++; break;
        case R_MODULE: v[4]++; break;
        case R_GLOBAL: v[5]++; break;
        case R_STREAM: v[6]++; break;
        case R_EVENT: v[7]++; break;
        }
    }
    for (Ctx *c = all_ctx; c; c = c->next_all)
        v[8] += c->alive;
    v[9] = primary_refcount;
    v[10] = primary_ctx.alive;
    v[11] = cnt.wrong_context_frees;
    v[12] = cnt.wrong_context_releases;
    v[13] = cnt.wrong_context_launches;
    v[14] = cnt.mem_free_calls;
    v[15] = cnt.launches;
    v[16] = cnt.errors;
    v[17] = cnt.sync_calls;
    v[18] = (long long)(uintptr_t)cnt.last_sync_ctx;
    v[19] = depth;
    v[20] = (long long)(uintptr_t)current();
    v[21] = cnt.init_calls;
    v[22] = cnt.contexts_created;
    v[23] = cnt.contexts_destroyed;
    v[24] = cnt.primary_resets;
    v[25] = cnt.stream_syncs;
    v[26] = cnt.module_loads;
    v[27] = cnt.param_count_calls;
    v[28] = cnt.param_info_calls;
    v[29] = cnt.param_info_errors;
    v[30] = cnt.foreign_device_launches;
    UNLOCK();
    int total = 31;
    for (int i = 0; i < n && i < total; i++)
        out[i] = v[i];
    return total;
}

/* The last launch: kernel name, packed parameter bytes (laid out at the
 * kernel's parameter offsets, padding zeroed), and dims[7] = grid xyz,
 * block xyz, shared bytes; handles[2] = stream, context. Returns the
 * number of parameter bytes, or -1 before any launch. */
EXPORT long long fake_last_launch(char *name, int name_cap, unsigned char *bytes,
                                  long long cap, unsigned int *dims,
                                  unsigned long long *handles)
{
    LOCK();
    if (!last_launch.valid) {
        UNLOCK();
        return -1;
    }
    if (name && name_cap > 0)
        snprintf(name, (size_t)name_cap, "%s", last_launch.name);
    size_t n = last_launch.nbytes;
    if (bytes && cap > 0)
        memcpy(bytes, last_launch.bytes, n < (size_t)cap ? n : (size_t)cap);
    if (dims) {
        for (int i = 0; i < 3; i++) {
            dims[i] = last_launch.grid[i];
            dims[3 + i] = last_launch.block[i];
        }
        dims[6] = last_launch.shared;
    }
    if (handles) {
        handles[0] = (unsigned long long)(uintptr_t)last_launch.stream;
        handles[1] = (unsigned long long)(uintptr_t)last_launch.ctx;
    }
    UNLOCK();
    return (long long)n;
}

/* The code of the last failing call, and its function's name. */
EXPORT int fake_last_error(char *call, int cap)
{
    if (call && cap > 0)
        snprintf(call, (size_t)cap, "%s", last_error_call);
    return last_error_code;
}

/* Make stream and event queries answer CUDA_ERROR_NOT_READY (or not). */
EXPORT void fake_set_not_ready(int flag)
{
    not_ready = flag;
}

/* With FAKE_CUDA_EXIT_REPORT set, write the counters there when the
 * process unloads this library (after the interpreter has finalized). */
__attribute__((destructor)) static void exit_report(void)
{
    const char *path = getenv("FAKE_CUDA_EXIT_REPORT");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    long long v[64];
    int n = fake_counters(v, 64);
    char names[sizeof COUNTER_NAMES];
    memcpy(names, COUNTER_NAMES, sizeof names);
    char *save = NULL;
    char *tok = strtok_r(names, ",", &save);
    for (int i = 0; i < n && tok; i++, tok = strtok_r(NULL, ",", &save))
        fprintf(f, "%s=%lld\n", tok, v[i]);
    fprintf(f, "last_error=%d %s\n", last_error_code, last_error_call);
    fclose(f);
}

#include "fake_ipc.c"
#include "fake_memkinds.c"
#include "fake_launchex.c"
#include "fake_graph.c"
#include "fake_array.c"
