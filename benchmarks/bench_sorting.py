"""Sorting (issue 13, item 3) beside CuPy and PyTorch: ``sort`` of 2**28
float32, ``argsort`` of 2**26 float32, ``sort`` and ``argsort`` along the
last axis of a (2**16, 1024) float32 array (the sort also by the block
kernel the warp sort took over from, gpuarr alone), ``unique`` of 2**26
int32 (values in [0, 2**24): the bitmap path, and the sort on the same
values, gpuarr alone; then values over all of int32, which sort).

Figures are milliseconds (median of event-timed calls; lower is better)
and, for the sorts, the rate in keys per second as G keys/s.  gpuarr's
radix path waits once for its digit histogram, which the event time
includes.
"""
import numpy as np

from common import (add_row, cupy_events, event_median_ms, gpuarr_events,
                    rivals, torch_events)

N_SORT = 2 ** 28
N_ARG = 2 ** 26
ROWS, COLS = 2 ** 16, 1024
N_UNIQUE = 2 ** 26


def _row(name, ms, others):
    add_row(name, "ms", ms, others)


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401

    cp, torch = rivals()
    ev = gpuarr_events()
    rng = np.random.default_rng(5)

    def others(cfn, tfn):
        o = {}
        if cp is not None and cfn is not None:
            o["CuPy"] = event_median_ms(cfn, cupy_events(), repeats=10)
        if torch is not None and tfn is not None:
            o["PyTorch"] = event_median_ms(tfn, torch_events(), repeats=10)
        return o

    def case(name, host, ours, cfn, tfn, check):
        a = gpuarr.to_gpu(host)
        ca = cp.asarray(host) if cp is not None else None
        ta = torch.from_numpy(host).cuda() if torch is not None else None
        ms = event_median_ms(lambda: ours(a), ev, warmup=2, repeats=10)
        o = others(ca is not None and (lambda: cfn(ca)) or None,
                   ta is not None and (lambda: tfn(ta)) or None)
        _row(name, ms, o)
        got = ours(a)
        if ca is not None:
            # against CuPy's result on the device (numpy's sort of 2**28
            # keys on the host took longer than the whole benchmark)
            want = cfn(ca)
            mine = cp.asarray(got)
            assert mine.shape == want.shape and bool((mine == want).all()), name
        else:
            check(got, host)

    def same_sort(got, host):
        assert np.array_equal(got.get(), np.sort(host, kind="stable"))

    def check_argsort(got, host):
        assert np.array_equal(got.get(), np.argsort(host, kind="stable"))

    case("sort 2**28 f32", rng.standard_normal(N_SORT, dtype=np.float32),
         gpuarr.sort, lambda c: cp.sort(c), lambda t: torch.sort(t, stable=True),
         same_sort)
    case("argsort 2**26 f32", rng.standard_normal(N_ARG, dtype=np.float32),
         gpuarr.argsort, lambda c: cp.argsort(c),
         lambda t: torch.argsort(t, stable=True),
         check_argsort)
    case("sort (2**16, 1024) f32, last axis",
         rng.standard_normal((ROWS, COLS), dtype=np.float32),
         lambda a: gpuarr.sort(a, axis=-1), lambda c: cp.sort(c, axis=-1),
         lambda t: torch.sort(t, dim=-1, stable=True), same_sort)

    # the same rows by the block kernel the warp sort replaced (gpuarr
    # alone: the change's before and after in one run), and argsort
    from gpuarr import _sortkernels
    rows = gpuarr.to_gpu(rng.standard_normal((ROWS, COLS), dtype=np.float32))
    _sortkernels.ROW_SORT = "block"
    try:
        ms = event_median_ms(lambda: gpuarr.sort(rows, axis=-1), ev,
                             warmup=2, repeats=10)
    finally:
        _sortkernels.ROW_SORT = "warp"
    _row("sort (2**16, 1024) f32, last axis, block kernel", ms, {})
    case("argsort (2**16, 1024) f32, last axis",
         rng.standard_normal((ROWS, COLS), dtype=np.float32),
         lambda a: gpuarr.argsort(a, axis=-1),
         lambda c: cp.argsort(c, axis=-1),
         lambda t: torch.argsort(t, dim=-1, stable=True), check_argsort)

    def check_unique(got, host):
        assert np.array_equal(got.get(), np.unique(host))
    dense = rng.integers(0, 2 ** 24, N_UNIQUE, dtype=np.int32)
    case("unique 2**26 i32", dense,
         gpuarr.unique, lambda c: cp.unique(c), lambda t: torch.unique(t),
         check_unique)
    # the same values by the sort (the path before the bitmap one; gpuarr
    # alone), and values over all of int32's range, which sort
    d = gpuarr.to_gpu(dense)
    dense_min = _sortkernels.DENSE_MIN
    _sortkernels.DENSE_MIN = 2 ** 62
    try:
        ms = event_median_ms(lambda: gpuarr.unique(d), ev, warmup=2,
                             repeats=10)
    finally:
        _sortkernels.DENSE_MIN = dense_min
    _row("unique 2**26 i32, by the sort", ms, {})
    del d
    case("unique 2**26 i32, full range",
         rng.integers(-2 ** 31, 2 ** 31, N_UNIQUE, dtype=np.int32),
         gpuarr.unique, lambda c: cp.unique(c), lambda t: torch.unique(t),
         check_unique)
