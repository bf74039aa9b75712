## Random numbers: Philox4x32-10 computed in-kernel from (key, counter).
##
## One kernel per (dist, dtype, affine):
##   dist    "uniform" | "normal" | "exponential" | "integers"
##   ctype   C type of the output elements (float, double, any integer, bool)
##   per     values per Philox block: 4 (32-bit words) or 2 (64-bit words)
##   affine  uniform/normal: out = a + b * x; exponential: out = b * x;
##           False: out = x (random, standard_normal, exponential(1))
##   ptype   C type of the scalar parameters a, b (the output's float type,
##           or unsigned long long for integers: a = low bits, b = count)
##   name    kernel name
##   f64_math  "library" (CUDA's log, sincospi) or "own" (f64math.cu.mako:
##           constants in constant memory) for the float64 normals and
##           exponentials; gpuarr.random.F64_MATH picks one
##   impl    "warp-chunks" (default): two Philox blocks per thread per step, full
##           64-block chunks per warp without bounds checks, the rest after;
##           "grid-stride": one guarded block per step.  Both
##           give the same values (same element -> counter mapping and the
##           same arithmetic per block); gpuarr.random.IMPL picks one.
##
## The bit-exact definition of every value is gpuarr/_philox.py (CPU
## reference); keep the two in step.  Element k uses Philox block
## offset + k / per with counter (lo32, hi32, attempt = 0, 0).
<%namespace name="common" file="common.cu.mako"/>
<%namespace name="f64math" file="f64math.cu.mako"/>
${common.types()}
% if ctype == "double" and f64_math == "own" and dist in ("normal", "exponential"):
${f64math.functions()}
% endif
<%
    import numpy as _np
    from gpuarr._philox import NEG2LOG_F32 as Q, NEG2LN2_F32, TWO_PI_F32
    TWO_PI_HALF_STEP = float(_np.float32(TWO_PI_F32) * _np.float32(2.0 ** -24))
    def f32(v):
        return float(v).hex() + "f"
    T = ctype
    P = ptype
    nvec = min(per, 16 // itemsize)      # values per vector store
    nstores = per // nvec
%>
// Philox4x32-10 (Salmon et al., SC'11): ten rounds of two 32x32->64
// multiplies and a Feistel-like mix; the key gets the Weyl increments
// between rounds.
// The key schedule: ks.k[2r], ks.k[2r+1] is the key of round r
// (k0 + r * 0x9E3779B9, k1 + r * 0xBB67AE85).  The host computes it and
// passes it as 20 kernel parameters, so that the XORs read it straight from
// the constant bank instead of recomputing it every iteration.
struct ga_keys { unsigned int k[20]; };

GA_DEV uint4 ga_philox4x32_10(unsigned int c0, unsigned int c1,
                              unsigned int c2, unsigned int c3,
                              const ga_keys &ks)
{
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        const unsigned int h0 = __umulhi(0xD2511F53u, c0);
        const unsigned int l0 = 0xD2511F53u * c0;
        const unsigned int h1 = __umulhi(0xCD9E8D57u, c2);
        const unsigned int l1 = 0xCD9E8D57u * c2;
        c0 = h1 ^ c1 ^ ks.k[2 * r];
        c1 = l1;
        c2 = h0 ^ c3 ^ ks.k[2 * r + 1];
        c3 = l0;
    }
    return make_uint4(c0, c1, c2, c3);
}

GA_DEV unsigned int ga_lane(uint4 w, int i)
{
    return i == 0 ? w.x : i == 1 ? w.y : i == 2 ? w.z : w.w;
}

GA_DEV unsigned long long ga_join(unsigned int lo, unsigned int hi)
{
    return (unsigned long long)lo | ((unsigned long long)hi << 32);
}

