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
##   single  whether the launch moves one array (m == 1: the other
##           arrays' parameters are left unread)
##   batch   indices a thread takes per step of its loop, every index and
##           value of a step loaded before its stores (more loads in
##           flight a thread), for single takes (1 otherwise: with 16
##           arrays the compiler keeps every array's addressing in
##           registers, 96 a thread at a batch of 4)
struct __align__(8) ga_unit16 { unsigned long long lo, hi; };

extern "C" __global__ void __launch_bounds__(${block}${", %d" % (2048 // block) if batch > 1 else ""})
${name}(const ${idx_t} *__restrict__ idx, long long n, unsigned long long *bad, int m\
% for v in range(nvec):
, const ${unit} *__restrict__ src${v}\
% endfor
% for v in range(nvec):
, ${unit} *__restrict__ dst${v}\
% endfor
% for v in range(nvec):
, long long size${v}\
% endfor
% if kind == "put":
% for v in range(nvec):
, long long nval${v}\
% endfor
% endif
)
{
    (void)bad;
% if batch == 1:
    const long long stride = (long long)gridDim.x * ${block};
    for (long long i = (long long)blockIdx.x * ${block} + threadIdx.x; i < n; i += stride) {
        // numpy converts the index to intp first: unsigned 64-bit values
        // past 2**63 - 1 become negative
        const long long k = (long long)idx[i];
% for v in range(1 if single else nvec):
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
                dst${v}[i] = src${v}[j];
% else:
                dst${v}[j] = src${v}[i < nval${v} ? i : i % nval${v}];
% endif
            }
        }
% endfor
    }
% else:
    const long long stride = (long long)gridDim.x * ${block * batch};
    for (long long i0 = (long long)blockIdx.x * ${block * batch} + threadIdx.x; i0 < n; i0 += stride) {
        long long k[${batch}];
#pragma unroll
        for (int u = 0; u < ${batch}; ++u) {
            const long long i = i0 + u * ${block};
            k[u] = i < n ? (long long)idx[i] : 0;
        }
% for v in range(1 if single else nvec):
        if (${v} < m) {
            ${unit} val[${batch}];
            bool ok[${batch}];
#pragma unroll
            for (int u = 0; u < ${batch}; ++u) {
                const long long i = i0 + u * ${block};
% if mode == "raise":
                const long long j = k[u] < 0 ? k[u] + size${v} : k[u];
                ok[u] = i < n && (unsigned long long)j < (unsigned long long)size${v};
                if (i < n && !ok[u])
                    atomicMin(bad, (unsigned long long)i);
% elif mode == "wrap":
                long long j = k[u] % size${v};
                if (j < 0) j += size${v};
                ok[u] = i < n;
% else:
                const long long j = k[u] < 0 ? 0 : (k[u] >= size${v} ? size${v} - 1 : k[u]);
                ok[u] = i < n;
% endif
                if (ok[u])
                    val[u] = src${v}[j];
            }
#pragma unroll
            for (int u = 0; u < ${batch}; ++u)
                if (ok[u])
                    dst${v}[i0 + u * ${block}] = val[u];
        }
% endfor
    }
% endif
}
