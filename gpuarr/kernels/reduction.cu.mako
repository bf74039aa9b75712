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
##   mode      "values" (built-in: inputs loaded, ga_map(x0, .., idx[, aux]))
##             or "user" (ReductionKernel: map expression of the index i)
##   op        the built-in reduction (a key of gpuarr.reduction.OPS;
##             "values" mode), which the defs below write the C of
##   in_dts    the inputs' numpy dtypes ("values" mode)
##   map_dts   the dtypes of the values the built-in map reads as x0, x1:
##             in_dts, or a fused program's result dtype
##   fused     None, or a kernels.program.Program (one output) whose value
##             the built-in reduction op reduces; it reads the loaded inputs,
##             then the scalar parameters fused_scalars [(C type, name)]
##   ct        the dtype the inputs' values are converted to
##   acc_dt    the accumulator's dtype; None for argmax/argmin, whose
##             accumulator is a ga_argpair of a val_dt value and an index
##   val_dt    argmax/argmin: the compared values' dtype; else None
##   aux_dt    dtype of a per-row auxiliary value read from ga_aux[row]
##             (the mean in the variance's second pass), or None
##   final_dt  the dtype of the result computed from the accumulator
##   out_dt    the output's dtype (the result is converted to it)
##   inputs    [(memory C type, name)] loaded inputs ("values" mode)
##   user_args [(C type, name)] the user's parameters ("user" mode)
##   user_map  C expression of the mapped value at index i ("user" mode)
##   user_neutral, user_reduce  the user's neutral element and combining
##             expression of ``a`` and ``b`` ("user" mode)
##   kdim, rdim  merged kept / reduced dimensions (kdim 0: one output)
##   nin       number of strided operands (inputs; 1 virtual one for user)
##   rcontig   the reduced axis is contiguous (stride 1) for every input
##   preamble  extra source (user kernels)
##   gathers   [(memory C type, numpy dtype)] of the 1-D arrays the subset
##             reductions (subset_sum, ...) index with their one input's
##             values: parameters ga_g<k> after the inputs, and the element
##             stride ga_gs<k> and length ga_gn<k> (long long) last; [] for
##             every other kernel
##   index_mode  the subset reductions' index rule: "raise" (in range, a
##             negative index counts from the end), "wrap" (modulo the
##             length) or "clip" (clamped); None for every other kernel
<%!
    import numpy as np
    from gpuarr._dtypes import ctype, int_bounds, reg_ctype

    F2, F4, I8, U8 = (np.dtype(t) for t in ("f2", "f4", "i8", "u8"))
    SUMS = ("sum", "prod", "nansum", "mean", "dot", "vdot", "count_nonzero",
            "subset_sum", "subset_dot")
    EXTREMES = ("max", "min", "nanmax", "nanmin")
    SUBSETS = ("subset_sum", "subset_dot", "subset_min", "subset_max")

    def fd(dt):
        """The suffix of gpuarr's float helpers for dtype ``dt``'s parts."""
        return "f" if dt.itemsize <= (8 if dt.kind == "c" else 4) else "d"
