"""GPU checks of scans against numpy: sizes around powers of two and tile
boundaries, past 2**31 elements, every dtype, inclusive and exclusive, user
operators, axis scans of 2-d/3-d inputs (every kernel path), non-contiguous
inputs, poisoned outputs, and a race check (repeated big scans bitwise
equal)."""
import warnings

import numpy as np
import pytest

import gpuarr.driver as drv
from gpuarr import gpuarray as ga
from gpuarr import scan
from gpuarr.cumulative import cumsum, cumprod

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(1234)

SIZES = sorted({0, 1, 2, 3, 31, 32, 33} | {
    2 ** k + d for k in (5, 8, 10, 12, 13, 14, 16, 20) for d in (-1, 0, 1)}
    | {4096 * 37 + 5, 3 * 10 ** 6 + 7}
    # tile boundaries of the current layouts (v1: 6144 float32/int32, 3072
    # 8-byte accumulators; v3: 12288 and 6144) and more than one look-back
    # window of tiles
    | {t * k + d for t in (3072, 6144, 12288) for k in (1, 2, 129)
       for d in (-1, 0, 1)})


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


@pytest.fixture(autouse=True, params=["block-per-tile", "pipelined"])
def impl(request):
    """Every test runs with each look-back kernel: v1 (a block per tile,
    validated in fec1760) and v3 (persistent blocks, warp roles, input
    staged by TMA; v1 runs instead on unaligned arrays); the ids [v1]/[v3]
    tell which one fails."""
    old = scan.IMPL
    scan.IMPL = request.param
    yield request.param
    scan.IMPL = old


def rand(shape, dt, lo=-3, hi=4):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return RNG.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        lo = max(lo, 0) if dt.kind == "u" else lo
        return RNG.integers(lo, hi, size=shape).astype(dt)
    if dt.kind == "c":
        return (RNG.uniform(lo, hi, size=shape)
                + 1j * RNG.uniform(lo, hi, size=shape)).astype(dt)
    return RNG.uniform(lo, hi, size=shape).astype(dt)


def poisoned(shape, dt):
    """A new array filled with garbage bytes."""
    a = ga.empty(shape, dt)
    if a.nbytes:
        drv.memset_d8(a.ptr, 0xA7, a.nbytes)
    return a


