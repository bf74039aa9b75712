## One template for every elementwise kernel gpuarr generates.
##
## Variables (all required; see gpuarr/elementwise.py, which builds them):
##   name      kernel name (a C identifier)
##   path      "rows" | "nd" | "transpose" | "user"
##   itype     index type, "int" or "long long"
##   block     threads per block
##   params    [(ctype, name)] the kernel's parameters in order
##   preamble  extra source put before the kernel (user kernels)
## For "rows" / "nd" / "transpose":
##   ops       operand dicts: name, mtype, out, scalar, kind, idx
##             (kind: rows "c" contiguous inner / "0" broadcast inner /
##              "s" strided inner; transpose "T" staged / "s" direct)
##   apply     the per-element function ga_apply(outputs&, inputs), a dict:
##             op (the operation's name in kernels/ops.py), in_dts (each
##             input's dtype in memory; a scalar's is its loop dtype),
##             scalar (flags), loop_in (the loop dtypes inputs convert to),
##             res_dt (the operation's result dtype), res_dts (one per
##             output of an operation with several: frexp, modf), out_dts
##             (outputs'); program (optional): a fused
##             kernels.program.Program computed instead of op, whose
##             inputs are the x<k> of loop_in and whose outputs go to o<k>
##   ndim      number of merged dimensions
##   vec       elements per vector access (1 = scalar accesses)
##   unroll    independent vector accesses per thread per chunk (rows)
##   tile      tile edge (transpose)
## For "user":
##   operation, loop_prep, after_loop; apply is None
##   dense     unit step: exactly sized grid, ``unroll`` indices per thread
##             (``block`` apart), or with vec > 1 ``vec`` consecutive ones
##   aligned   [(pointer name, bytes)] alignments promised when vec > 1
<%!
    from gpuarr._dtypes import ctype, reg_ctype
    from gpuarr.kernels.ops import get_op, op_expression
%>\
<%namespace name="common" file="common.cu.mako"/>\
<%namespace name="fused" file="fused.cu.mako"/>\
${common.types()}
${preamble}
<%
    arrays = [o for o in ops if not o["scalar"]]
    ins = [o for o in ops if not o["out"]]
    outs = [o for o in ops if o["out"]]
    V = vec
    def vt(o):
        return "ga_vec<%s, %d>" % (o["mtype"], V)
%>\
% if path != "user":
<%
    ins_ = list(enumerate(zip(apply["in_dts"], apply["scalar"], apply["loop_in"])))
    res_dt = apply["res_dt"]
%>\
<%def name="result(expr, dt)" buffered="True" filter="trim">
% if dt.kind == "f" and dt.itemsize == 2:
ga_hround((float)(${expr}))
% else:
${expr}
% endif
</%def>\
static __device__ __forceinline__ void ga_apply(\
% for k, dt in enumerate(apply["out_dts"]):
${", " if k else ""}${ctype(dt)} & o${k}\
% endfor
% for k, (dt, sc, ldt) in ins_:
, ${reg_ctype(ldt) if sc else ctype(dt)} a${k}\
% endfor
)
{
% for k, (dt, sc, ldt) in ins_:
% if sc:
    const ${reg_ctype(ldt)} x${k} = a${k};
% else:
    const ${reg_ctype(ldt)} x${k} = ${common.convert(common.load("a%d" % k, dt), dt, ldt)};
% endif
    (void)x${k};
% endfor
% if apply.get("program") is not None:
## a fused program (kernels/program.py): its steps, then one result per output
${fused.body(apply["program"], ["x%d" % k for k, _ in ins_], "ga_v")}\
% for k, dt in enumerate(apply["out_dts"]):
<% j = apply["program"].outputs[k] %>\
    o${k} = ${common.store(common.convert("ga_v%d" % j, apply["program"].steps[j][1], dt), dt)};
% endfor
% elif len(apply["res_dts"]) == 1:
    const ${reg_ctype(res_dt)} r = ${result(op_expression(get_op(apply["op"]), apply["loop_in"], ["x%d" % k for k, _ in ins_]), res_dt)};
% for k, dt in enumerate(apply["out_dts"]):
    o${k} = ${common.store(common.convert("r", res_dt, dt), dt)};
% endfor
% else:
## an operation with one result per output (frexp, modf)
% for k, rdt in enumerate(apply["res_dts"]):
    const ${reg_ctype(rdt)} r${k} = ${result(op_expression(get_op(apply["op"]), apply["loop_in"], ["x%d" % j for j, _ in ins_], k), rdt)};
% endfor
% for k, dt in enumerate(apply["out_dts"]):
    o${k} = ${common.store(common.convert("r%d" % k, apply["res_dts"][k], dt), dt)};
% endfor
% endif
}
% endif

