"""GPU checks of gpuarr.fuse: fused functions against the same function
run unfused on GPUArrays (bitwise for arithmetic of real dtypes) and
against numpy; every dtype, broadcasting, scalars, in-place updates,
reductions with axes, non-contiguous, reversed and F-ordered inputs, 0-d
and empty arrays, and random expression trees (hypothesis)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gpuarr
from gpuarr import driver as drv

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(4242)
ALL = [np.dtype(t) for t in "?bhilBHILefdFD"]
REAL = [d for d in ALL if d.kind != "c"]
TOL = {"e": 2e-3, "f": 2e-6, "d": 1e-13, "F": 2e-6, "D": 1e-13}


def rand(shape, dt, lo=-4, hi=5):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return _rng.random(shape) < 0.5
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else lo
        return _rng.integers(lo, hi, shape).astype(dt)
    x = _rng.uniform(lo, hi, shape)
    if dt.kind == "c":
        x = x + 1j * _rng.uniform(lo, hi, shape)
    return x.astype(dt)


def poison_pool(nbytes):
    """Leave a block of garbage in the pool, so that the next allocation of
    that size starts dirty."""
    if nbytes:
        a = gpuarr.empty((nbytes,), np.uint8)
        drv.memset_d8(a.ptr, 0xA5, nbytes)
        del a


def same(got, want, exact=True):
    """``got`` (GPUArray) equals ``want`` (GPUArray or ndarray) in shape,
    dtype and value: bitwise when ``exact``, else within the dtype's
    tolerance."""
    if isinstance(want, gpuarr.GPUArray):
        want = want.get()
    want = np.asarray(want)
    assert isinstance(got, gpuarr.GPUArray), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (got.shape, want.shape, got.dtype, want.dtype)
    g = got.get()
    if exact or want.dtype.kind in "biu":
        np.testing.assert_array_equal(g, want)
    else:
        t = TOL[want.dtype.char]
        np.testing.assert_allclose(g, want, rtol=t, atol=t, equal_nan=True)


def chain(a, b, c, d):
    return (a * b + c) * d


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_chain_every_dtype(dt):
    f = gpuarr.fuse(chain)
    hs = [rand((1001,), dt) for _ in range(4)]
    gs = [gpuarr.to_gpu(h) for h in hs]
    poison_pool(1001 * dt.itemsize)
    got = f(*gs)
    same(got, chain(*gs), exact=dt.kind != "c")
    same(got, chain(*hs), exact=False)


def test_repeated_calls_take_the_steady_path():
    # the first call of a layout goes the general way and remembers the
    # launch; later ones of C-contiguous aligned arrays take it directly
    f = gpuarr.fuse(chain)
    for n, dt in ((1000, np.float32), (1000, np.float32), (4096, np.float32),
                  (1000, np.float32), (1000, np.int16), (1000, np.int16)):
        gs = [gpuarr.to_gpu(rand((n,), dt)) for _ in range(4)]
        for views in (gs, [g[1:] for g in gs], [g[::2] for g in gs]):
            poison_pool(n * np.dtype(dt).itemsize)
            same(f(*views), chain(*views))
    g2 = [gpuarr.to_gpu(rand((30, 40), np.float64)) for _ in range(4)]
    for _ in range(3):
        same(f(*g2), chain(*g2))
        same(f(*[g.T for g in g2]), chain(*[g.T for g in g2]))


@pytest.mark.parametrize("dt", [np.dtype(t) for t in "bBiqefd"], ids=str)
def test_mixed_dtypes_and_scalars(dt):
    def f(x, y, s, t):
        return x * s + y / t - 2, x < 3, abs(x - y) ** 2
    f = gpuarr.fuse(f)
    hx = rand((7, 33), dt, 1, 5)
    hy = rand((33,), np.float32, 1, 5)
    gx, gy = gpuarr.to_gpu(hx), gpuarr.to_gpu(hy)
    for s, t in ((3, 2.5), (np.float32(1.5), np.int16(3)), (True, 7)):
        got = f(gx, gy, s, t)
        want = (gx * s + gy / t - 2, gx < 3, abs(gx - gy) ** 2)
        assert type(got) is tuple and len(got) == 3
        for g, w in zip(got, want):
            same(g, w)


def test_transcendental_complex_and_where():
    def f(x, y):
        z = gpuarr.exp(x) * np.sin(y) + gpuarr.sqrt(abs(x))
        return gpuarr.where(x > y, z, -z), np.log1p(abs(z)).astype(np.float16)
    fused = gpuarr.fuse(f)
    for dt in (np.float16, np.float32, np.float64, np.complex64,
               np.complex128):
        hx, hy = rand((500,), dt, -2, 2), rand((500,), dt, -2, 2)
        gx, gy = gpuarr.to_gpu(hx), gpuarr.to_gpu(hy)
        got = fused(gx, gy)
        want = f(gx, gy)
        for g, w in zip(got, want):
            same(g, w, exact=False)


def test_broadcast_views_and_layouts():
    f = gpuarr.fuse(chain)
    ha = rand((40, 60), np.float32)
    hb = rand((60,), np.float32)
    hc = rand((40, 1), np.float32)
    hd = rand((), np.float32)
    ga, gb, gc, gd = map(gpuarr.to_gpu, (ha, hb, hc, hd))
    same(f(ga, gb, gc, gd), chain(ga, gb, gc, gd))
    # transposed, reversed and strided views; an F-ordered result
    views = [(ga.T, ha.T), (ga[::-1, ::3], ha[::-1, ::3]),
             (ga[:, ::-1], ha[:, ::-1])]
    for gv, hv in views:
        got = f(gv, gv, gv, 2.0)
        same(got, chain(gv, gv, gv, 2.0))
        np.testing.assert_array_equal(got.get(), chain(hv, hv, hv, 2.0))
    got = f(ga.T, ga.T, ga.T, ga.T)
    assert got.flags.f_contiguous and not got.flags.c_contiguous
    with pytest.raises(ValueError):
        f(ga, gpuarr.to_gpu(rand((7,), np.float32)), gc, gd)


def test_zero_d_and_empty():
    f = gpuarr.fuse(chain)
    h = [rand((), np.float64) for _ in range(4)]
    g = list(map(gpuarr.to_gpu, h))
    same(f(*g), chain(*g))
    e = gpuarr.to_gpu(np.zeros((0, 5), np.float32))
    r = f(e, e, e, 1.0)
    assert r.shape == (0, 5) and r.dtype == np.float32
    u8 = gpuarr.to_gpu(np.zeros((0,), np.uint8))
    with pytest.raises(OverflowError):
        gpuarr.fuse(lambda x: x + 300)(u8)


def test_results_that_are_arguments_and_duplicates():
    def f(x, y):
        z = x + y
        return x, z, z
    f = gpuarr.fuse(f)
    gx = gpuarr.to_gpu(rand((64,), np.int32))
    gy = gpuarr.to_gpu(rand((64,), np.int32))
    x, z1, z2 = f(gx, gy)
    assert x is gx and z1 is z2
    same(z1, gx + gy)


def test_results_of_different_shapes():
    f = gpuarr.fuse(lambda x, y: (x + 1, y * 2, x + y))
    hx, hy = rand((5,), np.float64), rand((3, 5), np.float64)
    got = f(gpuarr.to_gpu(hx), gpuarr.to_gpu(hy))
    for g, w in zip(got, (hx + 1, hy * 2, hx + hy)):
        same(g, w)


def test_in_place_updates():
    def f(x, y, s):
        x += y * s
        y *= 2
    f = gpuarr.fuse(f)
    hx = rand((9, 31), np.float32)
    hy = rand((31,), np.int16)
    gx, gy = gpuarr.to_gpu(hx), gpuarr.to_gpu(hy)
    assert f(gx, gy, 3) is None
    hx += hy * 3
    hy *= 2
    same(gx, hx)
    same(gy, hy)
    # a view written in place; the broadcast input is the wrong way round
    hz = rand((4, 10), np.float64)
    gz = gpuarr.to_gpu(hz)
    g = gpuarr.fuse(lambda a, b: a.__iadd__(b))
    res = g(gz[:, ::2], gz[0, 1::2])
    want = hz.copy()
    want[:, ::2] += hz[0, 1::2]
    assert res is not None
    same(gz, want)
    with pytest.raises(ValueError):
        f(gpuarr.to_gpu(hy.astype(np.float32)), gx, 1)
    with pytest.raises(TypeError):       # float into int: same_kind
        f(gy, gx, 1)


def test_in_place_update_read_by_a_launch_of_another_shape():
    # the write of x (shape (5,)) and the result y + x (shape (3, 5)) are
    # two launches; the second must see x's value at the call, updated
    # once, whichever runs first
    def f(x, y):
        z = x * 2
        x += 1
        return z, y + x
    f = gpuarr.fuse(f)
    hx, hy = rand((5,), np.float64), rand((3, 5), np.float64)
    gx, gy = gpuarr.to_gpu(hx), gpuarr.to_gpu(hy)
    z, w = f(gx, gy)
    same(z, hx * 2)
    same(w, hy + (hx + 1))
    same(gx, hx + 1)


def test_overlapping_in_place_reads_are_safe():
    # x[1:] += x[:-1]: the reads overlap the write in another layout, so
    # the fused call must read the old values everywhere (numpy's rule)
    h = rand((1000,), np.int64)
    g = gpuarr.to_gpu(h)
    f = gpuarr.fuse(lambda a, b: a.__iadd__(b))
    f(g[1:], g[:-1])
    w = h.copy()
    w[1:] += h[:-1]
    same(g, w)


def near_reduction(got, want, terms):
    """A reduction's result within rounding of its terms' magnitudes."""
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (got.shape, want.shape, got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got.get(), want)
        return
    eps = np.finfo(want.dtype).eps
    scale = float(np.max(np.abs(terms))) * terms.size
    np.testing.assert_allclose(got.get(), want, rtol=4 * eps * terms.size,
                               atol=4 * eps * scale)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min",
                                  "any", "all", "nansum", "nanmax"])
def test_reductions(name):
    red = getattr(gpuarr, name)

    def f(x, y):
        return red(x * y - 1, axis=axis, keepdims=kd)
    fused = gpuarr.fuse(f)
    for dt in (np.float32, np.float64, np.int32, np.complex64):
        if name in ("max", "min", "nanmax") and np.dtype(dt).kind == "c":
            continue
        lo, hi = (1, 3) if name == "prod" else (-3, 4)
        hx = rand((19, 33), dt, lo, hi)
        hy = rand((33,), dt, lo, hi)
        if name == "prod" and np.dtype(dt).kind in "fc":
            hx, hy = hx / 2 + 0.5, hy / 2 + 0.5
        gx, gy = gpuarr.to_gpu(hx), gpuarr.to_gpu(hy)
        terms = hx * hy - 1
        for axis in (None, 0, 1, (0, 1)):
            for kd in (False, True):
                fused.clear_cache()
                got = fused(gx, gy)
                want = getattr(np, name)(terms, axis=axis, keepdims=kd)
                near_reduction(got, want, terms if name != "prod"
                               else np.ones(terms.size))


def test_reduction_forms_and_views():
    h = rand((64, 130), np.float32)
    g = gpuarr.to_gpu(h)
    f1 = gpuarr.fuse(lambda x: (x * x).sum(axis=1, dtype=np.float64))
    hr = h[:, ::-1]
    near_reduction(f1(g[:, ::-1]), (hr * hr).sum(axis=1, dtype=np.float64),
                   hr * hr)
    f2 = gpuarr.fuse(lambda x, y: np.sum(x * y))
    near_reduction(f2(g.T, g.T), np.sum(h * h), h * h)
    f3 = gpuarr.fuse(lambda x: (np.add.reduce(x * 2),))
    r = f3(g)
    assert type(r) is tuple
    near_reduction(r[0], np.add.reduce(h * 2), h * 2)
    f4 = gpuarr.fuse(lambda x, s: gpuarr.max(gpuarr.exp(x) - s, axis=0))
    same(f4(g, 1.5), np.max(np.exp(h) - 1.5, axis=0), exact=False)
    e = gpuarr.to_gpu(np.zeros((0, 3), np.float32))
    same(f2(e, e), np.sum(np.zeros((0, 3), np.float32)))
    with pytest.raises(ValueError):
        gpuarr.fuse(lambda x: gpuarr.max(x * 2))(e)


def test_large_sum_of_products():
    # 2**27 elements: the split (segmented) reduction path
    n = 1 << 27
    a = gpuarr.to_gpu(np.full(n, 2, np.float32))
    b = gpuarr.to_gpu((np.arange(n) % 7).astype(np.float32))
    f = gpuarr.fuse(lambda x, y: gpuarr.sum(x * y, dtype=np.float64))
    r = f(a, b)
    assert r.dtype == np.float64 and r.shape == ()
    # every partial sum is an integer below 2**53: exact in any order
    assert float(r.get()) == 2.0 * float(np.sum(np.arange(n) % 7))


def test_errors_name_what_cannot_be_fused():
    g = gpuarr.to_gpu(rand((8,), np.float32))
    other = gpuarr.to_gpu(rand((8,), np.float32))
    cases = [
        (lambda x: x[0], "indexing"),
        (lambda x: x if x > 0 else -x, "truth value"),
        (lambda x: np.linalg.norm(x), "norm"),
        (lambda x: x @ x, "matmul"),
        (lambda x: x + other, "argument"),
        (lambda x: np.sqrt(np.sum(x)), "after the reduction"),
        (lambda x: x.reshape(2, 4), "reshape"),
        (lambda x: (x.sum(), x), "reduction beside"),
        (lambda x: 3.0, "float"),
    ]
    for fn, words in cases:
        with pytest.raises(TypeError, match=words):
            gpuarr.fuse(fn)(g)
    with pytest.raises(TypeError, match="numpy arrays"):
        gpuarr.fuse(chain)(np.ones(3), g, g, g)


def test_scalar_argument_checks():
    f = gpuarr.fuse(lambda x, s: x + s)
    g = gpuarr.to_gpu(rand((16,), np.uint8, 0, 100))
    same(f(g, 200), g + 200)
    with pytest.raises(OverflowError):
        f(g, 300)
    p = gpuarr.fuse(lambda x, e: x ** e)
    same(p(g, 2), g ** 2)
    with pytest.raises(OverflowError):
        p(g, -1)            # -1 does not fit uint8 (numpy says so first)
    gi = gpuarr.to_gpu(rand((16,), np.int32, 1, 9))
    same(p(gi, 3), gi ** 3)
    with pytest.raises(ValueError, match="negative"):
        p(gi, -2)
    # out-of-range constants compare exactly, as numpy 2
    c = gpuarr.fuse(lambda x: (x < 300, x == -1, 1000 > x))
    for got, want in zip(c(g), (g.get() < 300, g.get() == -1,
                                1000 > g.get())):
        same(got, want)


def test_keywords_and_decorator_forms():
    @gpuarr.fuse()
    def f(x, y=2.0):
        return x * y

    @gpuarr.fuse(kernel_name="g")
    def g(x):
        return -x
    h = gpuarr.to_gpu(rand((10,), np.float64))
    same(f(h), h * 2.0)
    same(f(h, y=3), h * 3)
    same(g(h), -h)
    assert f.__name__ == "f" and g.name == "g"


# ---------------------------------------------------------------------------
# random expression trees: fused equals unfused

# operations whose results are correctly rounded (IEEE), so that fused and
# unfused agree bitwise whatever the compiler does around them
_UNARY = ["negative", "absolute", "square", "sqrt", "floor", "isnan",
          "logical_not", "astype32", "astype64"]
_BINARY = ["add", "subtract", "multiply", "true_divide", "maximum", "fmin",
           "less", "greater_equal", "where_pos", "scalar_mul", "scalar_add"]


def _tree(draw, depth):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return ("leaf", draw(st.integers(0, 2)))
    if draw(st.booleans()):
        return ("u", draw(st.sampled_from(_UNARY)), _tree(draw, depth - 1))
    return ("b", draw(st.sampled_from(_BINARY)), _tree(draw, depth - 1),
            _tree(draw, depth - 1), draw(st.sampled_from([2, 0.5, -3])))


def _eval(t, args):
    if t[0] == "leaf":
        return args[t[1]]
    if t[0] == "u":
        x = _eval(t[2], args)
        if t[1] == "astype32":
            return x.astype(np.float32)
        if t[1] == "astype64":
            return x.astype(np.float64)
        return getattr(gpuarr, t[1])(x)
    x, y = _eval(t[2], args), _eval(t[3], args)
    if t[1] == "where_pos":
        return gpuarr.where(x > 0, x, y)
    if t[1] == "scalar_mul":
        return x * t[4]
    if t[1] == "scalar_add":
        return t[4] + x
    return getattr(gpuarr, t[1])(x, y)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_trees_match_unfused(data):
    tree = _tree(data.draw, 4)
    dts = data.draw(st.lists(st.sampled_from(
        [np.float16, np.float32, np.float64, np.int32, np.uint8, np.bool_]),
        min_size=3, max_size=3))
    shapes = data.draw(st.sampled_from([((37,), (37,), (37,)),
                                        ((5, 8), (8,), (5, 1)),
                                        ((3, 4), (), (3, 4))]))
    hs = [rand(s, d, 1, 4) for s, d in zip(shapes, dts)]
    gs = [gpuarr.to_gpu(h) for h in hs]
    fused = gpuarr.fuse(lambda *a: _eval(tree, a))
    try:
        want = _eval(tree, gs)
    except (TypeError, OverflowError, ValueError) as e:
        with pytest.raises(type(e)):
            fused(*gs)
        return
    got = fused(*gs)
    if want is gs[0] or want is gs[1] or want is gs[2]:
        assert got is want
        return
    same(got, want)
