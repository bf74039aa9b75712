"""Run gpuarr's rendered kernels on the host, for CPU tests: the kernel
source, unchanged, compiled by the host's C++ compiler against a small
emulation of the CUDA it uses.

A block runs as one host thread per CUDA thread; blocks run one after
another in block order (so a decoupled look-back always finds its
predecessors done).  ``__syncthreads`` is a barrier of the block's
threads, ``__syncwarp`` one of the warp's; the warp collectives
(shuffles, ballots, matches) go through a slot a lane between two warp barriers.
Static ``__shared__`` variables become function statics (one block at a
time uses them); dynamic shared memory is one 64 KB buffer.  Atomics are
the compiler's sequentially consistent builtins.  What the kernels use
beyond this fails to compile, which is the point: the emulation covers
exactly what it claims to.
"""
import ctypes
import os
import re
import shutil
import subprocess

import pytest

HARNESS = r"""
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

struct ga_dim3 { unsigned int x = 0, y = 1, z = 1; };
static thread_local ga_dim3 threadIdx;
static ga_dim3 blockIdx, gridDim, blockDim;
alignas(128) unsigned char ga_dyn_smem[1 << 18];

// a reusable barrier of `count` threads
struct ga_barrier {
    std::mutex m;
    std::condition_variable cv;
    int count = 32, waiting = 0;
    unsigned long phase = 0;
    void wait(int n = 0) {
        std::unique_lock<std::mutex> lk(m);
        if (n) count = n;           // bar.sync's thread count
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
static ga_barrier ga_block_bar, ga_named_bar, ga_warp_bars[32];
static unsigned long long ga_slots[32][32];

// ThreadSanitizer builds (build_tsan): what the race detector may take as
// ordering is only what orders memory on the GPU.  The warp exchanges
// (shuffles, votes) order nothing, so their barrier is hidden from it (its
// bookkeeping included) and their slots are relaxed atomics; an mbarrier's
// arrive is a release and its wait an acquire, of the phase (GA_RELEASE,
// GA_ACQUIRE), its mutex hidden (a waiter releases nothing)
#if defined(__SANITIZE_THREAD__)
extern "C" {
void AnnotateIgnoreSyncBegin(const char *, int);
void AnnotateIgnoreSyncEnd(const char *, int);
void AnnotateIgnoreReadsBegin(const char *, int);
void AnnotateIgnoreReadsEnd(const char *, int);
void AnnotateIgnoreWritesBegin(const char *, int);
void AnnotateIgnoreWritesEnd(const char *, int);
void AnnotateHappensBefore(const char *, int, const volatile void *);
void AnnotateHappensAfter(const char *, int, const volatile void *);
}
static inline void ga_hide_begin()
{
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
}
static inline void ga_hide_end()
{
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
}
#define GA_RELEASE(key) AnnotateHappensBefore(__FILE__, __LINE__, key)
#define GA_ACQUIRE(key) AnnotateHappensAfter(__FILE__, __LINE__, key)
#else
static inline void ga_hide_begin() {}
static inline void ga_hide_end() {}
#define GA_RELEASE(key) ((void)(key))
#define GA_ACQUIRE(key) ((void)(key))
#endif
#define GA_HIDDEN(stmt) do { ga_hide_begin(); stmt; ga_hide_end(); } while (0)

static inline void __syncthreads() { ga_block_bar.wait(); }
static inline void __syncwarp(unsigned int = 0xffffffffu)
{ ga_warp_bars[threadIdx.x >> 5].wait(); }
static inline int ga_lane() { return threadIdx.x & 31; }
// a warp's exchange: each lane puts a value in its slot, every lane reads
// the slots it wants between two warp barriers (hidden, see above)
static inline unsigned long long *ga_put(unsigned long long v)
{
    unsigned long long *s = ga_slots[threadIdx.x >> 5];
    __atomic_store_n(&s[ga_lane()], v, __ATOMIC_RELAXED);
    GA_HIDDEN(ga_warp_bars[threadIdx.x >> 5].wait());
    return s;
}
static inline unsigned long long ga_get(const unsigned long long *s, int l)
{ return __atomic_load_n(&s[l & 31], __ATOMIC_RELAXED); }
static inline void ga_done() { GA_HIDDEN(ga_warp_bars[threadIdx.x >> 5].wait()); }
static inline unsigned long long ga_exchange(unsigned long long v, int src)
{
    const unsigned long long r = ga_get(ga_put(v), src);
    ga_done();
    return r;
}

template <class T> static inline T __shfl_xor_sync(unsigned int, T v, int d)
{ return (T)ga_exchange((unsigned long long)v, ga_lane() ^ d); }
template <class T> static inline T __shfl_up_sync(unsigned int, T v, int d)
{
    const T r = (T)ga_exchange((unsigned long long)v, ga_lane() - d);
    return ga_lane() >= d ? r : v;
}
template <class T> static inline T __shfl_down_sync(unsigned int, T v, int d)
{
    const T r = (T)ga_exchange((unsigned long long)v, ga_lane() + d);
    return ga_lane() + d < 32 ? r : v;
}
template <class T> static inline T __shfl_sync(unsigned int, T v, int src)
{ return (T)ga_exchange((unsigned long long)v, src); }
static inline unsigned int __ballot_sync(unsigned int, int pred)
{
    const unsigned long long *s = ga_put(pred ? 1u : 0u);
    unsigned int m = 0u;
    for (int l = 0; l < 32; ++l) m |= (unsigned int)ga_get(s, l) << l;
    ga_done();
    return m;
}
static inline unsigned int __match_any_sync(unsigned int, unsigned int v)
{
    const unsigned long long *s = ga_put(v);
    unsigned int m = 0u;
    for (int l = 0; l < 32; ++l) m |= (ga_get(s, l) == v ? 1u : 0u) << l;
    ga_done();
    return m;
}
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
// byte n of the result: byte (s >> 4n) & 7 of the eight of y:x (CUDA's
// __byte_perm, the selectors' sign bits unused)
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    const unsigned long long v = (unsigned long long)y << 32 | x;
    unsigned int r = 0u;
    for (int n = 0; n < 4; ++n)
        r |= (unsigned int)(v >> (8 * ((s >> (4 * n)) & 7u)) & 255u) << (8 * n);
    return r;
}
static inline int __ffs(int x) { return __builtin_ffs(x); }
// the math the kernels' headers call (gpuarr/complex.hpp)
using std::isnan; using std::isinf; using std::isfinite;
static inline double __longlong_as_double(long long v)
{ double d; std::memcpy(&d, &v, 8); return d; }
static inline float __int_as_float(int v)
{ float f; std::memcpy(&f, &v, 4); return f; }
static inline int __float_as_int(float f)
{ int v; std::memcpy(&v, &f, 4); return v; }
static inline int __clz(unsigned int x) { return x ? __builtin_clz(x) : 32; }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct alignas(8) uint2 { unsigned int x, y; };
static inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z,
                               unsigned int w) { return uint4{x, y, z, w}; }
static inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
template <class T> static inline T atomicAdd(T *p, T v)
{ return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicOr(T *p, T v)
{ return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicMin(T *p, T v)
{
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < old && !__atomic_compare_exchange_n(
               p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T> static inline T atomicMax(T *p, T v)
{
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v > old && !__atomic_compare_exchange_n(
               p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
// a load through L2 only: of a word other threads change by atomics
template <class T> static inline T __ldcg(const T *p)
{ return __atomic_load_n(p, __ATOMIC_RELAXED); }
// the streaming (evict-first) load and store: plain ones on the host
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline T min(T a, T b) { return b < a ? b : a; }

// mbarriers (sm_90): a phase completes when its pending arrivals and its
// transaction bytes are both zero, and the next begins with the barrier's
// count; a wait on parity p returns once the phase of that parity has
// completed.  The 64-bit barrier word holds an index into this pool.  For
// the race detector each phase (mod 4) has a key: arrivals and completed
// copies release it, a wait acquires the phase it saw complete.
struct ga_mbar {
    std::mutex m;
    std::condition_variable cv;
    unsigned int count = 0, pending = 0;
    long long tx = 0;
    unsigned long phase = 0;
    char key[4];
    void complete() {
        if (pending == 0 && tx == 0) {
            pending = count;
            ++phase;
            cv.notify_all();
        }
    }
};
static ga_mbar ga_mbars[256];
static unsigned int ga_nmbars = 0;
static inline void ga_bar_init(unsigned long long *b, unsigned int count)
{
    const unsigned int i = ga_nmbars++ % 256;   // one thread, then a barrier
    ga_mbar &m = ga_mbars[i];
    GA_HIDDEN(m.count = m.pending = count; m.tx = 0; m.phase = 0);
    *b = i;
}
// the phase in progress gets `arrivals` arrivals and `bytes` transaction
// bytes (negative: a copy's bytes arrived)
static inline void ga_mbar_add(unsigned long long *b, unsigned int arrivals,
                               long long bytes)
{
    ga_mbar &m = ga_mbars[*b];
    ga_hide_begin();
    std::unique_lock<std::mutex> lk(m.m);
    const char *key = &m.key[m.phase % 4];
    ga_hide_end();
    GA_RELEASE(key);
    ga_hide_begin();
    m.tx += bytes;
    m.pending -= arrivals;
    m.complete();
    lk.unlock();
    ga_hide_end();
}
static inline void ga_bar_arrive_tx(unsigned long long *b, unsigned int bytes)
{ ga_mbar_add(b, 1u, bytes); }
static inline void ga_bar_arrive(unsigned long long *b) { ga_mbar_add(b, 1u, 0); }
static inline void ga_bar_wait(unsigned long long *b, unsigned int parity)
{
    ga_mbar &m = ga_mbars[*b];
    unsigned long done;
    ga_hide_begin();
    {
        std::unique_lock<std::mutex> lk(m.m);
        m.cv.wait(lk, [&] { return (m.phase & 1u) != parity; });
        done = m.phase - 1;     // the phase of that parity
    }
    ga_hide_end();
    GA_ACQUIRE(&m.key[done % 4]);
}
// a TMA bulk copy, done at once by the issuing thread (its writes are its
// own, for the race detector), its bytes then counted on `b`
static inline void ga_bulk_load(void *dst, const void *src, unsigned int bytes,
                                unsigned long long *b)
{
    std::memcpy(dst, src, bytes);
    ga_mbar_add(b, 0u, -(long long)bytes);
}

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


# the inline PTX statements the kernels use, as the host runs them; any
# other fails to compile
PTX = {
    "fence.acq_rel.gpu;": "__atomic_thread_fence(__ATOMIC_SEQ_CST);",
    "fence.mbarrier_init.release.cluster;": ";",
    # the bulk copies are generic-proxy writes here
    "fence.proxy.async.shared::cta;": ";",
}
# the kernels' own wrappers of PTX the harness defines (mbarriers, TMA)
PTX_WRAPPERS = ("ga_saddr", "ga_bar_init", "ga_bar_arrive", "ga_bar_arrive_tx",
                "ga_bar_wait", "ga_bulk_load")


def _drop_definition(src, fname):
    """``src`` less the definition of function ``fname`` (from its line to
    the brace closing its body), if it has one."""
    m = re.search(r"^static [^\n]*\b%s\(" % fname, src, re.M)
    if m is None:
        return src
    i = src.index("{", m.end())
    depth = 0
    for j in range(i, len(src)):
        depth += {"{": 1, "}": -1}.get(src[j], 0)
        if depth == 0:
            return src[:m.start()] + src[j + 1:].lstrip("\n")
    raise ValueError("unbalanced braces in %s" % fname)


def _host_ptx(m):
    text = m.group(1)
    bar = re.fullmatch(r"bar\.sync 1, (\d+);", text)
    if bar:
        return "ga_named_bar.wait(%s);" % bar.group(1)
    return PTX.get(text, m.group(0))


def host_text(src, name, k):
    """Kernel source ``src`` (its kernel called ``name``) for the host, in
    namespace ``ga_t<k>`` and named ``<name>_<k>`` (the launcher's name:
    :func:`launcher`): dynamic shared memory is the harness's buffer, the
    PTX statements of :data:`PTX` and the wrappers of
    :data:`PTX_WRAPPERS` the harness's; include guards are undefined
    after it."""
    body = src.replace(name, "%s_%d" % (name, k))
    body = re.sub(r"extern __shared__ __align__\(\d+\) unsigned char "
                  r"(\w+)\[\];", r"unsigned char *\1 = ga_dyn_smem;", body)
    for f in PTX_WRAPPERS:
        body = _drop_definition(body, f)
    body = re.sub(r'asm volatile\("([^"]*)" ::: "memory"\);', _host_ptx,
                  body)
    # include guards end with the namespace: the next kernel's gets its own
    guards = re.findall(r"^#ifndef (\w+)\n#define \1\b", body, re.M)
    return "namespace ga_t%d {\n%s\n}\n%s" % (
        k, body, "".join("#undef %s\n" % g for g in guards))


def host_source(spec, k):
    """``spec``'s kernel source for the host: :func:`host_text`."""
    return host_text(spec.source(), spec.name, k)


