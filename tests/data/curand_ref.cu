// Reference values straight from cuRAND's device API, for
// tests/test_curandom_gpu.py.  Built at test time with
//     nvcc -arch=native -o curand_ref curand_ref.cu -lcurand
//
// stdin: one case per line,
//     KIND ID SEED OFFSET OP...
// KIND is xorwow, mrg32k3a, sobol32, scrambled_sobol32, sobol64 or
// scrambled_sobol64.  A pseudo-random state is curand_init(SEED, ID,
// OFFSET); a Sobol state takes dimension ID % 20000 of cuRAND's direction
// vectors (the scrambled set for the scrambled forms) and of the scramble
// constants, and OFFSET.  Each OP is NAME:COUNT[:P1[:P2]] run in order on
// that one state:
//     uniform_f4 uniform_f8 raw_u4 raw_u8 normal_f4 normal_f8
//     normal2_f4 normal2_f8 (pairs) log_normal_f4 log_normal_f8 (P1 mean,
//     P2 stddev) log_normal2_f4 log_normal2_f8 poisson_u4 (P1 lambda)
//     skip skipseq skipsub (COUNT = the n of skipahead, skipahead_sequence,
//     skipahead_subsequence)
// stdout: one line per case, every value drawn as hex bits (%08x for 32-bit
// values, %016llx for 64-bit ones; a pair gives two).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <sstream>
#include <iostream>

#include <curand.h>
#include <curand_kernel.h>

enum Code { UF4, UF8, RU4, RU8, NF4, NF8, N2F4, N2F8, LF4, LF8, L2F4, L2F8,
            PU4, SKIP, SKIPSEQ, SKIPSUB };

struct Op {
    int code;
    unsigned long long count;
    double p1, p2;
};

// the pair forms and the sequence skips exist for XORWOW and MRG32k3a only;
// the templates are never called for the other states (the host refuses)
__device__ float2 n2f(curandStateXORWOW *s) { return curand_normal2(s); }
__device__ float2 n2f(curandStateMRG32k3a *s) { return curand_normal2(s); }
template <class S> __device__ float2 n2f(S *) { __trap(); return float2(); }
__device__ double2 n2d(curandStateXORWOW *s) { return curand_normal2_double(s); }
__device__ double2 n2d(curandStateMRG32k3a *s) { return curand_normal2_double(s); }
template <class S> __device__ double2 n2d(S *) { __trap(); return double2(); }
__device__ float2 l2f(curandStateXORWOW *s, float m, float d) { return curand_log_normal2(s, m, d); }
__device__ float2 l2f(curandStateMRG32k3a *s, float m, float d) { return curand_log_normal2(s, m, d); }
template <class S> __device__ float2 l2f(S *, float, float) { __trap(); return float2(); }
__device__ double2 l2d(curandStateXORWOW *s, double m, double d) { return curand_log_normal2_double(s, m, d); }
__device__ double2 l2d(curandStateMRG32k3a *s, double m, double d) { return curand_log_normal2_double(s, m, d); }
template <class S> __device__ double2 l2d(S *, double, double) { __trap(); return double2(); }
__device__ void sseq(unsigned long long n, curandStateXORWOW *s) { skipahead_sequence(n, s); }
__device__ void sseq(unsigned long long n, curandStateMRG32k3a *s) { skipahead_sequence(n, s); }
template <class S> __device__ void sseq(unsigned long long, S *) { __trap(); }
__device__ void ssub(unsigned long long n, curandStateMRG32k3a *s) { skipahead_subsequence(n, s); }
template <class S> __device__ void ssub(unsigned long long, S *) { __trap(); }

// 32 raw bits: gpuarr's int32/uint32 outputs of the 64-bit Sobol forms
// take the high half of each 64-bit draw
template <class S> __device__ unsigned int raw32(S *s) { return (unsigned int)curand(s); }
__device__ unsigned int raw32(curandStateSobol64 *s) { return (unsigned int)(curand(s) >> 32); }
__device__ unsigned int raw32(curandStateScrambledSobol64 *s) { return (unsigned int)(curand(s) >> 32); }

