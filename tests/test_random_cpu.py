"""CPU tests of gpuarr's random numbers: the Philox reference, the
transforms, the kernels' rendering and compiling, argument checking."""
import numpy as np
import pytest

from gpuarr import _philox as P
from gpuarr import random as grandom
from gpuarr.gpuarray import GPUArray

# Random123 (D. E. Shaw Research), file tests/kat_vectors, lines
# "philox4x32 R ctr0 ctr1 ctr2 ctr3 key0 key1  out0 out1 out2 out3":
#   philox4x32 7  00000000 x4  00000000 x2  5f6fb709 0d893f64 4f121f81 4f730a48
#   philox4x32 7  ffffffff x4  ffffffff x2  5207ddc2 45165e59 4d8ee751 8c52f662
#   philox4x32 7  243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0
#                 4dfccaba 190a87f0 c47362ba b6b5242a
#   philox4x32 10 00000000 x4  00000000 x2  6627e8d5 e169c58d bc57ac4c 9b00dbd8
#   philox4x32 10 ffffffff x4  ffffffff x2  408f276d 41c83b0e a20bc7c6 6d5451fd
#   philox4x32 10 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0
#                 d16cfe09 94fdcceb 5001e420 24126ea1
# (the last counter/key are hex digits of pi).
_PI_CTR = (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)
_PI_KEY = (0xa4093822, 0x299f31d0)
KAT = [
    (7, (0, 0, 0, 0), (0, 0), (0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48)),
    (7, (0xffffffff,) * 4, (0xffffffff,) * 2,
     (0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662)),
    (7, _PI_CTR, _PI_KEY, (0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a)),
    (10, (0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    (10, (0xffffffff,) * 4, (0xffffffff,) * 2,
     (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    (10, _PI_CTR, _PI_KEY, (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


@pytest.mark.parametrize("rounds, ctr, key, expected", KAT)
def test_philox_known_answers(rounds, ctr, key, expected):
    got = P.philox4x32(np.array(ctr, np.uint32), key, rounds=rounds)
    assert [int(v) for v in got] == list(expected)


def test_philox_vectorised_matches_single():
    ctr = np.array([[0, 0, 0, 0], list(_PI_CTR), [0xffffffff] * 4], np.uint32)
    out = P.philox4x32(ctr, _PI_KEY)
    for c, o in zip(ctr, out):
        assert (P.philox4x32(c, _PI_KEY) == o).all()


def test_blocks_counter_layout():
    key = 0x0123456789abcdef
    off = (1 << 32) - 2          # crosses into the counter's second word
    w = P.blocks(key, off, 4)
    for i in range(4):
        b = off + i
        ctr = np.array([b & 0xffffffff, b >> 32, 0, 0], np.uint32)
        assert (P.philox4x32(ctr, (key & 0xffffffff, key >> 32)) == w[i]).all()
    # attempt goes to word 2
    w1 = P.blocks(key, 5, 1, attempt=3)[0]
    assert (w1 == P.philox4x32(np.array([5, 0, 3, 0], np.uint32),
                               P.split_key(key))).all()
    # the 64-bit offset wraps
    assert (P.blocks(key, (1 << 64) - 1, 2)[1] == P.blocks(key, 0, 1)[0]).all()


def test_split_key():
    assert P.split_key(0x0123456789abcdef) == (0x89abcdef, 0x01234567)
    with pytest.raises(ValueError):
        P.split_key(1 << 64)
    with pytest.raises(ValueError):
        P.split_key(-1)


@pytest.mark.parametrize("dtype, per", [(np.float32, 4), (np.float64, 2)])
def test_concatenation_rule(dtype, per):
    # n1 values at offset o, then n2 at o + ceil(n1 / per), equal n1 + n2
    # values at once when per divides n1
    key, n1, n2 = 99, 4 * 250, 333
    both = P.random(key, 7, n1 + n2, dtype)
    first = P.random(key, 7, n1, dtype)
    second = P.random(key, 7 + -(-n1 // per), n2, dtype)
    assert (np.concatenate([first, second]) == both).all()
    z = P.standard_normal(key, 7, n1 + n2, dtype)
    assert (np.concatenate([P.standard_normal(key, 7, n1, dtype),
                            P.standard_normal(key, 7 + n1 // per, n2, dtype)])
            == z).all()


def test_values_per_block():
    assert P.values_per_block(np.float32) == 4
    assert P.values_per_block(np.float64) == 2
    assert P.values_per_block(np.int64, "integers", 5) == 4
    assert P.values_per_block(np.int64, "integers", (1 << 32) - 1) == 4
    assert P.values_per_block(np.int64, "integers", 1 << 32) == 2


def test_uniform_bits_64_low_word_first():
    w = P.blocks(5, 0, 1)[0].astype(np.uint64)
    b = P.uniform_bits(5, 0, 2, 2)
    assert int(b[0]) == int(w[0]) | (int(w[1]) << 32)
    assert int(b[1]) == int(w[2]) | (int(w[3]) << 32)


def test_u01_float32_full_mantissa():
    w = np.array([0, 0xff, 0x100, 0xffffffff, 0x80000000], np.uint32)
    u = P.u01_f32(w)
    assert u.dtype == np.float32
    assert list(u) == [0.0, 0.0, 2.0 ** -24, 1.0 - 2.0 ** -24, 0.5]
    u = P.u01_f32(P.uniform_bits(1, 0, 1 << 16, 4))
    j = (u.astype(np.float64) * 2 ** 24)
    assert (j == np.floor(j)).all() and (u >= 0).all() and (u < 1).all()
    ji = j.astype(np.int64)
    for bit in range(24):           # every one of the 24 bits varies
        ones = ((ji >> bit) & 1).mean()
        assert 0.45 < ones < 0.55, bit


def test_u01_float64_full_mantissa():
    w = np.array([0, (1 << 11) - 1, 1 << 11, (1 << 64) - 1], np.uint64)
    u = P.u01_f64(w)
    assert list(u) == [0.0, 0.0, 2.0 ** -53, 1.0 - 2.0 ** -53]
    u = P.u01_f64(P.uniform_bits(1, 0, 1 << 15, 2))
    j = (u * 2.0 ** 53)
    assert (j == np.floor(j)).all() and (u < 1).all()
    ji = [int(x) for x in j]
    for bit in range(53):
        ones = np.mean([(x >> bit) & 1 for x in ji])
        assert 0.45 < ones < 0.55, bit


def test_open01():
    v = P.open01_f32(np.array([0, 1, 0xffffffff, 0x80000000], np.uint32))
    assert v.dtype == np.float32
    assert v[0] == np.float32(2.0 ** -33) and v[2] == 1.0 and v[3] == 0.5
    assert (v > 0).all() and (v <= 1).all()
    v = P.open01_f64(np.array([0, (1 << 64) - 1], np.uint64))
    assert list(v) == [2.0 ** -53, 1.0]


def test_sincospi_reference_exact_reduction():
    x = np.array([0.0, 0.25, 0.5, 1.0, 1.5, 1.75, 2.0 ** -30])
    s, c = P.sincospi(x)
    assert s[2] == 1.0 and c[2] == 0.0 and s[3] == 0.0 and c[3] == -1.0
    assert s[4] == -1.0 and c[4] == 0.0
    assert s[6] == np.sin(np.pi * 2.0 ** -30)
    t = np.linspace(0, 1.999, 1001)
    s, c = P.sincospi(t)
    # no relative part (allclose's rtol=1e-5 dwarfed the atol); the
    # reference's own pi * t rounding is up to 4.4e-16 here and each sin,
    # cos a few ulps of 1 (7e-16 measured): 4e-15 leaves room for any libm
    np.testing.assert_allclose(s, np.sin(np.pi * t), rtol=0, atol=4e-15)
    np.testing.assert_allclose(c, np.cos(np.pi * t), rtol=0, atol=4e-15)


def test_fma_f32_is_correctly_rounded():
    one = np.float32(1.0)
    a = np.float32(1 + 2.0 ** -23)
    # (1 + 2**-23)**2 - 1 = 2**-22 + 2**-46: exact only with one rounding
    assert P.fma_f32(a, a, -one) == np.float32(2.0 ** -22 + 2.0 ** -46)
    # a tie in float64 broken by the low bits: 1 + 2**-24 + 2**-60 -> up
    b = np.float32(2.0 ** -30)
    c = np.float32(1 + 2.0 ** -23)
    got = P.fma_f32(np.float32(2.0 ** -24 + 2.0 ** -47), one, one)
    assert got == c
    assert P.fma_f32(b, b, one) == one
    z = P.fma_f32(np.float32(0.0), np.float32(-2.0), np.float32(0.0))
    assert z == 0 and not np.signbit(z)


def test_neg2log_f32_accuracy():
    # exhaustive over [1/4, 1] (two reduction cases, k = 0 and -1, and the
    # whole polynomial range), then 10**6 samples of every binade
    lo = int(np.float32(0.25).view(np.int32))
    hi = int(np.float32(1.0).view(np.int32))
    worst = 0.0
    for start in range(lo, hi + 1, 1 << 22):
        u = np.arange(start, min(start + (1 << 22), hi + 1),
                      dtype=np.int32).view(np.float32)
        t = P.neg2log_f32(u).astype(np.float64)
        ref = -2 * np.log(u.astype(np.float64))
        pos = ref > 0
        sp = np.spacing(ref[pos].astype(np.float32)).astype(np.float64)
        worst = max(worst, float((np.abs(t[pos] - ref[pos]) / sp).max(initial=0)))
        assert (t[~pos] == 0).all() and not np.signbit(t[~pos]).any()
    rng = np.random.default_rng(0)
    u = (2.0 ** -rng.uniform(0, 33, 10 ** 6)).astype(np.float32)
    u = np.concatenate([u[u >= 2.0 ** -33], np.float32([2.0 ** -33])])
    t = P.neg2log_f32(u).astype(np.float64)
    ref = -2 * np.log(u.astype(np.float64))
    sp = np.spacing(ref.astype(np.float32)).astype(np.float64)
    worst = max(worst, float((np.abs(t - ref) / sp).max()))
    assert worst < 1.15, worst
    assert P.neg2log_f32(np.float32(1.0)) == 0


def test_angle_f32_inside_open_interval():
    w = np.array([0, 0x1ff, 0x200, 0x7fffffff, 0x80000000, 0xffffffff],
                 np.uint32)
    x = P.angle_f32(w).astype(np.float64)
    assert (np.abs(x) < np.pi).all()
    assert x[0] == x[1] and x[0] < -3.1415 and x[5] > 3.1415
    assert x[0] == -x[5]                       # symmetric about 0
    assert abs(x[3]) < 1e-6 and x[3] == -x[4]


def test_normal_f32_reference_bound_parts():
    r = P.normal_radius(3, 0, 10)
    z = P.standard_normal(3, 0, 10, np.float32).astype(np.float64)
    assert (r[0::2] == r[1::2]).all()
    assert np.allclose(np.hypot(z[0::2], z[1::2]), r[0::2], rtol=1e-6)


def test_normal_reference_range_and_moments():
    for dt in (np.float32, np.float64):
        z = P.standard_normal(3, 0, 40000, dt)
        assert z.dtype == dt and np.isfinite(z).all()
        assert abs(z.mean()) < 5 / np.sqrt(z.size)
        assert abs(z.var() - 1) < 5 * np.sqrt(2 / z.size)
    # the largest float32 radius: u1 = open01(0) = 2**-33, through the
    # reference's own -2 ln u
    u1 = P.open01_f32(np.zeros(1, np.uint32))
    r = np.sqrt(P.neg2log_f32(u1).astype(np.float64))[0]
    assert r == pytest.approx(6.763, abs=1e-3)


def test_exponential_reference():
    for dt in (np.float32, np.float64):
        e = P.exponential(4, 0, 40000, 1.0, dt)
        assert e.dtype == dt and (e >= 0).all() and not np.signbit(e).any()
        assert abs(e.mean() - 1) < 5 / np.sqrt(e.size)
    e = P.exponential(4, 0, 8, 2.5, np.float32)
    assert (e == np.float32(2.5) * P.exponential(4, 0, 8, 1.0, np.float32)).all()


@pytest.mark.parametrize("rng", [0, 1, 5, 255, (1 << 31), (1 << 32) - 1,
                                 1 << 32, (1 << 63) + 12345, (1 << 64) - 1])
def test_integer_params(rng):
    per, s, thresh = P.integer_params(rng)
    width = 32 if rng < 1 << 32 else 64
    assert per == (4 if width == 32 else 2)
    assert s == (rng + 1) % (1 << width)
    if s:
        assert thresh == ((1 << width) - s) % s
        assert thresh < s
    else:
        assert thresh == 0


def test_integers_reference_in_range_and_rejections():
    # s = 2**31 + 1 rejects almost half of the first draws: exercises redraws
    rng = 1 << 31
    v = P.integers(11, 0, 2000, 10, rng, np.int64)
    assert v.min() >= 10 and v.max() <= 10 + rng
    per, s, thresh = P.integer_params(rng)
    first = P.uniform_bits(11, 0, 2000, 4).astype(np.uint64) * np.uint64(s)
    rejected = (first & np.uint64(0xffffffff)) < thresh
    assert 0.3 < rejected.mean() < 0.7
    kept = ~rejected
    assert (v[kept] == 10 + (first[kept] >> np.uint64(32)).astype(np.int64)).all()
    # small range: frequencies
    v = P.integers(12, 0, 60000, -3, 5, np.int8)
    assert v.dtype == np.int8 and v.min() == -3 and v.max() == 2
    counts = np.bincount(v.astype(np.int64) + 3)
    p = 1 / 6
    sigma = np.sqrt(v.size * p * (1 - p))
    assert (np.abs(counts - v.size * p) < 5 * sigma).all()
    # 64-bit range and full widths
    v = P.integers(13, 0, 100, 0, (1 << 64) - 1, np.uint64)
    assert v.dtype == np.uint64 and v.max() > 1 << 60
    v = P.integers(13, 0, 8, -(1 << 63), (1 << 64) - 1, np.int64)
    assert v.dtype == np.int64 and (v < 0).any()
    b = P.integers(13, 0, 1000, 0, 1, np.bool_)
    assert b.dtype == np.bool_ and 400 < b.sum() < 600


# ---------------------------------------------------------------------------
# kernels: render and compile every variant

_VARIANTS = (
    [(d, dt, a, 4 if dt == np.float32 else 2)
     for d in ("uniform", "normal", "exponential")
     for dt in (np.float32, np.float64) for a in (False, True)]
    + [("integers", dt, False, per)
       for dt in (np.bool_, np.int8, np.int16, np.int32, np.int64,
                  np.uint8, np.uint16, np.uint32, np.uint64)
       for per in (4, 2)])


def _compiler_available():
    try:
        from gpuarr.compiler import find_compiler
        find_compiler()
        return True
    except Exception:
        return False


def test_render_deterministic_and_names_unique():
    names = set()
    for dist, dt, aff, per in _VARIANTS:
        n1, s1, c1 = grandom.kernel_spec(dist, np.dtype(dt), aff, per)
        n2, s2, c2 = grandom.kernel_spec(dist, np.dtype(dt), aff, per)
        assert (n1, s1, c1) == (n2, s2, c2)
        assert n1 not in names
        names.add(n1)
        assert n1 in s1 and len(c1) == 8 + 20


@pytest.mark.skipif(not _compiler_available(), reason="no NVRTC or nvcc")
@pytest.mark.parametrize("impl", ["grid-stride", "warp-chunks"])
@pytest.mark.parametrize("dist, dtype, affine, per", _VARIANTS)
def test_kernels_compile(dist, dtype, affine, per, impl):
    from gpuarr.compiler import compile
    name, src, chars = grandom.kernel_spec(dist, np.dtype(dtype), affine, per,
                                           impl)
    cubin = compile(src, arch="sm_90", no_extern_c=True)
    assert isinstance(cubin, bytes) and len(cubin) > 1000
    assert name.encode() in cubin


def test_kernel_impl_selection(monkeypatch):
    from gpuarr import _config
    assert _config.read({}).random == "warp-chunks"
    assert _config.read({"GPUARR_RANDOM": "Grid-Stride"}).random == "grid-stride"
    monkeypatch.setattr(grandom, "IMPL", "warp-chunks")
    assert grandom.kernel_impl() == "warp-chunks"
    spec = grandom.kernel_spec("normal", np.dtype(np.float32), False, 4)
    assert spec == grandom.kernel_spec("normal", np.dtype(np.float32), False,
                                       4, "warp-chunks")
    monkeypatch.setattr(grandom, "IMPL", "grid-stride")
    assert grandom.kernel_impl() == "grid-stride"
    v1 = grandom.kernel_spec("normal", np.dtype(np.float32), False, 4)
    assert v1 == grandom.kernel_spec("normal", np.dtype(np.float32), False,
                                     4, "grid-stride")
    # same name and parameters, different loop; v1 has no chunk loop
    assert v1[0] == spec[0] and v1[2] == spec[2] and v1[1] != spec[1]
    assert "nchunks" not in v1[1] and "nchunks" in spec[1]
    monkeypatch.setattr(grandom, "IMPL", "v3")
    with pytest.raises(ValueError, match="GPUARR_RANDOM"):
        grandom.kernel_impl()
    with pytest.raises(ValueError):
        grandom.kernel_spec("normal", np.dtype(np.float32), False, 4, "v0")


def _v2_block_owner(n, per, vec, grid, block=256):
    """Host model of the v2 kernel's index arithmetic: for every thread, the
    Philox blocks it computes and the element each block is stored at."""
    nblocks = -(-n // per)
    nthreads = grid * block
    nw = nthreads // 32
    nchunks = (n // per) >> 6 if vec else 0
    seen = {}
    for tid in range(nthreads):
        gw, lane = tid >> 5, tid & 31
        if gw < nchunks:
            steps = (nchunks - 1 - gw) // nw + 1
            blk0 = gw * 64 + lane
            ctr, p = blk0, blk0 * per            # ctr relative to offset
            for _ in range(steps):
                for c, e in ((ctr, p), (ctr + 32, p + 32 * per)):
                    assert c not in seen
                    seen[c] = e
                ctr += nw * 64
                p += nw * 64 * per
        for blk in range(nchunks * 64 + tid, nblocks, nthreads):
            assert blk not in seen
            seen[blk] = blk * per
    return nblocks, seen


@pytest.mark.parametrize("n, per, vec, grid", [
    (1, 4, 1, 1), (4 * 64 * 8 * 3 + 5, 4, 1, 1), (4 * 64 * 8 * 3 + 5, 4, 1, 2),
    (2 * 64 * 16 * 5, 2, 1, 2), (2 * 64 * 16 * 5 - 1, 2, 1, 3),
    (4 * 64 * 40 + 17, 4, 0, 1), (4 * 64 * 40 + 17, 4, 1, 7)])
def test_v2_mapping_covers_each_block_once_at_its_element(n, per, vec, grid):
    # element k must use block offset + k // per whatever the grid
    nblocks, seen = _v2_block_owner(n, per, vec, grid)
    assert sorted(seen) == list(range(nblocks))
    assert all(e == b * per for b, e in seen.items())


def test_kernel_uses_constants_of_reference():
    _, src, _ = grandom.kernel_spec("normal", np.dtype(np.float32), False, 4)
    for c in (P.NEG2LN2_F32, P.TWO_PI_F32):
        assert float(c).hex() + "f" in src
    assert "ga_radius_fast(ga_open01" in src and "__sincosf(ga_angle" in src
    assert "lg2.approx" in src and "sqrt.approx" in src
    # exponential keeps the bit-exact log of the reference
    _, src, _ = grandom.kernel_spec("exponential", np.dtype(np.float32),
                                    False, 4)
    for c in P.NEG2LOG_F32 + (P.NEG2LN2_F32,):
        assert float(c).hex() + "f" in src
    assert "ga_neg2log(ga_open01" in src


def test_normal_f32_bound():
    n = 1 << 16
    r = P.normal_radius(3, 0, n)
    z = P.standard_normal(3, 0, n, np.float32)
    b = P.normal_f32_bound(3, 0, n, z)
    assert b.shape == (n,) and np.isfinite(b).all()
    # the documented sizes: at most sqrt(4e-7) plus the relative terms
    assert (b <= 6.4e-4 + r * 2.0 ** -19.8 + 1e-6).all()
    # the absolute part applies below r = sqrt(2 ln 2) only
    big = r > 1.2
    assert (b[big] <= r[big] * 2.0 ** -19.8 + 1e-6).all()


# ---------------------------------------------------------------------------
# the bit generator and argument checking (no GPU needed: errors come first)

def test_philox_seeding():
    a, b = grandom.Philox(1), grandom.Philox(1)
    assert a.key == b.key and a.offset == 0
    assert grandom.Philox(2).key != a.key
    assert grandom.Philox(key=5).key == 5
    assert grandom.Philox(None).key != grandom.Philox(None).key
    ss = np.random.SeedSequence(7)
    assert grandom.Philox(ss).key == grandom.Philox(7).key
    with pytest.raises(ValueError):
        grandom.Philox(-1)
    with pytest.raises(ValueError):
        grandom.Philox(1, key=2)
    with pytest.raises(ValueError):
        grandom.Philox(key=1 << 64)
    with pytest.raises(ValueError):
        grandom.Philox(key=1, offset=-1)
    with pytest.raises(TypeError):
        grandom.Philox(key=1.5)


def test_philox_offset_state_advance():
    p = grandom.Philox(key=3, offset=10)
    assert p.advance(5) is p and p.offset == 15
    st = p.state
    q = grandom.Philox(key=9)
    q.state = st
    assert q.key == 3 and q.offset == 15
    p.offset = (1 << 64) - 1
    p.advance(2)
    assert p.offset == 1
    with pytest.raises(ValueError):
        p.advance(-1)
    with pytest.raises(ValueError):
        q.state = {"bit_generator": "PCG64"}


def test_default_rng():
    g = grandom.default_rng(5)
    assert isinstance(g, grandom.Generator)
    assert grandom.default_rng(g) is g
    p = grandom.Philox(key=1)
    assert grandom.default_rng(p).bit_generator is p
    with pytest.raises(TypeError):
        grandom.Generator(np.random.PCG64())


def _np_error(f):
    try:
        f(np.random.default_rng(0))
    except Exception as e:
        return type(e), str(e)
    return None


def _ga_error(f):
    g = grandom.default_rng(0)
    try:
        f(g)
    except Exception as e:
        assert g.bit_generator.offset == 0
        return type(e), str(e)
    return None


_NUMPY_ERRORS = [
    lambda g: g.normal(0, -1.0, 3),
    lambda g: g.normal(0, -0.0, 3),
    lambda g: g.exponential(-2.0, 3),
    lambda g: g.integers(5, 3),
    lambda g: g.integers(5, 3, endpoint=True),
    lambda g: g.integers(5, 5),
    lambda g: g.integers(0),
    lambda g: g.integers(-1, endpoint=True),
    lambda g: g.integers(-1, 5, dtype=np.uint8),
    lambda g: g.integers(0, 300, dtype=np.uint8),
    lambda g: g.integers(0, 2 ** 64 + 1, dtype=np.uint64),
    lambda g: g.integers(-2 ** 63 - 1, 0, dtype=np.int64),
    lambda g: g.integers(0, 3, dtype=bool),
    lambda g: g.integers(0, 5, dtype=np.float64),
    lambda g: g.random(dtype=np.int32),
    lambda g: g.random(dtype=np.float16),
    lambda g: g.standard_normal(dtype=np.int32),
    lambda g: g.uniform(0, np.inf),
    lambda g: g.uniform(np.nan, 1),
    lambda g: g.uniform(-1.5e308, 1.5e308),
    lambda g: g.random(-1),
    lambda g: g.random((2, -1)),
    lambda g: g.random(size=2.5),
]


@pytest.mark.parametrize("k", range(len(_NUMPY_ERRORS)))
def test_errors_like_numpy(k):
    f = _NUMPY_ERRORS[k]
    expected = _np_error(f)
    assert expected is not None
    assert _ga_error(f) == expected


def test_valid_edge_arguments_pass_validation():
    # these numpy accepts; gpuarr must get past validation (size 0: no GPU)
    g = grandom.default_rng(0)
    assert g.integers(2 ** 63, size=0, dtype=np.int64).size == 0
    assert g.integers(0, 2 ** 64, size=0, dtype=np.uint64).size == 0
    assert g.integers(-2 ** 63, 2 ** 63, size=0).size == 0
    assert g.integers(0, 1, size=0, dtype=bool).size == 0
    assert g.integers(1.5, 3.7, size=0).size == 0
    assert g.normal(0, np.nan, size=0).size == 0
    assert g.exponential(0.0, size=0).size == 0
    assert g.uniform(5, 3, size=(0, 2)).shape == (0, 2)
    assert g.standard_normal(size=[0, 3], dtype=np.float32).shape == (0, 3)
    assert g.bit_generator.offset == 0       # nothing consumed


def test_float32_uniform_range_overflow():
    g = grandom.default_rng(0)
    with pytest.raises(OverflowError):
        g.uniform(-3e38, 3e38, size=4, dtype=np.float32)


def test_parameters_must_be_scalars():
    g = grandom.default_rng(0)
    with pytest.raises(TypeError):
        g.normal(np.zeros(3), 1.0, 3)
    with pytest.raises(TypeError):
        g.integers([1, 2], 5)


def _fake(shape, dtype, strides=None):
    # device arrays on made-up addresses: nothing is allocated or launched
    return GPUArray(shape, dtype, gpudata=1 << 20, strides=strides)


def test_out_checks():
    g = grandom.default_rng(0)
    with pytest.raises(TypeError, match="Expected float64, got float32"):
        g.random(out=_fake((4,), np.float32))
    with pytest.raises(TypeError, match="Expected float32, got float64"):
        g.standard_normal(dtype=np.float32, out=_fake((4,), np.float64))
    with pytest.raises(TypeError, match="Expected int64, got int32"):
        g.integers(0, 5, out=_fake((4,), np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        g.random(out=_fake((4,), np.float64, strides=(16,)))
    with pytest.raises(ValueError, match="size must match out.shape"):
        g.random(size=3, out=_fake((4,), np.float64))
    with pytest.raises(TypeError):
        g.random(out=np.empty(4))
    assert g.bit_generator.offset == 0
    z = _fake((0,), np.float64)
    assert g.random(out=z) is z


def test_curandom_rand_dtype_check():
    from gpuarr import curandom
    with pytest.raises(TypeError):
        curandom.rand((4,), dtype=np.int16)