def eps(dt):
    dt = np.dtype(dt)
    if dt.kind == "c":
        dt = np.dtype("f%d" % (dt.itemsize // 2))
    return float(np.finfo(dt).eps)


# the fewest elements of a look-back tile in any layout (complex128, v1:
# scan.tile_size); every layout's tile boundaries are multiples of it
_MIN_TILE = 1024


def _exact_cumsum(h, axis):
    """Prefix sums of float64/complex128 ``h`` along ``axis`` as ``(s, r)``:
    numpy's cumsum ``s`` and its rounding error ``r``, each addition's error
    found exactly (TwoSum) and accumulated: ``s + r`` is exact to about
    eps**2 (a plain float64 cumsum can be off by as much as the tolerance
    of a float64 scan)."""
    s = np.cumsum(h, axis=axis)
    a = np.zeros_like(s)
    tail = [slice(None)] * s.ndim
    head = [slice(None)] * s.ndim
    tail[axis], head[axis] = slice(1, None), slice(None, -1)
    a[tuple(tail)] = s[tuple(head)]
    t = a + h
    b = t - a
    return s, np.cumsum((a - (t - b)) + (h - b) + (t - s), axis=axis)


def check_sum(got, host, axis=None, res_dt=None):
    """Compare a cumsum with the exact reference.

    Floats: each addition rounds with a relative error of at most u = eps/2
    of its result, so element i is off by at most u times the sum of |result|
    over the additions it depends on (to first order).  Those are sums of
    parts of the row that do not start at its beginning (in a thread, a
    warp, a block, a look-back window), each at most mag_i = sum(|x|) up to
    i, an element taking part in at most D = 64 + log2(n) + i / (128 T) of
    them (T = _MIN_TILE); and the prefixes from the row start that the tile
    chain adds, at most 2 (i / T + 2) of them, each at most M_i, the
    largest |prefix| so far (a column scan walks down the axis: i of them).
    The tolerance is 2 eps (D mag_i + chain M_i), a factor 4 over that,
    plus two ulps of the result dtype for its final rounding (float16: a
    float32 sum rounded once to float16).
    """
    res_dt = np.dtype(res_dt or got.dtype)
    assert got.dtype == res_dt
    if res_dt.kind in "biu":
        ref = np.cumsum(host, axis=axis, dtype=res_dt)
        np.testing.assert_array_equal(got, ref)
        return
    wide = np.complex128 if res_dt.kind == "c" else np.float64
    h = host.astype(wide)
    if axis is None:
        h, got, ax = h.ravel(), got.ravel(), 0
    else:
        ax = axis % h.ndim
    s, r = _exact_cumsum(h, ax)
    mag = np.cumsum(np.abs(h), axis=ax)
    big = np.maximum.accumulate(np.abs(s), axis=ax)
    n = h.shape[ax]
    i = np.arange(1, n + 1, dtype=np.float64).reshape(
        [n if k == ax else 1 for k in range(h.ndim)])
    column = axis is not None and ax != h.ndim - 1
    chain = i if column else 2 * (i / _MIN_TILE + 2)
    depth = 64 + np.log2(max(n, 2)) + i / (128 * _MIN_TILE)
    e = eps(np.float32) if res_dt == np.float16 else eps(res_dt)
    real = np.dtype("f%d" % (res_dt.itemsize // 2)) if res_dt.kind == "c" \
        else res_dt
    with np.errstate(over="ignore", invalid="ignore"):
        ulp = np.spacing(np.abs(s).astype(real)).astype(np.float64)
    tol = 2 * e * (depth * mag + chain * big) + 2 * ulp + 1e-30
    err = np.abs((got.astype(wide) - s) - r)
    assert np.all(err <= tol), np.max(err / tol)


# ---------------------------------------------------------------------------
# InclusiveScanKernel / ExclusiveScanKernel


@pytest.mark.parametrize("n", SIZES)
def test_inclusive_int32_sizes(n):
    h = rand(n, np.int32, -1000, 1000)
    knl = scan.InclusiveScanKernel(np.int32, "a+b")
    a = ga.to_gpu(h)
    out = knl(a)
    assert out is a
    np.testing.assert_array_equal(a.get(), np.cumsum(h, dtype=np.int32))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_inclusive_float_sizes_new_output(n, dt):
    h = rand(n, dt)
    knl = scan.InclusiveScanKernel(dt, "a+b")
    a = ga.to_gpu(h)
    out = poisoned((n,), dt)
    r = knl(a, out)
    assert r is out
    check_sum(out.get(), h)
    np.testing.assert_array_equal(a.get(), h)  # input untouched


@pytest.mark.parametrize("n", [0, 1, 2, 3071, 3073, 4095, 4096, 4097, 6143,
                               6144, 6145, 100003, 2 ** 20 + 1])
@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.uint16,
                                np.int32, np.uint32, np.int64, np.uint64,
                                np.bool_])
def test_inclusive_integer_dtypes_wrap(n, dt):
    h = rand(n, dt, -100, 100)
    knl = scan.InclusiveScanKernel(dt, "a+b" if dt != np.bool_ else "a||b")
    r = knl(ga.to_gpu(h), "new")
    if dt == np.bool_:
        ref = np.logical_or.accumulate(h) if n else h
    else:
        with np.errstate(over="ignore"):
            ref = np.cumsum(h, dtype=dt)
    np.testing.assert_array_equal(r.get(), ref)


@pytest.mark.parametrize("n", [1, 5, 3073, 4096, 4097, 6145, 10 ** 5 + 3])
@pytest.mark.parametrize("dt", [np.int32, np.float64, np.complex64,
                                np.complex128, np.int64])
def test_exclusive_vs_inclusive(n, dt):
    h = rand(n, dt)
    inc = scan.InclusiveScanKernel(dt, "a+b")(ga.to_gpu(h), "new").get()
    exc = scan.ExclusiveScanKernel(dt, "a+b", neutral="0")(
        ga.to_gpu(h), poisoned((n,), dt)).get()
    assert exc[0] == 0
    if dt in (np.int32, np.int64):
        np.testing.assert_array_equal(exc[1:], inc[:-1])
        np.testing.assert_array_equal(inc, np.cumsum(h, dtype=dt))
    else:
        check_sum(inc, h)
        # exc[i] is the sum of h[:i], by the same additions: the inclusive
        # bound for h[:-1] (a shift by one is off by |h[i]| there)
        check_sum(exc[1:], h[:-1])


@pytest.mark.parametrize("n", [1, 33, 4097, 10 ** 6 + 1])
@pytest.mark.parametrize("dt", [np.int32, np.uint8, np.float32, np.float16,
                                np.int64, np.float64])
def test_user_max(n, dt):
    h = rand(n, dt, -50, 50)
    knl = scan.InclusiveScanKernel(dt, "max(a, b)")
    r = knl(ga.to_gpu(h), "new").get()
    np.testing.assert_array_equal(r, np.maximum.accumulate(h))
    ex = scan.ExclusiveScanKernel(np.int32, "max(a, b)", neutral="-2147483647-1")
    h32 = h.astype(np.int32)
    r = ex(ga.to_gpu(h32), "new").get()
    assert r[0] == np.iinfo(np.int32).min
    np.testing.assert_array_equal(r[1:], np.maximum.accumulate(h32)[:-1])


@pytest.mark.parametrize("n", [2, 4097, 3 * 10 ** 5])
def test_operand_order(n):
    """``a`` is the earlier operand: "a" keeps x[0], "b" gives x[i]."""
    h = rand(n, np.int32, -1000, 1000)
    first = scan.InclusiveScanKernel(np.int32, "a")(ga.to_gpu(h), "new").get()
    np.testing.assert_array_equal(first, np.full(n, h[0]))
    last = scan.InclusiveScanKernel(np.int32, "b")(ga.to_gpu(h), "new").get()
    np.testing.assert_array_equal(last, h)
    # exclusive "b": out[i] = x[i-1]
    ex = scan.ExclusiveScanKernel(np.int32, "b", neutral="7")(
        ga.to_gpu(h), "new").get()
    assert ex[0] == 7
    np.testing.assert_array_equal(ex[1:], h[:-1])


def test_preamble_and_stream():
    pre = "__device__ __forceinline__ int mx(int x, int y) { return x > y ? x : y; }"
    knl = scan.InclusiveScanKernel(np.int32, "mx(a, b)", preamble=pre,
                                   name_prefix="mxscan")
    h = rand(50001, np.int32, -10 ** 6, 10 ** 6)
    s = drv.Stream()
    a = ga.to_gpu(h)
    r = knl(a, "new", stream=s)
    s.synchronize()
    np.testing.assert_array_equal(r.get(), np.maximum.accumulate(h))


def test_unaligned_views():
    h = rand(100001, np.float32)
    base = ga.to_gpu(h)
    v = base[1:]          # 4-byte aligned only: the scalar-access kernel
    knl = scan.InclusiveScanKernel(np.float32, "a+b")
    r = knl(v, "new")
    check_sum(r.get(), h[1:])
    h16 = rand(8193, np.float16, -1, 1)
    b16 = ga.to_gpu(h16)
    r = scan.InclusiveScanKernel(np.float16, "max(a, b)")(b16[3:], "new")
    np.testing.assert_array_equal(r.get(), np.maximum.accumulate(h16[3:]))


def test_poisoned_exclusive_large():
    n = 3 * 10 ** 6 + 11
    h = rand(n, np.int64, -10 ** 9, 10 ** 9)
    out = poisoned((n,), np.int64)
    scan.ExclusiveScanKernel(np.int64, "a+b", neutral=0)(ga.to_gpu(h), out)
    ref = np.concatenate([[0], np.cumsum(h)[:-1]])
    np.testing.assert_array_equal(out.get(), ref)


def test_race_repeated_big_scans_identical():
    """Scans of 2**26 elements repeated: the first against numpy, the
    repeats against the first, bit for bit, on the device (a host copy of
    each repeat made this the suite's slowest test)."""
    n = 2 ** 26 + 12345
    h = RNG.integers(0, 4, size=n).astype(np.int32)
    a = ga.to_gpu(h)
    first = None
    for _ in range(5):
        out = poisoned((n,), np.int64)
        cumsum(a, out=out)
        if first is None:
            first = out
            np.testing.assert_array_equal(out.get(), np.cumsum(h))
        else:
            assert not bool((out != first).any())
    # the 4-byte packed-descriptor path, scanned in place
    h32 = RNG.integers(-5, 6, size=n).astype(np.int32)
    ref = np.cumsum(h32, dtype=np.int32)
    knl = scan.InclusiveScanKernel(np.int32, "a+b")
    a32 = ga.to_gpu(h32)
    np.testing.assert_array_equal(knl(a32).get(), ref)
    ref = ga.to_gpu(ref)
    for _ in range(4):
        a32.set(h32)
        assert not bool((knl(a32) != ref).any())
    # floats: the association order of tile prefixes depends on timing, so
    # only closeness is promised
    hf = RNG.uniform(-1, 1, size=n).astype(np.float32)
    af = ga.to_gpu(hf)
    for _ in range(3):
        check_sum(cumsum(af).get(), hf)


def _scratch_bytes(stream):
    """The host copy of the scan scratch buffer of ``stream``."""
    kernels, scratches = scan._state()
    key = 0 if stream is None else int(stream.handle)
    buf, size, _ = scratches[key]
    out = np.empty(size, np.uint8)
    drv.Context.synchronize()
    drv.memcpy_dtoh(out, buf)
    return out


def test_scratch_left_zeroed_between_layouts():
    """No memset before a scan: each launch clears the descriptors it used,
    so scans of other descriptor layouts (packed 4-byte, 8-byte and 16-byte
    accumulators), larger and smaller, on one stream all see a clean
    buffer, and the buffer is all zeros after each."""
    s = drv.Stream()
    cases = [(np.float32, 3 * 10 ** 6 + 7), (np.complex128, 10 ** 6 + 3),
             (np.int32, 2 ** 20 + 1), (np.float64, 5 * 10 ** 6 + 1),
             (np.float32, 12289), (np.complex128, 3 * 10 ** 6 + 7),
             (np.int8, 2 ** 16 + 3)]
    for dt, n in cases * 2:
        h = rand(n, dt)
        out = cumsum(ga.to_gpu(h), stream=s)
        s.synchronize()
        check_sum(out.get(), h)
        left = _scratch_bytes(s)
        assert not left.any(), (dt, n, np.flatnonzero(left)[:8])


@pytest.mark.parametrize("grid", [1, 2, 7, None])
@pytest.mark.parametrize("case", ["i4", "i4->i8", "f8", "rows", "excl"])
def test_many_tiles_per_block(case, grid, impl, monkeypatch):
    """More tiles than blocks: v3's loop (every stage of its pipeline and
    every mbarrier phase reused many times) with grids capped at 1, 2 and 7
    blocks and uncapped (132 blocks on an H200, several thousand tiles); v1
    ignores the cap."""
    monkeypatch.setattr(scan, "_MAX_BLOCKS", grid)
    big = grid is None
    if case == "i4":
        n = 6144 * (3000 if big else 50) + 5
        h = RNG.integers(-5, 6, size=n).astype(np.int32)
        got = scan.InclusiveScanKernel(np.int32, "a+b")(ga.to_gpu(h), "new")
        np.testing.assert_array_equal(got.get(), np.cumsum(h, dtype=np.int32))
    elif case == "i4->i8":
        n = 3072 * (3000 if big else 50) + 7
        h = RNG.integers(-5, 6, size=n).astype(np.int32)
        np.testing.assert_array_equal(cumsum(ga.to_gpu(h)).get(), np.cumsum(h))
    elif case == "f8":
        n = 3072 * (2000 if big else 40) + 1
        h = RNG.integers(-9, 10, size=n).astype(np.float64)   # exact sums
        got = cumsum(ga.to_gpu(h)).get()
        np.testing.assert_array_equal(got, np.cumsum(h))
    elif case == "rows":
        rows, cols = (3000, 4097) if big else (40, 10001)
        h = RNG.integers(-5, 6, size=(rows, cols)).astype(np.int32)
        got = cumsum(ga.to_gpu(h), axis=1).get()
        np.testing.assert_array_equal(got, np.cumsum(h, axis=1))
    else:
        n = 6144 * (1000 if big else 30) + 3
        h = RNG.integers(-5, 6, size=n).astype(np.int32)
        out = poisoned((n,), np.int32)
        scan.ExclusiveScanKernel(np.int32, "a+b", neutral=0)(ga.to_gpu(h), out)
        ref = np.concatenate([[0], np.cumsum(h, dtype=np.int32)[:-1]])
        np.testing.assert_array_equal(out.get(), ref)


@pytest.mark.huge
def test_past_2_31_elements():
    """2**31 + 5 elements: int8 {0, 1} pattern, cumsum to int64, checked
    at sampled positions against a closed form; and a uint8 max scan."""
    n = 2 ** 31 + 5
    pat = np.array([1, 0, 1, 1, 0, 0, 1], np.int8)
    reps = -(-n // pat.size)
    host = np.tile(pat, reps)[:n]
    a = ga.to_gpu(host)
    del host
    out = cumsum(a)
    assert out.dtype == np.int64 and out.shape == (n,)
    cp = np.cumsum(pat)

    def closed(idx):
        idx = np.asarray(idx, np.int64)
        return (idx // pat.size) * int(pat.sum()) + cp[idx % pat.size]

    starts = [0, 4096 * 5 - 3, 2 ** 31 - 4096, 2 ** 31 - 17, n - 3000] + [
        int(s) for s in RNG.integers(0, n - 1000, size=20)]
    for s in starts:
        e = min(n, s + 3000)
        np.testing.assert_array_equal(out[s:e].get(), closed(np.arange(s, e)))
    del out
    # uint8 max: zeros with a 1 at k and a 2 at the last element
    b = ga.zeros((n,), np.uint8)
    k = 2 ** 31 - 3
    b[k] = 1
    b[n - 1] = 2
    r = scan.InclusiveScanKernel(np.uint8, "max(a, b)")(b)
    got = r.get()
    assert not got[:k].any()
    assert np.all(got[k:n - 1] == 1) and got[n - 1] == 2


# ---------------------------------------------------------------------------
# cumsum / cumprod


ALL = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
       np.int64, np.uint64, np.float16, np.float32, np.float64, np.complex64,
       np.complex128]


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("n", [1, 7, 4096, 4097, 123457])
def test_cumsum_every_dtype(dt, n):
    h = rand(n, dt, -3, 4)
    r = cumsum(ga.to_gpu(h))
    ref_dt = np.cumsum(h[:1]).dtype
    assert r.dtype == ref_dt
    check_sum(r.get(), h, res_dt=ref_dt)


def walk_factors(n, dt):
    """``n`` factors exp(+-U(0.01, 0.05)) (complex: times exp(i U(-0.05,
    0.05))), each at least 1 % off 1 so that a dropped or repeated factor
    shows; the signs of their logarithms keep every partial product within
    exp(+-1.05) (no float16 overflow or underflow, whatever the draw)."""
    step = RNG.uniform(0.01, 0.05, n)
    flip = RNG.random(n) < 0.5
    logs = np.empty(n)
    total = 0.0
    for k in range(n):
        sign = -1.0 if total > 1 else 1.0 if total < -1 else \
            (-1.0 if flip[k] else 1.0)
        logs[k] = sign * step[k]
        total += logs[k]
    f = np.exp(logs)
    if np.dtype(dt).kind == "c":
        f = f * np.exp(1j * RNG.uniform(-0.05, 0.05, n))
    return f.astype(dt)


@pytest.mark.parametrize("dt", ALL)
def test_cumprod_every_dtype(dt):
    n = 5001
    if np.dtype(dt).kind in "biu":
        h = rand(n, dt, 0, 2)
        if np.dtype(dt).kind == "i":
            h = np.where(rand(n, np.bool_), h, -h).astype(dt)
        h[::97] = 1 if np.dtype(dt).kind != "b" else True
    else:
        h = walk_factors(n, dt)
    r = cumprod(ga.to_gpu(h)).get()
    with np.errstate(over="ignore"):
        ref = np.cumprod(h)
    assert r.dtype == ref.dtype
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(r, ref)
    else:
        # element k is a product of k + 1 factors: k roundings of relative
        # size <= u = eps/2 in any association (complex: < 3 u normwise);
        # float16 multiplies in float32 and rounds each result once.  A
        # factor 4 over that; the reference in extended precision.
        wide = np.clongdouble if ref.dtype.kind == "c" else np.longdouble
        ref = np.cumprod(h.astype(wide))
        c = 3 if ref.dtype.kind == "c" else 1
        e = eps(np.float32) if dt == np.float16 else eps(dt)
        k = np.arange(1, n + 1)
        rtol = 2 * c * k * e + (2 * eps(np.float16) if dt == np.float16 else 0)
        err = np.abs(r.astype(wide) - ref)
        assert np.all(err <= rtol * np.abs(ref)), np.max(err / np.abs(ref) / rtol)


def test_cumsum_int_wraps_like_numpy():
    h = np.full(10001, 2 ** 62, np.int64)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(cumsum(ga.to_gpu(h)).get(), np.cumsum(h))
    h = np.full(10001, 100, np.int8)
    np.testing.assert_array_equal(
        cumsum(ga.to_gpu(h), dtype=np.int8).get(), np.cumsum(h, dtype=np.int8))


@pytest.mark.parametrize("shape,axis", [
    ((3, 5), 1), ((3, 5), 0), ((3, 5), -1), ((1000, 3), 1), ((3, 100003), 1),
    ((7, 4096), 1), ((7, 4095), 1), ((5, 4097), 1), ((100000, 2), 1),
    ((40, 20000), 0),          # many columns: column kernel
    ((20000, 3), 0),           # few long columns: transposed rows
    ((10, 3), 0),              # short axis: column kernel
    ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2),
    ((50, 300, 7), 1), ((4, 5000, 3), 1), ((64, 9, 4100), 2),
    ((6, 1, 1), 0), ((1, 6, 1), 1),
])
@pytest.mark.parametrize("dt", [np.int32, np.float32, np.float64,
                                np.complex64])
def test_axis_scans(shape, axis, dt):
    h = rand(shape, dt)
    r = cumsum(ga.to_gpu(h), axis=axis)
    assert r.shape == shape and r.flags.c_contiguous
    check_sum(r.get(), h, axis=axis, res_dt=np.cumsum(h[:0]).dtype)


@pytest.mark.parametrize("axis", [None, 0, 1, 2])
def test_noncontiguous_inputs(axis):
    h = rand((30, 40, 50), np.float32)
    g = ga.to_gpu(h)
    views = [(g[::2, :, 1:], h[::2, :, 1:]),
             (g[:, ::2, ::3], h[:, ::2, ::3]),
             (g.transpose(2, 0, 1), h.transpose(2, 0, 1)),
             (g[::-1, ::3, ::-2], h[::-1, ::3, ::-2])]
    for v, hv in views:
        r = cumsum(v, axis=axis)
        check_sum(r.get(), np.ascontiguousarray(hv), axis=axis)
        ri = cumsum(v, axis=axis, dtype=np.float64)
        check_sum(ri.get(), hv.astype(np.float64), axis=axis)


def test_noncontiguous_int_axis_columns():
    h = rand((300, 200, 80), np.int16)
    g = ga.to_gpu(h)
    for axis in (0, 1, 2, None):
        v, hv = g[:, ::-1, ::2], h[:, ::-1, ::2]
        np.testing.assert_array_equal(cumsum(v, axis=axis).get(),
                                      np.cumsum(hv, axis=axis))
        np.testing.assert_array_equal(cumprod(v, axis=axis, dtype=np.int8).get(),
                                      np.cumprod(hv, axis=axis, dtype=np.int8))


def test_out_argument():
    h = rand((64, 300), np.float64)
    g = ga.to_gpu(h)
    # poisoned C-contiguous out of another dtype: accumulate in float64,
    # cast to float32 on store
    out = poisoned((64, 300), np.float32)
    assert cumsum(g, axis=1, out=out) is out
    ref = np.cumsum(h, axis=1)
    mag = np.cumsum(np.abs(h), axis=1)
    assert np.all(np.abs(out.get() - ref) <= 2 * eps(np.float32) * mag)
    # non-contiguous out
    big = poisoned((64, 600), np.float64)
    o2 = big[:, ::2]
    assert cumsum(g, axis=0, out=o2) is o2
    check_sum(o2.get(), h, axis=0)
    # flat out for axis=None
    o3 = poisoned((h.size,), np.float64)
    cumsum(g, out=o3)
    check_sum(o3.get(), h.ravel())
    # in place
    g2 = ga.to_gpu(h)
    cumsum(g2, axis=1, out=g2)
    check_sum(g2.get(), h, axis=1)
    # int32 input, float32 out: numpy accumulates in float64
    hi = np.array([2 ** 24, 1, 1], np.int32)
    o4 = ga.empty((3,), np.float32)
    cumsum(ga.to_gpu(hi), out=o4)
    ref = np.empty(3, np.float32)
    np.cumsum(hi, out=ref)
    np.testing.assert_array_equal(o4.get(), ref)


def test_bool_and_small_ints_widen():
    h = rand(100001, np.bool_)
    r = cumsum(ga.to_gpu(h))
    assert r.dtype == np.int64
    np.testing.assert_array_equal(r.get(), np.cumsum(h))
    h = rand(100001, np.uint8, 0, 255)
    r = cumsum(ga.to_gpu(h))
    assert r.dtype == np.uint64
    np.testing.assert_array_equal(r.get(), np.cumsum(h))
    hb = rand((300, 7), np.bool_)
    r = cumprod(ga.to_gpu(hb), axis=1)
    assert r.dtype == np.int64
    np.testing.assert_array_equal(r.get(), np.cumprod(hb, axis=1))


def test_float16_accumulates_in_float32():
    h = np.ones(5000, np.float16)
    r = cumsum(ga.to_gpu(h)).get()
    assert r.dtype == np.float16
    # exact sums rounded once to float16 (numpy's sequential float16 sum
    # stops growing at 2048)
    np.testing.assert_array_equal(r, np.arange(1, 5001).astype(np.float16))


def test_zero_d_and_complex_warning():
    s = ga.to_gpu(np.array(3.5))
    r = cumsum(s)
    assert r.shape == (1,) and r.get()[0] == 3.5
    assert cumsum(s, axis=0).shape == (1,)
    hc = rand(1000, np.complex64)
    with pytest.warns(np.exceptions.ComplexWarning):
        r = cumsum(ga.to_gpu(hc), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_sum(r.get(), hc.real.astype(np.float32))


def test_stream_argument():
    s = drv.Stream()
    h = rand((500, 700), np.float32)
    g = ga.to_gpu(h)
    r0 = cumsum(g, axis=0, stream=s)
    r1 = cumsum(g, axis=1, stream=s)
    r2 = cumprod(g, stream=s)
    s.synchronize()
    check_sum(r0.get(), h, axis=0)
    check_sum(r1.get(), h, axis=1)
    assert r2.shape == (h.size,)
    # the products of U(-3, 4) overflow within a few hundred elements:
    # k roundings of relative size <= u before (a factor 4 over that),
    # infinities of the right sign after
    got = r2.get()
    with np.errstate(over="ignore"):
        ref = np.cumprod(h.ravel().astype(np.float64))  # overflows later
    k = np.arange(1, h.size + 1)
    fin = (np.abs(ref) > 1e-30) & (np.abs(ref) < 1e30)
    assert fin.sum() > 10
    assert np.all(np.abs(got[fin] - ref[fin])
                  <= 2 * k[fin] * eps(np.float32) * np.abs(ref[fin]))
    big = np.abs(ref) > 1e39
    assert big.sum() > h.size // 2
    assert np.all(got[big] == np.sign(ref[big]) * np.inf)
