"""Matrix products (issue 14, item 1) beside CuPy and PyTorch, all on
cuBLAS: ``a @ b`` of 8192^3 float32 and float16, 4096^3 float64, a batch
of (4096, 64, 64) float32, and ``a.T @ b`` on a transposed 8192^2 float32
view (no copy: the same time as the contiguous product is the goal).

Figures are milliseconds (median of event-timed calls; lower is better);
the workload name gives the TFLOP/s that 2 m n k flops in gpuarr's time
make.  float32 products run without TF32 in all three (PyTorch's and
CuPy's defaults, and gpuarr's).
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gpuarr_events,
                    rivals, torch_events)


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401

    cp, torch = rivals()
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False
    ev = gpuarr_events()
    rng = np.random.default_rng(6)

    def case(name, ha, hb, flops, ours=None, cfn=None, tfn=None, repeats=10):
        a, b = gpuarr.to_gpu(ha), gpuarr.to_gpu(hb)
        ours = ours or (lambda x, y: x @ y)
        ms = event_median_ms(lambda: ours(a, b), ev, warmup=3, repeats=repeats)
        o = {}
        if cp is not None:
            ca, cb = cp.asarray(ha), cp.asarray(hb)
            f = cfn or (lambda x, y: x @ y)
            o["CuPy"] = event_median_ms(lambda: f(ca, cb), cupy_events(),
                                        warmup=3, repeats=repeats)
        if torch is not None:
            ta, tb = torch.from_numpy(ha).cuda(), torch.from_numpy(hb).cuda()
            f = tfn or (lambda x, y: x @ y)
            o["PyTorch"] = event_median_ms(lambda: f(ta, tb), torch_events(),
                                           warmup=3, repeats=repeats)
        add_row("%s (%.0f TFLOP/s)" % (name, flops / ms / 1e9), "ms", ms, o)
        # a spot check of the product against float64 on the host
        got = ours(a, b)
        i = rng.integers(0, got.shape[-2], 4)
        j = rng.integers(0, got.shape[-1], 4)
        if got.ndim == 3:
            z = rng.integers(0, got.shape[0], 4)
            want = [np.dot(ha[z[t]][i[t]].astype(np.float64),
                           hb[z[t]][:, j[t]].astype(np.float64)) for t in range(4)]
            h = got.get()[z, i, j]
        else:
            x = ha.T if name.startswith("a.T") else ha
            want = [np.dot(x[i[t]].astype(np.float64), hb[:, j[t]].astype(np.float64))
                    for t in range(4)]
            h = got.get()[i, j]
        scale = np.sqrt(ha.shape[-1])
        assert np.allclose(h, want, atol=scale * 1e-2, rtol=1e-2), (h, want)
        del a, b, got

    def normal(shape, dt):
        return rng.standard_normal(shape, dtype=np.float32).astype(dt)

    n = 8192
    case("matmul 8192^3 f32", normal((n, n), np.float32),
         normal((n, n), np.float32), 2 * n ** 3)
    case("matmul 8192^3 f16", normal((n, n), np.float16),
         normal((n, n), np.float16), 2 * n ** 3)
    case("matmul 4096^3 f64", normal((4096, 4096), np.float64),
         normal((4096, 4096), np.float64), 2 * 4096 ** 3)
    case("batched matmul (4096, 64, 64) f32", normal((4096, 64, 64), np.float32),
         normal((4096, 64, 64), np.float32), 2 * 4096 * 64 ** 3, repeats=30)
    case("a.T @ b 8192^2 f32, transposed view", normal((n, n), np.float32),
         normal((n, n), np.float32), 2 * n ** 3,
         ours=lambda x, y: x.T @ y, cfn=lambda x, y: x.T @ y,
         tfn=lambda x, y: x.T @ y)

    # the cost of one small product on the host: wall clock per call
    import gpuarr.driver as drv
    from common import wall_per_call
    h = normal((64, 64), np.float32)
    g = gpuarr.to_gpu(h)
    us = wall_per_call(lambda: g @ g, drv.Context.synchronize, n=5000)
    o = {}
    if cp is not None:
        c = cp.asarray(h)
        o["CuPy"] = wall_per_call(lambda: c @ c, cp.cuda.runtime.deviceSynchronize,
                                  n=5000)
    if torch is not None:
        t = torch.from_numpy(h).cuda()
        o["PyTorch"] = wall_per_call(lambda: t @ t, torch.cuda.synchronize, n=5000)
    add_row("matmul 64^3 f32 (per call, wall)", "us", us, o)

    # numpy.linalg on cuSOLVER (gpuarr's calls read cuSOLVER's info back,
    # a synchronization that the event time includes)
    def solver(name, host, ours, cfn, tfn, repeats=5):
        g = gpuarr.to_gpu(host)
        ms = event_median_ms(lambda: ours(g), ev, warmup=2, repeats=repeats)
        o = {}
        if cp is not None:
            c = cp.asarray(host)
            o["CuPy"] = event_median_ms(lambda: cfn(c), cupy_events(), warmup=2,
                                        repeats=repeats)
        if torch is not None:
            t = torch.from_numpy(host).cuda()
            o["PyTorch"] = event_median_ms(lambda: tfn(t), torch_events(),
                                           warmup=2, repeats=repeats)
        add_row(name, "ms", ms, o)

    a = normal((4096, 4096), np.float64) + 128 * np.eye(4096)
    b = normal((4096, 1), np.float64)
    gb = gpuarr.to_gpu(b)
    cb = cp.asarray(b) if cp is not None else None
    tb = torch.from_numpy(b).cuda() if torch is not None else None
    solver("solve 4096 f64, one right-hand side", a,
           lambda g: gpuarr.linalg.solve(g, gb), lambda c: cp.linalg.solve(c, cb),
           lambda t: torch.linalg.solve(t, tb))
    s = normal((2048, 2048), np.float32)
    spd = (s @ s.T + 2048 * np.eye(2048)).astype(np.float32)
    solver("cholesky 2048 f32", spd, gpuarr.linalg.cholesky, cp.linalg.cholesky
           if cp is not None else None, torch.linalg.cholesky if torch is not None else None)
    solver("qr 2048 f32", s, gpuarr.linalg.qr, cp.linalg.qr if cp is not None else None,
           torch.linalg.qr if torch is not None else None)
    solver("svd 2048 f32", s, gpuarr.linalg.svd,
           cp.linalg.svd if cp is not None else None,
           torch.linalg.svd if torch is not None else None, repeats=3)
