"""Shared helpers of the benchmarks: timing and the result table.

Device time is measured with CUDA events around each repetition after a
warm-up and reported as the median; per-call overheads are measured with the
wall clock over a loop (ending with a synchronize) and divided by its length.
"""
import statistics
import time

ROWS = []


def add_row(workload, unit, ours, others, nbytes=None, better="lower"):
    """Record one table row.

    Parameters
    ----------
    workload : str
    unit : str
        ``"us"`` (lower is better) or ``"GB/s"`` (higher is better).
    ours : float
    others : dict
        Library name -> figure, for CuPy and PyTorch where importable.
    """
    ROWS.append((workload, unit, ours, dict(others), nbytes, better))
    others_s = "  ".join("%s %.4g" % kv for kv in others.items())
    print("  %-44s gpuarr %.4g %s  %s" % (workload, ours, unit, others_s), flush=True)


def ratio(ours, others, better):
    vals = [v for v in others.values() if v]
    if not vals or not ours:
        return None
    if better == "lower":
        return ours / min(vals)
    return ours / max(vals)


def print_table():
    libs = []
    for r in ROWS:
        for k in r[3]:
            if k not in libs:
                libs.append(k)
    head = "| workload | unit | gpuarr | " + " | ".join(libs) + " | gpuarr / best |"
    print()
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for workload, unit, ours, others, nbytes, better in ROWS:
        cells = ["%.4g" % others[k] if others.get(k) else "-" for k in libs]
        r = ratio(ours, others, better)
        rs = "-" if r is None else "%.2fx %s" % (r, "(time)" if better == "lower" else "(rate)")
        print("| %s | %s | %.4g | %s | %s |" % (workload, unit, ours, " | ".join(cells), rs))


def wall_per_call(fn, sync, n=20000, warmup=200, repeats=3):
    """Median over ``repeats`` of the wall-clock microseconds per call."""
    for _ in range(warmup):
        fn()
    sync()
    results = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        results.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(results)


def host_median_s(fn, sync, warmup=3, repeats=15):
    """Median over ``repeats`` of the wall-clock seconds of ``fn()``
    followed by ``sync()`` (work that events on one stream cannot time:
    several devices, many launches)."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def event_median_ms(fn, record_pair, warmup=5, repeats=30):
    """Median device milliseconds of ``fn`` between two events.

    ``record_pair()`` returns ``(start_record, stop_and_elapsed_ms)``
    callables for the library's own events.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start, stop = record_pair()
        start()
        fn()
        times.append(stop())
    return statistics.median(times)


def gpuarr_events():
    import gpuarr.driver as drv

    def pair():
        a, b = drv.Event(), drv.Event()

        def stop():
            b.record()
            b.synchronize()
            return b.time_since(a)
        return (lambda: a.record()), stop
    return pair


def cupy_events():
    import cupy as cp

    def pair():
        a, b = cp.cuda.Event(), cp.cuda.Event()

        def stop():
            b.record()
            b.synchronize()
            return cp.cuda.get_elapsed_time(a, b)
        return (lambda: a.record()), stop
    return pair


def torch_events():
    import torch

    def pair():
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)

        def stop():
            b.record()
            b.synchronize()
            return a.elapsed_time(b)
        return (lambda: a.record()), stop
    return pair


def try_import(name):
    try:
        return __import__(name)
    except Exception:
        return None


def gbs(nbytes, ms):
    """GB/s of ``nbytes`` moved in ``ms`` milliseconds (None without a
    time)."""
    return nbytes / (ms * 1e-3) / 1e9 if ms else None


def rivals():
    """``(cupy, torch)`` modules to compare with, each None where it is
    missing (torch also where it sees no GPU)."""
    cp = try_import("cupy")
    torch = try_import("torch")
    if torch is not None and not torch.cuda.is_available():
        torch = None
    return cp, torch


def rivals_gbs(cp, torch, fns, nbytes):
    """GB/s of CuPy's and PyTorch's forms of a workload: ``fns`` maps
    "CuPy" and "PyTorch" to a callable (or None); rivals that are missing
    (``cp`` or ``torch`` None) or have no form are left out."""
    o = {}
    if cp is not None and fns.get("CuPy"):
        o["CuPy"] = gbs(nbytes, event_median_ms(fns["CuPy"], cupy_events()))
    if torch is not None and fns.get("PyTorch"):
        o["PyTorch"] = gbs(nbytes, event_median_ms(fns["PyTorch"], torch_events()))
    return o
