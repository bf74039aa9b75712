"""Sum and histogram an array larger than the GPU's memory with Dask.

The array (``--gb`` GB of float32, 200 by default) is never whole anywhere:
each 256 MiB chunk is uploaded from pinned host memory by its task
(dask_stream.py), summed and histogrammed on the GPU, and dropped.  Runs
with Dask's threaded scheduler (a gpuarr.dask.ContextThreadPoolExecutor) or
with dask.distributed (a LocalCluster whose worker preloads gpuarr.dask),
checks both answers against numpy, and prints the rate in GB/s next to the
measured pinned host-to-device copy rate, which bounds it.

    python examples/dask_larger_than_memory.py --gb 200 --scheduler threads
"""
import argparse
import os
import sys
import time

import numpy as np

import dask
import dask.array as da

import gpuarr.autoinit  # noqa: F401  (the primary context of CUDA_DEVICE)
import gpuarr
import gpuarr.dask

# workers import the block loader by name (see dask_stream's docstring)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dask_stream  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gb", type=float, default=200.0,
                   help="size of the array in GB (10**9 bytes)")
    p.add_argument("--block-mb", type=int, default=256,
                   help="chunk size in MiB")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--scheduler", choices=("threads", "distributed"),
                   default="threads")
    args = p.parse_args(argv)

    block = (args.block_mb << 20) // 4
    nblocks = max(1, int(args.gb * 1e9 // (4 * block)))
    x = dask_stream.streamed_array(nblocks, block)
    free, total_mem = gpuarr.driver.mem_get_info()
    print("array: %.1f GB in %d chunks of %d MiB; GPU memory %.1f GB"
          % (x.nbytes / 1e9, nblocks, args.block_mb, total_mem / 1e9))
    h2d = dask_stream.pinned_h2d_gbs()
    print("pinned host-to-device copy: %.1f GB/s" % h2d)

    work = (x.sum(dtype=np.float64),
            da.histogram(x, bins=64, range=(-4, 4))[0])
    if args.scheduler == "threads":
        pool = gpuarr.dask.ContextThreadPoolExecutor(args.threads)
        dask.compute(*dask_stream_probe(block), scheduler="threads",
                     pool=pool)
        start = time.perf_counter()
        s, counts = dask.compute(*work, scheduler="threads", pool=pool)
        secs = time.perf_counter() - start
    else:
        from distributed import Client, LocalCluster
        with LocalCluster(n_workers=1, threads_per_worker=args.threads,
                          preload=["gpuarr.dask"],
                          dashboard_address=":0") as cluster, \
                Client(cluster):
            dask.compute(*dask_stream_probe(block))      # warm the worker
            start = time.perf_counter()
            s, counts = dask.compute(*work)
            secs = time.perf_counter() - start
    want_s, want_counts = dask_stream.expected(nblocks, block)
    assert isinstance(s, gpuarr.GPUArray)
    ok = np.isclose(float(s.get()), want_s, rtol=1e-9, atol=1e-6 * x.size) \
        and (counts.get() == want_counts).all()
    rate = x.nbytes / secs / 1e9
    print("%s: sum and histogram of %.1f GB in %.2f s: %.1f GB/s "
          "(%.0f%% of the pinned copy rate); %s"
          % (args.scheduler, x.nbytes / 1e9, secs, rate, 100 * rate / h2d,
             "matches numpy" if ok else "WRONG"))
    return 0 if ok else 1


def dask_stream_probe(block):
    """A small run of the same graph (4 chunks), to build the buffers and
    compile the kernels before timing."""
    y = dask_stream.streamed_array(4, block)
    return y.sum(dtype=np.float64), da.histogram(y, bins=64,
                                                 range=(-4, 4))[0]


if __name__ == "__main__":
    sys.exit(main())