%>\
<%namespace name="common" file="common.cu.mako"/>\
<%namespace name="fusedbody" file="fused.cu.mako"/>\
## ---- the C of the built-in reductions (dtypes from reduction.op_dtypes)
## the accumulator's C type
<%def name="acc_ctype()" buffered="True" filter="trim">
% if val_dt is not None:
ga_argpair<${reg_ctype(val_dt)}>
% elif mode == "user":
${ctype(acc_dt)}
% else:
${reg_ctype(acc_dt)}
% endif
</%def>\
## input k's compute value x in dtype ``to`` (float16 computations in float)
<%def name="load_conv(x, k, to)" buffered="True" filter="trim">
% if map_dts[k] == to:
${x}
% else:
${common.convert(x, map_dts[k], F4 if to == F2 else to)}
% endif
</%def>\
## the smallest, largest value and NaN of dtype dt, of C type t
<%def name="lowest(dt, t)" buffered="True" filter="trim">
% if dt == I8:
(-9223372036854775807LL - 1)
% elif dt.kind in "iub":
((${t})${int_bounds(dt)[0]})
% elif dt.kind == "c":
${t}(ga_ninf_${fd(dt)}(), ga_ninf_${fd(dt)}())
% else:
ga_ninf_${fd(dt)}()
% endif
</%def>\
<%def name="highest(dt, t)" buffered="True" filter="trim">
% if dt.kind in "iub":
((${t})${int_bounds(dt)[1]}${"ULL" if dt == U8 else ("LL" if dt == I8 else "")})
% elif dt.kind == "c":
${t}(ga_pinf_${fd(dt)}(), ga_pinf_${fd(dt)}())
% else:
ga_pinf_${fd(dt)}()
% endif
</%def>\
<%def name="nan(dt, t)" buffered="True" filter="trim">
% if dt.kind == "c":
${t}(ga_nan_${fd(dt)}(), ga_nan_${fd(dt)}())
% else:
ga_nan_${fd(dt)}()
% endif
</%def>\
## the better of two values: the greater for maxima, the lesser for minima
<%def name="better()" buffered="True" filter="trim">
${"ga_gt" if op in ("max", "nanmax", "argmax", "absmax", "subset_max") else "ga_lt"}
</%def>\
## a combine keeping the first NaN (nan_first) or the first non-NaN value
<%def name="pick(nan_first)" buffered="True" filter="trim">
% if nan_first:
if (ga_isnan_r(a)) return a; if (ga_isnan_r(b)) return b; return ${better()}(b, a) ? b : a;
% else:
if (ga_isnan_r(b)) return a; if (ga_isnan_r(a)) return b; return ${better()}(b, a) ? b : a;
% endif
</%def>\
<%def name="neutral()" buffered="True" filter="trim">
<% A = acc_ctype() %>\
% if op == "prod":
(A)1
% elif op in SUMS or op in ("var", "std", "sumsq", "abssum", "absmax"):
(A)0
% elif op in ("nanmax", "nanmin") and acc_dt.kind in "fc":
${nan(acc_dt, A)}
% elif op in ("max", "nanmax", "subset_max"):
${lowest(acc_dt, A)}
% elif op in ("min", "nanmin", "absmin", "subset_min"):
${highest(acc_dt, A)}
% elif op in ("any", "all"):
${"0" if op == "any" else "1"}
% elif op in ("argmax", "argmin"):
A{${(lowest if op == "argmax" else highest)(val_dt, reg_ctype(val_dt))}, 9223372036854775807LL}
% endif
</%def>\
<%def name="combine()" buffered="True" filter="trim">
% if op == "prod" and ct.kind == "b":
return a & b;
% elif op == "prod" and ct.kind == "i":
return (A)((unsigned long long)a * (unsigned long long)b);
% elif op == "prod":
return a * b;
% elif op in SUMS and ct.kind == "b" and op != "count_nonzero":
return a | b;
% elif op in SUMS and acc_dt == I8:
return (A)((unsigned long long)a + (unsigned long long)b);
% elif op in SUMS or op in ("var", "std", "sumsq", "abssum"):
return a + b;
% elif op in ("max", "min", "absmax", "absmin", "subset_max", "subset_min"):
${pick(True)}
% elif op in ("nanmax", "nanmin"):
${pick(False)}
% elif op in ("any", "all"):
${"return a | b;" if op == "any" else "return a & b;"}
% elif op in ("argmax", "argmin"):
const bool an = ga_isnan_r(a.v), bn = ga_isnan_r(b.v); if (an || bn) { if (an && bn) return a.i <= b.i ? a : b; return an ? a : b; } if (${better()}(b.v, a.v)) return b; if (${better()}(a.v, b.v)) return a; return a.i <= b.i ? a : b;
% endif
</%def>\
<%def name="map_body()" buffered="True" filter="trim">
% if op in SUBSETS:
% for k in range(len(gathers)):
${gather_index(k)}
% endfor
% if op == "subset_dot" and ct.kind == "b":
return (A)((ga_nonzero(${gathered(0)}) && ga_nonzero(${gathered(1)})) ? 1 : 0);
% elif op == "subset_dot" and ct.kind in "iu":
return (A)((unsigned long long)(A)(${gather_conv(0, ct)}) * (unsigned long long)(A)(${gather_conv(1, ct)}));
% elif op == "subset_dot":
return (A)(${gather_conv(0, ct)}) * (A)(${gather_conv(1, ct)});
% elif op == "subset_sum" and ct.kind == "b":
return (A)(ga_nonzero(${gathered(0)}) ? 1 : 0);
% elif op == "subset_sum":
return (A)(${gather_conv(0, ct)});
% else:
return (A)(${gathered(0)});
% endif
% elif op == "count_nonzero":
return (A)(ga_nonzero(x0) ? 1 : 0);
% elif op in ("dot", "vdot") and ct.kind == "b":
return (A)((ga_nonzero(x0) && ga_nonzero(x1)) ? 1 : 0);
% elif op in ("dot", "vdot"):
<%
    x = load_conv("x0", 0, ct)
    y = load_conv("x1", 1, ct)
