"""GPU tests of gpuarr's random numbers against the numpy reference
(gpuarr._philox) and against the target distributions."""
import numpy as np
import pytest

from gpuarr import _philox as P

pytestmark = pytest.mark.gpu

FLOATS = [np.float32, np.float64]
SIZES = [0, 1, 3, 4, 5, 7, 1001]


@pytest.fixture(params=["grid-stride", "warp-chunks"], autouse=True)
def impl(request, monkeypatch):
    """Every test runs with both kernels (gpuarr.random.IMPL, set by
    GPUARR_RANDOM), so a failure says which one is wrong."""
    from gpuarr import random as grandom
    monkeypatch.setattr(grandom, "IMPL", request.param)
    return request.param


def _rng(key=0x1234_5678_9abc_def0, offset=0):
    from gpuarr import random as grandom
    return grandom.Generator(grandom.Philox(key=key, offset=offset))


def _ulps(got, ref):
    """|got - ref| in units of the last place of ``got``'s dtype at ``ref``.

    The dtype must be read before the float64 conversion: measuring a float32
    result in float64 spacings reports one float32 ulp as 2**29.
    """
    dt = np.float32 if np.asarray(got).dtype == np.float32 else np.float64
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    sp = np.spacing(np.abs(ref).astype(dt)).astype(np.float64)
    sp = np.maximum(sp, np.finfo(dt).tiny)
    return np.abs(got - ref) / sp


def _ks(sample, cdf):
    """Kolmogorov-Smirnov statistic and the alpha = 1e-3 critical value."""
    x = np.sort(np.asarray(sample, np.float64))
    n = x.size
    f = cdf(x)
    d = max((np.arange(1, n + 1) / n - f).max(), (f - np.arange(n) / n).max())
    crit = np.sqrt(-0.5 * np.log(1e-3 / 2)) / np.sqrt(n)
    return d, crit


def _normal_cdf(x):
    from math import erf
    return 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def _scipy():
    try:
        import scipy.stats
        return scipy.stats
    except Exception:
        return None


# ---------------------------------------------------------------------------
# exact agreement with the reference

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_random_bits_exact(context, dtype, n):
    key, off = 77, 12345
    got = _rng(key, off).random(n, dtype=dtype).get()
    assert got.dtype == dtype and got.shape == (n,)
    assert (got == P.random(key, off, n, dtype)).all()


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_exact(context, dtype):
    key, n = 5, 4099
    low, high = -2.5, 7.25
    got = _rng(key).uniform(low, high, n, dtype=dtype).get()
    dt = np.dtype(dtype)
    ref = P.uniform(key, 0, n, dt.type(low), dt.type(high - low), dt)
    assert (got == ref).all()
    assert got.min() >= low and got.max() <= high


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_standard_normal_vs_reference(context, dtype, n):
    key, off = 9, (1 << 32) - 3          # the counter crosses 32 bits
    got = _rng(key, off).standard_normal(n, dtype=dtype).get()
    ref = P.standard_normal(key, off, n, dtype)
    assert got.dtype == dtype and got.shape == (n,)
    if dtype == np.float32:
        err = np.abs(got.astype(np.float64) - ref)
        assert (err <= P.normal_f32_bound(key, off, n, ref)).all()
    else:
        # log 1 ulp, sqrt 0.5, sincospi 2 (CUDA's bounds), product 0.5
        u = _ulps(got, ref)
        assert u.size == 0 or u.max() <= 4, u.max()


def test_standard_normal_large_vs_reference(context):
    n = 1 << 20
    got = _rng(3).standard_normal(n, dtype=np.float32).get()
    ref = P.standard_normal(3, 0, n, np.float32)
    err = np.abs(got.astype(np.float64) - ref)
    assert (err <= P.normal_f32_bound(3, 0, n, ref)).all()
    # the bound is the worst case: typical values are within a few ulp
    assert np.median(_ulps(got, ref)) <= 4


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_affine(context, dtype):
    dt = np.dtype(dtype)
    got = _rng(4).normal(3.0, 0.5, 1000, dtype=dtype).get()
    ref = P.normal(4, 0, 1000, 3.0, 0.5, dt)
    if dtype == np.float32:
        # 3 + 0.5 z, each step rounded: half of z's bound plus one ulp
        z = P.standard_normal(4, 0, 1000, dt)
        bound = (0.5 * P.normal_f32_bound(4, 0, 1000, z)
                 + np.spacing(np.abs(ref)).astype(np.float64))
        assert (np.abs(got.astype(np.float64) - ref) <= bound).all()
    else:
        assert (_ulps(got, ref) <= 4).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_exponential_vs_reference(context, dtype, scale):
    n = 100003
    got = _rng(6).exponential(scale, n, dtype=dtype).get()
    ref = P.exponential(6, 0, n, scale, dtype)
    assert (got >= 0).all() and not np.signbit(got).any()
    if dtype == np.float32:
        # every float32 step is an IEEE operation the reference emulates
        assert (got == ref).all()
    else:
        assert _ulps(got, ref).max() <= 2


