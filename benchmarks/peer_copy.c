/* The C baseline of bench_peer.py: cuMemcpyPeer of N bytes from device 0
 * to device 1 in a loop, timed on the host around a synchronized batch.
 *
 *   gcc -O2 -o peer_copy peer_copy.c -ldl && ./peer_copy BYTES REPEATS PEER
 *
 * PEER=1 enables peer access both ways first.  Prints the median rate of
 * REPEATS copies in GB/s (10^9 bytes per second).  libcuda is opened with
 * dlopen, so no CUDA headers or import library are needed. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;

static void *lib;
#define SYM(name, args) CUresult (*name) args = (CUresult (*) args)dlsym(lib, #name)
#define CHECK(call) do { CUresult r_ = (call); if (r_) { \
    fprintf(stderr, "%s failed: %d\n", #call, r_); exit(1); } } while (0)

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (1ull << 30);
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    int peer = argc > 3 ? atoi(argv[3]) : 0;
    lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "no libcuda.so.1\n");
        return 1;
    }
    SYM(cuInit, (unsigned));
    SYM(cuDeviceGet, (CUdevice *, int));
    SYM(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice));
    SYM(cuCtxSetCurrent, (CUcontext));
    SYM(cuCtxSynchronize, (void));
    SYM(cuCtxEnablePeerAccess, (CUcontext, unsigned));
    SYM(cuMemAlloc_v2, (CUdeviceptr *, size_t));
    SYM(cuMemcpyPeer, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t));
    CUdevice d0, d1;
    CUcontext c0, c1;
    CUdeviceptr src, dst;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&d0, 0));
    CHECK(cuDeviceGet(&d1, 1));
    CHECK(cuDevicePrimaryCtxRetain(&c0, d0));
    CHECK(cuDevicePrimaryCtxRetain(&c1, d1));
    CHECK(cuCtxSetCurrent(c1));
    CHECK(cuMemAlloc_v2(&dst, n));
    if (peer)
        CHECK(cuCtxEnablePeerAccess(c0, 0));
    CHECK(cuCtxSetCurrent(c0));
    CHECK(cuMemAlloc_v2(&src, n));
    if (peer)
        CHECK(cuCtxEnablePeerAccess(c1, 0));
    double *t = malloc(sizeof(double) * reps);
    for (int i = 0; i < 3; i++)
        CHECK(cuMemcpyPeer(dst, c1, src, c0, n));
    CHECK(cuCtxSynchronize());
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        CHECK(cuMemcpyPeer(dst, c1, src, c0, n));
        CHECK(cuCtxSynchronize());
        CHECK(cuCtxSetCurrent(c1));
        CHECK(cuCtxSynchronize());
        CHECK(cuCtxSetCurrent(c0));
        t[i] = now() - t0;
    }
    qsort(t, reps, sizeof *t, cmp);
    printf("%.2f\n", n / t[reps / 2] / 1e9);
    return 0;
}
