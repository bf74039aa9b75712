## Scans: a single-pass decoupled look-back prefix scan (Merrill & Garland,
## "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016) and a
## column scan for axes that are not innermost.  Rendered by gpuarr/scan.py.
## The pipelined look-back kernel is in scan_pipelined.cu.mako, and the tile
## scan and stores both look-back kernels share in scan_lookback.cu.mako.
##
## Variables (all required):
##   name       kernel name (a C identifier)
##   kind       "lookback" | "columns"
##   in_t, out_t, acc_t   C types: input and output in memory, accumulator
##   in_dt, out_dt, loop_dt   numpy dtypes of input, output and operator
##              (a float16 operator is held in float and rounded at stores)
##   scan_expr  the associative operator in terms of `a` (earlier) and `b`
##   neutral    C expression of the neutral element ("" when not given)
##   exclusive  bool: exclusive instead of inclusive scan
##   preamble   user source placed before the kernel
## For "lookback":
##   block      threads per block (a multiple of 32)
##   vec        elements per lane per row (a power of two)
##   rows       rows per warp segment (tile = block * vec * rows elements)
##   aligned    bool: full tiles use vec-wide vector accesses
##   seg        bool: rows of `row_len` elements are scanned independently
##   packed     bool: status and value share one 64-bit descriptor word
##              (sizeof(ga_acc_t) <= 4); else a status word plus two value
##              slots per tile (aggregate, inclusive prefix)
##   lookback   descriptors each lane reads per look-back step
##   min_blocks resident blocks per SM asked of ptxas (__launch_bounds__)
##   impl       "block-per-tile" (a block per tile) | "pipelined" (sm_90: persistent blocks
##              with warp roles; `block` is then its consumer threads)
##   stages     v3: tiles of input staged in shared memory (even)
##   commutative  v3: scan_expr is commutative (aggregators fold any order)
## For "columns":
##   block      threads per block
<%namespace name="common" file="common.cu.mako"/>\
<%namespace name="scandefs" file="scan_lookback.cu.mako"/>\
<%namespace name="pipelined" file="scan_pipelined.cu.mako"/>\
${common.types()}
${preamble}

typedef ${in_t} ga_in_t;
typedef ${out_t} ga_out_t;
typedef ${acc_t} ga_acc_t;

<%def name="rounded(expr, dt)" buffered="True" filter="trim">
% if dt.kind == "f" and dt.itemsize == 2:
ga_hround(${expr})
% else:
${expr}
% endif
</%def>\
static __device__ __forceinline__ ga_acc_t ga_scan_load(ga_in_t x) { return ${common.convert(common.load("x", in_dt), in_dt, loop_dt)}; }
static __device__ __forceinline__ ga_out_t ga_scan_store(ga_acc_t v) { return ${common.store(common.convert(rounded("v", loop_dt), loop_dt, out_dt), out_dt)}; }
// `a` is the earlier (left) operand, `b` the later one, as in PyCUDA
static __device__ __forceinline__ ga_acc_t ga_scan_op(ga_acc_t a, ga_acc_t b) { return (ga_acc_t)(${scan_expr}); }
% if exclusive:
static __device__ __forceinline__ ga_acc_t ga_scan_neutral() { return (ga_acc_t)(${neutral}); }
% endif

% if kind == "lookback":
<%
    NW = block // 32
    TILE = block * vec * rows
    WSEG = 32 * vec * rows
%>\
#define GA_TILE ${TILE}u
#define GA_NW ${NW}
#define GA_V ${vec}
#define GA_R ${rows}
#define GA_FULL 0xffffffffu
// look-back: descriptors per lane per step (a window of 32 * GA_LB tiles)
#define GA_LB ${lookback}
// descriptor status: X (0: the buffer is zeroed once when allocated, and
// every launch leaves what it used zeroed again, see ga_scratch_done), A, P
#define GA_ST_X 0u
#define GA_ST_A 1u
#define GA_ST_P 2u

