"""Random numbers: 2**28 float32 standard normals and uniforms (and float64
ones) written into a preallocated array; GB/s written (higher is better),
beside CuPy's and PyTorch's generators where importable.

Prediction (H200, see docs/performance/random.md): uniforms are memory-bound (~4.0
TB/s measured).  float32 normals: with the radius from lg2.approx and
sqrt.approx (run 17's sweep: 3947 GB/s against 3848 for uniforms and
3047 for the previous polynomial log and rsqrt + Newton), at the write
bandwidth.  float64 normals ~1.6 TB/s (FP64/ALU-bound, see the doc).  The
standard_normal rows are also measured with the v1 kernel ("v1 kernel"
rows) so one run compares both generations, and the float64 one with
CUDA's log and sincospi (``gpuarr.random.F64_MATH = "library"``) beside
gpuarr's own, the default.
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gbs, gpuarr_events,
                    rivals, torch_events)

N = 2 ** 28


def run():
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.gpuarray as ga
    from gpuarr import random as grandom

    g = grandom.default_rng(0)
    cp, torch = rivals()

    for dtype, label in ((np.float32, "float32"), (np.float64, "float64")):
        n = N if dtype == np.float32 else N // 2
        nbytes = n * np.dtype(dtype).itemsize
        out = ga.empty(n, dtype)
        for method in ("standard_normal", "random"):
            f = getattr(g, method)
            ours = gbs(nbytes, event_median_ms(
                lambda: f(dtype=dtype, out=out), gpuarr_events()))
            others = {}
            if cp is not None:
                try:
                    cg = cp.random.default_rng(0)
                    cout = cp.empty(n, dtype=dtype)
                    cf = getattr(cg, method)
                    cf(dtype=dtype, out=cout)
                    others["CuPy"] = gbs(nbytes, event_median_ms(
                        lambda: cf(dtype=dtype, out=cout), cupy_events()))
                    del cout
                except Exception:
                    pass
            if torch is not None:
                tdt = torch.float32 if dtype == np.float32 else torch.float64
                tout = torch.empty(n, dtype=tdt, device="cuda")
                tf = tout.normal_ if method == "standard_normal" else tout.uniform_
                others["PyTorch"] = gbs(nbytes, event_median_ms(
                    tf, torch_events()))
                del tout
            add_row("random: %s %s 2**%d into out=" % (method, label,
                                                       int(np.log2(n))),
                    "GB/s", ours, others, nbytes=nbytes, better="higher")
            if method == "standard_normal":
                # the other kernel generation, and (float64) CUDA's log
                # and sincospi beside gpuarr's own (the default), with the
                # rivals measured above
                variants = [("IMPL", "grid-stride", "grid-stride kernel", {})]
                if dtype == np.float64:
                    variants.append(("F64_MATH", "library",
                                     "CUDA's log, sincospi", others))
                for attr, value, what, rows in variants:
                    old = getattr(grandom, attr)
                    setattr(grandom, attr, value)
                    try:
                        alt = gbs(nbytes, event_median_ms(
                            lambda: f(dtype=dtype, out=out), gpuarr_events()))
                    finally:
                        setattr(grandom, attr, old)
                    add_row("random: %s %s 2**%d into out= (%s)"
                            % (method, label, int(np.log2(n)), what),
                            "GB/s", alt, rows, nbytes=nbytes, better="higher")
        del out

    # integers in a small range (Lemire, no rejections in practice)
    out = ga.empty(N, np.int32)
    ours = gbs(4 * N, event_median_ms(
        lambda: g.integers(0, 1000, dtype=np.int32, out=out), gpuarr_events()))
    others = {}
    if torch is not None:
        tout = torch.empty(N, dtype=torch.int32, device="cuda")
        others["PyTorch"] = gbs(4 * N, event_median_ms(
            lambda: tout.random_(0, 1000), torch_events()))
        del tout
    add_row("random: integers [0,1000) int32 2**28", "GB/s", ours, others,
            nbytes=4 * N, better="higher")


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
