## Advanced indexing (numpy's integer-array and boolean indices): one
## kernel per template instance, chosen by ``kind``.
##
## count    per-tile counts of the nonzero bytes of a C-contiguous bool mask
##          (a tile: ``block`` threads x 16 bytes)
## select   the same tiles again: each selected element finds its position
##          in the result from the inclusive scan of the tile counts and a
##          block-wide scan, then ``action``:
##            gather   out[pos] = src[off(e)]  (items of up to 8 bytes:
##                     staged in shared memory, stored coalesced)
##            scatter  dst[off(e)] = val[pos * vstep]  (vstep 0: one value)
##            coords   co[d * cstep_d + pos * cstep_p] = coordinate d of e
##            offsets  offs[pos] = off(e)
##          off(e): element offset of mask element e (C order over the
##          mask's ``nd`` dims, sizes md_d) through the indexed view's
##          strides ms_d (elements)
## offsets  offs[b] = sum_k j_k(idx_k[b]) * s_k over ``len(idx_ts)`` index
##          arrays of nb elements each (C-contiguous, broadcast already);
##          j_k follows numpy's mode (raise: a bad index is skipped and
##          ``*bad`` is lowered to b * K + k by atomicMin); with
##          ``check_only`` the offsets are not stored (only ``*bad``)
## gather   dst[i] = src[pre(p) + adv(b) + post(q)], i = (p * nb + b) * Q + q
## scatter  dst[pre(p) + adv(b) + post(q)] = src[i]
##          pre/post: C-order decomposition of p and q over ``npre`` and
##          ``npost`` dims (sizes pd_d/qd_d, element strides ps_d/qs_d);
##          adv(b): ``adv == "direct"``: j(idx[b]) * as over one index
##          array (mode as above, bad position b), ``"offsets"``: offs[b]
##          with ``stream``, the index array (or offsets) is loaded and a
##          gather's output stored with the streaming (evict-first) hints:
##          read or written once, they leave L2 to the gathered array
##
## Variables: name, kind, block, and per kind
##   select: action, unit, nd;  offsets: idx_ts (C types), mode, check_only;
##   gather/scatter: unit, adv, idx_t, mode, npre, npost, wide, stream
<%namespace name="common" file="common.cu.mako"/>\
struct __align__(8) ga_unit16 { unsigned long long lo, hi; };

<%def name="index_j(v, n)">\
% if mode == "raise":
            long long j = ${v} < 0 ? ${v} + ${n} : ${v};
            const bool badj = (unsigned long long)j >= (unsigned long long)${n};
            if (badj) j = 0;
% elif mode == "wrap":
            long long j = ${v} % ${n};
            if (j < 0) j += ${n};
            const bool badj = false;
% else:
            const long long j = ${v} < 0 ? 0 : (${v} >= ${n} ? ${n} - 1 : ${v});
            const bool badj = false;
% endif
</%def>

<%def name="elem_off()">\
        // off(e): the element offset of mask element e through the view
        long long off = 0;
% for d in reversed(range(nd)):
% if d:
        off += (e % md${d}) * ms${d};
        e /= md${d};
% else:
        off += e * ms0;
% endif
% endfor
</%def>\

<%def name="tile_bits()">\
    // this thread's 16 mask bytes, as bits in element order
    const long long first = (long long)blockIdx.x * ${block * 16} + threadIdx.x * 16;
    unsigned int bits = 0;
    if (first + 16 <= n) {
        const uint4 w = *reinterpret_cast<const uint4 *>(mask + first);
        const unsigned int ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int b = 0; b < 4; ++b)
                bits |= (((ws[q] >> (8 * b)) & 0xffu) != 0u) << (4 * q + b);
    } else {
        for (int b = 0; b < 16 && first + b < n; ++b)
            bits |= (mask[first + b] != 0) << b;
    }
</%def>

