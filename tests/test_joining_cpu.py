"""CPU tests of joining and gathering: the kernels render and compile for
every dtype pair / item size / index dtype / mode, the joining table is
right, and the array layer's logic (views, tables, launches, numpy's
errors) runs against the fake libcuda with the kernels emulated on the
host."""

import numpy as np
import pytest

from _util import FakeArray, batch_sources, kernel_compiler

from gpuarr import _dtypes
from gpuarr import _joinkernels as jk

DTYPES = _dtypes.SUPPORTED
INDEX_DTYPES = [np.dtype(t) for t in ("?", "i1", "u1", "i2", "u2", "i4", "u4",
                                      "i8", "u8")]

COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")


_batch = batch_sources


def _join_spec(out_dt, src_dts, shape=(3, 5), strides=None):
    out_dt = np.dtype(out_dt)
    pairs = []
    for k, dt in enumerate(src_dts):
        dt = np.dtype(dt)
        st = strides(dt) if strides else None
        pairs.append((FakeArray(out_dt, shape, ptr=(1 << 30) + k * 4096),
                      FakeArray(dt, shape, st, ptr=(1 << 20) + k * 4096)))
    return jk.copy_spec(out_dt, pairs)


# ---------------------------------------------------------------------------
# rendering and compiling


@needs_compiler
@pytest.mark.parametrize("out_dt", DTYPES, ids=str)
def test_join_kernel_compiles_for_every_source_dtype(out_dt):
    """One kernel per output dtype holding a case for every source dtype:
    every (source, output) pair compiles; and 1-4 merged dimensions, both
    index widths."""
    specs = [_join_spec(out_dt, DTYPES)[0]]
    specs.append(_join_spec(out_dt, ["f4", "i8"], (3, 4, 5, 6),
                            lambda dt: (-dt.itemsize * 7 * 6 * 5,
                                        dt.itemsize * 6 * 5 * 2,
                                        dt.itemsize * 6 * 3,
                                        dt.itemsize * 2))[0])
    wide = _join_spec(out_dt, ["u1"], (3, 2 ** 31 // 2 + 7),
                      lambda dt: (dt.itemsize * 2 ** 31, dt.itemsize))[0]
    assert wide.render_kw["itype"] == "long long"
    specs.append(wide)
    assert [s.render_kw["ndim"] for s in specs] == [1, 4, 2]
    COMPILE(_batch(specs))


@needs_compiler
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", ["take", "put"])
def test_take_put_kernels_compile(kind, stream, monkeypatch):
    monkeypatch.setattr(jk, "TAKE_STREAM", stream)
    # each index dtype, item size and mode at least once (the three are
    # independent parts of the source)
    combos = {(isz, idt, mode)
              for k, idt in enumerate(INDEX_DTYPES)
              for isz, mode in [((1, 2, 4, 8, 16)[k % 5],
                                 ("raise", "wrap", "clip")[k % 3])]}
    combos |= {(isz, np.dtype("i8"), mode) for isz in (1, 2, 4, 8, 16)
               for mode in ("raise", "wrap", "clip")}
    specs = [jk.take_spec(kind, isz, idt, mode, single)
             for isz, idt, mode in sorted(combos, key=str)
             for single in (False, True)]
    COMPILE(_batch(specs))


def test_sources_are_deterministic():
    a = _join_spec("f8", ["i4", "f2", "c8"])[0]
    b = _join_spec("f8", ["c8", "i4", "f2"])[0]
    assert a.kkey == b.kkey and a.source() == b.source()
    assert jk.take_spec("take", 4, "i8").source() == \
        jk.take_spec("take", 4, "i8").source()


def test_take_specs_are_kept_per_arguments_and_settings(monkeypatch):
    a = jk.take_spec("take", 4, np.dtype("i8"), "wrap", True)
    assert jk.take_spec("take", 4, np.dtype("i8"), "wrap", True) is a
    assert jk.take_spec("take", 4, np.dtype("i8"), "wrap", False) is not a
    monkeypatch.setattr(jk, "TAKE_STREAM", not jk.TAKE_STREAM)
    b = jk.take_spec("take", 4, np.dtype("i8"), "wrap", True)
    assert b is not a and b.kkey != a.kkey
    assert b.render_kw["stream"] == jk.TAKE_STREAM
    # bad arguments raise every time (nothing kept for them)
    for _ in range(2):
        with pytest.raises(ValueError):
            jk.take_spec("take", 3, np.dtype("i8"))


def test_recent_joins_are_kept_per_setting(monkeypatch):
    monkeypatch.setattr(jk, "_RECENT_JOINS", {})
    args = (1 << 20, 3, 64, [1 << 24, 1 << 25])
    a = jk.alike_join_spec(*args)
    assert jk.alike_join_spec(*args) is a
    for name, value in (("UNROLL", 8), ("BLOCKS_PER_SM", 4)):
        with monkeypatch.context() as m:
            m.setattr(jk, name, value)
            b = jk.alike_join_spec(*args)
            assert b is not a and b[0].kkey != a[0].kkey, name
    assert jk.alike_join_spec(*args) is a


# ---------------------------------------------------------------------------
# the joining table


def test_table_rows_merge_pad_and_skip_empty():
    out = np.dtype("f4")
    pairs = [
        # cast, contiguous (3, 5) into a (3, 5) part of a (3, 9) output
        (FakeArray(out, (3, 5), (36, 4), ptr=1000),
         FakeArray("i2", (3, 5), ptr=5000)),
        # empty: left out
        (FakeArray(out, (3, 0), (36, 4), ptr=1020),
         FakeArray("f8", (3, 0), ptr=0)),
        # cast, contiguous into contiguous: one merged dim; reversed rows
        (FakeArray(out, (4, 5), (20, 4), ptr=2000),
         FakeArray("u1", (4, 5), (-5, 1), ptr=9000)),
        # cast, 0-d like (all length 1)
        (FakeArray(out, (1, 1), (36, 4), ptr=3000),
         FakeArray("c8", (1, 1), ptr=7000)),
        # raw: 16-byte aligned, contiguous into a part of rows of 36 bytes
        # (not a multiple of 16 or 8): 4-byte units
        (FakeArray(out, (3, 4), (36, 4), ptr=4096),
         FakeArray(out, (3, 4), ptr=8192)),
        # raw: contiguous into contiguous, 16-byte aligned: 16-byte units
        (FakeArray(out, (4, 8), ptr=1 << 20),
         FakeArray(out, (4, 8), ptr=1 << 21)),
        # raw: 8-byte aligned only: 8-byte units
        (FakeArray(out, (6,), ptr=(1 << 22) + 8),
         FakeArray(out, (6,), ptr=1 << 23)),
    ]
    spec, tab = jk.copy_spec(out, pairs)
    nd = spec.render_kw["ndim"]
    assert nd == 2 and tab.shape == (6, 5 + 3 * nd)
    src_dts = spec.render_kw["src_dts"]
    assert set(src_dts) == {np.dtype("i2"), np.dtype("u1"), np.dtype("c8")}
    assert list(tab[:, 0]) == [5000, 9000, 7000, 8192, 1 << 21, 1 << 23]
    assert list(tab[:, 1]) == [1000, 2000, 3000, 4096, 1 << 20, (1 << 22) + 8]
    assert list(tab[:, 2]) == [15, 20, 1, 12, 8, 3]
    assert list(tab[:, 3]) == [0, 1, 2, 3, 4, 5]
    assert [src_dts[c] for c in tab[:3, 4]] == [np.dtype(t) for t in ("i2", "u1", "c8")]
    assert list(tab[3:, 4]) == [-4, -16, -8]
    assert list(tab[0, 5:]) == [3, 5, 5, 1, 9, 1]
    assert list(tab[1, 5:]) == [4, 5, -5, 1, 5, 1]
    assert list(tab[2, 5:]) == [1, 1, 0, 0, 0, 0]
    assert list(tab[3, 5:]) == [3, 4, 4, 1, 9, 1]
    assert list(tab[4, 5:]) == [1, 8, 0, 1, 0, 1]
    assert list(tab[5, 5:]) == [1, 3, 0, 1, 0, 1]
    assert spec.grid == (6, 1, 1) and spec.tail == (6, 6)
    assert spec.render_kw["itype"] == "int"
    # chunks: one row of 3 * chunk + 1 elements takes 4
    chunk = jk.BLOCK * jk.UNROLL
    big = [(FakeArray(out, (3 * chunk + 1,)), FakeArray("f2", (3 * chunk + 1,)))] * 2
    spec, tab = jk.copy_spec(out, big)
    assert list(tab[:, 3]) == [0, 4] and spec.tail == (2, 8)
    assert jk.copy_spec(out, [pairs[1]]) is None


@pytest.mark.parametrize("isz", [1, 2, 4, 8, 16])
def test_raw_rows_take_the_widest_unit_the_layout_allows(isz):
    dt = {1: "u1", 2: "f2", 4: "f4", 8: "f8", 16: "c16"}[isz]
    # contiguous, 1024 elements: the pointers' alignment decides
    for align in (16, 8, 4, 2, 1):
        if align < min(isz, 8):
            continue
        spec, tab = jk.copy_spec(np.dtype(dt), [
            (FakeArray(dt, (1024,), ptr=(1 << 20) + align),
             FakeArray(dt, (1024,), ptr=1 << 21))])
        w = -int(tab[0, 4])
        assert w == min(align, 16) and tab[0, 2] * w == 1024 * isz
        assert list(tab[0, 5:]) == [1024 * isz // w, 1, 1]
    # a reversed source: the element's bytes are the only contiguous run
    spec, tab = jk.copy_spec(np.dtype(dt), [
        (FakeArray(dt, (5,), ptr=1 << 20),
         FakeArray(dt, (5,), (-isz,), ptr=1 << 21))])
    w = -int(tab[0, 4])
    assert w == min(isz, 16) and tab[0, 2] == 5 * isz // w
    k = isz // w
    assert list(tab[0, 5:]) == ([5, k, -k, 1, k, 1] if k > 1 else [5, -1, 1])


@pytest.mark.parametrize("shape,ax", [((64,), 0), ((3, 40), 1), ((5, 7, 2), 1),
                                      ((2, 3, 4), 2), ((4, 6), 0), ((9, 4), 1)])
@pytest.mark.parametrize("dt", ["u1", "f2", "f4", "c16"])
def test_contiguous_join_table_is_copy_specs(shape, ax, dt):
    # the vectorized build gives copy_spec's table and kernel, every unit
    # width (addresses at several alignments), one-unit parts included
    dt = np.dtype(dt)
    rng = np.random.default_rng(3)
    lens = [int(x) for x in rng.integers(1, 6, 9)] + [1, 1]
    total = sum(lens)
    oshape = list(shape)
    oshape[ax] = total
    outer = int(np.prod(oshape[:ax]))
    inner = int(np.prod(oshape[ax + 1:])) * dt.itemsize
    for base in (1 << 20, (1 << 20) + 8, (1 << 20) + dt.itemsize):
        out = FakeArray(dt, tuple(oshape), ptr=base)
        pairs, parts, off = [], [], 0
        for k, m in enumerate(lens):
            pshape = list(shape)
            pshape[ax] = m
            src = FakeArray(dt, tuple(pshape), ptr=(1 << 30) + k * 4096 + (k % 3) * dt.itemsize)
            ostr = out.strides
            pairs.append((FakeArray(dt, tuple(pshape), ostr, ptr=base + off * inner), src))
            parts.append((src.ptr, off * inner, m * inner))
            off += m
        want_spec, want = jk.copy_spec(dt, pairs)
        spec, table = jk.contiguous_join_spec(dt, base, outer, total * inner, parts)
        assert table.tolist() == want.tolist(), (base, table, want)
        flat = [v for p in parts for v in p]        # the same, flattened
        assert jk.contiguous_join_spec(dt, base, outer, total * inner,
                                       flat)[1].tolist() == want.tolist()
        assert spec.kkey == want_spec.kkey and spec.tail == want_spec.tail
        assert spec.render_kw == want_spec.render_kw


def test_contiguous_join_keeps_its_last_tables():
    dt = np.dtype("f4")
    parts = [1 << 30, 0, 64]
    first = jk.contiguous_join_spec(dt, 1 << 20, 1, 64, parts)
    assert jk.contiguous_join_spec(dt, 1 << 20, 1, 64, list(parts)) is first
    for k in range(2 * jk._RECENT_MAX):        # other outputs push it out
        jk.contiguous_join_spec(dt, (1 << 20) + 16 * (k + 1), 1, 64, parts)
    assert len(jk._RECENT_JOINS) <= jk._RECENT_MAX
    again = jk.contiguous_join_spec(dt, 1 << 20, 1, 64, parts)
    assert again is not first and again[1].tolist() == first[1].tolist()


def test_gather_groups_keep_each_launch_in_half_the_l2(monkeypatch):
    class St:
        l2 = 60 << 20
    monkeypatch.setattr(jk, "_state", lambda: St)
    mib = 1 << 20
    assert jk.gather_groups([]) == []
    assert jk.gather_groups([100] * 37) == [(0, 16), (16, 32), (32, 37)]
    assert jk.gather_groups([16 * mib] * 3) == [(0, 1), (1, 2), (2, 3)]
    assert jk.gather_groups([100 * mib, 1, 1]) == [(0, 1), (1, 3)]
    assert jk.gather_groups([10 * mib, 10 * mib, 10 * mib, 1]) == [(0, 3), (3, 4)]


def test_table_errors():
    out = np.dtype("f4")
    with pytest.raises(ValueError):
        jk.copy_spec(out, [(FakeArray(out, (3,)), FakeArray("f4", (4,)))])
    with pytest.raises(ValueError):
        jk.copy_spec(out, [(FakeArray("f8", (3,)), FakeArray("f4", (3,)))])
    with pytest.raises(ValueError):
        jk.copy_spec(out, [(FakeArray(out, (3,)), FakeArray("f4", (3,), (6,)))])
    with pytest.raises(TypeError):
        jk.copy_spec(np.dtype("V8"), [])
    with pytest.raises(ValueError):
        jk.take_spec("gather", 4, "i8")
    with pytest.raises(ValueError):
        jk.take_spec("take", 3, "i8")
    with pytest.raises(ValueError, match="clipmode"):
        jk.take_spec("take", 4, "i8", "nearest")
    with pytest.raises(TypeError):
        jk.take_spec("take", 4, "f8")


# ---------------------------------------------------------------------------
# the array layer against the fake libcuda, kernels emulated on the host

# The emulators read their launch arguments as the kernels do and move the
# bytes in the fake's host-side "device" memory with the driver's copies,
# so the views, tables, pointers, sizes and flags the array layer passes
# are what is checked (the kernels themselves: tests/test_joining_gpu.py).
EMULATE = """
import warnings
from gpuarr import _joinkernels as jk, _joining as J

def _read(ptr, offs, dt):
    lo, hi = int(offs.min()), int(offs.max())
    buf = np.empty(hi - lo + 1, dt)
    drv.memcpy_dtoh(buf, int(ptr) + lo * dt.itemsize)
    return buf[offs - lo]

def _write(ptr, offs, vals):
    dt = vals.dtype
    lo, hi = int(offs.min()), int(offs.max())
    buf = np.empty(hi - lo + 1, dt)
    drv.memcpy_dtoh(buf, int(ptr) + lo * dt.itemsize)
    buf[offs - lo] = vals
    drv.memcpy_htod(int(ptr) + lo * dt.itemsize, buf)

LAUNCHES = []

class JoinEmu:
    def __init__(self, spec):
        self.kw = spec.render_kw
    def prepared_async_call(self, grid, block, stream, tab_ptr, nrows, nchunks):
        LAUNCHES.append(("join", nrows))
        nd = self.kw["ndim"]
        w = 5 + 3 * nd
        tab = np.empty(nrows * w, np.int64)
        drv.memcpy_dtoh(tab, tab_ptr)
        tab = tab.reshape(nrows, w)
        chunk = jk.BLOCK * jk.UNROLL
        assert list(tab[:, 3]) == list(np.cumsum([0] + [-(-n // chunk) for n in tab[:-1, 2]]))
        assert nchunks == tab[-1, 3] + -(-tab[-1, 2] // chunk)
        assert 1 <= grid[0] <= nchunks and grid[1:] == (1, 1)
        for r in tab:
            raw = r[4] < 0
            sdt = np.dtype("V%d" % -r[4]) if raw else self.kw["src_dts"][r[4]]
            shape = tuple(int(x) for x in r[5:5 + nd])
            coords = np.indices(shape).reshape(nd, -1)
            so = (coords * r[5 + nd:5 + 2 * nd, None]).sum(0)
            do = (coords * r[5 + 2 * nd:, None]).sum(0)
            assert so.size == r[2] > 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vals = _read(r[0], so, sdt)
                if not raw:
                    vals = vals.astype(self.kw["out_dt"])
            _write(r[1], do, vals)

class TakeEmu:
    def __init__(self, spec):
        self.kw = spec.render_kw
        self.isz, self.idt = spec.kkey[1], spec.kkey[2]
    def prepared_async_call(self, grid, block, stream, idx_ptr, n, bad, m, *rest):
        kw = self.kw
        # the one-array kernel takes one array's parameters
        nv = 1 if kw["single"] else kw["nvec"]
        LAUNCHES.append((kw["kind"], m))
        assert 1 <= m <= nv and len(rest) == nv * (4 if kw["kind"] == "put" else 3)
        assert kw["single"] == (m == 1), (kw["single"], m)
        unit = np.dtype("V%d" % self.isz)
        idx = np.empty(n, self.idt)
        drv.memcpy_dtoh(idx, idx_ptr)
        k = idx.astype(np.int64)
        for v in range(m):
            src, dst, size = rest[v], rest[nv + v], rest[2 * nv + v]
            nval = rest[3 * nv + v] if kw["kind"] == "put" else None
            if nval == 0:
                continue
            if kw["mode"] == "raise":
                j = np.where(k < 0, k + size, k)
                ok = (j >= 0) & (j < size)
                if not ok.all():
                    first = np.array([np.nonzero(~ok)[0][0]], np.uint64)
                    cur = np.empty(1, np.uint64)
                    drv.memcpy_dtoh(cur, bad)
                    drv.memcpy_htod(bad, np.minimum(cur, first))
            elif kw["mode"] == "wrap":
                j, ok = k % size, np.ones(n, bool)
            else:
                j, ok = np.clip(k, 0, size - 1), np.ones(n, bool)
            pos = np.nonzero(ok)[0]
            if not pos.size:
                continue
            if kw["kind"] == "take":
                _write(dst, pos, _read(src, j[pos], unit))
            else:
                vals = _read(src, pos % nval, unit)
                _write(dst, j[pos], vals)

class AlikeEmu:
    WIDTHS = {"unsigned char": 1, "unsigned short": 2, "unsigned int": 4,
              "unsigned long long": 8, "uint4": 16}
    def __init__(self, spec):
        self.kw = spec.render_kw
    def prepared_async_call(self, grid, block, stream, tab_ptr, out, npr, outer, rw, nparts):
        LAUNCHES.append(("alike", nparts))
        assert grid[0] >= 1 and grid[1:] == (1, 1) and rw == npr * nparts
        assert self.kw["rows"] == (outer > 1)
        unit = np.dtype("V%d" % self.WIDTHS[self.kw["unit"]])
        srcs = np.empty(nparts, np.int64)
        drv.memcpy_dtoh(srcs, tab_ptr)
        n = npr * outer
        i = np.arange(n)
        for k, sp in enumerate(srcs):
            _write(out, (i // npr) * rw + k * npr + i % npr, _read(sp, i, unit))

EMUS = {"joining.cu.mako": JoinEmu, "join_alike.cu.mako": AlikeEmu}
jk.function = lambda spec: EMUS.get(spec.template, TakeEmu)(spec)

def gpu(h):
    return ga.to_gpu(np.array(h, order="C"))

def raises(exc, fn, want=None):
    try:
        fn()
    except exc as e:
        if want is not None:
            assert str(e) == want, (str(e), want)
        return e
    raise AssertionError("no %s" % exc.__name__)

def numpy_error(fn):
    try:
        fn()
    except Exception as e:
        return type(e), str(e)
    raise AssertionError("numpy raised nothing")
"""


def _check(lib, code):
    import textwrap
    from test_gpuarray_fake import check
    return check(lib, EMULATE + textwrap.dedent(code))


def test_fake_concatenate_many_inputs_one_launch(fake_lib):
    _check(fake_lib, """
        # 37 inputs of mixed dtypes and layouts, every axis: one launch
        for axis in (0, 1, 2, -1, -3):
            hosts, devs = [], []
            for k in range(37):
                dt = DTYPES[k % len(DTYPES)]
                shape = [3, 4, 5]
                shape[axis] = (k * 7) % 4          # 0-length parts too
                big = rand((2 * shape[0] + 1, shape[1] + 2, 2 * shape[2] + 1), dt)
                h = big[:2 * shape[0]:2, 1:shape[1] + 1, ::-2][:, :, :shape[2]]
                if k % 3 == 0:
                    d = gpu(big)[:2 * shape[0]:2, 1:shape[1] + 1, ::-2][:, :, :shape[2]]
                    assert not d.flags.c_contiguous or 0 in shape
                else:
                    d = gpu(h)
                hosts.append(h)
                devs.append(d)
            del LAUNCHES[:]
            with np.errstate(all="ignore"):
                import warnings
                warnings.simplefilter("ignore")
                want = np.concatenate(hosts, axis=axis)
            got = ga.concatenate(devs, axis=axis)
            assert LAUNCHES == [("join", sum(1 for h in hosts if h.size))], LAUNCHES
            assert got.dtype == want.dtype and got.flags.c_contiguous
            same(got.get(), want)
        # into out= (a strided view), and axis=None
        hs = [rand((4, 3), "f4") for _ in range(6)]
        out = ga.to_gpu(np.full((24, 6), 7.5, np.float64))
        view = out[:, ::2]
        r = ga.concatenate([gpu(h) for h in hs], out=view)
        assert r is view
        want = np.full((24, 6), 7.5)
        want[:, ::2] = np.concatenate(hs)
        same(out.get(), want)
        same(ga.concatenate([gpu(h) for h in hs], axis=None).get(),
             np.concatenate(hs, axis=None))
        same(ga.concatenate([gpu(h) for h in hs], dtype="i2", casting="unsafe").get(),
             np.concatenate(hs, dtype="i2", casting="unsafe"))
        # tables through the page-locked staging ring (more joins than
        # slots), and one larger than a slot (a pageable copy)
        hs = [rand((2, 3), "u2") for _ in range(9)]
        ds = [gpu(h) for h in hs]
        before = calls("memcpy_htod_async")
        for k in range(2 * jk.STAGING_SLOTS + 1):
            same(ga.concatenate(ds[k % 3:]).get(), np.concatenate(hs[k % 3:]))
        assert calls("memcpy_htod_async") == before + 2 * jk.STAGING_SLOTS + 1
        hs = [rand((2, 2, 3), "i1") for _ in range(200)]
        ds = [gpu(h)[:, ::-1] for h in hs]
        assert 200 * 14 > jk.STAGING_WORDS
        before = calls("memcpy_htod_async")
        same(ga.concatenate(ds, axis=2).get(), np.concatenate([h[:, ::-1] for h in hs], axis=2))
        assert calls("memcpy_htod_async") == before
    """)


def test_fake_staging_ring_is_shared_safely_by_threads(fake_lib):
    _check(fake_lib, """
        import threading, time
        # The ring's events, watched: a slot is "held" from the wait for its
        # last copy until the new copy's event is recorded; a second thread
        # waiting on a held slot is a clash.  One thread dawdles while it
        # holds a slot, so that the others come round to it.
        CLASH, SLOW = [], []
        class WatchedEvent:
            def __init__(self, flags):
                self.ev, self.owner = drv.Event(flags), None
            def synchronize(self):
                me = threading.get_ident()
                if self.owner not in (None, me):
                    CLASH.append((self.owner, me))
                self.owner = me
                if me in SLOW:
                    time.sleep(0.02)
                self.ev.synchronize()
            def record(self, stream=None):
                self.owner = None
                self.ev.record(stream)
        class Driver:                 # what jk sees of gpuarr.driver
            Event = WatchedEvent
            def __getattr__(self, name):
                return getattr(drv, name)
        jk._drv = Driver()
        ctx = drv.Context.get_current()
        words = 300
        dev = drv.mem_alloc(8 * words)
        for k in range(jk.STAGING_SLOTS):     # every slot has its event
            jk.upload(np.arange(words, dtype=np.int64), dev)
        BAD, ERR = [], []
        def worker(tid, count, slow):
            try:
                ctx.push()
                if slow:
                    SLOW.append(threading.get_ident())
                s = drv.Stream()
                mine = drv.mem_alloc(8 * words)
                for j in range(count):
                    table = np.full(words, tid * 1000 + j, np.int64)
                    table[::7] = -tid
                    jk.upload(table, mine, s)
                    s.synchronize()
                    back = np.empty(words, np.int64)
                    drv.memcpy_dtoh(back, mine)
                    if not np.array_equal(back, table):
                        BAD.append((tid, j))
                del mine, s
                drv.Context.pop()
            except BaseException as e:
                ERR.append(repr(e))
        ts = [threading.Thread(target=worker, args=(0, 4, True))]
        ts += [threading.Thread(target=worker, args=(t, 40, False))
               for t in range(1, 4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert not ERR, ERR
        assert not CLASH, CLASH[:5]
        assert not BAD, BAD[:5]
        assert jk._state().next == (jk.STAGING_SLOTS + 4 + 3 * 40) % jk.STAGING_SLOTS
        del dev
    """)


def test_fake_stacks_match_numpy(fake_lib):
    _check(fake_lib, """
        J.FEW_INPUTS = 0           # every join through the (emulated) kernel
        for shape in ((), (5,), (2, 3), (0, 3), (2, 3, 4)):
            hs = [rand(shape, dt) for dt in ("f4", "i2", "u1", "f8")]
            ds = [gpu(h) for h in hs]
            for axis in range(-len(shape) - 1, len(shape) + 1):
                same(ga.stack(ds, axis=axis).get(), np.stack(hs, axis=axis))
            for fn in ("hstack", "vstack", "dstack", "column_stack"):
                if fn == "column_stack" and len(shape) > 2:
                    continue
                try:
                    want = getattr(np, fn)(hs)
                except ValueError as e:
                    raises(ValueError, lambda: getattr(ga, fn)(ds), str(e))
                    continue
                same(getattr(ga, fn)(ds).get(), want)
        # a 2-d GPUArray iterates over its rows, like numpy
        h = rand((4, 6), "i4")
        same(ga.concatenate(gpu(h)).get(), np.concatenate(h))
        same(ga.stack(gpu(h), axis=1).get(), np.stack(h, axis=1))
    """)


def test_fake_take_grid(fake_lib):
    _check(fake_lib, """
        # the take/put grid: gather_grid's at eight blocks an SM, a block
        # per BLOCK indices with 0 (the default), and the cap with 1
        nsm = jk._state().nsm
        b0 = jk.TAKE_BLOCKS_PER_SM
        try:
            for n in (0, 1, 255, 257, 10 ** 6, 10 ** 9, 2 ** 40):
                jk.TAKE_BLOCKS_PER_SM = 8
                assert jk.take_grid(n) == jk.gather_grid(n), n
                jk.TAKE_BLOCKS_PER_SM = 0
                assert jk.take_grid(n) == (
                    max(1, min(-(-n // jk.BLOCK), 2 ** 31 - 1)), 1, 1), n
                jk.TAKE_BLOCKS_PER_SM = 1
                assert jk.take_grid(n) == (max(1, min(-(-n // jk.BLOCK),
                                                      nsm)), 1, 1), n
        finally:
            jk.TAKE_BLOCKS_PER_SM = b0
    """)


def test_fake_many_parts_alike_one_launch(fake_lib):
    _check(fake_lib, """
        # 50 C-contiguous parts of one shape and dtype: the alike kernel,
        # one launch, every axis, units of each width; the same through
        # the general kernel (jk.ALIKE off) for comparison
        k = J._VECTOR_BUILD + 2
        for dt, shape in (("f4", (3, 5, 2)), ("u1", (1, 7)), ("c16", (2, 3)),
                          ("i2", (4,)), ("f8", (2, 1, 3))):
            hs = [rand(shape, dt) for _ in range(k)]
            ds = [gpu(h) for h in hs]
            for ax in range(-len(shape), len(shape)):
                for alike in (True, False):
                    jk.ALIKE = alike
                    del LAUNCHES[:]
                    try:
                        got = ga.concatenate(ds, axis=ax)
                    finally:
                        jk.ALIKE = True
                    assert LAUNCHES == [("alike" if alike else "join", k)], LAUNCHES
                    same(got.get(), np.concatenate(hs, axis=ax))
            same(ga.stack(ds, axis=-1).get(), np.stack(hs, axis=-1))
        # the same list again: the spec and table kept, the table uploaded
        hs = [rand((6,), "i4") for _ in range(k)]
        ds = [gpu(h) for h in hs]
        a = jk.alike_join_spec(1 << 20, 1, 24, [d.ptr for d in ds])
        assert jk.alike_join_spec(1 << 20, 1, 24, [d.ptr for d in ds]) is a
        # one part of another layout: the general kernel
        wide = rand((12,), "i4")
        odd = ds[:-1] + [gpu(wide)[::2]]
        del LAUNCHES[:]
        same(ga.concatenate(odd).get(), np.concatenate(hs[:-1] + [wide[::2]]))
        assert LAUNCHES == [("join", k)]
    """)


def test_fake_few_inputs_copy_one_by_one(fake_lib):
    _check(fake_lib, """
        hs = [rand((n, 3), "f8") for n in (2, 0, 5, 1)]
        before = calls("memcpy_dtod")
        got = ga.concatenate([gpu(h) for h in hs])
        assert calls("memcpy_dtod") - before == 3 and not LAUNCHES
        same(got.get(), np.concatenate(hs))
        # empty results: nothing copied, nothing launched
        before = copies()
        e = ga.concatenate([gpu(np.zeros((0, 3))), gpu(np.zeros((0, 3), "f4"))])
        assert e.shape == (0, 3) and e.dtype == np.float64 and copies() == before
    """)


def test_fake_join_on_a_stream_waits_only_for_its_temporaries(fake_lib):
    _check(fake_lib, """
        # the pool does not track streams: a join on a stream waits for it
        # exactly when it made temporaries the copies read
        s = drv.Stream()
        hs = [rand((n, 3), "f4") for n in (2, 3, 1)]
        ds = [gpu(h) for h in hs]
        def syncs(fn):
            before = fk["stream_syncs"]
            got = fn()
            return fk["stream_syncs"] - before, got
        n, got = syncs(lambda: ga.concatenate(ds, stream=s))
        assert n == 0, n                  # device inputs, copied one by one
        same(got.get(), np.concatenate(hs))
        n, got = syncs(lambda: ga.concatenate([ds[0], hs[1], ds[2]], stream=s))
        assert n == 1, n                  # a host input copied to the device
        same(got.get(), np.concatenate(hs))
        n, got = syncs(lambda: ga.stack([hs[0], hs[0]], stream=s))
        assert n == 1, n
        same(got.get(), np.stack([hs[0], hs[0]]))
        n, got = syncs(lambda: ga.concatenate(np.stack(hs[:1] * 3), stream=s))
        assert n == 1, n                  # one host array, iterated
        same(got.get(), np.concatenate(np.stack(hs[:1] * 3)))
        n, got = syncs(lambda: ga.concatenate(ds, axis=None, stream=s))
        assert n == 0, n                  # C-contiguous: views, no copies
        same(got.get(), np.concatenate(hs, axis=None))
        n, got = syncs(lambda: ga.concatenate(ds))
        assert n == 0, n                  # no stream: nothing waits
        # many inputs: the device table is a temporary
        many = [gpu(h) for h in hs * 3]
        n, got = syncs(lambda: ga.concatenate(many, stream=s))
        assert n == 1, n
        same(got.get(), np.concatenate(hs * 3))
        # take with host values on a stream
        h = rand((6,), "i4")
        ih = np.array([5, 0, -1], np.int64)
        n, got = syncs(lambda: ga.take(gpu(h), gpu(ih), stream=s, mode="clip"))
        assert n == 0, n
        same(got.get(), np.take(h, ih, mode="clip"))
        n, got = syncs(lambda: ga.multi_take([h], gpu(ih), stream=s, mode="clip"))
        assert n == 1, n
        same(got[0].get(), np.take(h, ih, mode="clip"))
    """)


def test_fake_join_errors_before_any_launch(fake_lib):
    _check(fake_lib, """
        a2 = gpu(rand((2, 3), "f8"))
        h2 = np.zeros((2, 3))
        cases = [
            (lambda m: m.concatenate([]), None),
            (lambda m: m.concatenate([np.float64(1)] if m is np else [gpu(np.float64(1))]), None),
            (lambda m: m.concatenate([h2, np.ones(3)] if m is np else [a2, gpu(np.ones(3))]), None),
            (lambda m: m.concatenate([h2, np.ones((2, 4))] if m is np else [a2, gpu(np.ones((2, 4)))]), None),
            (lambda m: m.concatenate([h2] if m is np else [a2], axis=2), None),
            (lambda m: m.concatenate([h2] if m is np else [a2], axis=-3), None),
            (lambda m: m.concatenate([h2] if m is np else [a2], axis=1.0), None),
            (lambda m: m.concatenate([h2] if m is np else [a2], dtype="f4",
                                     out=np.empty((2, 3)) if m is np else gpu(np.empty((2, 3)))), None),
            (lambda m: m.concatenate([h2] if m is np else [a2],
                                     out=np.empty((2, 4)) if m is np else gpu(np.empty((2, 4)))), None),
            (lambda m: m.concatenate([h2] if m is np else [a2],
                                     out=np.empty(6) if m is np else gpu(np.empty(6))), None),
            (lambda m: m.concatenate([h2] if m is np else [a2],
                                     out=np.empty((2, 3), bool) if m is np else gpu(np.empty((2, 3), bool))), None),
            (lambda m: m.concatenate([h2] if m is np else [a2], dtype=int), None),
            (lambda m: m.concatenate([h2] if m is np else [a2], dtype="i4", casting="safe"), None),
            (lambda m: m.stack([]), None),
            (lambda m: m.stack([h2, np.ones((3, 2))] if m is np else [a2, gpu(np.ones((3, 2)))]), None),
            (lambda m: m.stack([h2] if m is np else [a2], axis=3), None),
            (lambda m: m.hstack([]), None),
            (lambda m: m.vstack([h2, np.ones(4)] if m is np else [a2, gpu(np.ones(4))]), None),
        ]
        for fn, _ in cases:
            exc, msg = numpy_error(lambda: fn(np))
            c0 = [calls(n) for n in ("memcpy_dtod", "memcpy_dtoh", "memset_d8")]
            e = raises(Exception, lambda: fn(ga))
            assert isinstance(e, exc), (type(e), exc, msg)
            assert str(e) == msg, (str(e), msg)
            assert c0 == [calls(n) for n in ("memcpy_dtod", "memcpy_dtoh", "memset_d8")]
            assert not LAUNCHES
        raises(TypeError, lambda: ga.concatenate(5))
        raises(TypeError, lambda: ga.concatenate([a2], out=np.empty((2, 3))))
    """)


def test_fake_take_flag_words_reused(fake_lib):
    _check(fake_lib, """
        # take's bad-index flag word: kept after a read of all ones and
        # handed out again without a memset; a word that held a bad
        # position is dropped, never reused; at most four kept
        from gpuarr import _creation as C
        words = C._flag_words()
        del words[:]
        h = rand((7,), "f4")
        a, good, bad = gpu(h), gpu(np.array([3, -1, 0])), gpu(np.array([1, 9]))
        same(ga.take(a, good).get(), np.take(h, [3, -1, 0]))
        assert len(words) == 1
        w = words[0]
        same(ga.take(a, good).get(), np.take(h, [3, -1, 0]))
        assert len(words) == 1 and words[0] is w
        for k in range(3):
            raises(IndexError, lambda: ga.take(a, bad),
                   "index 9 is out of bounds for axis 0 with size 7")
            assert not words
            same(ga.take(a, good).get(), np.take(h, [3, -1, 0]))
            assert len(words) == 1 and words[0] is not w
            w = words[0]
        s = drv.Stream()
        same(ga.take(a, good, stream=s).get(), np.take(h, [3, -1, 0]))
        assert words == [w]
        taken = [C.flag_word(s) for _ in range(6)]
        assert taken[0] is w and len({id(t) for t in taken}) == 6
        s.synchronize()
        for t in taken:
            host = np.empty(1, np.uint64)
            drv.memcpy_dtoh(host, t.ptr)
            assert int(host[0]) == (1 << 64) - 1
            C.keep_flag_word(t)
        assert len(words) == 4
    """)


def test_fake_take_multi_take_multi_put(fake_lib):
    _check(fake_lib, """
        for dt in DTYPES:
            h = rand((9,), dt)
            a = gpu(h)
            for idt in ("i1", "u1", "i4", "i8", "u8", "?"):
                ih = np.array([0, 8, 3, 3, 1, 0], idt) if idt != "?" else np.array([True, False, True])
                if idt in ("i1", "i4", "i8"):
                    ih = np.array([0, -1, 8, -9, 3, 3], idt)
                idx = gpu(ih)
                same(ga.take(a, idx).get(), np.take(h, ih))
                same(ga.take(a, ih).get(), np.take(h, ih))    # host indices
        # n-d a (flattened) and n-d indices
        h = rand((3, 4), "f4")
        ih = np.array([[1, -2], [11, 0]])
        same(ga.take(gpu(h), gpu(ih)).get(), np.take(h, ih))
        # out=, same dtype: written in place
        out = gpu(np.full((2, 2), 5.0, np.float32))
        assert ga.take(gpu(h), gpu(ih), out=out) is out
        same(out.get(), np.take(h, ih))
        # modes
        h = rand((7,), "i8")
        ih = np.array([-20, -8, -7, -1, 0, 6, 7, 15], np.int64)
        for mode in ("wrap", "clip"):
            same(ga.take(gpu(h), gpu(ih), mode=mode).get(), np.take(h, ih, mode=mode))
        # out of range: numpy's IndexError, with numpy's message
        for bad in ([0, 7, 9], [-8], [2, 3, -100, 50], np.array([2 ** 63], np.uint64)):
            bad = np.asarray(bad)
            msg = numpy_error(lambda: np.take(h, bad))
            assert msg[0] is IndexError
            raises(IndexError, lambda: ga.take(gpu(h), gpu(bad)), msg[1])
        raises(IndexError, lambda: ga.take(gpu(np.zeros(0)), gpu(np.array([0]))),
               "cannot do a non-empty take from an empty axes.")
        assert ga.take(gpu(np.zeros(0)), gpu(np.zeros(0, int))).shape == (0,)
        # argument errors, before any launch
        del LAUNCHES[:]
        raises(TypeError, lambda: ga.take(gpu(h), gpu(np.array([1.0]))),
               numpy_error(lambda: np.take(h, np.array([1.0])))[1])
        raises(TypeError, lambda: ga.take(gpu(h), [1.5]))
        raises(ValueError, lambda: ga.take(gpu(h), gpu(np.array([1])), mode="nearest"))
        raises(ValueError, lambda: ga.take(gpu(h), gpu(np.array([1, 2])), out=gpu(np.zeros(3, "i8"))),
               "output array does not match result of ndarray.take")
        assert not LAUNCHES

        # multi_take: 37 arrays, 3 launches of at most 16, each its own size
        hs = [rand((5 + k % 4,), "c16") for k in range(37)]
        ih = np.array([0, -1, 4, -5, 2], np.int32)
        del LAUNCHES[:]
        got = ga.multi_take([gpu(x) for x in hs], gpu(ih))
        assert LAUNCHES == [("take", 16), ("take", 16), ("take", 5)], LAUNCHES
        for g, x in zip(got, hs):
            same(g.get(), np.take(x, ih))
        outs = [gpu(np.zeros(5, "c16")) for _ in hs]
        assert ga.multi_take([gpu(x) for x in hs], gpu(ih), out=outs) == outs
        for g, x in zip(outs, hs):
            same(g.get(), np.take(x, ih))
        hs[20] = rand((4,), "c16")      # 4 (and -5) out of bounds for this one
        raises(IndexError, lambda: ga.multi_take([gpu(x) for x in hs], gpu(ih)),
               "index 4 is out of bounds for axis 0 with size 4")
        assert ga.multi_take([], gpu(ih)) == []
        raises(ValueError, lambda: ga.multi_take([gpu(hs[0]), gpu(np.zeros(3))], gpu(ih)))
        raises(ValueError, lambda: ga.multi_take([gpu(hs[0])], gpu(ih), out=[]))

        # multi_put into poisoned outputs: untouched elements stay
        vals = [rand((6,), "u2") for _ in range(20)] + [rand((2,), "u2"), rand((0,), "u2")]
        di = np.array([9, -2, 0, 4, -9, 2], np.int64)     # no repeats
        outs_h = [np.full(10, 0xBEEF, np.uint16) for _ in vals]
        outs = [gpu(o) for o in outs_h]
        del LAUNCHES[:]
        r = ga.multi_put([gpu(v) for v in vals], gpu(di), out=outs)
        assert r == outs and LAUNCHES == [("put", 16), ("put", 6)], LAUNCHES
        for o, oh, v in zip(outs, outs_h, vals):
            np.put(oh, di, v)
            same(o.get(), oh)
        fresh = ga.multi_put([gpu(v) for v in vals[:3]], gpu(di), dest_shape=(10,))
        assert [f.shape for f in fresh] == [(10,)] * 3
        for f, v in zip(fresh, vals):
            assert np.array_equal(f.get()[np.array(di) % 10], v[:6])
        for mode in ("wrap", "clip"):
            di2 = np.array([-13, 25, 3], np.int64)
            oh = np.full(10, 7, np.uint16)
            o = gpu(oh)
            ga.multi_put([gpu(vals[0][:3])], gpu(di2), out=[o], mode=mode)
            np.put(oh, di2, vals[0][:3], mode=mode)
            same(o.get(), oh)
        raises(IndexError, lambda: ga.multi_put([gpu(vals[0])], gpu(np.array([3, 10, 11])), out=[gpu(outs_h[0])]),
               "index 10 is out of bounds for axis 0 with size 10")
        raises(TypeError, lambda: ga.multi_put([gpu(vals[0])], gpu(di)))
        raises(TypeError, lambda: ga.multi_put([gpu(vals[0])], gpu(di), out=[gpu(np.zeros(10))]))
        raises(ValueError, lambda: ga.multi_put([gpu(vals[0])], gpu(di.reshape(2, 3)), dest_shape=(10,)))
        raises(ValueError, lambda: ga.multi_put([gpu(vals[0])], gpu(di), out=[]))
        assert ga.multi_put([], gpu(di)) == []
    """)


NAMES = ("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
         "take", "multi_take", "multi_put")


def test_exported_by_pycuda_module_and_flat_namespace():
    import gpuarr
    import gpuarr.gpuarray as ga
    from gpuarr import _joining
    from gpuarr import _selection
    for name in NAMES:
        assert name in ga.__all__ and name in gpuarr.__all__
        assert getattr(ga, name) is getattr(_joining, name)
        # the flat namespace's take is numpy's (axis third), gpuarray's
        # PyCUDA's (out third)
        assert getattr(gpuarr, name) is getattr(
            _selection if name == "take" else _joining, name)


def test_signatures_start_with_pycudas():
    import inspect
    from gpuarr import _joining
    want = {"concatenate": ["arrays", "axis", "allocator"],
            "stack": ["arrays", "axis", "allocator"],
            "hstack": ["arrays", "allocator"],
            "take": ["a", "indices", "out", "stream"],
            "multi_take": ["arrays", "indices", "out", "stream"],
            "multi_put": ["arrays", "dest_indices", "dest_shape", "out",
                          "stream"]}
    for name, params in want.items():
        got = list(inspect.signature(getattr(_joining, name)).parameters)
        assert got[:len(params)] == params, (name, got)
    assert inspect.signature(_joining.concatenate).parameters["axis"].default == 0


# ---------------------------------------------------------------------------
# the kernels' own code, run on the host
#
# Neither kernel synchronizes threads, so running every (block, thread)
# one after the other is a faithful schedule.  The rendered source is
# compiled by the host C++ compiler after its common definitions (PTX
# float16 conversions) are swapped for host ones (_Float16) and CUDA's
# keywords defined away; the index math, the table walk, the dtype switch,
# the casts, the modes and the bad-index flag are the templates' own.

import ctypes
import os
import shutil
import subprocess
import tempfile

CXX = shutil.which("g++") or shutil.which("c++")
needs_cxx = pytest.mark.skipif(CXX is None, reason="no host C++ compiler")

_HOST_PRELUDE = r"""
#include <cstddef>
#include <type_traits>
#include <utility>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define GA_DEV inline
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct ga_dim3 { unsigned x, y, z; };
static ga_dim3 blockIdx, threadIdx, gridDim, blockDim;
static unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
    unsigned long long o = *p; if (v < o) *p = v; return o;
}
// the cache-hinted loads and stores: plain ones on the host
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
struct ga_half {
    _Float16 v;
    ga_half() = default;
    ga_half(float f) : v((_Float16)f) {}
    operator float() const { return (float)v; }
};
inline float ga_hround(float f) { return (float)(_Float16)f; }
inline float ga_hround_d(double d) { return (float)(_Float16)d; }
template <class T> struct ga_complex {
    T re, im;
    ga_complex() = default;
    ga_complex(T r) : re(r), im(0) {}
    ga_complex(T r, T i) : re(r), im(i) {}
};
template <class T> inline bool ga_nonzero(T a) { return a != 0; }
template <class T> inline bool ga_nonzero(ga_complex<T> a) { return a.re != 0 || a.im != 0; }
"""

_HOST_LAUNCH = r"""
template <class T> static T ga_arg(unsigned long long v) {
    if constexpr (std::is_pointer<T>::value) return reinterpret_cast<T>(v);
    else return (T)v;
}
template <class... P, std::size_t... I>
static void ga_call(void (*k)(P...), const unsigned long long *a, std::index_sequence<I...>) {
    k(ga_arg<P>(a[I])...);
}
template <class... P>
static void ga_call(void (*k)(P...), const unsigned long long *a) {
    ga_call(k, a, std::index_sequence_for<P...>{});
}
extern "C" void ga_launch(unsigned grid, unsigned block, const unsigned long long *args) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b) {
        blockIdx = {b, 0, 0};
        for (unsigned t = 0; t < block; ++t) {
            threadIdx = {t, 0, 0};
            ga_call(&%(name)s, args);
        }
    }
}
"""

_HOST_LIBS = {}


def _host_kernel(spec, tmp):
    """The spec's kernel compiled for the host: ``launch(grid, args)``
    (threads run one after another, so a joining kernel is rendered
    without its shared-memory table, which needs __syncthreads)."""
    if spec.template == "joining.cu.mako":
        spec.render_kw = dict(spec.render_kw, srows=0)
    src = spec.source()
    a = src.find("// ---- gpuarr common definitions ----")
    if a >= 0:
        b = src.index("// ---- end of gpuarr common definitions ----")
        src = src[:a] + src[b:].split("\n", 1)[1]
    src = _HOST_PRELUDE + src + _HOST_LAUNCH % {"name": spec.name}
    key = src
    if key not in _HOST_LIBS:
        d = tempfile.mkdtemp(dir=tmp)
        cpp, so = os.path.join(d, "k.cpp"), os.path.join(d, "k.so")
        with open(cpp, "w") as f:
            f.write(src)
        r = subprocess.run([CXX, "-std=c++17", "-O1", "-shared", "-fPIC", "-w",
                            "-o", so, cpp], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-4000:]
        lib = ctypes.CDLL(so)
        lib.ga_launch.argtypes = [ctypes.c_uint, ctypes.c_uint,
                                  ctypes.POINTER(ctypes.c_ulonglong)]
        _HOST_LIBS[key] = lib
    lib = _HOST_LIBS[key]

    def launch(grid, args):
        vals = (ctypes.c_ulonglong * len(args))(
            *[int(x) & ((1 << 64) - 1) for x in args])
        lib.ga_launch(grid[0], spec.block[0], vals)
    return launch


class _HostArray:
    """A numpy array seen as the kernel layers see a device array."""

    def __init__(self, a):
        self.a = a
        self.ptr = a.__array_interface__["data"][0]
        self.dtype, self.shape, self.strides = a.dtype, a.shape, a.strides


def _host_concatenate(hosts, axis, out_dt, tmp, out=None, grid=None):
    """numpy arrays joined by the joining kernel run on the host, the pairs
    made as gpuarr._joining makes them; ``grid``: fewer blocks than chunks
    (the persistent loop), default one block per chunk."""
    shape = list(hosts[0].shape)
    shape[axis] = sum(h.shape[axis] for h in hosts)
    if out is None:
        out = np.zeros(shape, out_dt)
    pairs, off = [], 0
    for h in hosts:
        sl = [slice(None)] * len(shape)
        sl[axis] = slice(off, off + h.shape[axis])
        pairs.append((_HostArray(out[tuple(sl)]), _HostArray(h)))
        off += h.shape[axis]
    made = jk.copy_spec(np.dtype(out_dt), pairs)
    if made is not None:
        spec, table = made
        _host_kernel(spec, tmp)(grid or spec.grid, [table.ctypes.data, *spec.tail])
    return out


def _host_values(shape, dt, rng):
    dt = np.dtype(dt)
    if dt.kind == "c":
        x = rng.uniform(0, 99, shape) + 1j * rng.uniform(-50, 50, shape)
    elif dt.kind == "b":
        x = rng.integers(0, 2, shape)
    else:
        x = rng.uniform(0, 99, shape)
    return np.asarray(x).astype(dt)


def _strided(h, k):
    """``h``'s values in layout ``k % 3``: contiguous, reversed, sliced."""
    if k % 3 == 1 and h.ndim:
        rev = tuple(slice(None, None, -1) for _ in h.shape)
        return np.ascontiguousarray(h[rev])[rev]
    if k % 3 == 2 and h.ndim:
        big = np.zeros(tuple(2 * n + 1 for n in h.shape), h.dtype)
        sl = tuple(slice(1, None, 2) for _ in h.shape)
        big[sl] = h
        return big[sl]
    return h


@needs_cxx
@pytest.mark.parametrize("out_dt", DTYPES, ids=str)
def test_host_run_join_kernel_every_pair_and_axis(out_dt, tmp_path):
    import warnings
    rng = np.random.default_rng(7)
    for axis in (0, 1, 2):
        hosts = []
        for k, dt in enumerate(DTYPES):
            shape = [3, 4, 5]
            shape[axis] = k % 4
            hosts.append(_strided(_host_values(tuple(shape), dt, rng), k))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.concatenate(hosts, axis=axis, dtype=out_dt,
                                  casting="unsafe")
        got = _host_concatenate(hosts, axis, out_dt, str(tmp_path))
        assert got.tobytes() == want.tobytes(), (axis, got, want)


@needs_cxx
def test_host_run_join_kernel_strided_out_many_blocks(tmp_path):
    rng = np.random.default_rng(8)
    hosts = [_strided(_host_values((2, 700 + 37 * k), "f4", rng), k)
             for k in range(9)]
    for grid in (None, (1, 1, 1), (3, 1, 1)):
        base = np.full((5, 2 * sum(h.shape[1] for h in hosts)), -1.0)
        view = base[1:3, ::-2]
        _host_concatenate(hosts, 1, "f8", str(tmp_path), out=view, grid=grid)
        want = np.full_like(base, -1.0)
        want[1:3, ::-2] = np.concatenate(hosts, axis=1)
        assert np.array_equal(base, want), grid
    # same dtype (raw rows of several unit widths), a persistent grid
    parts = [_strided(_host_values((3, 1 + 29 * k), "f4", rng), k)
             for k in range(11)]
    for grid in (None, (2, 1, 1)):
        got = _host_concatenate(parts, 1, "f4", str(tmp_path), grid=grid)
        assert got.tobytes() == np.concatenate(parts, axis=1).tobytes(), grid


def _host_take(kind, arrays, idx, mode, tmp, outs=None, nvals=None):
    """The take/put kernel run on the host, its arguments as
    gpuarr._joining passes them; returns the bad-index flag word."""
    launches = {}
    nv = jk.NVEC
    bad = np.array([jk.NO_BAD], np.uint64)
    # groups of NVEC while more than three arrays are left, then the rest
    # one a launch (the one-array kernel, as gpuarr._joining launches it
    # for arrays too large to share); 19 arrays: 16, then three of one
    groups = [(k, k + nv) for k in range(0, len(arrays) - 3, nv)]
    groups += [(k, k + 1) for k in range(groups[-1][1] if groups else 0,
                                          len(arrays))]
    assert any(b - a == 1 for a, b in groups), groups
    for start, stop in groups:
        s, d = arrays[start:stop], outs[start:stop]
        m = len(s)
        one = m == 1
        if one not in launches:
            launches[one] = _host_kernel(jk.take_spec(
                kind, arrays[0].dtype.itemsize, idx.dtype, mode, one), tmp)
        launch = launches[one]
        nv = 1 if one else jk.NVEC
        pad = [0] * (nv - m)
        args = [idx.ctypes.data, idx.size, bad.ctypes.data, m]
        args += [x.ctypes.data for x in s] + pad
        args += [x.ctypes.data for x in d] + pad
        sizes = [x.size for x in (s if kind == "take" else d)]
        args += sizes + [1] * (nv - m)
        if kind == "put":
            args += [x.size for x in s] + pad
        launch((3, 1, 1), args)
    return int(bad[0])


@needs_cxx
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("idt", INDEX_DTYPES, ids=str)
def test_host_run_take_and_put_kernels(idt, stream, tmp_path, monkeypatch):
    monkeypatch.setattr(jk, "TAKE_STREAM", stream)
    rng = np.random.default_rng(9)
    tmp = str(tmp_path)
    for dt in ("u1", "f2", "i4", "f8", "c16"):
        arrays = [_host_values((40 + k,), dt, rng) for k in range(19)]
        if idt.kind == "b":
            idx = rng.integers(0, 2, 900).astype(idt)
        else:
            lo = -40 if idt.kind == "i" else 0
            idx = rng.integers(lo, min(40, np.iinfo(idt).max + 1), 900).astype(idt)
        outs = [np.zeros(idx.size, dt) for _ in arrays]
        assert _host_take("take", arrays, idx, "raise", tmp, outs) == jk.NO_BAD
        for o, a in zip(outs, arrays):
            assert np.array_equal(o, np.take(a, idx)), (dt, idt)
        if idt.kind == "i":
            wild = idx.copy()
            wild[[5, 700]] = [np.iinfo(idt).max, np.iinfo(idt).min]
            for mode in ("wrap", "clip"):
                outs = [np.zeros(idx.size, dt) for _ in arrays]
                _host_take("take", arrays, wild, mode, tmp, outs)
                w64 = wild.astype(np.int64)
                for o, a in zip(outs, arrays):
                    # numpy's wrap steps one size at a time (hours for
                    # int64's extremes): the same answer by a modulo
                    j = w64 % a.size if mode == "wrap" else np.clip(w64, 0, a.size - 1)
                    assert np.array_equal(o, a[j])
            outs = [np.zeros(idx.size, dt) for _ in arrays]
            assert _host_take("take", arrays, wild, "raise", tmp, outs) == 5
        # put: unique destinations (negative ones too), repeating values
        dest = rng.permutation(40)[:min(30, np.iinfo(idt).max if idt.kind != "b" else 2)]
        if idt.kind == "i":
            dest[::2] -= 40
        dest = dest.astype(idt)
        vals = [_host_values((dest.size if k % 3 else 4,), dt, rng) for k in range(19)]
        vals[7] = vals[7][:0]
        outs = [_host_values((40,), dt, rng) for _ in vals]
        want = [o.copy() for o in outs]
        assert _host_take("put", vals, dest, "raise", tmp, outs) == jk.NO_BAD
        for w, v in zip(want, vals):
            np.put(w, dest.astype(np.int64), v)     # numpy's put refuses uint64
        for o, w in zip(outs, want):
            assert np.array_equal(o, w), (dt, idt)


@needs_cxx
@pytest.mark.parametrize("dt,shape,ax", [("f4", (2500,), 0), ("u1", (3, 701), 1),
                                         ("c16", (5, 3), 0), ("i2", (2, 3, 3), 2),
                                         ("f8", (4, 2, 300), 1)], ids=str)
def test_host_run_alike_join_kernel(dt, shape, ax, tmp_path, monkeypatch):
    monkeypatch.setattr(jk, "_RECENT_JOINS", type(jk._RECENT_JOINS)())
    # the alike kernel itself, compiled for the host: parts of several
    # chunks (BLOCK * UNROLL units each) ending inside one, grids of one
    # block, of fewer blocks than chunks and of more, every unit width,
    # rows or none; with parts of one chunk, a step of three blocks passes
    # three parts at once
    rng = np.random.default_rng(9)
    parts = [_host_values(shape, dt, rng) for _ in range(13)]
    want = np.concatenate(parts, axis=ax)
    outer = int(np.prod(shape[:ax]))
    nb = parts[0].nbytes // outer
    for grid in (1, 3, 4 * len(parts) + 1):
        out = np.zeros_like(want)
        spec, table = jk.alike_join_spec(
            out.__array_interface__["data"][0], outer, nb,
            [p.__array_interface__["data"][0] for p in parts])
        assert spec.render_kw["rows"] == (outer > 1)
        _host_kernel(spec, str(tmp_path))((grid, 1, 1),
                                          [table.ctypes.data, *spec.tail])
        assert out.tobytes() == want.tobytes(), grid
