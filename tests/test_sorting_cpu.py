"""CPU tests of sorting and searching: every kernel of ``sort.cu.mako``
(and of ``unique_dense.cu.mako``) renders and compiles for every dtype and variant; the key made from each
dtype's bits (emulated here with numpy, as the template writes it) orders
as numpy's stable sort, and so does the whole LSD pass scheme (key digits,
skipped passes, row digits); numpy's argument errors are raised before
anything touches the driver (there is none here)."""

import numpy as np
import pytest

from _util import batch_sources, kernel_compiler

import gpuarr
from gpuarr import _dtypes
from gpuarr import _sortkernels as sk
from gpuarr import _sorting

DTYPES = list(_dtypes.SUPPORTED)

COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")


# ---------------------------------------------------------------------------
# rendering and compiling


def _all_specs(dt):
    specs = []
    for kv in (False, True):
        for wide in (False, True):
            specs.append(sk.radix_specs(dt, kv, wide)["onesweep"])
    # uint32 values between passes, widened to int64 by the last
    narrow = sk.radix_specs(dt, True, False, True)
    specs += [narrow["onesweep"], narrow["onesweep_last"]]
    specs += [sk.radix_specs(dt, False, False)["hist"], sk.block_spec(dt),
              sk.mask_spec(dt), sk.compact_spec(dt), sk.compact_spec(dt, True),
              sk.search_spec(dt)]
    specs += list(sk.run_specs(dt).values())
    if dt.kind in "biu":
        for wide in (False, True):
            specs += list(sk.dense_specs(dt, wide).values())
    if sk.warp_sort_ok(dt, 1):
        # capacities 32, 64, 512 and 1024: 1, 2, 16 and 32 words a lane
        specs += [sk.wsort_spec(dt, L) for L in (1, 33, 512, 1024)]
    return specs


@needs_compiler
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_every_sort_kernel_compiles(dt):
    specs = _all_specs(dt)
    if dt == DTYPES[0]:
        specs.append(sk.finish_spec())
    assert len({s.kkey for s in specs}) == len(specs)
    COMPILE(batch_sources(specs))


def test_sources_are_deterministic_and_keys_distinguish_variants():
    a = sk.radix_specs(np.dtype("f4"), True, False)["onesweep"]
    b = sk.radix_specs(np.dtype("f4"), True, False)["onesweep"]
    assert a.kkey == b.kkey and a.source() == b.source()
    c = sk.radix_specs(np.dtype("f4"), True, True)["onesweep"]
    assert c.kkey != a.kkey and "unsigned long long *status" not in a.source()
    assert "unsigned int *status" in a.source()
    assert "unsigned long long *status" in c.source()
    for dt in DTYPES:
        assert len(sk.radix_specs(dt, False, False)["onesweep"].chars) == 11
    # values: int64 throughout, or uint32 until the last pass
    wide = sk.radix_specs(np.dtype("f4"), True, False)
    assert wide["onesweep_last"] is wide["onesweep"]
    assert sk.radix_specs(np.dtype("f4"), False, False, True)["onesweep"] \
        .kkey == sk.radix_specs(np.dtype("f4"), False, False)["onesweep"].kkey
    narrow = sk.radix_specs(np.dtype("f4"), True, False, True)
    mid, last = narrow["onesweep"].source(), narrow["onesweep_last"].source()
    vin = "const unsigned int *__restrict__ vin, "
    assert vin + "unsigned int *__restrict__ vout" in mid
    assert vin + "long long *__restrict__ vout" in last
    # keys of 2 to 4 bytes alone: tiles of 6144; with values, 4096
    assert sk.status_bytes(6145, "f4") == 2 * 256 * 4
    assert sk.status_bytes(6144, "i2") == 256 * 4
    assert sk.status_bytes(4097, "f4", kv=True) == 2 * 256 * 4
    assert sk.status_bytes(2 ** 30, "u1", kv=True) == 2 ** 30 // 4096 * 256 * 8