@pytest.mark.parametrize("dtype, low, high", [
    (np.int64, 0, 6), (np.int64, -10, 10 ** 12), (np.int64, -2 ** 63, 2 ** 63),
    (np.uint64, 0, 2 ** 64), (np.uint64, 5, 2 ** 40 + 3), (np.int32, -7, 2 ** 31 + 1 - 7),
    (np.int32, -2 ** 31, 2 ** 31), (np.uint32, 0, 2 ** 32), (np.int16, -300, 301),
    (np.uint8, 0, 256), (np.int8, -128, 100), (np.uint16, 3, 4), (np.bool_, 0, 2)])
@pytest.mark.parametrize("n", [1, 5, 4097])
def test_integers_exact(context, dtype, low, high, n):
    key = 31
    got = _rng(key).integers(low, high, n, dtype=dtype).get()
    assert got.dtype == dtype
    ref = P.integers(key, 0, n, low, high - 1 - low, dtype)
    assert (got == ref).all()


def test_integers_rejection_path_exact(context):
    # s = 2**31 + 1 rejects ~half the first draws: retries must match
    got = _rng(8).integers(0, 2 ** 31 + 1, 20000, dtype=np.int64).get()
    assert (got == P.integers(8, 0, 20000, 0, 2 ** 31, np.int64)).all()
    got = _rng(8).integers(0, 2 ** 63 + 1, 2000, dtype=np.uint64).get()
    assert (got == P.integers(8, 0, 2000, 0, 2 ** 63, np.uint64)).all()


def test_integers_endpoint(context):
    got = _rng(2).integers(1, 3, 10000, dtype=np.int16, endpoint=True).get()
    assert set(np.unique(got)) == {1, 2, 3}


# ---------------------------------------------------------------------------
# reproducibility and the counter rule

@pytest.mark.parametrize("dtype", FLOATS)
def test_same_seed_same_numbers(context, dtype):
    from gpuarr import random as grandom
    a = grandom.default_rng(123).standard_normal(10 ** 5, dtype=dtype).get()
    b = grandom.default_rng(123).standard_normal(10 ** 5, dtype=dtype).get()
    c = grandom.default_rng(124).standard_normal(10 ** 5, dtype=dtype).get()
    assert (a == b).all() and not (a == c).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("method", ["random", "standard_normal", "exponential"])
def test_split_requests_concatenate(context, dtype, method):
    g = _rng(11)
    # size by keyword: exponential's first positional parameter is scale
    first = getattr(g, method)(size=10 ** 6, dtype=dtype).get()
    second = getattr(g, method)(size=10 ** 6, dtype=dtype).get()
    both = getattr(_rng(11), method)(size=2 * 10 ** 6, dtype=dtype).get()
    assert (np.concatenate([first, second]) == both).all()


def test_offsets_advance(context):
    g = _rng(1)
    g.random(10, dtype=np.float32)
    assert g.bit_generator.offset == 3
    g.random(3, dtype=np.float64)
    assert g.bit_generator.offset == 5
    g.integers(0, 2 ** 40, 3)
    assert g.bit_generator.offset == 7
    g.integers(0, 10, 0)
    assert g.bit_generator.offset == 7


def test_grid_size_does_not_matter(context, monkeypatch):
    from gpuarr import random as grandom
    n = 3 * 10 ** 5 + 3
    ref = _rng(21).standard_normal(n, dtype=np.float32).get()
    grandom.clear_cache()
    real = grandom._kernel
    calls = []

    def tiny_grid(*args):
        fn, cap, mod = real(*args)
        calls.append(args)
        return fn, 3, mod
    monkeypatch.setattr(grandom, "_kernel", tiny_grid)
    got = _rng(21).standard_normal(n, dtype=np.float32).get()
    grandom.clear_cache()
    assert calls, "the 3-block grid was never used"
    assert (got == ref).all()


def test_misaligned_out_uses_scalar_stores(context):
    import gpuarr.gpuarray as ga
    base = ga.empty(1003, np.float32)
    view = base[1:]                     # 4-byte aligned only
    view.fill(np.nan)
    _rng(3).standard_normal(dtype=np.float32, out=view)
    ref = _rng(3).standard_normal(1002, dtype=np.float32).get()
    assert (view.get() == ref).all()