template <class S>
__device__ void run_ops(S *s, const Op *ops, int nops, unsigned long long *out)
{
    int k = 0;
    for (int o = 0; o < nops; ++o) {
        const Op op = ops[o];
        for (unsigned long long j = 0; j < (op.code >= SKIP ? 1 : op.count); ++j) {
            switch (op.code) {
            case UF4: out[k++] = __float_as_uint(curand_uniform(s)); break;
            case UF8: out[k++] = __double_as_longlong(curand_uniform_double(s)); break;
            case RU4: out[k++] = raw32(s); break;
            case RU8: out[k++] = (unsigned long long)curand(s); break;
            case NF4: out[k++] = __float_as_uint(curand_normal(s)); break;
            case NF8: out[k++] = __double_as_longlong(curand_normal_double(s)); break;
            case N2F4: { float2 v = n2f(s); out[k++] = __float_as_uint(v.x);
                         out[k++] = __float_as_uint(v.y); } break;
            case N2F8: { double2 v = n2d(s); out[k++] = __double_as_longlong(v.x);
                         out[k++] = __double_as_longlong(v.y); } break;
            case LF4: out[k++] = __float_as_uint(curand_log_normal(s, (float)op.p1, (float)op.p2)); break;
            case LF8: out[k++] = __double_as_longlong(curand_log_normal_double(s, op.p1, op.p2)); break;
            case L2F4: { float2 v = l2f(s, (float)op.p1, (float)op.p2);
                         out[k++] = __float_as_uint(v.x);
                         out[k++] = __float_as_uint(v.y); } break;
            case L2F8: { double2 v = l2d(s, op.p1, op.p2);
                         out[k++] = __double_as_longlong(v.x);
                         out[k++] = __double_as_longlong(v.y); } break;
            case PU4: out[k++] = curand_poisson(s, op.p1); break;
            case SKIP: skipahead(op.count, s); break;
            case SKIPSEQ: sseq(op.count, s); break;
            case SKIPSUB: ssub(op.count, s); break;
            }
        }
    }
}

template <class S>
__global__ void seeded(unsigned long long seed, unsigned long long sub,
                       unsigned long long offset, const Op *ops, int nops,
                       unsigned long long *out)
{
    S s;
    curand_init(seed, sub, offset, &s);
    run_ops(&s, ops, nops, out);
}

template <class S, class V>
__global__ void sobol(V *v, unsigned long long offset, const Op *ops, int nops,
                      unsigned long long *out)
{
    S s;
    curand_init(v, (V)offset, &s);
    run_ops(&s, ops, nops, out);
}

