"""Scans: ``cumsum`` of 2**26 float32 elements (one pass, decoupled
look-back) and axis scans of an 8192 x 8192 float32 matrix, beside
``cupy.cumsum`` and ``torch.cumsum``.  GB/s count the bytes read plus the
bytes written (higher is better); the copy ceiling on an H200 is about
4.2 TB/s.  The look-back cases run with every kernel: the first row of a
case with the default (``gpuarr.scan.IMPL``, named in the label), the
row marked "block-per-tile" or "pipelined" with the other."""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gpuarr_events,
                    torch_events, try_import)


def _rate(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def _with_impl(impl, fn):
    """Run ``fn()`` with ``gpuarr.scan.IMPL`` set to ``impl``."""
    from gpuarr import scan
    old = scan.IMPL
    scan.IMPL = impl
    try:
        return fn()
    finally:
        scan.IMPL = old


def _impls():
    """The default kernel first, then the others."""
    from gpuarr import scan
    return [scan.IMPL] + [i for i in ("block-per-tile", "pipelined") if i != scan.IMPL]


def _case(label, host, axis, others_fn, impls=None):
    import gpuarr.gpuarray as ga
    from gpuarr.cumulative import cumsum

    a = ga.to_gpu(host)
    out = ga.empty(host.shape if axis is not None else (host.size,),
                   host.dtype)
    nbytes = 2 * host.nbytes
    others = None
    for impl in impls or _impls():
        ms = _with_impl(impl, lambda: event_median_ms(
            lambda: cumsum(a, axis=axis, out=out), gpuarr_events()))
        if others is None:
            others = others_fn(host, axis, nbytes)
            add_row("%s, default %s" % (label, impl), "GB/s", _rate(nbytes, ms), others, nbytes,
                    better="higher")
        else:
            add_row("%s %s" % (label, impl), "GB/s", _rate(nbytes, ms), {},
                    nbytes, better="higher")


def _others(host, axis, nbytes):
    res = {}
    cp = try_import("cupy")
    if cp is not None:
        try:
            x = cp.asarray(host)
            o = cp.empty(host.shape if axis is not None else (host.size,),
                         host.dtype)
            ms = event_median_ms(lambda: cp.cumsum(x, axis=axis, out=o),
                                 cupy_events())
            res["CuPy"] = _rate(nbytes, ms)
            del x, o
        except Exception as exc:  # pragma: no cover - reported, not fatal
            print("  CuPy failed: %s" % exc)
    torch = try_import("torch")
    if torch is not None and torch.cuda.is_available():
        try:
            x = torch.from_numpy(host).cuda()
            dim = 0 if axis is None else axis
            if axis is None:
                x = x.reshape(-1)
            o = torch.empty_like(x)
            ms = event_median_ms(lambda: torch.cumsum(x, dim=dim, out=o),
                                 torch_events())
            res["PyTorch"] = _rate(nbytes, ms)
            del x, o
        except Exception as exc:  # pragma: no cover
            print("  PyTorch failed: %s" % exc)
    return res


def run():
    import gpuarr.autoinit  # noqa: F401

    rng = np.random.default_rng(0)
    flat = rng.uniform(-1, 1, 2 ** 26).astype(np.float32)
    _case("cumsum f32 2**26 (flat)", flat, None, _others)
    mat = flat.reshape(8192, 8192)
    _case("cumsum f32 8192x8192 axis=1 (rows)", mat, 1, _others)
    _case("cumsum f32 8192x8192 axis=0 (columns)", mat, 0, _others,
          impls=("block-per-tile",))
    ints = rng.integers(0, 4, 2 ** 26).astype(np.int32)
    import gpuarr.gpuarray as ga
    from gpuarr.cumulative import cumsum
    a = ga.to_gpu(ints)
    out = ga.empty((ints.size,), np.int64)
    nbytes = ints.nbytes + out.nbytes
    ms = {impl: _with_impl(impl, lambda: event_median_ms(
        lambda: cumsum(a, out=out), gpuarr_events())) for impl in _impls()}
    others = {}
    cp = try_import("cupy")
    if cp is not None:
        x = cp.asarray(ints)
        o = cp.empty(ints.size, cp.int64)
        others["CuPy"] = _rate(nbytes, event_median_ms(
            lambda: cp.cumsum(x, out=o), cupy_events()))
    torch = try_import("torch")
    if torch is not None and torch.cuda.is_available():
        x = torch.from_numpy(ints).cuda()
        o = torch.empty(ints.size, dtype=torch.int64, device="cuda")
        others["PyTorch"] = _rate(nbytes, event_median_ms(
            lambda: torch.cumsum(x, dim=0, out=o), torch_events()))
    for k, impl in enumerate(_impls()):
        label = "cumsum i32->i64 2**26 (flat)"
        label = "%s, default %s" % (label, impl) if k == 0 else \
            "%s %s" % (label, impl)
        add_row(label, "GB/s", _rate(nbytes, ms[impl]), others if k == 0
                else {}, nbytes, better="higher")


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
