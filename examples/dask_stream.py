"""A Dask array larger than the GPU's memory, streamed from pinned host
memory through GPUArray chunks (used by dask_larger_than_memory.py and by
tests/test_dask_gpu.py).

The array is ``nblocks`` blocks of ``block`` float32 values.  Block ``i``
is uploaded from pinned host buffer ``i % nbuf``: ``nbuf`` buffers of
normal random values, made once per process from fixed seeds, so any
process (a ``dask.distributed`` worker, the client checking the answer)
sees the same values while the host holds only ``nbuf`` blocks.  Only the
chunks in flight are on the GPU.

Run through ``dask.distributed``, this module must be importable by the
workers (its directory on ``sys.path`` before the cluster starts) so that
tasks name its functions rather than carry copies of them.
"""
import threading

import numpy as np

import dask.array as da

import gpuarr
import gpuarr.driver as drv

_buffers = {}
_lock = threading.Lock()


def pinned_buffer(j, block, seed):
    """Pinned host buffer ``j`` of ``block`` float32 normals from
    ``seed + j``, made once per process (in the current context)."""
    key = (j, block, seed)
    with _lock:
        buf = _buffers.get(key)
        if buf is None:
            buf = drv.pagelocked_empty(block, np.float32)
            np.random.default_rng(seed + j).standard_normal(
                dtype=np.float32, out=buf)
            _buffers[key] = buf
        return buf


def gpu_block(block_id=None, block=0, nbuf=1, seed=0):
    """Block ``block_id`` of the streamed array: a GPUArray uploaded from
    its pinned buffer (``gpuarr.to_gpu``: one host-to-device copy)."""
    return gpuarr.to_gpu(pinned_buffer(block_id[0] % nbuf, block, seed))


def streamed_array(nblocks, block, nbuf=4, seed=1234):
    """The dask array of ``nblocks * block`` float32 values with GPUArray
    chunks of ``block`` values, uploaded as tasks run."""
    return da.map_blocks(gpu_block, block=block, nbuf=nbuf, seed=seed,
                         chunks=((block,) * nblocks,), dtype=np.float32,
                         meta=gpuarr.empty((0,), np.float32))


def expected(nblocks, block, nbuf=4, seed=1234, bins=64, hist_range=(-4, 4)):
    """numpy's float64 sum and histogram counts of the streamed array,
    from the ``nbuf`` buffers (each repeated as often as blocks use it)."""
    total = 0.0
    counts = np.zeros(bins, np.int64)
    for j in range(min(nbuf, nblocks)):
        times = len(range(j, nblocks, nbuf))
        buf = np.random.default_rng(seed + j).standard_normal(
            block, dtype=np.float32)
        total += times * np.sum(buf, dtype=np.float64)
        counts += times * np.histogram(buf, bins, hist_range)[0]
    return total, counts


def pinned_h2d_gbs(nbytes=1 << 30, repeat=5):
    """The measured pinned host-to-device copy rate in GB/s (median of
    ``repeat`` copies of ``nbytes``), timed with CUDA events."""
    host = drv.pagelocked_empty(nbytes, np.uint8)
    host[:] = 1
    dev = drv.mem_alloc(nbytes)
    start, end = drv.Event(), drv.Event()
    rates = []
    for _ in range(repeat + 1):
        start.record()
        drv.memcpy_htod(dev, host)
        end.record()
        end.synchronize()
        rates.append(nbytes / (end.time_since(start) * 1e-3) / 1e9)
    return float(np.median(rates[1:]))
