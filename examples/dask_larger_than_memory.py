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
import contextlib
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

    runs = {"sum": lambda: (x.sum(dtype=np.float64),),
            "sum and histogram": lambda: (
                x.sum(dtype=np.float64),
                da.histogram(x, bins=64, range=(-4, 4))[0])}
    want_s, want_counts = dask_stream.expected(nblocks, block)
    ok = True
    with _scheduler(args, block) as kw:
        for what, graph in runs.items():
            start = time.perf_counter()
            got = dask.compute(*graph(), **kw)
            secs = time.perf_counter() - start
            good = isinstance(got[0], gpuarr.GPUArray) and np.isclose(
                float(got[0].get()), want_s, rtol=1e-9, atol=1e-6 * x.size)
            if len(got) > 1:
                good = good and (got[1].get() == want_counts).all()
            ok = ok and bool(good)
            rate = x.nbytes / secs / 1e9
            print("%s, %s of %.1f GB: %.2f s, %.1f GB/s (%.0f%% of the "
                  "pinned copy rate); %s"
                  % (args.scheduler, what, x.nbytes / 1e9, secs, rate,
                     100 * rate / h2d, "matches numpy" if good else "WRONG"))
    return 0 if ok else 1


@contextlib.contextmanager
def _scheduler(args, block):
    """``dask.compute`` keywords for the chosen scheduler, warmed up (the
    pinned buffers made and the kernels compiled) on a small graph."""
    y = dask_stream.streamed_array(4, block)
    warm = (y.sum(dtype=np.float64),
            da.histogram(y, bins=64, range=(-4, 4))[0])
    if args.scheduler == "threads":
        pool = gpuarr.dask.ContextThreadPoolExecutor(args.threads)
        kw = {"scheduler": "threads", "pool": pool}
        dask.compute(*warm, **kw)
        yield kw
        pool.shutdown()
        return
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=args.threads,
                      preload=["gpuarr.dask"], dashboard_address=":0") \
            as cluster, Client(cluster):
        dask.compute(*warm)
        yield {}


if __name__ == "__main__":
    sys.exit(main())
