## cuRAND device-API generators: one module per generator kind.
##
## Variables:
##   state        the cuRAND state type, e.g. "curandStateXORWOW"
##   seeded       True: curand_init(seed, subsequence, offset, state)
##                (XORWOW, MRG32k3a); False: a Sobol form,
##                curand_init(direction vectors, [scramble,] offset, state)
##   scrambled    Sobol: the scrambled form (a scramble constant per state)
##   bits         32 or 64: the Sobol word (direction vectors of 32 or 64
##                words; offsets and skips are 32-bit for Sobol32 only)
##   subsequence  MRG32k3a: also skipahead_subsequence
##   local_state  copy the state into registers for a fill (small states),
##                else work on it in global memory (the Sobol states hold
##                their 32 or 64 direction vectors)
##   fills        [(kernel name, dist, C output type)] with dist one of
##                "uniform", "raw", "normal", "normal2", "log_normal",
##                "log_normal2", "poisson", "poisson_inplace" (the element's
##                value is its mean, replaced by the draw)
##
## Every kernel runs with one thread per state (grid * block = states).
## Fills: thread t draws the elements t, t + S, t + 2 S, ... of the output
## (S = number of states) in that order, each with one cuRAND call on state
## t, as PyCUDA's generators do; the "2" forms draw pairs (elements 2p,
## 2p + 1 from one curand_normal2 call, p = t, t + S, ...).  So the values
## are cuRAND's own for each state's (seed, subsequence, offset) or
## (direction vectors, scramble, offset).
<%
    S = state
    sobol_vec = "unsigned int" if bits == 32 else "unsigned long long"
    skip_t = "unsigned int" if (not seeded and bits == 32) else "unsigned long long"
    offset_t = skip_t
    def call(dist, ctype):
        dbl = ctype == "double"
        return {
            "uniform": "curand_uniform_double(sp)" if dbl else "curand_uniform(sp)",
            # a 64-bit Sobol word's low 32 bits are 0 for its first 2**32
            # points: 32-bit outputs take its high 32 bits
            "raw": ("(%s)(curand(sp) >> 32)" % ctype
                    if (not seeded and bits == 64 and ctype != "unsigned long long")
                    else "(%s)curand(sp)" % ctype),
            "normal": "curand_normal_double(sp)" if dbl else "curand_normal(sp)",
            "normal2": "curand_normal2_double(sp)" if dbl else "curand_normal2(sp)",
            "log_normal": ("curand_log_normal_double(sp, mean, stddev)" if dbl
                           else "curand_log_normal(sp, mean, stddev)"),
            "log_normal2": ("curand_log_normal2_double(sp, mean, stddev)" if dbl
                            else "curand_log_normal2(sp, mean, stddev)"),
            "poisson": "curand_poisson(sp, lambda)",
            "poisson_inplace": "(%s)curand_poisson(sp, (double)d[i])" % ctype,
        }[dist]
    def params(dist, ctype):
        if dist.startswith("log_normal"):
            return ", const %s mean, const %s stddev" % (ctype, ctype)
        if dist == "poisson":
            return ", const double lambda"
        return ""
%>
#include <curand_kernel.h>

#define GA_CURAND_THREADS 1024

extern "C" {

// sizeof the state, read by the host (Module.get_global)
__device__ unsigned int ga_curand_state_size = sizeof(${S});

<%def name="begin(load)">\
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
% if load:
    ${S} st = s[t];
    ${S} *sp = &st;
% else:
    ${S} *sp = s + t;
% endif
</%def>

% if seeded:
__global__ void __launch_bounds__(GA_CURAND_THREADS)
ga_curand_init(${S} *s, const unsigned int n, const unsigned int *seed,
               const unsigned long long offset)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    ${S} st;
    curand_init((unsigned long long)seed[t], (unsigned long long)t, offset, &st);
    s[t] = st;
}
% else:
__global__ void __launch_bounds__(GA_CURAND_THREADS)
ga_curand_init(${S} *s, const unsigned int n, const ${sobol_vec} *v,
% if scrambled:
               const ${sobol_vec} *scramble,
% endif
               const ${offset_t} offset)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    curand_init((${sobol_vec} *)(v + (unsigned long long)t * ${bits}),
% if scrambled:
                scramble[t],
% endif
                offset, s + t);
}
% endif

% for name, dist, ctype in fills:
<% pair = dist.endswith("2") %>\
__global__ void __launch_bounds__(GA_CURAND_THREADS)
${name}(${S} *__restrict__ s, ${ctype} *__restrict__ d,
        const unsigned long long n${params(dist, ctype)}${", const int aligned" if pair else ""})
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
${begin(local_state)}\
% if pair:
    if (aligned) {
        for (; i < n; i += stride)
            reinterpret_cast<${ctype}2 *>(d)[i] = ${call(dist, ctype)};
    } else {
        for (; i < n; i += stride) {
            const ${ctype}2 v = ${call(dist, ctype)};
            d[2 * i] = v.x;
            d[2 * i + 1] = v.y;
        }
    }
% else:
    for (; i < n; i += stride)
        d[i] = ${call(dist, ctype)};
% endif
% if local_state:
    s[t] = st;
% endif
}

% endfor
<%def name="skip(kname, fn)">
__global__ void __launch_bounds__(GA_CURAND_THREADS)
${kname}(${S} *s, const unsigned int n, const ${skip_t} k)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        ${fn}(k, s + t);
}

__global__ void __launch_bounds__(GA_CURAND_THREADS)
${kname}_array(${S} *s, const unsigned int n, const ${skip_t} *k)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        ${fn}(k[t], s + t);
}
</%def>
${skip("ga_curand_skipahead", "skipahead")}
% if seeded:
${skip("ga_curand_skipahead_sequence", "skipahead_sequence")}
% endif
% if subsequence:
${skip("ga_curand_skipahead_subsequence", "skipahead_subsequence")}
% endif

}  // extern "C"