# ---------------------------------------------------------------------------
# out= into poisoned arrays

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 3, 4, 5, 1001, 2 ** 16 + 3])
def test_out_poisoned_float(context, dtype, n):
    import gpuarr.gpuarray as ga
    for method in ("random", "standard_normal", "exponential"):
        out = ga.empty((n,), dtype)
        out.fill(np.nan)
        r = getattr(_rng(5), method)(dtype=dtype, out=out)
        assert r is out
        h = out.get()
        assert np.isfinite(h).all(), method
        # every element written with the generator's values: a second
        # generator of the same seed gives them again, bit for bit
        again = getattr(_rng(5), method)(size=n, dtype=dtype).get()
        assert (h == again).all(), method


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint64])
def test_out_poisoned_int(context, dtype):
    import gpuarr.gpuarray as ga
    out = ga.empty((2, 513), dtype)
    out.fill(np.iinfo(dtype).max)
    _rng(5).integers(0, 3, dtype=dtype, out=out)
    h = out.get()
    assert h.max() <= 2 and h.min() >= 0


def test_size_none_is_0d(context):
    a = _rng().random()
    assert a.shape == () and 0 <= float(a.get()) < 1


# ---------------------------------------------------------------------------
# statistics on 10**7 samples

N = 10 ** 7


@pytest.mark.parametrize("dtype", FLOATS)
def test_ks_uniform(context, dtype):
    x = _rng(101).random(N, dtype=dtype).get()
    d, crit = _ks(x, lambda t: t)
    assert d < crit, (d, crit)


@pytest.mark.parametrize("dtype", FLOATS)
def test_ks_normal(context, dtype):
    x = _rng(102).standard_normal(N, dtype=dtype).get().astype(np.float64)
    st = _scipy()
    if st is not None:
        res = st.kstest(x, "norm")
        assert res.pvalue > 1e-3, res
    else:
        d, crit = _ks(x[:10 ** 6], _normal_cdf)
        assert d < crit


@pytest.mark.parametrize("dtype", FLOATS)
def test_ks_exponential(context, dtype):
    x = _rng(103).exponential(1.0, N, dtype=dtype).get().astype(np.float64)
    d, crit = _ks(x, lambda t: -np.expm1(-t))
    assert d < crit, (d, crit)


@pytest.mark.parametrize("dtype", FLOATS)
def test_moments(context, dtype):
    g = _rng(104)
    for method, mean, var, m4 in (("random", 0.5, 1 / 12, 1 / 80),
                                  ("standard_normal", 0.0, 1.0, 3.0),
                                  ("exponential", 1.0, 1.0, 9.0)):
        x = getattr(g, method)(size=N, dtype=dtype).get().astype(np.float64)
        assert x.shape == (N,), method
        assert abs(x.mean() - mean) < 5 * np.sqrt(var / N), method
        # standard error of the sample variance: sqrt((mu4 - var^2) / n)
        assert abs(x.var() - var) < 5 * np.sqrt((m4 - var ** 2) / N), method


def test_normal_tails(context):
    x = _rng(105).standard_normal(N, dtype=np.float32).get()
    # P(|z| > 4) = 6.334e-5
    k = (np.abs(x) > 4).sum()
    p = 6.334e-5
    assert abs(k - N * p) < 5 * np.sqrt(N * p)
    assert np.abs(x).max() < 6.77


def test_independent_streams(context):
    from gpuarr import random as grandom
    a = grandom.default_rng(1).standard_normal(N, dtype=np.float32).get()
    b = grandom.default_rng(2).standard_normal(N, dtype=np.float32).get()
    r = np.corrcoef(a.astype(np.float64), b.astype(np.float64))[0, 1]
    assert abs(r) < 5 / np.sqrt(N)
    # successive requests of one generator too
    g = grandom.default_rng(3)
    a = g.random(N, dtype=np.float64).get()
    b = g.random(N, dtype=np.float64).get()
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(N)
    # the two Box-Muller outputs of a pair
    z = grandom.default_rng(4).standard_normal(N, dtype=np.float32).get()
    z = z.astype(np.float64)
    assert abs(np.corrcoef(z[0::2], z[1::2])[0, 1]) < 5 / np.sqrt(N / 2)


@pytest.mark.parametrize("dtype, k", [(np.int64, 6), (np.uint8, 3), (np.int32, 7),
                                      (np.int16, 10), (np.bool_, 2)])
