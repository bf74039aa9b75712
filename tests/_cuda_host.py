"""Run gpuarr's rendered kernels on the host, for CPU tests: the kernel
source, unchanged, compiled by the host's C++ compiler against a small
emulation of the CUDA it uses.

A block runs as one host thread per CUDA thread; blocks run one after
another in block order (so a decoupled look-back always finds its
predecessors done).  ``__syncthreads`` is a barrier of the block's
threads, ``__syncwarp`` one of the warp's; the warp collectives
(shuffles, ballots) go through a slot a lane between two warp barriers.
Static ``__shared__`` variables become function statics (one block at a
time uses them); dynamic shared memory is one 64 KB buffer.  Atomics are
the compiler's sequentially consistent builtins.  What the kernels use
beyond this fails to compile, which is the point: the emulation covers
exactly what it claims to.
"""
import ctypes
import os
import shutil
import subprocess

import pytest

HARNESS = r"""
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

struct ga_dim3 { unsigned int x = 0, y = 1, z = 1; };
static thread_local ga_dim3 threadIdx;
static ga_dim3 blockIdx, gridDim, blockDim;
alignas(16) unsigned char ga_dyn_smem[1 << 16];

// a reusable barrier of `count` threads
struct ga_barrier {
    std::mutex m;
    std::condition_variable cv;
    int count = 32, waiting = 0;
    unsigned long phase = 0;
    void wait() {
        std::unique_lock<std::mutex> lk(m);
        const unsigned long ph = phase;
        if (++waiting == count) {
            waiting = 0;
            ++phase;
            cv.notify_all();
        } else {
            cv.wait(lk, [&] { return phase != ph; });
        }
    }
};
static ga_barrier ga_block_bar, ga_warp_bars[32];
static unsigned long long ga_slots[32][32];

static inline void __syncthreads() { ga_block_bar.wait(); }
static inline void __syncwarp(unsigned int = 0xffffffffu)
{ ga_warp_bars[threadIdx.x >> 5].wait(); }
static inline int ga_lane() { return threadIdx.x & 31; }
static inline unsigned long long *ga_warp_slots() { return ga_slots[threadIdx.x >> 5]; }

template <class T> static inline T __shfl_xor_sync(unsigned int, T v, int d)
{
    unsigned long long *s = ga_warp_slots();
    s[ga_lane()] = (unsigned long long)v;
    __syncwarp();
    const T r = (T)s[ga_lane() ^ d];
    __syncwarp();
    return r;
}
template <class T> static inline T __shfl_up_sync(unsigned int, T v, int d)
{
    unsigned long long *s = ga_warp_slots();
    s[ga_lane()] = (unsigned long long)v;
    __syncwarp();
    const T r = ga_lane() >= d ? (T)s[ga_lane() - d] : v;
    __syncwarp();
    return r;
}
static inline unsigned int __ballot_sync(unsigned int, int pred)
{
    unsigned long long *s = ga_warp_slots();
    s[ga_lane()] = pred ? 1u : 0u;
    __syncwarp();
    unsigned int m = 0u;
    for (int l = 0; l < 32; ++l) m |= (unsigned int)s[l] << l;
    __syncwarp();
    return m;
}
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
struct alignas(16) uint4 { unsigned int x, y, z, w; };
template <class T> static inline T atomicAdd(T *p, T v)
{ return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T min(T a, T b) { return b < a ? b : a; }

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n)

template <class F> static void ga_launch(int grid, int block, F body)
{
    gridDim.x = grid;
    blockDim.x = block;
    ga_block_bar.count = block;
    for (int b = 0; b < grid; ++b) {
        blockIdx.x = b;
        std::vector<std::thread> ts;
        for (int t = 0; t < block; ++t)
            ts.emplace_back([=] { threadIdx.x = t; body(); });
        for (auto &t : ts) t.join();
    }
}
"""


def host_source(spec, k):
    """``spec``'s kernel source for the host, in namespace ``ga_t<k>`` and
    named ``<name>_<k>`` (the launcher's name: :func:`launcher`)."""
    name = "%s_%d" % (spec.name, k)
    body = spec.source().replace(spec.name, name)
    # dynamic shared memory: the harness's buffer
    body = body.replace("extern __shared__ __align__(16) unsigned char "
                        "ga_smem[];",
                        "unsigned char *ga_smem = ga_dyn_smem;")
    return "namespace ga_t%d {\n%s\n}\n" % (k, body)


def launcher(spec, k, params, call):
    """An ``extern "C"`` function ``run_<k>(grid, block, params)`` that
    launches ``spec``'s kernel ``k`` (see :func:`host_source`) with the
    arguments ``call`` (C expressions of ``params``; ``T`` stands for the
    kernel's namespace)."""
    ns = "ga_t%d" % k
    return ('extern "C" void run_%d(int grid, int block, %s)\n'
            '{ ga_launch(grid, block, [=] { %s::%s_%d(%s); }); }\n'
            % (k, params, ns, spec.name, k, call.replace("T::", ns + "::")))


def build(tmp_dir, parts):
    """Compile the C++ ``parts`` (after the harness) into a shared library
    in ``tmp_dir`` and load it (skip without a host C++ compiler)."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    cpp = os.path.join(str(tmp_dir), "kernels.cpp")
    so = os.path.join(str(tmp_dir), "kernels.so")
    with open(cpp, "w") as f:
        f.write(HARNESS + "".join(parts))
    r = subprocess.run([cxx, "-std=c++14", "-O1", "-shared", "-fPIC",
                        "-pthread", "-o", so, cpp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return ctypes.CDLL(so)


def ptr(a):
    """A numpy array's address for a ``void *`` parameter (0 for None)."""
    return ctypes.c_void_p(0 if a is None else a.ctypes.data)
