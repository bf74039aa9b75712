"""CPU tests of tile, repeat, roll, diag, diagflat, tril, triu, trace,
meshgrid, indices, pad and copyto (gpuarr._rearrange, gpuarr._padding)
and of the gather kernel's builder (gpuarr._gatherkernels).

* the padding rules (pad_sources) against numpy.pad on many widths;
* the gather plan (merged axes, table, constants, launch arguments) run by
  a host emulator of gather.cu.mako against numpy.pad, numpy.repeat,
  numpy.tril and numpy.triu for every dtype and odd layouts;
* the template renders and compiles with nvcc (or gpuarr's compiler) for
  every unit, several dimensions and both index widths;
* the array layer against the fake libcuda, the gather, joining and
  elementwise kernels emulated on the host: results equal numpy's, and
  numpy's exceptions (class and message) come before any launch or copy.
"""
import textwrap

import numpy as np
import pytest

from _util import batch_sources, kernel_compiler

from gpuarr import _dtypes
from gpuarr import _gatherkernels as gk

DTYPES = _dtypes.SUPPORTED
COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")

# A host emulator of gather.cu.mako: reads its launch arguments as the
# kernel does (read_table / read_src give int64 table entries and raw
# source items at element offsets) and returns the output's raw items in C
# order.  Shared with the fake-libcuda scenarios below.
GATHER_EMU = """
def gather_emulate(spec, read_table, read_src):
    isz = spec.kkey[1]
    nd = spec.render_kw["ndim"]
    assert spec.render_kw["words"] == (2 if isz > 8 else 1)
    raw = np.dtype("V%d" % isz)
    tail = spec.tail
    tri, k, cbase, n = tail[:4]
    assert len(tail) == 4 + 5 * nd and n > 0
    r = np.arange(n, dtype=np.int64)
    off = np.zeros(n, np.int64)
    mark = np.full(n, -1, np.int64)
    cs = [None] * nd
    for d in reversed(range(nd)):
        nn, lo, nc, s, tb = tail[4 + 5 * d:9 + 5 * d]
        if d > 0:
            c, r = r % nn, r // nn
        else:
            c = r
            assert (c < nn).all()
        cs[d] = c
        x = c - lo
        pad = (x < 0) | (x >= nc)
        t = x.copy()
        if pad.any():
            t[pad] = read_table(tb + np.where(x < 0, c, c - nc)[pad])
        new = pad & (t < 0)
        mark = np.where((mark < 0) & new, -1 - t, mark)
        off += np.where(new, 0, t) * s
    out = np.zeros(n, raw)
    keep = mark < 0
    if tri:
        d = cs[nd - 1] - cs[nd - 2]
        keep &= ~((d > k) if tri == 1 else (d < k))
    if keep.any():
        out[keep] = read_src(off[keep])
    m = mark[mark >= 0]
    if m.size:
        w = 2 if isz > 8 else 1
        words = np.stack([read_table(cbase + w * m + j) for j in range(w)], 1)
        out[mark >= 0] = np.ascontiguousarray(words).view(np.uint8).reshape(
            m.size, 8 * w)[:, :isz].copy().view(raw).reshape(-1)
    return out
"""
_NS = {"np": np}
exec(GATHER_EMU, _NS)
gather_emulate = _NS["gather_emulate"]


_rng = np.random.default_rng(7)