def test_integer_frequencies(context, dtype, k):
    x = _rng(106).integers(0, k, N, dtype=dtype).get().astype(np.int64)
    counts = np.bincount(x, minlength=k)
    assert counts.size == k
    p = 1 / k
    sigma = np.sqrt(N * p * (1 - p))
    assert (np.abs(counts - N * p) < 5 * sigma).all(), counts


def test_integer_wide_range_uniform(context):
    x = _rng(107).integers(0, 3 * 2 ** 61, 10 ** 6, dtype=np.int64).get()
    d, crit = _ks(x.astype(np.float64) / (3 * 2.0 ** 61), lambda t: t)
    assert d < crit


# ---------------------------------------------------------------------------
# big sizes and PyCUDA's curandom

@pytest.mark.huge
def test_more_than_2_31_elements(context):
    import gpuarr.driver as drv
    free, _ = drv.mem_get_info()
    n = 2 ** 31 + 5
    if free < n + (1 << 30):
        pytest.skip("not enough device memory")
    import gpuarr.gpuarray as ga
    out = ga.empty(n, np.uint8)
    _rng(9).integers(0, 256, dtype=np.uint8, out=out)
    tail = out[n - 9:].get()
    del out
    # reference for the last elements only (s = 256 never rejects):
    # element k is the top byte of word k % 4 of block k // 4
    k = np.arange(n - 9, n)
    w = P.blocks(9, 0, 9, lanes=k // 4)
    x = w[np.arange(9), k % 4].astype(np.uint64)
    ref = (x * np.uint64(256)) >> np.uint64(32)
    assert (tail == ref.astype(np.uint8)).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32])
def test_curandom_rand(context, dtype):
    from gpuarr import curandom
    np.random.seed(0)
    a = curandom.rand((100, 3), dtype=dtype)
    np.random.seed(0)
    b = curandom.rand((100, 3), dtype=dtype)
    assert a.shape == (100, 3) and a.dtype == dtype
    ha, hb = a.get(), b.get()
    assert (ha == hb).all()
    if np.dtype(dtype).kind == "f":
        assert (ha >= 0).all() and (ha < 1).all()
    else:
        assert len(np.unique(ha)) > 290


def test_curandom_seed_getters(context):
    from gpuarr import curandom
    u = curandom.seed_getter_uniform(10).get()
    assert u.dtype == np.int32 and (u == u[0]).all() and u[0] >= 0
    v = curandom.seed_getter_unique(1000).get()
    assert v.dtype == np.int32 and len(np.unique(v)) > 990 and (v >= 0).all()


def test_curandom_generator_class(context):
    from gpuarr import curandom
    import gpuarr.gpuarray as ga
    g = curandom.PhiloxRandomNumberGenerator(curandom.seed_getter_unique)
    a = ga.empty(1000, np.float32)
    g.fill_normal(a)
    assert abs(a.get().mean()) < 0.2
    b = g.gen_uniform((10, 10), np.float64)
    assert b.shape == (10, 10) and (b.get() < 1).all()
    c = g.gen_log_normal(100, np.float32, 0.0, 1.0)
    assert (c.get() > 0).all()


class TestAcrossGenerations:
    """Compares the two kernel generations with each other, so it runs once:
    this class's ``impl`` overrides the module's parametrized one."""

    @pytest.fixture
    def impl(self):
        return "both"

    @pytest.mark.parametrize("method, dtype", [
        ("standard_normal", np.float32), ("standard_normal", np.float64),
        ("random", np.float32), ("random", np.float64),
        ("exponential", np.float32), ("integers", np.int32)])
    def test_v1_v2_identical(self, context, monkeypatch, method, dtype):
        # the two generations must give the same bits: a whole number of v2
        # chunks on a full grid, plus a tail of whole and partial blocks
        from gpuarr import random as grandom
        n = 64 * 4 * 132 * 8 * 8 * 3 + 4 * 64 * 5 + 7
        outs = []
        for which in ("grid-stride", "warp-chunks"):
            monkeypatch.setattr(grandom, "IMPL", which)
            g = _rng(11, (1 << 32) - 1000)
            if method == "integers":
                outs.append(g.integers(0, 1000, n, dtype=dtype).get())
            else:
                outs.append(getattr(g, method)(size=n, dtype=dtype).get())
        assert (outs[0].view(np.uint8) == outs[1].view(np.uint8)).all()


