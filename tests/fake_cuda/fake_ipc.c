/* IPC handles and peer access for the fake libcuda (#included at the end
 * of fake_libcuda.c, whose tables and helpers it uses).
 *
 * One process and one device: a memory handle carries a magic word and the
 * address, and "opening" it in the same process maps the same bytes again
 * (counted, so tests see every open closed); an event handle carries the
 * event's address. Peer access is refused, as between two contexts of one
 * device: there is no second device. */

#define IPC_MAGIC 0x47505541u     /* "GPUA" */

typedef struct { unsigned char data[64]; } FakeIpcHandle;

static long long ipc_open_maps;

EXPORT CUresult cuIpcGetMemHandle(FakeIpcHandle *h, CUdeviceptr p)
{
    NEED_CTX(NULL);
    if (!h)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *r = find_ptr((void *)(uintptr_t)p, R_DEV);
    UNLOCK();
    if (!r)
        return FAIL(E_INVALID_VALUE);
    unsigned magic = IPC_MAGIC;
    memset(h->data, 0, sizeof h->data);
    memcpy(h->data, &magic, 4);
    memcpy(h->data + 8, &p, 8);
    return OK;
}

EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *out, FakeIpcHandle h, unsigned int flags)
{
    unsigned magic;
    CUdeviceptr p;
    NEED_CTX(NULL);
    if (!out || flags > 1)
        return FAIL(E_INVALID_VALUE);
    memcpy(&magic, h.data, 4);
    memcpy(&p, h.data + 8, 8);
    LOCK();
    Res *r = magic == IPC_MAGIC ? find_ptr((void *)(uintptr_t)p, R_DEV) : NULL;
    if (r)
        ipc_open_maps++;
    UNLOCK();
    if (!r)
        return FAIL(E_INVALID_VALUE);
    *out = p;
    return OK;
}

EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr p)
{
    NEED_CTX(NULL);
    LOCK();
    Res *r = find_ptr((void *)(uintptr_t)p, R_DEV);
    int ok = r && ipc_open_maps > 0;
    if (ok)
        ipc_open_maps--;
    UNLOCK();
    return ok ? OK : FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuIpcGetEventHandle(FakeIpcHandle *h, void *ev)
{
    NEED_CTX(NULL);
    if (!h)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Res *e = find_handle(ev, R_EVENT);
    unsigned flags = e ? e->flags : 0;
    UNLOCK();
    if (!e)
        return FAIL(E_INVALID_HANDLE);
    if (!(flags & 4))            /* CU_EVENT_INTERPROCESS */
        return FAIL(E_INVALID_VALUE);
    unsigned magic = IPC_MAGIC;
    memset(h->data, 0, sizeof h->data);
    memcpy(h->data, &magic, 4);
    memcpy(h->data + 8, &ev, sizeof ev);
    return OK;
}

EXPORT CUresult cuIpcOpenEventHandle(void **out, FakeIpcHandle h)
{
    unsigned magic;
    Ctx *c;
    NEED_CTX(&c);
    if (!out)
        return FAIL(E_INVALID_VALUE);
    memcpy(&magic, h.data, 4);
    if (magic != IPC_MAGIC)
        return FAIL(E_INVALID_VALUE);
    /* a new event standing for the other process's one */
    return cuEventCreate(out, 2 | 4);
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer)
{
    NEED_INIT();
    if (!can)
        return FAIL(E_INVALID_VALUE);
    NEED_DEVICE(d);
    NEED_DEVICE(peer);
    *can = d != peer;            /* two fake devices always can */
    return OK;
}

/* Peer access between contexts of two devices is kept per device pair;
 * within one device it is unsupported, as with the single fake device. */
EXPORT CUresult cuCtxEnablePeerAccess(void *peer, unsigned int flags)
{
    Ctx *c;
    NEED_CTX(&c);
    if (flags)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    Ctx *p = find_ctx(peer);
    CUresult r = OK;
    if (!p)
        r = E_INVALID_CONTEXT;
    else if (p->device == c->device)
        r = 217;                 /* CUDA_ERROR_PEER_ACCESS_UNSUPPORTED */
    else if (peer_enabled[c->device][p->device])
        r = 704;                 /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
    else
        peer_enabled[c->device][p->device] = 1;
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuCtxDisablePeerAccess(void *peer)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    Ctx *p = find_ctx(peer);
    CUresult r = OK;
    if (!p)
        r = E_INVALID_CONTEXT;
    else if (!peer_enabled[c->device][p->device])
        r = 705;                 /* CUDA_ERROR_PEER_ACCESS_NOT_ENABLED */
    else
        peer_enabled[c->device][p->device] = 0;
    UNLOCK();
    return r ? FAIL(r) : OK;
}

/* Open IPC memory mappings not yet closed. */
EXPORT long long fake_ipc_open_maps(void)
{
    return ipc_open_maps;
}