def test_layout_parameters():
    assert sk.key_passes("?") == 1 and sk.key_passes("i2") == 2
    assert sk.key_passes("f8") == 8 and sk.key_passes("c8") == 9
    assert sk.key_passes("c16") == 17
    assert [sk.row_passes(r) for r in (1, 2, 256, 257, 2 ** 16 + 1)] == \
        [0, 1, 1, 2, 3]
    assert sk.tile("f4") == 6144 and sk.tile("f4", kv=True) == 4096
    assert sk.tile("u1") == 4096
    assert sk.tile("f8") == 4096 and sk.tile("c16") == 2048
    assert sk.blocks("f4") == 3 and sk.blocks("u1") == 3
    assert sk.blocks("u1", kv=True) == 2
    assert sk.blocks("f8") == 2
    assert sk.ntiles(6145, "f4") == 2 and sk.ntiles(0, "f4") == 0
    assert sk.key_size("f2") == 4 and sk.key_size("i8") == 8
    assert sk.key_size("c8") == 12 and sk.key_size("c16") == 24
    grid, block, shared, np2 = sk.block_launch(np.dtype("f4"), 10, 1000)
    # a thread a run of 8, a word skipped every 32
    assert grid == (10, 1, 1) and block == (128, 1, 1) and np2 == 1024
    assert shared == (1024 + 32) * 8
    grid, block, shared, np2 = sk.block_launch(np.dtype("c16"), 3, 5)
    assert block == (32, 1, 1) and np2 == 8 and shared == 8 * 28
    grid, block, shared, np2 = sk.block_launch(np.dtype("f8"), 1, 2048)
    assert block == (256, 1, 1) and np2 == 2048
    assert shared == (2048 + 64) * 12
    for dt in DTYPES:
        cap = sk.block_capacity(dt)
        assert sk.block_launch(dt, 1, cap)[2] <= 48 * 1024


@pytest.mark.parametrize("kv", [False, True])
@pytest.mark.parametrize("narrow", [False, True])
def test_radix_plan_chains_buffers(kv, narrow):
    for m in range(1, 12):
        plan = sk.radix_plan(m, kv, narrow)
        assert len(plan) == m
        kin, vin = "src", None
        for i, (kernel, ki, ko, vi, vo) in enumerate(plan):
            assert (ki, vi) == (kin, vin)       # reads the last pass's output
            assert ko != ki and (vo is None or vo != vi)
            assert kernel == ("onesweep_last" if i == m - 1 else "onesweep")
            assert (vo is not None) == kv
            if kv and narrow and i < m - 1:
                assert vo in ("vtmp0", "vtmp1")  # uint32 between passes
            kin, vin = ko, vo
        assert kin == "kfinal" and vin == ("vfinal" if kv else None)
        # keys alone wanted: a narrow sort's last pass writes no values,
        # the passes before it are unchanged; a wide one's alternate still
        bare = sk.radix_plan(m, kv, narrow, positions=False)
        assert bare[:-1] == plan[:-1]
        assert bare[-1][:4] == plan[-1][:4]
        assert bare[-1][4] == (None if narrow else plan[-1][4])
    h = np.zeros((3, 256), np.int64)
    h[0, 5] = h[1, 7] = h[2, 9] = 10          # every digit the same
    assert sk.radix_passes(h, 10, 2, 1) == []
    h[1, 8], h[1, 7], h[2, 1], h[2, 9] = 1, 9, 2, 8
    assert sk.radix_passes(h, 10, 2, 1) == [1, 2]


def test_warp_sort_parameters():
    # keys of at most 32 bits, rows of at most 1024
    for dt in DTYPES:
        tk, bits = sk.elem_kind(dt)
        assert sk.warp_sort_ok(dt, 1024) == (tk != "c" and bits <= 32)
        assert not sk.warp_sort_ok(dt, 1025)
    # a warp a row; blocks of 2048 // np2 warps (1 .. 8); the row's words
    # and raw elements in shared memory
    assert sk.wsort_launch(np.dtype("f4"), 65536, 1024) == \
        ((32768, 1, 1), (64, 1, 1), 2 * 1024 * 12, 1024)
    # keys of at most 16 bits: 4-byte words
    assert sk.wsort_launch(np.dtype("i1"), 5, 3) == \
        ((1, 1, 1), (256, 1, 1), 8 * 32 * 5, 32)
    assert sk.wsort_launch(np.dtype("f2"), 9, 513)[1:] == \
        ((64, 1, 1), 2 * 1024 * 6, 1024)
    assert sk.wsort_launch(np.dtype("f4"), 10 ** 6, 40, 100)[0] == (100, 1, 1)
    for L in (1, 31, 32, 33, 200, 1000, 1024):
        assert sk.wsort_launch(np.dtype("u4"), 7, L)[2] <= 48 * 1024
    a = sk.wsort_spec(np.dtype("f4"), 100)
    b = sk.wsort_spec(np.dtype("f4"), 128)
    assert a.kkey == b.kkey and a.source() == b.source()
    assert sk.wsort_spec(np.dtype("f4"), 129).kkey != a.kkey


