"""CPU tests of scans: every template variant renders deterministically and
compiles for sm_90 (NVRTC or nvcc, no GPU needed); argument errors raised
before any launch; cumsum/cumprod dtypes against numpy."""
import os
import warnings

import numpy as np
import pytest

from _util import FakeArray, kernel_compiler

from gpuarr import _dtypes
from gpuarr import scan
from gpuarr.gpuarray import GPUArray
from gpuarr import cumulative

DTYPES = _dtypes.SUPPORTED



COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")



def _ids(dt):
    return np.dtype(dt).name


# ---------------------------------------------------------------------------
# rendering and compiling


def test_layout():
    assert scan.layout(np.float32, np.float32) == (4, 6)
    assert scan.tile_size(np.float32, np.float32) == 6144
    assert scan.layout(np.float64, np.float64) == (2, 6)
    assert scan.layout(np.complex128, np.complex128) == (1, 4)
    assert scan.layout(np.int8, np.int8) == (16, 2)
    assert scan.layout(np.bool_, np.int64) == (2, 6)
    assert scan.layout(np.int32, np.int64, np.int64) == (2, 6)
    assert scan.layout(np.float16, np.float16) == (8, 4)
    for a in DTYPES:
        for b in DTYPES:
            v, r = scan.layout(a, b)
            assert v * max(a.itemsize, b.itemsize) <= 16 and v * r <= 32


def test_render_deterministic():
    args = ("lookback", np.float32, np.float32, np.float32, "a + b", "0")
    assert scan.scan_source(*args) == scan.scan_source(*args)
    s1 = scan.scan_source(*args, seg=True)
    assert s1 != scan.scan_source(*args)
    assert "extern \"C\" __global__" in s1


def test_render_needs_neutral_for_exclusive():
    with pytest.raises(ValueError):
        scan.scan_source("lookback", "f4", "f4", "f4", "a + b", None,
                         exclusive=True)


def test_builtin_operator():
    assert scan.builtin_operator("add", np.bool_) == ("a || b", "false")
    assert scan.builtin_operator("multiply", np.bool_) == ("a && b", "true")
    assert "unsigned long long" in scan.builtin_operator("add", np.int32)[0]
    assert scan.builtin_operator("multiply", np.complex64) == ("a * b", "1")
    with pytest.raises(ValueError):
        scan.builtin_operator("subtract", np.float32)


def test_packed_descriptor_choice():
    assert "unsigned long long *desc" in scan.scan_source(
        "lookback", "f4", "f4", "f4", "a + b")
    assert "unsigned long long *desc" in scan.scan_source(
        "lookback", "f2", "f2", "f2", "a + b")
    for dt in ("f8", "i8", "c8", "c16"):
        src = scan.scan_source("lookback", dt, dt, dt, "a + b")
        assert "ga_vstore" in src and "__threadfence()" in src


# sha256 (first 32 hex digits) of the v1 kernel source from its
# "typedef <in> ga_in_t;" line on (what scan.cu.mako renders, without the
# shared common.cu.mako types), as validated on the H200 (first in commit
# fec1760; again with the scratch left zeroed by the kernel, run 26 of
# benchmarks/NOTES.md): v1 is the fallback where v3 cannot run, so it must
# not drift.
V1_DIGESTS = {
    ("f4", "f4", "f4", False, False, True): "5f3b0a964333a7193f6617d5e41d8378",
    ("f4", "f4", "f4", True, True, False): "0e3e7ade30c8d9d70e3d765781256890",
    ("f8", "f8", "f8", False, False, True): "a1d0f34bebbefad358c83752c3dfefa1",
    ("i4", "i8", "i8", False, False, True): "c88e1949f29a7466ea3673a05e9c6642",
}


@pytest.mark.parametrize("args", sorted(V1_DIGESTS))
def test_v1_source_is_the_validated_one(args):
    import hashlib
    i, o, lp, excl, seg, al = args
    src = scan.scan_source("lookback", i, o, lp, "a + b", "0", excl, seg, al,
                           impl="block-per-tile")
    k = src.rindex("\n", 0, src.index(" ga_in_t;\n")) + 1
    assert hashlib.sha256(src[k:].encode()).hexdigest()[:32] == \
        V1_DIGESTS[args], "the v1 scan kernel changed: it must stay as validated"