% if T == "float":
// [0, 1): top 24 bits * 2^-24 (exact)
GA_DEV float ga_u01(unsigned int w)
{
    return __uint2float_rn(w >> 8) * 0x1p-24f;
}
// (0, 1]: fma(float(w), 2^-32, 2^-33), smallest 2^-33
GA_DEV float ga_open01(unsigned int w)
{
    return __fmaf_rn(__uint2float_rn(w), 0x1p-32f, 0x1p-33f);
}
// -2 ln(u) for u in [2^-33, 1] (never 0, subnormal, inf or NaN, so no
// special cases): u = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits,
// g = 2 - 2m (exact), -2 ln m = g + g^2 Q(g) (Q: gpuarr._philox.NEG2LOG_F32),
// plus k (-2 ln 2).  Every operation is an explicit IEEE one, so
// gpuarr._philox.neg2log_f32 reproduces the result bit for bit; it is within
// 1.14 ulp of the exact value, and u = 1 gives +0.
GA_DEV float ga_neg2log(float u)
{
    const int i = __float_as_int(u);
    const int kb = (int)((unsigned int)(i - 0x3f3504f3) & 0xff800000u);
    const float m = __int_as_float(i - kb);
    const float k = __int2float_rn(kb >> 23);
    const float g = __fmaf_rn(m, -2.0f, 2.0f);
    const float s = __fmul_rn(g, g);
    float q = ${f32(Q[-1])};
% for c in reversed(Q[:-1]):
    q = __fmaf_rn(q, g, ${f32(c)});
% endfor
    return __fmaf_rn(k, ${f32(NEG2LN2_F32)}, __fmaf_rn(s, q, g));
}
// The normals' radius sqrt(-2 ln u) for u in [2^-33, 1] from two hardware
// approximations (MUFU.LG2 and MUFU.SQRT, one instruction each):
// lg2.approx's error is absolute, at most 2^-22, for u in [0.5, 1] and 2 ulp
// below, so -2 ln u is within ~4e-7 absolute (clamped at 0) or 2^-21
// relative; the square root adds ~1 ulp.  Far cheaper than ga_neg2log's
// polynomial (which exponential keeps, bit-exact); the bound the GPU tests
// check is gpuarr._philox.normal_f32_bound.
GA_DEV float ga_radius_fast(float u)
{
    float l, r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(u));
    const float t = fmaxf(__fmul_rn(l, ${f32(NEG2LN2_F32)}), 0.0f);
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    return r;
}
// Angle 2 pi ((j + 1/2) 2^-23 - 1/2) from the top 23 bits j of a word:
// j 2^-23 - 1/2 is exact from the bits (no conversion instruction), one
// fma scales it; the result lies strictly inside (-pi, pi), where
// __sinf/__cosf are within 2^-21.41/2^-21.19 (absolute) of sin/cos of it.
GA_DEV float ga_angle(unsigned int w)
{
    const float v = __fadd_rn(__int_as_float(0x3f800000u | (w >> 9)), -1.5f);
    return __fmaf_rn(v, ${f32(TWO_PI_F32)}, ${f32(TWO_PI_HALF_STEP)});
}
% elif T == "double":
// [0, 1): top 53 bits * 2^-53 (exact)
GA_DEV double ga_u01(unsigned long long w)
{
    return (double)(w >> 11) * 0x1p-53;
}
// (0, 1]: (top 53 bits + 1) * 2^-53 (exact), smallest 2^-53
GA_DEV double ga_open01(unsigned long long w)
{
    return ((double)(w >> 11) + 1.0) * 0x1p-53;
}
% endif

// The ${per} values of block `blk` (Philox output `w`) into v[].
GA_DEV void ga_block_values(uint4 w, unsigned long long blk,
                            const ga_keys &ks,
                            ${P} a, ${P} b, unsigned long long thresh,
                            ${T} *v)
{
% if dist == "uniform":
  % if T == "float":
    const float u[4] = {ga_u01(w.x), ga_u01(w.y), ga_u01(w.z), ga_u01(w.w)};
  % else:
    const double u[2] = {ga_u01(ga_join(w.x, w.y)), ga_u01(ga_join(w.z, w.w))};
  % endif
  % for i in range(per):
    % if affine:
    v[${i}] = ${"__fadd_rn(a, __fmul_rn(b, u[%d]))" % i if T == "float" else "__dadd_rn(a, __dmul_rn(b, u[%d]))" % i};
    % else:
    v[${i}] = u[${i}];
    % endif
  % endfor
% elif dist == "normal":
  % if T == "float":
    // Box-Muller on word pairs (x, y) and (z, w): both outputs used.
    float z[4];
    {
        const unsigned int wa[2] = {w.x, w.z}, wb[2] = {w.y, w.w};
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const float r = ga_radius_fast(ga_open01(wa[j]));
            float s, c;
            __sincosf(ga_angle(wb[j]), &s, &c);
            z[2 * j] = __fmul_rn(r, c);
            z[2 * j + 1] = __fmul_rn(r, s);
        }
    }
  % else:
    double z[2];
    {
        const double u1 = ga_open01(ga_join(w.x, w.y));
        const double t = (double)(ga_join(w.z, w.w) >> 11) * 0x1p-52;  // [0, 2)
        double s, c;
    % if f64_math == "own":
        ga_sincospi_f64(t, &s, &c);
        const double r = sqrt(ga_neg2log_f64(u1));
    % else:
        sincospi(t, &s, &c);
        const double r = sqrt(-2.0 * log(u1));
    % endif
        z[0] = __dmul_rn(r, c);
        z[1] = __dmul_rn(r, s);
    }
  % endif
  % for i in range(per):
    % if affine:
    v[${i}] = ${"__fadd_rn(a, __fmul_rn(b, z[%d]))" % i if T == "float" else "__dadd_rn(a, __dmul_rn(b, z[%d]))" % i};
    % else:
    v[${i}] = z[${i}];
    % endif
  % endfor
