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
## ranked stably in shared memory (peers of a digit in a warp by
## ballots, or __match_any_sync), digit counts of earlier tiles by a
## decoupled look-back (status words of the pass), the digit bases from
## the global histogram ``hist`` of every pass, computed once by ``hist``.
##
## Variables (all required):
##   name     kernel name
##   kernel   "hist" | "onesweep" | "block" | "wsort" | "finish"
##            | "mask" | "compact" | "search"
##   tkind    "b" | "i" | "u" | "f" | "c": bool, signed, unsigned, float,
##            complex
##   bits     bits of a scalar, or of one part of a complex value
##   kv       onesweep: carry values with the keys (the element's flat
##            index to begin with)
##   vin_t, vout_t  onesweep: C types of the values read and written
##            ("unsigned int" or "long long")
##   off_t    onesweep: C type of a status word ("unsigned int" when every
##            count fits 30 bits)
##   items    elements per thread of a radix tile (tile = 256 * items)
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
<%
    # values: vin_t in, vout_t out ("unsigned int" while indices fit, so
    # the passes move 4 bytes a value; the last pass widens to long long)
    vbytes = 8 if vout_t == "long long" else 4
    ebytes = bits // 8 * (2 if tkind == "c" else 1)
    exw = "ga_elem" if not kv or ebytes >= vbytes else vout_t
    sbits = 64 if off_t == "unsigned long long" else 32
    gb_t = "long long" if sbits == 64 else "int"
    # early counts; the digit's high bits whose peers one match finds
    early = rank.startswith("early")
    mbits = {"early_half": 4, "early_match": 8}.get(rank, 0)
%>\
// the lanes of the warp holding this lane's digit d (d < 256 where
// valid; every lane valid where full)
__device__ __forceinline__ unsigned int ga_peers(unsigned int d, bool valid, bool full)
{
% if rank == "match":
    // (past-the-end lanes hold 256, which no real digit matches)
    (void)full;
    return __match_any_sync(0xffffffffu, valid ? d : 256u);
% else:
    // (a warp part inside the array, as all but the last tile's are:
    // every lane valid, a vote less a round)
    unsigned int peers = full ? 0xffffffffu : __ballot_sync(0xffffffffu, valid);
% if mbits:
    // the digit's high ${mbits} bits by one match (MATCH is not on the
    // ALU pipe, which the ballots' logic fills)
    peers &= __match_any_sync(0xffffffffu, valid ? d >> ${8 - mbits} : 256u);
% endif
#pragma unroll
    for (int b = 0; b < ${8 - mbits}; ++b) {
% if early:
        // the lanes whose bit b is this lane's: ~(m ^ s), s the bit spread
        // over the word (one three-input logic op; ptxas made the bit twice
        // from ``bit ? m : ~m``, seven instructions a bit)
        const unsigned int s = (unsigned int)((int)(d << (31 - b)) >> 31);
        const unsigned int m = __ballot_sync(0xffffffffu, s != 0u);
        peers &= ~(m ^ s);
% else:
        const bool bit = (d & (1u << b)) != 0u;
        const unsigned int m = __ballot_sync(0xffffffffu, bit);
        peers &= bit ? m : ~m;
% endif
    }
    return peers;
% endif
}

<%def name="early_rounds(full, exw)">
## the early counts' ranking rounds, staging each element at its place;
## full: every lane of the warp's part valid (no test)
#pragma unroll
        for (int r = 0; r < ${items}; ++r) {
% if full:
            const bool valid = true;
% else:
            const bool valid = r * 32 + lane < inside;
% endif
            const unsigned int d = (dpk[r >> 2] >> (8 * (r & 3))) & 255u;
            const unsigned int peers = ga_peers(d, valid, ${"true" if full else "false"});
            // the leader (the highest lane of the digit: one FLO) takes the
            // round's places; the others read their first from it
            const int leader = 31 - __clz(peers);
            unsigned int at = 0u;
            if (valid && lane == leader)
                at = atomicAdd(&whist[warp * 256 + d], (unsigned int)__popc(peers));
            at = __shfl_sync(0xffffffffu, at, leader & 31);
            const unsigned int p = at + __popc(peers & below);
% if kv:
            dr[r] = valid ? p : 0xffffffffu;
% endif
            if (valid) {
% if exw == "ga_elem":
                exbuf[p] = k[r];
% else:
                reinterpret_cast<ga_elem *>(exbuf)[p] = k[r];
% endif
% if kv:
                exd[p] = (unsigned char)d;
% endif
            }
        }
