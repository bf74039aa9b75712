"""CPU test of unique's two run kernels (``sort.cu.mako``'s ``runcount``
and ``runselect``) run on the host (tests/_cuda_host.py: the rendered
kernels, unchanged, against an emulation of the CUDA they use), driven as
``gpuarr._sorting._unique_runs`` drives them (per-tile counts of run
starts, their inclusive sum by numpy, the select pass): from a stably
sorted array the first element of every run of equal values, for every
element size (1 to 16 bytes), with NaNs equal or not, -0.0 beside 0.0,
sizes that end inside a tile and inside a thread's elements, runs that
cross tiles, all equal and all distinct values."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, host_source, launcher, ptr

from gpuarr import _sortkernels as sk

DTYPES = ["?", "i1", "u2", "f2", "i4", "f4", "u8", "f8", "c8", "c16"]


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    parts = []
    for d, dt in enumerate(DTYPES):
        specs = sk.run_specs(np.dtype(dt))
        c, s = 2 * d, 2 * d + 1
        parts.append(host_source(specs["runcount"], c))
        parts.append(launcher(
            specs["runcount"], c,
            "const void *s, long long n, int eq, void *counts",
            "(const T::ga_elem *)s, n, eq, (long long *)counts"))
        parts.append(host_source(specs["runselect"], s))
        parts.append(launcher(
            specs["runselect"], s, "const void *s, long long n, int eq, "
            "const void *cs, void *out",
            "(const T::ga_elem *)s, n, eq, (const long long *)cs, "
            "(T::ga_elem *)out"))
    return build(tmp_path_factory.mktemp("uruns"), parts)


def _aligned(a):
    """A copy of ``a`` at an address that is a multiple of 16 bytes (the
    kernels' vector loads)."""
    buf = np.empty(a.nbytes + 16, np.uint8)
    off = -buf.ctypes.data % 16
    out = buf[off:off + a.nbytes].view(a.dtype)
    out[...] = a
    return out


def _first_of_runs(s, equal_nan):
    """The reference: the first element of each run of equal values of
    the sorted ``s`` (with ``equal_nan`` every NaN, for complex every value
    with a NaN part, is one value; without it no NaN equals anything)."""
    if s.dtype.kind == "c":
        nan = np.isnan(s.real) | np.isnan(s.imag)
    elif s.dtype.kind == "f":
        nan = np.isnan(s)
    else:
        nan = np.zeros(s.size, bool)
    same = (s[1:] == s[:-1]) & ~nan[1:] & ~nan[:-1]
    if equal_nan:
        same |= nan[1:] & nan[:-1]
    return s[np.r_[True, ~same]]


def _values(dt, n, how, rng):
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if how == "same":
        return np.full(n, 3, dt)
    hi = max(2, n // 5) if how == "dups" else 2 ** (12 if dt == "f2" else 20)
    v = rng.integers(-hi, hi, n)
    if dt.kind in "ui":
        return v.astype(dt)                     # wrapped into the dtype
    x = (v / 8).astype(dt)
    if dt.kind == "c":
        x = x + 1j * (rng.integers(-2, 2, n) / 2).astype(dt)
    # NaNs (several, in both parts for complex), zeros of both signs
    k = max(1, n // 50)
    x[rng.integers(0, n, k)] = np.nan
    if dt.kind == "c":
        x.imag[rng.integers(0, n, k)] = np.nan
    x[rng.integers(0, n, k)] = 0.0
    x[rng.integers(0, n, k)] = -0.0
    return x


def _unique_runs(host, d, s, equal_nan):
    """The kernels' unique of the sorted ``s``, as _sorting runs them."""
    n = s.size
    nt = sk.run_tiles(s.dtype, n)
    c_n, eq = ctypes.c_longlong(n), ctypes.c_int(1 if equal_nan else 0)
    counts = np.full(nt, -1, np.int64)
    getattr(host, "run_%d" % (2 * d))(nt, sk.BLOCK, ptr(s), c_n, eq,
                                      ptr(counts))
    cs = np.cumsum(counts)
    total = int(cs[-1])
    out = np.frombuffer(b"\xa5" * ((total + 3) * s.dtype.itemsize),
                        s.dtype).copy()                 # poisoned
    tail = out[total:].tobytes()
    getattr(host, "run_%d" % (2 * d + 1))(nt, sk.BLOCK, ptr(s), c_n, eq,
                                          ptr(cs), ptr(out))
    assert out[total:].tobytes() == tail        # nothing past the end
    return out[:total]


@pytest.mark.parametrize("dtn", DTYPES)
def test_unique_runs_on_the_host_equal_the_first_of_each_run(host, dtn):
    dt = np.dtype(dtn)
    d = DTYPES.index(dtn)
    rng = np.random.default_rng(d)
    k = sk.run_items(dt)
    tile = sk.BLOCK * k
    sizes = [1, 2, k + 1, tile - 1, tile, tile + 1, 2 * tile + k // 2 + 3]
    for n in sizes:
        for how in ("dups", "distinct", "same"):
            a = _values(dt, n, how, rng)
            s = _aligned(np.sort(a, kind="stable"))
            for equal_nan in (True, False):
                got = _unique_runs(host, d, s, equal_nan)
                want = _first_of_runs(s, equal_nan)
                assert got.tobytes() == want.tobytes(), (n, how, equal_nan)
                if equal_nan:
                    np.testing.assert_array_equal(got, np.unique(a))
