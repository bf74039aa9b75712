## Counts (or weight sums) of values into bins whose edges sit in shared
## memory, numpy.histogram's rule: bin k holds edges[k] <= v < edges[k+1],
## the last bin its right edge too; values outside [edges[0], edges[nb]]
## and NaN are not counted.  k is the largest index with edges[k] <= v,
## capped at nb - 1 (what searchsorted(edges, v, "right") - 1 gives, also
## for repeated edges).  Each block counts into shared memory and adds its
## counts to the result with one global atomic per bin it touched.
##
## With scale > 0 (equal bins) the bin is first guessed as
## (v - edges[0]) * scale and then moved until the edges' comparisons hold;
## otherwise it is found by binary search.  Either way the comparisons
## decide, so the result is the same.
##
## Variables (all required):
##   name      kernel name
##   data_t    C type of the values (integers, ga_half, float, double)
##   cmp_t     C type both sides are compared in (numpy's promoted type)
##   weighted  add double weights (w) instead of counting
##   block     threads per block
<%namespace name="common" file="common.cu.mako"/>\
${common.types()}
<% acc_t = "double" if weighted else "unsigned int" %>
extern "C" __global__ void __launch_bounds__(${block})
${name}(const ${data_t} *__restrict__ a, long long n, long long stride,
        const ${cmp_t} *__restrict__ edges, int nb, double scale,
        ${"double" if weighted else "unsigned long long"} *counts,
        const double *__restrict__ w)
{
    // edges first, then the counts, each 8-byte aligned
    extern __shared__ double ga_hist_smem[];
    ${cmp_t} *e = (${cmp_t} *)ga_hist_smem;
    ${acc_t} *c = (${acc_t} *)(ga_hist_smem + (((long long)(nb + 1) * sizeof(${cmp_t}) + 7) / 8));
    for (int k = threadIdx.x; k <= nb; k += ${block})
        e[k] = edges[k];
    for (int k = threadIdx.x; k < nb; k += ${block})
        c[k] = 0;
    __syncthreads();
    const ${cmp_t} lo = e[0], hi = e[nb];
    const long long step = (long long)gridDim.x * ${block};
    for (long long i = (long long)blockIdx.x * ${block} + threadIdx.x; i < n; i += step) {
        const ${cmp_t} v = (${cmp_t})a[i * stride];
        if (!(v >= lo && v <= hi))          // outside, or NaN
            continue;
        int k;
        if (scale > 0) {
            double g = ((double)v - (double)lo) * scale;
            k = g < 0 ? 0 : (g >= (double)(nb - 1) ? nb - 1 : (int)g);
            while (k > 0 && e[k] > v)
                --k;
            while (k < nb - 1 && e[k + 1] <= v)
                ++k;
        } else {
            // e[l] <= v; r == nb or e[r] > v
            int l = 0, r = nb;
            while (r - l > 1) {
                const int m = (l + r) >> 1;
                if (e[m] <= v)
                    l = m;
                else
                    r = m;
            }
            k = l;
        }
% if weighted:
        atomicAdd(&c[k], w[i]);
% else:
        atomicAdd(&c[k], 1u);
% endif
    }
    __syncthreads();
    for (int k = threadIdx.x; k < nb; k += ${block}) {
        if (c[k] != 0)
% if weighted:
            atomicAdd(&counts[k], c[k]);
% else:
            atomicAdd(&counts[k], (unsigned long long)c[k]);
% endif
    }
}