extern "C" __global__ void __launch_bounds__(${block})
${name}(${", ".join("%s %s" % p for p in params)})
{
    typedef ${itype} I;
% if path == "user" and dense:
<%
    # vec > 1: each thread takes vec consecutive indices (the host checked
    # that ga_start is a multiple of vec and each pointer is aligned as
    # listed in ``aligned``); otherwise unroll indices block apart
    copies, apart = (vec, 1) if vec > 1 else (unroll, block)
%>\
% if vec > 1:
    // unit step, vector layout: one block per ${block * vec} indices, each
    // thread takes ${vec} consecutive ones.  The host checked the alignments
    // promised here, so with __restrict__ pointers the compiler merges the
    // copies' accesses into vector loads and stores.
% for pname, align in aligned:
    ${pname} = static_cast<decltype(${pname})>(__builtin_assume_aligned(${pname}, ${align}));
% endfor
    const I ga_base = (ga_start & ~(I)${vec - 1}) + ((I)blockIdx.x * ${block} + (I)threadIdx.x) * ${vec};
% else:
    // unit step: one block per ${block * unroll} indices, each thread takes
    // ${unroll} of them ${block} apart (coalesced).  The copies of the
    // operation are unrolled, so with __restrict__ pointers the compiler
    // issues every load before the first store.
    const I ga_base = ga_start + (I)blockIdx.x * ${block * unroll} + (I)threadIdx.x;
% endif
    (void)ga_step;
    ${loop_prep}
    if (ga_base + ${(copies - 1) * apart} < ga_stop) {
#pragma unroll
        for (int ga_u = 0; ga_u < ${copies}; ++ga_u) {
            I i = ga_base + ga_u * ${apart};
            ${operation};
        }
    } else {
#pragma unroll
        for (int ga_u = 0; ga_u < ${copies}; ++ga_u) {
            I i = ga_base + ga_u * ${apart};
            if (i < ga_stop) {
                ${operation};
            }
        }
    }
    ${after_loop}
% elif path == "user":
    const I ga_nthreads = (I)gridDim.x * blockDim.x;
    I i = ga_start + ((I)blockIdx.x * blockDim.x + threadIdx.x) * ga_step;
    ${loop_prep}
    for (; ga_step > 0 ? i < ga_stop : i > ga_stop; i += ga_nthreads * ga_step) {
        ${operation};
    }
    ${after_loop}
% elif path == "rows":
<%
    chunk = block * unroll * V
    def val(o, u, e):
        # the value of input o for element e of vector u (full chunk)
        if o["scalar"]:
            return o["name"]
        if o["kind"] == "0":
            return "b_%d" % o["idx"]
        if V > 1:
            return "v%d_%d.v[%d]" % (o["idx"], u, e)
        return "v%d_%d" % (o["idx"], u)
    def tval(o):
        # the value of input o at inner index j (tail)
        if o["scalar"]:
            return o["name"]
        if o["kind"] == "0":
            return "b_%d" % o["idx"]
        if o["kind"] == "c":
            return "p%d[j]" % o["idx"]
        return "p%d[j * ist%d]" % (o["idx"], o["idx"])
    def tdst(o):
        if o["kind"] == "c":
            return "p%d[j]" % o["idx"]
        return "p%d[j * ist%d]" % (o["idx"], o["idx"])
%>\
    for (I c = blockIdx.x; c < n_chunks; c += gridDim.x) {
% if ndim == 1:
        const I col0 = c * ${chunk};
% else:
        const I row = c / chunks_per_row;
        const I col0 = (c - row * chunks_per_row) * ${chunk};
        I r = row;
% for o in arrays:
        I off${o["idx"]} = 0;
% endfor
% for d in reversed(range(ndim - 1)):
% if d > 0:
        {
            const I q = r / shape${d};
            const I x = r - q * shape${d};
            r = q;
% for o in arrays:
            off${o["idx"]} += x * ost${o["idx"]}_${d};
% endfor
        }
% else:
% for o in arrays:
        off${o["idx"]} += r * ost${o["idx"]}_0;
% endfor
% endif
% endfor
% endif
% for o in arrays:
        ${"" if o["out"] else "const "}${o["mtype"]} *__restrict__ p${o["idx"]} = ${o["name"]}${"" if ndim == 1 else " + off%d" % o["idx"]};
% endfor
% for o in ins:
% if not o["scalar"] and o["kind"] == "0":
        const ${o["mtype"]} b_${o["idx"]} = p${o["idx"]}[0];
% endif
% endfor
        if (col0 + ${chunk} <= n_inner) {
% for u in range(unroll):
            const I j${u} = col0 + (${u * block} + (I)threadIdx.x) * ${V};
% endfor
% for u in range(unroll):
% for o in ins:
% if not o["scalar"] and o["kind"] != "0":
% if V > 1:
            const ${vt(o)} v${o["idx"]}_${u} = *reinterpret_cast<const ${vt(o)} *>(p${o["idx"]} + j${u});
% elif o["kind"] == "c":
            const ${o["mtype"]} v${o["idx"]}_${u} = p${o["idx"]}[j${u}];
% else:
            const ${o["mtype"]} v${o["idx"]}_${u} = p${o["idx"]}[j${u} * ist${o["idx"]}];
% endif
% endif
% endfor
% endfor
% for u in range(unroll):
            {
% if V > 1:
% for o in outs:
                ${vt(o)} w${o["idx"]};
% endfor
% for e in range(V):
                ga_apply(${", ".join(["w%d.v[%d]" % (o["idx"], e) for o in outs] + [val(o, u, e) for o in ins])});
% endfor
% for o in outs:
                *reinterpret_cast<${vt(o)} *>(p${o["idx"]} + j${u}) = w${o["idx"]};
% endfor
% else:
% for o in outs:
                ${o["mtype"]} w${o["idx"]};
% endfor
                ga_apply(${", ".join(["w%d" % o["idx"] for o in outs] + [val(o, u, 0) for o in ins])});
% for o in outs:
% if o["kind"] == "c":
                p${o["idx"]}[j${u}] = w${o["idx"]};
% else:
                p${o["idx"]}[j${u} * ist${o["idx"]}] = w${o["idx"]};
% endif
% endfor
% endif
            }
% endfor
        } else {
            for (I j = col0 + threadIdx.x; j < n_inner; j += ${block}) {
                ga_apply(${", ".join([tdst(o) for o in outs] + [tval(o) for o in ins])});
            }
        }
    }
% elif path == "nd":
<%
    def ref(o):
        if o["scalar"]:
            return o["name"]
        return "%s[off%d]" % (o["name"], o["idx"])
%>\
    const I stride = (I)gridDim.x * ${block};
    for (I idx = (I)blockIdx.x * ${block} + threadIdx.x; idx < n; idx += stride) {
        I r = idx;
% for o in arrays:
        I off${o["idx"]} = 0;
% endfor
% for d in reversed(range(ndim)):
% if d > 0:
        {
            const I q = r / shape${d};
            const I x = r - q * shape${d};
            r = q;
% for o in arrays:
            off${o["idx"]} += x * ost${o["idx"]}_${d};
% endfor
        }
% else:
% for o in arrays:
        off${o["idx"]} += r * ost${o["idx"]}_0;
% endfor
% endif
% endfor
        ga_apply(${", ".join(ref(o) for o in outs + ins)});
    }
% elif path == "transpose":
<%
    T = tile
    TV = T // V          # vectors along a tile row
    RP = block // TV     # tile rows per pass
    NP = T // RP         # passes
    staged = [o for o in ins if not o["scalar"] and o["kind"] == "T"]
    direct = [o for o in ins if not o["scalar"] and o["kind"] != "T"]
    def fval(o, ii, jj):
        if o["scalar"]:
            return o["name"]
        if o["kind"] == "T":
            return "sm%d[%s][%s]" % (o["idx"], ii, jj)
        return "%s[(i0 + %s) * ost%d_0 + (j0 + %s) * ost%d_1]" % (
            o["name"], ii, o["idx"], jj, o["idx"])
%>\
% for o in staged:
    __shared__ ${o["mtype"]} sm${o["idx"]}[${T}][${T + 1}];
% endfor
    const int tid = threadIdx.x;
    for (I t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const I ty = t / tiles_x;
        const I i0 = ty * ${T};
        const I j0 = (t - ty * tiles_x) * ${T};
        if (i0 + ${T} <= shape0 && j0 + ${T} <= shape1) {
            {
                const int lv = tid % ${TV}, lr = tid / ${TV};
% for p in range(NP):
% for o in staged:
% if V > 1:
                const ${vt(o)} g${o["idx"]}_${p} = *reinterpret_cast<const ${vt(o)} *>(${o["name"]} + (i0 + lv * ${V}) + (j0 + lr + ${p * RP}) * ost${o["idx"]}_1);
% else:
                const ${o["mtype"]} g${o["idx"]}_${p} = ${o["name"]}[(i0 + lv) + (j0 + lr + ${p * RP}) * ost${o["idx"]}_1];
% endif
% endfor
% endfor
% for p in range(NP):
% for o in staged:
% for e in range(V):
                sm${o["idx"]}[lv * ${V} + ${e}][lr + ${p * RP}] = g${o["idx"]}_${p}${".v[%d]" % e if V > 1 else ""};
% endfor
% endfor
% endfor
            }
            __syncthreads();
            {
                const int sv = tid % ${TV}, sr = tid / ${TV};
% for p in range(NP):
                {
                    const int ii = sr + ${p * RP};
% if V > 1:
% for o in outs:
                    ${vt(o)} w${o["idx"]};
% endfor
% for e in range(V):
                    ga_apply(${", ".join(["w%d.v[%d]" % (o["idx"], e) for o in outs] + [fval(o, "ii", "sv * %d + %d" % (V, e)) for o in ins])});
% endfor
% for o in outs:
                    *reinterpret_cast<${vt(o)} *>(${o["name"]} + (i0 + ii) * ost${o["idx"]}_0 + j0 + sv * ${V}) = w${o["idx"]};
% endfor
% else:
                    ga_apply(${", ".join(["%s[(i0 + ii) * ost%d_0 + j0 + sv]" % (o["name"], o["idx"]) for o in outs] + [fval(o, "ii", "sv") for o in ins])});
% endif
                }
% endfor
            }
        } else {
% if staged:
            for (int q = tid; q < ${T * T}; q += ${block}) {
                const int ii = q % ${T}, jj = q / ${T};
                if (i0 + ii < shape0 && j0 + jj < shape1) {
% for o in staged:
                    sm${o["idx"]}[ii][jj] = ${o["name"]}[(i0 + ii) + (j0 + jj) * ost${o["idx"]}_1];
% endfor
                }
            }
            __syncthreads();
% endif
            for (int q = tid; q < ${T * T}; q += ${block}) {
                const int jj = q % ${T}, ii = q / ${T};
                if (i0 + ii < shape0 && j0 + jj < shape1) {
                    ga_apply(${", ".join(["%s[(i0 + ii) * ost%d_0 + j0 + jj]" % (o["name"], o["idx"]) for o in outs] + [fval(o, "ii", "jj") for o in ins])});
                }
            }
        }
        __syncthreads();
    }
% endif
}