// ---- register moves of any type through 32-bit shuffles
template <class T> static __device__ __forceinline__ T ga_shfl_up(T v, unsigned int d) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned int w[W];
    w[W - 1] = 0u;
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = __shfl_up_sync(GA_FULL, w[k], d);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
% if impl == "pipelined":
template <class T> static __device__ __forceinline__ T ga_shfl_xor(T v, int m) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned int w[W];
    w[W - 1] = 0u;
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = __shfl_xor_sync(GA_FULL, w[k], m);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
template <class T> static __device__ __forceinline__ T ga_shfl_down(T v, unsigned int d) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned int w[W];
    w[W - 1] = 0u;
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = __shfl_down_sync(GA_FULL, w[k], d);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
% endif
template <class T> static __device__ __forceinline__ T ga_shfl_idx(T v, int src) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned int w[W];
    w[W - 1] = 0u;
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = __shfl_sync(GA_FULL, w[k], src);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}

// Inclusive warp scan over lanes [start, lane] (start <= lane, the same for
// every lane of a segment): Hillis-Steele, combining only from sources at or
// after `start`, so no neutral element is needed and segments stay apart.
static __device__ __forceinline__ ga_acc_t ga_warp_scan(ga_acc_t v, int lane, int start) {
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const ga_acc_t u = ga_shfl_up(v, (unsigned int)d);
        if (lane - d >= start) v = ga_scan_op(u, v);
    }
    return v;
}

// ---- the scratch buffer: [0] the tile counter, [1] the count of finished
// blocks (v1) or warps (v3), descriptors from byte 16; its bytes used by a
// launch of ntiles tiles
static __device__ __forceinline__ unsigned long long ga_scratch_bytes(unsigned int ntiles) {
% if packed:
    return 16ull + 8ull * ntiles;
% else:
    return ((16ull + 4ull * ntiles + 15ull) & ~15ull) + 2ull * ntiles * sizeof(ga_acc_t);
% endif
}
// Called by a whole warp once it (and, for v1, its block) will touch the
// scratch no more.  Its lane 0 counts it finished: fence.acq_rel.gpu then
// the atomic is a release pattern (PTX memory model), so its descriptor
// loads and stores come first; the warp that finishes last of `total`
// (the atomic then the fence: an acquire pattern) zeroes every byte the
// launch used, counters included, so the next scan on this stream (they
// are ordered) finds it as the host's memset used to leave it, without a
// memset.  No other warp reads or writes the scratch by then.
static __device__ __forceinline__ void ga_scratch_done(unsigned int *scratch, unsigned int ntiles,
                                                       unsigned int total, int lane) {
    __syncwarp();
    unsigned int last = 0u;
    if (lane == 0) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        last = atomicAdd(scratch + 1, 1u) == total - 1u ? 1u : 0u;
    }
    if (__shfl_sync(GA_FULL, last, 0)) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        const unsigned long long bytes = ga_scratch_bytes(ntiles);   // a multiple of 8
        uint4 *p16 = reinterpret_cast<uint4 *>(scratch);
        for (unsigned long long i = lane; i < bytes / 16ull; i += 32ull)
            p16[i] = make_uint4(0u, 0u, 0u, 0u);
        if (lane == 0 && (bytes & 8ull))
            reinterpret_cast<uint2 *>(scratch)[bytes / 8ull - 1ull] = make_uint2(0u, 0u);
    }
}