%>\
% if op == "vdot" and ct.kind == "c":
<% x = conj(x) %>\
% endif
% if ct.kind in "iu":
return (A)((unsigned long long)(A)(${x}) * (unsigned long long)(A)(${y}));
% else:
return (A)(${x}) * (A)(${y});
% endif
% elif op in SUMS and ct.kind == "b":
return ${nan_skipped("(A)(ga_nonzero(x0) ? 1 : 0)")};
% elif op in SUMS:
return ${nan_skipped("(A)(" + load_conv("x0", 0, ct) + ")")};
% elif op in EXTREMES:
return (A)(x0);
% elif op in ("any", "all"):
return ga_nonzero(x0) ? 1 : 0;
% elif op in ("argmax", "argmin"):
A r; r.v = (${reg_ctype(val_dt)})(x0); r.i = (long long)idx; return r;
% elif op in ("var", "std"):
return ga_abs2((${aux})(${load_conv("x0", 0, ct)}) - aux);
% elif op == "sumsq":
return (A)ga_abs2(${load_conv("x0", 0, ct)});
% else:
return (A)ga_abs_r(${load_conv("x0", 0, ct)});
% endif
</%def>\
## the subset reductions: the element of gathered array k the index x0
## names (numpy's a[subset]: ``index_mode`` says what an index outside
## [0, n) does), its value, and that value in dtype ``to``
<%def name="gather_index(k)" buffered="True" filter="trim">
<% n = "ga_gn%d" % k %>\
% if index_mode == "wrap" and in_dts[0].kind == "u":
const long long ga_j${k} = (long long)((unsigned long long)x0 % (unsigned long long)${n});
% elif index_mode == "wrap":
long long ga_j${k} = (long long)x0 % ${n}; if (ga_j${k} < 0) ga_j${k} += ${n};
% elif index_mode == "clip" and in_dts[0].kind == "u":
const long long ga_j${k} = (unsigned long long)x0 >= (unsigned long long)${n} ? ${n} - 1 : (long long)x0;
% elif index_mode == "clip":
const long long ga_j${k} = x0 < 0 ? 0LL : ((long long)x0 >= ${n} ? ${n} - 1 : (long long)x0);
% elif in_dts[0].kind == "u":
const long long ga_j${k} = (long long)x0;
% else:
const long long ga_j${k} = x0 < 0 ? (long long)x0 + ${n} : (long long)x0;
% endif
</%def>\
<%def name="gathered(k)" buffered="True" filter="trim">
${common.load("ga_g%d[ga_j%d * ga_gs%d]" % (k, k, k), gathers[k][1])}
</%def>\
<%def name="gather_conv(k, to)" buffered="True" filter="trim">
<% dt = gathers[k][1] %>\
% if dt == to:
${gathered(k)}
% else:
${common.convert(gathered(k), dt, F4 if to == F2 else to)}
% endif
</%def>\
<%def name="conj(x)" buffered="True" filter="trim">
ga_conj(${x})
</%def>\
## nansum skips NaN values of float and complex inputs
<%def name="nan_skipped(v)" buffered="True" filter="trim">
% if op == "nansum" and map_dts[0].kind in "fc":
(ga_isnan_r(x0) ? (A)0 : ${v})
% else:
${v}
% endif
</%def>\
## the result from accumulator ``a`` (and the double ``ga_scale``)
<%def name="final()" buffered="True" filter="trim">
% if mode == "user" or op not in ("mean", "var", "std", "argmax", "argmin", "sumsq"):
a
% elif op == "mean" and acc_dt.kind == "c":
ga_complex<double>((double)a.re / ga_scale, (double)a.im / ga_scale)
% elif op in ("mean", "var"):
((double)a / ga_scale)
% elif op == "std":
sqrt((double)a / ga_scale)
% elif op == "sumsq":
ga_sqrtr(a)
% else:
a.i
% endif
</%def>\
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
${preamble}
<%
    aux = reg_ctype(aux_dt) if aux_dt is not None else ""
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
        return common.load(e, in_dts[k])
