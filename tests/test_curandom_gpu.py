"""GPU tests of PyCUDA's cuRAND generator classes (gpuarr.curandom).

(a) Exact agreement with cuRAND: tests/data/curand_ref.cu, built with nvcc
    at test time, runs cuRAND's device API on one state at a time (the
    state's seed, subsequence and offset, or Sobol dimension and offset)
    and prints every value's bits; the generators' outputs at the elements
    that state produced must be the same bits.
(b) Statistics at n = 2**22 for every generator, distribution and dtype.
(c) Odd sizes, 0-d and empty arrays, unaligned, strided and F-ordered
    outputs, and poisoned memory around them left untouched.
"""
import os
import shutil
import subprocess

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

HERE = os.path.dirname(os.path.abspath(__file__))
REF_SRC = os.path.join(HERE, "data", "curand_ref.cu")

PSEUDO = ("xorwow", "mrg32k3a")
SOBOL = ("sobol32", "scrambled_sobol32", "sobol64", "scrambled_sobol64")
ALL = PSEUDO + SOBOL


def _classes():
    from gpuarr import curandom as c
    return {"xorwow": c.XORWOWRandomNumberGenerator,
            "mrg32k3a": c.MRG32k3aRandomNumberGenerator,
            "sobol32": c.Sobol32RandomNumberGenerator,
            "scrambled_sobol32": c.ScrambledSobol32RandomNumberGenerator,
            "sobol64": c.Sobol64RandomNumberGenerator,
            "scrambled_sobol64": c.ScrambledSobol64RandomNumberGenerator}


@pytest.fixture(scope="module")
def cur(context):
    """gpuarr.curandom, skipping when cuRAND's headers are missing."""
    from gpuarr import _curand, curandom
    try:
        _curand.include_dirs()
    except _curand.CurandNotFoundError as exc:
        pytest.skip(str(exc))
    return curandom


def _seeds(n):
    return (np.arange(n, dtype=np.int64) * 2654435761 % (2 ** 31 - 1)).astype(np.int32)


def _make(cur, kind, offset=0):
    import gpuarr.gpuarray as ga
    cls = _classes()[kind]
    if kind in PSEUDO:
        return cls(seed_getter=lambda n: ga.to_gpu(_seeds(n)), offset=offset)
    return cls(offset=offset)


# ---------------------------------------------------------------------------
# (a) exact agreement with cuRAND

