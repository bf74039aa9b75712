"""PyCUDA's cuRAND generators (gpuarr.curandom): XORWOW and MRG32k3a
float32 uniforms and normals, 2**28 values written into a preallocated
array; GB/s written (higher is better), beside CuPy's cuRAND host-API
generators of the same kind (cupy.random.RandomState with that method; a
new array per call, from CuPy's pool) and PyTorch's (its Philox: another
generator, for scale).

Prediction (H200): gpuarr's fills run one cuRAND state per thread
(multiprocessor count x 1024 threads, PyCUDA's layout), the state in
registers, coalesced stores: uniforms near the write bandwidth for XORWOW
(a few integer operations a value), somewhat below for MRG32k3a (double-
precision arithmetic per value); normals use Box-Muller pairs
(curand_normal2), so log/sincos per two values.
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gbs, gpuarr_events,
                    rivals, torch_events)

N = 2 ** 28


def _cupy_state(cp, kind):
    curand = cp.cuda.curand
    name = {"XORWOW": ("CURAND_RNG_PSEUDO_XORWOW", "CURAND_RNG_XORWOW"),
            "MRG32k3a": ("CURAND_RNG_PSEUDO_MRG32K3A", "CURAND_RNG_MRG32K3A")}[kind]
    method = next(getattr(curand, n) for n in name if hasattr(curand, n))
    return cp.random.RandomState(1234, method=method)


def run():
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.gpuarray as ga
    from gpuarr import curandom

    cp, torch = rivals()
    nbytes = 4 * N
    out = ga.empty(N, np.float32)
    for kind, cls in (("XORWOW", curandom.XORWOWRandomNumberGenerator),
                      ("MRG32k3a", curandom.MRG32k3aRandomNumberGenerator)):
        g = cls(seed_getter=curandom.seed_getter_unique)
        for dist in ("uniform", "normal"):
            fill = getattr(g, "fill_" + dist)
            ours = gbs(nbytes, event_median_ms(lambda: fill(out),
                                                gpuarr_events()))
            others = {}
            if cp is not None:
                try:
                    rs = _cupy_state(cp, kind)
                    f = (rs.random_sample if dist == "uniform"
                         else rs.standard_normal)
                    others["CuPy"] = gbs(nbytes, event_median_ms(
                        lambda: f(N, dtype=np.float32), cupy_events()))
                except Exception:
                    pass
            if torch is not None:
                tout = torch.empty(N, dtype=torch.float32, device="cuda")
                tf = tout.uniform_ if dist == "uniform" else tout.normal_
                others["PyTorch (Philox)"] = gbs(nbytes, event_median_ms(
                    tf, torch_events()))
                del tout
            add_row("curandom: %s fill_%s float32 2**28" % (kind, dist), "GB/s",
                    ours, others, nbytes=nbytes, better="higher")
        del g


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
