"""CPU test of the LSD radix sort (``sort.cu.mako``'s ``hist``,
``onesweep`` and ``finish`` kernels) run on the host (tests/_cuda_host.py:
the rendered kernels, unchanged, against an emulation of the CUDA they
use), driven as ``gpuarr._sorting._radix`` drives them: the passes of
:func:`gpuarr._sortkernels.radix_passes` over the buffers of
:func:`gpuarr._sortkernels.radix_plan`.  Sorted keys and positions must
equal numpy's stable sort and argsort byte for byte: keys alone and with
values (uint32 between passes, int64 from the last), several tiles a
pass, rows sorted together by their row digits (with positions, and
without: the last pass then writes no values), skipped passes, complex
keys."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, host_source, launcher, ptr

from gpuarr import _sortkernels as sk

# (dtype, rows, row length, want positions, variant): "" as chosen for
# the size, "wide" 64-bit status words, "wide64" those and int64 values
CASES = [("f4", 1, 9000, True, ""), ("f4", 1, 15000, False, ""),
         ("i2", 1, 5000, True, ""), ("u1", 1, 9000, False, ""),
         ("f4", 3, 3000, True, ""), ("f4", 3, 3000, False, ""),
         ("i8", 1, 6000, True, ""),
         ("c8", 1, 3000, False, ""), ("f4", 1, 9000, False, "wide"),
         ("u2", 2, 4000, True, "wide"), ("f4", 1, 9000, True, "wide64"),
         ("i8", 1, 6000, True, "wide64"), ("u1", 3, 2000, True, "wide64")]


def _kernels(dt, rows, L, want_pos, variant):
    n = rows * L
    kv = want_pos or rows > 1
    wide = n > sk.STATUS32_LIMIT or variant != ""
    narrow = n <= sk.VALUES32_LIMIT and variant != "wide64"
    return sk.radix_specs(dt, kv, wide, narrow), kv, wide, narrow


@pytest.fixture(scope="module", params=["ballot", "early", "early_half"])
def host(tmp_path_factory, request):
    """The kernels of every case built with one ranking
    (``_sortkernels.RANK``): ballots, or early counts (with ballots, or
    the digit's high half by a match)."""
    saved, sk.RANK = sk.RANK, request.param
    try:
        return _build(tmp_path_factory)
    finally:
        sk.RANK = saved


def _build(tmp_path_factory):
    parts = []
    k = 0
    for case in CASES:
        specs = _kernels(np.dtype(case[0]), *case[1:])[0]
        for name in ("hist", "onesweep", "onesweep_last"):
            spec = specs[name]
            parts.append(host_source(spec, k))
            if name == "hist":
                parts.append(launcher(
                    spec, k, "const void *keys, long long n, "
                    "unsigned long long L, int rp, void *hist",
                    "(const T::ga_elem *)keys, n, L, rp, "
                    "(unsigned long long *)hist"))
            else:
                kw = spec.render_kw
                parts.append(launcher(
                    spec, k, "const void *kin, void *kout, const void *vin, "
                    "void *vout, const void *hist, void *status, void *clear, "
                    "void *counter, long long n, int pass, "
                    "unsigned long long L",
                    "(const T::ga_elem *)kin, (T::ga_elem *)kout, "
                    "(const %s *)vin, (%s *)vout, "
                    "(const unsigned long long *)hist, (%s *)status, "
                    "(%s *)clear, (unsigned int *)counter, n, pass, L"
                    % (kw["vin_t"], kw["vout_t"], kw["off_t"], kw["off_t"])))
            k += 1
    spec = sk.finish_spec()
    parts.append(host_source(spec, k))
    parts.append(launcher(spec, k, "const void *vin, void *out, long long n, "
                          "unsigned long long L", "(const long long *)vin, "
                          "(long long *)out, n, L"))
    return build(tmp_path_factory.mktemp("radix"), parts)


def _values(dt, n, rng):
    if dt.kind == "f":
        h = np.round(rng.standard_normal(n) * 30).astype(dt)
        h[::9] = np.nan
        h[4::9] = -np.nan
        h[1::13] = -0.0
        h[2::17] = np.inf
        return h
    if dt.kind == "c":
        z = (np.round(rng.standard_normal(n) * 3)
             + 1j * np.round(rng.standard_normal(n) * 3))
        z[::7] = complex(np.nan, 1)
        z[3::11] = complex(2, np.nan)
        return z.astype(dt)
    info = np.iinfo(dt)
    if dt.itemsize == 8:            # a small range: most passes skipped
        return rng.integers(0, 600, n).astype(dt)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)


