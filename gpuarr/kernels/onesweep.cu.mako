## The onesweep pass of sort.cu.mako's LSD radix sort (one radix pass in
## one launch), rendered inside it (``<%include>``: the same variables,
## and the helpers sort.cu.mako defines before it: ga_make_key,
## ga_key_digit, ga_digit, ga_load_now, ga_excl_scan).  Variables: those
## sort.cu.mako lists for ``onesweep`` (kv, vin_t, vout_t, off_t, items,
## blocks, rank; tkind, bits, name).
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
    # whole warp parts and tiles in copies of their own (fixed offsets, no
    # lane tested): keys of up to 4 bytes alone, where they were measured
    # faster (H100, one call, twenty-third session: sort 2**28 f32 6.482 ->
    # 6.243 ms); with values carried (argsort 2**26 f32 2.873 -> 3.082)
    # and for int64 keys (9.831 -> 9.914) they were slower: kept out
    fullp = not kv and ebytes <= 4
    mbits = {"early_half": 4, "early_match": 8}.get(rank, 0)
%>\
// p + i elements by one IMAD.WIDE, where ptxas made the 64-bit sum of a
// sign-extended index with two LEAs and two IADD3s (all on the ALU pipe)
template <typename T>
__device__ __forceinline__ T *ga_wide_at(T *p, int i)
{
#if defined(__CUDA_ARCH__)
    T *q;
    asm("mad.wide.s32 %0, %1, %2, %3;" : "=l"(q) : "r"(i), "n"((int)sizeof(T)), "l"(p));
    __builtin_assume(__isGlobal(q));
    return q;
#else
    return p + i;
#endif
}
template <typename T>
__device__ __forceinline__ T *ga_wide_at(T *p, long long i) { return p + i; }

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

<%def name="load_count(full, early)">
## the warp part's loads, then its digit counts (early) or ranks in the
## part (late); full: every lane of the part valid (no test)
        // every load first, so that they are in flight together, and
        // volatile: ptxas otherwise sinks each load into its ranking round
        // and waits for it there (seen in the SASS: one load a round, the
        // tile's 16 memory latencies in a row)
% if full:
        const ga_elem *wk = kin + (wstart + lane);
#pragma unroll
        for (int r = 0; r < ${items}; ++r)
            k[r] = ga_load_now(wk + r * 32);
% else:
        // (unguarded: an index past the end reads the part's last
        // element, or element 0 for a part wholly past it)
        const ga_elem *wk = kin + (inside ? wstart : 0ll);
        const int lastoff = inside ? inside - 1 : 0;
#pragma unroll
        for (int r = 0; r < ${items}; ++r)
            k[r] = ga_load_now(wk + min(r * 32 + lane, lastoff));
% endif
#pragma unroll
        for (int r = 0; r < ${items}; ++r) {
% if kv:
            const long long e = wstart + r * 32 + lane;
% endif
% if full:
            const bool valid = true;
% else:
            const bool valid = r * 32 + lane < inside;
% endif
% if kv:
            const long long v = (valid && pass >= GA_KP) ? (vin ? (long long)vin[e] : e) : 0;
            unsigned int d = ga_digit(k[r], v, pass, L);
% else:
            // keys alone: key passes only (rows need carried positions)
            unsigned int d = ga_key_digit(ga_make_key(k[r]), pass);
% endif
% if early:
            dpk[r >> 2] |= d << (8 * (r & 3));
            if (valid) atomicAdd(&wh[d], 1u);
% else:
            d = valid ? d : 256u;
            const unsigned int peers = ga_peers(d, valid, ${"true" if full else "inside == 32 * %d" % items});
            // the digit's count so far in this warp's part; its first lane
            // (the leader) adds the round's lanes, from the value it read (a
            // shared read less than whist[..] += ..., which reads again past
            // the barrier)
            unsigned int rank = __popc(peers & below);
            unsigned int seen = 0u;
            if (valid) {
                seen = wh[d];
                rank += seen;
            }
            __syncwarp();
            if (valid && (peers & below) == 0u) wh[d] = seen + __popc(peers);
            __syncwarp();
            dr[r] = (d << 16) | rank;
% endif
        }
</%def>
<%def name="scatter_key(i, exw)">
## element ${i} of the staged tile: its bits x and digit d
% if exw == "ga_elem":
            const ga_elem x = exbuf[${i}];
% else:
            const ga_elem x = reinterpret_cast<const ga_elem *>(exbuf)[${i}];
% endif
% if kv:
            const unsigned int d = exd[${i}];
% else:
            // keys alone: the digit made again from the key (ALU work, where
            // a stored byte cost a shared store and load an element)
            const unsigned int d = ga_key_digit(ga_make_key(x), pass);
% endif
</%def>
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
            const unsigned int d = __byte_perm(dpk[r >> 2], 0u, 0x4440u | (r & 3));
            const unsigned int peers = ga_peers(d, valid, ${"true" if full else "false"});
            // the leader (the highest lane of the digit: one FLO) takes the
            // round's places; the others read their first from it
            const int leader = 31 - __clz(peers);
            unsigned int at = 0u;
            if (valid && lane == leader)
                at = atomicAdd(&wh[d], (unsigned int)__popc(peers));
            // (leader < 0 only for a round with no valid lane, whose value
            // nobody uses; the shuffle takes the lane modulo 32)
            at = __shfl_sync(0xffffffffu, at, leader);
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
// peers in a round are found by ballots and __match_any_sync (``rank``).
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
    unsigned int *const wh = whist + warp * 256;    // this warp's counts
    ga_elem k[${items}];
% if kv or not early:
    // digit << 16 | rank in the warp's part (early counts: the place in
    // the tile)
    unsigned int dr[${items}];
% endif
    // elements of the warp's part inside the array (32-bit compares below)
    const int inside = n - wstart >= 32 * ${items} ? 32 * ${items}
                       : (n > wstart ? (int)(n - wstart) : 0);
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
% if fullp:
    // (two copies, as for the rounds below: a warp part inside the array
    // loads at fixed offsets from one address and tests no lane, which
    // took about twelve instructions a round)
    if (inside == 32 * ${items}) {
${load_count(True, early)}
    } else {
${load_count(False, early)}
    }
% else:
    {
${load_count(False, early)}
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
            const unsigned int p = wh[d] + (dr[r] & 0xffffu);
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
    // (a whole tile, as all but the last one are: its elements at fixed
    // offsets, so that the stores' addresses take one IMAD.WIDE each, off
    // the ALU pipe)
% if fullp:
    if (cnt == GA_TILE) {
        ga_elem *const ko = kout + tid;
#pragma unroll
        for (int r = 0; r < ${items}; ++r) {
${scatter_key("tid + r * 256", exw)}
            ga_wide_at(ko, gbase[d])[r * 256] = x;
        }
    } else
% endif
    {
        for (int i = tid; i < cnt; i += 256) {
${scatter_key("i", exw)}
            kout[(long long)gbase[d] + i] = x;
        }
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
                const unsigned int p = wh[d] + (dr[r] & 0xffffu);
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