// ---- descriptors.  All accesses are volatile (never served by L1).
% if packed:
// One 64-bit word per tile: status << 32 | value bits.  An aligned 64-bit
// access is single-copy atomic, so a reader sees a status together with the
// value published with it; nothing else is communicated, no fence needed.
static __device__ __forceinline__ void ga_publish(unsigned long long *desc, unsigned int t,
                                                  unsigned int st, ga_acc_t v) {
    unsigned int bits = 0u;
    memcpy(&bits, &v, sizeof(ga_acc_t));
    const unsigned long long word = ((unsigned long long)st << 32) | bits;
    *(volatile unsigned long long *)(desc + t) = word;
}
static __device__ __forceinline__ unsigned long long ga_poll(const unsigned long long *desc, long long t) {
    return *(const volatile unsigned long long *)(desc + t);
}
static __device__ __forceinline__ ga_acc_t ga_desc_value(unsigned long long word) {
    const unsigned int bits = (unsigned int)word;
    ga_acc_t v;
    memcpy(&v, &bits, sizeof(ga_acc_t));
    return v;
}
% else:
// A status word per tile and two value slots (A: aggregate, P: inclusive
// prefix), each written at most once per launch.  Publishing: value stores,
// ga_fence(), then the status store (release pattern); reading: the
// status, the fence, then the slot the status names (acquire pattern).
static __device__ __forceinline__ void ga_vstore(ga_acc_t *p, ga_acc_t v) {
    constexpr int W = (sizeof(ga_acc_t) + 3) / 4;
    unsigned int w[W];
    memcpy(w, &v, sizeof(ga_acc_t));
    volatile unsigned int *q = (volatile unsigned int *)p;
#pragma unroll
    for (int k = 0; k < W; ++k) q[k] = w[k];
}
static __device__ __forceinline__ ga_acc_t ga_vload(const ga_acc_t *p) {
    constexpr int W = (sizeof(ga_acc_t) + 3) / 4;
    unsigned int w[W];
    const volatile unsigned int *q = (const volatile unsigned int *)p;
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = q[k];
    ga_acc_t v;
    memcpy(&v, w, sizeof(ga_acc_t));
    return v;
}
// fence.acq_rel.gpu: with a strong (volatile) write after it a release
// pattern, with a strong read before it an acquire pattern (PTX memory
// model); __threadfence() would be fence.sc.gpu, stronger than needed.
static __device__ __forceinline__ void ga_fence() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
// a defined value for descriptors that are read but never combined
static __device__ __forceinline__ ga_acc_t ga_zero_value() {
    constexpr int W = (sizeof(ga_acc_t) + 3) / 4;
    unsigned int w[W];
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = 0u;
    ga_acc_t v;
    memcpy(&v, w, sizeof(ga_acc_t));
    return v;
}
static __device__ __forceinline__ void ga_publish(unsigned int *status, ga_acc_t *aval, ga_acc_t *pval,
                                                  unsigned int t, unsigned int st, ga_acc_t v) {
    ga_vstore((st == GA_ST_P ? pval : aval) + t, v);
    ga_fence();
    *(volatile unsigned int *)(status + t) = st;
}
% endif

// The exclusive prefix of `tile` (> 0).  Warp 0 reads a window of the
// 32*GA_LB nearest predecessors' descriptors, lane l holding GA_LB
// consecutive tiles (lane 31's last one: the nearest predecessor), all of a
// lane's loads in flight at once.  It only waits for what it combines: the
// tiles after the newest P in the window (all of them when there is none)
// must leave X; older tiles may still be X.  It then combines that P's
// inclusive prefix with the A aggregates after it (a warp scan from the lane
// holding it), and moves one window further back while no P was seen.
//
// Only the newest P of a window is used and every tile after it is A, so the
// result is P(p) op A(p+1) op ... op A(tile-1): each term is the value
// published with the status read (packed: one atomic word; else the slot the
// status names, written once).  Tile ids come from an atomic counter in
// start order, so every predecessor belongs to a block that is already
// running and publishes A without waiting on anything: every wait ends.
static __device__ __forceinline__ ga_acc_t ga_lookback(
% if packed:
        const unsigned long long *desc,
% else:
        const unsigned int *status, const ga_acc_t *aval, const ga_acc_t *pval,
% endif
        unsigned int tile, int lane) {
    long long top = (long long)tile - 1;
    bool have = false;
    ga_acc_t acc;
    while (true) {
        const long long t0 = top - (32 * GA_LB - 1) + (long long)lane * GA_LB;
        unsigned int st[GA_LB];
% if packed:
        unsigned long long word[GA_LB];
% endif
#pragma unroll
        for (int j = 0; j < GA_LB; ++j) {
            // before tile 0: P, never combined (tile 0 itself is P and newer)
            st[j] = GA_ST_P;
% if packed:
            word[j] = 0ull;
            if (t0 + j >= 0) {
                word[j] = ga_poll(desc, t0 + j);
                st[j] = (unsigned int)(word[j] >> 32);
            }
% else:
            if (t0 + j >= 0) st[j] = *(const volatile unsigned int *)(status + t0 + j);
% endif
        }
        unsigned int pm;
        while (true) {
            // this lane: is any entry P, is any entry after its newest P X
            bool lp = false, lx = false;
#pragma unroll
            for (int j = 0; j < GA_LB; ++j) {
                if (st[j] == GA_ST_P) { lp = true; lx = false; }
                else if (st[j] == GA_ST_X) lx = true;
            }
            pm = __ballot_sync(GA_FULL, lp);
            const unsigned int xm = __ballot_sync(GA_FULL, lx);
            // lanes from the newest lane holding a P up (all: no P) must have
            // no X after their newest P
            const unsigned int need = pm ? (GA_FULL << (31 - __clz(pm))) : GA_FULL;
            if ((xm & need) == 0u) break;
#pragma unroll
            for (int j = 0; j < GA_LB; ++j) {
                if (st[j] == GA_ST_X) {
% if packed:
                    word[j] = ga_poll(desc, t0 + j);
                    st[j] = (unsigned int)(word[j] >> 32);
% else:
                    st[j] = *(const volatile unsigned int *)(status + t0 + j);
% endif
                }
            }
        }
% if not packed:
        // acquire: the value slots named by the statuses read are visible
        ga_fence();
% endif
        // this lane's combination from its newest P (or its first entry)
        ga_acc_t v;
#pragma unroll
        for (int j = 0; j < GA_LB; ++j) {
% if packed:
            const ga_acc_t e = ga_desc_value(word[j]);
% else:
            ga_acc_t e;
            if (t0 + j >= 0 && st[j] != GA_ST_X) e = ga_vload((st[j] == GA_ST_P ? pval : aval) + t0 + j);
            else e = ga_zero_value();   // never combined into the result
% endif
            v = (j == 0 || st[j] == GA_ST_P) ? e : ga_scan_op(v, e);
        }
        const int start = pm ? 31 - __clz(pm) : 0;
        ga_acc_t w = ga_warp_scan(v, lane, start);
        w = ga_shfl_idx(w, 31);
        acc = have ? ga_scan_op(w, acc) : w;
        have = true;
        if (pm) break;
        top -= 32 * GA_LB;
    }
    return acc;
}