@pytest.mark.parametrize("case", range(len(CASES)),
                         ids=["%s-%dx%d-%s%s" % c for c in CASES])
def test_radix_sort_on_the_host_equals_numpy(host, case):
    dtn, rows, L, want_pos, variant = CASES[case]
    dt = np.dtype(dtn)
    n = rows * L
    specs, kv, wide, narrow = _kernels(dt, rows, L, want_pos, variant)
    assert kv == (want_pos or rows > 1)
    src = _values(dt, n, np.random.default_rng(case))
    base = 3 * case
    kp = sk.key_passes(dt)
    rp = sk.row_passes(rows) if rows > 1 else 0
    hist = np.zeros((kp + rp) * 256, np.uint64)
    getattr(host, "run_%d" % base)(2, 256, ptr(src), ctypes.c_longlong(n),
                                   ctypes.c_ulonglong(L), rp, ptr(hist))
    run = sk.radix_passes(hist.reshape(kp + rp, 256), n, kp, rp)
    if dt.kind == "i" and dt.itemsize == 8:
        assert len(run) < kp               # digits that never vary
    plan = sk.radix_plan(len(run), kv, narrow, want_pos)
    if kv and narrow and not want_pos:     # rows for their keys alone
        assert plan[-1][4] is None
    bufs = {"src": src, None: None,
            "kfinal": np.full(n, 0x5A, np.uint8).view(dt)[:n]
            if dt.itemsize == 1 else np.zeros(n, dt),
            "ktmp": np.zeros(n, dt), "vfinal": np.full(n, -1, np.int64),
            "vtmp0": np.zeros(n, np.uint32 if narrow else np.int64),
            "vtmp1": np.zeros(n, np.uint32)}
    bufs["kfinal"][:] = src[::-1]          # poisoned: stale values
    nt = sk.ntiles(n, dt, kv)
    per = nt * 256
    sdt = np.uint64 if wide else np.uint32
    status = [np.zeros(per, sdt), np.zeros(per, sdt)]
    counters = np.zeros(64, np.uint32)
    for i, (p, (kernel, kin, kout, vin, vout)) in enumerate(zip(run, plan)):
        assert kin != kout and (vin is None or vin != vout)
        k = base + (1 if kernel == "onesweep" else 2)
        h = hist[p * 256:(p + 1) * 256]
        getattr(host, "run_%d" % k)(
            nt, 256, ptr(bufs[kin]), ptr(bufs[kout]), ptr(bufs[vin]),
            ptr(bufs[vout]), ptr(h), ptr(status[i % 2]),
            ptr(status[1 - i % 2]), ptr(counters[i:]),
            ctypes.c_longlong(n), p, ctypes.c_ulonglong(L))
    want = np.sort(src.reshape(rows, L), kind="stable").reshape(-1)
    assert bufs["kfinal"].tobytes() == want.tobytes()
    if want_pos:
        pos = np.full(n, -1, np.int64)
        getattr(host, "run_%d" % (3 * len(CASES)))(
            2, 256, ptr(bufs["vfinal"]), ptr(pos), ctypes.c_longlong(n),
            ctypes.c_ulonglong(L))
        np.testing.assert_array_equal(
            pos, np.argsort(src.reshape(rows, L), kind="stable").reshape(-1))
