## Unbuffered scatter (numpy's ufunc.at: add.at, subtract.at as add of
## negated values, multiply.at, maximum.at, minimum.at): for every index
## position b and block element (p, q),
##     dst[pre(p) + offs[b] + post(q)] = op(dst[...], val[i])
## atomically, so repeated indices all apply.  val is C-contiguous over
## (pre, b, post) and already of dst's dtype.  Atomics: native atomicAdd
## for 4- and 8-byte integers and floats and per part for complex add; a
## compare-and-swap loop on the item (2, 4 or 8 bytes) otherwise.  1-byte
## destinations are not taken (the caller updates a 4-byte copy: a CAS on
## the word holding a byte would read bytes outside the array).  numpy's
## results: integers wrap, float16 rounds once from float, maximum/minimum
## propagate NaN, complex maximum/minimum order lexicographically.
##
## Variables: name, dt (numpy dtype of dst), op ("add", "multiply",
## "maximum", "minimum"), npre, npost, wide, block, idx_t (the C type of
## the one index array read directly; empty: precomputed offsets), checked
## (with idx_t: the kernel checks each index itself, skips a bad one and
## keeps the first bad position in *bad, as the offsets kernel's check
## does; the caller gives it a scratch copy of the destination, so that a
## bad index leaves the destination as it was; else the entries were
## checked before the launch).
##
## Each thread takes four positions a step, their index and value loads
## issued before any of the four updates, so that more loads are in flight
## than one a thread.
<%namespace name="common" file="common.cu.mako"/>\
${common.types()}
<%!
    from gpuarr._dtypes import ctype, reg_ctype
%>\
<%
    T = ctype(dt)          # storage type
    R = reg_ctype(dt)      # compute type
    I = "long long" if wide else "int"
    size = dt.itemsize
    native = op == "add" and (dt.kind in "iu" and size in (4, 8) or
                              dt.kind == "f" and size in (4, 8))
    parts = op == "add" and dt.kind == "c"
    W = {8: "unsigned long long", 4: "unsigned int", 2: "unsigned short"}.get(size)
%>\

// the operation in compute type (numpy's loops)
GA_DEV ${R} ga_at_op(${R} a, ${R} b)
{
% if op == "add" and dt.kind in "iu":
    return (${R})((unsigned long long)a + (unsigned long long)b);
% elif op == "multiply" and dt.kind in "iu":
    return (${R})((unsigned long long)a * (unsigned long long)b);
% elif op == "add":
    return a + b;
% elif op == "multiply":
    return a * b;
% elif dt.kind in "iu":
    return ${"a > b" if op == "maximum" else "a < b"} ? a : b;
% elif dt.kind == "f":
    return (a != a) ? a : ((b != b) ? b : (${"a > b" if op == "maximum" else "a < b"} ? a : b));
% else:
    // numpy's complex maximum/minimum: NaN first, then lexicographic
    if (a.re != a.re || a.im != a.im) return a;
    if (b.re != b.re || b.im != b.im) return b;
    return ${"ga_clt(b, a)" if op == "maximum" else "ga_clt(a, b)"} ? a : b;
% endif
}

GA_DEV void ga_at(${T} *p, ${T} v)
{
% if native:
    atomicAdd(${"(unsigned long long *)p, (unsigned long long)v" if dt.kind in "iu" and size == 8 else ("(unsigned int *)p, (unsigned int)v" if dt.kind in "iu" else "p, v")});
% elif parts:
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
% else:
    ${W} *w = reinterpret_cast<${W} *>(p);
    ${W} old = *w, assumed;
    do {
        assumed = old;
        ${T} cur;
        memcpy(&cur, &assumed, ${size});
        const ${T} nv = ${common.store("ga_at_op(%s, %s)" % (common.load("cur", dt), common.load("v", dt)), dt)};
        ${W} bits;
        memcpy(&bits, &nv, ${size});
        old = atomicCAS(w, assumed, bits);
    } while (old != assumed);
% endif
}

extern "C" __global__ void __launch_bounds__(${block})
${name}(long long total, const ${T} *__restrict__ val, ${T} *dst, long long nb_,
% if idx_t:
        const ${idx_t} *__restrict__ idx, long long an, long long as\
% if checked:
, unsigned long long *bad\
% endif
% else:
        const long long *__restrict__ offs\
% endif
% for d in range(npre):
, long long pd${d}, long long ps${d}\
% endfor
% for d in range(npost):
, long long qd${d}, long long qs${d}\
% endfor
)
{
    const ${I} nb = (${I})nb_;
    (void)nb;
    const long long stride = (long long)gridDim.x * ${block};
    for (long long i0 = (long long)blockIdx.x * ${block} + threadIdx.x; i0 < total; i0 += 4 * stride) {
        long long offu[4];
        ${I} bq[4];
        bool ok[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const long long i_ = i0 + u * stride;
            ok[u] = i_ < total;
            ${I} t = (${I})(ok[u] ? i_ : i0);
            offu[u] = 0;
% for d in reversed(range(npost)):
            offu[u] += (long long)(t % (${I})qd${d}) * qs${d};
            t /= (${I})qd${d};
% endfor
% if npre:
            bq[u] = t % nb;
            t /= nb;
% for d in reversed(range(npre)):
            offu[u] += (long long)(t % (${I})pd${d}) * ps${d};
            t /= (${I})pd${d};
% endfor
% else:
            bq[u] = t;
% endif
        }
        // the index loads of the four, then the value loads, then the
        // updates (a check between one element's loads and the next's
        // would keep one load in flight a thread)
% if idx_t:
        long long vq[4];
#pragma unroll
        for (int u = 0; u < 4; ++u)
            vq[u] = ok[u] ? (long long)idx[bq[u]] : 0;
% endif
        ${T} vu[4];
#pragma unroll
        for (int u = 0; u < 4; ++u)
            if (ok[u]) vu[u] = val[i0 + u * stride];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
% if idx_t:
            const long long j = vq[u] < 0 ? vq[u] + an : vq[u];
% if checked:
            if (ok[u] && (unsigned long long)j >= (unsigned long long)an) {
                atomicMin(bad, (unsigned long long)bq[u]);
                ok[u] = false;
            }
% endif
            offu[u] += j * as;      // ${"checked above" if checked else "checked before the launch"}
% else:
            if (ok[u]) offu[u] += offs[bq[u]];
% endif
        }
#pragma unroll
        for (int u = 0; u < 4; ++u)
            if (ok[u])
                ga_at(dst + offu[u], vu[u]);
    }
}
