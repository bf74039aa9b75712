"""Sweep of the reduction's cols path (``sum(axis=0)`` of C arrays): loads
in flight per lane (``_reduction_plan.COL_UNROLL``) against PyTorch's
``sum(dim=0)`` on the same data, in one process.

    python3 sweep_cols.py [unroll ...]      (default 4 8 16; small elements take twice the value)
"""
import sys

import numpy as np

from common import event_median_ms, gpuarr_events, rivals, torch_events

SHAPES = [((16384, 16384), np.float32), ((16384, 16384), np.float64),
          ((16384, 16384), np.float16), ((1 << 20, 64), np.float32),
          ((2048, 2048), np.float32), ((65536, 4096), np.float32)]


def main(unrolls):
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    from gpuarr import _reduction_plan, reduction

    _, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(3)
    for shape, dt in SHAPES:
        h = rng.standard_normal(shape).astype(dt)
        g = gpuarr.to_gpu(h)
        nbytes = h.nbytes
        want = h.astype(np.float64).sum(axis=0)
        row = ["%s %s" % (shape, np.dtype(dt).name)]
        for u in unrolls:
            _reduction_plan.COL_UNROLL = u
            reduction.clear_cache()
            r = gpuarr.sum(g, axis=0).get().astype(np.float64)
            err = np.max(np.abs(r - want)) / (np.max(np.abs(want)) + 1)
            assert err < (5e-2 if dt == np.float16 else 1e-4), (u, err)
            ms = event_median_ms(lambda: gpuarr.sum(g, axis=0), ev)
            row.append("U=%d %.0f" % (u, nbytes / ms / 1e6))
        if torch is not None:
            t = torch.from_numpy(h).cuda()
            ms = event_median_ms(lambda: t.sum(dim=0), torch_events())
            row.append("PyTorch %.0f" % (nbytes / ms / 1e6))
            del t
        print(" | ".join(row) + " GB/s", flush=True)
    _reduction_plan.COL_UNROLL = 8


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [4, 8, 16])
