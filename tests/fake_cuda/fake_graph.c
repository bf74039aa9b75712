/*
 * CUDA graphs, stream capture and host functions for the fake libcuda;
 * included at the end of fake_libcuda.c (its static state and helpers are
 * visible here).
 *
 * Graphs are lists of nodes in the order they were added, each with its
 * dependencies; a node keeps a copy of what it was given (a kernel node:
 * the function, dims and its parameters packed at the kernel's offsets; a
 * copy node: the CUDA_MEMCPY3D; a fill node: the CUDA_MEMSET_NODE_PARAMS),
 * which fake_node_* let the tests read. cuGraphInstantiateWithFlags
 * copies the graph; cuGraphLaunch runs the copy's nodes in dependency order
 * at once (kernels as cuLaunchKernel does: the last-launch record and the
 * "inc"/"copy" effects; copies and fills on fake memory; host nodes call
 * their function; child graphs run their nodes).
 *
 * Capture: a capturing stream records cuLaunchHostFunc calls as host nodes
 * of its graph (and add_kernel_node-style nodes come through the graph
 * calls); other work on a capturing stream still runs at once, as the fake
 * runs everything. fake_invalidate_capture marks a capture invalidated,
 * as an illegal call would, so that cuStreamEndCapture fails.
 */

#define E_ILLEGAL_STATE 401
#define E_CAPTURE_UNSUPPORTED 900
#define E_CAPTURE_INVALIDATED 901
#define E_GRAPH_EXEC_UPDATE_FAILURE 910
#define MAX_DEPS 64

typedef struct {                 /* CUDA_MEMCPY3D */
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray, *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray, *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} FakeMemcpy3D;

typedef struct {                 /* CUDA_MEMSET_NODE_PARAMS */
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
} FakeMemset;

typedef struct {                 /* CUDA_KERNEL_NODE_PARAMS (_v2) */
    void *func;
    unsigned int gx, gy, gz, bx, by, bz, shared;
    void **kernelParams, **extra;
    void *kern, *ctx;
} FakeKernelParams;

typedef struct {                 /* CUDA_HOST_NODE_PARAMS */
    void (*fn)(void *);
    void *user;
} FakeHostParams;

struct FakeGraph;

typedef struct FakeNode {
    int type;                    /* CUgraphNodeType */
    struct FakeGraph *graph;
    Func *func;
    unsigned dims[7];            /* grid xyz, block xyz, shared */
    unsigned char params[RECORD_BYTES];
    FakeMemcpy3D copy;
    FakeMemset fill;
    void *copy_ctx;
    FakeHostParams host;
    void *event;
    struct FakeGraph *child;     /* a copy of the child graph */
    struct FakeNode *orig;       /* in an exec's copy: the node it came from */
    struct FakeNode *alt;        /* ... or the node of the last update's graph */
    int ndeps;
    struct FakeNode *deps[MAX_DEPS];
    struct FakeNode *next;
} FakeNode;

typedef struct FakeGraph {
    int alive, is_exec_copy;
    FakeNode *first, *last;
    int nnodes;
    struct FakeGraph *next_all;
} FakeGraph;

typedef struct FakeExec {
    int alive;
    FakeGraph *copy;
    struct FakeExec *next_all;
} FakeExec;

static FakeGraph *all_graphs;
static FakeExec *all_execs;
static long long graph_launches, host_calls;

static struct {
    void *stream;
    FakeGraph *graph;
    unsigned long long id;
    int status, mode, ndeps;
    FakeNode *deps[MAX_DEPS];
} captures[16];
static unsigned long long next_capture_id = 1;

static FakeGraph *live_graph(void *h)
{
    for (FakeGraph *g = all_graphs; g; g = g->next_all)
        if (g == h && g->alive)
            return g;
    return NULL;
}

static FakeExec *live_exec(void *h)
{
    for (FakeExec *e = all_execs; e; e = e->next_all)
        if (e == h && e->alive)
            return e;
    return NULL;
}

static FakeNode *find_node(void *h)
{
    for (FakeGraph *g = all_graphs; g; g = g->next_all)
        if (g->alive)
            for (FakeNode *n = g->first; n; n = n->next)
                if (n == h)
                    return n;
    return NULL;
}

static FakeGraph *new_graph(int exec_copy)
{
    FakeGraph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->alive = 1;
    g->is_exec_copy = exec_copy;
    g->next_all = all_graphs;
    all_graphs = g;
    return g;
}

static void free_graph_nodes(FakeGraph *g);

static void kill_graph(FakeGraph *g)
{
    free_graph_nodes(g);
    g->alive = 0;             /* kept as a tombstone: handles stay checkable */
}

