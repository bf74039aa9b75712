"""numpy's axis-rearranging views (flip, rot90, moveaxis, rollaxis,
atleast_*d, the split family, diagonal) against numpy's own, layout by
layout: the same shape, strides and first element's address over numpy's
memory, without a GPU (no data moves, so no kernel runs)."""

import numpy as np
import pytest

import gpuarr
import gpuarr.gpuarray as ga

from test_gpuarray_cpu import fake, same_layout


def layouts():
    base = np.arange(2 * 3 * 5 * 4, dtype=np.float32).reshape(2, 3, 5, 4)
    return {"c": base, "f": np.asfortranarray(base),
            "sliced": base[:, ::2, 1:, ::-1], "t": base.transpose(2, 0, 3, 1)}


LAYOUTS = layouts()


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (1, 3, 0)])
def test_flip(name, axis):
    h = LAYOUTS[name]
    same_layout(gpuarr.flip(fake(h), axis), np.flip(h, axis))


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_fliplr_flipud_and_their_errors(name):
    h = LAYOUTS[name]
    same_layout(gpuarr.fliplr(fake(h)), np.fliplr(h))
    same_layout(gpuarr.flipud(fake(h)), np.flipud(h))
    with pytest.raises(ValueError, match=">= 2-d"):
        gpuarr.fliplr(fake(h[0, 0, 0]))
    with pytest.raises(ValueError, match=">= 1-d"):
        gpuarr.flipud(fake(np.zeros((), np.float32)))
    with pytest.raises(np.exceptions.AxisError):
        gpuarr.flip(fake(h), 4)
    with pytest.raises(ValueError, match="repeated axis"):
        gpuarr.flip(fake(h), (1, -3))


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, -1), (-1, 0)])
def test_rot90(name, k, axes):
    h = LAYOUTS[name]
    same_layout(gpuarr.rot90(fake(h), k, axes), np.rot90(h, k, axes))


def test_rot90_errors_are_numpys():
    h = LAYOUTS["c"]
    for axes in [(0,), (0, 1, 2), (1, 1), (0, 4), (0, -4), (5, 0)]:
        with pytest.raises(ValueError) as want:
            np.rot90(h, 1, axes)
        with pytest.raises(ValueError) as got:
            gpuarr.rot90(fake(h), 1, axes)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("src,dst", [(0, -1), (-1, 0), (1, 2), ((0, 1), (-1, -2)),
                                     ((3, 0), (0, 3)), ((), ()), ((2, 0, 1), (0, 1, 2))])
def test_moveaxis(name, src, dst):
    h = LAYOUTS[name]
    same_layout(gpuarr.moveaxis(fake(h), src, dst), np.moveaxis(h, src, dst))


def test_moveaxis_errors():
    g = fake(LAYOUTS["c"])
    with pytest.raises(ValueError, match="same number of elements"):
        gpuarr.moveaxis(g, (0, 1), 2)
    with pytest.raises(np.exceptions.AxisError):
        gpuarr.moveaxis(g, 4, 0)
    with pytest.raises(ValueError, match="repeated axis"):
        gpuarr.moveaxis(g, (0, 0), (1, 2))


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
@pytest.mark.parametrize("start", [0, 1, 2, 3, 4, -1, -4])
def test_rollaxis(name, axis, start):
    h = LAYOUTS[name]
    same_layout(gpuarr.rollaxis(fake(h), axis, start), np.rollaxis(h, axis, start))


def test_rollaxis_errors():
    g = fake(LAYOUTS["c"])
    for start in (5, -5):
        with pytest.raises(np.exceptions.AxisError, match="'start' arg requires"):
            gpuarr.rollaxis(g, 0, start)
    with pytest.raises(np.exceptions.AxisError):
        gpuarr.rollaxis(g, 4)