@pytest.fixture(scope="module")
def ref_prog(cur):
    """The built reference program (skips without nvcc). Built once per
    source, device and nvcc into the temporary directory, where the other
    test workers find it (nvcc takes ~20 s over curand_kernel.h)."""
    import hashlib
    import tempfile
    from gpuarr import _curand
    import gpuarr.driver as drv
    nvcc = shutil.which("nvcc") or next(
        (p for p in ("/usr/local/cuda/bin/nvcc",) if os.path.exists(p)), None)
    if nvcc is None:
        pytest.skip("nvcc is not installed: the cuRAND reference program "
                    "cannot be built")
    major, minor = drv.Context.get_device().compute_capability()
    with open(REF_SRC, "rb") as f:
        key = hashlib.sha1(f.read() + ("%s %d%d %s" % (
            os.path.realpath(nvcc), major, minor,
            _curand.include_dirs()[0])).encode())
    final = os.path.join(tempfile.gettempdir(),
                         "gpuarr_curand_ref_" + key.hexdigest()[:16])
    if os.path.isfile(final):
        return final
    prog = "%s.%d" % (final, os.getpid())
    base = [nvcc, "-arch=sm_%d%d" % (major, minor), "-o", prog, REF_SRC]
    # first with the cuRAND headers (and library) gpuarr itself compiles
    # with, so both sides run the same device code; then the toolkit's own
    tk = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))),
                      "lib64")
    libs = [p for p in _curand.candidates() if os.path.isfile(p)]
    if libs:
        libdir = os.path.dirname(libs[0])
        link = ["-L", libdir, "-Xlinker", "-rpath=" + libdir,
                "-l:" + os.path.basename(libs[0])]
    else:
        link = ["-Xlinker", "-rpath=" + tk, "-lcurand"]
    attempts = [base + ["-I", _curand.include_dirs()[0]] + link,
                base + ["-Xlinker", "-rpath=" + tk, "-lcurand"]]
    errors = []
    for cmd in attempts:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            os.replace(prog, final)     # atomic: a worker sees all or none
            return final
        errors.append("%s\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    pytest.fail("building the reference program failed:\n" + "\n".join(errors))


def _run_ref(prog, lines):
    r = subprocess.run([prog], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert len(out) == len(lines)
    return [[int(v, 16) for v in row.split()] for row in out]


def _count(n, t, S):
    return max(0, (n - t + S - 1) // S)


class _Plan:
    """The calls made on a generator and, per state, the ops that the
    reference program runs for them."""

    def __init__(self, S):
        self.S = S
        self.steps = []     # (token name or None, n, pairs, params, array)

    def fill(self, token, out, pairs=False, params=(), counts=False):
        """``counts``: float outputs holding integers (the in-place
        Poisson form), compared as integers with the uint32 reference."""
        self.steps.append((token, out.size, pairs, params, (out, counts)))

    def skip(self, token, k):
        self.steps.append((token, k, None, (), None))

    def ref_line(self, kind, t, seed, offset):
        toks = []
        for token, n, pairs, params, arr in self.steps:
            if arr is None:
                k = n if np.ndim(n) == 0 else int(n[t])
                toks.append("%s:%d" % (token, k))
                continue
            c = _count(n // 2 if pairs else n, t, self.S)
            toks.append(":".join([token, str(c)] + [repr(float(p)) for p in params]))
        return "%s %d %d %d %s" % (kind, t, seed, offset, " ".join(toks))

    def ours(self, t):
        vals = []
        for token, n, pairs, params, arr in self.steps:
            if arr is None:
                continue
            arr, counts = arr
            h = arr.get().ravel()
            if counts:
                bits = h.astype(np.uint64)
            else:
                bits = h.view(np.uint64 if h.dtype.itemsize == 8 else np.uint32)
            if pairs:
                for p in range(t, n // 2, self.S):
                    vals += [int(bits[2 * p]), int(bits[2 * p + 1])]
            else:
                vals += [int(b) for b in bits[t::self.S]]
        return vals


@pytest.mark.parametrize("kind", ALL)
def test_exact_agreement_with_curand(cur, ref_prog, kind):
    import gpuarr.gpuarray as ga
    offset = 3
    g = _make(cur, kind, offset)
    S = g.state_count
    assert S == g.block_count * g.generators_per_block
    p = _Plan(S)
    f4, f8 = np.float32, np.float64
    pseudo = kind in PSEUDO
    p.fill("uniform_f4", g.gen_uniform(2 * S + 5, f4))
    p.fill("uniform_f8", g.gen_uniform(S + 2, f8))
    p.fill("raw_u4", g.gen_uniform(S + 1, np.uint32))
    p.fill("raw_u4", g.gen_uniform(S - 1, np.int32))
    if kind.endswith("64"):
        p.fill("raw_u8", g.gen_uniform(S + 7, np.uint64))
    # even sizes use the Box-Muller pairs on XORWOW and MRG32k3a
    p.fill("normal2_f4" if pseudo else "normal_f4", g.gen_normal(2 * S + 6, f4),
           pairs=pseudo)
    p.fill("normal_f4", g.gen_normal(S + 1, f4))
    p.fill("normal2_f8" if pseudo else "normal_f8", g.gen_normal(2 * S + 2, f8),
           pairs=pseudo)
    p.fill("normal_f8", g.gen_normal(S + 3, f8))
    p.fill("log_normal_f4", g.gen_log_normal(S + 3, f4, 0.5, 0.25),
           params=(0.5, 0.25))
    p.fill("log_normal2_f8" if pseudo else "log_normal_f8",
           g.gen_log_normal(2 * S, f8, 0.5, 0.25), pairs=pseudo,
           params=(0.5, 0.25))
    p.fill("poisson_u4", g.gen_poisson(S + 1, np.uint32, 3.5), params=(3.5,))
    p.fill("poisson_u4", g.gen_poisson(S, np.uint32, 200.0), params=(200.0,))
    # the in-place form: each element's value is its mean
    for dt, lam in ((f4, 7.0), (f8, 30.0), (np.uint32, 9)):
        a = ga.to_gpu(np.full(S + 4, lam, dt))
        g.fill_poisson(a)
        p.fill("poisson_u4", a, params=(float(lam),), counts=dt != np.uint32)
    g.call_skip_ahead(5)
    p.skip("skip", 5)
    skips = (np.arange(S) % 7).astype(np.uint32 if kind.endswith("sobol32")
                                      else np.uint64)
    g.call_skip_ahead_array(ga.to_gpu(skips))
    p.skip("skip", skips)
    p.fill("uniform_f4", g.gen_uniform(S, f4))
    if pseudo:
        g.call_skip_ahead_sequence(2)
        p.skip("skipseq", 2)
        p.fill("uniform_f4", g.gen_uniform(S, f4))
    if kind == "mrg32k3a":
        g.call_skip_ahead_subsequence(3)
        p.skip("skipsub", 3)
        p.fill("uniform_f8", g.gen_uniform(S, f8))
    ids = [0, 1, 2, 5, 6, 777, S - 1]
    seeds = _seeds(S).astype(np.int64) & 0xFFFFFFFF
    lines = [p.ref_line(kind, t, int(seeds[t]) if pseudo else 0, offset)
             for t in ids]
    refs = _run_ref(ref_prog, lines)
    for t, ref in zip(ids, refs):
        ours = p.ours(t)
        assert len(ours) == len(ref)
        if ours != ref:
            k = next(i for i, (a, b) in enumerate(zip(ours, ref)) if a != b)
            pytest.fail("state %d: value %d differs: gpuarr %#x, cuRAND %#x "
                        "(case %r)" % (t, k, ours[k], ref[k], lines[ids.index(t)]))


@pytest.mark.parametrize("kind", SOBOL)
def test_sobol_fill_repeats_no_dimension(cur, kind):
    """At most 20000 Sobol states (cuRAND's dimensions), state k on
    dimension k: a fill of more than 2 * 20000 values does not repeat
    itself 20000 elements on (PyCUDA's 135168 states on an H200 do: state
    k + 20000 is state k again), and its first state_count values, each a
    state's first point, are those of cuRAND's tables, all different (at
    this offset every dimension's point differs from every other's)."""
    from gpuarr import _curand
    D = _curand.DIMENSIONS
    offset = 2 ** 31 - 12345
    g = _make(cur, kind, offset)
    S = g.state_count
    assert S == g.block_count * g.generators_per_block <= D
    bits = 64 if kind.endswith("64") else 32
    dt = np.uint64 if bits == 64 else np.uint32
    n = 2 * D + 4099
    x = g.gen_uniform(n, dt).get()
    B = 4096
    same = x[:B] == x[D:D + B]
    assert not same.all()
    assert same.mean() < 0.01, same.mean()
    # point `offset` of dimension k: the direction vectors of the set bits
    # of the Gray code of offset, XORed (onto the scramble constant)
    vs = {"sobol32": 101, "scrambled_sobol32": 102, "sobol64": 103,
          "scrambled_sobol64": 104}[kind]
    v = _curand.direction_vectors(vs)[:S]
    expect = (_curand.scramble_constants(bits)[:S].copy()
              if kind.startswith("scrambled") else np.zeros(S, dt))
    gray = offset ^ (offset >> 1)
    for j in range(bits):
        if gray >> j & 1:
            expect ^= v[:, j]
    np.testing.assert_array_equal(x[:S], expect)
    assert len(np.unique(x[:S])) == S


# ---------------------------------------------------------------------------
# (b) statistics

N = 2 ** 22


def _moments(x):
    x = x.astype(np.float64)
    return x.mean(), x.var()


@pytest.mark.parametrize("kind", ALL)
def test_statistics(cur, kind):
    # Pseudo-random: within 6 standard errors.  Sobol: every state is one
    # dimension, holding N / state_count points (~248 on an H200, 16896
    # states; offset 1 leaves out each dimension's first point, 0):
    # stratified samples whose means are close (within 3%) and whose
    # variances fall short of the distribution's (fewer points reach the
    # normal's tails): 0.7 to 1.05 of the variance.
    g = _make(cur, kind, offset=0 if kind in PSEUDO else 1)
    quasi = kind not in PSEUDO
    se = 1 / np.sqrt(N)

    def mean_ok(m, expect, sigma):
        tol = 0.03 * max(abs(expect), 1.0) if quasi else 6 * sigma * se
        assert abs(m - expect) < tol, (m, expect, tol)

    def var_ok(v, expect, sigma_of_var):
        if quasi:
            assert 0.7 * expect < v < 1.05 * expect, (v, expect)
        else:
            tol = 6 * sigma_of_var * se
            assert abs(v - expect) < tol, (v, expect, tol)

    for dt in (np.float32, np.float64):
        u = g.gen_uniform(N, dt).get()
        assert u.dtype == dt and u.min() > 0 and u.max() <= 1
        m, v = _moments(u)
        mean_ok(m, 0.5, np.sqrt(1 / 12))
        var_ok(v, 1 / 12, np.sqrt(1 / 180))
        for n in (N, N + 1):        # pairs, then one at a time
            z = g.gen_normal(n, dt).get()
            assert z.dtype == dt and np.isfinite(z).all()
            m, v = _moments(z)
            mean_ok(m, 0.0, 1.0)
            var_ok(v, 1.0, np.sqrt(2))
        mu, s = 0.5, 0.25
        x = g.gen_log_normal(N + 1, dt, mu, s).get()
        assert x.dtype == dt and (x > 0).all()
        m, v = _moments(x)
        em = np.exp(mu + s * s / 2)
        ev = (np.exp(s * s) - 1) * np.exp(2 * mu + s * s)
        mean_ok(m, em, np.sqrt(ev))
        var_ok(v, ev, 4 * ev)
    for dt in (np.uint32, np.int32):
        r = g.gen_uniform(N, dt).get()
        assert r.dtype == dt
        m, _ = _moments(r.view(np.uint32) / 2.0 ** 32)
        mean_ok(m, 0.5, np.sqrt(1 / 12))
    if kind.endswith("64"):
        r = g.gen_uniform(N, np.uint64).get()
        m, _ = _moments(r / 2.0 ** 64)
        mean_ok(m, 0.5, np.sqrt(1 / 12))
    for lam in (3.5, 1000.0):
        k = g.gen_poisson(N, np.uint32, lam).get()
        assert k.dtype == np.uint32
        m, v = _moments(k)
        mean_ok(m, lam, np.sqrt(lam))
        var_ok(v, lam, lam * np.sqrt(2 + 1 / lam))
    import gpuarr.gpuarray as ga
    for dt in (np.float32, np.float64, np.uint32):    # each element its mean
        a = ga.to_gpu(np.full(N, 10, dt))
        g.fill_poisson(a)
        k = a.get()
        assert k.dtype == dt and (k == np.round(k)).all() and (k >= 0).all()
        m, v = _moments(k)
        mean_ok(m, 10.0, np.sqrt(10.0))
        var_ok(v, 10.0, 10.0 * np.sqrt(2.1))


# ---------------------------------------------------------------------------
# (c) layouts, odd sizes, poisoned memory

POISON = {np.dtype(np.float32): np.float32(-7.5),
          np.dtype(np.float64): -7.5, np.dtype(np.uint32): 0xDEADBEEF,
          np.dtype(np.int32): -12345, np.dtype(np.uint64): 0xDEADBEEFCAFE}


def _calls(dt):
    if dt.kind == "f":
        return [("fill_uniform", ()), ("fill_normal", ()),
                ("fill_log_normal", (0.5, 0.25))]
    if dt == np.uint32:
        return [("fill_uniform", ()), ("fill_poisson", (3.5,))]
    return [("fill_uniform", ())]


@pytest.mark.parametrize("kind", ALL)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint32, np.int32])
def test_layouts_match_contiguous_and_leave_the_rest(cur, kind, dtype):
    import gpuarr.gpuarray as ga
    dt = np.dtype(dtype)
    # a fills the views, b contiguous arrays: the same calls in the same
    # order, so they stay in step
    a = _make(cur, kind, 11)
    b = _make(cur, kind, 11)
    for n in (1, 7, 1000, 4097):
        for how, args in _calls(dt):
            # unaligned contiguous view (pairs stored one by one)
            base = ga.to_gpu(np.full(n + 4, POISON[dt], dt))
            view = base[1:n + 1]
            getattr(a, how)(view, *args)
            ref = ga.empty(n, dt)
            getattr(b, how)(ref, *args)
            h = base.get()
            np.testing.assert_array_equal(h[1:n + 1].view("u%d" % dt.itemsize),
                                          ref.get().view("u%d" % dt.itemsize))
            assert (h[0] == POISON[dt]) and (h[n + 1:] == POISON[dt]).all()
            # strided view: C order of the view, gaps untouched
            base = ga.to_gpu(np.full(2 * n, POISON[dt], dt))
            getattr(a, how)(base[::2], *args)
            getattr(b, how)(ref, *args)
            h = base.get()
            np.testing.assert_array_equal(h[::2].view("u%d" % dt.itemsize),
                                          ref.get().view("u%d" % dt.itemsize))
            assert (h[1::2] == POISON[dt]).all()
    # F-ordered: memory order, as PyCUDA
    base = ga.to_gpu(np.full((5, 7), POISON[dt], dt))
    a.fill_uniform(base.T)
    ref = b.gen_uniform(35, dt)
    np.testing.assert_array_equal(base.get().ravel(), ref.get())


@pytest.mark.parametrize("kind", ALL)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint32])
def test_in_place_poisson_takes_each_elements_mean(cur, kind, dtype):
    import gpuarr.gpuarray as ga
    a = _make(cur, kind, 4)
    b = _make(cur, kind, 4)
    n = 3001
    means = (1 + np.arange(n) % 50).astype(dtype)
    # strided: the means come from the view, the gaps stay
    base = np.full(2 * n, 123, dtype)
    base[::2] = means
    d = ga.to_gpu(base)
    a.fill_poisson(d[::2])
    ref = ga.to_gpu(means)
    b.fill_poisson(ref)
    h, r = d.get(), ref.get()
    np.testing.assert_array_equal(h[::2], r)
    assert (h[1::2] == 123).all()
    assert (r == np.round(r)).all()
    # small means give small counts, large ones large counts
    assert r[means <= 2].mean() + 20 < r[means >= 45].mean()


@pytest.mark.parametrize("kind", ALL)
def test_zero_d_empty_and_bad_dtype(cur, kind):
    import gpuarr.gpuarray as ga
    g = _make(cur, kind)
    z = ga.to_gpu(np.array(np.float32(-1)))
    g.fill_normal(z)
    assert z.shape == () and z.get() != -1
    e = ga.empty((0, 3), np.float32)
    g.fill_uniform(e)
    g.fill_normal(e)
    assert g.gen_uniform((0,), np.float64).shape == (0,)
    poisoned = ga.to_gpu(np.full(10, 9, np.int8))
    with pytest.raises(TypeError):
        g.fill_uniform(poisoned)
    with pytest.raises(NotImplementedError):
        g.fill_normal(ga.to_gpu(np.full(10, 9, np.int32)))
    with pytest.raises(TypeError):
        g.fill_poisson(ga.to_gpu(np.zeros(10, np.float32)), 2.0)
    with pytest.raises(ValueError):
        g.fill_poisson(ga.to_gpu(np.zeros(10, np.uint32)), -1.0)
    with pytest.raises(ValueError):
        g.gen_log_normal(10, np.float32, 0.0, -1.0)
    if not kind.endswith("64"):
        with pytest.raises(TypeError):
            g.gen_uniform(10, np.uint64)
    assert (poisoned.get() == 9).all()


def test_seed_checks_and_state(cur):
    import gpuarr.gpuarray as ga
    cls = _classes()["xorwow"]
    with pytest.raises(TypeError):
        cls(seed_getter=lambda n: ga.to_gpu(np.zeros(n, np.float32)))
    with pytest.raises(TypeError):
        cls(seed_getter=lambda n: ga.to_gpu(np.zeros(n + 1, np.int32)))
    with pytest.raises(ValueError):
        cls(offset=-1)
    g = cls(seed_getter=cur.seed_getter_uniform)
    h = cls(seed_getter=cur.seed_getter_unique)
    assert int(g.state) != int(h.state)
    assert g.state_type == "curandStateXORWOW"
    with pytest.raises(TypeError):
        _classes()["sobol32"](dir_vector=ga.to_gpu(np.zeros((3, 32), np.uint32)))
    with pytest.raises(TypeError):
        g.call_skip_ahead_array(ga.to_gpu(np.zeros(3, np.uint64)))


def test_direction_vectors_and_version(cur):
    v = cur.generate_direction_vectors(20003).get()
    assert v.shape == (20003, 32) and v.dtype == np.uint32
    assert (v[0] == 1 << (31 - np.arange(32, dtype=np.uint64))).all()
    np.testing.assert_array_equal(v[20000:], v[:3])
    v64 = cur.generate_direction_vectors(
        5, cur.direction_vector_set.SCRAMBLED_VECTOR_64).get()
    assert v64.shape == (5, 64) and v64.dtype == np.uint64
    c = cur.generate_scramble_constants32(7).get()
    assert c.dtype == np.uint32 and c.shape == (7,)
    assert cur.generate_scramble_constants64(7).get().dtype == np.uint64
    assert cur.get_curand_version() >= (3, 2, 0)


def test_pycuda_style_use_with_defaults(cur):
    """The calls a PyCUDA program makes, with the default seeds and
    direction vectors: every class, both float dtypes, the Box-Muller and
    one-at-a-time sizes, raw bits, both Poisson forms."""
    import gpuarr.gpuarray as ga
    if cur.get_curand_version() < (3, 2, 0):
        pytest.fail("cuRAND version %r" % (cur.get_curand_version(),))
    for kind, cls in _classes().items():
        g = cls()
        # unscrambled Sobol at offset 0: below state_count values, each is
        # its dimension's first point, 0 (so no statistics there)
        stats = kind not in ("sobol32", "sobol64")
        for dt in (np.float32, np.float64):
            for n in (10000, 10001):
                assert np.isfinite(g.gen_normal(n, dt).get()).all()
                x = g.gen_log_normal(n, dt, 1.0, 0.5).get()
                assert (x > 0).all() and x.dtype == dt
            u = g.gen_uniform(10000, dt).get()
            assert ((0 < u) & (u <= 1)).all()
        r = g.gen_uniform(10000, np.uint32).get()
        assert r.dtype == np.uint32 and (len(np.unique(r)) > 9000 or not stats)
        k = g.gen_poisson(10000, np.uint32, 13.0).get()
        assert k.dtype == np.uint32 and (abs(k.mean() - 13) < 0.5 or not stats)
        for dt in (np.float32, np.float64, np.uint32):
            a = ga.empty(100000, dt)
            a.fill(10)
            g.fill_poisson(a)
            h = a.get()
            assert (h == np.round(h)).all() and (h >= 0).all()
            assert abs(h.mean() - 10) < 0.5 or not stats


@pytest.mark.parametrize("kind", ["xorwow", "scrambled_sobol32", "sobol64"])
def test_calls_on_a_stream_with_temporaries(cur, kind):
    """A strided fill and a numpy skip array on a stream (each through a
    temporary from the pool, which the call waits for) give what the same
    calls give on the default stream, and an allocation right after them
    (which may reuse the temporary) does not disturb them."""
    import gpuarr.driver as drv
    import gpuarr.gpuarray as ga
    a = _make(cur, kind, 2)
    b = _make(cur, kind, 2)
    s = drv.Stream()
    S = a.state_count
    dt = np.uint64 if kind == "sobol64" or kind in PSEUDO else np.uint32
    skips = (np.arange(S) * 7 % 13).astype(dt)
    n = 3 * S + 5
    for _ in range(3):
        base = ga.to_gpu(np.full(2 * n, 0xDEADBEEF, np.uint32))
        a.fill_uniform(base[::2], stream=s)
        a.call_skip_ahead_array(skips, stream=s)
        junk = ga.to_gpu(np.full(4 * n, 0xABCDEF, np.uint32))   # reuse
        s.synchronize()
        ref = b.gen_uniform(n, np.uint32)
        b.call_skip_ahead_array(skips)
        h = base.get()
        np.testing.assert_array_equal(h[::2], ref.get())
        assert (h[1::2] == 0xDEADBEEF).all()
        del junk
    np.testing.assert_array_equal(a.gen_uniform(S, np.float32).get(),
                                  b.gen_uniform(S, np.float32).get())
