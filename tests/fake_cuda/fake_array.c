/*
 * Fake entry points of gpuarr's array section: pitched allocation, 2-D
 * memsets, 2-D/3-D and peer copies, CUDA arrays, texture and surface
 * objects. Included at the end of fake_libcuda.c, whose state (the
 * resource table, contexts, fail()) it uses.
 *
 * Arrays keep their elements in host memory, row-major: element (x, y, z)
 * at ((z * H + y) * W + x) * elsize with H, W at least 1. Copies move
 * bytes between host memory, fake device memory and arrays and check each
 * side as the driver does (device ranges inside an allocation, regions
 * inside an array, widths within pitches). Every copy, descriptor and
 * texture call records the structure it was given, byte for byte, for
 * fake_array_last() to hand to the tests; fake_array_counters() counts
 * live arrays, texture and surface objects and the calls made.
 *
 * The fake's device has TEXTURE_ALIGNMENT 16 (malloc's) and TEXTURE_PITCH_ALIGNMENT
 * 32 (fake_libcuda.c's attribute table) and cuMemAllocPitch rounds rows up
 * to 512 bytes.
 */

typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} FkMemcpy2D;

typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    void *srcContext;          /* reserved0 in CUDA_MEMCPY3D */
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    void *dstContext;          /* reserved1 in CUDA_MEMCPY3D */
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} FkMemcpy3D;                  /* CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER alike */

typedef struct {
    size_t Width, Height;
    int Format;
    unsigned NumChannels;
} FkArrayDesc;

typedef struct {
    size_t Width, Height, Depth;
    int Format;
    unsigned NumChannels, Flags;
} FkArray3DDesc;

