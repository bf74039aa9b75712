## The join of many parts alike (one shape and dtype, C-contiguous, into a
## new C-contiguous output): part k's ``outer`` rows of ``npr`` units each
## go to columns [k * npr, (k + 1) * npr) of the output's rows of ``rw``
## units (one row when the join is along axis 0).  Units are the widest
## raw width (up to 16 bytes) that every address and row length allows.
##
## The blocks take chunks of ``block * unroll`` units in the join's order
## (part 0's chunks, then part 1's, ...), block b the chunks b, b + grid,
## ..., each thread ``unroll`` units of a chunk, every load before any
## store.  So the blocks resident at a time copy a window of neighbouring
## chunks (DRAM pages read and written in order, as one long copy does),
## and every block has the same share whatever the number of parts (no
## second wave of blocks).  The table holds the parts' source addresses
## alone: no row search, no per-chunk reads of a row's description, and
## few enough registers for eight blocks an SM (the general joining
## kernel, joining.cu.mako, takes 62 a thread for its switch over unit
## widths and casts: four blocks an SM).
##
## Variables (all required):
##   name     kernel name
##   unit     C type of a unit ("unsigned char" ... "uint4")
##   rows     whether there are several rows (outer > 1: a division a unit)
##   itype    index type, "int" or "long long"
##   block    threads per block
##   unroll   units per thread and chunk
##   bps      blocks an SM the launch bound asks registers for (8: 32 a
##            thread)
<% chunk = block * unroll %>\
typedef ${itype} ga_alike_index;

## (eight blocks an SM bound the registers to 32: no spills by default
## but for 64-bit positions with several rows, which are left unbounded.
## The bound is at most what an SM's 2048 threads hold: ptxas ignores
## more)
extern "C" __global__ void __launch_bounds__(${block}${", %d" % min(bps, 2048 // block) if itype == "int" or not rows else ""})
${name}(const long long *__restrict__ srcs, ${unit} *__restrict__ dst,
        long long npr_, long long outer_, long long rw_, int nparts)
{
    typedef ga_alike_index I;
    const I npr = (I)npr_;
    const I n = npr * (I)outer_;            // units of a part
    const I cpp = (n + ${chunk - 1}) / ${chunk};     // chunks of a part
    const I total = cpp * (I)nparts;
% if rows:
    const I rw = (I)rw_;
% else:
    (void)rw_;
% endif
    // chunk c is chunk xb of part k; the step is gridDim.x chunks (a
    // division only where a step leaves the part: one step may pass many
    // parts of few chunks each)
    int k = (int)((I)blockIdx.x / cpp);
    I xb = (I)blockIdx.x - (I)k * cpp;
    for (I c = (I)blockIdx.x; c < total; c += (I)gridDim.x) {
        if (xb >= cpp) {
            const I q = xb / cpp;
            xb -= q * cpp;
            k += (int)q;
        }
        const I base = xb * ${chunk} + (I)threadIdx.x;
        xb += (I)gridDim.x;
        const ${unit} *__restrict__ src = reinterpret_cast<const ${unit} *>(srcs[k]);
        ${unit} *__restrict__ d = dst + (I)k * npr;
        ${unit} v[${unroll}];
#pragma unroll
        for (int u = 0; u < ${unroll}; ++u) {
            const I i = base + u * ${block};
            if (i < n)
                v[u] = src[i];
        }
#pragma unroll
        for (int u = 0; u < ${unroll}; ++u) {
            const I i = base + u * ${block};
            if (i < n) {
% if rows:
                const I r = i / npr;
                d[r * rw + (i - r * npr)] = v[u];
% else:
                d[i] = v[u];
% endif
            }
        }
    }
}
