"""GPU checks of tile, repeat, roll, diag, diagflat, tril, triu, trace,
meshgrid, indices, pad and copyto against numpy.

Fresh random inputs, every dtype, empty and 0-d inputs, odd shapes,
non-contiguous and negative-stride inputs, poisoned outputs for copyto
and trace's out=.  Values move bit for bit (only trace computes), so the
results must equal numpy's byte for byte.  The shapes are kept to 1-3
dimensions so that few gather kernels (item size x merged dimensions) are
built.
"""
import numpy as np
import pytest

import gpuarr

from test_joining_gpu import ALL, layouts, poisoned, rand, same

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(20261213)


def close(got, want):
    """trace's sums: exact for integers, to rounding for floats (float16
    sums accumulate in float32 here, not in numpy's order)."""
    want = np.asarray(want)
    assert isinstance(got, gpuarr.GPUArray)
    assert got.shape == want.shape and got.dtype == want.dtype
    h = got.get()
    if want.dtype.kind in "fc":
        tol = 1e-2 if want.dtype.itemsize <= 4 else 1e-6
        np.testing.assert_allclose(h, want, rtol=tol, atol=tol)
    else:
        assert (h == want).all(), (h, want)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_tile_repeat_roll(dt):
    h = rand((3, 5), dt)
    for a, h in layouts(h):
        same(gpuarr.tile(a, (2, 1, 3)), np.tile(h, (2, 1, 3)))
        same(gpuarr.tile(a, 2), np.tile(h, 2))
        same(gpuarr.tile(a, (1, 1)), np.tile(h, (1, 1)))
        same(gpuarr.repeat(a, 3), np.repeat(h, 3))
        same(gpuarr.repeat(a, 2, axis=-1), np.repeat(h, 2, axis=-1))
        reps = _rng.integers(0, 4, 3)
        same(gpuarr.repeat(a, reps, axis=0), np.repeat(h, reps, axis=0))
        reps = _rng.integers(0, 3, 5)
        same(gpuarr.repeat(a, list(reps), axis=1),
             np.repeat(h, list(reps), axis=1))
        same(gpuarr.roll(a, 7), np.roll(h, 7))
        same(gpuarr.roll(a, (1, -3), axis=(0, 1)),
             np.roll(h, (1, -3), axis=(0, 1)))
        same(gpuarr.roll(a, (2, 2), axis=(1, 1)),
             np.roll(h, (2, 2), axis=(1, 1)))
    s = rand((), dt)
    a = gpuarr.to_gpu(s)
    same(gpuarr.tile(a, 3), np.tile(s, 3))
    same(gpuarr.repeat(a, 4), np.repeat(s, 4))
    same(gpuarr.roll(a, 1), np.roll(s, 1))
    e = np.zeros((0, 4), dt)
    ae = gpuarr.to_gpu(e)
    same(gpuarr.tile(ae, (2, 2)), np.tile(e, (2, 2)))
    same(gpuarr.repeat(ae, [1, 2, 0, 1], axis=1),
         np.repeat(e, [1, 2, 0, 1], axis=1))
    same(gpuarr.roll(ae, 3, axis=1), np.roll(e, 3, axis=1))


def test_big_odd_shapes_many_blocks():
    # past one block and one grid-stride round; int32 and complex128 units
    for dt in ("i4", "c16"):
        h = rand((517, 389), dt)
        for a, h in layouts(h, 2):
            same(gpuarr.pad(a, ((3, 700), (0, 11)), "wrap"),
                 np.pad(h, ((3, 700), (0, 11)), "wrap"))
            reps = _rng.integers(0, 5, 389)
            same(gpuarr.repeat(a, reps, axis=1), np.repeat(h, reps, axis=1))
            same(gpuarr.triu(a, 3), np.triu(h, 3))
            same(gpuarr.roll(a, (100, -7), axis=(0, 1)),
                 np.roll(h, (100, -7), axis=(0, 1)))


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_diag_diagflat_tril_triu(dt):
    v = rand((5,), dt)
    for a, v in layouts(v):
        for k in (0, 2, -3):
            same(gpuarr.diag(a, k), np.diag(v, k))
            same(gpuarr.diagflat(a, k), np.diagflat(v, k))
        same(gpuarr.tril(a, 1), np.tril(v, 1))
    m = rand((4, 6), dt)
    for a, m in layouts(m):
        for k in (0, 1, -2, 7):
            same(gpuarr.diag(a, k), np.diag(m, k))
            same(gpuarr.tril(a, k), np.tril(m, k))
            same(gpuarr.triu(a, -k), np.triu(m, -k))
        same(gpuarr.diagflat(a), np.diagflat(m))
    b = rand((3, 2, 5), dt)
    for a, b in layouts(b):
        same(gpuarr.tril(a, -1), np.tril(b, -1))
        same(gpuarr.triu(a, 2), np.triu(b, 2))
    same(gpuarr.tril(gpuarr.to_gpu(np.zeros((2, 0, 3), dt))),
         np.tril(np.zeros((2, 0, 3), dt)))
    same(gpuarr.diag(gpuarr.to_gpu(np.zeros(0, dt))), np.diag(np.zeros(0, dt)))


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_pad_every_mode(dt):
    h = rand((3, 4), dt)
    vals = rand((2, 2), dt)
    for a, h in layouts(h):
        for pw in (2, (1, 3), ((0, 2), (5, 1)), ((4, 0),), {1: (2, 3)}):
            for mode in ("edge", "reflect", "symmetric", "wrap"):
                same(gpuarr.pad(a, pw, mode), np.pad(h, pw, mode))
            same(gpuarr.pad(a, pw), np.pad(h, pw))
            same(gpuarr.pad(a, pw, constant_values=vals),
                 np.pad(h, pw, constant_values=vals))
            same(gpuarr.pad(a, pw, constant_values=vals[0]),
                 np.pad(h, pw, constant_values=vals[0]))
        got = gpuarr.pad(a, 1, "empty")
        assert got.shape == (5, 6) and got.dtype == h.dtype
        same(got[1:-1, 1:-1], h)
    one = rand((1, 3), dt)
    same(gpuarr.pad(gpuarr.to_gpu(one), 4, "reflect"), np.pad(one, 4, "reflect"))
    s = rand((), dt)
    same(gpuarr.pad(gpuarr.to_gpu(s), 3), np.pad(s, 3))
    e = np.zeros((0, 2), dt)
    same(gpuarr.pad(gpuarr.to_gpu(e), 2, constant_values=vals[0, 0]),
         np.pad(e, 2, constant_values=vals[0, 0]))
    w = rand((2, 3, 2), dt)
    for a, w in layouts(w, 1):
        same(gpuarr.pad(a, ((1, 0), (0, 0), (2, 9)), "symmetric"),
             np.pad(w, ((1, 0), (0, 0), (2, 9)), "symmetric"))


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_trace(dt):
    h = rand((4, 5), dt, nonneg=True)
    for a, h in layouts(h):
        for off in (0, 2, -1, 9):
            close(gpuarr.trace(a, off), np.trace(h, off))
    b = rand((3, 2, 4), dt, nonneg=True)
    for a, b in layouts(b):
        close(gpuarr.trace(a, 1, axis1=2, axis2=0),
              np.trace(b, 1, axis1=2, axis2=0))
    if dt.kind in "iub":
        out = poisoned((), np.float64)
        r = gpuarr.trace(gpuarr.to_gpu(h), out=out, dtype=np.float64)
        assert r is out and out.get()[()] == np.trace(h, dtype=np.float64)
        out = poisoned((2,), np.int64)
        r = gpuarr.trace(gpuarr.to_gpu(b), axis1=0, axis2=2, out=out)
        same(out, np.trace(b, axis1=0, axis2=2).astype(np.int64))


