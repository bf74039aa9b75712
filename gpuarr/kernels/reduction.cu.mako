## One template for every reduction kernel gpuarr generates.
##
## The reduction is described as rows: ``n_rows`` outputs (the kept axes,
## "K", merged) each reducing ``L`` elements (the reduced axes, "R",
## merged).  Two paths:
##
##   rows  a group of G threads (a warp, G = 32, or the whole block,
##         G = block) reduces one (row, split) work item; threads stride
##         along the row (16-byte vector loads when the row is contiguous
##         and aligned).  Used for full reductions and for reductions
##         whose reduced axes are innermost in memory.
##   cols  a block is 32 lanes x (block / 32) slices; lane l handles
##         output 32 * tile + l, the slices stride over the reduced
##         index; loads of a warp are consecutive outputs (coalesced).
##         Used when the kept axes are innermost in memory (sum(axis=0)).
##
## Both split a row into ``splits`` segments when there are too few rows
## to fill the GPU; each segment's partial goes to ``ga_part`` and the
## last group to finish a row (atomic ticket in ``ga_ticket``) combines the
## row's partials, writes the result and resets the ticket to 0, so the
## workspace needs no clearing between launches.
##
## Variables (all required; built by gpuarr/reduction.py):
##   name, path ("rows" | "cols"), itype ("int" | "long long"), block
##   min_blocks  resident blocks per SM asked of the compiler (registers)
##   group     G of the rows path (32 or block); ignored for cols
##   vec       elements per vector load (1: scalar loads)
##   unroll    independent loads per thread per step
##   nacc      independent accumulators per thread
##   acc       C type of the accumulator
##   acc_decl  source defining the accumulator type when it is a struct
##   neutral   C expression of the neutral element
##   combine   C statements of ga_combine(A a, A b), ending with a return
##   mode      "values" (built-in: inputs loaded, ga_map(x0, .., idx[, aux]))
##             or "user" (ReductionKernel: map expression of the index i)
##   inputs    [(memory C type, name)] loaded inputs ("values" mode)
##   in_rtypes compute C types of the inputs ("values" mode)
##   map_body  C statements of ga_map, ending with a return
##   user_args [(C type, name)] the user's parameters ("user" mode)
##   user_map  C expression of the mapped value at index i ("user" mode)
##   aux       C type of a per-row auxiliary value read from ga_aux[row]
##             (e.g. the mean in the variance's second pass) or ""
##   final     C expression of the result from accumulator ``a`` (and the
##             double ``ga_scale``), already in the output's compute type
##   out_ctype memory C type of the output
##   store     C expression of the stored value, of ``r``
##   kdim, rdim  merged kept / reduced dimensions (kdim 0: one output)
##   nin       number of strided operands (inputs; 1 virtual one for user)
##   rcontig   the reduced axis is contiguous (stride 1) for every input
##   preamble  extra source (user kernels)
<%namespace name="common" file="common.cu.mako"/>\
${common.types()}
// ---- reduction helpers ----
template <class T> GA_DEV bool ga_isnan_r(T x) { return x != x; }
template <class T> GA_DEV bool ga_isnan_r(ga_complex<T> x) { return x.re != x.re || x.im != x.im; }
template <class T> GA_DEV bool ga_gt(T a, T b) { return a > b; }
template <class T> GA_DEV bool ga_gt(ga_complex<T> a, ga_complex<T> b) { return ga_clt(b, a); }
template <class T> GA_DEV bool ga_lt(T a, T b) { return a < b; }
template <class T> GA_DEV bool ga_lt(ga_complex<T> a, ga_complex<T> b) { return ga_clt(a, b); }
template <class T> GA_DEV T ga_abs_r(T x) { return x < 0 ? -x : x; }
template <class T> GA_DEV T ga_abs_r(ga_complex<T> x) { return ga_hypot(x.re, x.im); }
template <class T> GA_DEV T ga_abs2(T x) { return x * x; }
template <class T> GA_DEV T ga_abs2(ga_complex<T> x) { return x.re * x.re + x.im * x.im; }
GA_DEV float ga_pow_r(float a, float b) { return powf(a, b); }
GA_DEV double ga_pow_r(double a, double b) { return pow(a, b); }
GA_DEV float ga_ninf_f() { return __int_as_float(0xff800000); }
GA_DEV float ga_pinf_f() { return __int_as_float(0x7f800000); }
GA_DEV float ga_nan_f() { return __int_as_float(0x7fc00000); }
GA_DEV double ga_ninf_d() { return __longlong_as_double(0xfff0000000000000ULL); }
GA_DEV double ga_pinf_d() { return __longlong_as_double(0x7ff0000000000000ULL); }
GA_DEV double ga_nan_d() { return __longlong_as_double(0x7ff8000000000000ULL); }
// NVRTC has no <math.h> macros; user expressions may use them
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
// value + first index, for argmax / argmin
template <class V> struct ga_argpair { V v; long long i; };
// shuffle any trivially copyable type as 32-bit words
template <class T> GA_DEV T ga_shfl_down(T v, int d) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned int w[W];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], d);
    memcpy(&v, w, sizeof(T));
    return v;
}
template <class T> GA_DEV T ga_shfl_idx(T v, int src) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned int w[W];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = __shfl_sync(0xffffffffu, w[k], src);
    memcpy(&v, w, sizeof(T));
    return v;
}
// load bypassing L1 (partials written by other blocks)
template <class T> GA_DEV T ga_ldcg(const T *p) {
    T v;
    if constexpr (sizeof(T) % 4 == 0) {
        constexpr int W = sizeof(T) / 4;
        unsigned int w[W];
        const unsigned int *q = reinterpret_cast<const unsigned int *>(p);
#pragma unroll
        for (int k = 0; k < W; ++k) w[k] = __ldcg(q + k);
        memcpy(&v, w, sizeof(T));
    } else if constexpr (sizeof(T) == 2) {
        const unsigned short h = __ldcg(reinterpret_cast<const unsigned short *>(p));
        memcpy(&v, &h, 2);
    } else {
        const unsigned char c = __ldcg(reinterpret_cast<const unsigned char *>(p));
        memcpy(&v, &c, 1);
    }
    return v;
}
// ---- end of reduction helpers ----
${acc_decl}
${preamble}
<%
    G = group if path == "rows" else 32
    GPB = block // G if path == "rows" else 1
    RS = block // 32
    V = vec
    U = unroll
    NACC = nacc
    CHUNK = G * V * U
    ops = list(range(nin))
    def kunravel(var, indent, targets):
        # emit offsets of row index ``var`` over the kept dims for targets
        # (list of (offset variable, stride name prefix))
        lines = []
        pad = " " * indent
        if kdim == 0:
            for (o, p) in targets:
                lines.append("%sconst I %s = 0;" % (pad, o))
            return "\n".join(lines)
        lines.append("%sI ga_r = %s;" % (pad, var))
        for (o, p) in targets:
            lines.append("%sI %s = 0;" % (pad, o))
        for d in reversed(range(kdim)):
            if d > 0:
                lines.append("%s{ const I q = ga_r / kshape%d; const I x = ga_r - q * kshape%d; ga_r = q;" % (pad, d, d))
                for (o, p) in targets:
                    lines.append("%s  %s += x * %s_%d;" % (pad, o, p, d))
                lines.append("%s}" % pad)
            else:
                for (o, p) in targets:
                    lines.append("%s%s += ga_r * %s_0;" % (pad, o, p))
        return "\n".join(lines)
    def roff(k, j):
        # offset of reduced element j for operand k (no K part)
        if rdim == 1:
            if rcontig:
                return j
            return "(%s) * rst%d_0" % (j, k)
        return "ga_roff%d(%s)" % (k, j)
    def mapcall(offs, idx):
        if mode == "user":
            return "ga_map(%s)" % offs[0]
        args = []
        for k in ops:
            args.append(ld(k, "%s[%s]" % (inputs[k][1], offs[k])))
        args.append(idx)
        if aux:
            args.append("ga_auxv")
        return "ga_map(%s)" % ", ".join(args)
    def ld(k, e):
        if inputs[k][0] == "ga_half":
            return "((float)(%s))" % e
        return e