@pytest.mark.parametrize("word", [4, 8])
@pytest.mark.parametrize("np2", [32, 64, 128, 256, 512, 1024])
def test_warp_sort_swizzle_is_a_bijection_without_bank_conflicts(np2, word):
    # the template's word address of element i, with the triple it is
    # rendered with.  4-byte words: a warp's 32 must lie in 32 distinct
    # banks; 8-byte words are served a half-warp at a time, whose 16 must
    # lie in 16 distinct pairs of banks
    wlog, shift, mask = sk.wsort_swizzle(np2, word)
    w = 2 ** wlog

    def swz(i):
        row = ((i >> wlog) >> shift) & mask
        return (i & ~(w - 1)) | ((i & (w - 1)) ^ row)
    assert sorted(swz(i) for i in range(np2)) == list(range(np2))
    r = np2 // 32
    lanes = np.arange(32)
    accesses = [lanes * r + e for e in range(r)]          # registers e
    accesses += [32 * m + lanes for m in range(r)]        # coalesced rows
    for elems in accesses:
        groups = [elems] if word == 4 else [elems[:16], elems[16:]]
        for g in groups:
            banks = [swz(int(i)) % w for i in g]
            assert len(set(banks)) == len(g), (np2, word, list(g))


# ---------------------------------------------------------------------------
# the key, emulated with numpy as the template computes it


def _fkey(u, bits):
    u = u.astype(np.uint64)
    sign = np.uint64(1 << (bits - 1))
    allk = np.uint64((1 << bits) - 1)
    inf = np.uint64({16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}[bits])
    mag = u & (sign - np.uint64(1))
    return np.where(mag > inf, allk, np.where(
        mag == 0, sign, np.where((u & sign) != 0, ~u & allk, u | sign)))


def _bits(x, nbytes):
    return x.view("u%d" % nbytes)


def host_key(x):
    """The key words of ``x``'s elements, most significant first (uint64
    columns): what ``ga_make_key`` computes."""
    dt = x.dtype
    bits = dt.itemsize * 8
    if dt.kind == "b":
        return [(x.view("u1") != 0).astype(np.uint64)]
    if dt.kind == "u":
        return [x.astype(np.uint64)]
    if dt.kind == "i":
        return [_bits(x, dt.itemsize).astype(np.uint64)
                ^ np.uint64(1 << (bits - 1))]
    if dt.kind == "f":
        return [_fkey(_bits(x, dt.itemsize), bits)]
    half = dt.itemsize // 2
    pair = x.view("u%d" % half).reshape(x.shape + (2,))
    re, im = pair[..., 0], pair[..., 1]
    nr, ni = np.isnan(x.real), np.isnan(x.imag)
    cls = (nr * 2 + ni).astype(np.uint64)
    kre, kim = _fkey(re, half * 8), _fkey(im, half * 8)
    zero = np.zeros_like(kre)
    prim = np.where(nr, np.where(ni, zero, kim), kre)
    sec = np.where(nr | ni, zero, kim)
    return [cls, prim, sec]


def host_digit(x, p, dt):
    """Digit ``p`` of the key (``ga_key_digit``)."""
    cols = host_key(x)
    if dt.kind == "c":
        w = dt.itemsize // 2
        cls, prim, sec = cols
        if p < w:
            word, s = sec, p
        elif p < 2 * w:
            word, s = prim, p - w
        else:
            return cls
        return (word >> np.uint64(8 * s)) & np.uint64(255)
    return (cols[0] >> np.uint64(8 * p)) & np.uint64(255)


