"""CPU test of the pipelined look-back scan (``scan_pipelined.cu.mako``:
persistent blocks, warp roles, TMA loads into a ring of stages, mbarriers)
run on the host (tests/_cuda_host.py: the rendered kernel, unchanged,
against an emulation of the CUDA it uses, mbarriers and bulk copies
included), launched as ``gpuarr.scan.run_scan`` launches it.

Results against numpy for packed and unpacked descriptors, rows,
exclusive scans, the ordered (non-commutative) aggregators, tiles that
end inside the array, many rounds a block (every stage refilled, every
slot reused) and grids of one and two blocks; the scratch buffer left
zeroed.  And a build with ThreadSanitizer, whose happens-before is only
what orders memory on the GPU (barriers, ``__syncwarp``, mbarrier
arrive/wait; not shuffles or votes), so that the races compute-sanitizer's
racecheck reported in the kernel (run 4 of 2026-12-04: the producer's TMA
refill against an aggregator warp's reads of the stage) are found here
too: none in the kernel as it is (every lane of the aggregator and
look-back warps arrives on their mbarriers), one when lane 0 arrives for
the aggregator warp without a warp barrier before."""
import ctypes

import numpy as np
import pytest

from _cuda_host import build, build_tsan, host_text, launcher, ptr

from gpuarr import scan

# (in, out, loop dtype, operator, exclusive, rows, commutative, numpy's
# scan of a 1-d array, elements, row length or None)
CASES = {
    "i4-packed": ("i4", "i4", "i4", "a + b", False, False, True,
                  lambda h: np.cumsum(h, dtype=np.int32), 12288 * 10 + 5,
                  None),
    "i4-i8-rows": ("i4", "i8", "i8", "a + b", False, True, True,
                   np.cumsum, 12 * 10001, 10001),
    "f8-exclusive": ("f8", "f8", "f8", "a + b", True, False, True,
                     lambda h: np.concatenate([[0.0], np.cumsum(h)[:-1]]),
                     6144 * 9 + 3, None),
    "c16": ("c16", "c16", "c16", "a + b", False, False, True, np.cumsum,
            2048 * 14 + 1, None),
    "i4-max-ordered": ("i4", "i4", "i4", "a > b ? a : b", False, False,
                       False, np.maximum.accumulate, 12288 * 9 + 100, None),
}
NAMES = list(CASES)


def _source(case):
    i, o, loop, expr, excl, seg, comm = CASES[case][:7]
    return scan.scan_source("lookback", i, o, loop, expr, "0", excl, seg,
                            True, impl="pipelined", commutative=comm)


class _Spec:
    name = "gpuarr_scan"


def _parts(names=NAMES):
    parts = []
    for k, case in enumerate(names):
        parts.append(host_text(_source(case), _Spec.name, k))
        parts.append(launcher(
            _Spec, k, "const void *in, void *out, unsigned long long n, "
            "unsigned long long L, void *scratch, unsigned int nt",
            "(const T::ga_in_t *)in, (T::ga_out_t *)out, n, L, "
            "(unsigned int *)scratch, nt"))
    return parts


def _inputs(case, rng):
    i, o = CASES[case][:2]
    n = CASES[case][8]
    h = rng.integers(-9, 10, n)
    if i == "c16":
        h = h + 1j * rng.integers(-9, 10, n)
    return h.astype(i), np.dtype(o)


def _scratch_bytes(case, ntiles):
    acc = np.dtype(CASES[case][2]).itemsize
    if acc <= 4:
        return 16 + 8 * ntiles
    return ((16 + 4 * ntiles + 15) & ~15) + 2 * ntiles * acc


