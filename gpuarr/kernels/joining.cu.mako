## The batched strided copy of joins (concatenate, stack, ...): one launch
## copies many source arrays into views of one output.
##
## The sources are described by a table in device memory, one row of
## ``width`` long longs per non-empty source (see gpuarr/_joinkernels.py,
## which builds it):
##   [0] source address   [1] destination address   [2] unit count
##   [3] first chunk of this row   [4] code: -w for a raw copy of w-byte
##       units (w in 1, 2, 4, 8, 16: a source of the output's dtype, its
##       bytes moved as they are), k >= 0 for a cast from src_dts[k]
##   [5 .. 5+ndim)          the row's shape in units (merged)
##   [5+ndim .. 5+2*ndim)   source strides, in units
##   [5+2*ndim .. 5+3*ndim) destination strides, in units
## (a cast row's units are its elements).  A chunk is ``block * unroll``
## consecutive units (C order of the row's shape) of one row, each thread
## moving ``unroll`` of them, loads before stores.  The grid is persistent:
## block b takes chunks b, b + gridDim.x, ... and finds each one's row by a
## binary search over [3] (from the last row it was on; in shared memory
## for tables of at most ``srows`` rows), which every thread of the block
## does alike.
##
## Variables (all required):
##   name      kernel name
##   out_dt    the output's numpy dtype
##   src_dts   the cast sources' numpy dtypes, distinct (may be empty)
##   ndim      dimensions of every row's shape (leading 1s pad shorter ones)
##   itype     index type of the offsets, "int" or "long long"
##   block     threads per block
##   unroll    units per thread and chunk
##   srows     rows whose first chunks a block keeps in shared memory (0:
##             none, every search reads the table)
<%!
    from gpuarr._dtypes import ctype
    RAW = ((16, "uint4"), (8, "unsigned long long"), (4, "unsigned int"),
           (2, "unsigned short"), (1, "unsigned char"))
%>\
<%namespace name="common" file="common.cu.mako"/>\
${common.types()}
<%
    W = 5 + 3 * ndim
    chunk = block * unroll
%>\
typedef ${itype} ga_join_index;

// unit i of a row (C order of its shape): its source and destination offsets
__device__ __forceinline__ void ga_join_offsets(const long long *__restrict__ row,
                                                ga_join_index i,
                                                ga_join_index &so, ga_join_index &dO)
{
    typedef ga_join_index I;
    I r = i;
    so = 0;
    dO = 0;
% for d in reversed(range(1, ndim)):
    {
        const I sh = (I)row[${5 + d}];
        const I q = r / sh;
        const I x = r - q * sh;
        so += x * (I)row[${5 + ndim + d}];
        dO += x * (I)row[${5 + 2 * ndim + d}];
        r = q;
    }
% endfor
    so += r * (I)row[${5 + ndim}];
    dO += r * (I)row[${5 + 2 * ndim}];
}

// the bytes of `unroll` units of a raw row, loads first
template <typename U>
__device__ __forceinline__ void ga_join_raw(const long long *__restrict__ row,
                                            ga_join_index base)
{
    typedef ga_join_index I;
    const U *__restrict__ src = reinterpret_cast<const U *>(row[0]);
    U *__restrict__ dst = reinterpret_cast<U *>(row[1]);
    const I n = (I)row[2];
    U v[${unroll}];
    I dO[${unroll}];
#pragma unroll
    for (int u = 0; u < ${unroll}; ++u) {
        const I i = base + u * ${block};
        if (i < n) {
            I so;
            ga_join_offsets(row, i, so, dO[u]);
            v[u] = src[so];
        }
    }
#pragma unroll
    for (int u = 0; u < ${unroll}; ++u)
        if (base + u * ${block} < n)
            dst[dO[u]] = v[u];
}

extern "C" __global__ void __launch_bounds__(${block})
${name}(const long long *__restrict__ tab, int nrows, long long nchunks)
{
    typedef ga_join_index I;
% if srows:
    __shared__ long long firsts[${srows}];
    const bool shared_firsts = nrows <= ${srows};
    if (shared_firsts)
        for (int r = threadIdx.x; r < nrows; r += ${block})
            firsts[r] = tab[(long long)r * ${W} + 3];
    __syncthreads();
% endif
    int lo = 0;
    for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
        // the last row whose first chunk is <= c; rows only move forward
        int hi = nrows - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            const long long f = ${"shared_firsts ? firsts[mid] : " if srows else ""}tab[(long long)mid * ${W} + 3];
            if (f <= c) lo = mid; else hi = mid - 1;
        }
        const long long *__restrict__ row = tab + (long long)lo * ${W};
        const I base = (I)(c - row[3]) * ${chunk} + (I)threadIdx.x;
        switch ((int)row[4]) {
% for w, ut in RAW:
        case -${w}: ga_join_raw<${ut}>(row, base); break;
% endfor
% for code, sdt in enumerate(src_dts):
        case ${code}: {
            const ${ctype(sdt)} *__restrict__ src = reinterpret_cast<const ${ctype(sdt)} *>(row[0]);
            ${ctype(out_dt)} *__restrict__ dst = reinterpret_cast<${ctype(out_dt)} *>(row[1]);
            const I n = (I)row[2];
            ${ctype(sdt)} v[${unroll}];
            I dO[${unroll}];
#pragma unroll
            for (int u = 0; u < ${unroll}; ++u) {
                const I i = base + u * ${block};
                if (i < n) {
                    I so;
                    ga_join_offsets(row, i, so, dO[u]);
                    v[u] = src[so];
                }
            }
#pragma unroll
            for (int u = 0; u < ${unroll}; ++u)
                if (base + u * ${block} < n)
                    dst[dO[u]] = ${common.store(common.convert(common.load("v[u]", sdt), sdt, out_dt), out_dt)};
            break;
        }
% endfor
        default:
            break;
        }
    }
}