%>\

typedef ${itype} I;
typedef ${acc_ctype()} A;

% if mode == "values":
static GA_DEV A ga_neutral() { return ${neutral()}; }
static GA_DEV A ga_combine(A a, A b) { ${combine()} }
% if not gathers and fused is None:
static GA_DEV A ga_map(${", ".join(["%s x%d" % (reg_ctype(d), k) for k, d in enumerate(in_dts)] + ["I idx"] + (["%s aux" % aux] if aux else []))}) { ${map_body()} }
% endif
% else:
static GA_DEV A ga_neutral() { return (A)(${user_neutral}); }
static GA_DEV A ga_combine(A a, A b) { return (A)(${user_reduce}); }
% endif

extern "C" __global__ void __launch_bounds__(${block}, ${min_blocks})
${name}(${ctype(out_dt)} *__restrict__ ga_out,
% if mode == "values":
% for t, n in inputs:
    const ${t} *__restrict__ ${n},
% endfor
% else:
% for t, n in user_args:
    ${t} ${n},
% endfor
% endif
% for k, (t, d) in enumerate(gathers):
    const ${t} *__restrict__ ga_g${k},
% endfor
% for t, n in fused_scalars:
    ${t} ${n},
% endfor
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
% for k in range(len(gathers)):
    , long long ga_gs${k}, long long ga_gn${k}
% endfor
)
{
% if mode == "user":
    auto ga_map = [&](I i) -> A { return (A)(${user_map}); };
% elif gathers:
    auto ga_map = [&](${reg_ctype(in_dts[0])} x0, I idx) -> A { (void)idx; ${map_body()} };
% elif fused is not None:
    // the fused program's value (x0) of the loaded inputs a<k>, then the
    // reduction's own map of it
    auto ga_map = [&](${", ".join(["%s a%d" % (reg_ctype(d), k) for k, d in enumerate(in_dts)] + ["I idx"])}) -> A {
        (void)idx;
${fusedbody.body(fused, ["a%d" % k for k in range(nin)] + [n for t, n in fused_scalars], "ga_v")}\
        const ${reg_ctype(map_dts[0])} x0 = ga_v${fused.outputs[0]};
        ${map_body()}
    };
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
                    const auto r = ${final()};
                    ga_out[oo] = ${common.store(common.convert("r", final_dt, out_dt), out_dt)};
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
                    const auto r = ${final()};
                    ga_out[oo] = ${common.store(common.convert("r", final_dt, out_dt), out_dt)};
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
                    const auto r = ${final()};
                    ga_out[oo] = ${common.store(common.convert("r", final_dt, out_dt), out_dt)};
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
                    const auto r = ${final()};
                    ga_out[oo] = ${common.store(common.convert("r", final_dt, out_dt), out_dt)};
                }
                if (lane == 0) ga_ticket[tile] = 0u;
            }
        }
        __syncthreads();
    }
% endif
}
