"""The driver layer against a fake libcuda (tests/fake_cuda/fake_libcuda.c).

No GPU is needed: the fake implements the entry points gpuarr resolves on
host memory and records what it is asked to do (the packed bytes of each
launch, which context is current at each free, live handles), so argument
packing, parameter checks, context push/pop around releases, warnings after
detach, the error funnel and exit cleanliness are checked in CI.

gpuarr loads libcuda once per process, so each scenario runs in a fresh
interpreter with ``GPUARR_LIBCUDA`` naming the fake; the scenario asserts
inside that process and prints DONE at the end.
"""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_DIR = os.path.join(HERE, "fake_cuda")




PRELUDE = """\
import gc, sys, threading, warnings
import numpy as np
import gpuarr.driver as drv
from fakecuda import Fake, expected_params, image, ptx
fk = Fake()
"""
AUTOINIT = """\
import gpuarr.autoinit
ctx = gpuarr.autoinit.context
"""


def _env(lib, extra=None):
    # Like _run in test_driver_cpu.py: run outside the checkout, with the
    # directory of the gpuarr these tests import first on PYTHONPATH.
    import gpuarr
    env = dict(os.environ)
    env.update(extra or {})
    env["GPUARR_LIBCUDA"] = lib
    where = os.path.dirname(os.path.dirname(os.path.abspath(gpuarr.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [where, FAKE_DIR] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_fake(lib, code, autoinit=True, pyargs=(), env=None):
    src = PRELUDE + (AUTOINIT if autoinit else "") + textwrap.dedent(code) + "\nprint('DONE')\n"
    return subprocess.run([sys.executable, *pyargs, "-c", src], capture_output=True,
                          text=True, env=_env(lib, env), timeout=120, cwd="/")


def check(lib, code, **kw):
    """Run a scenario; it passes when it exits 0 having printed DONE."""
    r = run_fake(lib, code, **kw)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("DONE"), \
        "scenario failed (rc=%d)\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr)
    return r


@pytest.fixture(scope="session")
def fake_lib_no_count(fake_lib, tmp_path_factory):
    """The fake built with -DFAKE_NO_PARAM_COUNT: a driver that has
    cuFuncGetParamInfo but not cuFuncGetParamCount (CUDA 12.4 to 13.0).
    Needs the C compiler that ``fake_lib`` found."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") \
        or shutil.which("clang")
    out = tmp_path_factory.mktemp("fake_cuda_no_count") / "libcuda.so.1"
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-DFAKE_NO_PARAM_COUNT", "-o",
                        str(out), os.path.join(FAKE_DIR, "fake_libcuda.c"), "-lpthread"],
                       capture_output=True, text=True)
    assert r.returncode == 0, "building the fake libcuda failed:\n" + r.stderr
    return str(out)


# ---------------------------------------------------------------------------
# The fake itself, and initialization
# ---------------------------------------------------------------------------

def test_fake_exports_every_entry_point_gpuarr_resolves(fake_lib):
    import glob
    import re
    import gpuarr
    here = os.path.dirname(os.path.abspath(gpuarr.__file__))
    pyx = os.path.join(here, "_driver.pyx")
    if not os.path.exists(pyx):
        pytest.skip("gpuarr/_driver.pyx is not next to the imported package")
    text = ""
    for path in [pyx] + sorted(glob.glob(os.path.join(here, "_driver_*.pxi"))):
        with open(path) as f:
            text += f.read()
    names = sorted(set(re.findall(r'_get\(b"(\w+)"', text)))
    assert len(names) > 60
    code = "import ctypes\nlib = ctypes.CDLL(%r)\n" % fake_lib + \
        "print([n for n in %r if not hasattr(lib, n)])" % names
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_autoinit_retains_and_pushes_the_primary_context(fake_lib):
    check(fake_lib, """
        c = fk.counters()
        assert c["init_calls"] >= 1, c
        assert c["primary_refcount"] == 1 and c["primary_active"] == 1, c
        assert c["stack_depth"] == 1 and c["current_ctx"] == ctx.handle, c
        assert ctx.is_primary and ctx.device == drv.Device(0)
        assert drv.Context.get_current() is ctx
        assert drv.Device.count() == 1
        assert drv.get_driver_version() == 13000
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_error_funnel_names_call_code_and_description(fake_lib):
    check(fake_lib, """
        try:
            drv.init(5)
        except drv.LogicError as e:
            assert (e.code, e.name, e.call) == (1, "CUDA_ERROR_INVALID_VALUE", "cuInit"), vars(e)
            assert e.description == "invalid argument"
            assert str(e) == "cuInit failed: CUDA_ERROR_INVALID_VALUE: invalid argument"
        else:
            raise AssertionError("cuInit(5) did not raise")
        try:
            drv.Device(1)
        except drv.LogicError as e:
            assert (e.name, e.call) == ("CUDA_ERROR_INVALID_DEVICE", "cuDeviceGet"), vars(e)
            assert e.description == "invalid device ordinal"
        else:
            raise AssertionError("Device(1) did not raise")
    """, autoinit=False)


def test_no_current_context_raises_invalid_context(fake_lib):
    check(fake_lib, """
        drv.init()
        assert drv.Context.get_current() is None
        for make in (lambda: drv.mem_alloc(16), drv.Stream, drv.Event,
                     lambda: drv.pagelocked_empty(4, np.float32),
                     lambda: drv.module_from_buffer(image("kernel k -"))):
            try:
                make()
            except drv.InvalidContextError as e:
                assert e.name == "CUDA_ERROR_INVALID_CONTEXT", vars(e)
            else:
                raise AssertionError("no InvalidContextError")
        c = fk.counters()
        assert c["live_allocations"] == c["live_streams"] == c["live_events"] == 0, c
    """, autoinit=False)


# ---------------------------------------------------------------------------
# Argument packing
# ---------------------------------------------------------------------------



def test_every_scalar_kind_is_packed_with_its_bytes(fake_lib):
    check(fake_lib, """
        values = [np.int8(-100), np.uint8(250), np.int16(-30000), np.uint16(65000),
                  np.int32(-2**31), np.uint32(2**32 - 3), np.int64(-2**62 - 5),
                  np.uint64(2**64 - 7), np.float16(-1.5), np.float32(3.25),
                  np.float64(-2.0**-30), np.complex64(1.5 - 2.5j), np.complex128(-3 + 4.25j),
                  np.bool_(True)]
        sizes = ",".join(str(v.dtype.itemsize) for v in values)
        m = drv.module_from_buffer(image("kernel scalars " + sizes))
        f = m.get_function("scalars")
        assert [s for _, s in f.param_info] == [v.dtype.itemsize for v in values]
        f(*values, block=(32, 4, 1), grid=(3, 2), shared=128)
        rec = fk.last_launch()
        assert rec["name"] == "scalars"
        assert rec["params"] == expected_params(values), (rec["params"], expected_params(values))
        assert rec["grid"] == (3, 2, 1) and rec["block"] == (32, 4, 1), rec
        assert rec["shared"] == 128 and rec["stream"] == 0 and rec["ctx"] == ctx.handle, rec
        assert fk["launches"] == 1
    """)


def test_packing_without_parameter_info_from_the_driver(fake_lib):
    # "noinfo": cuFuncGetParamCount and cuFuncGetParamInfo answer
    # NOT_SUPPORTED, as a driver with no parameter information would;
    # gpuarr then packs without checking.
    check(fake_lib, """
        values = [np.int8(-3), np.float64(2.5), np.int32(7), np.complex128(1 - 1j), np.uint16(9)]
        m = drv.module_from_buffer(image("kernel k 1,8,4,16,2 noinfo"))
        f = m.get_function("k")
        assert f.param_info is None
        f(*values, block=(1,))
        assert fk.last_launch()["params"] == expected_params(values)
        try:
            f(np.zeros(1, "V40")[0], np.float64(0), np.int32(0), np.complex128(0), np.uint16(0), block=(1,))
        except TypeError as e:
            assert "40-byte" in str(e) and "parameter information" in str(e), e
        else:
            raise AssertionError("a 40-byte struct without param info was accepted")
    """)


def test_many_and_large_parameters_use_heap_buffers(fake_lib):
    # 70 pointers (more than the 64 on the stack) and an 1100-byte struct
    # (more than the 1024 stack bytes).
    check(fake_lib, """
        blob = np.frombuffer(bytes(range(256)) * 5, np.uint8)[:1100].copy()
        struct = blob.view("V1100")[0]
        assert isinstance(struct, np.generic)
        m = drv.module_from_buffer(image("kernel big " + ",".join(["8"] * 70) + ",1100,4"))
        f = m.get_function("big")
        ptrs = [np.uint64(1000 + 8 * i) for i in range(70)]
        f(*ptrs, struct, np.int32(-5), block=(1,))
        want = expected_params(ptrs + [blob.tobytes(), np.int32(-5)])
        got = fk.last_launch()["params"]
        assert len(got) == 70 * 8 + 1100 + 4 and got == want
    """)


def test_pointer_arguments_of_every_form(fake_lib):
    check(fake_lib, """
        import struct
        a = drv.mem_alloc(64)
        class WithGpudata:
            def __init__(self, g): self.gpudata = g
        class WithPtr:
            ptr = int(a) + 8
        class WithCAI:
            __cuda_array_interface__ = {"data": (int(a) + 16, False), "shape": (4,),
                                        "typestr": "<f4", "version": 3}
        m = drv.module_from_buffer(image("kernel ptrs 8,8,8,8,8,8"))
        f = m.get_function("ptrs")
        f(a, WithGpudata(a), WithPtr(), WithCAI(), np.uintp(int(a) + 24), WithGpudata(int(a) + 32),
          block=(1,))
        got = struct.unpack("<6Q", fk.last_launch()["params"])
        base = int(a)
        assert got == (base, base, base + 8, base + 16, base + 24, base + 32), (got, base)
    """)


def test_in_out_inout_copy_semantics(fake_lib):
    # Fake device memory starts as 0xCD bytes. "inc" adds 1 to n bytes at p;
    # "copy" copies n bytes from src to dst.
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel inc 8,4 effect=inc", "kernel copy 8,8,4 effect=copy"))
        inc, copy = m.get_function("inc"), m.get_function("copy")
        base = fk["live_allocations"]

        a = np.arange(16, dtype=np.uint8)
        inc(drv.InOut(a), np.int32(16), block=(16,))
        assert (a == np.arange(1, 17)).all(), a                 # in and back out

        b = np.zeros(16, np.uint8)
        inc(drv.Out(b), np.int32(16), block=(16,))
        assert (b == 0xCE).all(), b                             # out only: never copied in

        c = np.arange(16, dtype=np.uint8)
        inc(drv.In(c), np.int32(16), block=(16,))
        assert (c == np.arange(16)).all(), c                    # in only: never copied back

        src = np.random.default_rng(1).integers(0, 255, 64).astype(np.uint8)
        dst = np.zeros(64, np.uint8)
        copy(drv.Out(dst), drv.In(src), np.int32(64), block=(64,))
        assert (dst == src).all()

        s = drv.Stream()
        syncs = fk["stream_syncs"]
        d = np.zeros(8, np.float32)
        inc(drv.InOut(d.view(np.uint8)), np.int32(32), block=(1,), stream=s)
        assert fk["stream_syncs"] == syncs + 1 and fk.last_launch()["stream"] == s.handle
        assert (d.view(np.uint8) == 1).all()
        assert fk["live_allocations"] == base, fk.counters()    # temporaries freed
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_argument_errors_raise_type_error_before_any_launch(fake_lib):
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel inc 8,4 effect=inc"))
        f = m.get_function("inc")
        a = drv.mem_alloc(16)
        base = fk.counters()
        cases = [
            ((a,), "takes 2 arguments (1 given)"),
            ((a, np.int32(1), np.int32(2)), "takes 2 arguments (3 given)"),
            ((a, np.int64(1)), "argument 1 (0-based) of kernel 'inc': parameter is 4 bytes"),
            ((np.float32(1), np.int32(1)), "argument 0 (0-based) of kernel 'inc': parameter is 8 bytes"),
            ((a, 5), "a Python int has no C type"),
            ((a, 5.0), "a Python float has no C type"),
            ((a, True), "a Python bool has no C type"),
            ((drv.In(np.zeros(4, np.uint8)), 5), "a Python int has no C type"),
            (("text", np.int32(1)), "cannot pass str"),
        ]
        for args, words in cases:
            try:
                f(*args, block=(1,))
            except TypeError as e:
                assert words in str(e), (words, str(e))
            else:
                raise AssertionError("no TypeError for %r" % (args,))
        c = fk.counters()
        assert c["launches"] == base["launches"] == 0, c
        assert c["live_allocations"] == base["live_allocations"], c   # In's temporary freed
        assert c["errors"] == 0, fk.last_error()
        for bad in [None, (0, 1, 2, 3), (-1,), ("x",)]:
            try:
                f(a, np.int32(1), block=bad)
            except ValueError:
                pass
            else:
                raise AssertionError("block=%r accepted" % (bad,))
        assert fk["launches"] == 0
    """)


# ---------------------------------------------------------------------------
# prepare() and prepared calls
# ---------------------------------------------------------------------------

def test_prepare_checks_against_the_kernels_parameters(fake_lib):
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel k 8,4,2"))
        f = m.get_function("k")
        try:
            f.prepared_call((1,), (1,), 0, 0, 0)
        except TypeError as e:
            assert "prepare()" in str(e), e
        else:
            raise AssertionError("prepared_call before prepare() ran")
        assert f.prepare("PiH") is f
        assert f.prepare([np.intp, np.float32, np.float16]) is f
        for spec, words in [("Pi", "takes 3 arguments, prepare() got 2"),
                            ("PiHi", "takes 3 arguments, prepare() got 4"),
                            ("PdH", "argument 1 (0-based) of kernel 'k': parameter is 4 bytes, prepared type 'f' is 8"),
                            ("iiH", "argument 0 (0-based) of kernel 'k': parameter is 8 bytes")]:
            try:
                f.prepare(spec)
            except TypeError as e:
                assert words in str(e), (spec, str(e))
            else:
                raise AssertionError("prepare(%r) accepted" % spec)
        f.prepare("PiH")
        try:
            f.prepared_call((1,), (1,), 0, 1)
        except TypeError as e:
            assert "prepared for 3 arguments (2 given)" in str(e), e
        else:
            raise AssertionError("wrong count accepted")
        assert fk["launches"] == 0
    """)


def test_prepared_call_packs_every_kind(fake_lib):
    check(fake_lib, """
        spec = "bBhHiIqQefdFD?P"
        types = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                 np.uint64, np.float16, np.float32, np.float64, np.complex64,
                 np.complex128, np.bool_, np.uint64]
        a = drv.mem_alloc(8)
        py = [-128, 255, -32768, 65535, -2**31, 2**32 - 1, -2**63, 2**64 - 1,
              0.333, 1e-3, -1e300, 1 - 2j, 2.5 + 1e-10j, True, a]
        sizes = ",".join(str(np.dtype(t).itemsize) for t in types)
        m = drv.module_from_buffer(image("kernel k " + sizes))
        f = m.get_function("k").prepare(spec)
        f.prepared_call((5, 1, 2), (8, 8), *py, shared_size=64)
        want = expected_params([t(v) for t, v in zip(types[:-1], py[:-1])] + [np.uint64(int(a))])
        rec = fk.last_launch()
        assert rec["params"] == want, (rec["params"], want)
        assert rec["grid"] == (5, 1, 2) and rec["block"] == (8, 8, 1) and rec["shared"] == 64, rec

        s = drv.Stream()
        f.prepared_async_call((1,), (1,), s, *py)
        assert fk.last_launch()["stream"] == s.handle
        n = fk["launches"]
        get_time = f.prepared_timed_call((1,), (1,), *py)
        assert fk["launches"] == n + 1 and get_time() == 0.0015
        f._repeat_prepared_call(7, (1,), (1,), *py)
        assert fk["launches"] == n + 8
    """)


def test_prepared_call_range_checks_raise_overflow_error(fake_lib):
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel k1 1", "kernel k2 2", "kernel k4 4", "kernel k8 8"))
        bad = [("b", 128), ("b", -129), ("B", 256), ("B", -1), ("h", 2**15), ("h", -2**15 - 1),
               ("H", 2**16), ("H", -1), ("i", 2**31), ("i", -2**31 - 1), ("I", 2**32),
               ("I", -1), ("q", 2**63), ("q", -2**63 - 1), ("Q", 2**64), ("Q", -1)]
        good = [("b", -128), ("b", 127), ("B", 255), ("h", -2**15), ("H", 2**16 - 1),
                ("i", 2**31 - 1), ("I", 2**32 - 1), ("q", -2**63), ("Q", 2**64 - 1)]
        size = {"b": 1, "B": 1, "h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "Q": 8}
        for ch, v in bad:
            f = m.get_function("k%d" % size[ch]).prepare(ch)
            try:
                f.prepared_call((1,), (1,), v)
            except OverflowError:
                pass
            else:
                raise AssertionError("%s accepted %d" % (ch, v))
        assert fk["launches"] == 0
        for ch, v in good:
            f = m.get_function("k%d" % size[ch]).prepare(ch)
            f.prepared_call((1,), (1,), v)
            want = np.array(v, dtype=np.dtype(ch)).tobytes()
            assert fk.last_launch()["params"] == want, (ch, v)
        assert fk["launches"] == len(good)
    """)


# ---------------------------------------------------------------------------
# Launch and allocation failures through the error funnel
# ---------------------------------------------------------------------------

def test_bad_block_raises_logic_error_from_cu_launch_kernel(fake_lib):
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel axpy 8,8,4,4"))
        f = m.get_function("axpy")
        a = drv.mem_alloc(16)
        base = fk["live_allocations"]
        for launch in (lambda: f(a, a, np.float32(1), np.int32(4), block=(2048, 1, 1)),
                       lambda: f(drv.In(np.ones(4, np.float32)), a, np.float32(1), np.int32(4), block=(32, 32, 2)),
                       lambda: f.prepare("PPfi").prepared_call((1,), (1, 1, 65), a, a, 1.0, 4)):
            try:
                launch()
            except drv.LogicError as e:
                assert e.name == "CUDA_ERROR_INVALID_VALUE" and e.code == 1, vars(e)
                assert e.call == "cuLaunchKernel" and e.description == "invalid argument", vars(e)
                assert "axpy" in str(e)
            else:
                raise AssertionError("bad block launched")
        assert fk["launches"] == 0
        assert fk["live_allocations"] == base      # In's temporary freed after the failure
    """)


def test_launch_fault_maps_to_launch_error(fake_lib):
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel inc 8,4 effect=inc"))
        try:
            m.get_function("inc")(np.uint64(64), np.int32(4), block=(1,))
        except drv.LaunchError as e:
            assert e.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and e.call == "cuLaunchKernel", vars(e)
        else:
            raise AssertionError("no LaunchError")
    """)


def test_mem_alloc_too_large_raises_memory_error(fake_lib):
    check(fake_lib, """
        import builtins
        try:
            drv.mem_alloc(2**50)
        except builtins.MemoryError as e:
            assert isinstance(e, drv.MemoryError) and isinstance(e, drv.Error)
            assert (e.code, e.name, e.call) == (2, "CUDA_ERROR_OUT_OF_MEMORY", "cuMemAlloc_v2"), vars(e)
            assert e.description == "out of memory"
        else:
            raise AssertionError("no MemoryError")
        assert fk["live_allocations"] == 0
        z = drv.mem_alloc(0)
        assert int(z) == 0 and fk["live_allocations"] == 0
    """)


def test_ten_thousand_alloc_free_cycles_leave_nothing_live(fake_lib):
    check(fake_lib, """
        for i in range(10000):
            a = drv.mem_alloc(64 + (i % 7))
            if i % 2:
                a.free()
                a.free()           # a second free does nothing
            del a
        gc.collect()
        c = fk.counters()
        assert c["live_allocations"] == 0, c
        assert c["mem_free_calls"] == 10000, c
        assert c["wrong_context_frees"] == 0 and c["errors"] == 0, c
    """)


# ---------------------------------------------------------------------------
# Contexts, releases in the owning context, detach, exit
# ---------------------------------------------------------------------------

def test_release_happens_in_the_owning_context(fake_lib):
    check(fake_lib, """
        a = drv.mem_alloc(32)
        s = drv.Stream()
        e = drv.Event()
        m = drv.module_from_buffer(image("kernel k -", "global g 8"))
        p = drv.pagelocked_empty(16, np.float32)
        arr = np.zeros(8)
        reg = drv.register_host_memory(arr)
        ctx2 = drv.Device(0).make_context()      # created and made current
        assert fk["current_ctx"] == ctx2.handle != ctx.handle
        del a, s, e, m, p, reg
        gc.collect()
        c = fk.counters()
        assert c["wrong_context_frees"] == 0 and c["wrong_context_releases"] == 0, c
        assert c["live_allocations"] == c["live_streams"] == c["live_events"] == 0, c
        assert c["live_modules"] == c["live_host_allocs"] == c["live_host_registrations"] == 0, c
        assert c["current_ctx"] == ctx2.handle and c["stack_depth"] == 2, c
        assert drv.Context.get_current() is ctx2

        b = drv.mem_alloc(16)                     # in ctx2, released with ctx current
        assert drv.Context.pop() is ctx2
        del b
        gc.collect()
        c = fk.counters()
        assert c["wrong_context_frees"] == 0 and c["live_allocations"] == 0, c
        assert c["current_ctx"] == ctx.handle and c["stack_depth"] == 1, c

        x = drv.mem_alloc(16)                     # freed from a thread with no context
        seen = []
        def worker():
            global x
            seen.append(fk["stack_depth"])
            del x
            gc.collect()
            seen.append(fk["stack_depth"])
        t = threading.Thread(target=worker)
        t.start(); t.join()
        assert seen == [0, 0], seen
        c = fk.counters()
        assert c["live_allocations"] == 0 and c["wrong_context_frees"] == 0, c
        ctx2.detach()
        assert fk["live_contexts"] == 1 and fk["errors"] == 0, (fk.counters(), fk.last_error())
    """)


def test_release_after_detach_warns_and_does_not_free(fake_lib):
    check(fake_lib, """
        ctx = drv.Device(0).retain_primary_context()
        ctx.push()
        a = drv.mem_alloc(16)
        s = drv.Stream()
        e = drv.Event()
        m = drv.module_from_buffer(image("kernel k -"))
        p = drv.pagelocked_empty(4, np.float32)
        frees = fk["mem_free_calls"]
        ctx.detach()
        c = fk.counters()
        assert c["primary_refcount"] == 0 and c["primary_active"] == 0, c
        assert c["stack_depth"] == 0, c                     # a current primary is popped
        assert "detached" in repr(ctx)
        errors = c["errors"]
        for name in ("a", "s", "e", "m", "p"):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                del globals()[name]
                gc.collect()
            msgs = [str(x.message) for x in w if issubclass(x.category, ResourceWarning)]
            assert len(msgs) == 1 and "outlived its context" in msgs[0], (name, msgs)
        c = fk.counters()
        assert c["mem_free_calls"] == frees, c               # nothing freed after detach
        assert c["errors"] == errors, fk.last_error()        # and no call into a dead context
        try:
            ctx.push()
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("pushed a detached context")
    """, autoinit=False)


EXIT_SCENARIO = """
a = drv.mem_alloc(64)
m = drv.module_from_buffer(image("kernel k 8", "global g 4"))
f = m.get_function("k")
s = drv.Stream()
e = drv.Event().record(s)
p = drv.pagelocked_zeros((3, 3), np.float64)
keep = np.zeros(16)
r = drv.register_host_memory(keep)
cycle = [a, s]
cycle.append(cycle)
c = fk.counters()
assert c["live_allocations"] == 1 and c["live_modules"] == 1 and c["live_streams"] == 1, c
assert c["live_events"] == 1 and c["live_host_allocs"] == 1, c
"""


@pytest.mark.parametrize("how", ["autoinit", "make_context", "primary"])
def test_exit_with_live_handles_is_silent(fake_lib, tmp_path, how):
    setup = {"autoinit": "import gpuarr.autoinit\n",
             "make_context": "ctx = drv.Device(0).make_context()\n",
             "primary": "ctx = drv.Device(0).retain_primary_context(); ctx.push()\n"}[how]
    report = tmp_path / "exit.txt"
    r = run_fake(fake_lib, setup + EXIT_SCENARIO, autoinit=False,
                 pyargs=("-W", "always::ResourceWarning"),
                 env={"FAKE_CUDA_EXIT_REPORT": str(report)})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "DONE\n" and r.stderr == "", (r.stdout, r.stderr)
    state = dict(line.split("=", 1) for line in report.read_text().splitlines())
    assert state["errors"] == "0", state            # no failing driver call at exit
    assert state["wrong_context_frees"] == "0", state
    # Once shutdown has begun, handles are dropped, not released.
    assert state["mem_free_calls"] == "0" and state["contexts_destroyed"] == "0", state
    if how == "primary":
        assert state["primary_refcount"] == "1", state
    if how == "autoinit":
        # autoinit pops and releases its context at exit.
        assert state["primary_refcount"] == "0" and state["primary_active"] == "0", state


def test_context_identity_push_pop_and_stack(fake_lib):
    check(fake_lib, """
        assert drv.Context.get_current() is ctx
        again = drv.Device(0).retain_primary_context()
        assert again is ctx and fk["primary_refcount"] == 2      # one wrapper, two retains
        again.push(); again.pop()
        again.detach()                        # gives back the second retain only
        assert fk["primary_refcount"] == 1 and fk["stack_depth"] == 1
        assert drv.Context.get_current() is ctx and "detached" not in repr(ctx)
        a = drv.mem_alloc(8); del a           # ctx still works
        assert drv.Context.pop() is ctx
        assert drv.Context.get_current() is None and fk["stack_depth"] == 0
        ctx.push()
        assert drv.Context.get_current() is ctx and fk["stack_depth"] == 1

        ctx2 = drv.Device(0).make_context()
        assert not ctx2.is_primary and ctx2 != ctx and hash(ctx2) != hash(ctx)
        assert drv.Context.get_current() is ctx2 and fk["stack_depth"] == 2
        assert drv.Context.pop() is ctx2 and drv.Context.get_current() is ctx
        ctx2.push()
        ctx2.detach()                                   # destroyed, and popped by the driver
        c = fk.counters()
        assert c["contexts_destroyed"] == 1 and c["live_contexts"] == 1, c
        assert drv.Context.get_current() is ctx and c["stack_depth"] == 1, c

        seen = []
        t = threading.Thread(target=lambda: seen.append(drv.Context.get_current()))
        t.start(); t.join()
        assert seen == [None], seen                     # the stack is per thread
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_get_device_and_synchronize_work_on_class_and_instance(fake_lib):
    check(fake_lib, """
        dev = drv.Device(0)
        assert ctx.get_device() == dev and drv.Context.get_device() == dev
        n = fk["sync_calls"]
        drv.Context.synchronize()
        assert fk["sync_calls"] == n + 1 and fk["last_sync_ctx"] == ctx.handle
        ctx2 = dev.make_context()
        ctx.synchronize()                         # ctx pushed for the call, then popped
        c = fk.counters()
        assert c["sync_calls"] == n + 2 and c["last_sync_ctx"] == ctx.handle, c
        assert c["current_ctx"] == ctx2.handle and c["stack_depth"] == 2, c
        drv.Context.synchronize()
        assert fk["last_sync_ctx"] == ctx2.handle
        assert drv.Context.get_device() == dev
        ctx2.detach()
        ctx2.detach()                             # a second detach does nothing
        try:
            ctx2.synchronize()
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("synchronized a detached context")
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_context_limits_and_cache_config(fake_lib):
    check(fake_lib, """
        drv.Context.set_limit(drv.limit.MALLOC_HEAP_SIZE, 1 << 24)
        assert drv.Context.get_limit(drv.limit.MALLOC_HEAP_SIZE) == 1 << 24
        assert drv.Context.get_limit(drv.limit.STACK_SIZE) == 1024
        try:
            drv.Context.get_limit(drv.limit.SHMEM_SIZE)
        except drv.NotSupportedError as e:
            assert e.name == "CUDA_ERROR_UNSUPPORTED_LIMIT" and e.call == "cuCtxGetLimit", vars(e)
        else:
            raise AssertionError("unsupported limit read")
        drv.Context.set_cache_config(drv.func_cache.PREFER_L1)
        assert drv.Context.get_cache_config() is drv.func_cache.PREFER_L1
    """)


def test_primary_context_is_reused_after_release(fake_lib):
    # The fake keeps the primary context's handle across a reset, as the
    # driver does; a retained-again context needs a fresh, valid wrapper.
    check(fake_lib, """
        dev = drv.Device(0)
        c1 = dev.retain_primary_context()
        h = c1.handle
        c1.detach()
        assert fk["primary_refcount"] == 0
        c2 = dev.retain_primary_context()
        assert c2 is not c1 and c2.handle == h and fk["primary_refcount"] == 1
        c2.push()
        a = drv.mem_alloc(8)
        assert a.context is c2 and drv.Context.get_current() is c2
        del a
        assert fk["live_allocations"] == 0 and fk["errors"] == 0, fk.last_error()
        drv.Context.pop()
        # the wrapper of three retains dies: all three are released
        assert dev.retain_primary_context() is c2 and dev.retain_primary_context() is c2
        assert fk["primary_refcount"] == 3
        del c2
        import gc; gc.collect()
        assert fk["primary_refcount"] == 0 and fk["errors"] == 0, fk.last_error()
    """, autoinit=False)


def test_contexts_made_current_by_someone_else_are_adopted(fake_lib):
    # Another library (CuPy, the runtime) retains and pushes the primary
    # context through the same libcuda: gpuarr wraps it, holding its own
    # reference, and gives that reference back on detach. A created context
    # it did not make is wrapped without ownership and never destroyed.
    check(fake_lib, """
        import ctypes
        drv.init()
        h = ctypes.c_void_p()
        assert fk.lib.cuDevicePrimaryCtxRetain(ctypes.byref(h), 0) == 0
        assert fk.lib.cuCtxPushCurrent_v2(h) == 0
        ctx = drv.Context.get_current()
        assert ctx.is_primary and ctx.handle == h.value
        assert fk["primary_refcount"] == 2                 # theirs and ours
        assert drv.Context.get_current() is ctx
        a = drv.mem_alloc(8)
        assert a.context is ctx
        del a
        ctx.detach()
        c = fk.counters()
        assert c["primary_refcount"] == 1 and c["primary_active"] == 1, c

        other = ctypes.c_void_p()
        assert fk.lib.cuCtxCreate_v2(ctypes.byref(other), 0, 0) == 0
        theirs = drv.Context.get_current()
        assert theirs.handle == other.value and not theirs.is_primary
        assert fk["primary_refcount"] == 1                 # no retain for a non-primary
        seen = []
        def worker():
            theirs.push()
            seen.append(drv.Context.get_current() is theirs)
            drv.Context.pop()
            seen.append(drv.Context.get_current())
        t = threading.Thread(target=worker)
        t.start(); t.join()
        assert seen == [True, None], seen
        theirs.detach()
        c = fk.counters()
        assert c["contexts_destroyed"] == 0 and c["current_ctx"] == other.value, c
        assert c["errors"] == 0, fk.last_error()
    """, autoinit=False)


# ---------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------

def test_module_load_errors_carry_the_jit_log(fake_lib, tmp_path):
    path = tmp_path / "k.fake"
    path.write_bytes(b"FAKE\nkernel from_file 4\n")
    check(fake_lib, """
        seen = []
        def handler(ok, info, err):
            seen.append((ok, info, err))
        for img, words in [(b"NOTFAKE kernel", "fake-jit: not a FAKE image"),
                           (image("kernel ok 4", "bogus directive"), "fake-jit: line 3: syntax error near 'bogus'")]:
            try:
                drv.module_from_buffer(img, message_handler=handler)
            except drv.LogicError as e:
                assert e.name == "CUDA_ERROR_INVALID_IMAGE" and e.call == "cuModuleLoadDataEx", vars(e)
                assert "JIT log:" in str(e) and words in str(e), str(e)
                assert e.description == "device kernel image is invalid"
            else:
                raise AssertionError("bad image loaded")
            assert seen[-1][0] is False and words in seen[-1][2], seen
        assert fk["live_modules"] == 0
        m = drv.module_from_buffer(image("kernel a 4", "kernel b -"), message_handler=handler)
        assert seen[-1] == (True, "fake-jit: loaded 2 kernels and 0 globals", ""), seen[-1]
        m2 = drv.module_from_buffer(image("kernel s 4").decode())     # str is accepted too
        assert fk["live_modules"] == 2
        try:
            m.get_function("nope")
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_NOT_FOUND" and "'nope'" in str(e), vars(e)
        else:
            raise AssertionError("found a kernel that is not there")
        f = m.get_function("b")
        assert f.param_info == [] and f.function_name == "b"
        f(block=(1,))
        assert fk["launches"] == 1
        mf = drv.module_from_file(%r)
        assert mf.get_function("from_file").param_info == [(0, 4)]
        del m, m2, mf, f
        gc.collect()
        assert fk["live_modules"] == 0
    """ % str(path))


def test_function_keeps_its_module_alive_and_attributes(fake_lib):
    check(fake_lib, """
        f = drv.module_from_buffer(image("kernel k 4")).get_function("k")
        gc.collect()
        assert fk["live_modules"] == 1              # held by the Function
        assert f.num_regs == 32 and f.max_threads_per_block == 1024
        assert f.shared_size_bytes == 0 and f.local_size_bytes == 0 and f.const_size_bytes == 0
        f.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000)
        assert f.get_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES) == 100000
        f(np.int32(1), block=(1,), shared=100000)
        assert fk.last_launch()["shared"] == 100000
        f.set_cache_config(drv.func_cache.PREFER_SHARED)
        del f
        gc.collect()
        assert fk["live_modules"] == 0
    """)


def test_get_global(fake_lib):
    check(fake_lib, """
        m = drv.module_from_buffer(image("global counter 4", "global table 256"))
        ptr, size = m.get_global("table")
        assert size == 256 and ptr != 0
        data = np.arange(64, dtype=np.float32)
        drv.memcpy_htod(ptr, data)
        assert (drv.from_device(ptr, (64,), np.float32) == data).all()
        assert m.get_global("counter")[1] == 4
        try:
            m.get_global("missing")
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_NOT_FOUND" and e.call == "cuModuleGetGlobal_v2", vars(e)
            assert "'missing'" in str(e)
        else:
            raise AssertionError("found a missing global")
        try:
            drv.memcpy_htod(ptr + 250, np.zeros(16, np.uint8))     # past the global's end
        except drv.LogicError as e:
            assert e.call == "cuMemcpyHtoD_v2" and e.name == "CUDA_ERROR_INVALID_VALUE", vars(e)
        else:
            raise AssertionError("copy past the end accepted")
        assert fk["live_globals"] == 2
        del m
        assert fk["live_globals"] == 0
    """)


# ---------------------------------------------------------------------------
# Copies and fills
# ---------------------------------------------------------------------------

def test_memcpy_and_memset_size_checks(fake_lib):
    check(fake_lib, """
        a = drv.mem_alloc(16)
        b = drv.mem_alloc(32)
        errors = fk["errors"]
        big = np.zeros(32, np.uint8)
        for call in (lambda: drv.memcpy_htod(a, big),
                     lambda: drv.memcpy_dtoh(big, a),
                     lambda: drv.memcpy_dtod(a, b, 32),
                     lambda: drv.memcpy_dtod(b, a, 17),
                     lambda: drv.memcpy_htod_async(a, big),
                     lambda: drv.memcpy_dtoh_async(big, a),
                     lambda: drv.memcpy_dtod_async(a, b, 20),
                     lambda: drv.memset_d8(a, 1, 17),
                     lambda: drv.memset_d16(a, 1, 9),
                     lambda: drv.memset_d32(a, 1, 5),
                     lambda: drv.memset_d32_async(a, 1, 5)):
            try:
                call()
            except ValueError as e:
                assert "do not fit" in str(e), e
            else:
                raise AssertionError("size error not caught")
        for call in (lambda: drv.memcpy_htod(a, np.zeros((4, 4), np.uint8)[:, ::2]),
                     lambda: drv.memcpy_dtoh(np.zeros(4, np.uint8)[::2], a)):
            try:
                call()
            except ValueError:
                pass
            else:
                raise AssertionError("non-contiguous host buffer accepted")
        ro = np.zeros(4, np.uint8)
        ro.flags.writeable = False
        try:
            drv.memcpy_dtoh(ro, a)
        except ValueError:
            pass
        else:
            raise AssertionError("copied into a read-only array")
        assert fk["errors"] == errors, fk.last_error()     # none reached the driver
        try:
            drv.memcpy_htod(int(a) + 8, big[:16])          # ints are not checked by gpuarr...
        except drv.LogicError as e:
            assert e.call == "cuMemcpyHtoD_v2", vars(e)    # ...but by the driver
        else:
            raise AssertionError("copy past the end accepted")

        src = np.arange(4, dtype=np.float32)
        drv.memcpy_htod(a, src)
        drv.memcpy_dtod(b, a, 16)
        out = np.zeros(8, np.float32)
        drv.memset_d32(int(b) + 16, 0x3F800000, 4)
        drv.memcpy_dtoh(out, b)
        assert (out == [0, 1, 2, 3, 1, 1, 1, 1]).all(), out
        drv.memset_d16(a, 0xBEEF, 8)
        assert (drv.from_device(a, (8,), np.uint16) == 0xBEEF).all()
        s = drv.Stream()
        drv.memset_d8_async(a, 7, 16, s)
        h = drv.pagelocked_empty(16, np.uint8)
        drv.memcpy_dtoh_async(h, a, s)
        s.synchronize()
        assert (h == 7).all()
        drv.memset_d16_async(b, 1, 16)
        drv.memcpy_dtod_async(a, b, 16, s)
        assert (drv.from_device(a, (8,), np.uint16) == 1).all()
        assert (drv.from_device_like(drv.to_device(src), src) == src).all()
    """)


# ---------------------------------------------------------------------------
# Host memory
# ---------------------------------------------------------------------------

def test_pagelocked_arrays_and_their_release(fake_lib):
    check(fake_lib, """
        p = drv.pagelocked_empty((4, 5), np.float32)
        assert p.shape == (4, 5) and p.dtype == np.float32 and p.flags.c_contiguous
        assert fk["live_host_allocs"] == 1
        p[:] = 2
        view = p[1:]
        del p
        gc.collect()
        assert fk["live_host_allocs"] == 1                 # the view keeps it
        assert (view == 2).all()
        del view
        gc.collect()
        assert fk["live_host_allocs"] == 0

        z = drv.pagelocked_zeros((3, 2), np.complex64, order="F")
        assert (z == 0).all() and z.flags.f_contiguous and not z.flags.c_contiguous
        like = drv.pagelocked_empty_like(np.zeros((2, 3), order="F"))
        assert like.shape == (2, 3) and like.flags.f_contiguous
        zl = drv.pagelocked_zeros_like(np.ones(5, np.int16))
        assert zl.dtype == np.int16 and (zl == 0).all()
        mapped = drv.pagelocked_empty(8, np.uint8, mem_flags=drv.host_alloc_flags.DEVICEMAP)
        assert mapped.base.get_device_pointer() == mapped.ctypes.data
        empty = drv.pagelocked_empty(0, np.float32)
        assert empty.size == 0
        assert fk["live_host_allocs"] == 5
        del z, like, zl, mapped, empty
        gc.collect()
        assert fk["live_host_allocs"] == 0
        try:
            drv.pagelocked_empty((2, -1), np.float32)
        except ValueError:
            pass
        else:
            raise AssertionError("negative shape accepted")
    """)


def test_register_host_memory_and_its_release(fake_lib):
    check(fake_lib, """
        arr = np.arange(12, dtype=np.float64).reshape(3, 4)
        r = drv.register_host_memory(arr)
        assert fk["live_host_registrations"] == 1
        assert np.shares_memory(r, arr) and r.shape == arr.shape and r.dtype == arr.dtype
        r[0, 0] = 42
        assert arr[0, 0] == 42
        try:
            drv.register_host_memory(arr)
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", vars(e)
        else:
            raise AssertionError("registered twice")
        d = drv.mem_alloc(arr.nbytes)
        s = drv.Stream()
        drv.memcpy_htod_async(d, r, s)
        assert (drv.from_device(d, (3, 4), np.float64) == arr).all()
        del arr                                             # r keeps the memory alive
        gc.collect()
        assert fk["live_host_registrations"] == 1 and r[0, 0] == 42
        del r
        gc.collect()
        assert fk["live_host_registrations"] == 0
        f = np.asfortranarray(np.ones((3, 2)))
        rf = drv.register_host_memory(f)
        assert rf.flags.f_contiguous and np.shares_memory(rf, f)
        for bad in (np.zeros(0), np.zeros((4, 4))[:, ::2]):
            try:
                drv.register_host_memory(bad)
            except ValueError:
                pass
            else:
                raise AssertionError("registered %r" % bad)
    """)


# ---------------------------------------------------------------------------
# Streams, events, devices
# ---------------------------------------------------------------------------

def test_streams_events_and_timing(fake_lib):
    check(fake_lib, """
        s = drv.Stream()
        e1, e2 = drv.Event(), drv.Event()
        assert fk["live_streams"] == 1 and fk["live_events"] == 2
        assert s.is_done() and e1.query()
        fk.set_not_ready(True)
        assert not s.is_done() and not e1.query()
        fk.set_not_ready(False)
        try:
            e2.time_since(e1)                     # neither recorded
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_INVALID_HANDLE" and e.call == "cuEventElapsedTime", vars(e)
        else:
            raise AssertionError("timed unrecorded events")
        assert e1.record(s) is e1
        e2.record(s).synchronize()
        assert e2.time_since(e1) == 1.5 and e1.time_till(e2) == 1.5
        s.wait_for_event(e1)
        s.synchronize()
        m = drv.module_from_buffer(image("kernel k 4"))
        t = m.get_function("k")(np.int32(3), block=(1,), stream=s, time_kernel=True)
        assert t == 0.0015 and fk.last_launch()["stream"] == s.handle, t

        frees = fk["mem_free_calls"]
        a = drv.mem_alloc_async(128, s)
        assert fk["live_allocations"] == 1
        del s                                     # the allocation keeps its stream
        gc.collect()
        assert fk["live_streams"] == 1
        del a
        gc.collect()
        c = fk.counters()
        assert c["live_allocations"] == 0 and c["mem_free_calls"] == frees + 1, c
        assert c["live_streams"] == 0, c
        del e1, e2
        assert fk["live_events"] == 0 and fk["errors"] == 1, fk.last_error()
    """)


def test_device_attributes(fake_lib):
    check(fake_lib, """
        import pickle
        d = drv.Device(0)
        A = drv.device_attribute
        assert d.name() == "Fake GPU" and d.compute_capability() == (9, 0)
        assert d.get_attribute(A.MULTIPROCESSOR_COUNT) == 132
        assert d.get_attribute(A.MAX_THREADS_PER_BLOCK) == 1024
        assert d.get_attribute(16) == 132
        assert d.total_memory() == 80 << 30 and d.pci_bus_id() == "0000:1B:00.0"
        attrs = d.get_attributes()
        assert attrs[A.MULTIPROCESSOR_COUNT] == 132 and attrs[A.COMPUTE_CAPABILITY_MAJOR] == 9
        assert attrs[A.MAX_BLOCK_DIM_Z] == 64 and attrs[A.WARP_SIZE] == 32
        assert A.MAXIMUM_TEXTURE1D_WIDTH not in attrs          # the fake does not report it
        # 29, plus TEXTURE_ALIGNMENT and TEXTURE_PITCH_ALIGNMENT (fake_array.c),
        # MANAGED_MEMORY, COOPERATIVE_LAUNCH and CLUSTER_LAUNCH
        assert len(attrs) == 34, sorted(a.name for a in attrs)
        try:
            d.get_attribute(A.MAXIMUM_TEXTURE1D_WIDTH)
        except drv.LogicError as e:
            assert e.call == "cuDeviceGetAttribute", vars(e)
        else:
            raise AssertionError("unknown attribute read")
        assert d == drv.Device(0) and hash(d) == hash(drv.Device(0))
        assert pickle.loads(pickle.dumps(d)) == d
        a = drv.mem_alloc(1000)
        free, total = drv.mem_get_info()
        assert total == 80 << 30 and free == total - 1000
    """)


# ---------------------------------------------------------------------------
# Regression tests for driver defects the fake found (fixed since)
# ---------------------------------------------------------------------------

def test_context_is_a_context_manager(fake_lib):
    check(fake_lib, """
        ctx2 = drv.Device(0).make_context()
        assert drv.Context.pop() is ctx2 and drv.Context.get_current() is ctx
        with ctx2 as c:
            assert c is ctx2 and drv.Context.get_current() is ctx2
            assert fk["stack_depth"] == 2
        assert drv.Context.get_current() is ctx and fk["stack_depth"] == 1
        try:
            with ctx2:
                raise KeyError("inside")
        except KeyError:
            pass
        assert drv.Context.get_current() is ctx            # popped all the same
        seen = []
        def work():
            seen.append(drv.Context.get_current())
            with ctx:                                     # a thread with none
                seen.append(drv.Context.get_current())
                a = drv.mem_alloc(8); del a
            seen.append(drv.Context.get_current())
        t = threading.Thread(target=work)
        t.start(); t.join()
        assert seen == [None, ctx, None], seen
        ctx2.detach()
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_one_line_retain_and_push_keeps_the_context(fake_lib):
    """A pushed context stays alive while on the stack, even unreferenced."""
    check(fake_lib, """
        drv.Device(0).retain_primary_context().push()
        gc.collect()
        c = fk.counters()
        assert c["primary_refcount"] == 1 and c["primary_active"] == 1, c
        a = drv.mem_alloc(16)
    """, autoinit=False)


def test_failed_launch_with_int_block_raises_logic_error(fake_lib):
    """A bare int block that the driver refuses gives its LogicError, not a formatting error."""
    check(fake_lib, """
        f = drv.module_from_buffer(image("kernel k 4")).get_function("k")
        try:
            f(np.int32(1), block=2048)
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_INVALID_VALUE" and e.call == "cuLaunchKernel"
        else:
            raise AssertionError("launched")
    """)


def test_prepared_call_rejects_floats_for_integer_parameters(fake_lib):
    """Integer parameters take integers only (no silent truncation of 1.5)."""
    check(fake_lib, """
        f = drv.module_from_buffer(image("kernel k 4")).get_function("k").prepare("i")
        try:
            f.prepared_call((1,), (1,), 1.5)
        except TypeError:
            pass
        else:
            raise AssertionError("1.5 was packed as %r" % fk.last_launch()["params"])
    """)


def test_prepare_twice_without_parameter_info(fake_lib):
    """Without driver parameter info, prepare() may be called again with other types."""
    check(fake_lib, """
        f = drv.module_from_buffer(image("kernel k 8,4,4 noinfo")).get_function("k")
        assert f.prepare("Pi") is f
        # (not launched: the kernel would read a third parameter)
        try:
            f.prepared_call((1,), (1,), 0x2000, 6, -7)
        except TypeError:
            pass
        else:
            raise AssertionError("3 arguments packed for 2 prepared types")
        assert f.prepare("Pii") is f
        f.prepared_call((1,), (1,), 0x2000, 6, -7)
        assert fk.last_launch()["params"] == expected_params(
            [np.uint64(0x2000), np.int32(6), np.int32(-7)])
        assert fk["launches"] == 1
    """)


def test_host_buffer_errors_name_the_call(fake_lib):
    """numpy's own buffer errors are reported naming the copy call."""
    check(fake_lib, """
        a = drv.mem_alloc(16)
        ro = np.zeros(4, np.uint8)
        ro.flags.writeable = False
        for call, name in ((lambda: drv.memcpy_dtoh(ro, a), "memcpy_dtoh"),
                           (lambda: drv.memcpy_htod(a, np.zeros(8, np.uint8)[::2]), "memcpy_htod")):
            try:
                call()
            except ValueError as e:
                assert name in str(e), str(e)
            else:
                raise AssertionError("%s did not raise" % name)
    """)


# ---------------------------------------------------------------------------
# Parameter counts, with no failing driver call
# ---------------------------------------------------------------------------

# Kernels of 0, 1, 5 and 40 parameters of mixed sizes, in the fake's
# layout; the scenario takes its image from IMAGE.
PARAM_SIZES = {"k0": [], "k1": [8], "k5": [8, 1, 2, 8, 24],
               "k40": [[1, 2, 4, 8, 16, 24, 3, 12][k % 8] for k in range(40)]}

COUNTED = """
    sizes = %r
    m = drv.module_from_buffer(IMAGE)
    before = fk.counters()
    for name, want in sizes.items():
        f = m.get_function(name)
        assert [s for _, s in f.param_info] == want, (name, f.param_info)
    c = fk.counters()
    # One cuFuncGetParamInfo a parameter, none past the last.
    assert c["param_info_calls"] - before["param_info_calls"] == sum(map(len, sizes.values()))
    assert c["param_info_errors"] == 0 and c["errors"] == 0, fk.last_error()

    # The checks at launch and in prepare() still work.
    f = m.get_function("k5")
    for args, words in [((np.uint64(0),), "kernel 'k5' takes 5 arguments (1 given)"),
                        ((np.uint64(0), np.int8(1), np.int32(2), np.float64(3), np.uint64(4)),
                         "argument 2 (0-based) of kernel 'k5': parameter is 2 bytes")]:
        try:
            f(*args, block=(1,))
        except TypeError as e:
            assert words in str(e), str(e)
        else:
            raise AssertionError("launched with %%r" %% (args,))
    blob = np.frombuffer(bytes(range(24)), np.uint8).view("V24")[0]
    values = [np.uint64(5), np.int8(-1), np.int16(7), np.float64(0.5), blob]
    f(*values, block=(1,))
    assert fk.last_launch()["params"] == expected_params(values)
    f1 = m.get_function("k1")
    assert f1.prepare("P") is f1
    try:
        f1.prepare("Pi")
    except TypeError as e:
        assert "takes 1 arguments, prepare() got 2" in str(e), str(e)
    else:
        raise AssertionError("prepare() accepted two types for one parameter")
    m.get_function("k0")(block=(1,))
    assert fk["launches"] == 2
    assert fk["param_info_errors"] == 0 and fk["errors"] == 0, fk.last_error()
""" % PARAM_SIZES


def _fake_image():
    return "image(%s)" % ", ".join(
        repr("kernel %s %s" % (name, ",".join(map(str, sizes)) or "-"))
        for name, sizes in PARAM_SIZES.items())


def test_param_count_comes_from_cu_func_get_param_count(fake_lib):
    check(fake_lib, "    IMAGE = %s\n" % _fake_image() + COUNTED + """
    assert fk["param_count_calls"] == 7
    # A kernel the driver has no information on: unknown, and asked once.
    g = drv.module_from_buffer(image("kernel n 8,4 noinfo")).get_function("n")
    assert g.param_info is None
    c = fk.counters()
    assert c["param_count_calls"] == 8 and c["param_info_errors"] == 0, c
""")


def test_param_count_comes_from_the_ptx_image_without_cu_func_get_param_count(
        fake_lib_no_count, tmp_path):
    path = tmp_path / "k.ptx"
    check(fake_lib_no_count, "    IMAGE = ptx(**%r)\n" % PARAM_SIZES + COUNTED + """
    assert not hasattr(fk.lib, "cuFuncGetParamCount")
    assert fk["param_count_calls"] == 0
    # module_from_file reads the count from the file's image too.
    with open(%r, "wb") as out:
        out.write(IMAGE)
    f = drv.module_from_file(out.name).get_function("k40")
    assert [s for _, s in f.param_info] == sizes["k40"]
    assert fk["param_info_errors"] == 0 and fk["errors"] == 0, fk.last_error()
""" % str(path))


def test_param_count_unknown_without_cu_func_get_param_count_or_a_readable_image(
        fake_lib_no_count):
    # A FAKE image is neither cubin nor PTX: nothing tells the count, so
    # cuFuncGetParamInfo is never called and launches are not checked.
    check(fake_lib_no_count, """
        m = drv.module_from_buffer(image("kernel k 8,4", "kernel z -"))
        f = m.get_function("k")
        assert f.param_info is None and m.get_function("z").param_info is None
        values = [np.uint64(3), np.int32(-4)]
        f(*values, block=(1,))
        assert fk.last_launch()["params"] == expected_params(values)
        c = fk.counters()
        assert c["param_info_calls"] == 0 and c["param_count_calls"] == 0, c
        assert c["errors"] == 0, fk.last_error()
    """)


def test_prepare_without_param_info_lays_structs_at_their_alignment(fake_lib):
    # "noinfo": the driver cannot report offsets (CUDA < 12.4). A struct
    # given as a dtype sits at its C alignment (CUDA's for vector types),
    # not at a guess from its size; a "<n>s" struct whose offset its
    # possible alignments leave open makes param_info None. The launch
    # itself takes one pointer per parameter, so it is right either way.
    check(fake_lib, """
        from gpuarr.gpuarray import vec
        four_floats = np.dtype([(c, np.float32) for c in "abcd"])     # C align 4
        f8_u1 = np.dtype({"names": ["d", "c"], "formats": [np.float64, np.uint8],
                          "offsets": [0, 8], "itemsize": 16})            # C align 8
        packed = np.dtype({"names": ["c", "f"], "formats": [np.uint8, np.float32],
                           "offsets": [0, 1], "itemsize": 8})            # no C layout
        m = drv.module_from_buffer(image("kernel s 4,16,16,16,8 noinfo",
                                         "kernel t 4,16 noinfo", "kernel u 8,12 noinfo",
                                         "kernel v 4,12 noinfo", "kernel w 1,8 noinfo",
                                         "kernel x 1,5 noinfo"))
        s = m.get_function("s")
        assert s.param_info is None
        s.prepare(["i", four_floats, f8_u1, vec.float4, "P"])
        assert s.param_info == [(0, 4), (4, 16), (24, 16), (48, 16), (64, 8)], s.param_info
        rng = np.random.default_rng()
        vals = [np.int32(rng.integers(-2**31, 2**31)),
                np.frombuffer(rng.bytes(16), four_floats)[0],
                np.frombuffer(rng.bytes(16), f8_u1)[0],
                np.frombuffer(rng.bytes(16), vec.float4)[0], np.uint64(12345)]
        s.prepared_call((1,), (1,), *vals)
        want = expected_params([vals[0]] + [v.tobytes() for v in vals[1:4]] + [vals[4]])
        assert fk.last_launch()["params"] == want, (fk.last_launch()["params"], want)
        t = m.get_function("t").prepare("i16s")       # 16s: align 1..16, at 4 or 16
        assert t.param_info is None, t.param_info
        raw = rng.bytes(16)
        t.prepared_call((1,), (1,), np.int32(7), raw)
        assert fk.last_launch()["params"] == expected_params([np.int32(7), raw])
        u = m.get_function("u").prepare("P12s")       # 12s: align <= 4, at 8 for all
        assert u.param_info == [(0, 8), (8, 12)], u.param_info
        v = m.get_function("v").prepare("i12s")
        assert v.param_info == [(0, 4), (4, 12)], v.param_info
        w = m.get_function("w").prepare(["B", packed])
        assert w.param_info is None, w.param_info
        x = m.get_function("x").prepare(["B", "5s"])   # 5s: align 1, known
        assert x.param_info == [(0, 1), (1, 5)], x.param_info
    """)


def test_texture_and_surface_references_name_their_replacements(fake_lib):
    """CUDA 12 removed texture/surface references: PyCUDA's lookups raise
    NotSupportedError (a RuntimeError) naming texture/surface objects."""
    check(fake_lib, """
        m = drv.module_from_buffer(image("kernel k 8"))
        for get, what in ((m.get_texref, "cudaTextureObject_t"),
                          (m.get_surfref, "cudaSurfaceObject_t")):
            try:
                get("tex")
            except drv.NotSupportedError as exc:
                assert isinstance(exc, RuntimeError)
                assert "removed in CUDA 12" in str(exc) and what in str(exc), exc
                assert "'tex'" in str(exc)
            else:
                raise AssertionError("%s did not raise" % get)
    """)
