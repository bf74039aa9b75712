"""CPU test of the integer-array gather, scatter and unbuffered scatter
kernels (``index.cu.mako``'s ``gather``/``scatter`` through one index
array read directly, ``index_at.cu.mako`` with and without its own index
check) run on the host (tests/_cuda_host.py: the rendered kernels,
unchanged, against an emulation of the CUDA they use).  Each thread takes
four positions a step (the gather and scatter one after another, add.at
with all four's loads before any use); the grids here are small, so every
thread loops, and the sizes end inside a step.
Results equal numpy's ``take``, ``put`` and ``add.at``; a bad index is
skipped and the first bad position lands in the flag word."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, host_source, launcher, ptr

from gpuarr import _indexkernels as ik

NO_BAD = (1 << 64) - 1
Q = ctypes.c_longlong


def _args(npre, npost):
    dims = ["pd%d" % d for d in range(npre)] + ["qd%d" % d
                                                 for d in range(npost)]
    params = "".join(", long long %s, long long %s" % (d, d.replace("d", "s", 1))
                     for d in dims)
    call = "".join(", %s, %s" % (d, d.replace("d", "s", 1)) for d in dims)
    return params, call


@pytest.fixture(scope="module", params=[True, False],
                ids=["streaming", "plain"])
def host(tmp_path_factory, request):
    # the gathers and scatters with and without the streaming hints
    # (ik.MOVE_STREAM)
    parts = []
    k = 0
    saved, ik.MOVE_STREAM = ik.MOVE_STREAM, request.param
    try:
        moves = [ik.move_spec(kind, 4, npre, npost, False, np.int64)
                 for kind in ("gather", "scatter")
                 for npre, npost in ((0, 0), (1, 1))]
    finally:
        ik.MOVE_STREAM = saved
    assert all(m.render_kw["stream"] == request.param for m in moves)
    for spec in moves:
        npre, npost = spec.render_kw["npre"], spec.render_kw["npost"]
        params, call = _args(npre, npost)
        parts.append(host_source(spec, k))
        parts.append(launcher(
            spec, k, "long long total, const void *src, void *dst, "
            "long long nb, const void *idx, long long an, long long as_, "
            "void *bad" + params,
            "total, (const unsigned int *)src, (unsigned int *)dst, nb, "
            "(const long long *)idx, an, as_, (unsigned long long *)bad"
            + call))
        k += 1
    for checked in (False, True):
        spec = ik.at_spec(np.dtype(np.int32), "add", 1, 1, False, np.int64,
                          checked=checked)
        params, call = _args(1, 1)
        parts.append(host_source(spec, k))
        parts.append(launcher(
            spec, k, "long long total, const void *val, void *dst, "
            "long long nb, const void *idx, long long an, long long as_"
            + (", void *bad" if checked else "") + params,
            "total, (const int *)val, (int *)dst, nb, (const long long *)idx, "
            "an, as_" + (", (unsigned long long *)bad" if checked else "")
            + call))
        k += 1
    return build(tmp_path_factory.mktemp("gather"), parts)


def _flag():
    return np.full(1, NO_BAD, np.uint64)


@pytest.mark.parametrize("n", [1, 1023, 3001])
def test_gather_and_scatter_on_the_host(host, n):
    rng = np.random.default_rng(n)
    # 1-d: dst[i] = src[j(idx[i])], then the scatter back through a
    # permutation (no repeats: each place written once)
    src = rng.integers(0, 2 ** 32, 517, dtype=np.uint32)
    idx = rng.integers(-517, 517, n)
    out = np.full(n + 3, 0xDEADBEEF, np.uint32)
    bad = _flag()
    host.run_0(3, ik.BLOCK, Q(n), ptr(src), ptr(out), Q(n), ptr(idx),
               Q(517), Q(1), ptr(bad))
    np.testing.assert_array_equal(out[:n], src[idx])
    assert (out[n:] == 0xDEADBEEF).all() and int(bad[0]) == NO_BAD
    perm = rng.permutation(517)[:min(n, 517)] - 517 * (n % 2)
    vals = rng.integers(0, 2 ** 32, perm.size, dtype=np.uint32)
    dst = np.full(517, 7, np.uint32)
    want = dst.copy()
    want[perm] = vals
    host.run_2(2, ik.BLOCK, Q(perm.size), ptr(vals), ptr(dst), Q(perm.size),
               ptr(perm), Q(517), Q(1), ptr(bad))
    np.testing.assert_array_equal(dst, want)
    # (pre, index, post) through a strided view: rows 5, columns of 2
    base = rng.integers(0, 2 ** 32, (5, 40, 6), dtype=np.uint32)
    view = base[:, ::2, 1::3]                   # (5, 20, 2)
    idx = rng.integers(-20, 20, n)
    out = np.full(5 * n * 2, 1, np.uint32)
    el = [s // 4 for s in view.strides]
    origin = view.__array_interface__["data"][0]
    bad = _flag()
    host.run_1(4, ik.BLOCK, Q(out.size), ctypes.c_void_p(origin), ptr(out),
               Q(n), ptr(idx), Q(20), Q(el[1]), ptr(bad), Q(5), Q(el[0]),
               Q(2), Q(el[2]))
    np.testing.assert_array_equal(out.reshape(5, n, 2), view[:, idx, :])
    assert int(bad[0]) == NO_BAD


def test_bad_index_is_skipped_and_flagged(host):
    rng = np.random.default_rng(3)
    src = rng.integers(0, 2 ** 32, 100, dtype=np.uint32)
    idx = rng.integers(-100, 100, 2000)
    idx[[777, 1500, 1999]] = [100, -101, 5000]
    out = np.full(2000, 0xA5A5A5A5, np.uint32)
    bad = _flag()
    host.run_0(2, ik.BLOCK, Q(2000), ptr(src), ptr(out), Q(2000), ptr(idx),
               Q(100), Q(1), ptr(bad))
    assert int(bad[0]) == 777
    good = np.ones(2000, bool)
    good[[777, 1500, 1999]] = False
    np.testing.assert_array_equal(out[good], src[idx[good]])
    assert (out[~good] == 0xA5A5A5A5).all()      # nothing written there


@pytest.mark.parametrize("checked", [False, True])
def test_add_at_on_the_host(host, checked):
    rng = np.random.default_rng(11)
    base = rng.integers(-1000, 1000, (4, 31, 3)).astype(np.int32)
    view = base[:, ::-1, :]                      # negative stride
    idx = rng.integers(-31, 31, 1001)            # many repeats
    vals = rng.integers(-50, 50, (4, 1001, 3)).astype(np.int32)
    want = view.copy()
    np.add.at(want, (slice(None), idx), vals)
    el = [s // 4 for s in view.strides]
    origin = view.__array_interface__["data"][0]
    run = host.run_5 if checked else host.run_4
    extra = [ptr(_flag())] if checked else []
    run(3, ik.BLOCK, Q(vals.size), ptr(vals), ctypes.c_void_p(origin),
        Q(1001), ptr(idx), Q(31), Q(el[1]), *extra, Q(4), Q(el[0]), Q(3),
        Q(el[2]))
    np.testing.assert_array_equal(view, want)


def test_checked_add_at_skips_bad_indices(host):
    rng = np.random.default_rng(12)
    dst = np.zeros((2, 10, 1), np.int32)
    idx = rng.integers(0, 10, 500)
    idx[[120, 400]] = [10, -11]
    vals = np.ones((2, 500, 1), np.int32)
    bad = _flag()
    host.run_5(2, ik.BLOCK, Q(vals.size), ptr(vals), ptr(dst), Q(500),
               ptr(idx), Q(10), Q(1), ptr(bad), Q(2), Q(10), Q(1), Q(1))
    assert int(bad[0]) == 120
    keep = np.delete(idx, [120, 400])
    want = np.zeros((2, 10, 1), np.int32)
    np.add.at(want, (slice(None), keep), 1)
    np.testing.assert_array_equal(dst, want)
