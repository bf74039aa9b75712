"""Where the time of a small ``a + b`` goes: cProfile of a loop of 20,000
calls on 1024 float32 elements (run on the GPU machine)."""
import cProfile
import pstats

import numpy as np

import gpuarr
import gpuarr.autoinit  # noqa: F401
import gpuarr.driver as drv

a = gpuarr.to_gpu(np.random.default_rng(0).standard_normal(1024, dtype=np.float32))
b = gpuarr.to_gpu(np.random.default_rng(1).standard_normal(1024, dtype=np.float32))
for _ in range(1000):
    a + b
drv.Context.synchronize()


def loop():
    for _ in range(20000):
        a + b
    drv.Context.synchronize()


cProfile.run("loop()", "/tmp/small.prof")
pstats.Stats("/tmp/small.prof").sort_stats("tottime").print_stats(18)