%>\

typedef ${itype} I;
typedef ${acc} A;

static GA_DEV A ga_neutral() { return ${neutral}; }
static GA_DEV A ga_combine(A a, A b) { ${combine} }
% if mode == "values":
static GA_DEV A ga_map(${", ".join(["%s x%d" % (t, k) for k, t in enumerate(in_rtypes)] + ["I idx"] + (["%s aux" % aux] if aux else []))}) { ${map_body} }
% endif

extern "C" __global__ void __launch_bounds__(${block}, ${min_blocks})
${name}(${out_ctype} *__restrict__ ga_out,
% if mode == "values":
% for t, n in inputs:
    const ${t} *__restrict__ ${n},
% endfor
% else:
% for t, n in user_args:
    ${t} ${n},
% endfor
% endif
% if aux:
    const ${aux} *__restrict__ ga_aux,
% endif
    A *__restrict__ ga_part, unsigned int *__restrict__ ga_ticket, double ga_scale,
    I n_items, I splits, I seg, I L, I n_rows
% for d in range(1, kdim):
    , I kshape${d}
% endfor
% for d in range(kdim):
% for k in ops:
    , I kst${k}_${d}
% endfor
    , I ost_${d}
% endfor
% for d in range(1, rdim):
    , I rshape${d}
% endfor
% if not (rdim == 1 and rcontig):
% for d in range(rdim):
% for k in ops:
    , I rst${k}_${d}
% endfor
% endfor
% endif
)
{
% if mode == "user":
    auto ga_map = [&](I i) -> A { return (A)(${user_map}); };
% endif
% if rdim > 1:
% for k in ops:
    auto ga_roff${k} = [&](I j) -> I {
        I off = 0;
% for d in reversed(range(rdim)):
% if d > 0:
        { const I q = j / rshape${d}; off += (j - q * rshape${d}) * rst${k}_${d}; j = q; }
% else:
        off += j * rst${k}_0;
% endif
% endfor
        return off;
    };
% endfor
% endif
% if path == "rows":
    // ----------------------------------------------------------- rows path
% if G > 32:
    __shared__ A ga_sm[${block // 32}];
% endif
    __shared__ int ga_last[${GPB}];
    const int lane = threadIdx.x % ${G};
    const int grp = threadIdx.x / ${G};
    for (I w = (I)blockIdx.x * ${GPB} + grp; w < n_items; w += (I)gridDim.x * ${GPB}) {
        const I row = w / splits;
        const I s = w - row * splits;
${kunravel("row", 8, [("ko%d" % k, "kst%d" % k) for k in ops] + [("oo", "ost")])}
% if aux:
        const ${aux} ga_auxv = ga_aux[row];
% endif
        const I j0 = s * seg;
        const I j1 = (L - j0 < seg) ? L : j0 + seg;
        A acc[${NACC}];
#pragma unroll
        for (int q = 0; q < ${NACC}; ++q) acc[q] = ga_neutral();
        I j = j0;
% if V > 1:
        // contiguous, aligned: ${U} x ${V}-element vector loads per step
% for k in ops:
        const ${inputs[k][0]} *__restrict__ ga_p${k} = ${inputs[k][1]} + ko${k};
% endfor
        for (; j + ${CHUNK} <= j1; j += ${CHUNK}) {
% for u in range(U):
            const I jb${u} = j + (I)(${u * G} + lane) * ${V};
% for k in ops:
            const ga_vec<${inputs[k][0]}, ${V}> v${k}_${u} = *reinterpret_cast<const ga_vec<${inputs[k][0]}, ${V}> *>(ga_p${k} + jb${u});
% endfor
% endfor
% for u in range(U):
% for e in range(V):
<% q = (u * V + e) % NACC %>\
            acc[${q}] = ga_combine(acc[${q}], ga_map(${", ".join([ld(k, "v%d_%d.v[%d]" % (k, u, e)) for k in ops] + ["jb%d + %d" % (u, e)] + (["ga_auxv"] if aux else []))}));
% endfor
% endfor
        }
% elif U > 1:
        for (; j + ${CHUNK} <= j1; j += ${CHUNK}) {
% for u in range(U):
            const I jb${u} = j + (I)(${u * G} + lane);
% endfor
% for u in range(U):
<% q = u % NACC %>\
            acc[${q}] = ga_combine(acc[${q}], ${mapcall(["ko%d + %s" % (k, roff(k, "jb%d" % u)) for k in ops], "jb%d" % u)});
% endfor
        }
% endif
        for (I jj = j + lane; jj < j1; jj += ${G}) {
            acc[0] = ga_combine(acc[0], ${mapcall(["ko%d + %s" % (k, roff(k, "jj")) for k in ops], "jj")});
        }
        // pairwise over the accumulators
% for h in [2 ** p for p in range(10) if 2 ** p < NACC]:
% for q in range(0, NACC, 2 * h):
% if q + h < NACC:
        acc[${q}] = ga_combine(acc[${q}], acc[${q + h}]);
% endif
% endfor
% endfor
        A a = acc[0];
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) a = ga_combine(a, ga_shfl_down(a, d));
% if G > 32:
        if ((threadIdx.x & 31) == 0) ga_sm[threadIdx.x >> 5] = a;
        __syncthreads();
        if (threadIdx.x == 0) {
#pragma unroll
            for (int q = 1; q < ${block // 32}; ++q) a = ga_combine(a, ga_sm[q]);
        }
% endif
        if (splits == 1) {
            if (lane == 0) {
                const A ga_a = a;
                {
                    const A a = ga_a;
                    const auto r = ${final};
                    ga_out[oo] = ${store};
                }
            }
        } else {
            if (lane == 0) {
                ga_part[w] = a;
                __threadfence();
                const unsigned int t = atomicAdd(&ga_ticket[row], 1u);
                ga_last[grp] = (t == (unsigned int)(splits - 1));
            }
% if G > 32:
            __syncthreads();
% else:
            __syncwarp();
% endif
            if (ga_last[grp]) {
                // acquire: the partials of the groups whose tickets came
                // before ours are read after we saw the last ticket
                __threadfence();
                A b = ga_neutral();
                for (I q = lane; q < splits; q += ${G}) b = ga_combine(b, ga_ldcg(ga_part + row * splits + q));
#pragma unroll
                for (int d = 16; d > 0; d >>= 1) b = ga_combine(b, ga_shfl_down(b, d));
% if G > 32:
                __syncthreads();
                if ((threadIdx.x & 31) == 0) ga_sm[threadIdx.x >> 5] = b;
                __syncthreads();
% endif
                if (lane == 0) {
% if G > 32:
#pragma unroll
                    for (int q = 1; q < ${block // 32}; ++q) b = ga_combine(b, ga_sm[q]);
% endif
                    const A a = b;
                    const auto r = ${final};
                    ga_out[oo] = ${store};
                    ga_ticket[row] = 0u;
                }
            }
        }
% if G > 32:
        __syncthreads();
% else:
        __syncwarp();
% endif
    }
% else:
    // ----------------------------------------------------------- cols path
    __shared__ A ga_sm[${RS}][32];
    __shared__ int ga_last;
    const int lane = threadIdx.x & 31;
    const int slice = threadIdx.x >> 5;
    for (I w = blockIdx.x; w < n_items; w += gridDim.x) {
        const I tile = w / splits;
        const I s = w - tile * splits;
        const I o = tile * 32 + lane;
        const bool valid = o < n_rows;
${kunravel("(valid ? o : (I)0)", 8, [("ko%d" % k, "kst%d" % k) for k in ops] + [("oo", "ost")])}
% if aux:
        const ${aux} ga_auxv = ga_aux[valid ? o : (I)0];
% endif
        const I j0 = s * seg;
        const I j1 = (L - j0 < seg) ? L : j0 + seg;
        A acc[${U}];
#pragma unroll
        for (int q = 0; q < ${U}; ++q) acc[q] = ga_neutral();
        if (valid) {
            I j = j0 + slice;
            for (; j + ${(U - 1) * RS} < j1; j += ${U * RS}) {
% for u in range(U):
                const I jb${u} = j + ${u * RS};
% endfor
% for u in range(U):
                acc[${u}] = ga_combine(acc[${u}], ${mapcall(["ko%d + %s" % (k, roff(k, "jb%d" % u)) for k in ops], "jb%d" % u)});
% endfor
            }
            for (; j < j1; j += ${RS}) {
                acc[0] = ga_combine(acc[0], ${mapcall(["ko%d + %s" % (k, roff(k, "j")) for k in ops], "j")});
            }
        }
% for h in [2 ** p for p in range(10) if 2 ** p < U]:
% for q in range(0, U, 2 * h):
% if q + h < U:
        acc[${q}] = ga_combine(acc[${q}], acc[${q + h}]);
% endif
% endfor
% endfor
        ga_sm[slice][lane] = acc[0];
        __syncthreads();
        A a = ga_neutral();
        if (slice == 0) {
            a = ga_sm[0][lane];
#pragma unroll
            for (int q = 1; q < ${RS}; ++q) a = ga_combine(a, ga_sm[q][lane]);
        }
        if (splits == 1) {
            if (slice == 0 && valid) {
                const A ga_a = a;
                {
                    const A a = ga_a;
                    const auto r = ${final};
                    ga_out[oo] = ${store};
                }
            }
        } else {
            if (slice == 0) {
                ga_part[w * 32 + lane] = a;
                __threadfence();
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                const unsigned int t = atomicAdd(&ga_ticket[tile], 1u);
                ga_last = (t == (unsigned int)(splits - 1));
            }
            __syncthreads();
            if (ga_last && slice == 0) {
                __threadfence();    // acquire, as in the rows path
                A b = ga_neutral();
                for (I q = 0; q < splits; ++q) b = ga_combine(b, ga_ldcg(ga_part + (tile * splits + q) * 32 + lane));
                if (valid) {
                    const A a = b;
                    const auto r = ${final};
                    ga_out[oo] = ${store};
                }
                if (lane == 0) ga_ticket[tile] = 0u;
            }
        }
        __syncthreads();
    }
% endif
}