def test_impl_selection():
    assert scan.IMPL in ("block-per-tile", "pipelined")
    if not os.environ.get("GPUARR_SCAN"):
        assert scan.IMPL == "pipelined"      # the faster one on the H200
    a = ("lookback", "f4", "f4", "f4", "a + b", "0")
    v1 = scan.scan_source(*a, impl="block-per-tile")
    v3 = scan.scan_source(*a, impl="pipelined")
    sig = "unsigned int *scratch, unsigned int ntiles)"   # v3's extra argument
    assert sig in v3 and sig not in v1
    assert "cp.async.bulk.shared::cluster.global" in v3
    assert "mbarrier.try_wait.parity" in v3 and "mbarrier" not in v1
    # the default follows the module constant at call time
    old = scan.IMPL
    try:
        scan.IMPL = "block-per-tile"
        assert scan.scan_source(*a) == v1
        scan.IMPL = "pipelined"
        assert scan.scan_source(*a) == v3
    finally:
        scan.IMPL = old
    for bad in ("v2", "v4"):
        with pytest.raises(ValueError):
            scan.scan_source(*a, impl=bad)
    # columns ignore the choice
    c = ("columns", "f4", "f4", "f4", "a + b", "0")
    assert scan.scan_source(*c, impl="block-per-tile") == scan.scan_source(*c, impl="pipelined")


def test_v3_layout_and_stages():
    """v3's tiles are a multiple of 16 bytes (TMA), its stage count is even
    (alternate rounds keep to their stages) and fits in shared memory."""
    for dt in ["?", "i1", "u2", "f2", "i4", "f4", "i8", "f8", "c8", "c16"]:
        for out in {dt, "i8", "f8"}:
            tile = scan.tile_size(dt, out, None, "pipelined")
            isz = np.dtype(dt).itemsize
            st = scan.v3_stages(dt, out)
            assert (tile * isz) % 16 == 0
            assert st % 2 == 0 and 2 <= st <= 8
            assert tile * isz * st <= 227 * 1024
    assert scan.tile_size("f4", "f4", None, "pipelined") == 12288
    assert scan.v3_stages("f4", "f4") == 4
    src = scan.scan_source("lookback", "f4", "f4", "f4", "a + b", "0",
                           impl="pipelined")
    assert 'static_assert(4 % 2 == 0' in src


def test_impl_from_the_settings(monkeypatch):
    """GPUARR_SCAN is read by _config; a bad value is refused, naming the
    variable, when a kernel is first rendered (not at import)."""
    from gpuarr import _config
    env = {"GPUARR_SCAN": " Block-Per-Tile "}
    assert _config.read(env).scan == "block-per-tile"
    assert _config.read({}).scan == "pipelined"
    a = ("lookback", "f4", "f4", "f4", "a + b", "0")
    for bad in ("v3", "fast"):
        monkeypatch.setattr(scan, "IMPL", _config.read({"GPUARR_SCAN": bad}).scan)
        with pytest.raises(ValueError, match="GPUARR_SCAN"):
            scan.scan_source(*a)


IMPLS = ["block-per-tile", "pipelined"]


@needs_compiler
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dt", DTYPES, ids=_ids)
def test_compile_inclusive_every_dtype(dt, impl):
    loop, res = cumulative.accumulate_dtypes("add", dt)
    expr, neutral = scan.builtin_operator("add", loop)
    COMPILE(scan.scan_source("lookback", dt, res, loop, expr, neutral,
                             impl=impl))


@needs_compiler
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("dt", DTYPES, ids=_ids)
def test_compile_segmented_exclusive_unaligned(dt, impl):
    expr, neutral = scan.builtin_operator("multiply", dt)
    COMPILE(scan.scan_source("lookback", dt, dt, dt, expr, neutral,
                             exclusive=True, seg=True, aligned=False,
                             impl=impl))


@needs_compiler
@pytest.mark.parametrize("dt", DTYPES, ids=_ids)
def test_compile_columns(dt):
    loop, res = cumulative.accumulate_dtypes("multiply", dt)
    expr, neutral = scan.builtin_operator("multiply", loop)
    COMPILE(scan.scan_source("columns", dt, res, loop, expr, neutral))


@needs_compiler
@pytest.mark.parametrize("dt", ["i1", "u1", "i4", "u8", "f2", "f4", "f8"])
def test_compile_user_max(dt):
    knl = scan.InclusiveScanKernel(dt, "max(a, b)")
    COMPILE(knl.get_source())
    COMPILE(knl.get_source(aligned=False))


