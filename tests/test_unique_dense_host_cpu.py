"""CPU test of unique's bitmap path (``unique_dense.cu.mako``) run on the
host (tests/_cuda_host.py: the rendered kernels, unchanged, against an
emulation of the CUDA they use), driven as
``gpuarr._sorting._unique_dense`` drives them, the popcounts' inclusive
sum by numpy: the values, counts and inverse must equal numpy.unique's
for every integer dtype and bool, at both ends of each dtype's range,
with spans that end inside a bitmap word and an element type's whole
range."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, host_source, launcher, ptr

from gpuarr import _sortkernels as sk

DTYPES = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]
# (dtype, n, where the values lie): "low" the dtype's least values,
# "high" its greatest, "mid" around zero
CASES = [(dt, 3001, where) for dt in DTYPES for where in ("low", "high")]
CASES += [("i4", 2048, "mid"), ("i8", 777, "mid"), ("i1", 5000, "all"),
          ("u2", 4000, "one")]
PARAMS = {"minmax": "const void *a, long long n, void *mm",
          "mark": "const void *a, long long n, unsigned long long lo, "
                  "void *bitmap, void *counts",
          "words": "void *bitmap, const void *counts, long long nwords, "
                   "unsigned long long R, void *pc",
          "emit": "const void *bitmap, const void *csum, unsigned long long R,"
                  " unsigned long long lo, void *uniq, const void *counts, "
                  "void *cout",
          "inverse": "const void *a, long long n, unsigned long long lo, "
                     "const void *bitmap, const void *csum, void *inverse"}
CALLS = {"minmax": "(const T::ga_bits *)a, n, (unsigned long long *)mm",
         "mark": "(const T::ga_bits *)a, n, lo, (unsigned int *)bitmap, "
                 "(unsigned int *)counts",
         "words": "(unsigned int *)bitmap, (const unsigned int *)counts, "
                  "nwords, R, (int *)pc",
         "emit": "(const unsigned int *)bitmap, (const %s *)csum, R, lo, "
                 "(T::ga_bits *)uniq, (const unsigned int *)counts, "
                 "(long long *)cout",
         "inverse": "(const T::ga_bits *)a, n, lo, "
                    "(const unsigned int *)bitmap, (const %s *)csum, "
                    "(long long *)inverse"}
KERNELS = list(PARAMS)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    parts = []
    for d, dt in enumerate(DTYPES):
        for w, wide in enumerate((False, True)):
            specs = sk.dense_specs(np.dtype(dt), wide)
            for j, kernel in enumerate(KERNELS):
                k = (d * 2 + w) * len(KERNELS) + j
                spec = specs[kernel]
                call = CALLS[kernel]
                if "%s" in call:
                    call = call % ("long long" if wide else "int")
                parts.append(host_source(spec, k))
                parts.append(launcher(spec, k, PARAMS[kernel], call))
    return build(tmp_path_factory.mktemp("udense"), parts)


def _values(dt, n, where, rng):
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    info = np.iinfo(dt)
    span = min(int(info.max) - int(info.min), 2 * n - 1)
    if where == "one":
        return np.full(n, info.max // 3, dt)
    if where == "all":
        v = rng.integers(info.min, info.max, n, endpoint=True)
        v[:2] = info.min, info.max
        return v.astype(dt)
    # values spread over about 1.5 n of the range, with gaps
    lo = {"low": int(info.min), "high": int(info.max) - span,
          "mid": -(span // 2) if dt.kind == "i" else 0}[where]
    v = [lo + int(x) for x in rng.integers(0, span * 3 // 4 + 1, n)]
    v[0], v[1] = lo, lo + span * 3 // 4
    return np.array(v, dtype=object).astype(dt)


def _run(host, k, kernel, grid, *args):
    getattr(host, "run_%d" % (k + KERNELS.index(kernel)))(grid, 256, *args)


def _key(dt, x):
    """numpy's emulation of the template's key."""
    u = int(np.asarray(x).astype(dt).view("u%d" % dt.itemsize))
    return u ^ (1 << (8 * dt.itemsize - 1)) if dt.kind == "i" else u


@pytest.mark.parametrize("case", range(len(CASES)),
                         ids=["%s-%d-%s" % c for c in CASES])
@pytest.mark.parametrize("counting", [False, True], ids=["bits", "counts"])
def test_dense_unique_on_the_host_equals_numpy(host, case, counting):
    dtn, n, where = CASES[case]
    dt = np.dtype(dtn)
    rng = np.random.default_rng(case)
    a = _values(dt, n, where, rng)
    wide = case % 2 == 1           # both sum widths over the cases
    k = (DTYPES.index(dtn) * 2 + wide) * len(KERNELS)
    c_n = ctypes.c_longlong(n)
    mm = np.array([2 ** 64 - 1, 0], np.uint64)
    _run(host, k, "minmax", 3, ptr(a), c_n, ptr(mm))
    lo, hi = int(mm[0]), int(mm[1])
    assert (lo, hi) == (_key(dt, a.min()), _key(dt, a.max()))
    span = hi - lo + 1
    assert span <= 2 * n
    nwords = -(-span // 32)
    bitmap = np.full(nwords, 0 if not counting else 0xA5A5A5A5, np.uint32)
    counts = np.zeros(span, np.uint32) if counting else None
    c_lo = ctypes.c_ulonglong(lo)
    _run(host, k, "mark", 2, ptr(a), c_n, c_lo,
         ptr(None if counting else bitmap), ptr(counts))
    pc = np.full(nwords, -7, np.int32)
    _run(host, k, "words", 3, ptr(bitmap), ptr(counts),
         ctypes.c_longlong(nwords), ctypes.c_ulonglong(span), ptr(pc))
    csum = np.cumsum(pc, dtype=np.int64 if wide else np.int32)
    nu = int(csum[-1])
    want, winv, wcnt = np.unique(a, return_inverse=True, return_counts=True)
    assert nu == want.size
    uniq = np.zeros(nu + 1, dt)
    uniq[-1] = a[0]                 # one past the end: must stay
    cout = np.full(nu, -1, np.int64) if counting else None
    _run(host, k, "emit", 2, ptr(bitmap), ptr(csum), ctypes.c_ulonglong(span),
         c_lo, ptr(uniq), ptr(counts), ptr(cout))
    assert uniq[:nu].tobytes() == want.tobytes() and uniq[-1] == a[0]
    if counting:
        np.testing.assert_array_equal(cout, wcnt)
    inverse = np.full(n, -1, np.int64)
    _run(host, k, "inverse", 2, ptr(a), c_n, c_lo, ptr(bitmap), ptr(csum),
         ptr(inverse))
    np.testing.assert_array_equal(inverse, winv.reshape(-1))


def test_dense_specs_and_when_they_apply():
    for dt in DTYPES:
        specs = sk.dense_specs(np.dtype(dt))
        assert sorted(specs) == sorted(KERNELS)
        assert len({s.kkey for s in specs.values()}) == len(KERNELS)
        wide = sk.dense_specs(np.dtype(dt), True)
        assert wide["emit"].kkey != specs["emit"].kkey
        assert "const long long *__restrict__ csum" in wide["emit"].source()
        assert "const int *__restrict__ csum" in specs["emit"].source()
    # signed keys flip the sign bit; bools and unsigned ones are their bits
    assert "^ 2147483648ull" in sk.dense_specs(np.dtype("i4"))["mark"].source()
    assert "^ 0ull" in sk.dense_specs(np.dtype("u4"))["mark"].source()
    for dt in ("f4", "f2", "c8"):
        assert not sk.dense_ok(np.dtype(dt), 10 ** 6)
        with pytest.raises(TypeError):
            sk.dense_specs(np.dtype(dt))
    assert not sk.dense_ok(np.dtype("i4"), sk.DENSE_MIN - 1)
    assert sk.dense_ok(np.dtype("i4"), sk.DENSE_MIN)
    assert sk.dense_ok(np.dtype("?"), sk.DENSE_LIMIT - 1)
    assert not sk.dense_ok(np.dtype("u8"), sk.DENSE_LIMIT)