typedef struct {
    int resType;
    union {
        struct { void *hArray; } array;
        struct { CUdeviceptr devPtr; int format; unsigned numChannels; size_t sizeInBytes; } linear;
        struct {
            CUdeviceptr devPtr; int format; unsigned numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        int reserved[32];
    } res;
    unsigned flags;
} FkResDesc;

typedef struct {
    int addressMode[3];
    int filterMode;
    unsigned flags, maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} FkTexDesc;

typedef struct {
    int format;
    size_t width, height, depth;
    unsigned firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
    unsigned reserved[16];
} FkViewDesc;

typedef struct FkArray {
    size_t w, h, d;
    int format;
    unsigned nch, flags;
    size_t elsize;
    unsigned char *data;
    Ctx *ctx;
    struct FkArray *next;
} FkArray;

static FkArray *fk_arrays;
static unsigned long long fk_next_obj = 0x1000;
static struct FkObj { unsigned long long h; int surface; FkArray *arr; struct FkObj *next; } *fk_objs;
static struct {
    long long arrays_created, arrays_destroyed, wrong_context_array_destroys, tex_created,
        tex_destroyed, surf_created, surf_destroyed, copies_2d, copies_3d, copies_peer;
} acnt;

/* the last of each structure received, byte for byte */
static FkMemcpy2D last_2d;
static FkMemcpy3D last_3d;
static FkArrayDesc last_ad;
static FkArray3DDesc last_ad3;
static FkResDesc last_res;
static FkTexDesc last_tex;
static FkViewDesc last_view;
static int last_view_given;
static char last_copy_call[64];
static void *last_copy_stream;
static void *last_peer_ctx[2];

static size_t fk_format_bytes(int f)
{
    switch (f) {
    case 0x01: case 0x08: return 1;
    case 0x02: case 0x09: case 0x10: return 2;
    case 0x03: case 0x0a: case 0x20: return 4;
    default: return 0;
    }
}

static FkArray *fk_find_array(void *h)
{
    for (FkArray *a = fk_arrays; a; a = a->next)
        if ((void *)a == h)
            return a;
    return NULL;
}

static size_t dim1(size_t n) { return n ? n : 1; }

static CUresult fk_make_array(void **out, size_t w, size_t h, size_t d, int format,
                              unsigned nch, unsigned flags)
{
    Ctx *c;
    CUresult r = need_ctx(&c);
    if (r)
        return r;
    size_t es = fk_format_bytes(format);
    if (!out || w == 0 || es == 0 || (nch != 1 && nch != 2 && nch != 4))
        return E_INVALID_VALUE;
    if (d && !h && !(flags & 1))
        return E_INVALID_VALUE;           /* a 3-D array needs a height */
    if ((flags & 1) && d == 0)
        return E_INVALID_VALUE;           /* layered: depth counts the layers */
    if ((flags & 4) && (w != h || (flags & 1 ? d % 6 : d != 6)))
        return E_INVALID_VALUE;           /* cubemap: square, six faces */
    FkArray *a = calloc(1, sizeof *a);
    if (!a)
        return E_OUT_OF_MEMORY;
    a->w = w; a->h = h; a->d = d; a->format = format; a->nch = nch; a->flags = flags;
    a->elsize = es * nch;
    a->data = malloc(a->elsize * w * dim1(h) * dim1(d));
    if (!a->data) {
        free(a);
        return E_OUT_OF_MEMORY;
    }
    memset(a->data, 0xAB, a->elsize * w * dim1(h) * dim1(d));
    a->ctx = c;
    LOCK();
    a->next = fk_arrays;
    fk_arrays = a;
    acnt.arrays_created++;
    UNLOCK();
    *out = a;
    return OK;
}

EXPORT CUresult cuArrayCreate_v2(void **out, const FkArrayDesc *d)
{
    if (!d)
        return FAIL(E_INVALID_VALUE);
    last_ad = *d;
    CUresult r = fk_make_array(out, d->Width, d->Height, 0, d->Format, d->NumChannels, 0);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuArray3DCreate_v2(void **out, const FkArray3DDesc *d)
{
    if (!d)
        return FAIL(E_INVALID_VALUE);
    last_ad3 = *d;
    CUresult r = fk_make_array(out, d->Width, d->Height, d->Depth, d->Format, d->NumChannels,
                               d->Flags);
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuArrayGetDescriptor_v2(FkArrayDesc *out, void *h)
{
    NEED_INIT();
    FkArray *a = fk_find_array(h);
    if (!a || !out)
        return FAIL(E_INVALID_HANDLE);
    out->Width = a->w; out->Height = a->h; out->Format = a->format; out->NumChannels = a->nch;
    return OK;
}

EXPORT CUresult cuArray3DGetDescriptor_v2(FkArray3DDesc *out, void *h)
{
    NEED_INIT();
    FkArray *a = fk_find_array(h);
    if (!a || !out)
        return FAIL(E_INVALID_HANDLE);
    out->Width = a->w; out->Height = a->h; out->Depth = a->d;
    out->Format = a->format; out->NumChannels = a->nch; out->Flags = a->flags;
    return OK;
}

EXPORT CUresult cuArrayDestroy(void *h)
{
    Ctx *c;
    NEED_CTX(&c);
    LOCK();
    for (FkArray **pp = &fk_arrays; *pp; pp = &(*pp)->next) {
        if ((void *)*pp == h) {
            FkArray *a = *pp;
            *pp = a->next;
            if (a->ctx != c)
                acnt.wrong_context_array_destroys++;
            acnt.arrays_destroyed++;
            free(a->data);
            free(a);
            UNLOCK();
            return OK;
        }
    }
    UNLOCK();
    return FAIL(E_INVALID_HANDLE);
}

/* 1-D array copies: offset and count in bytes of the array's one row */
static CUresult fk_array_span(void *h, size_t off, size_t n, unsigned char **p)
{
    FkArray *a = fk_find_array(h);
    if (!a)
        return E_INVALID_HANDLE;
    if (a->h || a->d || off > a->w * a->elsize || n > a->w * a->elsize - off)
        return E_INVALID_VALUE;
    *p = a->data + off;
    return OK;
}

EXPORT CUresult cuMemcpyHtoA_v2(void *h, size_t off, const void *src, size_t n)
{
    unsigned char *p;
    CUresult r = need_ctx(NULL);
    if (!r)
        r = fk_array_span(h, off, n, &p);
    if (r)
        return FAIL(r);
    memcpy(p, src, n);
    return OK;
}

EXPORT CUresult cuMemcpyAtoH_v2(void *dst, void *h, size_t off, size_t n)
{
    unsigned char *p;
    CUresult r = need_ctx(NULL);
    if (!r)
        r = fk_array_span(h, off, n, &p);
    if (r)
        return FAIL(r);
    memcpy(dst, p, n);
    return OK;
}

EXPORT CUresult cuMemcpyDtoA_v2(void *h, size_t off, CUdeviceptr src, size_t n)
{
    unsigned char *p;
    CUresult r = need_ctx(NULL);
    if (!r)
        r = fk_array_span(h, off, n, &p);
    if (!r)
        r = check_dev_range(src, n);
    if (r)
        return FAIL(r);
    memcpy(p, DP(src), n);
    return OK;
}

EXPORT CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, void *h, size_t off, size_t n)
{
    unsigned char *p;
    CUresult r = need_ctx(NULL);
    if (!r)
        r = fk_array_span(h, off, n, &p);
    if (!r)
        r = check_dev_range(dst, n);
    if (r)
        return FAIL(r);
    memcpy(DP(dst), p, n);
    return OK;
}

/* ------------------------------------------------------------------------ */
/* Pitched memory and 2-D memsets                                            */
/* ------------------------------------------------------------------------ */

EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *out, size_t *pitch, size_t w, size_t h,
                                   unsigned int es)
{
    Ctx *c;
    NEED_CTX(&c);
    if (!pitch || w == 0 || h == 0 || (es != 4 && es != 8 && es != 16))
        return FAIL(E_INVALID_VALUE);
    size_t p = (w + 511) / 512 * 512;
    CUresult r = alloc_dev(out, p * h, c);
    if (r)
        return FAIL(r);
    *pitch = p;
    return OK;
}

static CUresult fk_set2d(CUdeviceptr d, size_t pitch, unsigned v, size_t w, size_t h,
                         int width, void *stream)
{
    CUresult r = need_ctx(NULL);
    if (r)
        return r;
    LOCK();
    r = check_stream(stream, NULL);
    UNLOCK();
    if (r)
        return r;
    if (d % (unsigned)width || (h > 1 && w * (size_t)width > pitch))
        return E_INVALID_VALUE;
    if (w == 0 || h == 0)
        return OK;
    if ((r = check_dev_range(d, (h - 1) * pitch + w * (size_t)width)))
        return r;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            unsigned char *p = (unsigned char *)DP(d) + y * pitch + x * (size_t)width;
            if (width == 1) {
                *p = (unsigned char)v;
            } else if (width == 2) {
                uint16_t s = (uint16_t)v;
                memcpy(p, &s, 2);
            } else {
                uint32_t s = (uint32_t)v;
                memcpy(p, &s, 4);
            }
        }
    return OK;
}

EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h)
{ CUresult r = fk_set2d(d, pitch, v, w, h, 1, NULL); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h)
{ CUresult r = fk_set2d(d, pitch, v, w, h, 2, NULL); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h)
{ CUresult r = fk_set2d(d, pitch, v, w, h, 4, NULL); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w,
                                  size_t h, void *s)
{ CUresult r = fk_set2d(d, pitch, v, w, h, 1, s); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w,
                                   size_t h, void *s)
{ CUresult r = fk_set2d(d, pitch, v, w, h, 2, s); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w,
                                   size_t h, void *s)
{ CUresult r = fk_set2d(d, pitch, v, w, h, 4, s); return r ? FAIL(r) : OK; }

/* ------------------------------------------------------------------------ */
/* 2-D, 3-D and peer copies                                                  */
/* ------------------------------------------------------------------------ */

typedef struct {
    size_t x, y, z, pitch, height;
    int type;
    unsigned char *host;
    CUdeviceptr dev;
    void *array;
    void *ctx;
} FkSide;

/* Where row r of slice s of the region lies on one side; checks the
 * whole region the first time (r == s == 0). */
static CUresult fk_side_row(const FkSide *sd, size_t w, size_t h, size_t dp, size_t r, size_t s,
                            int peer, unsigned char **out)
{
    if (sd->type == 3) {
        FkArray *a = fk_find_array(sd->array);
        if (!a)
            return E_INVALID_HANDLE;
        size_t row = a->w * a->elsize;
        if (sd->x + w > row || sd->y + h > dim1(a->h) || sd->z + dp > dim1(a->d))
            return E_INVALID_VALUE;
        *out = a->data + ((sd->z + s) * dim1(a->h) + sd->y + r) * row + sd->x;
        return OK;
    }
    if (sd->type < 1 || sd->type > 4)
        return E_INVALID_VALUE;
    if ((h > 1 || dp > 1) && sd->x + w > sd->pitch)
        return E_INVALID_VALUE;
    if (dp > 1 && sd->y + h > sd->height)
        return E_INVALID_VALUE;
    if (peer && !find_ctx(sd->ctx))
        return E_INVALID_CONTEXT;
    size_t off = ((sd->z + s) * sd->height + sd->y + r) * sd->pitch + sd->x;
    if (sd->type == 1) {
        if (!sd->host)
            return E_INVALID_VALUE;
        *out = sd->host + off;
        return OK;
    }
    if (sd->type == 2 && r == 0 && s == 0) {
        size_t end = ((sd->z + dp - 1) * sd->height + sd->y + h - 1) * sd->pitch + sd->x + w;
        CUresult e = check_dev_range(sd->dev + ((sd->z * sd->height + sd->y) * sd->pitch + sd->x),
                                     end - ((sd->z * sd->height + sd->y) * sd->pitch + sd->x));
        if (e)
            return e;
    }
    *out = (unsigned char *)DP(sd->dev) + off;
    return OK;
}

