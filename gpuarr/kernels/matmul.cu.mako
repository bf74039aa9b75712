## The matrix product of integer and bool matrices (numpy's exact results:
## sums of products wrapping modulo 2**bits of the result type; for bool
## the OR of ANDs), batched, any element strides.  Float and complex
## products go to cuBLAS instead (gpuarr/_blas.py).
##
## C[z][i, j] = sum_p A[z][i, p] * B[z][p, j] for z < batch, where
## X[z][r, c] is at X + z * sx + r * sxr + c * sxc (strides in elements,
## any sign; 0 repeats).  One block of 16 x 16 threads computes 16 x 16
## outputs at a time, staging 16 x 16 tiles of A and B in shared memory;
## blocks stride over the tiles (grid y and z are capped) and the batch.
##
## Variables (all required):
##   name    kernel name
##   ctype   C type of the elements
##   acc     C type the sums are formed in: the unsigned integer of at
##           least 32 bits (wrapping without undefined behaviour, truncated
##           to ctype at the end), or "unsigned int" for bool
##   logic   True for bool (OR of ANDs)
typedef ${ctype} ga_mm_t;
typedef ${acc} ga_mm_acc;

extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_mm_t *__restrict__ A, const ga_mm_t *__restrict__ B,
        ga_mm_t *__restrict__ C, long long m, long long n, long long k,
        long long batch, long long sa, long long sar, long long sac,
        long long sb, long long sbr, long long sbc,
        long long sc, long long scr, long long scc)
{
    __shared__ ga_mm_acc ta[16][17];
    __shared__ ga_mm_acc tb[16][17];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long z = blockIdx.z; z < batch; z += gridDim.z) {
        const ga_mm_t *a = A + z * sa;
        const ga_mm_t *b = B + z * sb;
        ga_mm_t *c = C + z * sc;
        for (long long i0 = (long long)blockIdx.y * 16; i0 < m;
             i0 += (long long)gridDim.y * 16) {
            for (long long j0 = (long long)blockIdx.x * 16; j0 < n;
                 j0 += (long long)gridDim.x * 16) {
                const long long i = i0 + ty, j = j0 + tx;
                ga_mm_acc s = 0;
                for (long long p0 = 0; p0 < k; p0 += 16) {
                    const long long pa = p0 + tx, pb = p0 + ty;
% if logic:
                    ta[ty][tx] = (i < m && pa < k) ? (ga_mm_acc)(a[i * sar + pa * sac] != 0) : 0u;
                    tb[ty][tx] = (pb < k && j < n) ? (ga_mm_acc)(b[pb * sbr + j * sbc] != 0) : 0u;
% else:
                    ta[ty][tx] = (i < m && pa < k) ? (ga_mm_acc)a[i * sar + pa * sac] : (ga_mm_acc)0;
                    tb[ty][tx] = (pb < k && j < n) ? (ga_mm_acc)b[pb * sbr + j * sbc] : (ga_mm_acc)0;
% endif
                    __syncthreads();
#pragma unroll
                    for (int q = 0; q < 16; ++q) {
% if logic:
                        s |= ta[ty][q] & tb[q][tx];
% else:
                        s += ta[ty][q] * tb[q][tx];
% endif
                    }
                    __syncthreads();
                }
                if (i < m && j < n)
% if logic:
                    c[i * scr + j * scc] = s != 0u;
% else:
                    c[i * scr + j * scc] = (ga_mm_t)s;
% endif
            }
        }
    }
}
