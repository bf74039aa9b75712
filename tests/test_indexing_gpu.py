"""GPU checks of advanced indexing against numpy: integer arrays (one,
several, broadcast, mixed with slices, None and Ellipsis), boolean masks
(any prefix, mixed with arrays), boolean scalars; read and write; every
dtype; non-contiguous and negative-stride arrays and indices; empty and
0-d; numpy's IndexError for bad indices (and nothing written then).
Values move bit for bit, so results must be identical."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gpuarr

from test_joining_gpu import ALL, INDEX, rand, same

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(31)


def check_get(h, key, dev_key=None):
    g = gpuarr.to_gpu(h)
    want = h[key]
    got = g[key if dev_key is None else dev_key]
    same(got, want)


def to_dev(key):
    """The key with every numpy array index moved to the device."""
    if type(key) is not tuple:
        return to_dev((key,))[0]
    return tuple(gpuarr.to_gpu(k) if isinstance(k, np.ndarray) and k.ndim
                 else k for k in key)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_take_every_dtype(dt):
    h = rand((37, 5), dt)
    idx = _rng.integers(-37, 37, 100)
    check_get(h, idx)
    check_get(h, idx, gpuarr.to_gpu(idx))
    check_get(h, (slice(None), [4, 0, -1, 2]))
    m = _rng.random((37, 5)) < 0.4
    check_get(h, m, gpuarr.to_gpu(m))
    check_get(h, m[:, 0], gpuarr.to_gpu(m[:, 0]))


@pytest.mark.parametrize("dt", INDEX, ids=str)
def test_index_dtypes(dt):
    h = rand((300,), np.float32)
    lo = 0 if np.dtype(dt).kind == "u" else -100
    idx = _rng.integers(lo, 100, 77).astype(dt)
    check_get(h, idx, gpuarr.to_gpu(idx))
    check_get(h, idx.reshape(7, 11), gpuarr.to_gpu(idx.reshape(7, 11)))


A = rand((4, 5, 6, 7), np.float64)
# masks with exactly two True values, to stand beside length-2 arrays
M45 = np.zeros((4, 5), bool)
M45[1, 2] = M45[3, 0] = True
M5 = np.array([False, True, False, False, True])

KEYS = [
    ([1, 0, 3],), (slice(None), [2, 0, 1]), (Ellipsis, [6, -1]),
    ([1, 0], slice(None), [3, 2]), ([1, 0], [2, 1]),
    (slice(None), [0, 2], [3, 1]), (0, slice(None), [3, 1]),
    ([0, 1], None, [0, 1]), ([0, 1], Ellipsis, [0, 1]),
    (slice(None), [0, 1], Ellipsis, [0, 1]), (None, [1], None),
    (np.array([[1, 0], [0, 3]]), slice(1, 4), np.array([[1], [2]])),
    (A[:, 0, 0, 0] > 0,), (A[:, :, 0, 0] > 0,), (A[..., 0] > 0,),
    (A > 0,), (slice(None), A[0, :, 0, 0] > 0), (Ellipsis, A[0, 0, 0] > 0),
    (slice(None), A[0, :, :, 0] > 0, slice(None, None, -2)),
    (M45, [1, 2]), ([0, 1], M5), (M45, [[1], [2]]),
    (True,), (False,), (slice(1), True, 2), ([0, 1], True, [1, 2]),
    (slice(None, None, -1), [0, -1], slice(None, None, -2)),
    ([[0], [1]], slice(None), [[0, 1, 2]]),
    (slice(None), None, A[0, :, :, 0] > 0, 0),
    ([], ), (np.array([], np.int64), 0), ([[]],),
]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_keys(key):
    check_get(A, key, to_dev(key))


def test_views_and_strided_indices():
    base = rand((9, 8, 7), np.int16)
    g = gpuarr.to_gpu(base)
    h = base[::-2, 1:, ::3]
    v = g[::-2, 1:, ::3]
    idx = _rng.integers(-7, 7, (6, 5))
    gidx = gpuarr.to_gpu(idx)
    same(v[:, idx], h[:, idx])
    same(v[:, gidx[::2, ::-1]], h[:, idx[::2, ::-1]])
    # a device index array alone (the rows of axis 0): a negative-stride
    # view, C-contiguous and strided keys of each width
    i0 = _rng.integers(-5, 5, (6, 5))
    for dt in ("i1", "u2", "i4", "u8"):
        k0 = i0 % 5 if dt[0] == "u" else i0
        gk = gpuarr.to_gpu(k0.astype(dt))
        same(v[gk], h[k0])
        same(v[gk[::-2]], h[k0[::-2]])
        same(v[0][gk.reshape(-1)[:20]], h[0][k0.reshape(-1)[:20]])
    m = _rng.random(h.shape[:2]) < 0.5
    same(v[gpuarr.to_gpu(m)], h[m])
    gm = gpuarr.to_gpu(np.repeat(m, 2, axis=1))[:, ::2]      # strided mask
    same(v[gm], h[m])
    same(g[0][gpuarr.to_gpu(base[0] > 0)], base[0][base[0] > 0])


def test_large_mask_and_gather():
    n = (1 << 20) + 12345
    h = rand((n,), np.float32)
    g = gpuarr.to_gpu(h)
    same(g[g > 0], h[h > 0])
    idx = _rng.integers(-n, n, 300001)
    same(g[gpuarr.to_gpu(idx)], h[idx])
    same(g[gpuarr.to_gpu(idx[::-3])], h[idx[::-3]])


@pytest.mark.parametrize("stream,bps", [(True, 0), (False, 8), (True, 1),
                                        (False, 0)])
def test_moves_under_grid_and_hint_settings(stream, bps, monkeypatch):
    # the gather and scatter kernels with and without the streaming hints
    # (MOVE_STREAM), on a block per four of BLOCK elements (0), eight
    # blocks an SM and one (every thread loops): every unit width, sizes
    # ending inside a block and a step, one index array read directly
    # (with pre and post dims) and two through offsets, a bad index found
    # wherever it falls with nothing written
    from gpuarr import _indexkernels as ik
    monkeypatch.setattr(ik, "MOVE_STREAM", stream)
    monkeypatch.setattr(ik, "MOVE_BLOCKS_PER_SM", bps)
    for dt in ("u1", "f2", "f4", "f8", "c16"):
        h = rand((3001,), dt)
        g = gpuarr.to_gpu(h)
        for n in (1, 255, 1025, 4099, 70001):
            idx = _rng.integers(-3001, 3001, n)
            same(g[gpuarr.to_gpu(idx)], h[idx])
        h2 = rand((7, 50, 3), dt)
        g2 = gpuarr.to_gpu(h2)
        idx = _rng.integers(-50, 50, 1027)
        same(g2[:, gpuarr.to_gpu(idx)], h2[:, idx])
        i0, i1 = _rng.integers(0, 7, 999), _rng.integers(-50, 50, 999)
        same(g2[gpuarr.to_gpu(i0), gpuarr.to_gpu(i1)], h2[i0, i1])
        vals = rand((7, 40, 3), dt)
        pos = _rng.permutation(50)[:40]
        want = h2.copy()
        want[:, pos] = vals
        g2[:, gpuarr.to_gpu(pos)] = gpuarr.to_gpu(vals)
        same(g2, want)
        for first in (0, 1, 1023, 8999):
            bad = _rng.integers(-3001, 3001, 9000)
            bad[first:][::7] = 3001
            bad[first] = -3002
            with pytest.raises(IndexError) as want_e:
                h[bad]
            with pytest.raises(IndexError) as got_e:
                g[gpuarr.to_gpu(bad)]
            assert str(got_e.value) == str(want_e.value)
            with pytest.raises(IndexError):
                g[gpuarr.to_gpu(bad)] = gpuarr.to_gpu(rand((9000,), dt))
            same(g, h)


def test_flag_words_after_errors():
    # the bad-index flag word is reused after clean reads and dropped after
    # a bad one: alternating good and bad gathers, takes (on a stream too)
    # and add.at calls each give numpy's result or numpy's IndexError
    h = rand((1000,), np.float32)
    g = gpuarr.to_gpu(h)
    s = gpuarr.driver.Stream()
    for k in range(4):
        good = _rng.integers(-1000, 1000, 5000)
        bad = good.copy()
        bad[_rng.integers(0, 5000)] = 1000 + k
        for fn in (lambda i: g[i], lambda i: gpuarr.take(g, i),
                   lambda i: gpuarr.take(g, i, stream=s)):
            same(fn(gpuarr.to_gpu(good)), h[good])
            with pytest.raises(IndexError, match="index %d is out of bounds"
                               % (1000 + k)):
                fn(gpuarr.to_gpu(bad))
            same(fn(gpuarr.to_gpu(good)), h[good])
        acc, want = gpuarr.to_gpu(h), h.copy()
        np.add.at(want, good, np.float32(1))
        gpuarr.add.at(acc, gpuarr.to_gpu(good), np.float32(1))
        np.testing.assert_allclose(acc.get(), want, rtol=1e-6)
        with pytest.raises(IndexError):
            gpuarr.add.at(acc, gpuarr.to_gpu(bad), np.float32(1))
        np.testing.assert_allclose(acc.get(), want, rtol=1e-6)


def test_zero_d_and_empty():
    z = gpuarr.to_gpu(np.array(3.5))
    same(z[True], np.array(3.5)[True])
    same(z[False], np.array(3.5)[False])
    same(z[np.array(True)], np.array(3.5)[np.array(True)])
    e = gpuarr.empty((0, 4), np.int32)
    same(e[[]], np.empty((0, 4), np.int32)[[]])
    same(e[:, [1, 3]], np.empty((0, 4), np.int32)[:, [1, 3]])
    same(e[np.zeros((0, 4), bool)], np.empty((0,), np.int32))


@pytest.mark.parametrize("key", [[5], [-6], (slice(None), [0, 7]),
                                 ([0, 1], [0, 9]), (slice(None), -8)])
def test_out_of_range(key):
    h = rand((5, 7), np.float32)
    g = gpuarr.to_gpu(h)
    with pytest.raises(IndexError) as want:
        h[key]
    with pytest.raises(IndexError) as got:
        g[to_dev(key)]
    assert str(got.value) == str(want.value)
    before = g.get()
    with pytest.raises(IndexError):
        g[to_dev(key)] = 1.0
    np.testing.assert_array_equal(g.get(), before)    # nothing written


def test_errors():
    g = gpuarr.to_gpu(rand((3, 4), np.float32))
    with pytest.raises(IndexError, match="boolean index did not match"):
        g[gpuarr.to_gpu(np.ones(4, bool))]
    with pytest.raises(IndexError, match="shape mismatch"):
        g[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="only integers"):
        g[gpuarr.to_gpu(np.ones(2, np.float32))]


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_setitem_every_dtype(dt):
    h = rand((23, 6), dt)
    g = gpuarr.to_gpu(h)
    idx = _rng.permutation(23)[:9]
    v = rand((9, 6), dt)
    h[idx] = v
    g[gpuarr.to_gpu(idx)] = gpuarr.to_gpu(v)
    same(g, h)
    m = _rng.random((23, 6)) < 0.5
    vals = rand((int(m.sum()),), dt)
    h[m] = vals
    g[gpuarr.to_gpu(m)] = vals
    same(g, h)
    h[m[:, 0]] = h[0]                     # broadcast row
    g[gpuarr.to_gpu(m[:, 0])] = g[0]
    same(g, h)
    h[:, [5, 0]] = 1
    g[:, [5, 0]] = 1
    same(g, h)


def test_setitem_mixed_keys():
    h = rand((6, 5, 4), np.float32)
    g = gpuarr.to_gpu(h)
    for key in [([0, 2], slice(None), [1, 3]), (slice(None), [4, 0]),
                (Ellipsis, [3]), ([1], None, [2]),
                (h[:, :, 0] > 0,), (slice(None), h[0] > 0),
                ([5, 4], M5)]:
        val = rand(h[key].shape, np.float32)
        h[key] = val
        g[to_dev(key)] = gpuarr.to_gpu(val)
        same(g, h)
        h[key] = -2.5
        g[to_dev(key)] = -2.5
        same(g, h)
    # strided destination
    hv, gv = h[::-1, ::2], g[::-1, ::2]
    hv[[0, 3]] = 7.0
    gv[[0, 3]] = 7.0
    same(g, h)
    # the value overlaps the destination
    h[[1, 0]] = h[[0, 1]]
    g[[1, 0]] = g[[0, 1]]
    same(g, h)


_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@st.composite
def keys(draw, shape):
    key, axis, ell = [], 0, False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kind = draw(st.sampled_from(["slice", "int", "array", "mask",
                                     "none", "ell", "bool"]))
        if kind == "none":
            key.append(None)
        elif kind == "bool":
            key.append(draw(st.booleans()))
        elif kind == "ell" and not ell:
            ell = True
            key.append(Ellipsis)
        elif axis < len(shape) and not ell:
            n = shape[axis]
            if kind == "slice":
                key.append(slice(draw(st.integers(-5, 5)),
                                 draw(st.integers(-5, 5)),
                                 draw(st.sampled_from([1, 2, -1]))))
            elif kind == "int" and n:
                key.append(draw(st.integers(-n, n - 1)))
            elif kind == "array" and n:
                m = draw(st.integers(0, 3))
                key.append(np.array(draw(st.lists(
                    st.integers(-n, n - 1), min_size=m, max_size=m)),
                    np.int64))
            elif kind == "mask":
                k = draw(st.integers(1, len(shape) - axis))
                key.append(_rng.random(shape[axis:axis + k]) < 0.5)
                axis += k - 1
            else:
                key.append(slice(None))
            axis += 1
    return tuple(key)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_keys(data):
    shape = data.draw(_shapes)
    h = rand(shape, np.int32)
    key = data.draw(keys(shape))
    try:
        want = h[key]
    except IndexError:
        with pytest.raises(IndexError):
            gpuarr.to_gpu(h)[to_dev(key)]
        return
    g = gpuarr.to_gpu(h)
    same(g[to_dev(key)], want)
    val = rand(want.shape, np.int32)
    h2 = h.copy()
    h2[key] = val
    g[to_dev(key)] = val
    if not _repeats(h, key):
        same(g, h2)


def _repeats(h, key):
    """Whether the key selects one element twice (then which value lands
    is unspecified)."""
    pos = np.arange(h.size).reshape(h.shape)[key]
    return np.unique(pos).size != pos.size