% if impl == "block-per-tile":
extern "C" __global__ void __launch_bounds__(${block}, ${min_blocks})
${name}(const ga_in_t *in, ga_out_t *out, unsigned long long n,
        unsigned long long row_len, unsigned int *scratch)
{
    constexpr bool SEG = ${"true" if seg else "false"};
    // scratch: [0] the tile counter, descriptors from byte 16
% if packed:
    unsigned long long *desc = (unsigned long long *)(scratch + 4);
% else:
    unsigned int *status = scratch + 4;
    const unsigned int ntiles = gridDim.x;
    ga_acc_t *aval = (ga_acc_t *)((char *)scratch + ((16u + 4ull * ntiles + 15u) & ~15ull));
    ga_acc_t *pval = aval + ntiles;
% endif
    __shared__ unsigned int s_tile;
    __shared__ ga_acc_t s_wtot[GA_NW];
    __shared__ bool s_wflag[GA_NW];
    __shared__ ga_acc_t s_prefix;

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) s_tile = atomicAdd(scratch, 1u);
    __syncthreads();
    const unsigned int tile = s_tile;
    const unsigned long long base = (unsigned long long)tile * GA_TILE;
    const unsigned long long rem = n - base;
    const bool full = rem >= GA_TILE;
    const int woff = warp * ${WSEG};
    const ga_in_t *src = in + base;
    ga_out_t *dst = out + base;

    // ---- load: warp-striped rows, each lane vec consecutive elements
    ga_acc_t x[GA_R][GA_V];
    if (full) {
#pragma unroll
        for (int r = 0; r < GA_R; ++r) {
            const int o = woff + r * (32 * GA_V) + lane * GA_V;
% if aligned:
            const ga_vec<ga_in_t, GA_V> vv = *reinterpret_cast<const ga_vec<ga_in_t, GA_V> *>(src + o);
#pragma unroll
            for (int e = 0; e < GA_V; ++e) x[r][e] = ga_scan_load(vv.v[e]);
% else:
#pragma unroll
            for (int e = 0; e < GA_V; ++e) x[r][e] = ga_scan_load(src[o + e]);
% endif
        }
    } else {
        // the last tile: indices past the end read the last element; they
        // only ever combine into other past-the-end results
        const int last = (int)rem - 1;
#pragma unroll
        for (int r = 0; r < GA_R; ++r) {
            const int o = woff + r * (32 * GA_V) + lane * GA_V;
#pragma unroll
            for (int e = 0; e < GA_V; ++e) x[r][e] = ga_scan_load(src[min(o + e, last)]);
        }
    }