def test_meshgrid_and_indices():
    x = rand((3,), "f4")
    y = rand((2, 2), "i2")          # flattened, as numpy
    z = rand((5,), "c8")
    xs = [layouts(x, k)[0][0] for k in range(3)]
    for xd in xs:
        for sparse in (False, True):
            for indexing in ("xy", "ij"):
                for copy in (True, False):
                    got = gpuarr.meshgrid(xd, gpuarr.to_gpu(y),
                                          gpuarr.to_gpu(z), copy=copy,
                                          sparse=sparse, indexing=indexing)
                    want = np.meshgrid(x, y, z, copy=copy, sparse=sparse,
                                       indexing=indexing)
                    assert isinstance(got, tuple) and len(got) == 3
                    for g, w in zip(got, want):
                        same(g, w)
    assert gpuarr.meshgrid() == ()
    for dims in ((2, 3), (4,), (), (3, 0, 2), (2, 3, 4)):
        for dt in (int, np.int8, np.float32, np.uint64, np.complex64):
            same(gpuarr.indices(dims, dt), np.indices(dims, dt))
            got = gpuarr.indices(dims, dt, sparse=True)
            want = np.indices(dims, dt, sparse=True)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                same(g, w)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_copyto(dt):
    want = rand((3, 4), dt)
    d = gpuarr.to_gpu(want)
    src = rand((4,), dt)
    for s, src in layouts(src):
        m = _rng.integers(0, 2, (3, 4)).astype(bool)
        gpuarr.copyto(d, s, where=gpuarr.to_gpu(m))
        np.copyto(want, src, where=m)
        same(d, want)
        gpuarr.copyto(d, s, where=m[1])
        np.copyto(want, src, where=m[1])
        same(d, want)
    # a poisoned, negative-stride destination, every element written
    dst = poisoned((3, 4), dt)
    view = dst[::-1, ::2]
    v = rand((3, 2), dt)
    gpuarr.copyto(view, gpuarr.to_gpu(v))
    same(view.copy(), v)
    # casting from every dtype numpy allows under same_kind
    for sdt in ALL:
        s = rand((3, 4), sdt, nonneg=True)
        d = poisoned((3, 4), dt)
        if not np.can_cast(sdt, dt, "same_kind"):
            with pytest.raises(TypeError):
                gpuarr.copyto(d, gpuarr.to_gpu(s))
            continue
        want = np.empty((3, 4), dt)
        np.copyto(want, s)
        gpuarr.copyto(d, gpuarr.to_gpu(s))
        same(d, want)
        m = _rng.integers(0, 2, (3, 4)).astype(bool)
        gpuarr.copyto(d, gpuarr.to_gpu(s[::-1]), where=m)
        np.copyto(want, s[::-1], where=m)
        same(d, want)
    h = rand((6,), dt)
    d = gpuarr.to_gpu(h)
    gpuarr.copyto(d[1:], d[:-1])                 # overlapping, as numpy
    np.copyto(h[1:], h[:-1])
    same(d, h)
    gpuarr.copyto(d, 1, casting="unsafe")
    np.copyto(h, 1, casting="unsafe")
    same(d, h)
    e = gpuarr.to_gpu(np.zeros((0, 3), dt))
    gpuarr.copyto(e, gpuarr.to_gpu(np.zeros(3, dt)), where=[True, False, True])