@needs_compiler
def test_compile_user_preamble_and_casts():
    pre = ("__device__ __forceinline__ float mymax(float x, float y) "
           "{ return x > y ? x : y; }")
    knl = scan.ExclusiveScanKernel(np.float32, "mymax(a, b)", neutral="-__int_as_float(0x7f800000)",
                                   preamble=pre, name_prefix="mm")
    src = knl.get_source()
    assert "mm_exclusive" in src
    COMPILE(src)
    # cumsum-style mixed dtypes: f16 in f32 loop to f16 out, i1 -> i8, c8 -> c16
    for i, lp, o in (("f2", "f4", "f2"), ("i1", "i8", "i8"), ("c8", "c16", "c16"),
                     ("f8", "f8", "i8"), ("?", "i8", "f4")):
        expr, neu = scan.builtin_operator("add", lp)
        for impl in IMPLS:
            COMPILE(scan.scan_source("lookback", i, o, lp, expr, neu,
                                     seg=True, impl=impl))


# ---------------------------------------------------------------------------
# scan kernel arguments (no launch)


def test_kernel_constructor_errors():
    with pytest.raises(TypeError):
        scan.InclusiveScanKernel(object, "a+b")
    with pytest.raises(TypeError):
        scan.InclusiveScanKernel("U4", "a+b")
    with pytest.raises(ValueError):
        scan.InclusiveScanKernel(np.float32, "")
    with pytest.raises(ValueError):
        scan.InclusiveScanKernel(np.float32, "a+b", name_prefix="1bad")
    with pytest.raises(ValueError):
        scan.ExclusiveScanKernel(np.float32, "a+b")
    with pytest.raises(TypeError):
        scan.ExclusiveScanKernel(np.float32, "a+b", neutral=[0])
    with pytest.raises(TypeError):
        scan.InclusiveScanKernel(np.float32, "a+b", options="-G")
    k = scan.ExclusiveScanKernel(np.int32, "a+b", neutral=0)
    assert k.neutral == "0"
    k = scan.ExclusiveScanKernel(np.bool_, "a||b", neutral=False)
    assert k.neutral == "false"
    k = scan.InclusiveScanKernel(np.int32, "a+b")
    assert k.neutral is None


def test_kernel_call_errors_before_launch():
    k = scan.InclusiveScanKernel(np.float32, "a+b")
    a = FakeArray(np.float32, (10,))
    with pytest.raises(TypeError):
        k(np.zeros(10, np.float32).tolist())
    with pytest.raises(TypeError):
        k(FakeArray(np.float64, (10,)))
    with pytest.raises(TypeError):
        k(a, FakeArray(np.float64, (10,), ptr=1 << 30))
    with pytest.raises(ValueError):
        k(a, FakeArray(np.float32, (11,), ptr=1 << 30))
    with pytest.raises(ValueError):
        k(FakeArray(np.float32, (10,), strides=(8,)))
    with pytest.raises(ValueError):
        k(a, FakeArray(np.float32, (10,), ptr=(1 << 24) + 4))
    with pytest.raises(ValueError):
        k(a, "old")


def test_kernel_call_empty_returns_output():
    k = scan.InclusiveScanKernel(np.float32, "a+b")
    a = FakeArray(np.float32, (0,))
    assert k(a) is a
    b = FakeArray(np.float32, (0,), ptr=1 << 30)
    assert k(a, b) is b
    g = GPUArray((0,), np.float32, gpudata=0)
    out = k(g, "new")
    assert isinstance(out, GPUArray) and out.shape == (0,)


def test_run_scan_row_len_check():
    with pytest.raises(ValueError):
        scan.run_scan(1 << 24, np.float32, 1 << 24, np.float32, 10, "a+b",
                      np.float32, row_len=3)


# ---------------------------------------------------------------------------
# cumsum / cumprod dtypes and errors (no launch)


@pytest.mark.parametrize("op,npf", [("add", np.cumsum),
                                    ("multiply", np.cumprod)])