static void free_graph_nodes(FakeGraph *g)
{
    FakeNode *n = g->first;
    while (n) {
        FakeNode *next = n->next;
        if (n->child)
            kill_graph(n->child);
        free(n);
        n = next;
    }
    g->first = g->last = NULL;
    g->nnodes = 0;
}

/* Checks the dependencies as the driver does: nodes of this graph, none twice. */
static CUresult check_deps(FakeGraph *g, void *const *deps, size_t n)
{
    if (n && !deps)
        return E_INVALID_VALUE;
    if (n > MAX_DEPS)
        return E_INVALID_VALUE;
    for (size_t i = 0; i < n; i++) {
        FakeNode *d = find_node(deps[i]);
        if (!d || d->graph != g)
            return E_INVALID_VALUE;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return E_INVALID_VALUE;
    }
    return OK;
}

static FakeNode *add_node(FakeGraph *g, int type, void *const *deps, size_t n)
{
    FakeNode *node = calloc(1, sizeof *node);
    if (!node)
        return NULL;
    node->type = type;
    node->graph = g;
    node->ndeps = (int)n;
    for (size_t i = 0; i < n; i++)
        node->deps[i] = deps[i];
    if (g->last)
        g->last->next = node;
    else
        g->first = node;
    g->last = node;
    g->nnodes++;
    return node;
}

static int node_index(FakeNode *n)
{
    int i = 0;
    for (FakeNode *m = n->graph->first; m; m = m->next, i++)
        if (m == n)
            return i;
    return -1;
}

static FakeNode *node_at(FakeGraph *g, int i)
{
    FakeNode *m = g->first;
    while (m && i--)
        m = m->next;
    return m;
}

/* A copy of g (nodes and edges); copies point back at their originals. */
static FakeGraph *copy_graph(FakeGraph *g, int exec_copy)
{
    FakeGraph *c = new_graph(exec_copy);
    if (!c)
        return NULL;
    for (FakeNode *n = g->first; n; n = n->next) {
        FakeNode *m = add_node(c, n->type, NULL, 0);
        if (!m)
            return NULL;
        FakeNode *link = m->next;
        memcpy(m, n, sizeof *m);
        m->graph = c;
        m->next = link;
        m->orig = n;
        m->alt = NULL;
        m->child = n->child ? copy_graph(n->child, exec_copy) : NULL;
    }
    /* the edges once every node exists (an added edge may point forward) */
    for (FakeNode *m = c->first; m; m = m->next)
        for (int i = 0; i < m->ndeps; i++)
            m->deps[i] = node_at(c, node_index(m->orig->deps[i]));
    return c;
}

static CUresult check_kernel_params(const FakeKernelParams *p, Func **out)
{
    if (!p)
        return E_INVALID_VALUE;
    Func *f = live_func(p->func);
    if (!f)
        return E_INVALID_HANDLE;
    if (p->extra || p->kern)
        return E_NOT_SUPPORTED;
    if (p->bx == 0 || p->by == 0 || p->bz == 0 || p->bx > 1024 || p->by > 1024
        || p->bz > 64 || (unsigned long long)p->bx * p->by * p->bz > 1024)
        return E_INVALID_VALUE;
    if (p->gx == 0 || p->gy == 0 || p->gz == 0 || p->gy > 65535 || p->gz > 65535)
        return E_INVALID_VALUE;
    if (p->shared > (unsigned)f->attrs[8])
        return E_INVALID_VALUE;
    if (f->nparams && !p->kernelParams)
        return E_INVALID_VALUE;
    *out = f;
    return OK;
}

static void set_kernel(FakeNode *n, Func *f, const FakeKernelParams *p)
{
    n->func = f;
    n->dims[0] = p->gx; n->dims[1] = p->gy; n->dims[2] = p->gz;
    n->dims[3] = p->bx; n->dims[4] = p->by; n->dims[5] = p->bz;
    n->dims[6] = p->shared;
    memset(n->params, 0, sizeof n->params);
    for (int i = 0; i < f->nparams; i++)
        memcpy(n->params + f->offsets[i], p->kernelParams[i], f->sizes[i]);
}

/* ---- graphs and nodes ---- */

EXPORT CUresult cuGraphCreate(void **out, unsigned int flags)
{
    NEED_CTX(NULL);
    if (!out || flags)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    FakeGraph *g = new_graph(0);
    UNLOCK();
    if (!g)
        return FAIL(E_OUT_OF_MEMORY);
    *out = g;
    return OK;
}

