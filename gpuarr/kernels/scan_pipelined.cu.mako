## The pipelined look-back scan kernel (impl "pipelined", sm_90): persistent
## blocks, one an SM, with warp roles and the input staged in shared memory
## by TMA bulk copies.  One def, `kernel`, called by scan.cu.mako with the
## variables it is rendered with (see docs/scan.md).
<%namespace name="scandefs" file="scan_lookback.cu.mako"/>\
<%def name="kernel()">\
<%
    WSEG = 32 * vec * rows
    NC = block // 32
    S = stages
    # per-round slots (tile id, aggregate, prefix and their barriers): a
    # stage is refilled while the consumers still wait for the prefix of the
    # tile it held, so those live in a ring of 2 S slots
    R = 2 * stages
%>\
// mbarriers in shared memory (PTX ISA 8.0, sm_90).  Arrive: release at CTA
// scope; try_wait: acquire at CTA scope, so what a thread wrote before its
// arrive is visible to a thread whose wait saw the phase complete.
static __device__ __forceinline__ unsigned int ga_saddr(const void *p) {
    return (unsigned int)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ void ga_bar_init(unsigned long long *b, unsigned int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(ga_saddr(b)), "r"(count) : "memory");
}
static __device__ __forceinline__ void ga_bar_arrive(unsigned long long *b) {
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}"
                 :: "r"(ga_saddr(b)) : "memory");
}
// arrive and add `bytes` to the transaction count the phase waits for
static __device__ __forceinline__ void ga_bar_arrive_tx(unsigned long long *b, unsigned int bytes) {
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}"
                 :: "r"(ga_saddr(b)), "r"(bytes) : "memory");
}
// wait until the phase of parity `parity` has completed
static __device__ __forceinline__ void ga_bar_wait(unsigned long long *b, unsigned int parity) {
    unsigned int done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(ga_saddr(b)), "r"(parity) : "memory");
    } while (!done);
}
// TMA: copy `bytes` (a multiple of 16, both addresses 16-byte aligned) from
// global to shared memory; completion is counted on the mbarrier `b`
static __device__ __forceinline__ void ga_bulk_load(void *dst, const void *src, unsigned int bytes,
                                                    unsigned long long *b) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(ga_saddr(dst)), "l"(src), "r"(bytes), "r"(ga_saddr(b)) : "memory");
}

// A pipeline of ${S} stages, each a tile of input in shared memory.  Warps:
//   0..${NC - 1}  consumers: scan a tile (v1's layout and local scan), combine
//          with the tile's prefix, store;
//   ${NC}      producer: takes a tile id, starts its TMA load into a free stage;
//   ${NC + 1}, ${NC + 2}  aggregators (alternate tiles): reduce a loaded tile,
//          publish its aggregate (A);
//   ${NC + 3}, ${NC + 4}  look-back (alternate tiles): the tile's exclusive prefix, P.
// A tile id is taken only when its load can start at once and nothing
// delays its A beyond the load and a one-warp reduction, so successors
// waiting on it wait about as long as in v1; meanwhile the block keeps
// several tiles of loads in flight and the look-back of one tile overlaps
// the scan of the previous and the loads of the next.
// Round k (the block's k-th tile) uses stage s = k mod ${S} for its data and
// slot q = k mod ${R} for its tile id, aggregate, prefix and the barriers
// aggr[q], pref[q].  full[s] completes a phase when the id is written and
// the tile has arrived (or at once for the partial last tile and the end
// marker); aggr[q] when A is published; pref[q] when the prefix is in
// s_pre[q]; empty[s] when every consumer thread has read the stage, before
// its prefix is known.  The producer refills stage s for round k once
// empty[s] and aggr[(k - ${S}) mod ${R}] say that the consumers and the
// aggregator of round k - ${S} are done with it, so the stages hold loads
// in flight instead of tiles waiting for their prefixes (the consumers
// wait with the tile in registers).  No barrier runs two phases ahead of a
// waiter: round k + ${S} of a stage needs the consumers to have read round
// k, and round k + ${R} of a slot needs them to have read stage k + ${S}, i.e.
// to have finished round k (prefix included).  As ${S} is even, the
// aggregator or look-back warp that takes round k also took rounds k - ${S}
// and k - ${R}, so none waits on a phase while the one before it is still
// incomplete.
extern "C" __global__ void __launch_bounds__(${block + 160}, 1)
${name}(const ga_in_t *in, ga_out_t *out, unsigned long long n,
        unsigned long long row_len, unsigned int *scratch, unsigned int ntiles)
{
    constexpr bool SEG = ${"true" if seg else "false"};
    // alternate rounds must keep to their stages: see v3_stages()
    static_assert(${S} % 2 == 0, "v3 needs an even number of stages");
% if packed:
    unsigned long long *desc = (unsigned long long *)(scratch + 4);
% else:
    unsigned int *status = scratch + 4;
    ga_acc_t *aval = (ga_acc_t *)((char *)scratch + ((16u + 4ull * ntiles + 15u) & ~15ull));
    ga_acc_t *pval = aval + ntiles;
% endif
    extern __shared__ __align__(128) unsigned char ga_dyn[];
    ga_in_t *stage = (ga_in_t *)ga_dyn;          // ${S} tiles of input
    __shared__ unsigned long long s_full[${S}], s_empty[${S}], s_aggr[${R}], s_pref[${R}];
    __shared__ unsigned int s_tile[${R}];
    __shared__ ga_acc_t s_agg[${R}];
    __shared__ bool s_aggf[${R}];
    __shared__ ga_acc_t s_pre[${R}];
    __shared__ ga_acc_t s_wtot[2][GA_NW];
    __shared__ bool s_wflag[2][GA_NW];

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < ${S}; ++s) {
            ga_bar_init(&s_full[s], 1u);
            ga_bar_init(&s_empty[s], ${block}u);
        }