@pytest.mark.parametrize("scale", [1.0, 2.5])
@pytest.mark.parametrize("math", ["library", "own"])
def test_f64_math_vs_reference(context, monkeypatch, math, scale):
    """float64 normals and exponentials with CUDA's log and sincospi and
    with gpuarr's own (``gpuarr.random.F64_MATH``): the same bounds."""
    from gpuarr import random as grandom
    monkeypatch.setattr(grandom, "F64_MATH", math)
    key, off = 9, (1 << 32) - 3
    for n in (1, 7, 100003):
        got = _rng(key, off).standard_normal(n, dtype=np.float64).get()
        ref = P.standard_normal(key, off, n, np.float64)
        assert _ulps(got, ref).max() <= 4
        # loc + scale z, each step rounded on both sides: z's 4 ulps times
        # scale, an ulp of scale z and one of the result (in ulps of the
        # result alone, 3 + z near 0 would magnify z's error without bound)
        got = _rng(6).normal(3.0, scale, n, dtype=np.float64).get()
        ref = P.normal(6, 0, n, 3.0, scale, np.float64)
        z = P.standard_normal(6, 0, n, np.float64)
        bound = (4 * scale * np.spacing(np.abs(z))
                 + np.spacing(np.abs(scale * z)) + np.spacing(np.abs(ref)))
        err = np.abs(got - ref)
        assert (err <= bound).all(), (err / bound).max()
        got = _rng(6).exponential(scale, n, dtype=np.float64).get()
        assert (got >= 0).all() and not np.signbit(got).any()
        assert _ulps(got, P.exponential(6, 0, n, scale, np.float64)).max() <= 2


def _f64math_module(kernels):
    """``kernels/f64math.cu.mako``'s device functions followed by the C++
    of ``kernels`` (``extern "C"`` written in it), as a SourceModule."""
    from mako.template import Template
    from gpuarr.compiler import SourceModule
    from gpuarr.kernels import lookup
    src = Template('<%namespace name="m" file="f64math.cu.mako"/>'
                   '${m.functions()}', lookup=lookup()).render()
    return SourceModule(src + kernels, no_extern_c=True)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60,
                    reason="long double is no wider than double here")
def test_own_f64_functions_on_device(context):
    """The device build of ``kernels/f64math.cu.mako``'s ``-2 ln u`` and
    ``sincospi`` within the bounds tests/test_f64math_cpu.py holds its
    host build to, on the same kinds of inputs."""
    from gpuarr import driver as drv
    from test_f64math_cpu import (check_neg2log, check_sincospi,
                                  neg2log_inputs, sincospi_inputs)
    mod = _f64math_module("""
extern "C" __global__ void neg2log_n(const double *u, double *o, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = ga_neg2log_f64(u[i]);
}
extern "C" __global__ void sincospi_n(const double *t, double *s,
                                      double *c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ga_sincospi_f64(t[i], s + i, c + i);
}
""")
    u = neg2log_inputs(1 << 20)
    got = np.full_like(u, np.nan)
    mod.get_function("neg2log_n")(
        drv.In(u), drv.InOut(got), np.int32(u.size), block=(256, 1, 1),
        grid=(-(-u.size // 256), 1))
    check_neg2log(u, got)
    t = sincospi_inputs(1 << 20)
    s, c = np.full_like(t, np.nan), np.full_like(t, np.nan)
    mod.get_function("sincospi_n")(
        drv.In(t), drv.InOut(s), drv.InOut(c), np.int32(t.size),
        block=(256, 1, 1), grid=(-(-t.size // 256), 1))
    check_sincospi(t, s, c)


def test_own_f64_reciprocal_seed_within_model(context):
    """The device's ``rcp.approx.ftz.f64`` seed of the own ``-2 ln u`` is
    within the 2**-7 that its two cubic refinements need (the host build
    of tests/test_f64math_cpu.py models it as the float reciprocal cut to
    8 bits), over the denominators ``2 + f`` it is given."""
    from gpuarr import driver as drv
    fn = _f64math_module("""
extern "C" __global__ void seed(const double *x, double *r, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = ga_f64_rcp_seed(x[i]);
}
""").get_function("seed")
    lo, hi = 1 + np.sqrt(0.5), 1 + np.sqrt(2.0)
    x = np.concatenate([np.random.default_rng(5).uniform(lo, hi, 1 << 20),
                        [lo, hi, 2.0, np.nextafter(2.0, 0), 1.75, 2.25]])
    r = np.full_like(x, np.nan)
    fn(drv.In(x), drv.InOut(r), np.int32(x.size), block=(256, 1, 1),
       grid=(-(-x.size // 256), 1))
    err = np.abs(x * r - 1)
    assert err.max() <= 2.0 ** -7, err.max()
