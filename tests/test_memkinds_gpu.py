"""Memory kinds, IPC, peer access, stream priorities, launch features
(occupancy, cooperative and cluster launches) and lifetimes (threads,
fork, exhaustion) on a real GPU, with numpy as the reference."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = r"""
extern "C" {
__global__ void scale(float *y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * y[i] + 1.0f;
}

// A grid-wide barrier by hand: correct only when every block is resident
// at once, which a cooperative launch guarantees.
__global__ void grid_sum(const float *x, float *partial, float *out,
                         unsigned int *arrived, int n)
{
    __shared__ float s[256];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        atomicAdd(arrived, 1u);
        while (atomicAdd(arrived, 0u) < gridDim.x) { }
        __threadfence();
        // every block now sees every partial: each writes the total
        float t = 0.0f;
        for (int b = 0; b < (int)gridDim.x; b++)
            t += ((volatile float *)partial)[b];
        out[blockIdx.x] = t;
    }
}

// Each block of a cluster reads its neighbour's shared memory
// (distributed shared memory, sm_90).
__global__ void dsmem_neighbour(int *out)
{
    __shared__ int v;
    unsigned int rank, nrank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
    if (threadIdx.x == 0)
        v = (int)blockIdx.x * 10 + 1;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned int peer = (rank + 1) % nrank;
    unsigned int local = (unsigned int)__cvta_generic_to_shared(&v);
    unsigned int remote;
    int got;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(peer));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(got) : "r"(remote) : "memory");
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = got;
        out[3 * blockIdx.x + 1] = (int)rank;
        out[3 * blockIdx.x + 2] = (int)nrank;
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
}
"""


def rng(seed):
    return np.random.default_rng(seed)


def _base_of(arr, cls):
    base = arr.base
    while not isinstance(base, cls):
        base = base.base
    return base


# ---------------------------------------------------------------------------
# Memory kinds
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 1000, 100003])
def test_managed_memory_kernels_and_host_share_it(drv, mod, n):
    a = drv.managed_empty(n, np.float32)
    x = rng(n).standard_normal(n).astype(np.float32)
    a[:] = x
    drv.mem_prefetch_async(a, drv.Device(0))
    mod.get_function("scale")(_base_of(a, drv.ManagedAllocation), np.float32(3.0),
                              np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    drv.mem_prefetch_async(a, "host")
    drv.Context.synchronize()
    np.testing.assert_allclose(a, 3.0 * x + 1.0, rtol=1e-6, atol=1e-6)
    drv.mem_advise(a, drv.mem_advice.SET_READ_MOSTLY, 0)
    drv.mem_advise(a, drv.mem_advice.SET_PREFERRED_LOCATION, "host")
    drv.mem_advise(a, drv.mem_advice.SET_ACCESSED_BY, drv.Device(0))
    A = drv.pointer_attribute
    got = drv.pointer_get_attributes(a)
    # the driver reports managed memory as device memory that IS_MANAGED
    assert got[A.IS_MANAGED] is True and got[A.MEMORY_TYPE] == drv.memory_type.DEVICE
    assert got[A.RANGE_SIZE] >= 4 * n


def test_managed_attach_to_one_stream(drv, mod):
    s = drv.Stream()
    a = drv.managed_zeros((64, 3), np.float32, mem_flags=drv.mem_attach_flags.HOST)
    m = _base_of(a, drv.ManagedAllocation)
    m.attach(drv.mem_attach_flags.SINGLE, s)
    mod.get_function("scale")(m, np.float32(2.0), np.int32(a.size), block=(192, 1, 1),
                              stream=s)
    s.synchronize()
    assert np.array_equal(a, np.ones((64, 3), np.float32))


def test_mapped_host_memory_end_to_end(drv, mod):
    n = 5003
    h = drv.pagelocked_empty(n, np.float32, mem_flags=drv.host_alloc_flags.DEVICEMAP)
    x = rng(7).standard_normal(n).astype(np.float32)
    h[:] = x
    dptr = _base_of(h, drv.HostAllocation).get_device_pointer()
    mod.get_function("scale")(np.uintp(dptr), np.float32(-2.0), np.int32(n),
                              block=(128, 1, 1), grid=((n + 127) // 128, 1))
    drv.Context.synchronize()
    np.testing.assert_allclose(h, -2.0 * x + 1.0, rtol=1e-6, atol=1e-6)
    assert drv.pointer_get_attribute(drv.pointer_attribute.MEMORY_TYPE, h) \
        == drv.memory_type.HOST


def test_registered_host_memory_with_devicemap(drv, mod):
    arr = rng(8).standard_normal(4096).astype(np.float32)
    want = 0.5 * arr + 1.0
    reg = drv.register_host_memory(arr, drv.mem_host_register_flags.DEVICEMAP)
    dptr = _base_of(reg, drv.HostAllocation).get_device_pointer()
    mod.get_function("scale")(np.uintp(dptr), np.float32(0.5),
                              np.int32(arr.size), block=(256, 1, 1), grid=(16, 1))
    drv.Context.synchronize()
    np.testing.assert_allclose(arr, want, rtol=1e-6, atol=1e-6)


def test_pointer_attributes_of_device_memory(drv, context):
    A = drv.pointer_attribute
    d = drv.mem_alloc(1 << 20)
    assert drv.pointer_get_attribute(A.CONTEXT, d) is context
    assert drv.pointer_get_attribute(A.MEMORY_TYPE, d) == drv.memory_type.DEVICE
    assert drv.pointer_get_attribute(A.DEVICE_ORDINAL, d) == context.device.handle
    assert drv.pointer_get_attribute(A.RANGE_START_ADDR, int(d) + 4096) == int(d)
    assert drv.pointer_get_attribute(A.RANGE_SIZE, int(d) + 4096) == 1 << 20
    assert drv.pointer_get_attribute(A.IS_MANAGED, d) is False
    plain = np.zeros(8)
    assert drv.pointer_get_attributes(plain, [A.MEMORY_TYPE])[A.MEMORY_TYPE] == 0
    with pytest.raises(drv.LogicError):
        drv.pointer_get_attribute(A.MEMORY_TYPE, plain)


def test_created_pool_serves_allocations_and_becomes_the_device_pool(drv, context):
    dev = context.device
    default = dev.get_default_mem_pool()
    pool = drv.MemoryPool(dev)
    A = drv.pointer_attribute
    s = drv.Stream()
    a = pool.allocate(3 << 20, s)
    assert drv.pointer_get_attribute(A.MEMPOOL_HANDLE, a) == pool.handle
    x = rng(3).integers(0, 255, 3 << 20, dtype=np.uint8)
    drv.memcpy_htod_async(a, x, s)
    back = np.empty_like(x)
    drv.memcpy_dtoh_async(back, a, s)
    s.synchronize()
    assert np.array_equal(back, x)
    pool.set_attribute(drv.mem_pool_attribute.RELEASE_THRESHOLD, 1 << 30)
    assert pool.get_attribute(drv.mem_pool_attribute.RELEASE_THRESHOLD) == 1 << 30
    assert pool.get_attribute(drv.mem_pool_attribute.USED_MEM_CURRENT) >= 3 << 20
    try:
        dev.set_mem_pool(pool)
        assert dev.get_mem_pool() is pool
        b = drv.mem_alloc_async(1 << 20, s)
        assert drv.pointer_get_attribute(A.MEMPOOL_HANDLE, b) == pool.handle
        b.free()
    finally:
        dev.set_mem_pool(default)
    assert dev.get_mem_pool() == default
    a.free()
    s.synchronize()
    pool.trim_to(0)


# ---------------------------------------------------------------------------
# IPC across processes, peer access
# ---------------------------------------------------------------------------

IPC_SCRIPT = r'''
import multiprocessing
import numpy as np


def child(mem_handle, event_handle, n, conn):
    """Open the parent's memory and event, wait on the event, double the
    values in place, report what was read."""
    try:
        import gpuarr.autoinit  # noqa: F401
        import gpuarr.driver as drv
        ev = drv.Event.from_ipc_handle(event_handle)
        ev.synchronize()
        m = drv.IPCMemoryHandle(mem_handle)
        got = np.empty(n, np.float32)
        drv.memcpy_dtoh(got, m)
        drv.memcpy_htod(m, got * 2)
        drv.Context.synchronize()
        m.close()
        conn.send(("ok", got))
    except BaseException as exc:  # report, do not hang the parent
        conn.send(("error", repr(exc)))


if __name__ == "__main__":
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    n = 10007
    x = np.random.default_rng(11).standard_normal(n).astype(np.float32)
    d = drv.mem_alloc(x.nbytes)
    s = drv.Stream()
    drv.memcpy_htod_async(d, x, s)
    ev = drv.Event(drv.event_flags.INTERPROCESS | drv.event_flags.DISABLE_TIMING)
    ev.record(s)
    ctx = multiprocessing.get_context("spawn")
    parent, conn = ctx.Pipe()
    p = ctx.Process(target=child, args=(drv.mem_get_ipc_handle(d), ev.ipc_handle(), n, conn))
    p.start()
    assert parent.poll(120), "the child did not answer"
    status, got = parent.recv()
    p.join(60)
    assert status == "ok", got
    assert np.array_equal(got, x)
    back = np.empty_like(x)
    drv.memcpy_dtoh(back, d)
    assert np.array_equal(back, 2 * x)
    assert p.exitcode == 0
    print("DONE")
'''


def run_script(tmp_path, name, text):
    """Run ``text`` as a script in a fresh interpreter (fork and spawn need
    a main module of their own); it passes when it prints DONE."""
    path = tmp_path / name
    path.write_text(text)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0 and r.stdout.strip().endswith("DONE"), r.stdout + r.stderr


def test_ipc_memory_and_event_across_two_processes(context, tmp_path):
    run_script(tmp_path, "ipc_two_processes.py", IPC_SCRIPT)


def test_ipc_bad_input(drv):
    with pytest.raises(ValueError):
        drv.mem_get_ipc_handle(drv.mem_alloc_async(256))
    with pytest.raises(ValueError):
        drv.IPCMemoryHandle(b"\0" * 63)
    with pytest.raises(drv.LogicError):
        drv.Event().ipc_handle()
    with pytest.raises(ValueError):
        drv.Event(drv.event_flags.INTERPROCESS)


def test_peer_access_on_one_device(drv, context):
    dev = context.device
    assert dev.can_access_peer(dev) is False
    for k in range(drv.Device.count()):
        assert isinstance(dev.can_access_peer(drv.Device(k)), bool)
    second = dev.make_context()
    drv.Context.pop()
    try:
        # two contexts of one device: there is no peer to enable
        with pytest.raises(drv.Error) as info:
            drv.Context.enable_peer_access(second)
        assert info.value.call == "cuCtxEnablePeerAccess"
        with pytest.raises(TypeError):
            drv.Context.enable_peer_access(dev)
        # a copy between memory of the device's two contexts
        x = rng(5).integers(0, 1 << 30, 4096, dtype=np.int32)
        a = drv.to_device(x)
        second.push()
        b = drv.mem_alloc(x.nbytes)
        drv.Context.pop()
        drv.memcpy_dtod(b, a, x.nbytes)
        back = np.empty_like(x)
        drv.memcpy_dtoh(back, b)
        assert np.array_equal(back, x)
        del b
    finally:
        second.detach()


# ---------------------------------------------------------------------------
# Streams and events
# ---------------------------------------------------------------------------

def test_stream_priorities(drv, mod):
    least, greatest = drv.Context.get_stream_priority_range()
    assert greatest <= least
    hi = drv.Stream(priority=greatest)
    lo = drv.Stream(drv.stream_flags.NON_BLOCKING, priority=least)
    assert hi.priority == greatest and lo.priority == least
    assert lo.flags == drv.stream_flags.NON_BLOCKING
    assert drv.Stream(priority=greatest - 100).priority == greatest     # clamped
    x = rng(2).standard_normal(1000).astype(np.float32)
    d = drv.to_device(x)
    mod.get_function("scale")(d, np.float32(2), np.int32(1000), block=(256, 1, 1),
                              grid=(4, 1), stream=hi)
    hi.synchronize()
    back = np.empty_like(x)
    drv.memcpy_dtoh(back, d)
    np.testing.assert_allclose(back, 2 * x + 1, rtol=1e-6, atol=1e-6)
    with pytest.raises(TypeError):
        drv.Stream(priority=0.5)


def test_event_flags(drv):
    e = drv.Event(drv.event_flags.BLOCKING_SYNC)
    e.record().synchronize()
    assert e.query()
    nt = drv.Event(drv.event_flags.DISABLE_TIMING)
    nt.record().synchronize()
    with pytest.raises(drv.Error):
        nt.time_since(e)


# ---------------------------------------------------------------------------
# Launch features
# ---------------------------------------------------------------------------

def test_occupancy_agrees_with_itself_and_the_device(drv, mod, context):
    f = mod.get_function("grid_sum")
    sms = context.device.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    per_sm = {bs: f.max_active_blocks_per_multiprocessor(bs) for bs in range(32, 1025, 32)}
    assert all(v >= 1 for v in per_sm.values())
    assert per_sm[256] * 256 <= context.device.get_attribute(
        drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
    grid, block = f.max_potential_block_size()
    assert per_sm[block] * block == max(v * bs for bs, v in per_sm.items())
    assert grid == per_sm[block] * sms
    grid2, block2 = f.max_potential_block_size(lambda bs: 64 * bs)
    assert f.max_active_blocks_per_multiprocessor(block2, 64 * block2) >= 1
    static = f.shared_size_bytes
    # bounded by the kernel's dynamic shared memory limit, 48 KiB until raised
    assert f.available_dynamic_smem_per_block(1, 256) == 48 * 1024 - static
    f.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024)
    assert f.get_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES) == 100 * 1024
    assert f.available_dynamic_smem_per_block(1, 256) >= 100 * 1024 - static
    assert f.max_active_blocks_per_multiprocessor(256, 100 * 1024) >= 1
    f.set_attribute(drv.function_attribute.PREFERRED_SHARED_MEMORY_CARVEOUT, 50)
    f.set_cache_config(drv.func_cache.PREFER_SHARED)


@pytest.mark.parametrize("n", [1, 4097, 1 << 20])
def test_cooperative_launch_with_a_grid_wide_barrier(drv, mod, context, n):
    f = mod.get_function("grid_sum")
    sms = context.device.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    blocks = f.max_active_blocks_per_multiprocessor(256) * sms
    x = rng(n).standard_normal(n).astype(np.float32)
    dx = drv.to_device(x)
    partial = drv.mem_alloc(4 * blocks)
    out = drv.to_device(np.full(blocks, np.nan, np.float32))
    arrived = drv.to_device(np.zeros(1, np.uint32))
    f(dx, partial, out, arrived, np.int32(n), block=(256, 1, 1), grid=(blocks, 1),
      cooperative=True)
    got = np.empty(blocks, np.float32)
    drv.memcpy_dtoh(got, out)
    assert np.all(got == got[0])
    np.testing.assert_allclose(got[0], x.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError, match="cooperative"):
        f(dx, partial, out, arrived, np.int32(n), block=(256, 1, 1), grid=(blocks + 1, 1),
          cooperative=True)


@pytest.mark.parametrize("cluster", [2, 4, 8])
def test_cluster_launch_reads_distributed_shared_memory(drv, mod, cluster):
    f = mod.get_function("dsmem_neighbour")
    nblocks = 8 * cluster
    out = drv.to_device(np.full(3 * nblocks, -1, np.int32))
    f(out, block=(64, 1, 1), grid=(nblocks, 1), cluster=(cluster, 1, 1))
    got = np.empty(3 * nblocks, np.int32)
    drv.memcpy_dtoh(got, out)
    got = got.reshape(nblocks, 3)
    b = np.arange(nblocks)
    rank = b % cluster
    neighbour = b - rank + (rank + 1) % cluster
    assert np.array_equal(got[:, 1], rank) and np.all(got[:, 2] == cluster)
    assert np.array_equal(got[:, 0], neighbour * 10 + 1)
    assert f.max_potential_cluster_size((nblocks, 1), (64, 1, 1)) >= 8
    assert f.max_active_clusters((nblocks, 1), (64, 1, 1), (cluster, 1, 1)) >= 1
    with pytest.raises(ValueError, match="clusters"):
        f(out, block=(64, 1, 1), grid=(nblocks + 1, 1), cluster=(cluster, 1, 1))


# ---------------------------------------------------------------------------
# Lifetimes: threads, fork, exhaustion
# ---------------------------------------------------------------------------

def test_threads_allocate_launch_and_release_each_others_objects(drv, mod, context):
    """8 threads allocate (from a pool of their own, so its use is measured
    apart from other tests), launch and copy on their own streams, and hand
    their allocations, streams and events to each other to drop."""
    f = mod.get_function("scale")
    pool = drv.MemoryPool(context.device)
    used = drv.mem_pool_attribute.USED_MEM_CURRENT
    handoff = []
    lock = threading.Lock()
    errors = []

    def work(k):
        try:
            context.push()
            try:
                for j in range(20):
                    x = rng(100 * k + j).standard_normal(1 << 18).astype(np.float32)
                    s = drv.Stream()
                    d = pool.allocate(x.nbytes, s)
                    drv.memcpy_htod_async(d, x, s)
                    f(d, np.float32(2), np.int32(x.size), block=(256, 1, 1),
                      grid=(x.size // 256, 1), stream=s)
                    back = np.empty_like(x)
                    drv.memcpy_dtoh_async(back, d, s)
                    s.synchronize()
                    np.testing.assert_allclose(back, 2 * x + 1, rtol=1e-6, atol=1e-6)
                    e = drv.Event().record(s)
                    with lock:
                        handoff.append((d, s, e))     # another thread drops these
                        mine = handoff.pop(0) if len(handoff) > 3 else None
                    del mine
            finally:
                drv.Context.pop()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert pool.get_attribute(used) > 0          # the last few are still held
    handoff.clear()
    drv.Context.synchronize()
    assert context.pending_releases == 0
    assert pool.get_attribute(used) == 0         # all 160 MiB went back
    pool.trim_to(0)


FORK_SCRIPT = r'''
import multiprocessing, os, sys
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
import gpuarr


def spawned(q):
    import gpuarr.autoinit
    import gpuarr
    q.put(float(gpuarr.to_gpu(np.arange(10.0)).sum().get()))


if __name__ == "__main__":
    a = gpuarr.to_gpu(np.arange(5.0))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        ok = 0
        try:
            gpuarr.to_gpu(np.ones(3))
        except drv.RuntimeError as e:
            ok = int("os.fork()" in str(e))
        os.write(w, bytes([ok]))
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(r, 1) == b"\x01", "the child did not get the fork error"
    assert a.get().tolist() == [0, 1, 2, 3, 4]
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=spawned, args=(q,))
    p.start()
    assert q.get(timeout=120) == 45.0
    p.join()
    print("DONE")
'''


def test_fork_child_gets_a_clear_error_and_spawn_works(context, tmp_path):
    run_script(tmp_path, "fork_then_spawn.py", FORK_SCRIPT)


def test_exhaustion_raises_memory_error_and_keeps_the_inputs(drv, context):
    """An allocation the device cannot hold raises MemoryError after the
    pool gave back what it kept (the cache of small blocks and the driver
    pool's unused memory), and the failed operation's inputs are intact.
    Nothing large is held, so tests running beside it are not starved."""
    import gpuarr
    from gpuarr import tools
    x = rng(4).standard_normal(1 << 16).astype(np.float32)
    a = gpuarr.to_gpu(x)
    free, total = drv.mem_get_info()
    pool = tools.default_pool()
    small = [gpuarr.empty(1000 + 16 * k, np.float32) for k in range(64)]
    del small                                  # kept by the pool for reuse
    stream_ordered = isinstance(pool, tools.StreamOrderedMemoryPool)
    if stream_ordered:
        held = pool.held_bytes
        assert held >= 64 * 4000
    with pytest.raises(MemoryError):
        gpuarr.empty(2 * total // 4, np.float32)
    # the cache went back, and what trying took (not under compute-sanitizer,
    # which keeps the driver pool's freed memory for its own checks)
    if stream_ordered and not os.environ.get("GPUARR_UNDER_SANITIZER"):
        assert pool.held_bytes <= held - 64 * 4000, (pool.held_bytes, held)
    with pytest.raises(MemoryError):
        a[None, :] * gpuarr.to_gpu(np.ones(1 << 22, np.float32))[:, None]
    assert np.array_equal(a.get(), x)
    drv.Context.synchronize()
    assert drv.mem_get_info()[0] >= free - (64 << 20)
    b = a * 2                                  # the device works on
    np.testing.assert_array_equal(b.get(), 2 * x)
