## unique of integers (and bools) whose values span a small range: a
## bitmap over the range [lo, lo + R) of the elements' keys instead of a
## sort.  The key of a signed integer is its bits with the sign bit
## flipped (numpy's order as unsigned); bools and unsigned integers are
## their bits.  Rendered by gpuarr/_sortkernels.py (dense_specs); driven by
## gpuarr/_sorting.py (_unique_dense):
##   minmax   the smallest and largest key (atomics on two words the host
##            set to all ones and zero)
##   mark     the bit of every element's key - lo (a plain load first, so
##            a bit already set costs no atomic); or, counting, a 32-bit
##            count a key
##   words    per bitmap word its popcount (from the counts, by ballots,
##            the bitmap words written too)
##   emit     from the words' inclusive sum: every set bit's value at its
##            rank (and its count)
##   inverse  every element's rank
##
## Variables: name, kernel (one of the above), bits (8, 16, 32, 64), signed
## (bool), off_t (C type of the words' inclusive sum).
<%
    raw = {8: "unsigned char", 16: "unsigned short", 32: "unsigned int",
           64: "unsigned long long"}[bits]
    sign = (1 << (bits - 1)) if signed else 0
%>\
typedef ${raw} ga_bits;

// the element's key: its order as an unsigned number
__device__ __forceinline__ unsigned long long ga_dkey(ga_bits x)
{
    return (unsigned long long)x ^ ${sign}ull;
}

% if kernel == "minmax":
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_bits *__restrict__ a, long long n, unsigned long long *__restrict__ mm)
{
    unsigned long long lo = ~0ull, hi = 0ull;
    const long long step = (long long)gridDim.x * 256;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step) {
        const unsigned long long k = ga_dkey(a[i]);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    for (int d = 16; d >= 1; d >>= 1) {
        const unsigned long long l2 = __shfl_xor_sync(0xffffffffu, lo, d);
        const unsigned long long h2 = __shfl_xor_sync(0xffffffffu, hi, d);
        lo = l2 < lo ? l2 : lo;
        hi = h2 > hi ? h2 : hi;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(mm, lo);
        atomicMax(mm + 1, hi);
    }
}
% elif kernel == "mark":
// bitmap (R bits, zeroed) or counts (R words, zeroed): exactly one is set
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_bits *__restrict__ a, long long n, unsigned long long lo,
        unsigned int *bitmap, unsigned int *counts)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step) {
        const unsigned long long d = ga_dkey(a[i]) - lo;
        if (counts) {
            atomicAdd(counts + d, 1u);
        } else {
            unsigned int *w = bitmap + (d >> 5);
            const unsigned int b = 1u << (unsigned int)(d & 31);
            // bits are only ever set: one seen set stays set
            if (!(__ldcg(w) & b))
                atomicOr(w, b);
        }
    }
}
% elif kernel == "words":
// thread d for bit d of the bitmap (nwords * 32 threads in all, so a warp's
// lanes run the loop together); counts given: the bit is counts[d] != 0
// (d < R) and the word is written, else the bitmap is read
extern "C" __global__ void __launch_bounds__(256)
${name}(unsigned int *bitmap, const unsigned int *__restrict__ counts,
        long long nwords, unsigned long long R, int *__restrict__ pc)
{
    const long long step = (long long)gridDim.x * 256;
    const long long nbits = nwords * 32;
    for (long long d = (long long)blockIdx.x * 256 + threadIdx.x; d < nbits; d += step) {
        unsigned int word;
        if (counts) {
            const bool set = (unsigned long long)d < R && counts[d] != 0u;
            word = __ballot_sync(0xffffffffu, set);
        } else {
            word = bitmap[d >> 5];
        }
        if ((d & 31) == 0) {
            if (counts)
                bitmap[d >> 5] = word;
            pc[d >> 5] = __popc(word);
        }
    }
}
% elif kernel == "emit":
// csum: the inclusive sum of the words' popcounts; a set bit d goes to
// its rank, csum[w] less the set bits of its word from d up
extern "C" __global__ void __launch_bounds__(256)
${name}(const unsigned int *__restrict__ bitmap, const ${off_t} *__restrict__ csum,
        unsigned long long R, unsigned long long lo, ga_bits *__restrict__ uniq,
        const unsigned int *__restrict__ counts, long long *__restrict__ cout)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long d = (long long)blockIdx.x * 256 + threadIdx.x;
         (unsigned long long)d < R; d += step) {
        const unsigned int word = bitmap[d >> 5];
        const unsigned int bit = (unsigned int)(d & 31);
        if ((word >> bit) & 1u) {
            const long long r = (long long)csum[d >> 5] - __popc(word >> bit);
            uniq[r] = (ga_bits)((lo + (unsigned long long)d) ^ ${sign}ull);
            if (cout)
                cout[r] = (long long)counts[d];
        }
    }
}
% elif kernel == "inverse":
extern "C" __global__ void __launch_bounds__(256)
${name}(const ga_bits *__restrict__ a, long long n, unsigned long long lo,
        const unsigned int *__restrict__ bitmap, const ${off_t} *__restrict__ csum,
        long long *__restrict__ inverse)
{
    const long long step = (long long)gridDim.x * 256;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step) {
        const unsigned long long d = ga_dkey(a[i]) - lo;
        const unsigned int word = bitmap[d >> 5];
        inverse[i] = (long long)csum[d >> 5] - __popc(word >> (unsigned int)(d & 31));
    }
}
% endif