EXPORT CUresult cuGraphDestroy(void *h)
{
    LOCK();
    FakeGraph *g = live_graph(h);
    if (g && !g->is_exec_copy)
        kill_graph(g);
    UNLOCK();
    return (g && !g->is_exec_copy) ? OK : FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuGraphClone(void **out, void *h)
{
    LOCK();
    FakeGraph *g = live_graph(h);
    FakeGraph *c = g ? copy_graph(g, 0) : NULL;
    if (c)
        for (FakeNode *n = c->first; n; n = n->next)
            n->orig = NULL;
    UNLOCK();
    if (!out || !g)
        return FAIL(E_INVALID_VALUE);
    if (!c)
        return FAIL(E_OUT_OF_MEMORY);
    *out = c;
    return OK;
}

/* The common start of every cuGraphAdd*Node: graph and dependencies. */
#define ADD_START(h, deps, n, gvar) \
    LOCK(); \
    FakeGraph *gvar = live_graph(h); \
    CUresult r_ = gvar ? check_deps(gvar, (void *const *)(deps), (n)) : E_INVALID_VALUE; \
    if (r_) { UNLOCK(); return FAIL(r_); }

#define ADD_NODE(out, g, type, deps, n, nvar) \
    if (!(out)) { UNLOCK(); return FAIL(E_INVALID_VALUE); } \
    FakeNode *nvar = add_node((g), (type), (void *const *)(deps), (n)); \
    if (!nvar) { UNLOCK(); return FAIL(E_OUT_OF_MEMORY); } \
    *(out) = nvar;

EXPORT CUresult cuGraphAddEmptyNode(void **out, void *h, void *const *deps, size_t n)
{
    ADD_START(h, deps, n, g);
    ADD_NODE(out, g, 5, deps, n, node);
    UNLOCK();
    return OK;
}

EXPORT CUresult cuGraphAddKernelNode_v2(void **out, void *h, void *const *deps, size_t n,
                                        const FakeKernelParams *p)
{
    NEED_CTX(NULL);
    Func *f = NULL;
    CUresult r = check_kernel_params(p, &f);
    if (r)
        return FAIL(r);
    ADD_START(h, deps, n, g);
    ADD_NODE(out, g, 0, deps, n, node);
    set_kernel(node, f, p);
    UNLOCK();
    return OK;
}

static CUresult check_copy(const FakeMemcpy3D *c)
{
    if (!c || c->reserved0 || c->reserved1 || c->srcArray || c->dstArray)
        return E_INVALID_VALUE;
    if (c->WidthInBytes == 0 || c->Height == 0 || c->Depth == 0)
        return E_INVALID_VALUE;
    if (c->srcXInBytes || c->srcY || c->srcZ || c->dstXInBytes || c->dstY || c->dstZ)
        return E_NOT_SUPPORTED;          /* the fake copies whole 1-D ranges only */
    if (c->Height != 1 || c->Depth != 1)
        return E_NOT_SUPPORTED;
    if ((c->srcMemoryType != 1 && c->srcMemoryType != 2)
        || (c->dstMemoryType != 1 && c->dstMemoryType != 2))
        return E_INVALID_VALUE;
    if (c->srcPitch < c->WidthInBytes || c->dstPitch < c->WidthInBytes)
        return E_INVALID_VALUE;
    if (c->srcMemoryType == 1 ? !c->srcHost : !c->srcDevice)
        return E_INVALID_VALUE;
    if (c->dstMemoryType == 1 ? !c->dstHost : !c->dstDevice)
        return E_INVALID_VALUE;
    if (c->srcMemoryType == 2 && !find_range((uintptr_t)c->srcDevice, c->WidthInBytes))
        return E_INVALID_VALUE;
    if (c->dstMemoryType == 2 && !find_range((uintptr_t)c->dstDevice, c->WidthInBytes))
        return E_INVALID_VALUE;
    return OK;
}

EXPORT CUresult cuGraphAddMemcpyNode(void **out, void *h, void *const *deps, size_t n,
                                     const FakeMemcpy3D *copy, void *ctx)
{
    NEED_CTX(NULL);
    if (!ctx || !find_ctx(ctx))
        return FAIL(E_INVALID_CONTEXT);
    ADD_START(h, deps, n, g);
    CUresult r = check_copy(copy);
    if (r) {
        UNLOCK();
        return FAIL(r);
    }
    ADD_NODE(out, g, 1, deps, n, node);
    node->copy = *copy;
    node->copy_ctx = ctx;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuGraphAddMemsetNode(void **out, void *h, void *const *deps, size_t n,
                                     const FakeMemset *p, void *ctx)
{
    NEED_CTX(NULL);
    if (!ctx || !find_ctx(ctx))
        return FAIL(E_INVALID_CONTEXT);
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
        || p->width == 0 || p->height == 0 || p->dst % p->elementSize
        || (p->height > 1 && p->pitch < p->width * p->elementSize))
        return FAIL(E_INVALID_VALUE);
    size_t span = p->pitch * (p->height - 1) + p->width * p->elementSize;
    ADD_START(h, deps, n, g);
    if (!find_range((uintptr_t)p->dst, span)) {
        UNLOCK();
        return FAIL(E_INVALID_VALUE);
    }
    ADD_NODE(out, g, 2, deps, n, node);
    node->fill = *p;
    node->copy_ctx = ctx;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuGraphAddHostNode(void **out, void *h, void *const *deps, size_t n,
                                   const FakeHostParams *p)
{
    if (!p || !p->fn)
        return FAIL(E_INVALID_VALUE);
    ADD_START(h, deps, n, g);
    ADD_NODE(out, g, 3, deps, n, node);
    node->host = *p;
    UNLOCK();
    return OK;
}

static CUresult add_event_node(void **out, void *h, void *const *deps, size_t n,
                               void *event, int type, const char *call)
{
    ADD_START(h, deps, n, g);
    if (!find_handle(event, R_EVENT)) {
        UNLOCK();
        return fail(E_INVALID_HANDLE, call);
    }
    ADD_NODE(out, g, type, deps, n, node);
    node->event = event;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuGraphAddEventRecordNode(void **out, void *h, void *const *deps, size_t n,
                                          void *event)
{
    return add_event_node(out, h, deps, n, event, 7, __func__);
}

EXPORT CUresult cuGraphAddEventWaitNode(void **out, void *h, void *const *deps, size_t n,
                                        void *event)
{
    return add_event_node(out, h, deps, n, event, 6, __func__);
}

EXPORT CUresult cuGraphAddChildGraphNode(void **out, void *h, void *const *deps, size_t n,
                                         void *child)
{
    ADD_START(h, deps, n, g);
    FakeGraph *c = live_graph(child);
    if (!c || c == g) {
        UNLOCK();
        return FAIL(E_INVALID_VALUE);
    }
    ADD_NODE(out, g, 4, deps, n, node);
    node->child = copy_graph(c, 1);
    UNLOCK();
    return OK;
}

static CUresult list_nodes(void *h, void **out, size_t *count, int roots, const char *call)
{
    if (!count)
        return fail(E_INVALID_VALUE, call);
    LOCK();
    FakeGraph *g = live_graph(h);
    if (!g) {
        UNLOCK();
        return fail(E_INVALID_VALUE, call);
    }
    size_t k = 0;
    for (FakeNode *n = g->first; n; n = n->next) {
        if (roots && n->ndeps)
            continue;
        if (out && k < *count)
            out[k] = n;
        k++;
    }
    if (!out || k < *count)
        *count = k;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuGraphGetNodes(void *h, void **out, size_t *count)
{
    return list_nodes(h, out, count, 0, __func__);
}

EXPORT CUresult cuGraphGetRootNodes(void *h, void **out, size_t *count)
{
    return list_nodes(h, out, count, 1, __func__);
}

EXPORT CUresult cuGraphAddDependencies_v2(void *h, void *const *from, void *const *to,
                                          const void *edges, size_t n)
{
    if (edges)
        return FAIL(E_NOT_SUPPORTED);
    LOCK();
    FakeGraph *g = live_graph(h);
    CUresult r = g ? OK : E_INVALID_VALUE;
    for (size_t i = 0; !r && i < n; i++) {
        FakeNode *a = find_node(from[i]), *b = find_node(to[i]);
        if (!a || !b || a->graph != g || b->graph != g || a == b || b->ndeps >= MAX_DEPS)
            r = E_INVALID_VALUE;
        for (int j = 0; !r && j < b->ndeps; j++)
            if (b->deps[j] == a)
                r = E_INVALID_VALUE;     /* the edge exists */
        if (!r)
            b->deps[b->ndeps++] = a;
    }
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuGraphAddDependencies(void *h, void *const *from, void *const *to, size_t n)
{
    return cuGraphAddDependencies_v2(h, from, to, NULL, n);
}

EXPORT CUresult cuGraphNodeGetType(void *h, int *type)
{
    LOCK();
    FakeNode *n = find_node(h);
    if (n && type)
        *type = n->type;
    UNLOCK();
    return (n && type) ? OK : FAIL(E_INVALID_VALUE);
}

EXPORT CUresult cuGraphNodeGetDependencies_v2(void *h, void **out, void *edges, size_t *count)
{
    LOCK();
    FakeNode *n = find_node(h);
    if (!n || !count || edges) {
        UNLOCK();
        return FAIL(E_INVALID_VALUE);
    }
    if (out)
        for (int i = 0; i < n->ndeps && (size_t)i < *count; i++)
            out[i] = n->deps[i];
    if (!out || (size_t)n->ndeps < *count)
        *count = (size_t)n->ndeps;
    UNLOCK();
    return OK;
}

EXPORT CUresult cuGraphNodeGetDependencies(void *h, void **out, size_t *count)
{
    return cuGraphNodeGetDependencies_v2(h, out, NULL, count);
}

EXPORT CUresult cuGraphDebugDotPrint(void *h, const char *path, unsigned int flags)
{
    (void)flags;
    LOCK();
    FakeGraph *g = live_graph(h);
    FILE *f = (g && path) ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "digraph fake {\n");
        for (FakeNode *n = g->first; n; n = n->next) {
            fprintf(f, "  n%d [label=\"type %d\"];\n", node_index(n), n->type);
            for (int i = 0; i < n->ndeps; i++)
                fprintf(f, "  n%d -> n%d;\n", node_index(n->deps[i]), node_index(n));
        }
        fprintf(f, "}\n");
        fclose(f);
    }
    UNLOCK();
    if (!g)
        return FAIL(E_INVALID_VALUE);
    return f ? OK : FAIL(E_INVALID_VALUE);
}

/* ---- executable graphs ---- */

EXPORT CUresult cuGraphInstantiateWithFlags(void **out, void *h, unsigned long long flags)
{
    NEED_CTX(NULL);
    if (!out || flags > 15)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    FakeGraph *g = live_graph(h);
    FakeExec *e = g ? calloc(1, sizeof *e) : NULL;
    if (e) {
        e->copy = copy_graph(g, 1);
        e->alive = 1;
        e->next_all = all_execs;
        all_execs = e;
    }
    UNLOCK();
    if (!g)
        return FAIL(E_INVALID_VALUE);
    if (!e || !e->copy)
        return FAIL(E_OUT_OF_MEMORY);
    *out = e;
    return OK;
}

EXPORT CUresult cuGraphExecDestroy(void *h)
{
    LOCK();
    FakeExec *e = live_exec(h);
    if (e) {
        kill_graph(e->copy);
        e->alive = 0;
    }
    UNLOCK();
    return e ? OK : FAIL(E_INVALID_VALUE);
}

static CUresult run_graph(FakeGraph *g, void *stream);

static CUresult run_node(FakeNode *n, void *stream)
{
    switch (n->type) {
    case 0: {
        Func *f = n->func;
        memcpy(last_launch.bytes, n->params, sizeof last_launch.bytes);
        last_launch.valid = 1;
        snprintf(last_launch.name, sizeof last_launch.name, "%s", f->name);
        memcpy(last_launch.grid, n->dims, 3 * sizeof(unsigned));
        memcpy(last_launch.block, n->dims + 3, 3 * sizeof(unsigned));
        last_launch.shared = n->dims[6];
        last_launch.stream = stream;
        last_launch.ctx = current();
        last_launch.nbytes = f->total;
        cnt.launches++;
        return run_effect(f, n->params);
    }
    case 1: {
        FakeMemcpy3D *c = &n->copy;
        void *dst = c->dstMemoryType == 1 ? c->dstHost : (void *)(uintptr_t)c->dstDevice;
        const void *src = c->srcMemoryType == 1 ? c->srcHost : (void *)(uintptr_t)c->srcDevice;
        if ((c->dstMemoryType == 2 && !find_range((uintptr_t)dst, c->WidthInBytes))
            || (c->srcMemoryType == 2 && !find_range((uintptr_t)src, c->WidthInBytes)))
            return E_ILLEGAL_ADDRESS;    /* the memory was freed since */
        memmove(dst, src, c->WidthInBytes);
        return OK;
    }
    case 2: {
        FakeMemset *p = &n->fill;
        for (size_t y = 0; y < p->height; y++) {
            unsigned char *row = (unsigned char *)(uintptr_t)(p->dst + y * p->pitch);
            if (!find_range((uintptr_t)row, p->width * p->elementSize))
                return E_ILLEGAL_ADDRESS;
            for (size_t i = 0; i < p->width; i++)
                memcpy(row + i * p->elementSize, &p->value, p->elementSize);
        }
        return OK;
    }
    case 3:
        host_calls++;
        UNLOCK();                /* the host function may call back into the fake */
        n->host.fn(n->host.user);
        LOCK();
        return OK;
    case 4:
        return run_graph(n->child, stream);
    case 7: {
        Res *e = find_handle(n->event, R_EVENT);
        if (e)
            e->recorded = 1;
        return OK;
    }
    default:
        return OK;
    }
}

/* Runs every node once, each after its dependencies (lock held). */
static CUresult run_graph(FakeGraph *g, void *stream)
{
    int total = g->nnodes, done = 0;
    char *ran = calloc((size_t)total + 1, 1);
    if (!ran)
        return E_OUT_OF_MEMORY;
    while (done < total) {
        int progress = 0, i = 0;
        for (FakeNode *n = g->first; n; n = n->next, i++) {
            if (ran[i])
                continue;
            int ready = 1;
            for (int j = 0; j < n->ndeps; j++)
                if (!ran[node_index(n->deps[j])])
                    ready = 0;
            if (!ready)
                continue;
            CUresult r = run_node(n, stream);
            ran[i] = 1;
            done++;
            progress = 1;
            if (r) {
                free(ran);
                return r;
            }
        }
        if (!progress) {         /* a cycle */
            free(ran);
            return E_INVALID_VALUE;
        }
    }
    free(ran);
    return OK;
}

EXPORT CUresult cuGraphLaunch(void *h, void *stream)
{
    NEED_CTX(NULL);
    LOCK();
    FakeExec *e = live_exec(h);
    CUresult r = e ? check_stream(stream, NULL) : E_INVALID_VALUE;
    if (!r) {
        graph_launches++;
        r = run_graph(e->copy, stream);
    }
    UNLOCK();
    return r ? FAIL(r) : OK;
}

static FakeNode *exec_node(FakeExec *e, void *h)
{
    for (FakeNode *n = e->copy->first; n; n = n->next)
        if ((void *)n->orig == h || (void *)n->alt == h)
            return n;
    return NULL;
}

EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(void *h, void *node,
                                                  const FakeKernelParams *p)
{
    Func *f = NULL;
    CUresult r = check_kernel_params(p, &f);
    if (r)
        return FAIL(r);
    LOCK();
    FakeExec *e = live_exec(h);
    FakeNode *n = e ? exec_node(e, node) : NULL;
    if (!n || n->type != 0 || n->func != f) {
        UNLOCK();
        return FAIL(E_INVALID_VALUE);
    }
    set_kernel(n, f, p);
    UNLOCK();
    return OK;
}

typedef struct {
    int result;
    void *errorNode, *errorFromNode;
} FakeUpdateInfo;

EXPORT CUresult cuGraphExecUpdate_v2(void *h, void *graph, FakeUpdateInfo *info)
{
    if (!info)
        return FAIL(E_INVALID_VALUE);
    memset(info, 0, sizeof *info);
    LOCK();
    FakeExec *e = live_exec(h);
    FakeGraph *g = live_graph(graph);
    if (!e || !g) {
        UNLOCK();
        return FAIL(E_INVALID_VALUE);
    }
    int result = g->nnodes == e->copy->nnodes ? 0 : 2;
    FakeNode *a = e->copy->first, *b = g->first;
    for (; !result && a && b; a = a->next, b = b->next) {
        if (a->type != b->type) {
            result = 3;
            info->errorNode = b;
        } else if (a->ndeps != b->ndeps) {
            result = 2;
            info->errorNode = b;
        } else {
            for (int j = 0; j < a->ndeps; j++)
                if (node_index(a->deps[j]) != node_index(b->deps[j]))
                    result = 2;
            if (a->type == 0 && a->func != b->func)
                result = 4;
        }
    }
    if (result) {
        info->result = result;
        UNLOCK();
        return FAIL(E_GRAPH_EXEC_UPDATE_FAILURE);
    }
    for (a = e->copy->first, b = g->first; a && b; a = a->next, b = b->next) {
        memcpy(a->dims, b->dims, sizeof a->dims);
        memcpy(a->params, b->params, sizeof a->params);
        a->copy = b->copy;
        a->fill = b->fill;
        a->host = b->host;
        a->event = b->event;
        a->alt = b;
    }
    UNLOCK();
    return OK;
}

/* ---- stream capture and host functions ---- */

static int capture_slot(void *stream)
{
    for (int i = 0; i < 16; i++)
        if (captures[i].graph && captures[i].stream == stream)
            return i;
    return -1;
}

EXPORT CUresult cuStreamBeginCapture_v2(void *stream, int mode)
{
    NEED_CTX(NULL);
    if (stream == NULL || stream == (void *)1 || stream == (void *)2)
        return FAIL(E_CAPTURE_UNSUPPORTED);
    if (mode < 0 || mode > 2)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    if (!r && capture_slot(stream) >= 0)
        r = E_ILLEGAL_STATE;
    int i = 0;
    while (!r && i < 16 && captures[i].graph)
        i++;
    if (!r && i == 16)
        r = E_OUT_OF_MEMORY;
    if (!r) {
        captures[i].graph = new_graph(0);
        captures[i].stream = stream;
        captures[i].id = next_capture_id++;
        captures[i].status = 1;
        captures[i].mode = mode;
        captures[i].ndeps = 0;
    }
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuStreamEndCapture(void *stream, void **out)
{
    NEED_CTX(NULL);
    if (!out)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    int i = capture_slot(stream);
    if (i < 0) {
        UNLOCK();
        return FAIL(E_ILLEGAL_STATE);
    }
    FakeGraph *g = captures[i].graph;
    int status = captures[i].status;
    memset(&captures[i], 0, sizeof captures[i]);
    if (status == 2)
        kill_graph(g);
    UNLOCK();
    *out = status == 2 ? NULL : g;
    return status == 2 ? FAIL(E_CAPTURE_INVALIDATED) : OK;
}

EXPORT CUresult cuStreamIsCapturing(void *stream, int *status)
{
    NEED_CTX(NULL);
    if (!status)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    int i = capture_slot(stream);
    *status = i < 0 ? 0 : captures[i].status;
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuStreamGetCaptureInfo_v3(void *stream, int *status, unsigned long long *id,
                                          void **graph, void *const **deps,
                                          const void **edges, size_t *ndeps)
{
    NEED_CTX(NULL);
    if (!status)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    int i = capture_slot(stream);
    *status = i < 0 ? 0 : captures[i].status;
    if (i >= 0 && captures[i].status == 1) {   /* as the driver: only while active */
        if (id) *id = captures[i].id;
        if (graph) *graph = captures[i].graph;
        if (deps) *deps = (void *const *)captures[i].deps;
        if (edges) *edges = NULL;
        if (ndeps) *ndeps = (size_t)captures[i].ndeps;
    }
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuStreamGetCaptureInfo_v2(void *stream, int *status, unsigned long long *id,
                                          void **graph, void *const **deps, size_t *ndeps)
{
    return cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, NULL, ndeps);
}

EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(void *stream, void **nodes,
                                                     const void *edges, size_t n,
                                                     unsigned int flags)
{
    NEED_CTX(NULL);
    if (edges || flags > 1)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    int i = capture_slot(stream);
    CUresult r = i < 0 || captures[i].status != 1 ? E_ILLEGAL_STATE
                 : check_deps(captures[i].graph, (void *const *)nodes, n);
    if (!r) {
        if (flags == 1)
            captures[i].ndeps = 0;
        for (size_t k = 0; k < n && captures[i].ndeps < MAX_DEPS; k++)
            captures[i].deps[captures[i].ndeps++] = nodes[k];
    }
    UNLOCK();
    return r ? FAIL(r) : OK;
}

EXPORT CUresult cuStreamUpdateCaptureDependencies(void *stream, void **nodes, size_t n,
                                                  unsigned int flags)
{
    return cuStreamUpdateCaptureDependencies_v2(stream, nodes, NULL, n, flags);
}

EXPORT CUresult cuLaunchHostFunc(void *stream, void (*fn)(void *), void *user)
{
    NEED_CTX(NULL);
    if (!fn)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    int i = r ? -1 : capture_slot(stream);
    if (!r && i >= 0) {
        if (captures[i].status != 1) {
            r = E_CAPTURE_INVALIDATED;
        } else {
            FakeNode *n = add_node(captures[i].graph, 3, (void *const *)captures[i].deps,
                                   (size_t)captures[i].ndeps);
            if (!n) {
                r = E_OUT_OF_MEMORY;
            } else {
                n->host.fn = fn;
                n->host.user = user;
                captures[i].ndeps = 1;
                captures[i].deps[0] = n;
            }
        }
        UNLOCK();
        return r ? FAIL(r) : OK;
    }
    if (!r)
        host_calls++;
    UNLOCK();
    if (r)
        return FAIL(r);
    fn(user);                    /* all work is done: it runs now */
    return OK;
}

EXPORT CUresult cuStreamAddCallback(void *stream, void (*cb)(void *, CUresult, void *),
                                    void *user, unsigned int flags)
{
    NEED_CTX(NULL);
    if (!cb || flags)
        return FAIL(E_INVALID_VALUE);
    LOCK();
    CUresult r = check_stream(stream, NULL);
    if (!r && capture_slot(stream) >= 0)
        r = E_CAPTURE_UNSUPPORTED;
    if (!r)
        host_calls++;
    UNLOCK();
    if (r)
        return FAIL(r);
    cb(stream, OK, user);
    return OK;
}

/* ---- helpers for the tests ---- */

/* Mark the capture of `stream` invalidated (as an illegal call would). */
EXPORT int fake_invalidate_capture(void *stream)
{
    LOCK();
    int i = capture_slot(stream);
    if (i >= 0)
        captures[i].status = 2;
    UNLOCK();
    return i >= 0;
}

/* counts[0..4]: live graphs (not exec copies), live execs, graph launches,
 * host-function calls, live captures. */
EXPORT void fake_graph_counts(long long *counts)
{
    long long v[5] = {0, 0, graph_launches, host_calls, 0};
    LOCK();
    for (FakeGraph *g = all_graphs; g; g = g->next_all)
        v[0] += g->alive && !g->is_exec_copy;
    for (FakeExec *e = all_execs; e; e = e->next_all)
        v[1] += e->alive;
    for (int i = 0; i < 16; i++)
        v[4] += captures[i].graph != NULL;
    UNLOCK();
    memcpy(counts, v, sizeof v);
}

/* A node's type, its dependencies (deps[0..cap)) and their number, or -1. */
EXPORT int fake_node_info(void *h, int *type, void **deps, int cap)
{
    LOCK();
    FakeNode *n = find_node(h);
    int k = n ? n->ndeps : -1;
    if (n) {
        *type = n->type;
        for (int i = 0; i < n->ndeps && i < cap; i++)
            deps[i] = n->deps[i];
    }
    UNLOCK();
    return k;
}

/* A kernel node's name, parameter bytes and dims[7]; its parameter byte
 * count, or -1. With exec non-NULL: the node's copy in that exec. */
EXPORT long long fake_kernel_node(void *exec, void *h, char *name, int cap,
                                  unsigned char *bytes, long long bcap, unsigned *dims)
{
    LOCK();
    FakeNode *n = NULL;
    if (exec) {
        FakeExec *e = live_exec(exec);
        n = e ? exec_node(e, h) : NULL;
    } else {
        n = find_node(h);
    }
    if (!n || n->type != 0) {
        UNLOCK();
        return -1;
    }
    snprintf(name, (size_t)cap, "%s", n->func->name);
    size_t nb = n->func->total;
    memcpy(bytes, n->params, nb < (size_t)bcap ? nb : (size_t)bcap);
    memcpy(dims, n->dims, sizeof n->dims);
    UNLOCK();
    return (long long)nb;
}

/* A copy node's CUDA_MEMCPY3D fields, in order, as 26 integers (the last is
 * the context it was given); 0, or -1 for no such copy node. */
EXPORT int fake_memcpy_node(void *h, unsigned long long *out)
{
    LOCK();
    FakeNode *n = find_node(h);
    if (!n || n->type != 1) {
        UNLOCK();
        return -1;
    }
    FakeMemcpy3D *c = &n->copy;
    unsigned long long v[26] = {
        c->srcXInBytes, c->srcY, c->srcZ, c->srcLOD, (unsigned long long)c->srcMemoryType,
        (uintptr_t)c->srcHost, c->srcDevice, (uintptr_t)c->srcArray, (uintptr_t)c->reserved0,
        c->srcPitch, c->srcHeight,
        c->dstXInBytes, c->dstY, c->dstZ, c->dstLOD, (unsigned long long)c->dstMemoryType,
        (uintptr_t)c->dstHost, c->dstDevice, (uintptr_t)c->dstArray, (uintptr_t)c->reserved1,
        c->dstPitch, c->dstHeight, c->WidthInBytes, c->Height, c->Depth,
        (uintptr_t)n->copy_ctx};
    memcpy(out, v, sizeof v);
    UNLOCK();
    return 0;
}

/* A fill node's fields: dst, pitch, value, elementSize, width, height, ctx. */
EXPORT int fake_memset_node(void *h, unsigned long long *out)
{
    LOCK();
    FakeNode *n = find_node(h);
    if (!n || n->type != 2) {
        UNLOCK();
        return -1;
    }
    FakeMemset *p = &n->fill;
    unsigned long long v[7] = {p->dst, p->pitch, p->value, p->elementSize, p->width,
                               p->height, (uintptr_t)n->copy_ctx};
    memcpy(out, v, sizeof v);
    UNLOCK();
    return 0;
}