static CUresult fk_copy(const FkSide *src, const FkSide *dst, size_t w, size_t h, size_t dp,
                        int peer, void *stream, const char *call)
{
    unsigned char *ps, *pd;
    CUresult r = need_ctx(NULL);
    if (r)
        return r;
    LOCK();
    r = check_stream(stream, NULL);
    UNLOCK();
    if (r)
        return r;
    snprintf(last_copy_call, sizeof last_copy_call, "%s", call);
    last_copy_stream = stream;
    if (w == 0 || h == 0 || dp == 0)
        return OK;
    /* check both sides before moving anything */
    if ((r = fk_side_row(src, w, h, dp, 0, 0, peer, &ps)) || (r = fk_side_row(dst, w, h, dp, 0, 0, peer, &pd)))
        return r;
    for (size_t s = 0; s < dp; s++)
        for (size_t y = 0; y < h; y++) {
            fk_side_row(src, w, h, dp, y, s, peer, &ps);
            fk_side_row(dst, w, h, dp, y, s, peer, &pd);
            memmove(pd, ps, w);
        }
    return OK;
}

static CUresult fk_copy2d(const FkMemcpy2D *p, void *stream, const char *call)
{
    if (!p)
        return E_INVALID_VALUE;
    last_2d = *p;
    acnt.copies_2d++;
    FkSide s = {p->srcXInBytes, p->srcY, 0, p->srcPitch, 0, p->srcMemoryType,
                (unsigned char *)p->srcHost, p->srcDevice, p->srcArray, NULL};
    FkSide d = {p->dstXInBytes, p->dstY, 0, p->dstPitch, 0, p->dstMemoryType,
                (unsigned char *)p->dstHost, p->dstDevice, p->dstArray, NULL};
    return fk_copy(&s, &d, p->WidthInBytes, p->Height, 1, 0, stream, call);
}