def rand(shape, dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return _rng.integers(0, 2, shape).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(info.min, info.max, shape, dtype=dt,
                             endpoint=True)
    x = _rng.standard_normal(shape) * 100
    if dt.kind == "c":
        x = x + 1j * _rng.standard_normal(shape)
    return np.asarray(x.astype(dt))


def host_layouts(h):
    """``h`` as views of a bigger buffer: contiguous, strided, reversed,
    transposed; each with (buffer, item offset of element [0..0], item
    strides)."""
    out = []
    isz = h.dtype.itemsize
    cands = [np.array(h)]
    if h.ndim:
        big = np.zeros(tuple(2 * n + 1 for n in h.shape), h.dtype)
        sl = tuple(slice(1, 2 * n + 1, 2) for n in h.shape)
        big[sl] = h
        cands.append(big[sl])
        rev = tuple(slice(None, None, -1) for _ in h.shape)
        cands.append(np.ascontiguousarray(h[rev])[rev])
        cands.append(np.ascontiguousarray(h.T).T)
    for v in cands:
        base = v.base if v.base is not None else v
        while getattr(base, "base", None) is not None:
            base = base.base
        buf = np.frombuffer(base, np.uint8)
        off = (v.__array_interface__["data"][0]
               - buf.__array_interface__["data"][0])
        assert off % isz == 0
        out.append((v, buf, off // isz, tuple(s // isz for s in v.strides)))
    return out


def run_plan(v, buf, base, axes, tri=0, k=0, consts=None):
    """What the array layer's gather launches, run by the emulator."""
    isz = v.dtype.itemsize
    merged, table, bases = gk.gather_plan(axes, keep=2 if tri else 0)
    cbase = table.size
    if consts is not None:
        table = np.concatenate([table, gk.constant_words(consts, isz)])
    shape = tuple(ax.n for ax in axes)
    size = int(np.prod(shape))
    if not size:
        return np.zeros(shape, v.dtype)
    spec = gk.gather_spec(isz, merged, bases, size, tri, k, cbase)
    items = buf.view("V%d" % isz)
    got = gather_emulate(spec, lambda i: table[i], lambda o: items[base + o])
    return got.view(v.dtype).reshape(shape)


# ---------------------------------------------------------------------------
# the plan against numpy

@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
def test_pad_sources_are_numpys(mode):
    for n in range(1, 8):
        for b in range(0, 23, 3):
            for e in (0, 1, 2, 5, 17):
                want = np.pad(np.arange(n), (b, e), mode=mode)
                bef, aft = gk.pad_sources(mode, n, b, e)
                got = np.concatenate([bef, np.arange(n), aft])
                assert (got == want).all(), (mode, n, b, e, got, want)


def test_pad_sources_constant_and_errors():
    b, a = gk.pad_sources("constant", 0, 2, 3, (-5, -6))
    assert list(b) == [-5, -5] and list(a) == [-6, -6, -6]
    with pytest.raises(ValueError, match="not supported"):
        gk.pad_sources("mean", 3, 1, 1)
    with pytest.raises(ValueError, match="empty axis"):
        gk.pad_sources("edge", 0, 1, 1)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_emulated_pad_every_mode_and_layout(dt):
    for shape, widths in [((3, 4), ((1, 2), (0, 3))), ((5,), ((7, 9),)),
                          ((2, 1, 3), ((1, 1), (2, 0), (4, 4))), ((), ()),
                          ((0, 3), ((1, 2), (1, 1)))]:
        h = rand(shape, dt)
        for mode in ("constant", "edge", "wrap", "reflect", "symmetric"):
            if h.size == 0 and mode != "constant":
                continue
            vals = rand((len(shape), 2), dt) if shape else np.zeros(0, dt)
            for v, buf, base, est in host_layouts(h):
                axes = gk.pad_axes(v.shape, est, widths, mode)
                consts = None
                npw = widths if shape else 0
                if mode == "constant":
                    consts = vals.reshape(-1)
                    want = np.pad(v, npw, mode,
                                  constant_values=vals if shape else 0)
                else:
                    want = np.pad(v, npw, mode)
                got = run_plan(v, buf, base, axes, consts=consts)
                assert got.tobytes() == want.tobytes(), (mode, shape, got,
                                                         want)


@pytest.mark.parametrize("dt", ["?", "i2", "f4", "c16"])
def test_emulated_repeat_per_element(dt):
    for shape, axis in [((4, 3), 0), ((4, 3), 1), ((2, 3, 4), 2), ((5,), 0),
                        ((3, 0), 0)]:
        h = rand(shape, dt)
        counts = _rng.integers(0, 4, shape[axis])
        for v, buf, base, est in host_layouts(h):
            axes = gk.repeat_axes(v.shape, est, axis, counts)
            got = run_plan(v, buf, base, axes)
            want = np.repeat(v, counts, axis)
            assert got.tobytes() == want.tobytes() and got.shape == want.shape


@pytest.mark.parametrize("dt", ["?", "u1", "f2", "i8", "c8", "c16"])
def test_emulated_tril_triu_batched(dt):
    for shape in [(4, 5), (3, 2, 6), (2, 3, 4, 1), (1, 1), (6, 3)]:
        h = rand(shape, dt)
        for v, buf, base, est in host_layouts(h):
            for k in (-7, -2, 0, 1, 4, 9):
                for code, fn in ((gk.TRIL, np.tril), (gk.TRIU, np.triu)):
                    got = run_plan(v, buf, base,
                                   gk.plain_axes(v.shape, est), code, k)
                    assert got.tobytes() == fn(v, k).tobytes(), (shape, k)


def test_plan_merges_plain_axes_but_keeps_the_last_two_for_tri():
    # a contiguous (2, 3, 4, 5) copy: one merged axis (and a leading 1)
    ax = gk.plain_axes((2, 3, 4, 5), (60, 20, 5, 1))
    merged, table, _ = gk.gather_plan(ax)
    assert [(m.n, m.stride) for m in merged] == [(1, 0), (120, 1)]
    assert table.size == 0
    merged, _, _ = gk.gather_plan(ax, keep=2)
    assert [(m.n, m.stride) for m in merged] == [(6, 20), (4, 5), (5, 1)]
    # a padded axis stays; its plain neighbours merge around it
    ax = gk.pad_axes((2, 3, 4, 5), (60, 20, 5, 1),
                     ((0, 0), (0, 0), (1, 1), (0, 0)), "edge")
    merged, table, bases = gk.gather_plan(ax)
    assert [(m.n, m.lo, m.nc, m.stride) for m in merged] == [
        (6, 0, 6, 20), (6, 1, 4, 5), (5, 0, 5, 1)]
    assert list(table) == [0, 3] and bases == [0, 0, 2]
    # length-1 plain axes go; nothing merges across a reversed stride
    ax = gk.plain_axes((3, 1, 4), (-4, 7, 1))
    merged, _, _ = gk.gather_plan(ax)
    assert [(m.n, m.stride) for m in merged] == [(1, 0), (12, 1)] or \
        [(m.n, m.stride) for m in merged] == [(3, -4), (4, 1)]


def test_spec_arguments_and_kernel_keys():
    ax = gk.pad_axes((3, 4), (4, 1), ((1, 1), (2, 0)), "constant")
    merged, table, bases = gk.gather_plan(ax)
    spec = gk.gather_spec(8, merged, bases, 5 * 6, 0, 0, table.size)
    assert spec.kkey == ("gather", 8, 2, "int")
    assert spec.chars == "PPPiqqi" + "iqqqq" * 2
    assert spec.tail == (0, 0, table.size, 30, 5, 1, 3, 4, 0, 6, 2, 4, 1, 2)
    wide = gk.gather_spec(1, merged, bases, 2 ** 31, 0, 0, 0)
    assert wide.render_kw["itype"] == "long long" and "q" * 2 in wide.chars
    with pytest.raises(ValueError):
        gk.gather_spec(3, merged, bases, 5)
    with pytest.raises(ValueError):
        gk.gather_spec(4, merged[:1], bases[:1], 5)
    words = gk.constant_words(np.array([1 + 2j, -3j], np.complex128), 16)
    assert words.dtype == np.int64 and words.size == 4
    assert words.view(np.complex128).tolist() == [1 + 2j, -3j]
    with pytest.raises(ValueError):
        gk.Axis(3, 1, 1, 1, before=[0, 0])


@needs_compiler
def test_gather_kernel_compiles_every_unit_and_width():
    specs = []
    for isz in (1, 2, 4, 8, 16):
        for nd in (2, 3, 5):
            axes = [gk.Axis(3, 0, 3, 1)] * nd
            for size in (10, 2 ** 31):
                specs.append(gk.gather_spec(isz, axes, [0] * nd, size))
    assert len({s.kkey for s in specs}) == len(specs)
    COMPILE(batch_sources(specs))


def test_sources_are_deterministic():
    axes = [gk.Axis(3, 0, 3, 1)] * 2
    a = gk.gather_spec(4, axes, [0, 0], 9).source()
    assert a == gk.gather_spec(4, axes, [0, 0], 9).source()
    assert "gpuarr_gather" in a


# ---------------------------------------------------------------------------
# the array layer on the fake libcuda, kernels emulated on the host

FAKE = GATHER_EMU + """
import gpuarr as G
from gpuarr import _gatherkernels as gk
import gpuarr.elementwise as ew

class GatherEmu:
    def __init__(self, spec):
        self.spec = spec
    def prepared_async_call(self, grid, block, stream, src, dst, tab, *tail):
        sp = self.spec
        assert tuple(tail) == sp.tail and block == sp.block
        LAUNCHES.append(("gather", sp.kkey))
        raw = np.dtype("V%d" % sp.kkey[1])
        vals = gather_emulate(sp, lambda i: _read(tab, i, np.dtype(np.int64)),
                              lambda o: _read(src, o, raw))
        _write(dst, np.arange(vals.size), vals)

_join_or_take = jk.function
jk.function = lambda spec: (GatherEmu(spec) if spec.template == "gather.cu.mako"
                            else _join_or_take(spec))

def _offs(a):
    if not a.shape:
        return np.zeros(1, np.int64)
    c = np.indices(a.shape).reshape(len(a.shape), -1)
    st = np.array([s // a.dtype.itemsize for s in a.strides])
    return (c * st[:, None]).sum(0)

def ew_emu(op, outputs, inputs, *, loop_dtypes=None, stream=None):
    o = outputs[0]
    LAUNCHES.append(("ew", op))
    n = int(np.prod(o.shape))
    if not n:
        return
    def get(x):
        if hasattr(x, "ptr"):
            return _read(x.ptr, _offs(x), x.dtype)
        return np.full(n, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if op == "copy":
            vals = get(inputs[0]).astype(o.dtype)
        else:
            assert op == "where"
            vals = np.where(get(inputs[0]).astype(bool),
                            get(inputs[1]).astype(o.dtype),
                            get(inputs[2]).astype(o.dtype))
    _write(o.ptr, _offs(o), vals)
ew.run_elementwise = ew_emu

def eq(got, want):
    want = np.asarray(want)
    assert isinstance(got, G.GPUArray), type(got)
    h = got.get()
    assert h.shape == want.shape and h.dtype == want.dtype, (h.shape, h.dtype, want.shape, want.dtype)
    assert h.tobytes() == np.ascontiguousarray(want).tobytes(), (h, want)

def dev_layouts(h):
    out = [gpu(h)]
    if h.ndim:
        rev = tuple(slice(None, None, -1) for _ in h.shape)
        out.append(gpu(np.ascontiguousarray(h[rev]))[rev])
        out.append(gpu(np.ascontiguousarray(h.T)).T)
    return out

def launches():
    n = len(LAUNCHES)
    del LAUNCHES[:]
    return n
"""


def _check(lib, code):
    from test_gpuarray_fake import check
    from test_joining_cpu import EMULATE
    return check(lib, EMULATE + FAKE + textwrap.dedent(code))


def test_fake_results_match_numpy_one_launch_each(fake_lib):
    _check(fake_lib, """
        for dt in DTYPES:
            h = rand((3, 4), dt)
            for a in dev_layouts(h):
                hv = a.get()
                launches()
                eq(G.tile(a, (2, 1, 3)), np.tile(hv, (2, 1, 3)))
                eq(G.tile(a, 2), np.tile(hv, 2))
                eq(G.repeat(a, 3, axis=1), np.repeat(hv, 3, axis=1))
                eq(G.repeat(a, [1, 0, 2], axis=0), np.repeat(hv, [1, 0, 2], axis=0))
                eq(G.roll(a, (1, -5), axis=(0, 1)), np.roll(hv, (1, -5), axis=(0, 1)))
                eq(G.tril(a, 1), np.tril(hv, 1))
                eq(G.triu(a, -1), np.triu(hv, -1))
                eq(G.pad(a, ((1, 2), (3, 0)), "reflect"), np.pad(hv, ((1, 2), (3, 0)), "reflect"))
                eq(G.pad(a, 2, constant_values=((hv.flat[0], hv.flat[1]), (hv.flat[2], hv.flat[3]))),
                   np.pad(hv, 2, constant_values=((hv.flat[0], hv.flat[1]), (hv.flat[2], hv.flat[3]))))
                eq(G.diag(a, 1), np.diag(hv, 1))
                assert len(LAUNCHES) == 10, (dt, LAUNCHES)
                launches()
            v = gpu(rand((4,), dt))
            eq(G.diag(v, -2), np.diag(v.get(), -2))
            eq(G.diagflat(v, 1), np.diagflat(v.get(), 1))
            m2 = dev_layouts(rand((2, 3), dt))[-1]
            eq(G.diagflat(m2, -1), np.diagflat(m2.get(), -1))
            eq(G.repeat(v, 2), np.repeat(v.get(), 2))
            eq(G.roll(v, 7), np.roll(v.get(), 7))
            eq(G.tril(v), np.tril(v.get()))
            s = gpu(rand((), dt))
            eq(G.repeat(s, 3), np.repeat(s.get(), 3))
            eq(G.pad(s, 3), np.pad(s.get(), 3))
            eq(G.tile(s, (2, 2)), np.tile(s.get(), (2, 2)))
            eq(G.roll(s, 1), np.roll(s.get(), 1))
        # empty inputs and results
        e = gpu(np.zeros((0, 3), "f4"))
        for fn in (lambda m, x: m.tile(x, 2), lambda m, x: m.repeat(x, 2, axis=1),
                   lambda m, x: m.roll(x, 1, axis=1), lambda m, x: m.tril(x),
                   lambda m, x: m.pad(x, 1), lambda m, x: m.pad(x, ((0, 0), (1, 1)), "edge")):
            eq(fn(G, e), fn(np, e.get()))
        # grids
        x, y = gpu(np.arange(3.0)), gpu(np.arange(4, dtype="i2"))
        for sparse in (False, True):
            for indexing in ("xy", "ij"):
                for copy in (False, True):
                    got = G.meshgrid(x, y, copy=copy, sparse=sparse, indexing=indexing)
                    want = np.meshgrid(x.get(), y.get(), copy=copy, sparse=sparse, indexing=indexing)
                    assert isinstance(got, tuple) and len(got) == 2
                    for g, w in zip(got, want):
                        eq(g, w)
        assert G.meshgrid() == ()
        for dims in [(2, 3), (4,), (), (2, 0, 3)]:
            for dt in ("i8", "f4", "u1"):
                eq(G.indices(dims, dt), np.indices(dims, dt))
                gs, ws = G.indices(dims, dt, sparse=True), np.indices(dims, dt, sparse=True)
                assert len(gs) == len(ws)
                for g, w in zip(gs, ws):
                    eq(g, w)
        # copyto
        for dt in DTYPES:
            d = gpu(rand((3, 4), dt))
            want = d.get()
            src = rand((4,), dt)
            m = rng.integers(0, 2, (3, 4)).astype(bool)
            G.copyto(d, gpu(src), where=gpu(m))
            np.copyto(want, src, where=m)
            eq(d, want)
            G.copyto(d[:, ::-1], src)
            np.copyto(want[:, ::-1], src)
            eq(d, want)
            G.copyto(d, 1, where=m[0], casting="unsafe")
            np.copyto(want, 1, where=m[0], casting="unsafe")
            eq(d, want)
        d = gpu(np.zeros(5, "i8"))
        G.copyto(d, np.arange(5, dtype="i4"), where=[True, False, True, False, True])
        eq(d, [0, 0, 2, 0, 4])
        G.copyto(d[1:], d[:-1])          # overlapping: numpy's result
        eq(d, [0, 0, 0, 2, 0])
    """)


def test_fake_errors_are_numpys_before_any_launch(fake_lib):
    _check(fake_lib, """
        h = rand((2, 3), "f8")
        a = gpu(h)
        h1 = rand((3,), "i4")
        a1 = gpu(h1)
        def A(m):
            return h if m is np else a
        def A1(m):
            return h1 if m is np else a1
        h8, hb = h1.astype(np.int8), h1.astype(bool)
        a8, ab = gpu(h8), gpu(hb)
        def A8(m):
            return h8 if m is np else a8
        def AB(m):
            return hb if m is np else ab
        cases = [
            lambda m: m.tile(A(m), -1),
            lambda m: m.tile(A(m), 1.5),
            lambda m: m.tile(A(m), [[2]]),
            lambda m: m.repeat(A(m), -1),
            lambda m: m.repeat(A(m), [1, 2]),
            lambda m: m.repeat(A(m), [1, -2], axis=0),
            lambda m: m.repeat(A(m), 2, axis=2),
            lambda m: m.repeat(A(m), np.array([1.5, 2]), axis=0),
            lambda m: m.repeat(A(m), np.array([1, 2], np.uint64), axis=0),
            lambda m: m.repeat(A(m), None),
            lambda m: m.repeat(A(m), np.array([[1, 2]]), axis=0),
            lambda m: m.roll(A(m), 1, axis=2),
            lambda m: m.roll(A(m), (1, 2, 3), axis=(0, 1)),
            lambda m: m.roll(A(m), [[1]], axis=0),
            lambda m: m.roll(A(m), 1, axis=1.0),
            lambda m: m.roll(A(m), None),
            lambda m: m.diag(A(m)[None] if m is np else A(m).reshape(1, 2, 3)),
            lambda m: m.diag(A(m), 1.5),
            lambda m: m.diag(A1(m), 2.0),
            lambda m: m.diagflat(A(m), 1.5),
            lambda m: m.tril(A(m)[0, 0] if m is np else A(m).reshape(6)[0]),
            lambda m: m.tril(A(m), "x"),
            lambda m: m.triu(A(m), None),
            lambda m: m.trace(A1(m)),
            lambda m: m.trace(A(m), axis1=0, axis2=0),
            lambda m: m.trace(A(m), axis1=0, axis2=5),
            lambda m: m.trace(A(m), axis1=-3),
            lambda m: m.trace(A(m), offset=1.5),
            lambda m: m.trace(A(m), dtype="xx"),
            lambda m: m.meshgrid(A1(m), indexing="xx"),
            lambda m: m.indices((-1,)),
            lambda m: m.indices(3),
            lambda m: m.indices((2, 3), dtype=bool),
            lambda m: m.indices((2.0, 3)),
            lambda m: m.pad(A(m), 1.5),
            lambda m: m.pad(A(m), -1),
            lambda m: m.pad(A(m), ((1, 2), (3, -1))),
            lambda m: m.pad(A(m), ((1, 2), (3, 4), (5, 6))),
            lambda m: m.pad(A(m), 1, "bogus"),
            lambda m: m.pad(A(m), 1, "edge", constant_values=3),
            lambda m: m.pad(A(m), 1, "constant", reflect_type="odd"),
            lambda m: m.pad(A(m), 1, constant_values=((1, 2, 3),)),
            lambda m: m.pad(A(m)[:0], 1, "wrap"),
            lambda m: m.pad(A8(m), 1, constant_values=[[300, 1]]),
            lambda m: m.copyto(A(m), np.ones(2)),
            lambda m: m.copyto(A(m), np.ones((2, 3)), casting="xx"),
            lambda m: m.copyto(A(m), np.ones((2, 3), complex)),
            lambda m: m.copyto(A1(m), 300.0),
            lambda m: m.copyto(A8(m), 300),
            lambda m: m.copyto(AB(m), 5),
            lambda m: m.copyto(A1(m), np.int64(5), casting="safe"),
            lambda m: m.copyto(A1(m), np.arange(3.0)),
            lambda m: m.copyto(A1(m), np.arange(3), where=np.array([1, 0, 1])),
            lambda m: m.copyto(A1(m), 1, where=[True, False]),
            lambda m: m.copyto([1, 2, 3], 1),
        ]
        for k, fn in enumerate(cases):
            exc, msg = numpy_error(lambda: fn(np))
            c0 = copies()
            launches()
            e = raises(Exception, lambda: fn(G))
            assert isinstance(e, exc), (k, type(e), e, exc, msg)
            assert c0 == copies() and not LAUNCHES, (k, msg)
        # numpy's modes and options gpuarr has no kernel for
        for kw in ({"mode": "mean"}, {"mode": "reflect", "reflect_type": "odd"},
                   {"mode": lambda *x: None}):
            raises(NotImplementedError, lambda: G.pad(a, 1, **kw))
        # what numpy accepts, gpuarr too: float shifts and repeats, a dict
        # of widths, per-axis constants, Python scalars in copyto
        eq(G.roll(a1, 2.7), np.roll(h1, 2.7))
        eq(G.repeat(a1, [1.5, 2, 0]), np.repeat(h1, [1.5, 2, 0]))
        eq(G.pad(a, {1: (1, 2)}), np.pad(h, {1: (1, 2)}))
        eq(G.tril(a, 1.5), np.tril(h, 1.5))
        for k in (0.5, -0.5, 1.5, -1.5, 2.25, np.float32(-2.75), -0.25, 1.0):
            eq(G.triu(a, k), np.triu(h, k))
            eq(G.tril(a, k), np.tril(h, k))
        d = gpu(np.zeros(3, "f4"))
        G.copyto(d, 5, casting="no")
        eq(d, np.full(3, 5, "f4"))
        G.copyto(d, 7, where=None)
        eq(d, np.full(3, 5, "f4"))
    """)
