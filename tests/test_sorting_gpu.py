"""GPU checks of sorting and searching against numpy's ``kind='stable'``:
sort, argsort (functions and methods), searchsorted, unique, lexsort.

Fresh random inputs with duplicates, NaNs (both signs), infs, -0.0 and
0.0, every dtype; sizes 0, 1, odd, around the one-block limit and the radix
tile, and one of 2**22; every axis; strided and reversed inputs; the pool
poisoned first so an unwritten output element shows.  Values move as bits,
so sorted results must match numpy byte for byte (stable order keeps -0.0
and 0.0, and NaN payloads, where numpy puts them).
"""
import numpy as np
import pytest

import gpuarr
import gpuarr.driver as drv
from gpuarr import _sortkernels as sk

from test_joining_gpu import same

pytestmark = pytest.mark.gpu

ALL = [np.dtype(t) for t in ("?", "i1", "i2", "i4", "i8", "u1", "u2", "u4",
                             "u8", "f2", "f4", "f8", "c8", "c16")]
# one-block path: <= 2048 (complex 1024); radix tile: 4096 (16-byte: 2048)
SIZES = [0, 1, 2, 7, 1000, 2048, 2049, 4096 * 2 + 3]


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng()


def values(dt, shape):
    """Random values of ``dt`` with many duplicates and, for floats,
    NaNs of both signs, infs, -0.0 and 0.0 (complex: in either part)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return _rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = _rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
        k = _rng.random(n) < 0.5
        x[k] = _rng.integers(max(info.min, -5), 6, int(k.sum())).astype(dt)
        return x.reshape(shape)
    pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0])

    def part():
        v = np.round(_rng.standard_normal(n) * 8, 1)
        k = _rng.random(n) < 0.3
        v[k] = _rng.choice(pool, int(k.sum()))
        return v
    if dt.kind == "f":
        return part().astype(dt).reshape(shape)
    z = np.empty(n, np.complex128)
    z.real, z.imag = part(), part()
    return z.astype(dt).reshape(shape)


def poison(*nbytes):
    """Fill pool blocks of these sizes with 0x5A and give them back, so the
    next allocations of those sizes start as garbage."""
    held = []
    for nb in nbytes:
        if nb:
            b = gpuarr.empty((nb,), np.uint8)
            drv.memset_d8(b.ptr, 0x5A, nb)
            held.append(b)
    del held


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_sort_and_argsort_flat_every_dtype_and_size(dt):
    for n in SIZES:
        h = values(dt, (n,))
        poison(n * dt.itemsize, n * 8)
        a = gpuarr.to_gpu(h)
        same(gpuarr.sort(a), np.sort(h, kind="stable"))
        same(gpuarr.argsort(a), np.argsort(h, kind="stable"))
        same(gpuarr.sort(a, axis=None), np.sort(h, axis=None, kind="stable"))
    assert a.get().tobytes() == h.tobytes()             # input untouched


@pytest.mark.parametrize("dt", ["f4", "i2", "c16", "?"])
def test_every_axis_and_layout(dt):
    for shape in [(3, 4, 5), (5, 3000), (2100, 3), (1, 0, 3)]:
        h = values(dt, shape)
        for ax in list(range(-len(shape), len(shape))) + [None]:
            for a, hh in [(gpuarr.to_gpu(h), h),
                          (gpuarr.to_gpu(h)[..., ::-1], h[..., ::-1]),
                          (gpuarr.to_gpu(np.ascontiguousarray(h.T)).T, h)]:
                same(gpuarr.sort(a, axis=ax), np.sort(hh, axis=ax,
                                                      kind="stable"))
                same(gpuarr.argsort(a, axis=ax),
                     np.argsort(hh, axis=ax, kind="stable"))


def test_many_short_and_long_rows():
    # one block a row (rows of 1 .. 2048), and rows past it: (row, key)
    for shape in [(4000, 1), (3000, 2), (700, 33), (64, 2048), (3, 70000),
                  (300, 2049), (500, 1024), (90, 31), (70, 257)]:
        h = values("f4", shape)
        a = gpuarr.to_gpu(h)
        same(gpuarr.sort(a), np.sort(h, kind="stable"))
        same(gpuarr.argsort(a), np.argsort(h, kind="stable"))


@pytest.mark.parametrize("rank", ["ballot", "match", "early", "early_half",
                                  "early_match"])
def test_radix_sort_under_each_ranking(rank, monkeypatch):
    # the onesweep pass's five rankings (_sortkernels.RANK), each with
    # keys alone and values carried: many tiles, a partial last tile, row
    # digits, 1- to 16-byte keys, and early counts at three blocks an SM
    monkeypatch.setattr(sk, "RANK", rank)
    if rank.startswith("early"):
        items0 = sk.items
        monkeypatch.setattr(sk, "blocks", lambda dt, kv=False: 3)
        monkeypatch.setattr(sk, "items", lambda dt, kv=False: (
            18 if np.dtype(dt).itemsize <= 4 and not kv else items0(dt, kv)))
    for dt, shape in [("f4", (3 * 7168 + 5,)), ("f4", (70001,)),
                      ("u1", (50003,)), ("f2", (40000,)), ("i8", (30011,)),
                      ("c8", (20000,)), ("c16", (9001,)), ("f4", (3, 9000))]:
        h = values(dt, shape)
        poison(h.nbytes, h.size * 8)
        a = gpuarr.to_gpu(h)
        same(gpuarr.sort(a), np.sort(h, kind="stable"))
        same(gpuarr.argsort(a), np.argsort(h, kind="stable"))


@pytest.mark.parametrize("kernel", ["warp", "block"])
@pytest.mark.parametrize("dt", ["?", "i1", "u2", "f2", "i4", "f4"])
def test_rows_at_each_warp_sort_capacity(dt, kernel, monkeypatch):
    """Rows of 1 to 1024 elements of keys of at most 32 bits: the warp sort
    at each capacity (32 to 1024 elements: 1 to 32 words a lane; one case
    with more rows than blocks, so warps stride over rows) and the block
    sort it took over from (which sorts the rows of 8-byte and complex
    keys and of 1025 to 2048 elements)."""
    monkeypatch.setattr(sk, "ROW_SORT", kernel)
    for L in (1, 31, 33, 100, 200, 300, 513, 1024):
        assert sk.warp_sort_ok(np.dtype(dt), L) == (kernel == "warp")
        rows = 30000 if L == 33 else max(3, 4000 // L)
        h = values(dt, (rows, L))
        poison(h.nbytes, h.size * 8)
        a = gpuarr.to_gpu(h)
        same(gpuarr.sort(a), np.sort(h, kind="stable"))
        same(gpuarr.argsort(a), np.argsort(h, kind="stable"))
        same(gpuarr.sort(a[::-2, ::-1]), np.sort(h[::-2, ::-1], kind="stable"))


def test_kind_and_0d():
    h = values("f8", (50,))
    a = gpuarr.to_gpu(h)
    for kind in ("quicksort", "mergesort", "heapsort", "stable"):
        same(gpuarr.sort(a, kind=kind), np.sort(h, kind="stable"))
    same(gpuarr.sort(a, stable=False), np.sort(h, kind="stable"))
    z = gpuarr.to_gpu(np.array(3.5))
    same(gpuarr.argsort(z), np.argsort(np.array(3.5)))
    same(gpuarr.sort(z, axis=None), np.sort(np.array(3.5), axis=None))


def test_methods_sort_in_place_and_argsort():
    h = values("i4", (6, 3001))
    base = gpuarr.to_gpu(h)
    view = base[::2, ::-1]
    assert view.sort() is None
    want = h.copy()
    sub = want[::2, ::-1]
    sub.sort(kind="stable")
    same(base, want)
    a = gpuarr.to_gpu(h)
    a.sort(axis=0)
    same(a, np.sort(h, axis=0, kind="stable"))
    same(gpuarr.to_gpu(h).argsort(axis=0), h.argsort(axis=0, kind="stable"))


def test_large_arrays_and_skipped_passes():
    n = 2 ** 22 + 17
    h = values("f4", (n,))
    a = gpuarr.to_gpu(h)
    same(gpuarr.sort(a), np.sort(h, kind="stable"))
    same(gpuarr.argsort(a), np.argsort(h, kind="stable"))
    # int64 in a small range: most digits constant (their passes skipped)
    k = _rng.integers(-300, 300, 3 * 10 ** 5).astype(np.int64)
    same(gpuarr.argsort(gpuarr.to_gpu(k)), np.argsort(k, kind="stable"))
    c = np.full(10000, 2.5)
    same(gpuarr.argsort(gpuarr.to_gpu(c)), np.argsort(c, kind="stable"))
    same(gpuarr.sort(gpuarr.to_gpu(c)), c)


@pytest.mark.parametrize("dt", ["f4", "i8", "c8", "u1", "f2"])
def test_searchsorted(dt):
    for n in (0, 1, 9, 5000):
        h = np.sort(values(dt, (n,)), kind="stable")
        v = values(dt, (3, 7))
        a = gpuarr.to_gpu(h)
        for side in ("left", "right"):
            same(gpuarr.searchsorted(a, gpuarr.to_gpu(v), side=side),
                 np.searchsorted(h, v, side=side))
            same(gpuarr.searchsorted(a, v, side=side),
                 np.searchsorted(h, v, side=side))
        u = values(dt, (n,))
        srt = np.argsort(u, kind="stable")
        for s in (srt, gpuarr.to_gpu(srt.astype(np.int32))):
            same(gpuarr.searchsorted(gpuarr.to_gpu(u), v, side="right",
                                     sorter=s),
                 np.searchsorted(u, v, side="right", sorter=srt))
    # mixed dtypes: compared in result_type
    h = np.arange(10, dtype=np.int8)
    same(gpuarr.searchsorted(gpuarr.to_gpu(h), np.array([2.5, 300.0])),
         np.searchsorted(h, np.array([2.5, 300.0])))
    r = gpuarr.searchsorted(gpuarr.to_gpu(h), 4)
    assert r.shape == () and int(r.get()) == np.searchsorted(h, 4)
    with pytest.raises(ValueError, match="Sorter index out of range"):
        gpuarr.searchsorted(gpuarr.to_gpu(h), 1, sorter=np.arange(1, 11))


def _check_unique(h, **kw):
    a = gpuarr.to_gpu(h)
    got = gpuarr.unique(a, return_index=True, return_inverse=True,
                        return_counts=True, **kw)
    want = np.unique(h, return_index=True, return_inverse=True,
                     return_counts=True, **kw)
    for g, w in zip(got, want):
        same(g, w)
    plain = gpuarr.unique(a, **kw)
    w = np.unique(h, **kw)
    assert plain.shape == w.shape
    # without return_index numpy may keep either of -0.0 and 0.0
    np.testing.assert_array_equal(plain.get(), w)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_unique_every_dtype(dt):
    for shape in [(0,), (1,), (5, 7), (6001,)]:
        _check_unique(values(dt, shape))
    if dt.kind in "fc":
        _check_unique(values(dt, (3000,)), equal_nan=False)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_unique_values_alone_by_the_run_kernels(dt, monkeypatch):
    # values alone (no index, inverse or counts): the two run passes over
    # the sorted values; sizes around the run tile, each value the first
    # of its run in stable order (-0.0 or 0.0 as it came first)
    from gpuarr import _sorting
    calls = []
    real = _sorting._unique_runs

    def spy(*args):
        calls.append(args[1])
        return real(*args)
    monkeypatch.setattr(_sorting, "_unique_runs", spy)
    tile = sk.BLOCK * sk.run_items(dt)
    for n in (1, tile - 1, tile, 3 * tile + 5):
        h = values(dt, (n,))
        s = np.sort(h, kind="stable")
        if dt.kind == "c":
            nan = np.isnan(s.real) | np.isnan(s.imag)
        elif dt.kind == "f":
            nan = np.isnan(s)
        else:
            nan = np.zeros(n, bool)
        for equal_nan in (True, False):
            same_ = (s[1:] == s[:-1]) & ~nan[1:] & ~nan[:-1]
            if equal_nan:
                same_ |= nan[1:] & nan[:-1]
            want = s[np.r_[True, ~same_]]
            poison(n * dt.itemsize, want.nbytes)
            got = gpuarr.unique(gpuarr.to_gpu(h)[::-1][::-1],
                                equal_nan=equal_nan)
            assert got.dtype == dt and got.get().tobytes() == want.tobytes()
            np.testing.assert_array_equal(
                got.get(), np.unique(h, equal_nan=equal_nan))
    assert calls and set(calls) <= {1, tile - 1, tile, 3 * tile + 5}


def _dense_values(dt, n, where):
    """``n`` values of integer or bool ``dt`` spanning about 1.5 n values
    at the low or high end of its range or around 0 (or all of it)."""
    if dt.kind == "b":
        return _rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(dt)
    span = min(int(info.max) - int(info.min), 3 * n // 2)
    lo = {"low": int(info.min), "high": int(info.max) - span,
          "mid": -(span // 2) if dt.kind == "i" else span}[where]
    lo = max(int(info.min), min(lo, int(info.max) - span))
    v = np.array([lo + int(x) for x in _rng.integers(0, span + 1, n)],
                 dtype=object)
    v[:2] = lo, lo + span
    return v.astype(dt)


@pytest.mark.parametrize("dt", [d for d in ALL if d.kind in "biu"], ids=str)
def test_unique_dense_path(dt, monkeypatch):
    # n past DENSE_MIN: unique by a bitmap of the range, every return
    # but return_index (which sorts); reversed and 2-d inputs
    from gpuarr import _sorting
    taken = []
    real = _sorting._unique_dense

    def spy(*args):
        r = real(*args)
        taken.append(r is not None)
        return r
    monkeypatch.setattr(_sorting, "_unique_dense", spy)
    n = sk.DENSE_MIN + 4099
    for where in ("low", "high", "mid"):
        h = _dense_values(dt, n, where)
        poison(n * 8, n * dt.itemsize, (n // 16) * 4 + 64)
        for a, host in ((gpuarr.to_gpu(h), h),
                        (gpuarr.to_gpu(h)[::-1], h[::-1]),
                        (gpuarr.to_gpu(h[:n - 3]).reshape(-1, 3),
                         h[:n - 3].reshape(-1, 3))):
            for inv in (False, True):
                for cnt in (False, True):
                    got = gpuarr.unique(a, return_inverse=inv,
                                        return_counts=cnt)
                    want = np.unique(host, return_inverse=inv,
                                     return_counts=cnt)
                    got = got if isinstance(got, tuple) else (got,)
                    want = want if isinstance(want, tuple) else (want,)
                    assert len(got) == len(want)
                    for g, w in zip(got, want):
                        same(g, w)
    assert taken and all(taken)
    taken.clear()
    if dt.itemsize > 2:
        # a range wider than DENSE_SPAN * n (no 16-bit range is): back to
        # the sort
        h = _dense_values(dt, n, "low")
        h[5] = np.iinfo(dt).max
        same(gpuarr.unique(gpuarr.to_gpu(h)), np.unique(h))
        assert taken == [False]


def test_lexsort():
    for n in (0, 1, 10, 3000):
        k1 = _rng.integers(0, 4, n).astype(np.int16)
        k2 = values("f4", (n,))
        k3 = _rng.integers(0, 3, n).astype(bool)
        want = np.lexsort((k1, k2, k3))
        same(gpuarr.lexsort([gpuarr.to_gpu(k) for k in (k1, k2, k3)]), want)
        same(gpuarr.lexsort((k1, k2)), np.lexsort((k1, k2)))
    h = _rng.integers(0, 3, (2, 4, 2500)).astype(np.int32)
    for ax in (-1, 0, 1):
        same(gpuarr.lexsort(gpuarr.to_gpu(h), axis=ax), np.lexsort(h, axis=ax))


def test_hypothesis_properties():
    hyp = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    hnp = pytest.importorskip("hypothesis.extra.numpy")

    @hyp.settings(max_examples=25, deadline=None)
    @hyp.given(hnp.arrays(st.sampled_from([np.float32, np.int16, np.float64]),
                          st.integers(0, 3000)),
               st.sampled_from(["left", "right"]))
    def prop(h, side):
        a = gpuarr.to_gpu(h)
        same(gpuarr.sort(a), np.sort(h, kind="stable"))
        same(gpuarr.argsort(a), np.argsort(h, kind="stable"))
        s = np.sort(h, kind="stable")
        same(gpuarr.searchsorted(gpuarr.to_gpu(s), a, side=side),
             np.searchsorted(s, h, side=side))
        u, c = gpuarr.unique(a, return_counts=True)
        wu, wc = np.unique(h, return_counts=True)
        np.testing.assert_array_equal(u.get(), wu)
        same(c, wc)
    prop()


@pytest.mark.huge
def test_sort_past_2_32_elements():
    # 64-bit positions (n > 2**32 - 1) and more than 2**31 elements
    n = 2 ** 32 + 4099
    a = gpuarr.empty((n,), np.uint8)
    drv.memset_d8(a.ptr, 7, n)
    marks = np.array([250, 3, 250, 0], np.uint8)
    at = [0, 5, n - 2, n - 1]
    for p, m in zip(at, marks):
        drv.memcpy_htod(a.ptr + p, m.reshape(1))
    s = gpuarr.sort(a)
    host = np.empty(4, np.uint8)
    for k, p in enumerate([0, 1, 2, n - 3]):
        drv.memcpy_dtoh(host[k:k + 1], s.ptr + p)
    assert host.tolist() == [0, 3, 7, 7]
    tail = np.empty(2, np.uint8)
    drv.memcpy_dtoh(tail, s.ptr + n - 2)
    assert tail.tolist() == [250, 250]