static CUresult fk_copy3d(const FkMemcpy3D *p, int peer, void *stream, const char *call)
{
    if (!p)
        return E_INVALID_VALUE;
    last_3d = *p;
    if (peer)
        acnt.copies_peer++;
    else
        acnt.copies_3d++;
    if (p->srcLOD || p->dstLOD)
        return E_INVALID_VALUE;
    if (!peer && (p->srcContext || p->dstContext))
        return E_INVALID_VALUE;           /* reserved0/1 must be NULL */
    FkSide s = {p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch, p->srcHeight, p->srcMemoryType,
                (unsigned char *)p->srcHost, p->srcDevice, p->srcArray, p->srcContext};
    FkSide d = {p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch, p->dstHeight, p->dstMemoryType,
                (unsigned char *)p->dstHost, p->dstDevice, p->dstArray, p->dstContext};
    return fk_copy(&s, &d, p->WidthInBytes, p->Height, p->Depth, peer, stream, call);
}

EXPORT CUresult cuMemcpy2D_v2(const FkMemcpy2D *p)
{ CUresult r = fk_copy2d(p, NULL, "cuMemcpy2D_v2"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpy2DUnaligned_v2(const FkMemcpy2D *p)
{ CUresult r = fk_copy2d(p, NULL, "cuMemcpy2DUnaligned_v2"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpy2DAsync_v2(const FkMemcpy2D *p, void *s)
{ CUresult r = fk_copy2d(p, s, "cuMemcpy2DAsync_v2"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpy3D_v2(const FkMemcpy3D *p)
{ CUresult r = fk_copy3d(p, 0, NULL, "cuMemcpy3D_v2"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpy3DAsync_v2(const FkMemcpy3D *p, void *s)
{ CUresult r = fk_copy3d(p, 0, s, "cuMemcpy3DAsync_v2"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpy3DPeer(const FkMemcpy3D *p)
{ CUresult r = fk_copy3d(p, 1, NULL, "cuMemcpy3DPeer"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpy3DPeerAsync(const FkMemcpy3D *p, void *s)
{ CUresult r = fk_copy3d(p, 1, s, "cuMemcpy3DPeerAsync"); return r ? FAIL(r) : OK; }

static CUresult fk_peer(CUdeviceptr d, void *dc, CUdeviceptr s, void *sc, size_t n, void *st,
                        const char *call)
{
    last_peer_ctx[0] = dc;
    last_peer_ctx[1] = sc;
    Ctx *a = find_ctx(dc), *b = find_ctx(sc);
    if (!a || !b || !a->alive || !b->alive)
        return E_INVALID_CONTEXT;
    snprintf(last_copy_call, sizeof last_copy_call, "%s", call);
    return do_copy(DP(d), DP(s), n, d, s, 3, st);
}

EXPORT CUresult cuMemcpyPeer(CUdeviceptr d, void *dc, CUdeviceptr s, void *sc, size_t n)
{ CUresult r = fk_peer(d, dc, s, sc, n, NULL, "cuMemcpyPeer"); return r ? FAIL(r) : OK; }
EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr d, void *dc, CUdeviceptr s, void *sc, size_t n,
                                  void *st)
{ CUresult r = fk_peer(d, dc, s, sc, n, st, "cuMemcpyPeerAsync"); return r ? FAIL(r) : OK; }

/* ------------------------------------------------------------------------ */
/* Texture and surface objects                                               */
/* ------------------------------------------------------------------------ */

static CUresult fk_check_res(const FkResDesc *rd, FkArray **arr)
{
    *arr = NULL;
    if (rd->flags)
        return E_INVALID_VALUE;
    if (rd->resType == 0) {
        *arr = fk_find_array(rd->res.array.hArray);
        return *arr ? OK : E_INVALID_HANDLE;
    }
    if (rd->resType == 2) {
        size_t es = fk_format_bytes(rd->res.linear.format) * rd->res.linear.numChannels;
        if (!es || rd->res.linear.devPtr % 16 || rd->res.linear.sizeInBytes == 0)
            return E_INVALID_VALUE;
        return check_dev_range(rd->res.linear.devPtr, rd->res.linear.sizeInBytes);
    }
    if (rd->resType == 3) {
        size_t es = fk_format_bytes(rd->res.pitch2D.format) * rd->res.pitch2D.numChannels;
        size_t p = rd->res.pitch2D.pitchInBytes;
        if (!es || rd->res.pitch2D.devPtr % 16 || p % 32 || !rd->res.pitch2D.width
            || !rd->res.pitch2D.height || rd->res.pitch2D.width * es > p)
            return E_INVALID_VALUE;
        return check_dev_range(rd->res.pitch2D.devPtr,
                               (rd->res.pitch2D.height - 1) * p + rd->res.pitch2D.width * es);
    }
    return E_INVALID_VALUE;
}

static unsigned long long fk_add_obj(int surface, FkArray *a)
{
    struct FkObj *o = calloc(1, sizeof *o);
    if (!o)
        return 0;
    LOCK();
    o->h = fk_next_obj++;
    o->surface = surface;
    o->arr = a;
    o->next = fk_objs;
    fk_objs = o;
    UNLOCK();
    return o->h;
}

static CUresult fk_drop_obj(unsigned long long h, int surface)
{
    LOCK();
    for (struct FkObj **pp = &fk_objs; *pp; pp = &(*pp)->next) {
        if ((*pp)->h == h && (*pp)->surface == surface) {
            struct FkObj *o = *pp;
            *pp = o->next;
            free(o);
            UNLOCK();
            return OK;
        }
    }
    UNLOCK();
    return E_INVALID_VALUE;
}

EXPORT CUresult cuTexObjectCreate(unsigned long long *out, const FkResDesc *rd,
                                  const FkTexDesc *td, const FkViewDesc *vd)
{
    FkArray *a;
    NEED_CTX(NULL);
    if (!out || !rd || !td)
        return FAIL(E_INVALID_VALUE);
    last_res = *rd;
    last_tex = *td;
    last_view_given = vd != NULL;
    if (vd)
        last_view = *vd;
    CUresult r = fk_check_res(rd, &a);
    if (r)
        return FAIL(r);
    if (vd && rd->resType != 0)
        return FAIL(E_INVALID_VALUE);
    for (int k = 0; k < 3; k++)
        if (td->addressMode[k] < 0 || td->addressMode[k] > 3)
            return FAIL(E_INVALID_VALUE);
    if (td->filterMode != 0 && td->filterMode != 1)
        return FAIL(E_INVALID_VALUE);
    if (!(*out = fk_add_obj(0, a)))
        return FAIL(E_OUT_OF_MEMORY);
    acnt.tex_created++;
    return OK;
}

EXPORT CUresult cuTexObjectDestroy(unsigned long long h)
{
    NEED_CTX(NULL);
    CUresult r = fk_drop_obj(h, 0);
    if (r)
        return FAIL(r);
    acnt.tex_destroyed++;
    return OK;
}

EXPORT CUresult cuSurfObjectCreate(unsigned long long *out, const FkResDesc *rd)
{
    FkArray *a;
    NEED_CTX(NULL);
    if (!out || !rd)
        return FAIL(E_INVALID_VALUE);
    last_res = *rd;
    if (rd->resType != 0)
        return FAIL(E_INVALID_VALUE);
    CUresult r = fk_check_res(rd, &a);
    if (r)
        return FAIL(r);
    if (!(a->flags & 2))
        return FAIL(E_INVALID_VALUE);     /* needs CUDA_ARRAY3D_SURFACE_LDST */
    if (!(*out = fk_add_obj(1, a)))
        return FAIL(E_OUT_OF_MEMORY);
    acnt.surf_created++;
    return OK;
}

EXPORT CUresult cuSurfObjectDestroy(unsigned long long h)
{
    NEED_CTX(NULL);
    CUresult r = fk_drop_obj(h, 1);
    if (r)
        return FAIL(r);
    acnt.surf_destroyed++;
    return OK;
}

/* ------------------------------------------------------------------------ */
/* Helpers for the tests                                                     */
/* ------------------------------------------------------------------------ */

/* live_arrays, live_tex, live_surf, arrays_created, arrays_destroyed,
 * wrong_context_array_destroys, tex_created, tex_destroyed, surf_created,
 * surf_destroyed, copies_2d, copies_3d, copies_peer; returns the count. */
EXPORT int fake_array_counters(long long *out, int n)
{
    long long v[13] = {0};
    LOCK();
    for (FkArray *a = fk_arrays; a; a = a->next)
        v[0]++;
    for (struct FkObj *o = fk_objs; o; o = o->next)
        v[o->surface ? 2 : 1]++;
    UNLOCK();
    v[3] = acnt.arrays_created; v[4] = acnt.arrays_destroyed;
    v[5] = acnt.wrong_context_array_destroys;
    v[6] = acnt.tex_created; v[7] = acnt.tex_destroyed;
    v[8] = acnt.surf_created; v[9] = acnt.surf_destroyed;
    v[10] = acnt.copies_2d; v[11] = acnt.copies_3d; v[12] = acnt.copies_peer;
    for (int i = 0; i < n && i < 13; i++)
        out[i] = v[i];
    return 13;
}

/* Copy the last structure of a kind into out (cap bytes); returns its
 * size, or -1 (no view given with the last texture). Kinds: 0
 * CUDA_MEMCPY2D, 1 CUDA_MEMCPY3D(_PEER), 2 CUDA_ARRAY_DESCRIPTOR, 3
 * CUDA_ARRAY3D_DESCRIPTOR, 4 CUDA_RESOURCE_DESC, 5 CUDA_TEXTURE_DESC, 6
 * CUDA_RESOURCE_VIEW_DESC. */
EXPORT long long fake_array_last(int kind, void *out, long long cap)
{
    const void *src;
    size_t n;
    switch (kind) {
    case 0: src = &last_2d; n = sizeof last_2d; break;
    case 1: src = &last_3d; n = sizeof last_3d; break;
    case 2: src = &last_ad; n = sizeof last_ad; break;
    case 3: src = &last_ad3; n = sizeof last_ad3; break;
    case 4: src = &last_res; n = sizeof last_res; break;
    case 5: src = &last_tex; n = sizeof last_tex; break;
    case 6:
        if (!last_view_given)
            return -1;
        src = &last_view; n = sizeof last_view; break;
    default: return -1;
    }
    if (out && cap > 0)
        memcpy(out, src, n < (size_t)cap ? n : (size_t)cap);
    return (long long)n;
}

/* The entry point and stream of the last copy; the contexts of the last
 * cuMemcpyPeer(Async) (dst, src). */
EXPORT void *fake_array_last_copy(char *call, int cap, void **peer_ctx)
{
    if (call && cap > 0)
        snprintf(call, (size_t)cap, "%s", last_copy_call);
    if (peer_ctx) {
        peer_ctx[0] = last_peer_ctx[0];
        peer_ctx[1] = last_peer_ctx[1];
    }
    return last_copy_stream;
}

/* An array's element bytes (row-major, see the top) into out; returns
 * their count, or -1 for an unknown handle. */
EXPORT long long fake_array_bytes(void *h, void *out, long long cap)
{
    FkArray *a = fk_find_array(h);
    if (!a)
        return -1;
    size_t n = a->elsize * a->w * dim1(a->h) * dim1(a->d);
    if (out && cap > 0)
        memcpy(out, a->data, n < (size_t)cap ? n : (size_t)cap);
    return (long long)n;
}