@pytest.mark.parametrize("shape", [(), (3,), (1,), (2, 3), (0, 2), (2, 3, 4)])
def test_atleast(shape):
    h = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    for hh in (h, h[::-1] if h.ndim else h):
        for fn in ("atleast_1d", "atleast_2d", "atleast_3d"):
            same_layout(getattr(gpuarr, fn)(fake(hh)), getattr(np, fn)(hh))
    got = gpuarr.atleast_2d(fake(h), fake(h.reshape(-1)))
    want = np.atleast_2d(h, h.reshape(-1))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        same_layout(g, w)


def _same_list(got, want):
    assert isinstance(got, list) and len(got) == len(want)
    for g, w in zip(got, want):
        same_layout(g, w)


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("how", [1, 2, 3, 4, 7, [1, 3], [0, 0, 2], [3, 1], [-2, 1], [9], []])
def test_array_split(name, how):
    h = LAYOUTS[name]
    for axis in range(h.ndim):
        _same_list(gpuarr.array_split(fake(h), how, axis), np.array_split(h, how, axis))


def test_split_family_and_errors():
    h = LAYOUTS["sliced"]                      # (2, 2, 4, 4)
    for how in (1, 2, [1], [0, 3]):
        _same_list(gpuarr.split(fake(h), how, 2), np.split(h, how, 2))
        _same_list(gpuarr.hsplit(fake(h), how), np.hsplit(h, how))
        _same_list(gpuarr.vsplit(fake(h), how), np.vsplit(h, how))
        _same_list(gpuarr.dsplit(fake(h), how), np.dsplit(h, how))
    one = h[0, 0, 0]
    _same_list(gpuarr.hsplit(fake(one), 2), np.hsplit(one, 2))
    zero_d = h[0, 0, 0, 0, ...]
    cases = [(lambda m, w: m.split(w(h), 3, 2), "equal division"),
             (lambda m, w: m.array_split(w(h), 0), "larger than 0"),
             (lambda m, w: m.hsplit(w(zero_d), 1), "1 or more dimensions"),
             (lambda m, w: m.vsplit(w(one), 1), "2 or more dimensions"),
             (lambda m, w: m.dsplit(w(h[0, 0]), 1), "3 or more dimensions")]
    for fn, msg in cases:
        with pytest.raises(ValueError, match=msg):
            fn(np, lambda x: x)
        with pytest.raises(ValueError, match=msg):
            fn(gpuarr, fake)
    with pytest.raises(np.exceptions.AxisError):
        gpuarr.array_split(fake(h), 2, 4)


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("offset", [0, 1, 2, -1, -2, 7, -9])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 3), (-1, 1), (3, 0)])
def test_diagonal(name, offset, axes):
    h = LAYOUTS[name]
    want = np.diagonal(h, offset, *axes)
    got = gpuarr.diagonal(fake(h), offset, *axes)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.size:
        assert got.ptr == want.ctypes.data
        for n, s, t in zip(want.shape, got.strides, want.strides):
            if n != 1:
                assert s == t, (got.strides, want.strides)


def test_diagonal_errors():
    with pytest.raises(ValueError, match="at least two dimensions"):
        gpuarr.diagonal(fake(np.zeros(3)))
    with pytest.raises(ValueError, match="cannot be the same"):
        gpuarr.diagonal(fake(np.zeros((3, 3))), 0, 1, -1)
    with pytest.raises(np.exceptions.AxisError):
        gpuarr.diagonal(fake(np.zeros((3, 3))), 0, 0, 2)


def test_names_are_in_the_flat_namespace_not_in_pycudas_gpuarray():
    for n in ("flip", "fliplr", "flipud", "rot90", "moveaxis", "rollaxis",
              "atleast_1d", "atleast_2d", "atleast_3d", "array_split", "split",
              "hsplit", "vsplit", "dsplit", "diagonal"):
        assert callable(getattr(gpuarr, n)) and n in dir(gpuarr)
        assert not hasattr(ga, n)