template <class S, class V>
__global__ void scrambled(V *v, V c, unsigned long long offset, const Op *ops,
                          int nops, unsigned long long *out)
{
    S s;
    curand_init(v, c, (V)offset, &s);
    run_ops(&s, ops, nops, out);
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

static void checkr(curandStatus_t e, const char *what)
{
    if (e != CURAND_STATUS_SUCCESS) {
        fprintf(stderr, "%s: curandStatus %d\n", what, (int)e);
        exit(2);
    }
}

int main()
{
    const char *names[] = {"uniform_f4", "uniform_f8", "raw_u4", "raw_u8",
                           "normal_f4", "normal_f8", "normal2_f4", "normal2_f8",
                           "log_normal_f4", "log_normal_f8", "log_normal2_f4",
                           "log_normal2_f8", "poisson_u4", "skip", "skipseq",
                           "skipsub"};
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty())
            continue;
        std::istringstream in(line);
        std::string kind, tok;
        unsigned long long id, seed, offset;
        in >> kind >> id >> seed >> offset;
        std::vector<Op> ops;
        size_t nout = 0;
        while (in >> tok) {
            Op op = {-1, 0, 0.0, 0.0};
            std::vector<std::string> f;
            std::stringstream ts(tok);
            std::string part;
            while (std::getline(ts, part, ':'))
                f.push_back(part);
            for (int c = 0; c < 16; ++c)
                if (f[0] == names[c])
                    op.code = c;
            if (op.code < 0) {
                fprintf(stderr, "unknown op %s\n", f[0].c_str());
                return 2;
            }
            op.count = strtoull(f[1].c_str(), NULL, 10);
            if (f.size() > 2) op.p1 = strtod(f[2].c_str(), NULL);
            if (f.size() > 3) op.p2 = strtod(f[3].c_str(), NULL);
            if (op.code < SKIP)
                nout += op.count * ((op.code == N2F4 || op.code == N2F8 ||
                                     op.code == L2F4 || op.code == L2F8) ? 2 : 1);
            ops.push_back(op);
        }
        Op *dops;
        unsigned long long *dout;
        check(cudaMalloc(&dops, ops.size() * sizeof(Op) + 8), "cudaMalloc");
        check(cudaMalloc(&dout, nout * 8 + 8), "cudaMalloc");
        check(cudaMemcpy(dops, ops.data(), ops.size() * sizeof(Op),
                         cudaMemcpyHostToDevice), "cudaMemcpy");
        const int nops = (int)ops.size();
        const int dim = (int)(id % 20000);
        if (kind == "xorwow") {
            seeded<curandStateXORWOW><<<1, 1>>>(seed, id, offset, dops, nops, dout);
        } else if (kind == "mrg32k3a") {
            seeded<curandStateMRG32k3a><<<1, 1>>>(seed, id, offset, dops, nops, dout);
        } else if (kind == "sobol32" || kind == "scrambled_sobol32") {
            const bool scr = kind == "scrambled_sobol32";
            curandDirectionVectors32_t *tab;
            checkr(curandGetDirectionVectors32(&tab, scr ?
                   CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 :
                   CURAND_DIRECTION_VECTORS_32_JOEKUO6), "vectors32");
            unsigned int *dv;
            check(cudaMalloc(&dv, 32 * 4), "cudaMalloc");
            check(cudaMemcpy(dv, tab[dim], 32 * 4, cudaMemcpyHostToDevice), "cpy");
            if (scr) {
                unsigned int *c;
                checkr(curandGetScrambleConstants32(&c), "scramble32");
                scrambled<curandStateScrambledSobol32, unsigned int><<<1, 1>>>(
                    dv, c[dim], offset, dops, nops, dout);
            } else {
                sobol<curandStateSobol32, unsigned int><<<1, 1>>>(
                    dv, offset, dops, nops, dout);
            }
        } else if (kind == "sobol64" || kind == "scrambled_sobol64") {
            const bool scr = kind == "scrambled_sobol64";
            curandDirectionVectors64_t *tab;
            checkr(curandGetDirectionVectors64(&tab, scr ?
                   CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 :
                   CURAND_DIRECTION_VECTORS_64_JOEKUO6), "vectors64");
            unsigned long long *dv;
            check(cudaMalloc(&dv, 64 * 8), "cudaMalloc");
            check(cudaMemcpy(dv, tab[dim], 64 * 8, cudaMemcpyHostToDevice), "cpy");
            if (scr) {
                unsigned long long *c;
                checkr(curandGetScrambleConstants64(&c), "scramble64");
                scrambled<curandStateScrambledSobol64, unsigned long long><<<1, 1>>>(
                    dv, c[dim], offset, dops, nops, dout);
            } else {
                sobol<curandStateSobol64, unsigned long long><<<1, 1>>>(
                    dv, offset, dops, nops, dout);
            }
        } else {
            fprintf(stderr, "unknown kind %s\n", kind.c_str());
            return 2;
        }
        check(cudaGetLastError(), "launch");
        std::vector<unsigned long long> h(nout);
        check(cudaMemcpy(h.data(), dout, nout * 8, cudaMemcpyDeviceToHost), "cpy");
        // the width of each value follows its op
        size_t k = 0;
        bool first = true;
        for (const Op &op : ops) {
            if (op.code >= SKIP)
                continue;
            const bool wide = op.code == UF8 || op.code == RU8 || op.code == NF8 ||
                              op.code == N2F8 || op.code == LF8 || op.code == L2F8;
            const size_t per = (op.code == N2F4 || op.code == N2F8 ||
                                op.code == L2F4 || op.code == L2F8) ? 2 : 1;
            for (size_t j = 0; j < op.count * per; ++j, ++k) {
                if (wide)
                    printf(first ? "%016llx" : " %016llx", h[k]);
                else
                    printf(first ? "%08x" : " %08x", (unsigned int)h[k]);
                first = false;
            }
        }
        printf("\n");
        fflush(stdout);
        cudaFree(dops);
        cudaFree(dout);
    }
    return 0;
}
