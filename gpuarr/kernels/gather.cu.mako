## The axis-separable gather of pad, repeat, tril and triu: one launch
## writes every element of a C-contiguous output from a strided source,
## moving items as raw units of their size (no casting).
##
## Output element i (C order of the shape n0 .. n{ndim-1}) has coordinates
## c0 .. c{ndim-1}.  On axis d the source coordinate is
##     x = c - lo_d                 for lo_d <= c < lo_d + nc_d (the centre)
##     x = table[tb_d + c]          for c < lo_d
##     x = table[tb_d + c - nc_d]   for c >= lo_d + nc_d
## (the table holds the lo_d entries before the centre, then those after
## it).  A table entry t < 0 marks a constant: the element takes the unit
## at table[cbase + words * (-1 - t)], the mark of the highest such axis
## winning (numpy.pad's corners).  Otherwise the source unit is at
## src + sum_d x_d * s_d (strides in units, any sign).  With tri = 1
## (tril) or 2 (triu) an element whose last two coordinates (r, c) have
## c - r > k (tril) or c - r < k (triu) is zero instead.
##
## Variables (all required):
##   name    kernel name
##   unit    C type of one item's bytes (unsigned char ... ga_unit16)
##   words   int64 words one constant takes in the table (1 or 2)
##   ndim    dimensions of the output (at least 2)
##   itype   type of the output index, "int" or "long long"
##   block   threads per block
struct __align__(8) ga_unit16 { unsigned long long lo, hi; };

typedef ${itype} ga_gather_index;
typedef ${unit} ga_gather_unit;

extern "C" __global__ void __launch_bounds__(${block})
${name}(const ga_gather_unit *__restrict__ src, ga_gather_unit *__restrict__ dst,
        const long long *__restrict__ table, int tri, long long k,
        long long cbase, ga_gather_index n\
% for d in range(ndim):
, ga_gather_index n${d}, long long lo${d}, long long nc${d}, long long s${d}, long long tb${d}\
% endfor
)
{
    typedef ga_gather_index I;
    const I stride = (I)gridDim.x * ${block};
    for (I i = (I)blockIdx.x * ${block} + threadIdx.x; i < n; i += stride) {
        I r = i;
        long long off = 0;
        long long mark = -1;
% for d in reversed(range(ndim)):
% if d > 0:
        const I q${d} = r / n${d};
        const long long c${d} = (long long)(r - q${d} * n${d});
        r = q${d};
% else:
        const long long c${d} = (long long)r;
% endif
        {
            long long x = c${d} - lo${d};
            if (x < 0 || x >= nc${d}) {
                const long long t = table[tb${d} + (x < 0 ? c${d} : c${d} - nc${d})];
                if (t < 0) {
                    if (mark < 0) mark = -1 - t;
                    x = 0;
                } else {
                    x = t;
                }
            }
            off += x * s${d};
        }
% endfor
        ga_gather_unit v;
        if (mark >= 0) {
            v = *reinterpret_cast<const ga_gather_unit *>(table + cbase + ${words} * mark);
        } else if (tri != 0 && (tri == 1 ? c${ndim - 1} - c${ndim - 2} > k
                                         : c${ndim - 1} - c${ndim - 2} < k)) {
            v = ga_gather_unit();
        } else {
            v = src[off];
        }
        dst[i] = v;
    }
}