#pragma unroll
        for (int q = 0; q < ${R}; ++q) {
            // every lane of the aggregator or look-back warp arrives
            ga_bar_init(&s_aggr[q], 32u);
            ga_bar_init(&s_pref[q], 32u);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    const unsigned int nwarps = gridDim.x * (blockDim.x / 32u);
    if (warp == GA_NW) {
        // ---- producer (lane 0; the others wait for it at the end)
        if (lane == 0) {
            bool end = false;
            for (unsigned int k = 0;; ++k) {
                const unsigned int s = k % ${S}u, ph = (k / ${S}u) & 1u;
                if (k >= ${S}u) {
                    ga_bar_wait(&s_empty[s], ph ^ 1u);
                    // the consumers have read the stage; so must the aggregator
                    ga_bar_wait(&s_aggr[(k - ${S}u) % ${R}u], ((k - ${S}u) / ${R}u) & 1u);
                    // their reads were generic-proxy loads, the refill is an
                    // async-proxy write: a proxy fence orders the two (PTX
                    // memory model; the mbarriers order the generic proxy only)
                    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                }
                // past the first id >= ntiles, one more end marker: the
                // aggregator and look-back warps that take odd rounds see one too
                const unsigned int t = end ? 0xffffffffu : atomicAdd(scratch, 1u);
                s_tile[k % ${R}u] = t;
                if (t < ntiles && n - (unsigned long long)t * GA_TILE >= GA_TILE) {
                    constexpr unsigned int BYTES = GA_TILE * (unsigned int)sizeof(ga_in_t);
                    ga_bar_arrive_tx(&s_full[s], BYTES);
                    ga_bulk_load(stage + s * GA_TILE, in + (unsigned long long)t * GA_TILE, BYTES, &s_full[s]);
                } else {
                    ga_bar_arrive(&s_full[s]);
                }
                if (t >= ntiles) {
                    if (end) break;
                    end = true;
                }
            }
        }
        ga_scratch_done(scratch, ntiles, nwarps, lane);
        return;
    }

    if (warp == GA_NW + 1 || warp == GA_NW + 2) {
        // ---- aggregators (two, taking alternate tiles): a full tile's
        // aggregate, from its last row start on when rows are scanned
        for (unsigned int k = warp - (GA_NW + 1);; k += 2u) {
            const unsigned int s = k % ${S}u, ph = (k / ${S}u) & 1u, q = k % ${R}u;
            ga_bar_wait(&s_full[s], ph);
            const unsigned int t = s_tile[q];
            if (t >= ntiles) {
                ga_bar_arrive(&s_aggr[q]);      // each lane: see below
                ga_scratch_done(scratch, ntiles, nwarps, lane);
                return;
            }
            const unsigned long long base = (unsigned long long)t * GA_TILE;
            // the partial last tile publishes nothing: no aggregate needed
            if (n - base >= GA_TILE) {
                // elements before `lh`, the tile's last row start, are
                // left out (SEG); lh = 0 with no row start in the tile
                int lh = 0;
                bool agg_f = false;
                if (SEG) {
                    const unsigned long long bmod = base % row_len;
                    const unsigned long long first = bmod == 0ull ? 0ull : row_len - bmod;
                    if (first < GA_TILE) {
                        lh = (int)(first + (GA_TILE - 1u - first) / row_len * row_len);
                        agg_f = true;
                    }
                }
                const ga_in_t *src = stage + s * GA_TILE;
                ga_acc_t agg;
                bool have;
% if commutative:
                // a commutative operator: each lane folds its column of
                // 32 * GA_V-element steps in four interleaved accumulators,
                // then a butterfly over the lanes
                ga_acc_t a[4];
                bool h[4] = {false, false, false, false};
#pragma unroll 4
                for (int c = 0; c < (int)(GA_TILE / (32 * GA_V)); ++c) {
                    const int o = c * (32 * GA_V) + lane * GA_V;
                    const ga_vec<ga_in_t, GA_V> vv = *reinterpret_cast<const ga_vec<ga_in_t, GA_V> *>(src + o);
#pragma unroll
                    for (int e = 0; e < GA_V; ++e) {
                        if (!SEG || o + e >= lh) {
                            const ga_acc_t x = ga_scan_load(vv.v[e]);
                            a[c & 3] = h[c & 3] ? ga_scan_op(a[c & 3], x) : x;
                            h[c & 3] = true;
                        }
                    }
                }
                agg = a[0];
                have = h[0];
#pragma unroll
                for (int j = 1; j < 4; ++j) {
                    if (h[j]) { agg = have ? ga_scan_op(agg, a[j]) : a[j]; have = true; }
                }
#pragma unroll
                for (int d = 16; d > 0; d >>= 1) {
                    const ga_acc_t u = ga_shfl_xor(agg, d);
                    const bool uh = __shfl_xor_sync(GA_FULL, (int)have, d);
                    if (uh) { agg = have ? ga_scan_op(agg, u) : u; have = true; }
                }
% else:
                // any associative operator: per 32 * GA_V-element step a
                // lane-sequential fold, then a tree over the lanes that
                // keeps their order (lane l holds lanes [l, l + 2d) after
                // step d), 8 steps at a time for independent chains
                have = false;
                for (int c0 = 0; c0 < (int)(GA_TILE / (32 * GA_V)); c0 += 8) {
#pragma unroll
                    for (int c = c0; c < c0 + 8; ++c) {
                        const int o = c * (32 * GA_V) + lane * GA_V;
                        const ga_vec<ga_in_t, GA_V> vv = *reinterpret_cast<const ga_vec<ga_in_t, GA_V> *>(src + o);
                        ga_acc_t v;
                        bool hv = false;
#pragma unroll
                        for (int e = 0; e < GA_V; ++e) {
                            if (!SEG || o + e >= lh) {
                                const ga_acc_t x = ga_scan_load(vv.v[e]);
                                v = hv ? ga_scan_op(v, x) : x;
                                hv = true;
                            }
                        }
#pragma unroll
                        for (int d = 1; d < 32; d <<= 1) {
                            const ga_acc_t u = ga_shfl_down(v, (unsigned int)d);
                            const bool uh = __shfl_down_sync(GA_FULL, (int)hv, d);
                            if (lane + d < 32 && uh) { v = hv ? ga_scan_op(v, u) : u; hv = true; }
                        }
                        if (hv) { agg = have ? ga_scan_op(agg, v) : v; have = true; }
                    }
                }
% endif
                if (lane == 0) {
                    const bool early_p = SEG ? agg_f : t == 0u;
% if packed:
                    ga_publish(desc, t, early_p ? GA_ST_P : GA_ST_A, agg);
% else:
                    ga_publish(status, aval, pval, t, early_p ? GA_ST_P : GA_ST_A, agg);
% endif
                    s_agg[q] = agg;
                    s_aggf[q] = agg_f;
                }
            }
            // every lane arrives after its own reads of the stage and of
            // s_tile[q], so each read is released to the producer's refill
            // and its next s_tile[q] write by the lane that made it.  (Lane
            // 0 arriving for the warp after a __syncwarp is ordered as well
            // by the PTX memory model, but racecheck still reported the
            // refill against these reads: 2026-12-04 and 2026-12-07.)
            ga_bar_arrive(&s_aggr[q]);
        }
    }

    if (warp == GA_NW + 3 || warp == GA_NW + 4) {
        // ---- look-back (two warps, taking alternate tiles)
        for (unsigned int k = warp - (GA_NW + 3);; k += 2u) {
            const unsigned int q = k % ${R}u;
            ga_bar_wait(&s_aggr[q], (k / ${R}u) & 1u);
            const unsigned int t = s_tile[q];
            if (t >= ntiles) {
                ga_bar_arrive(&s_pref[q]);
                ga_scratch_done(scratch, ntiles, nwarps, lane);
                return;
            }
            const unsigned long long base = (unsigned long long)t * GA_TILE;
            const bool full = n - base >= GA_TILE;
            const bool need_prefix = t > 0u && !(SEG && base % row_len == 0ull);
            if (need_prefix) {
% if packed:
                const ga_acc_t pre = ga_lookback(desc, t, lane);
% else:
                const ga_acc_t pre = ga_lookback(status, aval, pval, t, lane);
% endif
                if (lane == 0) {
                    const bool early_p = SEG ? s_aggf[q] : false;
                    if (!early_p && full) {
% if packed:
                        ga_publish(desc, t, GA_ST_P, ga_scan_op(pre, s_agg[q]));
% else:
                        ga_publish(status, aval, pval, t, GA_ST_P, ga_scan_op(pre, s_agg[q]));
% endif
                    }
                    s_pre[q] = pre;
                }
            }
            // as the aggregators': each lane's reads of s_tile[q] (and lane
            // 0's write of s_pre[q]) before its own arrive, which releases
            // the slot
            ga_bar_arrive(&s_pref[q]);
        }
    }

    // ---- consumers: warps 0..GA_NW-1, v1's layout over the staged tile
    for (unsigned int k = 0;; ++k) {
        const unsigned int s = k % ${S}u, ph = (k / ${S}u) & 1u, q = k % ${R}u;
        ga_bar_wait(&s_full[s], ph);
        const unsigned int tile = s_tile[q];
        if (tile >= ntiles) {
            ga_scratch_done(scratch, ntiles, nwarps, lane);
            return;
        }
        const unsigned long long base = (unsigned long long)tile * GA_TILE;
        const unsigned long long rem = n - base;
        const bool full = rem >= GA_TILE;
        const int woff = warp * ${WSEG};
        const ga_in_t *src = stage + s * GA_TILE;
        ga_out_t *dst = out + base;

        ga_acc_t x[GA_R][GA_V];
        if (full) {
#pragma unroll
            for (int r = 0; r < GA_R; ++r) {
                const int o = woff + r * (32 * GA_V) + lane * GA_V;
                const ga_vec<ga_in_t, GA_V> vv = *reinterpret_cast<const ga_vec<ga_in_t, GA_V> *>(src + o);
#pragma unroll
                for (int e = 0; e < GA_V; ++e) x[r][e] = ga_scan_load(vv.v[e]);
            }
        } else {
            const ga_in_t *gsrc = in + base;
            const int last = (int)rem - 1;
#pragma unroll
            for (int r = 0; r < GA_R; ++r) {
                const int o = woff + r * (32 * GA_V) + lane * GA_V;
#pragma unroll
                for (int e = 0; e < GA_V; ++e) x[r][e] = ga_scan_load(gsrc[min(o + e, last)]);
            }
        }
        // done with the stage: the producer may refill it while this tile
        // waits for its prefix (which lives in slot q, not in the stage)
        ga_bar_arrive(&s_empty[s]);
${scandefs.local_scan()}
        if (lane == 31) {
            s_wtot[k & 1u][warp] = carry;
            s_wflag[k & 1u][warp] = carry_f;
        }
        // the consumer warps only (named barrier 1); the totals are double
        // buffered, so one barrier a tile keeps writers and readers apart
        asm volatile("bar.sync 1, ${block};" ::: "memory");
        ga_acc_t wp, agg;
        bool wp_f = false, agg_f = false;
#pragma unroll
        for (int q = 0; q < GA_NW; ++q) {
            if (q == warp) { wp = agg; wp_f = agg_f; }
            const ga_acc_t tt = s_wtot[k & 1u][q];
            const bool f = s_wflag[k & 1u][q];
            agg = (q > 0 && !f) ? ga_scan_op(agg, tt) : tt;
            agg_f = agg_f || f;
        }
        const bool need_prefix = tile > 0u && !(SEG && bmod == 0ull);
        ga_bar_wait(&s_pref[q], (k / ${R}u) & 1u);
        ga_acc_t bp;
        bool bp_have = false;
        if (need_prefix) {
            bp = s_pre[q];
            bp_have = true;
        }

        if (warp > 0) {
            bp = (bp_have && !wp_f) ? ga_scan_op(bp, wp) : wp;
            bp_have = true;
        }
${scandefs.results_and_stores(True)}
    }
}
</%def>\
