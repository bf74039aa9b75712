"""Counting into bins beside CuPy and PyTorch: ``histogram`` of 2**26
float32 normals into 64 and 2048 equal bins over (-4, 4) (PyTorch's
``histc``), and ``bincount`` of 2**26 int32 in [0, 1000).

Figures are milliseconds (median of event-timed calls; lower is better).
gpuarr's histogram counts in one pass with the edges and the counts in
shared memory (``gpuarr/kernels/histogram.cu.mako``); bincount scatters
with ``add.at``'s global atomics.
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gpuarr_events,
                    rivals, torch_events)

N = 2 ** 26


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401

    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(11)

    def case(name, host, ours, cfn, tfn, want):
        a = gpuarr.to_gpu(host)
        got = ours(a)
        assert np.array_equal(got.get(), want), name
        ms = event_median_ms(lambda: ours(a), ev, warmup=3, repeats=20)
        o = {}
        if cp is not None:
            ca = cp.asarray(host)
            o["CuPy"] = event_median_ms(lambda: cfn(ca), cupy_events(),
                                        repeats=20)
        if torch is not None and tfn is not None:
            ta = torch.from_numpy(host).cuda()
            o["PyTorch"] = event_median_ms(lambda: tfn(ta), torch_events(),
                                           repeats=20)
        add_row(name, "ms", ms, o)

    x = rng.standard_normal(N, dtype=np.float32)
    for bins in (64, 2048):
        case("histogram 2**26 f32, %d bins" % bins, x,
             lambda a, b=bins: gpuarr.histogram(a, b, (-4, 4))[0],
             lambda c, b=bins: cp.histogram(c, b, (-4, 4))[0],
             lambda t, b=bins: torch.histc(t, b, -4, 4),
             np.histogram(x, bins, (-4, 4))[0])
    v = rng.integers(0, 1000, N, dtype=np.int32)
    case("bincount 2**26 i32 < 1000", v, gpuarr.bincount,
         lambda c: cp.bincount(c), lambda t: torch.bincount(t),
         np.bincount(v))