% elif dist == "exponential":
  % for i in range(per):
    {
    % if T == "float":
        const float e = __fmul_rn(0.5f, ga_neg2log(ga_open01(ga_lane(w, ${i}))));
        v[${i}] = ${"__fmul_rn(b, e)" if affine else "e"};
    % else:
    % if f64_math == "own":
        // 0 + (-2 ln u) / 2: +0.0 at u = 1, as 0 - ln u
        const double e = __dadd_rn(0.0, __dmul_rn(0.5, ga_neg2log_f64(ga_open01(ga_join(ga_lane(w, ${2 * i}), ga_lane(w, ${2 * i + 1}))))));
    % else:
        const double e = 0.0 - log(ga_open01(ga_join(ga_lane(w, ${2 * i}), ga_lane(w, ${2 * i + 1}))));
    % endif
        v[${i}] = ${"__dmul_rn(b, e)" if affine else "e"};
    % endif
    }
  % endfor
% elif dist == "integers":
    // Lemire's nearly divisionless method; a rejected draw is redrawn
    // from the same block and lane with counter word c2 = attempt.
  % for i in range(per):
    {
    % if per == 4:
        unsigned int x = ga_lane(w, ${i});
        const unsigned int s = (unsigned int)b;
        unsigned long long val;
        if (s == 0) {
            val = a + x;
        } else {
            unsigned long long m = (unsigned long long)x * s;
            unsigned int attempt = 0;
            while ((unsigned int)m < (unsigned int)thresh) {
                ++attempt;
                x = ga_lane(ga_philox4x32_10((unsigned int)blk, (unsigned int)(blk >> 32),
                                             attempt, 0u, ks), ${i});
                m = (unsigned long long)x * s;
            }
            val = a + (m >> 32);
        }
    % else:
        unsigned long long x = ga_join(ga_lane(w, ${2 * i}), ga_lane(w, ${2 * i + 1}));
        unsigned long long val;
        if (b == 0) {
            val = a + x;
        } else {
            unsigned long long l = x * b;
            unsigned int attempt = 0;
            while (l < thresh) {
                ++attempt;
                const uint4 r = ga_philox4x32_10((unsigned int)blk, (unsigned int)(blk >> 32),
                                                 attempt, 0u, ks);
                x = ga_join(ga_lane(r, ${2 * i}), ga_lane(r, ${2 * i + 1}));
                l = x * b;
            }
            val = a + __umul64hi(x, b);
        }
    % endif
    % if T == "bool":
        v[${i}] = (val & 1ull) != 0;
    % else:
        v[${i}] = (${T})val;
    % endif
    }
  % endfor
% endif
}

% if impl == "warp-chunks":
// One Philox block's values stored at out + first: a vector store when the
// block is whole and out aligned, else guarded scalar stores.
GA_DEV void ga_store_block(${T} *__restrict__ out, unsigned long long n,
                           unsigned long long first, int vec, const ${T} *v)
{
    if (vec && first + ${per}ull <= n) {
% for j in range(nstores):
        {
            ga_vec<${T}, ${nvec}> q;
  % for i in range(nvec):
            q.v[${i}] = v[${j * nvec + i}];
  % endfor
            *reinterpret_cast<ga_vec<${T}, ${nvec}> *>(out + first + ${j * nvec}) = q;
        }
% endfor
    } else {
#pragma unroll
        for (int i = 0; i < ${per}; ++i) {
            if (first + i < n) out[first + i] = v[i];
        }
    }
}