def _launch_args(case, h):
    n = h.size
    tile = scan.tile_size(*CASES[case][:3], impl="pipelined")
    nt = -(-n // tile)
    rows = CASES[case][9]
    return n, rows if rows else n, nt, _scratch_bytes(case, nt)


def _expected(case, h):
    ref, rows = CASES[case][7], CASES[case][9]
    if rows:
        return np.concatenate([ref(r) for r in h.reshape(-1, rows)])
    return ref(h)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return build(tmp_path_factory.mktemp("scan"), _parts())



def test_kernels_are_the_pipelined_ones():
    for case in NAMES:
        src = _source(case)
        assert "cp.async.bulk" in src and "mbarrier.try_wait.parity" in src
        # the emulation replaced every inline PTX statement of the kernel
        body = host_text(src, _Spec.name, 0)
        assert "asm volatile" not in body, case


@pytest.mark.parametrize("case,grid", [("i4-packed", 2),
                                       ("f8-exclusive", 2)])
def test_pipelined_scan_on_the_host_equals_numpy(host, case, grid):
    """A plain build (the ThreadSanitizer test below checks every case's
    results too)."""
    rng = np.random.default_rng(NAMES.index(case) * 2 + grid)
    h, odt = _inputs(case, rng)
    n, L, nt, sbytes = _launch_args(case, h)
    assert nt > 2 * scan.v3_stages(*CASES[case][:3])   # slots reused
    out = np.full(n, 77, odt)                           # poisoned
    scratch = np.zeros(sbytes, np.uint8)
    getattr(host, "run_%d" % NAMES.index(case))(
        grid, scan._V3_BLOCK + 32 * scan._V3_ROLE_WARPS, ptr(h), ptr(out),
        ctypes.c_ulonglong(n), ctypes.c_ulonglong(L), ptr(scratch),
        ctypes.c_uint(nt))
    np.testing.assert_array_equal(out, _expected(case, h).astype(odt))
    assert not scratch.any(), "the launch must leave its scratch zeroed"


MAIN = r"""
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef void (*ga_run)(int, int, const void *, void *, unsigned long long,
                       unsigned long long, void *, unsigned int);
static const ga_run RUNS[] = {%s};
// case grid block n L ntiles in_bytes out_bytes scratch_bytes in out
int main(int argc, char **argv)
{
    if (argc != 12) return 2;
    const int k = atoi(argv[1]), grid = atoi(argv[2]), block = atoi(argv[3]);
    const unsigned long long n = strtoull(argv[4], 0, 10), L = strtoull(argv[5], 0, 10);
    const unsigned int nt = (unsigned int)strtoul(argv[6], 0, 10);
    const size_t ib = strtoull(argv[7], 0, 10), ob = strtoull(argv[8], 0, 10),
                 sb = strtoull(argv[9], 0, 10);
    std::vector<unsigned char> in(ib), out(ob + sb, 0x4d), scratch(sb, 0);
    FILE *f = fopen(argv[10], "rb");
    if (!f || fread(in.data(), 1, ib, f) != ib) return 3;
    fclose(f);
    RUNS[k](grid, block, in.data(), out.data(), n, L, scratch.data(), nt);
    std::copy(scratch.begin(), scratch.end(), out.begin() + ob);
    f = fopen(argv[11], "wb");
    if (!f || fwrite(out.data(), 1, ob + sb, f) != ob + sb) return 4;
    fclose(f);
    return 0;
}
"""


def _tsan_parts(names, mutate=()):
    parts = _parts(names)
    for old, new in mutate:
        assert parts[0].count(old) == 1, old
        parts[0] = parts[0].replace(old, new)
    main = MAIN % ", ".join("run_%d" % k for k in range(len(names)))
    return parts + [main]


def _run_tsan(run, tmp, case, grid, names=NAMES):
    h, odt = _inputs(case, np.random.default_rng(5))
    n, L, nt, sbytes = _launch_args(case, h)
    src, dst = tmp / ("%s.in" % case), tmp / ("%s.out" % case)
    h.tofile(str(src))
    rc, out, err = run(names.index(case), grid,
                       scan._V3_BLOCK + 32 * scan._V3_ROLE_WARPS, n, L, nt,
                       h.nbytes, n * odt.itemsize, sbytes, src, dst)
    raw = np.fromfile(str(dst), np.uint8) if rc in (0, 66) else None
    return rc, err, raw, h, odt


# the aggregator's mbarrier arrived at by lane 0 alone, for the warp (its
# count 1), with no warp barrier before: lanes 1-31's reads unreleased
LANE0_ARRIVES = (
    ("ga_bar_init(&s_aggr[q], 32u);", "ga_bar_init(&s_aggr[q], 1u);"),
    ("ga_bar_arrive(&s_aggr[q]);      // each lane: see below",
     "if (lane == 0) ga_bar_arrive(&s_aggr[q]);"),
    ("            ga_bar_arrive(&s_aggr[q]);\n",
     "            if (lane == 0) ga_bar_arrive(&s_aggr[q]);\n"))


def test_pipelined_scan_has_no_race_under_threadsanitizer(tmp_path):
    run = build_tsan(tmp_path, _tsan_parts(NAMES))
    for case, grid in [("i4-packed", 1), ("i4-i8-rows", 2),
                       ("f8-exclusive", 1), ("c16", 1),
                       ("i4-max-ordered", 2)]:
        rc, err, raw, h, odt = _run_tsan(run, tmp_path, case, grid)
        assert "ThreadSanitizer" not in err and rc == 0, (case, err[-4000:])
        nb = h.size * odt.itemsize
        np.testing.assert_array_equal(raw[:nb].view(odt),
                                      _expected(case, h).astype(odt))
        assert not raw[nb:].any()


def test_threadsanitizer_finds_the_aggregator_race(tmp_path):
    """With lane 0 arriving for the aggregator warp (and no warp barrier
    before), lanes 1-31's loads of the stage are unordered with the
    producer's refill of it (racecheck's 7688 hazards of 2026-12-04): the
    host build must say so."""
    names = ["i4-packed"]
    run = build_tsan(tmp_path, _tsan_parts(names, LANE0_ARRIVES))
    rc, err, _, _, _ = _run_tsan(run, tmp_path, "i4-packed", 1, names)
    assert rc == 66 and "WARNING: ThreadSanitizer: data race" in err, err
    # the refill (a bulk copy: memcpy) against a load of the stage
    assert "memcpy" in err and "ga_dyn_smem" in err, err[-4000:]
