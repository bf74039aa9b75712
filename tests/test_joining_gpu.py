"""GPU checks of joining and gathering against numpy: concatenate, stack,
hstack, vstack, dstack, column_stack, take, multi_take, multi_put.

Fresh random inputs, every dtype, mixed dtypes (every cast pair), few
inputs (copied one by one) and many (one kernel launch), empty inputs,
0-size axes, non-contiguous and negative-stride inputs, every axis,
poisoned outputs, negative and out-of-range indices.  Joins move values
exactly (casts are numpy's), so results must match bit for bit.
"""
import warnings

import numpy as np
import pytest

import gpuarr
import gpuarr.driver as drv
from gpuarr import _joining

from test_pyapi_gpu import scribble_freed, stalled_stream

pytestmark = pytest.mark.gpu

ALL = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64,
                             np.uint8, np.uint16, np.uint32, np.uint64,
                             np.float16, np.float32, np.float64, np.complex64,
                             np.complex128)]
INDEX = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                               np.uint8, np.uint16, np.uint32, np.uint64)]
MANY = 37


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(20261202)


def rand(shape, dtype, nonneg=False):
    """Random values of ``dtype``, never all zero; ``nonneg``: in [0, 100)
    (every cast of such a value is exact and defined in C and numpy)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        x = _rng.integers(0, 2, shape).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo = 0 if nonneg else max(info.min, -10 ** 6)
        x = _rng.integers(lo, min(info.max, 99 if nonneg else 10 ** 6), shape,
                          endpoint=True).astype(dt)
    elif dt.kind == "f":
        x = _rng.uniform(0 if nonneg else -50, 99, shape).astype(dt)
    else:
        x = (_rng.uniform(0 if nonneg else -50, 99, shape)
             + 1j * _rng.uniform(-50, 50, shape)).astype(dt)
    x = np.asarray(x, dt)
    if x.size and not x.any():
        x.flat[0] = 1
    return x


def poisoned(shape, dtype):
    """A device array of garbage: NaN floats, 0x5A bytes otherwise (a bool
    byte that is neither 0 nor 1)."""
    a = gpuarr.empty(shape, dtype)
    if a.nbytes:
        if a.dtype.kind in "fc":
            a.fill(np.nan)
        else:
            drv.memset_d8(a.ptr, 0x5A, a.nbytes)
    return a


def poison_host(shape, dtype):
    return poisoned(shape, dtype).get()


def same(got, want):
    """Shape, dtype and every byte equal (NaN payloads too)."""
    assert isinstance(got, gpuarr.GPUArray), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    host = got.get()
    assert host.tobytes() == np.ascontiguousarray(want).tobytes(), (host, want)


def layouts(h, which=None):
    """(device array, the same values on the host) in several layouts:
    contiguous, a strided slice, reversed along every axis, transposed;
    only layout ``which % 4`` when given."""
    makers = [lambda: gpuarr.to_gpu(h)]
    if h.ndim:
        def strided():
            big = np.zeros(tuple(2 * n + 1 for n in h.shape), h.dtype)
            sl = tuple(slice(1, 2 * n + 1, 2) for n in h.shape)
            big[sl] = h
            return gpuarr.to_gpu(big)[sl]

        def reversed_():
            rev = tuple(slice(None, None, -1) for _ in h.shape)
            return gpuarr.to_gpu(np.ascontiguousarray(h[rev]))[rev]

        makers += [strided, reversed_,
                   lambda: gpuarr.to_gpu(np.ascontiguousarray(h.T)).T]
    if which is not None:
        makers = [makers[which % len(makers)]]
    return [(m(), h) for m in makers]


def pick_layouts(hosts):
    """A device array per host array, cycling through the layouts."""
    return [layouts(h, k)[0][0] for k, h in enumerate(hosts)]


def np_quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# ---------------------------------------------------------------------------
# concatenate


@pytest.mark.parametrize("dt", ALL, ids=str)
@pytest.mark.parametrize("count", [2, 4, 5, MANY])
def test_concatenate_every_dtype_axis_layout(dt, count):
    for axis in (0, 1, 2, -1, -2):
        hosts = []
        for k in range(count):
            shape = [3, 5, 4]
            shape[axis] = (k * 5 + 2) % 7        # 0-length parts too
            hosts.append(rand(tuple(shape), dt))
        devs = pick_layouts(hosts)
        same(gpuarr.concatenate(devs, axis=axis),
             np.concatenate(hosts, axis=axis))


@pytest.mark.parametrize("out_dt", ALL, ids=str)
def test_concatenate_casts_every_pair(out_dt):
    """One input of every dtype: the many-inputs kernel casts each into
    ``out_dt``; and the few-inputs path (elementwise copies) for pairs."""
    hosts = [rand((4, 3 + k % 3), dt, nonneg=True) for k, dt in enumerate(ALL)]
    devs = pick_layouts(hosts)
    want = np_quiet(np.concatenate, hosts, axis=1, dtype=out_dt,
                    casting="unsafe")
    same(np_quiet(gpuarr.concatenate, devs, axis=1, dtype=out_dt,
                  casting="unsafe"), want)
    out = poisoned(want.shape, out_dt)
    assert gpuarr.concatenate(devs, axis=1, out=out, casting="unsafe") is out
    same(out, want)
    for k in range(0, len(ALL), 2):
        pair_h, pair_d = hosts[k:k + 2], devs[k:k + 2]
        same(gpuarr.concatenate(pair_d, axis=-1, dtype=out_dt, casting="unsafe"),
             np_quiet(np.concatenate, pair_h, axis=-1, dtype=out_dt,
                      casting="unsafe"))


def test_concatenate_promotes_like_numpy():
    for dts in (["i1", "u1"], ["f2", "i2", "u1", "b1", "i1"], ["u8", "i8"],
                ["f4", "c8", "i8", "u2", "f2", "b1"], ["u4"] * 3 + ["i4"] * 3):
        hosts = [rand((2, 3), dt, nonneg=True) for dt in dts]
        got = gpuarr.concatenate(pick_layouts(hosts))
        same(got, np.concatenate(hosts))


def test_concatenate_many_inputs_4d_every_axis_and_none():
    for axis in (0, 1, 2, 3, -4, None):
        hosts = []
        for k in range(MANY):
            shape = [2, 3, 4, 3]
            if axis is not None:
                shape[axis] = k % 4
            else:
                shape = [k % 5, 2]
            hosts.append(rand(tuple(shape), ALL[k % len(ALL)], nonneg=True))
        devs = pick_layouts(hosts)
        same(gpuarr.concatenate(devs, axis=axis),
             np.concatenate(hosts, axis=axis))


def test_concatenate_zero_size():
    # empty inputs among non-empty ones, a 0-size axis off the join axis,
    # all inputs empty
    for count in (3, MANY):
        hosts = [rand((k % 3, 4), "f4") for k in range(count)]
        same(gpuarr.concatenate(pick_layouts(hosts)), np.concatenate(hosts))
        hosts = [rand((k % 3, 0), "i2") for k in range(count)]
        same(gpuarr.concatenate(pick_layouts(hosts)), np.concatenate(hosts))
        hosts = [rand((0, 5), "c8") for k in range(count)]
        same(gpuarr.concatenate(pick_layouts(hosts), axis=1),
             np.concatenate(hosts, axis=1))


@pytest.mark.parametrize("count", [3, MANY])
def test_concatenate_into_poisoned_strided_out(count):
    hosts = [rand((3, 1 + k % 4), "f8") for k in range(count)]
    want_part = np.concatenate(hosts, axis=1)
    base = poisoned((5, 2 * want_part.shape[1]), "f8")
    before = base.get()
    view = base[1:4, ::-2]
    assert gpuarr.concatenate(pick_layouts(hosts), axis=1, out=view) is view
    want = before.copy()
    want[1:4, ::-2] = want_part
    same(base, want)


def test_concatenate_out_overlapping_inputs():
    # numpy's answer when the inputs are views of the output
    for count in (2, 6):
        h = rand((count * 3,), "i4")
        a = gpuarr.to_gpu(h)
        parts_h = [h[::-1][k::count].copy() for k in range(count)]
        parts_d = [a[::-1][k::count] for k in range(count)]
        want = np.concatenate(parts_h)
        gpuarr.concatenate(parts_d, out=a)
        same(a, want)


def test_concatenate_on_a_stream():
    s = drv.Stream()
    for count in (3, MANY):
        hosts = [rand((4, k % 3 + 1), "u2") for k in range(count)]
        devs = pick_layouts(hosts)
        got = gpuarr.concatenate(devs, axis=1, stream=s)
        s.synchronize()
        same(got, np.concatenate(hosts, axis=1))


def test_join_temporaries_outlive_the_stream_work():
    # host inputs' device copies, axis=None's flattening copies and a
    # take's host values are given back only after the stream's work
    # (a stalled non-blocking stream; freed blocks are scribbled at once)
    h = [rand((40, 30), np.float64) for _ in range(3)]
    d1 = gpuarr.to_gpu(h[1])
    st = stalled_stream()
    got = gpuarr.concatenate([h[0], d1, h[2]], stream=st)
    keep = scribble_freed([h[0].nbytes])
    st.synchronize()
    same(got, np.concatenate(h))
    del keep
    big = rand((40, 60), np.float32)
    dv = gpuarr.to_gpu(big)[:, ::2]          # its reshape(-1) copies
    st = stalled_stream()
    got = gpuarr.concatenate([dv, dv], axis=None, stream=st)
    keep = scribble_freed([40 * 30 * 4])
    st.synchronize()
    same(got, np.concatenate([big[:, ::2]] * 2, axis=None))
    del keep
    hs = [rand((7, 3), np.int32) for _ in range(MANY)]
    st = stalled_stream()
    got = gpuarr.stack(hs, axis=1, stream=st)
    keep = scribble_freed([7 * 3 * 4], MANY)
    st.synchronize()
    same(got, np.stack(hs, axis=1))
    del keep
    v = rand((500,), np.int16)
    idx = gpuarr.to_gpu(_indices(300, 500, np.int32))
    st = stalled_stream()
    got = gpuarr.multi_take([v], idx, stream=st, mode="wrap")
    keep = scribble_freed([v.nbytes])
    st.synchronize()
    same(got[0], np.take(v, idx.get(), mode="wrap"))
    del keep


def test_concatenate_back_to_back_through_the_staging_ring():
    # more joins in flight than staging slots, each table different: a
    # slot rewritten before its upload ran would corrupt a result
    from gpuarr import _joinkernels
    hosts = [rand((3, 2000), "f4") for _ in range(12)]
    devs = [gpuarr.to_gpu(h) for h in hosts]
    big = gpuarr.to_gpu(rand((4000, 4000), "f4"))
    results, wants = [], []
    for k in range(3 * _joinkernels.STAGING_SLOTS):
        busy = big * 2                 # keeps the stream busy between joins
        sel = [(k + j) % 12 for j in range(5 + k % 6)] + [k % 12]   # repeats
        results.append(gpuarr.concatenate([devs[j] for j in sel], axis=k % 2))
        del busy
        wants.append(np.concatenate([hosts[j] for j in sel], axis=k % 2))
    for got, want in zip(results, wants):
        same(got, want)


def test_concatenate_more_rows_than_shared_memory_holds_and_long_rows():
    # more inputs than the kernel's shared table (SHARED_ROWS: the search
    # reads the table in global memory), lengths that leave the parts'
    # addresses at every alignment (raw units of 8 and 16 bytes, or 4),
    # some inputs cast
    from gpuarr import _joinkernels
    n = _joinkernels.SHARED_ROWS + 300
    lens = [int(x) for x in _rng.integers(0, 41, n)]
    hosts = [rand((m,), "f4" if k % 7 else "i2") for k, m in enumerate(lens)]
    same(gpuarr.concatenate([gpuarr.to_gpu(h) for h in hosts]),
         np.concatenate(hosts))
    # all contiguous of one dtype: the table built with numpy
    # (_joining._VECTOR_BUILD), along axis 0 and along axis 1 of 2-D parts,
    # parts of one unit per row included
    from gpuarr import _joining
    hosts = [rand((m,), "f2") for m in lens]
    same(gpuarr.concatenate([gpuarr.to_gpu(h) for h in hosts]),
         np.concatenate(hosts))
    hosts = [rand((3, 1 + k % 9), "c8") for k in range(_joining._VECTOR_BUILD + 5)]
    same(gpuarr.concatenate([gpuarr.to_gpu(h) for h in hosts], axis=1),
         np.concatenate(hosts, axis=1))
    # more chunks than the persistent grid's blocks: each block loops, rows
    # of several chunks, same dtype (16-byte units) and a cast one
    hosts = [rand((2 ** 20 + 3 * k,), "f4") for k in range(6)] + [rand((99_999,), "u2")]
    devs = [gpuarr.to_gpu(h) for h in hosts]
    got = gpuarr.concatenate(devs)
    same(got, np.concatenate(hosts))
    two = [d.reshape(-1)[: (d.size // 4) * 4].reshape(4, -1) for d in devs]
    same(gpuarr.concatenate(two, axis=1),
         np.concatenate([t.get() for t in two], axis=1))


def test_join_of_many_parts_alike():
    # many C-contiguous parts of one shape and dtype (_joining._join_alike):
    # along each axis, stacked, on a stream; one part a strided view or of
    # another dtype takes the general path
    from gpuarr import _joining
    k = _joining._VECTOR_BUILD + 3
    for dt in ("f4", "u1", "c16", "i2"):
        hosts = [rand((3, 5, 2), dt) for _ in range(k)]
        devs = [gpuarr.to_gpu(h) for h in hosts]
        for ax in (0, 1, 2, -1):
            poisoned((3 * 5 * 2 * k,), dt)
            same(gpuarr.concatenate(devs, axis=ax),
                 np.concatenate(hosts, axis=ax))
        same(gpuarr.stack(devs, axis=1), np.stack(hosts, axis=1))
    s = drv.Stream()
    same(gpuarr.concatenate(devs, axis=1, stream=s),
         np.concatenate(hosts, axis=1))
    wide = gpuarr.to_gpu(rand((3, 10, 2), "i2"))
    odd = devs[:5] + [wide[:, ::2]] + devs[5:]
    same(gpuarr.concatenate(odd, axis=2),
         np.concatenate([h for h in hosts[:5]] + [wide.get()[:, ::2]]
                        + hosts[5:], axis=2))
    other = devs[:-1] + [gpuarr.to_gpu(hosts[-1].astype("f4"))]
    same(gpuarr.concatenate(other),
         np.concatenate(hosts[:-1] + [hosts[-1].astype("f4")]))
    assert gpuarr.concatenate(other).dtype == np.float32
    for bad in ([gpuarr.to_gpu(rand((3, 4, 2), "i2"))] + devs[1:],
                devs[:-1] + [gpuarr.to_gpu(rand((3, 5), "i2"))]):
        with pytest.raises(ValueError):
            gpuarr.concatenate(bad, axis=0)


@pytest.mark.parametrize("alike,unroll,bps", [
    (True, 4, 8), (True, 8, 4), (False, 4, 8)])
def test_join_of_many_large_parts_alike(monkeypatch, alike, unroll, bps):
    # parts of many chunks each (the grid's loop over all parts' chunks,
    # a part's last chunk ending inside it), every unit width: 16-byte
    # units (c16), odd row bytes (u1: 1-byte units), rows of the output
    # with a division (axis 1); the alike kernel at another unroll and
    # launch bound, and the general kernel (ALIKE off) must give the same
    # bytes
    from gpuarr import _joinkernels
    monkeypatch.setattr(_joinkernels, "_RECENT_JOINS", {})
    monkeypatch.setattr(_joinkernels, "ALIKE", alike)
    monkeypatch.setattr(_joinkernels, "UNROLL", unroll)
    monkeypatch.setattr(_joinkernels, "BLOCKS_PER_SM", bps)
    k = _joining._VECTOR_BUILD + 2
    for dt, shape in (("f4", (7, 3001)), ("u1", (3, 4097)),
                      ("c16", (2, 1500)), ("i2", (5, 2, 1027))):
        hosts = [rand(shape, dt) for _ in range(k)]
        devs = [gpuarr.to_gpu(h) for h in hosts]
        for ax in range(len(shape)):
            poisoned((k * hosts[0].size,), dt)
            same(gpuarr.concatenate(devs, axis=ax),
                 np.concatenate(hosts, axis=ax))


def test_join_of_more_parts_than_blocks_alike():
    # parts of one or two chunks each and many more parts than the grid's
    # blocks: one step of the grid passes hundreds of parts (the alike
    # kernel's division where a step leaves its part), along axis 0 and
    # along axis 1 (rows)
    from gpuarr import _joinkernels
    blocks = _joinkernels.capped_grid(2 ** 30, _joinkernels.BLOCKS_PER_SM)[0]
    chunk = _joinkernels.BLOCK * _joinkernels.UNROLL * 4  # f4, 16-byte units
    for nparts, shape in ((3 * blocks + 7, (333,)),
                          (2 * blocks + 1, (chunk + 4,)),
                          (blocks + 5, (2, chunk // 2 + 2))):
        hosts = [rand(shape, "f4") for _ in range(nparts)]
        devs = [gpuarr.to_gpu(h) for h in hosts]
        for ax in range(len(shape)):
            poisoned((nparts * hosts[0].size,), "f4")
            same(gpuarr.concatenate(devs, axis=ax),
                 np.concatenate(hosts, axis=ax))
        del devs


@pytest.mark.huge
@pytest.mark.parametrize("axis", [0, 1])
def test_join_alike_64bit_positions(axis):
    # parts alike whose join passes 2**31 units (1-byte units: the row
    # bytes are odd), along axis 0 (no rows) and axis 1 (rows): the alike
    # kernel's 64-bit path
    k = _joining._VECTOR_BUILD
    per = 2 ** 25 + 1
    shape = (2, per) if axis == 1 else (2 * per,)
    parts = [gpuarr.zeros(shape, np.uint8) + np.uint8(k + 1 - j)
             for j in range(k)]
    parts[-1][..., -1:] = np.uint8(200)
    got = gpuarr.concatenate(parts, axis=axis)
    assert got.size == 2 * per * k > 2 ** 31
    want = np.concatenate([np.full(shape, k + 1 - j, np.uint8)
                           for j in range(k)], axis=axis)
    want[..., -1:] = 200
    np.testing.assert_array_equal(got.get(), want)
    del parts, got


def test_concatenate_host_and_interface_inputs():
    hosts = [rand((2, 2), "f4") for _ in range(6)]
    mixed = [hosts[0], gpuarr.to_gpu(hosts[1])] + [gpuarr.to_gpu(h) for h in hosts[2:]]
    same(gpuarr.concatenate(mixed), np.concatenate(hosts))


@pytest.mark.huge
def test_concatenate_64bit_offsets():
    # a part of more than 2**31 elements: the kernel's 64-bit index path
    n = 2 ** 31 + 5
    big = gpuarr.zeros(n, np.uint8) + np.uint8(1)
    parts = [big] + [gpuarr.to_gpu(np.full(3, k + 2, np.uint8)) for k in range(4)]
    got = gpuarr.concatenate(parts)
    assert got.size == n + 12
    for at in (0, 2 ** 31 - 1, 2 ** 31, n - 1):
        assert int(got[at].get()) == 1
    np.testing.assert_array_equal(got[n:].get(), np.repeat(np.arange(2, 6), 3))
    del big, parts, got


# ---------------------------------------------------------------------------
# stack and friends


@pytest.mark.parametrize("count", [2, MANY])
def test_stack_every_axis(count):
    for shape in ((), (4,), (3, 5), (0, 2), (2, 3, 4)):
        hosts = [rand(shape, ALL[k % len(ALL)], nonneg=True) for k in range(count)]
        devs = pick_layouts(hosts)
        for axis in range(-len(shape) - 1, len(shape) + 1):
            same(gpuarr.stack(devs, axis=axis), np.stack(hosts, axis=axis))
        out = poisoned((count,) + shape, np.result_type(*hosts))
        assert gpuarr.stack(devs, out=out) is out
        same(out, np.stack(hosts))


@pytest.mark.parametrize("count", [3, MANY])
def test_hstack_vstack_dstack_column_stack(count):
    for shape in ((), (5,), (3, 4), (2, 3, 2)):
        hosts = [rand(shape, "f4" if k % 2 else "i2", nonneg=True)
                 for k in range(count)]
        devs = pick_layouts(hosts)
        for name in ("hstack", "vstack", "dstack", "column_stack"):
            if name == "column_stack" and len(shape) > 2:
                continue
            same(getattr(gpuarr, name)(devs), getattr(np, name)(hosts))
    # the shapes numpy's rules allow to differ
    a, b = rand((3,), "f8"), rand((3, 1), "f8")
    same(gpuarr.column_stack([gpuarr.to_gpu(a), gpuarr.to_gpu(b)]),
         np.column_stack([a, b]))
    a, b = rand((2, 3), "u1"), rand((3,), "u1")
    same(gpuarr.vstack([gpuarr.to_gpu(a), gpuarr.to_gpu(b)]), np.vstack([a, b]))


# ---------------------------------------------------------------------------
# take, multi_take, multi_put


def _indices(n, size, dt, neg=True):
    dt = np.dtype(dt)
    hi = min(size, np.iinfo(dt).max + 1) - 1
    lo = -min(size, -np.iinfo(dt).min) if (neg and dt.kind == "i") else 0
    return _rng.integers(lo, hi, n, endpoint=True).astype(dt)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_take_every_dtype(dt):
    h = rand((1001,), dt)
    a = gpuarr.to_gpu(h)
    for idt in INDEX:
        ih = _indices(777, h.size, idt)
        same(gpuarr.take(a, gpuarr.to_gpu(ih)), np.take(h, ih))
    # bool indices are 0 and 1 (numpy converts them to intp)
    ib = rand((9,), bool)
    same(gpuarr.take(a, gpuarr.to_gpu(ib)), np.take(h, ib))


def test_take_layouts_shapes_out_and_streams():
    h = rand((7, 9), "c16")
    ih = _indices((4, 5, 3), h.size, "i8")
    for dev, host in layouts(h):
        for idx_dev, idx_host in layouts(ih):
            same(gpuarr.take(dev, idx_dev), np.take(host, idx_host))
    a = gpuarr.to_gpu(h)
    # out: poisoned, same dtype, written in place; another dtype: cast
    out = poisoned(ih.shape, "c16")
    assert gpuarr.take(a, gpuarr.to_gpu(ih), out=out) is out
    same(out, np.take(h, ih))
    hr = rand((50,), "f8")
    out = poisoned((30,), "f4")
    ir = _indices(30, 50, "i4")
    gpuarr.take(gpuarr.to_gpu(hr), gpuarr.to_gpu(ir), out=out)
    same(out, np.take(hr, ir, out=np.empty(30, np.float32)))
    # strided out
    base = poisoned((60,), "f8")
    before = base.get()
    gpuarr.take(gpuarr.to_gpu(hr), gpuarr.to_gpu(ir), out=base[::2])
    before[::2] = np.take(hr, ir)
    same(base, before)
    s = drv.Stream()
    for mode in ("raise", "wrap", "clip"):
        got = gpuarr.take(a, gpuarr.to_gpu(ih), stream=s, mode=mode)
        s.synchronize()
        same(got, np.take(h, ih, mode=mode))
    # empty indices, 0-d indices
    same(gpuarr.take(a, gpuarr.to_gpu(np.zeros(0, np.int32))),
         np.take(h, np.zeros(0, np.int32)))
    same(gpuarr.take(a, gpuarr.to_gpu(np.array(-3))), np.take(h, np.array(-3)))


def test_take_modes_and_out_of_range():
    h = rand((13,), "i4")
    a = gpuarr.to_gpu(h)
    wild = np.array([-40, -14, -13, -1, 0, 12, 13, 14, 99, 2 ** 40,
                     -2 ** 63, 2 ** 63 - 1], np.int64)
    # numpy's wrap steps one size at a time (for ever for these extremes):
    # its answer by a modulo
    same(gpuarr.take(a, gpuarr.to_gpu(wild), mode="wrap"), h[wild % h.size])
    same(gpuarr.take(a, gpuarr.to_gpu(wild), mode="clip"),
         np.take(h, wild, mode="clip"))
    small = wild[:9]
    same(gpuarr.take(a, gpuarr.to_gpu(small), mode="wrap"),
         np.take(h, small, mode="wrap"))
    for bad in ([3, 13, 2], [-14], np.arange(-13, 14), [0] * 5000 + [99, -99],
                np.array([2 ** 63 + 5], np.uint64),
                np.array([255], np.uint8)):
        bad = np.asarray(bad)
        with pytest.raises(IndexError) as want:
            np.take(h, bad)
        with pytest.raises(IndexError) as got:
            gpuarr.take(a, gpuarr.to_gpu(bad))
        assert str(got.value) == str(want.value)
    # the error leaves the context healthy
    same(gpuarr.take(a, gpuarr.to_gpu(np.array([1, -1]))), np.take(h, [1, -1]))
    with pytest.raises(IndexError):
        gpuarr.take(gpuarr.zeros(0, np.float32), gpuarr.to_gpu(np.array([0])),
                    mode="wrap")


@pytest.mark.parametrize("stream,bps", [(True, 0), (False, 0), (True, 8),
                                        (False, 1)])
def test_take_cache_hints(stream, bps, monkeypatch):
    # the take kernel with and without the streaming hints, every unit
    # width, sizes that leave partial blocks, every mode, the first bad
    # index found wherever it falls; grids of a block an index block (0),
    # of eight blocks an SM and of one (a long loop)
    from gpuarr import _joinkernels as jk
    monkeypatch.setattr(jk, "TAKE_STREAM", stream)
    monkeypatch.setattr(jk, "TAKE_BLOCKS_PER_SM", bps)
    for dt in ("u1", "f2", "f4", "f8", "c16"):
        h = rand((3001,), dt)
        a = gpuarr.to_gpu(h)
        for n in (1, 255, 257, 4099, 70001):
            ih = _indices(n, h.size, "i8")
            out = poisoned((n,), dt)
            assert gpuarr.take(a, gpuarr.to_gpu(ih), out=out) is out
            same(out, np.take(h, ih))
        wild = _rng.integers(-10 ** 6, 10 ** 6, 9000)
        for mode in ("wrap", "clip"):
            same(gpuarr.take(a, gpuarr.to_gpu(wild), mode=mode),
                 h[wild % h.size] if mode == "wrap"
                 else np.take(h, wild, mode=mode))
        for first in (0, 1, 256, 1023, 8999):
            bad = _indices(9000, h.size, "i4")
            bad[first:][::7] = 3001
            bad[first] = -3002
            with pytest.raises(IndexError) as want:
                np.take(h, bad)
            with pytest.raises(IndexError) as got:
                gpuarr.take(a, gpuarr.to_gpu(bad))
            assert str(got.value) == str(want.value)
    # multi_take with one array a launch (the one-array kernel) and with
    # the arrays shared out (the 16-array kernel) in one call
    hosts = [rand((500 + 9 * k,), "f4") for k in range(MANY)]
    ih = _indices(5000, 500, "i8")
    for share in (1e-9, 0.5):
        monkeypatch.setattr(jk, "GATHER_L2_SHARE", share)
        got = gpuarr.multi_take([gpuarr.to_gpu(x) for x in hosts],
                                gpuarr.to_gpu(ih))
        for g, x in zip(got, hosts):
            same(g, np.take(x, ih))
        # multi_put under the same settings (the index array's hint), one
        # array a launch and shared out, values repeated and skipped
        di = _rng.permutation(500)[:300].astype(np.int64)
        di[::4] -= 500
        vals = [rand((300 if k % 3 else 7,), "f4") for k in range(MANY)]
        vals[5] = vals[5][:0]
        outs_h = [poison_host((500,), "f4") for _ in vals]
        outs = [gpuarr.to_gpu(o) for o in outs_h]
        gpuarr.multi_put([gpuarr.to_gpu(v) for v in vals], gpuarr.to_gpu(di),
                         out=outs)
        for o, oh, v in zip(outs, outs_h, vals):
            np.put(oh, di, v)
            same(o, oh)


@pytest.mark.parametrize("dt", ["b1", "u1", "i2", "f2", "f4", "i8", "c8", "c16"])
def test_multi_take_many_arrays(dt):
    hosts = [rand((50 + k,), dt) for k in range(MANY)]
    devs = pick_layouts(hosts)
    ih = _indices(333, 50, "i8")
    got = gpuarr.multi_take(devs, gpuarr.to_gpu(ih))
    assert len(got) == MANY
    for g, h in zip(got, hosts):
        same(g, np.take(h, ih))
    outs = [poisoned(ih.shape, dt) for _ in hosts]
    assert gpuarr.multi_take(devs, gpuarr.to_gpu(ih), out=outs) == outs
    for g, h in zip(outs, hosts):
        same(g, np.take(h, ih))
    for mode in ("wrap", "clip"):
        wild = np.array([-120, -51, 49, 50, 51, 1000], np.int32)
        for g, h in zip(gpuarr.multi_take(devs, gpuarr.to_gpu(wild), mode=mode),
                        hosts):
            same(g, np.take(h, wild, mode=mode))
    # 55 is out of range for the arrays shorter than 56 only
    ih2 = np.array([1, 55, -3], np.int16)
    with pytest.raises(IndexError, match="index 55 is out of bounds for axis "
                                         "0 with size 50"):
        gpuarr.multi_take(devs, gpuarr.to_gpu(ih2))
    got = gpuarr.multi_take(devs[6:], gpuarr.to_gpu(ih2))
    for g, h in zip(got, hosts[6:]):
        same(g, np.take(h, ih2))


@pytest.mark.parametrize("dt", ["b1", "u1", "i2", "f2", "u4", "f8", "c16"])
def test_multi_put_many_arrays(dt):
    size = 400
    n = 250
    di = _rng.permutation(size)[:n].astype(np.int64)
    di[::3] -= size                                  # negative, still unique
    vals = [rand((n,), dt) for _ in range(MANY - 3)]
    vals += [rand((7,), dt), rand((0,), dt), rand((n + 9,), dt)]   # repeat, skip, longer
    outs_h = [poison_host((size,), dt) for _ in vals]
    outs = [gpuarr.to_gpu(o) for o in outs_h]
    r = gpuarr.multi_put(pick_layouts(vals), gpuarr.to_gpu(di), out=outs)
    assert r == outs
    for o, oh, v in zip(outs, outs_h, vals):
        np.put(oh, di, v)
        same(o, oh)
    # a non-contiguous out, n-d outs (their flat C order), new outs
    base_h = poison_host((2 * size,), dt)
    base = gpuarr.to_gpu(base_h)
    gpuarr.multi_put([gpuarr.to_gpu(vals[0])], gpuarr.to_gpu(di), out=[base[::-2]])
    view = base_h[::-2].copy()
    np.put(view, di, vals[0])
    base_h[::-2] = view
    same(base, base_h)
    o2_h = poison_host((20, 20), dt)
    o2 = gpuarr.to_gpu(o2_h)
    gpuarr.multi_put([gpuarr.to_gpu(vals[1])], gpuarr.to_gpu(di), out=[o2])
    np.put(o2_h, di, vals[1])
    same(o2, o2_h)
    fresh = gpuarr.multi_put([gpuarr.to_gpu(v) for v in vals[:3]],
                             gpuarr.to_gpu(di), dest_shape=(size,))
    for f, v in zip(fresh, vals):
        assert f.shape == (size,) and f.dtype == np.dtype(dt)
        # the named elements only, gathered on the device: the others are
        # uninitialized (the docstring's promise), and copying them to the
        # host is what compute-sanitizer's initcheck reports
        np.testing.assert_array_equal(f[gpuarr.to_gpu(di)].get(), v)


def test_multi_put_modes_and_out_of_range():
    h = rand((10,), "i8")
    for mode in ("wrap", "clip"):
        di = np.array([-13, 25, 3], np.int64)     # no repeats in either mode
        oh = rand((10,), "i8")
        o = gpuarr.to_gpu(oh)
        gpuarr.multi_put([gpuarr.to_gpu(h[:3])], gpuarr.to_gpu(di), out=[o],
                         mode=mode)
        np.put(oh, di, h[:3], mode=mode)
        same(o, oh)
    for bad in ([1, 10, 2], [-11], [4, 5, 99, -99]):
        bad = np.asarray(bad)
        target = rand((10,), "i8")
        with pytest.raises(IndexError) as want:
            np.put(target.copy(), bad, h[:bad.size])
        with pytest.raises(IndexError) as got:
            gpuarr.multi_put([gpuarr.to_gpu(h[:bad.size])], gpuarr.to_gpu(bad),
                             out=[gpuarr.to_gpu(target)])
        assert str(got.value) == str(want.value)


def test_few_inputs_threshold_is_what_the_tests_cover():
    # the counts above straddle it: 2 and 4 copy one by one, 5 and 37 launch once
    assert 2 <= _joining.FEW_INPUTS < 5