@pytest.mark.parametrize("dt", DTYPES, ids=_ids)
def test_result_dtype_default(op, npf, dt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expect = npf(np.ones(3, dt)).dtype
    loop, res = cumulative.accumulate_dtypes(op, dt)
    assert res == expect and loop == expect


@pytest.mark.parametrize("dt", DTYPES, ids=_ids)
@pytest.mark.parametrize("to", ["?", "i1", "u4", "f2", "f8", "c8"])
def test_result_dtype_with_dtype(dt, to):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expect = np.cumsum(np.ones(3, dt), dtype=to).dtype
    assert cumulative.accumulate_dtypes("add", dt, dtype=to) == (expect, expect)


def test_loop_dtype_with_out():
    f = cumulative.accumulate_dtypes
    assert f("add", np.float16, out_dtype=np.float32)[0] == np.float32
    assert f("add", np.float64, out_dtype=np.int64)[0] == np.float64
    assert f("add", np.int32, out_dtype=np.float32)[0] == np.float64
    assert f("add", np.int32, out_dtype=np.complex64)[0] == np.complex128
    assert f("add", np.float16, dtype=np.float32,
             out_dtype=np.float16) == (np.float32, np.float16)
    # numpy's own loop there, seen from its result (2048 + 1 is exact in
    # float32 only), is the loop gpuarr picks
    o = np.empty(3, np.float32)
    np.cumsum(np.array([2048, 1, 1], np.float16), out=o)
    numpy_loop = np.float32 if o[1] == 2049 else np.float16
    assert f("add", np.float16, out_dtype=np.float32)[0] == numpy_loop


def test_unsupported_dtype():
    with pytest.raises(TypeError):
        cumulative.accumulate_dtypes("add", np.float32, dtype=object)


def _fake(shape, dt, ptr=1 << 24):
    return GPUArray(shape, dt, gpudata=ptr)


@pytest.mark.parametrize("fn", [cumulative.cumsum, cumulative.cumprod])
def test_errors_before_launch(fn):
    a = _fake((2, 3), np.float32)
    with pytest.raises(np.exceptions.AxisError):
        fn(a, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        fn(a, axis=-3)
    with pytest.raises(IndexError):  # AxisError is an IndexError too
        fn(a, axis=5)
    with pytest.raises(TypeError):
        fn(a, axis=1.0)
    with pytest.raises(TypeError):
        fn(a, axis=(0,))
    with pytest.raises(ValueError):
        fn(a, out=_fake((5,), np.float32, 1 << 30))
    with pytest.raises(ValueError):
        fn(a, out=_fake((2, 3), np.float32, 1 << 30))
    with pytest.raises(ValueError):
        fn(a, axis=0, out=_fake((3, 2), np.float32, 1 << 30))
    with pytest.raises(TypeError):
        fn(a, out=np.empty(6, np.float32))
    with pytest.raises(TypeError):
        fn(a, dtype=object)
    # 0-d arrays scan like 1-element ones: axis 0 and -1 are valid
    s = _fake((), np.float32)
    with pytest.raises(np.exceptions.AxisError):
        fn(s, axis=1)


@pytest.mark.parametrize("dt", DTYPES, ids=_ids)
def test_empty_inputs_give_numpy_dtype_and_shape(dt):
    z = GPUArray((2, 0), dt, gpudata=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn, npf in ((cumulative.cumsum, np.cumsum),
                        (cumulative.cumprod, np.cumprod)):
            h = np.ones((2, 0), dt)
            for axis in (None, 0, 1, -1):
                r = fn(z, axis=axis)
                e = npf(h, axis=axis)
                assert r.shape == e.shape and r.dtype == e.dtype


def test_complex_to_real_warns():
    z = GPUArray((0,), np.complex64, gpudata=0)
    with pytest.warns(np.exceptions.ComplexWarning):
        cumulative.cumsum(z, dtype=np.float32)


def test_every_exit_clears_the_scratch():
    """No memset before a scan: the kernels count finished blocks (v1) or
    warps (v3, every role's exit) and the last one clears the scratch."""
    a = ("lookback", "f8", "f8", "f8", "a + b", "0")
    v1 = scan.scan_source(*a, impl="block-per-tile")
    v3 = scan.scan_source(*a, impl="pipelined")
    assert v1.count("ga_scratch_done(scratch, gridDim.x, gridDim.x, lane)") == 1
    # producer, aggregators, look-back warps, consumers
    assert v3.count("ga_scratch_done(scratch, ntiles, nwarps, lane)") == 4
    # the bytes cleared are the bytes the host sizes the buffer for
    assert "16ull + 8ull * ntiles" in scan.scan_source(
        "lookback", "f4", "f4", "f4", "a + b", "0", impl="pipelined")
    assert "2ull * ntiles * sizeof(ga_acc_t)" in v3