def specials(dt, n, rng):
    """Random values of ``dt`` with duplicates, and for floats NaNs, infs,
    -0.0 and 0.0 (complex: in either part)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
        x[: n // 3] = rng.choice(np.array([0, 1, info.min, info.max], dt),
                                 n // 3)
        return x
    pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, -1.5,
                     1e-30, -2.0 ** -24], np.float64)

    def part():
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        k = rng.random(n) < 0.4
        v[k] = rng.choice(pool, k.sum())
        return v
    if dt.kind == "f":
        with np.errstate(over="ignore"):
            return part().astype(dt)
    z = np.empty(n, np.complex128)
    z.real, z.imag = part(), part()
    return z.astype(dt)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_the_key_orders_as_numpys_stable_sort(dt):
    rng = np.random.default_rng(7)
    x = specials(dt, 3000, rng)
    cols = host_key(x)
    order = np.lexsort(cols[::-1])
    np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))
    # the kernels' unique equality: equal keys (NaNs equal, complex: any
    # value with a NaN part)
    s = np.sort(x, kind="stable")
    ks = host_key(s)
    same = np.all([c[1:] == c[:-1] for c in ks], axis=0)
    if dt.kind == "c":
        anynan = np.isnan(s)
        same = np.where(anynan[1:] | anynan[:-1], anynan[1:] & anynan[:-1],
                        same)
    want = np.unique(x)
    assert int((~same).sum()) + 1 == want.size


def _emulated_radix(x, rows, L):
    """The pass scheme of ``_sorting``'s radix path on the host: the
    global histogram, skipped passes, key digits then row digits of the
    carried flat index, each pass a stable counting sort."""
    dt = x.dtype
    n = rows * L
    kp = sk.key_passes(dt)
    rp = sk.row_passes(rows) if rows > 1 else 0
    e = np.arange(n, dtype=np.uint64)

    def digit(p, keys, idx):
        if p < kp:
            return host_digit(keys, p, dt)
        return ((idx // np.uint64(L)) >> np.uint64(8 * (p - kp))) & np.uint64(255)
    hist = [np.bincount(digit(p, x, e).astype(np.int64), minlength=256)
            for p in range(kp + rp)]
    run = [p for p in range(kp) if hist[p].max() < n]
    if run:
        run += [kp + q for q in range(rp) if hist[kp + q].max() < n]
    keys, idx = x.copy(), e.copy()
    for p in run:
        d = digit(p, keys, idx)
        # the kernels' scatter: the digit's base + the tiles' counts before
        # + rank in the tile = a stable counting sort
        perm = np.argsort(d, kind="stable")
        keys, idx = keys[perm], idx[perm]
    return keys, (idx % np.uint64(L)).astype(np.int64), len(run)


@pytest.mark.parametrize("dt", ["?", "i1", "u2", "i4", "f2", "f4", "f8", "c8",
                                "c16", "u8"])
@pytest.mark.parametrize("rows,L", [(1, 5000), (3, 2100), (300, 7)])
def test_the_radix_pass_scheme_sorts_as_numpy(dt, rows, L):
    rng = np.random.default_rng(11)
    x = specials(dt, rows * L, rng)
    keys, pos, _ = _emulated_radix(x, rows, L)
    want = np.argsort(x.reshape(rows, L), axis=-1, kind="stable")
    np.testing.assert_array_equal(pos.reshape(rows, L), want)
    got = keys.reshape(rows, L)
    wk = np.take_along_axis(x.reshape(rows, L), want, axis=-1)
    assert got.tobytes() == wk.tobytes()


def test_constant_digits_are_skipped():
    x = np.arange(5000, dtype=np.int64)             # 2 of 8 digits vary
    keys, pos, m = _emulated_radix(x[::-1].copy(), 1, 5000)
    assert m == 2 and keys.tolist() == list(range(5000))
    keys, pos, m = _emulated_radix(np.full(6000, 3.5, np.float32), 2, 3000)
    assert m == 0 and pos.tolist() == list(range(3000)) * 2


# ---------------------------------------------------------------------------
# argument errors: raised before any driver call (no driver here)


def fake(shape, dtype="f4"):
    return gpuarr.GPUArray(shape, dtype, gpudata=1 << 20)


def _same_error(got_fn, np_fn):
    with pytest.raises(Exception) as want:
        np_fn()
    with pytest.raises(type(want.value)) as got:
        got_fn()
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("kw", [dict(kind="foo"), dict(kind=3),
                                dict(order="x"),
                                dict(kind="stable", stable=True),
                                dict(axis=2), dict(axis=-3)])
@pytest.mark.parametrize("fn", ["sort", "argsort"])
def test_sort_argument_errors_are_numpys(fn, kw):
    h = np.zeros((2, 3), np.float32)
    _same_error(lambda: getattr(_sorting, fn)(fake((2, 3)), **kw),
                lambda: getattr(np, fn)(h, **kw))


def test_sort_of_0d_and_method_errors():
    _same_error(lambda: _sorting.sort(fake(())), lambda: np.sort(np.float32(1)))
    _same_error(lambda: fake((3,)).sort(axis=None),
                lambda: np.zeros(3).sort(axis=None))
    _same_error(lambda: fake((3,)).sort(kind="x"),
                lambda: np.zeros(3).sort(kind="x"))
    _same_error(lambda: fake((3,)).argsort(axis=1),
                lambda: np.zeros(3).argsort(axis=1))


def test_searchsorted_argument_errors_are_numpys():
    h = np.zeros(4, np.float32)
    cases = [
        (dict(side="x"), {}),
        ({}, dict(a2d=True)),
        (dict(sorter=[0, 1]), {}),
        (dict(sorter=[0.0, 1.0, 2.0, 3.0]), {}),
        (dict(sorter=[[0, 1, 2, 3]]), {}),
    ]
    for kw, flags in cases:
        if flags.get("a2d"):
            _same_error(lambda: _sorting.searchsorted(fake((2, 2)), 1.0),
                        lambda: np.searchsorted(np.zeros((2, 2)), 1.0))
            continue
        _same_error(lambda: _sorting.searchsorted(fake((4,)), 1.0, **kw),
                    lambda: np.searchsorted(h, 1.0, **kw))


def test_unique_and_lexsort_argument_errors():
    with pytest.raises(NotImplementedError, match="axis"):
        _sorting.unique(fake((3, 2)), axis=0)
    _same_error(lambda: _sorting.lexsort([]), lambda: np.lexsort([]))
    _same_error(lambda: _sorting.lexsort([fake((3,)), fake((4,))]),
                lambda: np.lexsort([np.zeros(3), np.zeros(4)]))
    _same_error(lambda: _sorting.lexsort([fake((3,))], axis=1),
                lambda: np.lexsort([np.zeros(3)], axis=1))


def test_flat_namespace_and_methods():
    for name in ("sort", "argsort", "searchsorted", "unique", "lexsort"):
        assert getattr(gpuarr, name) is getattr(_sorting, name)
        assert name in gpuarr.__all__
    assert callable(gpuarr.GPUArray.sort) and callable(gpuarr.GPUArray.argsort)


def test_numpys_argument_errors_of_search_and_lexsort():
    # numpy's exception type and message, before any launch
    z = np.zeros(4)
    _same_error(lambda: gpuarr.searchsorted(fake(()), 1.0),
                lambda: np.searchsorted(np.zeros(()), 1.0))
    _same_error(lambda: gpuarr.searchsorted(fake((4,)), 1.0, side=None),
                lambda: np.searchsorted(z, 1.0, side=None))
    _same_error(lambda: gpuarr.searchsorted(fake((4,)), 1.0,
                                            sorter=np.ones(4, bool)),
                lambda: np.searchsorted(z, 1.0, sorter=np.ones(4, bool)))
    with pytest.raises(TypeError):
        gpuarr.lexsort([fake((4,))], axis=None)
    with pytest.raises(TypeError):
        np.lexsort([z], axis=None)


@pytest.mark.parametrize("kind", ["q", "S", "Quick", "merge", "h"])
def test_sort_kinds_by_first_letter_as_numpy(kind):
    np.sort(np.zeros(3), kind=kind)             # numpy accepts it
    _sorting._check_kind(kind, None, None)      # and so does gpuarr
