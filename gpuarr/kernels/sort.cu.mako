## Sorting and searching: an LSD radix sort with 8-bit digits (stable),
## bitonic sorts for short rows (one warp a row in registers for keys of
## at most 32 bits, one block a row in shared memory for the others), and
## the kernels of searchsorted and unique.  Rendered by gpuarr/_sortkernels.py.
##
## Elements move as their raw bits (``ga_elem``); the order is that of a
## key made from the bits (``ga_make_key``), numpy's order: signed integers
## with the sign bit flipped, floats by the usual sign-magnitude flip with
## -0.0 mapped to +0.0's key and every NaN to the all-ones key (after
## +inf); complex values by (class, primary, secondary) where the class is
## 2 * isnan(re) + isnan(im) and, by class, (primary, secondary) is
## (re, im), (re, -), (im, -), (-, -): numpy's [R + Rj, R + nanj, nan + Rj,
## nan + nanj].  Equal keys keep their input order (the sort is stable).
##
## Radix passes: pass p < KP sorts by digit p of the key (least significant
## first; for complex: the secondary's bytes, the primary's, the class);
## passes KP + q sort by byte q of (value / L), the row of a carried flat
## index, so that rows of L elements sort independently (the row passes run
## after the key passes).  One pass is one launch, ``onesweep``: tiles
## ranked stably in shared memory (peers of a digit in a warp by ballots
## and __match_any_sync), digit counts of earlier tiles by a
## decoupled look-back (status words of the pass), the digit bases from
## the global histogram ``hist`` of every pass, computed once by ``hist``.
##
## Variables (all required):
##   name     kernel name
##   kernel   "hist" | "onesweep" | "block" | "wsort" | "finish"
##            | "mask" | "compact" | "runcount" | "runselect" | "search"
##   tkind    "b" | "i" | "u" | "f" | "c": bool, signed, unsigned, float,
##            complex
##   bits     bits of a scalar, or of one part of a complex value
##   kv       onesweep: carry values with the keys (the element's flat
##            index to begin with)
##   vin_t, vout_t  onesweep: C types of the values read and written
##            ("unsigned int" or "long long")
##   off_t    onesweep: C type of a status word ("unsigned int" when every
##            count fits 30 bits)
##   items    elements per thread of a radix tile (tile = 256 * items);
##            runcount/runselect: of a run tile (64 bytes' worth, at most 32)
##   blocks   onesweep: blocks an SM the registers are bounded for
##   rank     onesweep: "early" (each warp's digit counts first, by
##            shared atomics; the tile's counts published before the
##            ranking, which places each element by its digit leader's
##            atomic), "ballot" (the ranking first, the counts read and
##            written between warp barriers; peers by eight ballots, as
##            "early") or "match" (the same, peers by __match_any_sync);
##            "early_half", "early_match": early counts with the digit's
##            high 4 or all 8 bits matched by __match_any_sync
##   np2, warps, wbits, swz
##            wsort: the row capacity (a power of two, 32 .. 1024), warps a
##            block, bits of a word, _sortkernels.wsort_swizzle's triple
<%
    raw = {8: "unsigned char", 16: "unsigned short", 32: "unsigned int",
           64: "unsigned long long"}[bits]
    kw = "unsigned long long" if bits == 64 else "unsigned int"
    sign = 1 << (bits - 1)
    allk = (1 << bits) - 1
    inf = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}.get(bits, 0)
    kp = 2 * (bits // 8) + 1 if tkind == "c" else (1 if tkind == "b" else bits // 8)
    suffix = "ull" if bits == 64 else "u"
    tile = 256 * items
%>\
typedef ${raw} ga_bits;
typedef ${kw} ga_kw;
% if tkind == "c":
struct __align__(${2 * bits // 8}) ga_elem { ga_bits re, im; };
struct ga_key { ga_kw sec, prim; unsigned int cls; };
% else:
typedef ga_bits ga_elem;
typedef ga_kw ga_key;
% endif
enum { GA_KP = ${kp}, GA_TILE = ${tile} };

% if tkind in "fc":
// float bits -> an unsigned key of the same order (-0.0 as 0.0, NaN last)
__device__ __forceinline__ bool ga_isnan(ga_bits u)
{
    return ((ga_kw)u & ${"0x%x" % (sign - 1)}${suffix}) > ${"0x%x" % inf}${suffix};
}
// (selects, not branches: the radix passes make a key per element)
__device__ __forceinline__ ga_kw ga_fkey(ga_bits u)
{
    const ga_kw x = (ga_kw)u;
    const ga_kw mag = x & ${"0x%x" % (sign - 1)}${suffix};
    // negative: every bit flipped; else the sign bit set
    const ga_kw flip = (((ga_kw)0 - (x >> ${bits - 1})) & ${"0x%x" % allk}${suffix})
                       | ${"0x%x" % sign}${suffix};
    ga_kw key = x ^ flip;
    key = mag == 0 ? (ga_kw)${"0x%x" % sign}${suffix} : key;
    return mag > ${"0x%x" % inf}${suffix} ? (ga_kw)${"0x%x" % allk}${suffix} : key;
}
% endif

__device__ __forceinline__ ga_key ga_make_key(const ga_elem &x)
{
% if tkind == "c":
    ga_key k;
    const bool nr = ga_isnan(x.re), ni = ga_isnan(x.im);
    k.cls = (nr ? 2u : 0u) | (ni ? 1u : 0u);
    k.prim = nr ? (ni ? (ga_kw)0 : ga_fkey(x.im)) : ga_fkey(x.re);
    k.sec = (nr || ni) ? (ga_kw)0 : ga_fkey(x.im);
    return k;
% elif tkind == "f":
    return ga_fkey(x);
% elif tkind == "i":
    return (ga_kw)x ^ ${"0x%x" % sign}${suffix};
% elif tkind == "b":
    return x != 0 ? 1u : 0u;
% else:
    return (ga_kw)x;
% endif
}

// a key after every real one (the padding of the bitonic sort)
__device__ __forceinline__ ga_key ga_pad_key()
{
% if tkind == "c":
    ga_key k;
    k.cls = 4u;
    k.prim = 0;
    k.sec = 0;
    return k;
% else:
    return ${"0x%x" % allk}${suffix};
% endif
}

__device__ __forceinline__ bool ga_key_less(const ga_key &a, const ga_key &b)
{
% if tkind == "c":
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.prim != b.prim) return a.prim < b.prim;
    return a.sec < b.sec;
% else:
    return a < b;
% endif
}

// unique's equality: equal keys; with equal_nan every NaN is one value
// (complex: any value with a NaN part), without it no NaN equals anything
__device__ __forceinline__ bool ga_key_same(const ga_key &a, const ga_key &b, int equal_nan)
{
% if tkind == "c":
    if (a.cls != 0u || b.cls != 0u) return equal_nan && a.cls != 0u && b.cls != 0u;
    return a.prim == b.prim && a.sec == b.sec;
% elif tkind == "f":
    return a == b && (equal_nan || a != ${"0x%x" % allk}${suffix});
% else:
    (void)equal_nan;
    return a == b;
% endif
}

// digit p of the key (p < GA_KP), else byte p - GA_KP of the row v / L
__device__ __forceinline__ unsigned int ga_key_digit(const ga_key &k, int p)
{
% if tkind == "c":
    if (p < ${bits // 8}) return (unsigned int)(k.sec >> (8 * p)) & 255u;
    if (p < ${bits // 4}) return (unsigned int)(k.prim >> (8 * (p - ${bits // 8}))) & 255u;
    return k.cls;
% elif bits <= 32:
    // (byte p by one PRMT, where a shift and a mask took two ALU ops)
    return __byte_perm((unsigned int)k, 0u, 0x4440u | (unsigned int)p);
% else:
    return (unsigned int)(k >> (8 * p)) & 255u;
% endif
}

__device__ __forceinline__ unsigned int ga_digit(const ga_elem &x, long long v, int p,
                                                        unsigned long long L)
{
    if (p < GA_KP) return ga_key_digit(ga_make_key(x), p);
    return (unsigned int)(((unsigned long long)v / L) >> (8 * (p - GA_KP))) & 255u;
}

// a load the compiler issues where it stands (volatile: not moved past
// other volatile loads, so a run of them is in flight together)
__device__ __forceinline__ ga_elem ga_load_now(const ga_elem *p)
{
% if tkind == "c":
    const volatile ga_bits *q = reinterpret_cast<const volatile ga_bits *>(p);
    ga_elem e;
    e.re = q[0];
    e.im = q[1];
    return e;
% else:
    return *reinterpret_cast<const volatile ga_elem *>(p);
% endif
}

// exclusive sum over a block of 256 threads; *total gets the sum
template <typename U>
__device__ __forceinline__ U ga_excl_scan(U x, U *sh, U *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    U inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const U y = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += y;
    }
    __syncthreads();                    // sh is free from an earlier call
    if (lane == 31) sh[warp] = inc;
    __syncthreads();
    U before = 0, tot = 0;
#pragma unroll
    for (int w = 0; w < 8; ++w) {
        const U s = sh[w];
        if (w < warp) before += s;
        tot += s;
    }
    if (total) *total = tot;
    return before + inc - x;
}

% if kernel == "hist":
// the global digit histogram of every pass: hist[p * 256 + d] (zeroed by
// the host); rp row passes after the GA_KP key passes.  Blocks stride over
// chunks of 256 * 16 elements, each thread loading its 16 before counting
// them (loads in flight, not one at a time)
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_elem *__restrict__ keys, long long n, unsigned long long L, int rp,
        unsigned long long *__restrict__ hist)
{
    __shared__ unsigned int sh[(GA_KP + 8) * 256];
    const int np = GA_KP + rp;
    for (int i = threadIdx.x; i < np * 256; i += 256) sh[i] = 0u;
    __syncthreads();
    const long long step = (long long)gridDim.x * (256 * 16);
    for (long long c = (long long)blockIdx.x * (256 * 16); c < n; c += step) {
        ga_elem x[16];
#pragma unroll
        for (int r = 0; r < 16; ++r) {
            const long long e = c + r * 256 + threadIdx.x;
            if (e < n) x[r] = keys[e];
        }
#pragma unroll
        for (int r = 0; r < 16; ++r) {
            const long long e = c + r * 256 + threadIdx.x;
            if (e >= n) break;
            const ga_key k = ga_make_key(x[r]);
#pragma unroll
            for (int p = 0; p < GA_KP; ++p) atomicAdd(&sh[p * 256 + ga_key_digit(k, p)], 1u);
            if (rp) {
                const unsigned long long row = (unsigned long long)e / L;
                for (int p = 0; p < rp; ++p)
                    atomicAdd(&sh[(GA_KP + p) * 256 + ((unsigned int)(row >> (8 * p)) & 255u)], 1u);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < np * 256; i += 256)
        if (sh[i]) atomicAdd(&hist[i], (unsigned long long)sh[i]);
}
% elif kernel == "onesweep":
<%include file="onesweep.cu.mako"/>
% elif kernel == "block":
// rows of L <= np2 elements (np2 a power of two, at least 8), one block a
// row: a bitonic sort of (key, position) pairs; ties broken by position,
// so the order is the stable one.  The pairs live in shared memory
// (dynamic: GA_PADDED(np2) * (sizeof(ga_key) + 4) bytes), element i at
// GA_PADDED(i): a word skipped every 32, so that a thread's run of 8
// (below) and a warp's 32 consecutive elements both fall in 32 banks.
// The compare-exchanges of a stage with a distance of 8 or more go
// through shared memory, one barrier a stage; those of distance 4, 2 and
// 1 (27 of the 55 stages of 1024 elements) run in registers, each thread
// holding a run of 8 elements.  kout[i] = src[row's i-th], vout[i] = its
// position in the row; either may be null.
#define GA_PADDED(i) ((i) + ((i) >> 5))

__device__ __forceinline__ bool ga_pair_less(const ga_key &a, unsigned int ia,
                                                    const ga_key &b, unsigned int ib)
{
    if (ga_key_less(a, b)) return true;
    if (ga_key_less(b, a)) return false;
    return ia < ib;
}

// order the pair (i, l = i | j) of the sequence being merged at size k:
// ascending where bit k of i is clear
__device__ __forceinline__ void ga_exchange(ga_key &a, unsigned int &ia, ga_key &b,
                                            unsigned int &ib, bool up)
{
    if (up ? ga_pair_less(b, ib, a, ia) : ga_pair_less(a, ia, b, ib)) {
        const ga_key t = a; a = b; b = t;
        const unsigned int u = ia; ia = ib; ib = u;
    }
}

// the stages of distance 4, 2, 1 of merge sizes kfirst .. klast (powers of
// two, kfirst >= 2) on the run of 8 elements starting at r0
__device__ __forceinline__ void ga_run_stages(ga_key *key, unsigned int *pos, int r0,
                                              int kfirst, int klast)
{
    ga_key a[8];
    unsigned int p[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        a[e] = key[GA_PADDED(r0 + e)];
        p[e] = pos[GA_PADDED(r0 + e)];
    }
    for (int k = kfirst; k <= klast; k <<= 1) {
#pragma unroll
        for (int j = 4; j > 0; j >>= 1) {
            if (j < k) {
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    if ((e & j) == 0)
                        ga_exchange(a[e], p[e], a[e | j], p[e | j], ((r0 + e) & k) == 0);
            }
        }
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        key[GA_PADDED(r0 + e)] = a[e];
        pos[GA_PADDED(r0 + e)] = p[e];
    }
}

extern "C" __global__ void
${name}(const ga_elem *__restrict__ src, ga_elem *__restrict__ kout,
        long long *__restrict__ vout, long long rows, int L, int np2)
{
    extern __shared__ __align__(16) unsigned char ga_smem[];
    ga_key *key = reinterpret_cast<ga_key *>(ga_smem);
    unsigned int *pos = reinterpret_cast<unsigned int *>(
        ga_smem + (size_t)GA_PADDED(np2) * sizeof(ga_key));
    const int nt = blockDim.x, tid = threadIdx.x;
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const long long base = row * L;
        for (int i = tid; i < np2; i += nt) {
            key[GA_PADDED(i)] = i < L ? ga_make_key(src[base + i]) : ga_pad_key();
            pos[GA_PADDED(i)] = (unsigned int)i;
        }
        __syncthreads();
        // merge sizes 2, 4 and 8: within each run
        for (int r = tid * 8; r < np2; r += nt * 8)
            ga_run_stages(key, pos, r, 2, 8);
        __syncthreads();
        for (int k = 16; k <= np2; k <<= 1) {
            for (int j = k >> 1; j >= 8; j >>= 1) {
                for (int t = tid; t < (np2 >> 1); t += nt) {
                    const int i = ((t & ~(j - 1)) << 1) | (t & (j - 1));
                    const int l = i | j;
                    const int pi = GA_PADDED(i), pl = GA_PADDED(l);
                    const ga_key a = key[pi], b = key[pl];
                    const unsigned int ia = pos[pi], ib = pos[pl];
                    const bool up = (i & k) == 0;
                    if (up ? ga_pair_less(b, ib, a, ia) : ga_pair_less(a, ia, b, ib)) {
                        key[pi] = b; key[pl] = a;
                        pos[pi] = ib; pos[pl] = ia;
                    }
                }
                __syncthreads();
            }
            for (int r = tid * 8; r < np2; r += nt * 8)
                ga_run_stages(key, pos, r, k, k);
            __syncthreads();
        }
        for (int i = tid; i < L; i += nt) {
            const unsigned int j = pos[GA_PADDED(i)];
            if (vout) vout[base + i] = (long long)j;
            if (kout) kout[base + i] = src[base + j];
        }
        __syncthreads();                // key and pos are reused
    }
}
% elif kernel == "wsort":
<%
    R = np2 // 32
    # the word (wbits): key << 32 | position, or key << 16 | position for
    # keys of at most 16 bits (positions < 1024 fit either)
    wlog, swz_shift, swz_mask = swz
    wt = "unsigned int" if wbits == 32 else "unsigned long long"
    pshift = wbits // 2
    pmask = "0xffffu" if wbits == 32 else "0xffffffffull"
    wpad = "0xffff0000u" if wbits == 32 else "0xffffffff00000000ull"
%>\
// rows of L <= ${np2} elements, keys of at most 32 bits: one warp a row,
// each lane holding ${R} of the row's (key << ${pshift} | position) words in
// registers (position: the element's index in the row, so every word is
// distinct and their order is the stable order).  Layout: lane l holds
// elements l * ${R} .. l * ${R} + ${R - 1}, so a bitonic stage of distance
// j < ${R} exchanges two of a lane's registers and one of distance
// j >= ${R} the same register of lanes l and l ^ (j / ${R}) (a shuffle).
// No barrier but the warp's: the row comes in and goes out through
// shared memory (coalesced in global memory: element 32 m + lane), whose
// word of element i is at ga_swz(i), a swizzle that keeps both layouts'
// word accesses free of bank conflicts.  The row's raw elements stay in
// shared memory for the output (kout[i] = the row's element at the i-th
// position).  ${warps} warps a block; dynamic shared memory of
// ${warps} * ${np2} * (${wbits // 8} + sizeof(ga_elem)) bytes.
__device__ __forceinline__ int ga_swz(int i)
{
    return (i & ~${2 ** wlog - 1}) | ((i & ${2 ** wlog - 1}) ^ (((i >> ${wlog}) >> ${swz_shift}) & ${swz_mask}));
}

// the pair (x at the lower position, y): ascending (x < y) where up
__device__ __forceinline__ void ga_cx(${wt} &x, ${wt} &y, bool up)
{
    const bool sw = (y < x) == up;
    const ${wt} lo = sw ? y : x, hi = sw ? x : y;
    x = lo;
    y = hi;
}

// registers bounded for 12 warps an SM (bounded for 16, ptxas spilled a
// few words for 4-byte keys at capacity 512; unbounded, for 2-byte ones)
extern "C" __global__ void __launch_bounds__(${32 * warps}, ${max(1, 12 // warps)})
${name}(const ga_elem *__restrict__ src, ga_elem *__restrict__ kout,
        long long *__restrict__ vout, long long rows, int L, int np2)
{
    extern __shared__ __align__(16) unsigned char ga_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    ${wt} *buf = reinterpret_cast<${wt} *>(ga_smem) + warp * ${np2};
    ga_elem *raw = reinterpret_cast<ga_elem *>(ga_smem + ${warps * np2 * wbits // 8}) + warp * ${np2};
    (void)np2;
    const long long step = (long long)gridDim.x * ${warps};
    for (long long row = (long long)blockIdx.x * ${warps} + warp; row < rows; row += step) {
        const long long base = row * L;
#pragma unroll
        for (int m = 0; m < ${R}; ++m) {
            const int i = 32 * m + lane;
            ${wt} w = ${wpad} | (unsigned int)i;   // after every key
            if (i < L) {
                const ga_elem x = src[base + i];
                raw[i] = x;
                w = ((${wt})ga_make_key(x) << ${pshift}) | (unsigned int)i;
            }
            buf[ga_swz(i)] = w;
        }
        __syncwarp();
        ${wt} a[${R}];
#pragma unroll
        for (int e = 0; e < ${R}; ++e) a[e] = buf[ga_swz(lane * ${R} + e)];
        // merge sizes k = 2 .. ${np2}, distances j = k / 2 .. 1; element
        // i = lane * ${R} + e ascends in its sequence where (i & k) == 0.
        // Loops, not unrolled: the body stays small in the instruction
        // cache (fully unrolled, the network of 1024 was 9000 instructions)
        for (int k = 2; k <= ${np2}; k <<= 1) {
            // distances of ${R} and more: shuffles; keep the smaller word
            // where this lane is the pair's lower one in an ascending
            // sequence, or the upper one in a descending sequence
            const bool up_lane = ((lane * ${R}) & k) == 0;
            for (int d = (k >> 1) / ${R}; d > 0; d >>= 1) {
                const bool keep_min = ((lane & d) == 0) == up_lane;
#pragma unroll
                for (int e = 0; e < ${R}; ++e) {
                    const ${wt} w = __shfl_xor_sync(0xffffffffu, a[e], d);
                    a[e] = (w < a[e]) == keep_min ? w : a[e];
                }
            }
            // distances below ${R}: within the lane's registers
#pragma unroll
            for (int j = ${R // 2}; j > 0; j >>= 1) {
                if (j < k) {
#pragma unroll
                    for (int e = 0; e < ${R}; ++e)
                        if ((e & j) == 0) ga_cx(a[e], a[e | j], ((lane * ${R} + e) & k) == 0);
                }
            }
        }
#pragma unroll
        for (int e = 0; e < ${R}; ++e) buf[ga_swz(lane * ${R} + e)] = a[e];
        __syncwarp();
#pragma unroll
        for (int m = 0; m < ${R}; ++m) {
            const int i = 32 * m + lane;
            if (i < L) {
                const unsigned int j = (unsigned int)(buf[ga_swz(i)] & ${pmask});
                if (vout) vout[base + i] = (long long)j;
                if (kout) kout[base + i] = raw[j];
            }
        }
        __syncwarp();                   // buf and raw are the next row's
    }
}
% elif kernel == "finish":
// out[e] = (vin ? vin[e] : e) % L: flat indices to positions in their row
extern "C" __global__ void __launch_bounds__(256)
${name}(const long long *__restrict__ vin, long long *__restrict__ out, long long n,
        unsigned long long L)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long e = (long long)blockIdx.x * 256 + threadIdx.x; e < n; e += step) {
        const long long v = vin ? vin[e] : e;
        out[e] = (long long)((unsigned long long)v % L);
    }
}
% elif kernel == "mask":
// unique: flags[i] = 1 where a sorted s[i] starts a new value, else 0
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_elem *__restrict__ s, unsigned char *__restrict__ flags, long long n, int equal_nan)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step)
        flags[i] = (i == 0 || !ga_key_same(ga_make_key(s[i - 1]), ga_make_key(s[i]), equal_nan))
                   ? 1 : 0;
}
% elif kernel == "compact":
// unique: csum = inclusive sum of the flags (${off_t}); the first element of each run
// of equal values gives the value (uniq), its original index (index) and
// its start (starts); the last one its end (ends); every element its
// inverse.  Null outputs are skipped.
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_elem *__restrict__ s, const long long *__restrict__ perm,
        const ${off_t} *__restrict__ csum, long long n, ga_elem *__restrict__ uniq,
        long long *__restrict__ index, long long *__restrict__ inverse,
        long long *__restrict__ starts, long long *__restrict__ ends)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step) {
        const long long c = csum[i];
        const long long k = c - 1;
        if (i == 0 || csum[i - 1] != c) {
            if (uniq) uniq[k] = s[i];
            if (index) index[k] = perm[i];
            if (starts) starts[k] = i;
        }
        if (ends && (i == n - 1 || csum[i + 1] != c)) ends[k] = i + 1;
        if (inverse) inverse[perm[i]] = k;
    }
}
% elif kernel in ("runcount", "runselect"):
<%
    esize = bits * (2 if tkind == "c" else 1) // 8
    vec = items * esize // 16
%>\
// unique without index, inverse or counts, in two passes over the sorted
// s (16-byte aligned): a tile is 256 threads x ${items} consecutive
// elements, ${items * esize} bytes a thread in ${vec} vector loads; bit j of a
// thread's word is set where its element j starts a run (differs from the
// element before it).  runcount: each tile's count of run starts.
// runselect: from the inclusive sum of those counts, the run starts in
// order, staged in shared memory at p + p / ${items} (a thread's run of
// slots in its own banks) and stored by consecutive threads.
union ga_run_load { uint4 w[${vec}]; ga_elem e[${items}]; };

__device__ __forceinline__ unsigned int ga_run_bits(const ga_elem *__restrict__ s, long long n,
                                                    int equal_nan, ga_run_load &v)
{
    const long long first = (long long)blockIdx.x * ${256 * items} + threadIdx.x * ${items};
    if (first >= n) return 0u;
    const long long left = n - first;
    if (left >= ${items}) {
        const uint4 *q = reinterpret_cast<const uint4 *>(s + first);
#pragma unroll
        for (int w = 0; w < ${vec}; ++w) v.w[w] = q[w];
    } else {
        for (int j = 0; j < ${items}; ++j) v.e[j] = s[first + (j < left ? j : 0)];
    }
    // element 0 of the array starts a run whatever it is compared with
    ga_key prev = ga_make_key(s[first ? first - 1 : 0]);
    unsigned int bits = first ? 0u : 1u;
#pragma unroll
    for (int j = 0; j < ${items}; ++j) {
        const ga_key k = ga_make_key(v.e[j]);
        if (j < left && !ga_key_same(prev, k, equal_nan)) bits |= 1u << j;
        prev = k;
    }
    return bits;
}

% if kernel == "runcount":
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_elem *__restrict__ s, long long n, int equal_nan, long long *__restrict__ counts)
{
    ga_run_load v;
    int c = __popc(ga_run_bits(s, n, equal_nan, v));
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        c += __shfl_xor_sync(0xffffffffu, c, o);
    __shared__ int warp_sum[8];
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long t = 0;
        for (int w = 0; w < 8; ++w) t += warp_sum[w];
        counts[blockIdx.x] = t;
    }
}
% else:
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_elem *__restrict__ s, long long n, int equal_nan,
        const long long *__restrict__ tile_cs, ga_elem *__restrict__ out)
{
    ga_run_load v;
    unsigned int bits = ga_run_bits(s, n, equal_nan, v);
    // exclusive scan of the threads' counts over the block
    const int c = __popc(bits);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int incl = c;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += y;
    }
    __shared__ int warp_sum[8];
    if (lane == 31) warp_sum[warp] = incl;
    __syncthreads();
    int before = 0, tot = 0;