def launcher(spec, k, params, call):
    """An ``extern "C"`` function ``run_<k>(grid, block, params)`` that
    launches ``spec``'s kernel ``k`` (see :func:`host_source`) with the
    arguments ``call`` (C expressions of ``params``; ``T`` stands for the
    kernel's namespace)."""
    ns = "ga_t%d" % k
    return ('extern "C" void run_%d(int grid, int block, %s)\n'
            '{ ga_launch(grid, block, [=] { %s::%s_%d(%s); }); }\n'
            % (k, params, ns, spec.name, k, call.replace("T::", ns + "::")))


def _compile(tmp_dir, parts, out, flags):
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    cpp = os.path.join(str(tmp_dir), out + ".cpp")
    path = os.path.join(str(tmp_dir), out)
    with open(cpp, "w") as f:
        f.write(HARNESS + "".join(parts))
    r = subprocess.run([cxx, "-std=c++14", "-O1", "-pthread"] + flags
                       + ["-o", path, cpp], capture_output=True, text=True)
    if r.returncode and "tsan" in r.stderr and "-fsanitize=thread" in flags:
        pytest.skip("the host compiler has no ThreadSanitizer")
    assert r.returncode == 0, r.stderr[-3000:]
    return path


def build(tmp_dir, parts):
    """Compile the C++ ``parts`` (after the harness) into a shared library
    in ``tmp_dir`` and load it (skip without a host C++ compiler)."""
    flags = ["-shared", "-fPIC"]
    if os.environ.get("GPUARR_HOST_TSAN"):
        # scripts/host_tsan.sh: the tests' process runs with the
        # ThreadSanitizer runtime preloaded
        flags += ["-g", "-fsanitize=thread", "-Wno-tsan"]
    return ctypes.CDLL(_compile(tmp_dir, parts, "kernels.so", flags))


