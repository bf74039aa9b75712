"""CPU test of the warp sort (``sort.cu.mako``'s ``wsort`` kernel) run on
the host (tests/_cuda_host.py: the rendered kernel, unchanged, against an
emulation of the CUDA it uses, a host thread a CUDA thread).  Its sorted
elements and positions must equal numpy's stable sort and argsort byte
for byte, for
keys of 1, 2 and 4 bytes, at each row capacity (32 to 1024 elements: 1 to
32 words a lane), with duplicates, NaNs, infinities and -0.0, and with
more rows than warps (the warps' stride over rows)."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, host_source, launcher, ptr

from gpuarr import _sortkernels as sk

# (dtype, row length, rows, the grid's cap in blocks)
CASES = ([("f4", L, 3, 2) for L in (1, 33, 100, 300, 1000)]
         + [(dt, L, 3, 2) for dt in ("?", "i1", "u2", "f2", "i4")
            for L in (31, 200)]
         + [("f2", 40, 20, 2), ("u4", 700, 5, 1)])


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    parts = []
    for k, (dt, L, _, _) in enumerate(CASES):
        spec = sk.wsort_spec(np.dtype(dt), L)
        parts.append(host_source(spec, k))
        parts.append(launcher(
            spec, k, "const void *s, void *ko, long long *vo, long long rows, "
            "int L, int np2", "(const T::ga_elem *)s, (T::ga_elem *)ko, vo, "
            "rows, L, np2"))
    return build(tmp_path_factory.mktemp("warpsort"), parts)


def _values(dt, shape, rng):
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "f":
        h = np.round(rng.standard_normal(shape) * 4).astype(dt)
        flat = h.reshape(-1)
        flat[::7] = np.nan
        flat[3::7] = -np.nan
        flat[1::11] = -0.0
        flat[2::13] = np.inf
        flat[5::17] = -np.inf
        return h
    info = np.iinfo(dt)
    h = rng.integers(info.min, info.max, shape, endpoint=True, dtype=dt)
    h.reshape(-1)[::2] = rng.integers(max(info.min, -9), 10,
                                      h.size - h.size // 2)
    return h


@pytest.mark.parametrize("k", range(len(CASES)),
                         ids=["%s-%d-%d" % c[:3] for c in CASES])
def test_warp_sort_on_the_host_equals_numpy(host, k):
    dt, L, rows, cap = CASES[k]
    dt = np.dtype(dt)
    h = _values(dt, (rows, L), np.random.default_rng(k))
    ko = np.full_like(h, 7)                    # poisoned
    vo = np.full((rows, L), -1, np.int64)
    grid, block, shared, np2 = sk.wsort_launch(dt, rows, L, cap)
    assert shared <= 1 << 16                   # the harness's buffer
    if cap == 1 or rows == 20:
        assert grid[0] * block[0] // 32 < rows   # warps take several rows
    getattr(host, "run_%d" % k)(grid[0], block[0], ptr(h), ptr(ko), ptr(vo),
                                ctypes.c_longlong(rows), L, np2)
    assert ko.tobytes() == np.sort(h, kind="stable").tobytes()
    np.testing.assert_array_equal(vo, np.argsort(h, kind="stable"))
