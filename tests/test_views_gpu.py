"""numpy's axis-rearranging views on the GPU: the values read through
them, and written through them, are numpy's (the layouts themselves:
tests/test_views_cpu.py)."""

import numpy as np
import pytest

import gpuarr

pytestmark = pytest.mark.gpu

_rng = np.random.default_rng(20261203)


def _host():
    return _rng.standard_normal((3, 4, 5)).astype(np.float32)[:, ::-1, 1:]


CASES = [
    ("flip", lambda m, a: m.flip(a, (0, 2))),
    ("fliplr", lambda m, a: m.fliplr(a)),
    ("flipud", lambda m, a: m.flipud(a)),
    ("rot90", lambda m, a: m.rot90(a, 3, (2, 0))),
    ("moveaxis", lambda m, a: m.moveaxis(a, (0, 2), (2, 0))),
    ("rollaxis", lambda m, a: m.rollaxis(a, 2, 1)),
    ("diagonal", lambda m, a: m.diagonal(a, -1, 2, 1)),
    ("atleast_3d", lambda m, a: m.atleast_3d(a[0])),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_views_read_and_write_numpys_elements(name, fn):
    h = _host()
    base = gpuarr.to_gpu(np.ascontiguousarray(h))[:, :, :]
    d = base.view()
    hv = fn(np, h)
    dv = fn(gpuarr, d)
    np.testing.assert_array_equal(dv.get(), hv)
    # written through the view: the base changes where numpy's does
    new = _rng.standard_normal(hv.shape).astype(np.float32)
    dv[...] = gpuarr.to_gpu(new)
    h = np.ascontiguousarray(h)
    hv = fn(np, h)
    # the same view, writable (numpy's diagonal is read-only)
    hv = np.ndarray(hv.shape, hv.dtype, buffer=h,
                    offset=hv.ctypes.data - h.ctypes.data, strides=hv.strides)
    hv[...] = new
    np.testing.assert_array_equal(base.get(), h)


def test_split_parts_read_numpys_elements():
    h = _host()
    d = gpuarr.to_gpu(h)
    for axis in range(3):
        for how in (2, [1, 3]):
            got = gpuarr.array_split(d, how, axis)
            want = np.array_split(h, how, axis)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.get(), w)
