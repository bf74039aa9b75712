"""Managed memory: c = a + b on 2**28 float32 whose inputs and output are
managed (cuMemAllocManaged) and prefetched to the device, against the same
add on ordinary device memory; GB/s of the 3 x 1 GiB moved (higher is
better), beside CuPy's managed memory (cupy.cuda.ManagedMemory, prefetched
with cudaMemPrefetchAsync). Issue 12 asks for the comparison; once the
pages are on the device the two should run at the same rate."""
import numpy as np

from common import add_row, event_median_ms, gbs, gpuarr_events, cupy_events, rivals

N = 1 << 28


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv

    nbytes = 3 * 4 * N
    cp, _ = rivals()
    x = np.random.default_rng(0).standard_normal(N).astype(np.float32)

    def managed_array(host):
        m = drv.managed_empty(N, np.float32)
        if host is not None:
            m[:] = host
        alloc = m.base
        while not isinstance(alloc, drv.ManagedAllocation):
            alloc = alloc.base
        drv.mem_prefetch_async(m, drv.Context.get_device())
        return gpuarr.GPUArray((N,), np.float32, gpudata=alloc), m

    keep = [managed_array(x), managed_array(x), managed_array(None)]
    ma, mb, mc = (g for g, _host in keep)     # the host views keep the memory
    drv.Context.synchronize()
    managed_ms = event_median_ms(lambda: gpuarr.add(ma, mb, out=mc), gpuarr_events())
    assert np.array_equal(mc[:1000].get(), 2 * x[:1000])
    da, db = gpuarr.to_gpu(x), gpuarr.to_gpu(x)
    dc = gpuarr.empty_like(da)
    device_ms = event_median_ms(lambda: gpuarr.add(da, db, out=dc), gpuarr_events())
    others = {}
    if cp is not None:
        dev = cp.cuda.Device().id

        def cupy_managed(host):
            mem = cp.cuda.ManagedMemory(4 * N)
            arr = cp.ndarray((N,), cp.float32, cp.cuda.MemoryPointer(mem, 0))
            if host is not None:
                arr.set(host)
            cp.cuda.runtime.memPrefetchAsync(mem.ptr, 4 * N, dev, 0)
            return arr
        ca, cb, cc = cupy_managed(x), cupy_managed(x), cupy_managed(None)
        cp.cuda.Device().synchronize()
        others["CuPy"] = gbs(nbytes, event_median_ms(lambda: cp.add(ca, cb, out=cc),
                                                     cupy_events()))
    add_row("managed a+b 2**28 f32, prefetched (CuPy: managed)", "GB/s",
            gbs(nbytes, managed_ms), others, nbytes, "higher")
    add_row("device a+b 2**28 f32 (the same add, cuMemAlloc)", "GB/s",
            gbs(nbytes, device_ms), {}, nbytes, "higher")