</%def>
// one radix pass in one launch: each block takes the next tile (GA_TILE
// elements, the last one partial) in the order blocks start, ranks its
// elements by digit (stable), publishes its 256 digit counts, finds the
// counts of every earlier tile by a decoupled look-back over the status
// words of this pass and writes the tile to its places, staged in shared
// memory in digit order.  Status word of (tile, digit): flag in the top
// two bits (0 not yet, 1 the tile's own count, 2 the count of every tile up
// to this one), the count below.  The block also zeroes its tile's words
// of ``clear``, the status of the pass after this one.  Warp w ranks the
// w-th eighth of the tile, in rounds of 32 consecutive elements; a digit's
// peers in a round are found by eight ballots (or __match_any_sync).
// Registers bounded for ``blocks`` blocks an SM.
extern "C" __global__ void __launch_bounds__(256, ${blocks})
${name}(const ga_elem *__restrict__ kin, ga_elem *__restrict__ kout,
        const ${vin_t} *__restrict__ vin, ${vout_t} *__restrict__ vout,
        const unsigned long long *__restrict__ hist, ${off_t} *status,
        ${off_t} *__restrict__ clear, unsigned int *__restrict__ counter,
        long long n, int pass, unsigned long long L)
{
    __shared__ unsigned int whist[8 * 256];
    // the digit's output position less its start in the tile: 32-bit
    // while the status words are (n < 2**30), halving the table's
    // bank-conflicted reads in the scatter
    __shared__ ${gb_t} gbase[256];
    __shared__ unsigned int sh[8];
    __shared__ unsigned long long shq[8];
    __shared__ int stile;
    __shared__ ${exw} exbuf[GA_TILE];      // the tile in digit order
% if kv:
    __shared__ unsigned char exd[GA_TILE];  // and its digits (the values
                                            // replace the keys in exbuf)
% endif
    (void)vin; (void)vout;
    const int shift = ${sbits - 2};
    const ${off_t} agg = (${off_t})1 << shift, inc = (${off_t})2 << shift, cmask = agg - 1;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) stile = (int)atomicAdd(counter, 1u);
    for (int i = tid; i < 8 * 256; i += 256) whist[i] = 0u;
    __syncthreads();
    const int t = stile;
    clear[(long long)t * 256 + tid] = 0;
    const long long tstart = (long long)t * GA_TILE;
    const long long wstart = tstart + (long long)warp * (32 * ${items});
    const unsigned int below = (1u << lane) - 1u;
    ga_elem k[${items}];
% if kv or not early:
    // digit << 16 | rank in the warp's part (early counts: the place in
    // the tile)
    unsigned int dr[${items}];
% endif
    // elements of the warp's part inside the array (32-bit compares below)
    const int inside = n - wstart >= 32 * ${items} ? 32 * ${items}
                       : (n > wstart ? (int)(n - wstart) : 0);
    // every load first, so that they are in flight together.  Unguarded
    // (an index past the end reads the part's last element, or element 0
    // for a part wholly past it) and volatile: ptxas otherwise sinks each
    // load into its ranking round and waits for it there (seen in the
    // SASS: one load a round, the tile's 16 memory latencies in a row)
    const ga_elem *wk = kin + (inside ? wstart : 0ll);
    const int lastoff = inside ? inside - 1 : 0;
#pragma unroll
    for (int r = 0; r < ${items}; ++r)
        k[r] = ga_load_now(wk + min(r * 32 + lane, lastoff));
