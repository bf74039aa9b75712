## Gathers and scatters through an index array, for up to ``nvec`` arrays
## at once (PyCUDA's take, multi_take and multi_put with numpy's index
## rules).  Values move as raw units of their item size: no casting.
##
## take  (kind "take"): dst_v[i] = src_v[j(idx[i], size_v)] for i < n
## put   (kind "put"):  dst_v[j(idx[i], size_v)] = src_v[i % nval_v]
##                      (arrays with nval_v == 0 are skipped, as numpy's put)
## j() follows numpy's mode: "raise" wraps negative indices once and, for an
## index still outside [0, size_v), skips the element and lowers ``*bad`` to
## the smallest such i (atomicMin; the host sets it to all ones first and
## reads it back); "wrap" takes the index modulo size_v; "clip" clips it to
## [0, size_v - 1].
##
## Variables (all required):
##   name    kernel name
##   kind    "take" or "put"
##   unit    C type of one element's bytes (unsigned char ... ga_unit16)
##   idx_t   C type of the stored index (bool, signed char, ...)
##   mode    "raise", "wrap" or "clip"
##   nvec    arrays per launch (parameters; the first ``m`` are used)
##   block   threads per block
##   single  whether the launch moves one array (m == 1: the parameters
##           of one array alone, a short argument list to pack)
##   stream  whether the index array is loaded and a take's output stored
##           with the streaming hints (evict first: read or written once,
##           they should not push the gathered array out of L2)
<%namespace name="common" file="common.cu.mako"/>\
struct __align__(8) ga_unit16 { unsigned long long lo, hi; };
% if stream:

${common.streaming()}
% endif
<% load_idx = "ga_ldcs(idx + i)" if stream else "idx[i]" %>\

<% nv = 1 if single else nvec %>\
extern "C" __global__ void __launch_bounds__(${block})
${name}(const ${idx_t} *__restrict__ idx, long long n, unsigned long long *bad, int m\
% for v in range(nv):
, const ${unit} *__restrict__ src${v}\
% endfor
% for v in range(nv):
, ${unit} *__restrict__ dst${v}\
% endfor
% for v in range(nv):
, long long size${v}\
% endfor
% if kind == "put":
% for v in range(nv):
, long long nval${v}\
% endfor
% endif
)
{
    (void)bad;
    const long long stride = (long long)gridDim.x * ${block};
    for (long long i = (long long)blockIdx.x * ${block} + threadIdx.x; i < n; i += stride) {
        // numpy converts the index to intp first: unsigned 64-bit values
        // past 2**63 - 1 become negative
        const long long k = (long long)${load_idx};
% for v in range(nv):
        if (${v} < m${" && nval%d > 0" % v if kind == "put" else ""}) {
% if mode == "raise":
            const long long j = k < 0 ? k + size${v} : k;
            if ((unsigned long long)j >= (unsigned long long)size${v}) {
                atomicMin(bad, (unsigned long long)i);
            } else {
% elif mode == "wrap":
            long long j = k % size${v};
            if (j < 0) j += size${v};
            {
% else:
            const long long j = k < 0 ? 0 : (k >= size${v} ? size${v} - 1 : k);
            {
% endif
% if kind == "take":
% if stream:
                ga_stcs(dst${v} + i, src${v}[j]);
% else:
                dst${v}[i] = src${v}[j];
% endif
% else:
                dst${v}[j] = src${v}[i < nval${v} ? i : i % nval${v}];
% endif
            }
        }
% endfor
    }
}
