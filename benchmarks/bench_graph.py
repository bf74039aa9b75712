"""CUDA graphs: per-kernel cost (wall-clock microseconds, lower is better)
of 1000 small kernels (c = a + b on 1024 floats) launched one by one on a
stream, against the same 1000 kernels captured into a graph and launched
with one cuGraphLaunch; beside CuPy's stream capture (cupy.cuda.Graph) and
torch.cuda.CUDAGraph of the same work. Goal (issue 12): the graph at most
0.5x the stream launches."""

import numpy as np

from common import add_row, host_median_s, try_import

SRC = r"""
extern "C" __global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
N = 1024
KERNELS = 1000


def per_kernel_us(fn, sync, repeats=7, warmup=2):
    """Median over ``repeats`` of the microseconds per kernel of ``fn()``
    (which queues KERNELS kernels) until the device is done."""
    return host_median_s(fn, sync, warmup, repeats) / KERNELS * 1e6


def run():
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    from gpuarr.compiler import SourceModule

    f = SourceModule(SRC, no_extern_c=True).get_function("add")
    f.prepare("PPPi")
    a, b, c = (drv.mem_alloc(4 * N) for _ in range(3))
    s = drv.Stream()

    def on_stream():
        for _ in range(KERNELS):
            f.prepared_async_call((N // 256, 1), (256, 1, 1), s, c, a, b, N)

    s.begin_capture()
    on_stream()
    exe = s.end_capture().instantiate()
    stream_us = per_kernel_us(on_stream, s.synchronize)
    graph_us = per_kernel_us(lambda: exe.launch(s), s.synchronize)

    others_stream, others_graph = {}, {}
    cp = try_import("cupy")
    if cp is not None:
        k = cp.RawKernel(SRC, "add")
        ca, cb, cc = (cp.ones(N, cp.float32) for _ in range(3))
        cs = cp.cuda.Stream(non_blocking=True)
        nn = np.int32(N)

        def cp_stream():
            for _ in range(KERNELS):
                k((N // 256,), (256,), (cc, ca, cb, nn), stream=cs)
        cs.begin_capture()
        cp_stream()
        cg = cs.end_capture()
        others_stream["CuPy"] = per_kernel_us(cp_stream, cs.synchronize)
        others_graph["CuPy"] = per_kernel_us(lambda: cg.launch(cs), cs.synchronize)
    torch = try_import("torch")
    if torch is not None and torch.cuda.is_available():
        ta, tb, tc = (torch.ones(N, device="cuda") for _ in range(3))

        def t_stream():
            for _ in range(KERNELS):
                torch.add(ta, tb, out=tc)
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            t_stream()                       # warm-up off the default stream
        torch.cuda.synchronize()
        tg = torch.cuda.CUDAGraph()
        with torch.cuda.graph(tg):
            t_stream()
        others_stream["PyTorch"] = per_kernel_us(t_stream, torch.cuda.synchronize)
        others_graph["PyTorch"] = per_kernel_us(tg.replay, torch.cuda.synchronize)
    add_row("graph: 1000 adds (1024 f32) launched on a stream, per kernel", "us",
            stream_us, others_stream)
    add_row("graph: the same 1000 captured, one cuGraphLaunch, per kernel", "us",
            graph_us, others_graph)
    add_row("graph: captured / stream launches (goal <= 0.5)", "x",
            graph_us / stream_us, {})


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