#: the functions whose races ThreadSanitizer is not to report: the
#: decoupled look-back's descriptors, volatile accesses ordered by fences
#: (a protocol of the PTX memory model the host's cannot express)
TSAN_SUPPRESSED = ("ga_poll", "ga_publish", "ga_lookback", "ga_vload",
                   "ga_vstore")


def build_tsan(tmp_dir, parts):
    """Compile the C++ ``parts`` (after the harness; they define ``main``)
    into an executable built with ThreadSanitizer, in ``tmp_dir``.
    Returns a function running it with arguments, which returns
    ``(exit status, stdout, the race reports' text)``.  Skips without a
    host C++ compiler or ThreadSanitizer.

    ThreadSanitizer keeps four accesses a word: a race on a word that
    hundreds of threads read (a slot every thread of a block reads) is
    found only when the racing read is among the last four."""
    exe = _compile(tmp_dir, parts, "kernels_tsan",
                   ["-g", "-fsanitize=thread", "-Wno-tsan"])
    supp = os.path.join(str(tmp_dir), "tsan.supp")
    with open(supp, "w") as f:
        f.write("".join("race:%s\n" % fn for fn in TSAN_SUPPRESSED))

    def run(*args):
        env = dict(os.environ, TSAN_OPTIONS="halt_on_error=0 exitcode=66 "
                   "suppressions=%s" % supp)
        r = subprocess.run([exe] + [str(a) for a in args], env=env,
                           capture_output=True, text=True, timeout=600)
        return r.returncode, r.stdout, r.stderr
    return run


def ptr(a):
    """A numpy array's address for a ``void *`` parameter (0 for None)."""
    return ctypes.c_void_p(0 if a is None else a.ctypes.data)