// v2.  Main part: the whole blocks in chunks of 64; warp g of W takes
// chunks g, g + W, ...; in chunk c lane l computes blocks 64c + l and
// 64c + 32 + l together (two independent Philox chains and transforms for
// the scheduler to overlap, loop and constant set-up shared) and stores
// them with two full-warp 512-byte stores, no bounds checks (the trip count
// is computed once).  Then the rest (the last < 64 whole blocks, the
// partial one, or everything when out is misaligned) one block per thread.
// Element k still uses block offset + k / per: only which thread computes
// a block changes, so the values are the v1 kernel's.
extern "C" __global__ void __launch_bounds__(256)
${name}(${T} *__restrict__ out, unsigned long long n,
        unsigned long long nblocks, unsigned long long offset, int vec,
        ${P} a, ${P} b, unsigned long long thresh,
        ${", ".join("unsigned int ks%d" % i for i in range(20))})
{
    const ga_keys ks = {{${", ".join("ks%d" % i for i in range(20))}}};
    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long nthreads = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long nchunks = vec ? (n / ${per}ull) >> 6 : 0ull;
    const unsigned long long gw = tid >> 5, nw = nthreads >> 5;
    if (gw < nchunks) {
        // steps of this warp: fits 32 bits (the host uses v1 for 2^37 or
        // more blocks, so nchunks < 2^31)
        unsigned int steps = (unsigned int)((nchunks - 1 - gw) / nw) + 1u;
        const unsigned long long blk0 = gw * 64ull + (threadIdx.x & 31u);
        const unsigned long long cstep = nw * 64ull;
        const unsigned long long pstep = cstep * ${per}ull;
        unsigned long long ctr = offset + blk0;
        ${T} *p = out + blk0 * ${per}ull;
        do {
            const unsigned long long ctr2 = ctr + 32ull;
            const uint4 w0 = ga_philox4x32_10((unsigned int)ctr, (unsigned int)(ctr >> 32),
                                              0u, 0u, ks);
            const uint4 w1 = ga_philox4x32_10((unsigned int)ctr2, (unsigned int)(ctr2 >> 32),
                                              0u, 0u, ks);
            ${T} v0[${per}], v1[${per}];
            ga_block_values(w0, ctr, ks, a, b, thresh, v0);
            ga_block_values(w1, ctr2, ks, a, b, thresh, v1);
% for (vv, off) in (("v0", 0), ("v1", 32 * per)):
  % for j in range(nstores):
            {
                ga_vec<${T}, ${nvec}> q;
    % for i in range(nvec):
                q.v[${i}] = ${vv}[${j * nvec + i}];
    % endfor
                *reinterpret_cast<ga_vec<${T}, ${nvec}> *>(p + ${off + j * nvec}) = q;
            }
  % endfor
% endfor
            ctr += cstep;
            p += pstep;
        } while (--steps);
    }
    for (unsigned long long blk = nchunks * 64ull + tid; blk < nblocks; blk += nthreads) {
        const unsigned long long ctr = offset + blk;
        const uint4 w = ga_philox4x32_10((unsigned int)ctr, (unsigned int)(ctr >> 32),
                                         0u, 0u, ks);
        ${T} v[${per}];
        ga_block_values(w, ctr, ks, a, b, thresh, v);
        ga_store_block(out, n, blk * ${per}ull, vec, v);
    }
}
% else:
extern "C" __global__ void __launch_bounds__(256)
${name}(${T} *__restrict__ out, unsigned long long n,
        unsigned long long nblocks, unsigned long long offset, int vec,
        ${P} a, ${P} b, unsigned long long thresh,
        ${", ".join("unsigned int ks%d" % i for i in range(20))})
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const ga_keys ks = {{${", ".join("ks%d" % i for i in range(20))}}};
    for (unsigned long long blk = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         blk < nblocks; blk += stride) {
        const unsigned long long ctr = offset + blk;
        const uint4 w = ga_philox4x32_10((unsigned int)ctr, (unsigned int)(ctr >> 32),
                                         0u, 0u, ks);
        ${T} v[${per}];
        ga_block_values(w, ctr, ks, a, b, thresh, v);
        const unsigned long long first = blk * ${per}ull;
        if (vec && first + ${per}ull <= n) {
% for j in range(nstores):
            {
                ga_vec<${T}, ${nvec}> q;
  % for i in range(nvec):
                q.v[${i}] = v[${j * nvec + i}];
  % endfor
                *reinterpret_cast<ga_vec<${T}, ${nvec}> *>(out + first + ${j * nvec}) = q;
            }
% endfor
        } else {
#pragma unroll
            for (int i = 0; i < ${per}; ++i) {
                if (first + i < n) out[first + i] = v[i];
            }
        }
    }
}
% endif