% if early:
    // early counts: each warp's digit counts first (shared atomics, no
    // order among them), so that the tile's counts are published and the
    // warps' starts known before the ranking, which then places each
    // element at once (its leader's atomic returns the digit's next place:
    // no read, barrier, write and barrier a round).  The digits are kept
    // packed, four to a register
    unsigned int dpk[${(items + 3) // 4}];
#pragma unroll
    for (int q = 0; q < ${(items + 3) // 4}; ++q) dpk[q] = 0u;
% endif
#pragma unroll
    for (int r = 0; r < ${items}; ++r) {
% if kv:
        const long long e = wstart + r * 32 + lane;
% endif
        const bool valid = r * 32 + lane < inside;
% if kv:
        const long long v = (valid && pass >= GA_KP) ? (vin ? (long long)vin[e] : e) : 0;
        unsigned int d = ga_digit(k[r], v, pass, L);
% else:
        // keys alone: key passes only (rows need carried positions)
        unsigned int d = ga_key_digit(ga_make_key(k[r]), pass);
% endif
% if early:
        dpk[r >> 2] |= d << (8 * (r & 3));
        if (valid) atomicAdd(&whist[warp * 256 + d], 1u);
    }
% else:
        d = valid ? d : 256u;
        const unsigned int peers = ga_peers(d, valid, inside == 32 * ${items});
        // the digit's count so far in this warp's part; its first lane (the
        // leader) adds the round's lanes, from the value it read (a shared
        // read less than whist[..] += ..., which reads again past the
        // barrier)
        unsigned int rank = __popc(peers & below);
        unsigned int seen = 0u;
        if (valid) {
            seen = whist[warp * 256 + d];
            rank += seen;
        }
        __syncwarp();
        if (valid && (peers & below) == 0u) whist[warp * 256 + d] = seen + __popc(peers);
        __syncwarp();
        dr[r] = (d << 16) | rank;
    }
% endif
    __syncthreads();
    // digit tid: the warps' offsets and the tile's count ...
    unsigned int run = 0u;
#pragma unroll
    for (int w = 0; w < 8; ++w) {
        const unsigned int c = whist[w * 256 + tid];
        whist[w * 256 + tid] = run;
        run += c;
    }
    volatile ${off_t} *mine = status + (long long)t * 256 + tid;
    *mine = (t == 0 ? inc : agg) | (${off_t})run;
    // ... the digit's start in the tile and in the output ...
    const unsigned int start = ga_excl_scan<unsigned int>(run, sh, (unsigned int *)0);
    const unsigned long long base =
        ga_excl_scan<unsigned long long>(hist[tid], shq, (unsigned long long *)0);
    // whist[w * 256 + d]: where warp w's elements of digit d start in the
    // tile (one table for the places below: a conflicted read less each)
#pragma unroll
    for (int w = 0; w < 8; ++w) whist[w * 256 + tid] += start;
    __syncthreads();
    // the tile to shared memory in digit order before the look-back, so
    // that the keys' registers are free while it waits (ptxas spilled
    // with them held across it) and earlier tiles have longer to publish
% if early:
    // (two copies of the rounds: for a warp part inside the array, as all
    // but the last tile's are, no lane is tested)
    if (inside == 32 * ${items}) {
${early_rounds(True, exw)}
    } else {
${early_rounds(False, exw)}
    }
% else:
#pragma unroll
    for (int r = 0; r < ${items}; ++r) {
        const unsigned int d = dr[r] >> 16;
        if (d < 256u) {
            const unsigned int p = whist[warp * 256 + d] + (dr[r] & 0xffffu);
% if exw == "ga_elem":
            exbuf[p] = k[r];
% else:
            reinterpret_cast<ga_elem *>(exbuf)[p] = k[r];
% endif
% if kv:
            exd[p] = (unsigned char)d;
% endif
        }
    }
% endif
    {
        // ... and the digit's count in the tiles before this one
        // (eight earlier tiles' words read at once, nearest first: their
        // own counts are summed until a word with the count up to its tile)
        ${off_t} before = 0;
        if (t > 0) {
            long long j = t - 1;
            for (;;) {
                ${off_t} s[8];
#pragma unroll
                for (int q = 0; q < 8; ++q)
                    s[q] = j - q >= 0 ? ((const volatile ${off_t} *)status)[(j - q) * 256 + tid]
                                      : inc;
                int q = 0;
                bool done = false;
                for (; q < 8; ++q) {
                    const ${off_t} f = s[q] >> shift;
                    if (f == 0) break;
                    before += s[q] & cmask;
                    if (f == 2) { done = true; break; }
                }
                if (done) break;
                j -= q;         // from the first word not yet written
            }
            *mine = inc | (before + (${off_t})run);
        }
        gbase[tid] = (${gb_t})((long long)(base + (unsigned long long)before) - (long long)start);
    }
    __syncthreads();
    const long long left = n - tstart;
    const int cnt = left < GA_TILE ? (int)left : GA_TILE;
    for (int i = tid; i < cnt; i += 256) {
% if exw == "ga_elem":
        const ga_elem x = exbuf[i];
% else:
        const ga_elem x = reinterpret_cast<const ga_elem *>(exbuf)[i];
% endif
% if kv:
        const unsigned int d = exd[i];
% else:
        // keys alone: the digit made again from the key (ALU work, where
        // a stored byte cost a shared store and load an element)
        const unsigned int d = ga_key_digit(ga_make_key(x), pass);
% endif
        kout[(long long)gbase[d] + i] = x;
    }
% if kv:
    // no values out: a row sort's last pass, its keys' places alone wanted
    // (vout is the same for the whole grid, so the barriers below are
    // reached by every thread or none)
    if (vout == nullptr)
        return;
    {
        // the values, read only now (fewer registers held while ranking)
        ${vout_t} v[${items}];
#pragma unroll
        for (int r = 0; r < ${items}; ++r) {
            const long long e = wstart + r * 32 + lane;
            v[r] = e < n ? (${vout_t})(vin ? (long long)vin[e] : e) : 0;
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < ${items}; ++r) {
% if early:
            const unsigned int p = dr[r];
            if (p != 0xffffffffu)
                reinterpret_cast<${vout_t} *>(exbuf)[p] = v[r];
% else:
            const unsigned int d = dr[r] >> 16;
            if (d < 256u) {
                const unsigned int p = whist[warp * 256 + d] + (dr[r] & 0xffffu);
                reinterpret_cast<${vout_t} *>(exbuf)[p] = v[r];
            }
% endif
        }
    }
    __syncthreads();
    for (int i = tid; i < cnt; i += 256)
        vout[(long long)gbase[exd[i]] + i] = reinterpret_cast<const ${vout_t} *>(exbuf)[i];
% endif
}
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
