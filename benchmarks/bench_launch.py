"""Launch overhead: a kernel with three pointers and an int, launched 20,000
times from Python; wall-clock microseconds per launch (lower is better)."""
import numpy as np

from common import add_row, try_import, wall_per_call

SRC = r"""
extern "C" __global__ void touch(float *a, const float *b, const float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + c[i];
}
"""


def run():
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    from gpuarr.compiler import SourceModule

    n = 32
    mod = SourceModule(SRC, no_extern_c=True)
    f = mod.get_function("touch")
    a, b, c = (drv.mem_alloc(4 * n) for _ in range(3))
    nn = np.int32(n)
    sync = drv.Context.synchronize
    call = wall_per_call(lambda: f(a, b, c, nn, block=(32, 1, 1), grid=(1, 1)), sync)
    f.prepare("PPPi")
    prep = wall_per_call(lambda: f.prepared_call((1, 1), (32, 1, 1), a, b, c, n), sync)

    import time
    reps = 20000
    f._repeat_prepared_call(200, (1, 1), (32, 1, 1), a, b, c, n)
    sync()
    t0 = time.perf_counter()
    f._repeat_prepared_call(reps, (1, 1), (32, 1, 1), a, b, c, n)
    sync()
    floor = (time.perf_counter() - t0) / reps * 1e6

    cp = try_import("cupy")
    others_call = {}
    if cp is not None:
        k = cp.RawKernel(SRC, "touch")
        ca, cb, cc = (cp.empty(n, cp.float32) for _ in range(3))
        others_call["CuPy"] = wall_per_call(
            lambda: k((1,), (32,), (ca, cb, cc, nn)), cp.cuda.runtime.deviceSynchronize)
    add_row("launch: Function.__call__ (3 ptr + int)", "us", call, others_call)
    add_row("launch: prepared_call (3 ptr + int)", "us", prep, others_call)
    add_row("launch: cuLaunchKernel alone, C loop (floor)", "us", floor, others_call)


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
