"""CPU test of the warp sort (``sort.cu.mako``'s ``wsort`` kernel) run on
the host: the rendered kernel, unchanged, compiled by the host's C++
compiler against a small emulation of what it uses of CUDA (a host thread
for each CUDA thread; a barrier a warp for ``__syncwarp``; shuffles through
a slot a lane between two of those barriers; shared memory as one static
buffer) and launched block after block.  Its sorted elements and
positions must equal numpy's stable sort and argsort byte for byte, for
keys of 1, 2 and 4 bytes, at each row capacity (32 to 1024 elements: 1 to
32 words a lane), with duplicates, NaNs, infinities and -0.0, and with
more rows than warps (the warps' stride over rows)."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

from gpuarr import _sortkernels as sk

HARNESS = r"""
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

struct ga_dim3 { unsigned int x = 0, y = 1, z = 1; };
static thread_local ga_dim3 threadIdx;
static ga_dim3 blockIdx, gridDim, blockDim;
alignas(16) unsigned char ga_smem[1 << 16];

// a reusable barrier of one warp's 32 threads
struct ga_warp_barrier {
    std::mutex m;
    std::condition_variable cv;
    int waiting = 0;
    unsigned long phase = 0;
    void wait() {
        std::unique_lock<std::mutex> lk(m);
        const unsigned long ph = phase;
        if (++waiting == 32) {
            waiting = 0;
            ++phase;
            cv.notify_all();
        } else {
            cv.wait(lk, [&] { return phase != ph; });
        }
    }
};
static ga_warp_barrier ga_bars[8];
static unsigned long long ga_slots[8][32];

static inline void __syncwarp() { ga_bars[threadIdx.x >> 5].wait(); }
template <class T> static inline T __shfl_xor_sync(unsigned int, T v, int d)
{
    const int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    ga_slots[w][l] = (unsigned long long)v;
    __syncwarp();
    const T r = (T)ga_slots[w][l ^ d];
    __syncwarp();
    return r;
}
// in the template's other kernels only
static inline void __syncthreads() { __builtin_trap(); }
template <class T> static inline T __shfl_up_sync(unsigned int, T v, int)
{ __builtin_trap(); return v; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __align__(n)

template <class F> static void ga_launch(int grid, int block, F body)
{
    gridDim.x = grid;
    blockDim.x = block;
    for (int b = 0; b < grid; ++b) {
        blockIdx.x = b;
        std::vector<std::thread> ts;
        for (int t = 0; t < block; ++t)
            ts.emplace_back([=] { threadIdx.x = t; body(); });
        for (auto &t : ts) t.join();
    }
}
"""

# (dtype, row length, rows, the grid's cap in blocks)
CASES = ([("f4", L, 3, 2) for L in (1, 33, 100, 300, 1000)]
         + [(dt, L, 3, 2) for dt in ("?", "i1", "u2", "f2", "i4")
            for L in (31, 200)]
         + [("f2", 40, 20, 2), ("u4", 700, 5, 1)])


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    src = [HARNESS]
    for k, (dt, L, _, _) in enumerate(CASES):
        spec = sk.wsort_spec(np.dtype(dt), L)
        name = "%s_%d" % (spec.name, k)
        body = spec.source().replace(spec.name, name)
        # the kernel's dynamic shared memory: the harness's buffer
        body = body.replace("extern __shared__ __align__(16) unsigned char "
                            "ga_smem[];", "extern unsigned char ga_smem[];")
        assert "extern unsigned char ga_smem[];" in body
        src.append("namespace ga_t%d {\n%s\n}\n" % (k, body))
        src.append(
            'extern "C" void run_%d(const void *s, void *ko, long long *vo, '
            'long long rows, int L, int np2, int grid, int block)\n'
            '{ ga_launch(grid, block, [=] { ga_t%d::%s('
            '(const ga_t%d::ga_elem *)s, (ga_t%d::ga_elem *)ko, vo, rows, '
            'L, np2); }); }\n' % (k, k, name, k, k))
    d = tmp_path_factory.mktemp("warpsort")
    cpp, so = os.path.join(d, "warpsort.cpp"), os.path.join(d, "warpsort.so")
    with open(cpp, "w") as f:
        f.write("".join(src))
    r = subprocess.run([cxx, "-std=c++14", "-O1", "-shared", "-fPIC",
                        "-pthread", "-o", so, cpp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return ctypes.CDLL(so)


def _values(dt, shape, rng):
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "f":
        h = np.round(rng.standard_normal(shape) * 4).astype(dt)
        flat = h.reshape(-1)
        flat[::7] = np.nan
        flat[3::7] = -np.nan
        flat[1::11] = -0.0
        flat[2::13] = np.inf
        flat[5::17] = -np.inf
        return h
    info = np.iinfo(dt)
    h = rng.integers(info.min, info.max, shape, endpoint=True, dtype=dt)
    h.reshape(-1)[::2] = rng.integers(max(info.min, -9), 10,
                                      h.size - h.size // 2)
    return h


@pytest.mark.parametrize("k", range(len(CASES)),
                         ids=["%s-%d-%d" % c[:3] for c in CASES])
def test_warp_sort_on_the_host_equals_numpy(host, k):
    dt, L, rows, cap = CASES[k]
    dt = np.dtype(dt)
    h = _values(dt, (rows, L), np.random.default_rng(k))
    ko = np.full_like(h, 7)                    # poisoned
    vo = np.full((rows, L), -1, np.int64)
    grid, block, shared, np2 = sk.wsort_launch(dt, rows, L, cap)
    assert shared <= 1 << 16                   # the harness's buffer
    if cap == 1 or rows == 20:
        assert grid[0] * block[0] // 32 < rows   # warps take several rows
    getattr(host, "run_%d" % k)(
        h.ctypes.data_as(ctypes.c_void_p), ko.ctypes.data_as(ctypes.c_void_p),
        vo.ctypes.data_as(ctypes.POINTER(ctypes.c_longlong)),
        ctypes.c_longlong(rows), L, np2, grid[0], block[0])
    assert ko.tobytes() == np.sort(h, kind="stable").tobytes()
    np.testing.assert_array_equal(vo, np.argsort(h, kind="stable"))
