## The batched strided copy of joins (concatenate, stack, ...): one launch
## copies many source arrays into views of one output, casting each value
## to the output's dtype.
##
## The sources are described by a table in device memory, one row of
## ``width`` long longs per non-empty source (see gpuarr/_joinkernels.py,
## which builds it):
##   [0] source address   [1] destination address   [2] element count
##   [3] first block of this row   [4] source dtype code (index in src_dts)
##   [5 .. 5+ndim)          the row's shape (merged)
##   [5+ndim .. 5+2*ndim)   source strides, in elements
##   [5+2*ndim .. 5+3*ndim) destination strides, in elements
## Each block copies ``block * unroll`` consecutive elements (C order of the
## row's shape) of one row; it finds its row by a binary search over [3],
## which every thread of the block does alike (broadcast loads).
##
## Variables (all required):
##   name      kernel name
##   out_dt    the output's numpy dtype
##   src_dts   the sources' numpy dtypes, distinct; a row's code indexes it
##   ndim      dimensions of every row's shape (leading 1s pad shorter ones)
##   itype     index type of the offsets, "int" or "long long"
##   block     threads per block
##   unroll    elements per thread
<%!
    from gpuarr._dtypes import ctype
%>\
<%namespace name="common" file="common.cu.mako"/>\
${common.types()}
<%
    W = 5 + 3 * ndim
    chunk = block * unroll
%>\
extern "C" __global__ void __launch_bounds__(${block})
${name}(const long long *__restrict__ tab, int nrows)
{
    typedef ${itype} I;
    const long long b = blockIdx.x;
    int lo = 0, hi = nrows - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (tab[(long long)mid * ${W} + 3] <= b) lo = mid; else hi = mid - 1;
    }
    const long long *__restrict__ row = tab + (long long)lo * ${W};
    const I n = (I)row[2];
    const I base = (I)(b - row[3]) * ${chunk} + (I)threadIdx.x;
% for d in range(ndim):
    const I sh${d} = (I)row[${5 + d}];
    const I ss${d} = (I)row[${5 + ndim + d}];
    const I ds${d} = (I)row[${5 + 2 * ndim + d}];
% endfor
    ${ctype(out_dt)} *__restrict__ dst = reinterpret_cast<${ctype(out_dt)} *>(row[1]);
    (void)sh0;
    switch ((int)row[4]) {
% for code, sdt in enumerate(src_dts):
    case ${code}: {
        const ${ctype(sdt)} *__restrict__ src = reinterpret_cast<const ${ctype(sdt)} *>(row[0]);
#pragma unroll
        for (int u = 0; u < ${unroll}; ++u) {
            const I i = base + u * ${block};
            if (i < n) {
                I r = i, so = 0, dO = 0;
% for d in reversed(range(1, ndim)):
                {
                    const I q = r / sh${d};
                    const I x = r - q * sh${d};
                    so += x * ss${d};
                    dO += x * ds${d};
                    r = q;
                }
% endfor
                so += r * ss0;
                dO += r * ds0;
                dst[dO] = ${common.store(common.convert(common.load("src[so]", sdt), sdt, out_dt), out_dt)};
            }
        }
        break;
    }
% endfor
    default:
        break;
    }
}
