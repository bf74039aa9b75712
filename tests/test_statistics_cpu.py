"""CPU checks of the host halves of numpy's order statistics, bins and
partition: the quantile plan (positions and weights) run through a host
copy of the device's interpolation must give numpy's quantiles bit for
bit; digitize's monotonicity test must agree with numpy's (which raises
for bins that are neither rising nor falling); argument errors come
before any device work."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gpuarr
from gpuarr import _histograms, _quantiles

_KEEP = []


def fake_array(h):
    """A GPUArray describing host memory (no driver needed: only argument
    checks may run on it)."""
    _KEEP.append(h)
    return gpuarr.GPUArray(h.shape, h.dtype, gpudata=h.ctypes.data,
                           strides=h.strides)


def host_quantile(sorted_rows, q, method, weak_q):
    """What _quantiles._quantile does on the device, on the host."""
    n = sorted_rows.shape[-1]
    p = _quantiles.plan(n, q, method)
    rest = sorted_rows.ndim - 1

    def at(idx):
        g = np.take(sorted_rows, idx, axis=-1)
        return np.moveaxis(g, tuple(range(rest, rest + q.ndim)),
                           tuple(range(q.ndim))) if q.ndim else g

    if p[0] == "take":
        res = at(p[1])
    else:
        _, prev, nxt, gamma = p
        lo, hi = at(prev), at(nxt)
        diff = hi - lo
        if weak_q:
            t = float(gamma)
            res = lo + diff * t
            if t >= 0.5:
                res = np.asarray(hi - diff * (1 - t)).astype(res.dtype)
        else:
            shape = gamma.shape + (1,) * rest
            t = gamma.reshape(shape)
            res = lo + diff * t
            res = np.where(t >= 0.5, (hi - diff * (1 - t)).astype(res.dtype),
                           res)
    if sorted_rows.dtype.kind == "f":
        last = sorted_rows[..., -1]
        res = np.where(np.isnan(last), last.astype(res.dtype), res)
    return np.asarray(res)


@pytest.mark.parametrize("method", _quantiles.METHODS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32,
                                np.float16, np.uint8])
def test_plan_gives_numpys_quantiles(method, dt):
    rng = np.random.default_rng(4)
    for n in (1, 2, 3, 10, 97):
        a = (rng.standard_normal((3, n)) * 20).astype(dt)
        s = np.sort(a, axis=-1)
        for q in (0.0, 0.25, 0.5, 0.7, 1.0, 0.999, 1e-9):
            want = np.quantile(a, q, axis=-1, method=method)
            got = host_quantile(s, np.asanyarray(q), method, True)
            assert got.dtype == want.dtype, (got.dtype, want.dtype)
            assert got.tobytes() == want.tobytes(), (n, q, got, want)
        for q in ([0.1, 0.5, 0.9], [[0.0], [1.0]], np.float32([0.3, 0.6])):
            qa = np.asanyarray(q)
            want = np.quantile(a, qa, axis=-1, method=method)
            got = host_quantile(s, qa, method, False)
            assert got.dtype == want.dtype
            assert got.tobytes() == want.tobytes(), (n, q, got, want)


def test_plan_with_nan_rows_and_integer_q():
    a = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 1.0, 2.0, 3.0]])
    s = np.sort(a, axis=-1)
    for q in (0.5, 1, 0):
        qa = np.asanyarray(q)
        want = np.quantile(a, q, axis=-1)
        got = host_quantile(s, qa, "linear", type(q) in (int, float))
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 300), st.floats(0, 1), st.sampled_from(
    _quantiles.METHODS))
def test_plan_property(n, q, method):
    a = np.arange(n, dtype=np.float64) * 1.5 - 7.0
    want = np.quantile(a, q, method=method)
    got = host_quantile(a, np.asanyarray(q), method, True)
    assert got.tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("bins", [[], [1.0], [1, 2, 3], [3, 2, 1],
                                  [1, 1, 2, 2], [2, 2, 1, 1], [1, 1, 1],
                                  [1, 3, 2], [3, 1, 2], [1, np.nan],
                                  [np.nan, 1, 2], [1, 2, np.nan, 3]])
def test_monotonicity_matches_numpy(bins):
    b = np.asarray(bins, dtype=np.float64)
    mono = _histograms._monotonicity(b)
    x = np.array([0.5, 1.0, 1.5, 2.5])
    try:
        want = np.digitize(x, b)
    except ValueError:
        assert mono == 0
        return
    assert mono in (1, -1)
    if mono == 1:
        np.testing.assert_array_equal(np.searchsorted(b, x, "right"), want)
    else:
        np.testing.assert_array_equal(
            len(b) - np.searchsorted(b[::-1], x, "right"), want)


def test_errors_before_any_device_work():
    a = fake_array(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        gpuarr.quantile(a, 1.5)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        gpuarr.percentile(a, [10, 101])
    with pytest.raises(ValueError, match="is not a valid method"):
        gpuarr.quantile(a, 0.5, method="bogus")
    with pytest.raises(NotImplementedError, match="hazen"):
        gpuarr.quantile(a, 0.5, method="hazen")
    with pytest.raises(NotImplementedError):
        gpuarr.quantile(a, 0.5, weights=a)
    c = fake_array(np.zeros(4, np.complex64))
    with pytest.raises(TypeError, match="real numbers"):
        gpuarr.quantile(c, 0.5)
    with pytest.raises(TypeError, match="may not be complex"):
        gpuarr.digitize(c, [1, 2])
    with pytest.raises(ValueError, match="monotonically"):
        gpuarr.digitize(a, [1, 3, 2])
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        gpuarr.bincount(fake_array(np.zeros(3, np.int64)), minlength=-1)
    with pytest.raises(ValueError, match="too deep"):
        gpuarr.bincount(fake_array(np.zeros((2, 2), np.int64)))
    with pytest.raises(TypeError, match="rule 'safe'"):
        gpuarr.bincount(a)
    with pytest.raises(ValueError, match="same length"):
        gpuarr.bincount(fake_array(np.zeros(3, np.int64)),
                        weights=fake_array(np.zeros(2)))
    with pytest.raises(NotImplementedError, match="estimator"):
        gpuarr.histogram(a, bins="auto")
    with pytest.raises(ValueError, match="increase monotonically"):
        gpuarr.histogram(a, bins=[0, 2, 1])
    with pytest.raises(ValueError, match="kth\\(=4\\) out of bounds \\(4\\)"):
        gpuarr.partition(a, 4)
    with pytest.raises(ValueError, match="kth\\(=-1\\) out of bounds"):
        gpuarr.partition(a, -5)
    with pytest.raises(TypeError, match="Partition index must be integer"):
        gpuarr.argpartition(a, 1.5)
    with pytest.raises(ValueError, match="Booleans unacceptable"):
        gpuarr.partition(a, True)
    with pytest.raises(ValueError, match="introselect"):
        gpuarr.partition(a, 1, kind="quick")
    with pytest.raises(ValueError, match="Invalid kind"):
        gpuarr.isin(a, a, kind="hash")
    with pytest.raises(ValueError, match="only supported for boolean"):
        gpuarr.isin(a, a, kind="table")


# ---------------------------------------------------------------------------
# histogram's shared-memory kernel

def test_histogram_kernel_compiles_for_every_dtype_pair():
    from _util import batch_sources, kernel_compiler
    from gpuarr import _histkernels as hk
    compile_ = kernel_compiler()
    if compile_ is None:
        pytest.skip("neither gpuarr.compiler (NVRTC/nvcc) nor nvcc is "
                    "available")
    data = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8"]
    specs = {}
    for d in data:
        for e in ("f2", "f4", "f8", "i8", "u8"):
            cmp = hk.compare_dtype(d, e)
            for w in (False, True):
                s = hk.hist_spec(d, cmp, w)
                specs[s.kkey] = s
    compile_(batch_sources(list(specs.values())))


def test_histogram_kernel_takes_what_it_compares_exactly():
    from gpuarr import _histkernels as hk
    for d, e in [("i1", "f8"), ("u8", "i8"), ("i2", "f2"), ("f2", "f2"),
                 ("f4", "f8"), ("i4", "i8"), ("u2", "u8")]:
        p = np.promote_types(d, e)
        c = hk.compare_dtype(d, e)
        # the comparison type holds both sides' values as numpy's promoted
        # type does, in the same order
        assert c.kind == ("f" if p.kind == "f" else p.kind)
        assert c.itemsize >= p.itemsize
    for d, e in [("?", "f8"), ("c8", "f8"), ("f8", "c16"), ("i4", "?")]:
        assert hk.compare_dtype(d, e) is None
        assert not hk.shared_bins_ok(d, e, 10)
    assert hk.shared_bins_ok("f4", "f4", hk.MAX_BINS)
    assert not hk.shared_bins_ok("f4", "f4", hk.MAX_BINS + 1)
    assert not hk.shared_bins_ok("f4", "f4", 0)
    # edges rounded to 8 bytes, then 4-byte counts (8 with weights): the
    # largest launch fits the 48 KiB a block may take without opting in
    assert hk.shared_bytes(np.float32, 3, False) == 16 + 12
    assert hk.shared_bytes(np.float64, hk.MAX_BINS, True) <= 48 * 1024
    with pytest.raises(TypeError):
        hk.hist_spec("c8", np.float64, False)
