"""CPU test of boolean-mask selection's kernels (``index.cu.mako``'s
``count`` and ``select``) run on the host (tests/_cuda_host.py: the
rendered kernels, unchanged, against an emulation of the CUDA they use),
driven as ``gpuarr._indexing`` drives them (per-tile counts, their
inclusive scan, the select pass): ``a[mask]`` equals numpy's for items of
1 to 16 bytes (the ones of up to 8 staged in shared memory and stored
coalesced), contiguous and strided 2-d sources, masks none, some and all
true, sizes that end inside a tile and inside a thread's 16 bytes."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, host_source, launcher, ptr

from gpuarr import _indexkernels as ik

ITEMS = (1, 2, 4, 8, 16)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    parts = []
    spec = ik.count_spec()
    parts.append(host_source(spec, 0))
    parts.append(launcher(spec, 0, "const void *m, long long n, void *c",
                          "(const unsigned char *)m, n, (long long *)c"))
    k = 1
    for size in ITEMS:
        for nd in (1, 2):
            spec = ik.select_spec("gather", size, nd)
            unit = spec.render_kw["unit"]
            u = "T::" + unit if unit == "ga_unit16" else unit
            dims = "".join(", long long d%d, long long s%d" % (d, d)
                           for d in range(nd))
            args = "".join(", d%d, s%d" % (d, d) for d in range(nd))
            parts.append(host_source(spec, k))
            parts.append(launcher(
                spec, k, "const void *m, long long n, const void *cs, "
                "const void *src, void *out" + dims,
                "(const unsigned char *)m, n, (const long long *)cs, "
                "(const %s *)src, (%s *)out%s" % (u, u, args)))
            k += 1
    return build(tmp_path_factory.mktemp("mask"), parts)


def _select(host, size, mask, src_view):
    """The kernels' a[mask] of ``src_view`` (a numpy view of ``size``-byte
    items whose shape is the mask's), as gpuarr's _indexing runs them."""
    n = mask.size
    m = np.ascontiguousarray(mask.reshape(-1))
    nt = ik.tiles(n)
    counts = np.full(nt, -1, np.int64)
    host.run_0(nt, ik.BLOCK, ptr(m), ctypes.c_longlong(n), ptr(counts))
    np.testing.assert_array_equal(
        counts, [m[t * ik.TILE:(t + 1) * ik.TILE].sum() for t in range(nt)])
    cs = np.cumsum(counts)
    total = int(cs[-1])
    out = np.full(total * size + size, 0xA5, np.uint8)     # poisoned
    nd = 1 if src_view.ndim == 1 or src_view.flags.c_contiguous else 2
    k = 1 + 2 * ITEMS.index(size) + (nd - 1)
    base = src_view.base if src_view.base is not None else src_view
    step = [s // size for s in src_view.strides]
    if nd == 1:
        dims = [ctypes.c_longlong(n), ctypes.c_longlong(step[-1])]
    else:
        dims = [ctypes.c_longlong(src_view.shape[0]), ctypes.c_longlong(step[0]),
                ctypes.c_longlong(src_view.shape[1]), ctypes.c_longlong(step[1])]
    origin = src_view.__array_interface__["data"][0]
    assert base.__array_interface__["data"][0] <= origin
    getattr(host, "run_%d" % k)(
        nt, ik.BLOCK, ptr(m), ctypes.c_longlong(n), ptr(cs),
        ctypes.c_void_p(origin), ptr(out), *dims)
    assert (out[total * size:] == 0xA5).all()          # nothing past the end
    return out[:total * size]


@pytest.mark.parametrize("size", ITEMS)
def test_mask_select_on_the_host_equals_numpy(host, size):
    rng = np.random.default_rng(size)
    dt = np.dtype("V%d" % size)
    for n, p in [(1, 1.0), (15, 0.5), (4096, 0.5), (9001, 0.5), (8195, 0.0),
                 (5000, 1.0), (12288, 0.03)]:
        src = rng.integers(0, 256, n * size, dtype=np.uint8).view(dt)
        mask = rng.random(n) < p
        got = _select(host, size, mask, src)
        assert got.tobytes() == src[mask].tobytes(), (n, p)
    # a strided, reversed 2-d view
    big = rng.integers(0, 256, 70 * 90 * size, dtype=np.uint8).view(dt)
    view = big.reshape(70, 90)[::-2, 3::2]
    mask = rng.random(view.shape) < 0.6
    got = _select(host, size, mask, view)
    assert got.tobytes() == view[mask].tobytes()
