"""Elementwise workloads (issue 3), float32, beside CuPy and PyTorch.

Bandwidth counts the bytes a kernel must move: every input element read once
and every output element written once (a broadcast row counted once).
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gbs, gpuarr_events,
                    rivals, torch_events, wall_per_call)

N = 2 ** 28
SIDE = 16384


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv
    from gpuarr.elementwise import ElementwiseKernel

    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(1)
    host_a = rng.standard_normal(N, dtype=np.float32)
    host_b = rng.standard_normal(N, dtype=np.float32)

    a = gpuarr.to_gpu(host_a)
    b = gpuarr.to_gpu(host_b)
    c = gpuarr.empty_like(a)
    ca = cb = cc = ta = tb = tc = None
    if cp is not None:
        ca, cb = cp.asarray(host_a), cp.asarray(host_b)
        cc = cp.empty_like(ca)
    if torch is not None:
        ta, tb = torch.from_numpy(host_a).cuda(), torch.from_numpy(host_b).cuda()
        tc = torch.empty_like(ta)

    def others(fns_bytes):
        out = {}
        for lib, fn, events in fns_bytes:
            if fn is not None:
                out[lib] = events(fn)
        return out

    # Copy ceiling.
    nbytes = 2 * 4 * N
    ms = event_median_ms(lambda: drv.memcpy_dtod(c.gpudata, a.gpudata, 4 * N), ev)
    o = {}
    if cp is not None:
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cc.data.copy_from_device(ca.data, 4 * N), cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(lambda: tc.copy_(ta), torch_events()))
    add_row("device-to-device copy 2**28 f32 (memcpy)", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # c = a + b, into an existing array and with allocation.
    nbytes = 3 * 4 * N
    ms = event_median_ms(lambda: gpuarr.add(a, b, out=c), ev)
    o = {}
    if cp is not None:
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cp.add(ca, cb, out=cc), cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(lambda: torch.add(ta, tb, out=tc), torch_events()))
    add_row("add(a, b, out=c) 2**28 f32", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    ms = event_median_ms(lambda: a + b, ev)
    o = {}
    if cp is not None:
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: ca + cb, cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(lambda: ta + tb, torch_events()))
    add_row("c = a + b 2**28 f32 (allocating)", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # axpy through ElementwiseKernel.
    axpy = ElementwiseKernel("float a, float *x, float *y, float *z",
                             "z[i] = a * x[i] + y[i]", "axpy")
    alpha = np.float32(1.5)
    ms = event_median_ms(lambda: axpy(alpha, a, b, c), ev)
    o = {}
    if cp is not None:
        cax = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z",
                                   "z = a * x + y", "axpy")
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cax(alpha, ca, cb, cc), cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(
            lambda: torch.add(tb, ta, alpha=1.5, out=tc), torch_events()))
    add_row("ElementwiseKernel axpy 2**28 f32", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # (16384, 16384) + a broadcast row.
    m = a.reshape(SIDE, SIDE)
    row = b[:SIDE]
    out2 = c.reshape(SIDE, SIDE)
    nbytes = 2 * 4 * N + 4 * SIDE
    ms = event_median_ms(lambda: gpuarr.add(m, row, out=out2), ev)
    o = {}
    if cp is not None:
        cm, crow, cout = ca.reshape(SIDE, SIDE), cb[:SIDE], cc.reshape(SIDE, SIDE)
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cp.add(cm, crow, out=cout), cupy_events()))
    if torch is not None:
        tm, trow, tout = ta.view(SIDE, SIDE), tb[:SIDE], tc.view(SIDE, SIDE)
        o["PyTorch"] = gbs(nbytes, event_median_ms(lambda: torch.add(tm, trow, out=tout), torch_events()))
    add_row("(16384,16384) + row, out= f32", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # a[::2] + b[::2]
    half = N // 2
    out_h = c[:half]
    nbytes = 3 * 4 * half
    ms = event_median_ms(lambda: gpuarr.add(a[::2], b[::2], out=out_h), ev)
    o = {}
    if cp is not None:
        cout_h = cc[:half]
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cp.add(ca[::2], cb[::2], out=cout_h), cupy_events()))
    if torch is not None:
        tout_h = tc[:half]
        o["PyTorch"] = gbs(nbytes, event_median_ms(
            lambda: torch.add(ta[::2], tb[::2], out=tout_h), torch_events()))
    add_row("a[::2] + b[::2], out= (2**27 results) f32", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # Transposed copy.
    nbytes = 2 * 4 * N
    ms = event_median_ms(lambda: m.T.copy(), ev)
    o = {}
    if cp is not None:
        o["CuPy"] = gbs(nbytes, event_median_ms(lambda: cm.T.copy(), cupy_events()))
    if torch is not None:
        o["PyTorch"] = gbs(nbytes, event_median_ms(lambda: tm.t().contiguous(), torch_events()))
    add_row("a.T.copy() (16384,16384) f32", "GB/s", gbs(nbytes, ms), o, nbytes, "higher")

    # Small a + b: per-call overhead, wall clock.
    sa, sb = gpuarr.to_gpu(host_a[:1024]), gpuarr.to_gpu(host_b[:1024])
    us = wall_per_call(lambda: sa + sb, drv.Context.synchronize)
    o = {}
    if cp is not None:
        csa, csb = cp.asarray(host_a[:1024]), cp.asarray(host_b[:1024])
        o["CuPy"] = wall_per_call(lambda: csa + csb, cp.cuda.runtime.deviceSynchronize)
    if torch is not None:
        tsa, tsb = ta[:1024].clone(), tb[:1024].clone()
        o["PyTorch"] = wall_per_call(lambda: tsa + tsb, torch.cuda.synchronize)
    add_row("a + b, 1024 f32 (per call, wall)", "us", us, o)

    # Correctness of what was timed (fresh inputs would be better; these are
    # random and were never zeros).
    got = (a + b).get()
    assert np.array_equal(got, host_a + host_b), "a + b gave wrong values"
    got_t = m.T.copy().get()
    assert np.array_equal(got_t, host_a.reshape(SIDE, SIDE).T), "transposed copy wrong"


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