% if kind == "count":
extern "C" __global__ void __launch_bounds__(${block})
${name}(const unsigned char *__restrict__ mask, long long n, long long *__restrict__ counts)
{
${tile_bits()}
    int c = __popc(bits);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        c += __shfl_xor_sync(0xffffffffu, c, o);
    __shared__ int warp_sum[${block // 32}];
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long t = 0;
        for (int w = 0; w < ${block // 32}; ++w) t += warp_sum[w];
        counts[blockIdx.x] = t;
    }
}

% elif kind == "select":
extern "C" __global__ void __launch_bounds__(${block})
${name}(const unsigned char *__restrict__ mask, long long n,
        const long long *__restrict__ tile_cs\
% if action == "gather":
, const ${unit} *__restrict__ src, ${unit} *__restrict__ out\
% elif action == "scatter":
, ${unit} *__restrict__ dst, const ${unit} *__restrict__ val, long long vstep\
% elif action == "coords":
, long long *__restrict__ co, long long cstep_p\
% for d in range(nd):
, long long cstep${d}\
% endfor
% else:
, long long *__restrict__ offs\
% endif
% for d in range(nd):
, long long md${d}, long long ms${d}\
% endfor
)
{
${tile_bits()}
    // exclusive scan of the per-thread counts over the block
    const int c = __popc(bits);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int incl = c;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += y;
    }
    __shared__ int warp_sum[${block // 32}];
    if (lane == 31) warp_sum[warp] = incl;
    __syncthreads();
    int before = 0;
    for (int w = 0; w < warp; ++w) before += warp_sum[w];
<% staged = action == "gather" and unit != "ga_unit16" %>\
% if staged:
    // the tile's selected elements into shared memory in result order,
    // then out by consecutive threads: a thread's run of results starts
    // about 8 elements after its neighbour's, so storing them directly
    // would write a sector an element.  Position p at p + p / 8: the
    // runs' starts fall in distinct banks
    __shared__ ${unit} stage[${block * 18}];
    int tot = before;
    for (int w = warp; w < ${block // 32}; ++w) tot += warp_sum[w];
    int lp = before + incl - c;
    while (bits) {
        const int b = __ffs(bits) - 1;
        bits &= bits - 1;
        long long e = first + b;
${elem_off()}\
        stage[lp + (lp >> 3)] = src[off];
        ++lp;
    }
    __syncthreads();
    const long long tbase = blockIdx.x ? tile_cs[blockIdx.x - 1] : 0;
    for (int i = threadIdx.x; i < tot; i += ${block}) out[tbase + i] = stage[i + (i >> 3)];
% else:
    long long pos = (blockIdx.x ? tile_cs[blockIdx.x - 1] : 0) + before + incl - c;
    while (bits) {
        const int b = __ffs(bits) - 1;
        bits &= bits - 1;
% if nd:
        long long e = first + b;
% endif
% if action == "coords":
% for d in reversed(range(nd)):
        co[${d} * cstep${d} + pos * cstep_p] = ${"e" if d == 0 else "e %% md%d" % d};
% if d:
        e /= md${d};
% endif
% endfor
% else:
${elem_off()}\
% if action == "gather":
        out[pos] = src[off];
% elif action == "scatter":
        dst[off] = val[pos * vstep];
% else:
        offs[pos] = off;
% endif
% endif
        ++pos;
    }
% endif
}

% elif kind == "offsets":
extern "C" __global__ void __launch_bounds__(${block})
${name}(long long nb, unsigned long long *bad, long long *__restrict__ offs\
% for k, t in enumerate(idx_ts):
, const ${t} *__restrict__ idx${k}, long long n${k}, long long s${k}\
% endfor
)
{
    (void)bad;
    const long long stride = (long long)gridDim.x * ${block};
    for (long long b = (long long)blockIdx.x * ${block} + threadIdx.x; b < nb; b += stride) {
        long long o = 0;
% for k in range(len(idx_ts)):
        {
            const long long v = (long long)idx${k}[b];
${index_j("v", "n%d" % k)}
            if (badj) atomicMin(bad, (unsigned long long)b * ${len(idx_ts)} + ${k});
            o += j * s${k};
        }
% endfor
% if check_only:
        (void)o;
        (void)offs;
% else:
        offs[b] = o;
% endif
    }
}

% else:
<% I = "long long" if wide else "int" %>
% if stream:
${common.streaming()}
% endif
extern "C" __global__ void __launch_bounds__(${block})
${name}(long long total, const ${unit} *__restrict__ src, ${unit} *__restrict__ dst, long long nb_\
% if adv == "direct":
, const ${idx_t} *__restrict__ idx, long long an, long long as, unsigned long long *bad\
% else:
, const long long *__restrict__ offs\
% endif
% for d in range(npre):
, long long pd${d}, long long ps${d}\
% endfor
% for d in range(npost):
, long long qd${d}, long long qs${d}\
% endfor
)
{
% if adv == "direct":
    (void)bad;
% endif
    const ${I} nb = (${I})nb_;
    (void)nb;
    // four independent elements per thread and step: their index and
    // source loads are in flight together (random gathers are latency
    // bound)
    const long long stride = (long long)gridDim.x * ${block};
    for (long long i0 = (long long)blockIdx.x * ${block} + threadIdx.x; i0 < total; i0 += 4 * stride) {
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const long long i_ = i0 + u * stride;
        if (i_ >= total) break;
        ${I} t = (${I})i_;
        long long off = 0;
% for d in reversed(range(npost)):
        off += (long long)(t % (${I})qd${d}) * qs${d};
        t /= (${I})qd${d};
% endfor
% if npre:
        const ${I} b = t % nb;
        t /= nb;
% for d in reversed(range(npre)):
% if d:
        off += (long long)(t % (${I})pd${d}) * ps${d};
        t /= (${I})pd${d};
% else:
        off += (long long)t * ps0;
% endif
% endfor
% else:
        const ${I} b = t;
% endif
% if adv == "direct":
        {
            const long long v = (long long)${"ga_ldcs(idx + b)" if stream else "idx[b]"};
${index_j("v", "an")}
            if (badj) {
                atomicMin(bad, (unsigned long long)b);
                continue;
            }
            off += j * as;
        }
% else:
        off += ${"ga_ldcs(offs + b)" if stream else "offs[b]"};
% endif
% if kind == "gather" and stream:
        ga_stcs(dst + i_, src[off]);
% elif kind == "gather":
        dst[i_] = src[off];
% else:
        dst[off] = src[i_];
% endif
      }
    }
}
% endif
