"""A Dask sum over every GPU of the machine, against the same sum on one.

Each worker of a gpuarr.dask.local_cluster is pinned to one GPU.  The array
(``--gib`` GiB of float32) is made on the workers, block by block
(``--block-mib`` MiB each, Philox normals seeded by the block's index, so
every run sums the same values wherever the blocks land), summed there,
and only the partial sums travel.  The script times the whole sum (the
median of ``--repeat`` computes after a warm-up one that compiles the
kernels) on device 0 alone, then on all devices, checks that both give the
same total, and prints one row each with the rate in GB/s and the
scaling ratio:

    python examples/dask_gpus.py --gib 64 --block-mib 1024
"""
import argparse
import statistics
import time

import numpy as np

import dask
import dask.array as da
import distributed

import gpuarr.autoinit  # noqa: F401  (results arrive in this context)
import gpuarr
import gpuarr.driver as drv
import gpuarr.dask


def block(i, n):
    """Block ``i``: n float32 normals, made on the worker's device."""
    import gpuarr.random
    return gpuarr.random.default_rng(i).standard_normal(n, dtype=np.float32)


def timed_sum(devices, nblocks, n, threads, repeat):
    """(median seconds, total) of the sum on a cluster over ``devices``."""
    with gpuarr.dask.local_cluster(devices, threads_per_worker=threads) \
            as cluster, distributed.Client(cluster):
        meta = np.empty(0, np.float32)
        parts = [da.from_delayed(dask.delayed(block)(i, n), (n,), np.float32,
                                 meta=meta) for i in range(nblocks)]
        total = da.concatenate(parts).sum(dtype=np.float64)
        first = total.compute()                  # compiles on every worker
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            got = total.compute()
            times.append(time.perf_counter() - t0)
        got, first = (float(v.get() if hasattr(v, "get") else v)
                      for v in (got, first))
        assert got == first, (got, first)
        return statistics.median(times), got


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=float, default=64.0)
    p.add_argument("--block-mib", type=int, default=1024)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    ndev = drv.Device.count()
    n = args.block_mib * (1 << 20) // 4
    nblocks = max(1, int(args.gib * (1 << 30) // (4 * n)))
    nbytes = nblocks * n * 4
    rows = []
    for devices in ([0], list(range(ndev))) if ndev > 1 else ([0],):
        secs, total = timed_sum(devices, nblocks, n, args.threads,
                                args.repeat)
        rows.append((len(devices), secs, total))
    print("| GPUs | GiB summed | median s | GB/s | scaling | total |")
    print("|---|---|---|---|---|---|")
    for k, secs, total in rows:
        print("| %d | %.1f | %.3f | %.1f | %.2fx | %.6g |"
              % (k, nbytes / 2**30, secs, nbytes / secs / 1e9,
                 rows[0][1] / secs, total))
    if len(rows) > 1:
        assert rows[1][2] == rows[0][2], "the totals differ between runs"
    else:
        print("(one GPU on this machine: no scaling row)")


if __name__ == "__main__":
    main()