#pragma unroll
    for (int w = 0; w < 8; ++w) {
        before += w < warp ? warp_sum[w] : 0;
        tot += warp_sum[w];
    }
    __shared__ ga_elem stage[${256 * items + 256}];
    int p = before + incl - c;
#pragma unroll
    for (int j = 0; j < ${items}; ++j)
        if ((bits >> j) & 1u) {
            stage[p + p / ${items}] = v.e[j];
            ++p;
        }
    __syncthreads();
    const long long tbase = blockIdx.x ? tile_cs[blockIdx.x - 1] : 0;
    for (int i = threadIdx.x; i < tot; i += 256) out[tbase + i] = stage[i + i / ${items}];
}
% endif
% elif kernel == "search":
// searchsorted: out[i] = the first position of a (through sorter when not
// null) where v[i] may go, before equal elements (right == 0) or after
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_elem *__restrict__ a, const long long *__restrict__ sorter, long long na,
        const ga_elem *__restrict__ v, long long nv, long long *__restrict__ out, int right)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < nv; i += step) {
        const ga_key kv = ga_make_key(v[i]);
        long long lo = 0, hi = na;
        while (lo < hi) {
            const long long mid = lo + ((hi - lo) >> 1);
            const ga_key ka = ga_make_key(a[sorter ? sorter[mid] : mid]);
            const bool go = right ? !ga_key_less(kv, ka) : ga_key_less(ka, kv);
            if (go) lo = mid + 1; else hi = mid;
        }
        out[i] = lo;
    }
}
% endif