${scandefs.local_scan()}\
    if (lane == 31) {
        s_wtot[warp] = carry;
        s_wflag[warp] = carry_f;
    }
    __syncthreads();

    // ---- the warp's prefix within the tile, and (warp 0) the tile aggregate
    ga_acc_t wp, agg;
    bool wp_f = false, agg_f = false;
#pragma unroll
    for (int k = 0; k < GA_NW; ++k) {
        if (k == warp) { wp = agg; wp_f = agg_f; }
        const ga_acc_t t = s_wtot[k];
        const bool f = s_wflag[k];
        agg = (k > 0 && !f) ? ga_scan_op(agg, t) : t;
        agg_f = agg_f || f;
    }

    // ---- publish, look back, publish the inclusive prefix
    const bool need_prefix = tile > 0u && !(SEG && bmod == 0ull);
    if (warp == 0) {
        const bool early_p = SEG ? agg_f : tile == 0u;
        if (lane == 0 && full) {
% if packed:
            ga_publish(desc, tile, early_p ? GA_ST_P : GA_ST_A, agg);
% else:
            ga_publish(status, aval, pval, tile, early_p ? GA_ST_P : GA_ST_A, agg);
% endif
        }
        if (need_prefix) {
% if packed:
            const ga_acc_t pre = ga_lookback(desc, tile, lane);
% else:
            const ga_acc_t pre = ga_lookback(status, aval, pval, tile, lane);
% endif
            if (lane == 0) {
                if (!early_p && full) {
% if packed:
                    ga_publish(desc, tile, GA_ST_P, ga_scan_op(pre, agg));
% else:
                    ga_publish(status, aval, pval, tile, GA_ST_P, ga_scan_op(pre, agg));
% endif
                }
                s_prefix = pre;
            }
        }
    }
    __syncthreads();
    // the block is done with the scratch (warp 0 and thread 0 were its only
    // users): count it, the last block clears the scratch
    if (warp == 0) ga_scratch_done(scratch, gridDim.x, gridDim.x, lane);

    // ---- the block prefix of this warp, then each row's full prefix
    ga_acc_t bp;
    bool bp_have = false;
    if (need_prefix) {
        bp = s_prefix;
        bp_have = true;
    }
    if (warp > 0) {
        bp = (bp_have && !wp_f) ? ga_scan_op(bp, wp) : wp;
        bp_have = true;
    }

${scandefs.results_and_stores(aligned)}\
}
% else:
${pipelined.kernel()}\
% endif
% elif kind == "columns":
// One thread per column of an (outer, L, inner) layout: a sequential scan
// down the axis.  Neighbouring threads take neighbouring inner indices, so
// both the loads (for inputs contiguous along inner) and the stores coalesce.
extern "C" __global__ void __launch_bounds__(${block}, ${min_blocks})
${name}(const ga_in_t *in, ga_out_t *out, long long ncols, long long inner,
        long long len, long long s_outer, long long s_len, long long s_inner)
{
    const long long c = (long long)blockIdx.x * ${block} + threadIdx.x;
    if (c >= ncols) return;
    const long long o = c / inner;
    const long long j = c - o * inner;
    const ga_in_t *p = in + o * s_outer + j * s_inner;
    ga_out_t *q = out + o * len * inner + j;
    ga_acc_t acc;
% if exclusive:
    ga_acc_t prev = ga_scan_neutral();
% endif
    long long l = 0;
    for (; l + 4 <= len; l += 4) {
        ga_acc_t v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = ga_scan_load(p[(l + u) * s_len]);
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            acc = (l + u == 0) ? v[u] : ga_scan_op(acc, v[u]);
% if exclusive:
            q[(l + u) * inner] = ga_scan_store(prev);
            prev = acc;
% else:
            q[(l + u) * inner] = ga_scan_store(acc);
% endif
        }
    }
    for (; l < len; ++l) {
        const ga_acc_t v = ga_scan_load(p[l * s_len]);
        acc = (l == 0) ? v : ga_scan_op(acc, v);
% if exclusive:
        q[l * inner] = ga_scan_store(prev);
        prev = acc;
% else:
        q[l * inner] = ga_scan_store(acc);
% endif
    }
}
% endif
