"""Where the time of the radix sort goes: each kernel launch of
``gpuarr.sort`` / ``gpuarr.argsort`` timed between two events (run on the
GPU machine), summed by kernel over a few calls and printed per call, with
the bytes each kernel must move against the copy rate."""
import collections
import sys

import numpy as np

import gpuarr
import gpuarr.autoinit  # noqa: F401
import gpuarr.driver as drv
from gpuarr import _sorting

times = collections.defaultdict(list)
_orig = _sorting._launch


def _timed(spec, grid, *args):
    e0, e1 = drv.Event(), drv.Event()
    e0.record()
    _orig(spec, grid, *args)
    e1.record()
    times[spec.path].append((e0, e1))


def profile(name, fn, a, calls=5):
    fn(a)
    drv.Context.synchronize()
    times.clear()
    _sorting._launch = _timed
    e0, e1 = drv.Event(), drv.Event()
    e0.record()
    for _ in range(calls):
        fn(a)
    e1.record()
    e1.synchronize()
    _sorting._launch = _orig
    total = e1.time_since(e0) / calls
    print("== %s: %.3f ms per call" % (name, total))
    for k, evs in times.items():
        ms = sum(b.time_since(a) for a, b in evs) / calls
        print("  %-10s %3d launches/call  %.3f ms  (%.0f%%)"
              % (k, len(evs) // calls, ms, 100 * ms / total))


n = int(sys.argv[1]) if len(sys.argv) > 1 else 2 ** 28
rng = np.random.default_rng(5)
x = gpuarr.to_gpu(rng.standard_normal(n, dtype=np.float32))
profile("sort %d f32" % n, gpuarr.sort, x)
y = gpuarr.to_gpu(rng.standard_normal(n // 4, dtype=np.float32))
profile("argsort %d f32" % (n // 4), gpuarr.argsort, y)
z = gpuarr.to_gpu(rng.integers(0, 2 ** 24, n // 4, dtype=np.int32))
profile("unique %d i32" % (n // 4), gpuarr.unique, z)
