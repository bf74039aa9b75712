"""PyCUDA's tools and the new Context calls against the fake libcuda
(tests/fake_cuda): Context.attach/detach holds, get_api_version,
get_stream_priority_range, mem_alloc_like, make_default_context and the
pytest helpers, DeviceData and characterize on the fake's device.

Each scenario runs in a fresh interpreter (gpuarr loads libcuda once per
process), as in tests/test_driver_fake.py, whose runner this uses.
"""
import ctypes
import os
import shutil
import subprocess
import textwrap

import pytest

from test_driver_fake import FAKE_DIR, check


@pytest.fixture(scope="session")
def fake_lib_no_attach(fake_lib, tmp_path_factory):
    """The fake built with -DFAKE_NO_ATTACH: a driver without cuCtxAttach
    and cuCtxDetach."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") \
        or shutil.which("clang")
    out = tmp_path_factory.mktemp("fake_cuda_no_attach") / "libcuda.so.1"
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-DFAKE_NO_ATTACH", "-o",
                        str(out), os.path.join(FAKE_DIR, "fake_libcuda.c"),
                        "-lpthread"], capture_output=True, text=True)
    assert r.returncode == 0, "building the fake libcuda failed:\n" + r.stderr
    return str(out)


ATTACHED = """
import ctypes
fk.lib.fake_attach_count.restype = ctypes.c_int
fk.lib.fake_attach_count.argtypes = [ctypes.c_void_p]
def attached(c):
    return fk.lib.fake_attach_count(c.handle)
"""


def test_the_no_attach_build_lacks_only_attach(fake_lib_no_attach, fake_lib):
    full = ctypes.CDLL(fake_lib)
    lean = ctypes.CDLL(fake_lib_no_attach)
    assert hasattr(full, "cuCtxAttach") and hasattr(full, "cuCtxDetach")
    assert not hasattr(lean, "cuCtxAttach") and not hasattr(lean, "cuCtxDetach")
    assert hasattr(lean, "cuCtxGetStreamPriorityRange")


def test_attach_takes_and_detach_gives_back_holds(fake_lib):
    check(fake_lib, ATTACHED + textwrap.dedent("""
        a = drv.Context.attach()
        assert a is ctx and attached(ctx) == 1
        b = drv.Context.attach(0)
        assert b is ctx and attached(ctx) == 2
        b.detach()                       # one hold back; still valid
        assert attached(ctx) == 1 and drv.Context.get_current() is ctx
        drv.mem_alloc(64).free()
        a.detach()
        assert attached(ctx) == 0
        assert drv.Context.get_current() is ctx   # autoinit's hold remains
        assert fk["primary_refcount"] == 1
        x = drv.mem_alloc(64)
        del x
        # flags must be 0 (the driver says so)
        try:
            drv.Context.attach(1)
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_INVALID_VALUE", e
        else:
            raise AssertionError("flags=1 accepted")
        assert attached(ctx) == 0
        # the last detach after attach releases the autoinit hold as before
        drv.Context.attach()
        ctx.detach()
        assert attached(ctx) == 0 and fk["primary_refcount"] == 1
        ctx.detach()
        assert fk["primary_refcount"] == 0
    """))


def test_attach_on_a_context_without_other_holds(fake_lib):
    check(fake_lib, ATTACHED + textwrap.dedent("""
        c = drv.Device(0).make_context()
        c2 = drv.Context.attach()
        assert c2 is c and attached(c) == 1
        c.detach()                       # the attach hold; still owned
        assert attached(c) == 0 and drv.Context.get_current() is c
        c.detach()                       # destroys it
        assert fk["contexts_destroyed"] == 1
        # a wrapper that dies with attach holds gives them back
        d = drv.Device(0).make_context()
        h = d.handle
        e = drv.Context.attach()
        attached_before = attached(e)
        assert drv.Context.pop() is d    # off this thread's stack
        del d, e
        gc.collect()                     # the wrapper dies: holds given back
        assert attached_before == 1
        assert fk.lib.fake_attach_count(h) == 0
        # a context someone else made current (gpuarr holds nothing on it):
        # attach + detach leave its object valid, and memory made in it
        # is freed in it without a warning
        raw = ctypes.c_void_p()
        assert fk.lib.cuCtxCreate_v2(ctypes.byref(raw), 0, 0) == 0
        theirs = drv.Context.get_current()
        assert theirs.handle == raw.value and not theirs.is_primary
        mine = drv.Context.attach()
        assert mine is theirs and attached(theirs) == 1
        buf = drv.mem_alloc(128)
        mine.detach()
        assert attached(theirs) == 0
        assert drv.Context.get_current() is theirs
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frees = fk["mem_free_calls"]
            del buf
            gc.collect()
            assert fk["mem_free_calls"] == frees + 1
    """), autoinit=False)


def test_attach_without_a_context_or_driver_support(fake_lib, fake_lib_no_attach):
    check(fake_lib, """
        drv.init()
        try:
            drv.Context.attach()
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("attach without a context")
    """, autoinit=False)
    check(fake_lib_no_attach, """
        try:
            drv.Context.attach()
        except drv.NotSupportedError as e:
            msg = str(e)
            assert "cuCtxAttach" in msg and "retain_primary_context" in msg, msg
            assert "get_current" in msg, msg
        else:
            raise AssertionError("attach without cuCtxAttach")
        ctx.detach()       # unaffected
    """)


def test_api_version_and_stream_priority_range(fake_lib):
    check(fake_lib, """
        assert drv.Context.get_api_version() == 13000
        assert ctx.get_api_version() == 13000
        assert drv.Context.get_stream_priority_range() == (0, -5)
        assert ctx.get_stream_priority_range() == (0, -5)
        other = drv.Device(0).make_context()
        assert other.get_api_version() == 13000
        drv.Context.pop()
        assert other.get_api_version() == 13000    # not current: by handle
        other.detach()
        try:
            other.get_api_version()
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("a detached context answered")
        drv.Context.pop()
        for call in (drv.Context.get_api_version,
                     drv.Context.get_stream_priority_range):
            try:
                call()
            except drv.InvalidContextError:
                pass
            else:
                raise AssertionError("%s without a context" % call)
    """)


def test_mem_alloc_like(fake_lib):
    check(fake_lib, """
        import gpuarr.gpuarray as ga
        for host in (np.zeros(10, np.float64), np.zeros((3, 7), np.int16),
                     np.zeros((), np.complex64), np.zeros(5, ga.vec.float3)):
            a = drv.mem_alloc_like(host)
            drv.memcpy_htod(a, np.arange(host.nbytes, dtype=np.uint8))
            back = np.empty(host.nbytes, np.uint8)
            drv.memcpy_dtoh(back, a)
            assert (back == np.arange(host.nbytes, dtype=np.uint8)).all()
            a.free()
        g = ga.zeros((4, 3), np.float32)
        b = drv.mem_alloc_like(g)
        drv.memcpy_dtod(b, g.ptr, g.nbytes)
        b.free()
    """)


def test_make_default_context_and_pytest_helpers(fake_lib):
    check(fake_lib, """
        import gpuarr.tools as tools
        made = fk["contexts_created"]
        c = tools.make_default_context()
        assert not c.is_primary and drv.Context.get_current() is c
        assert fk["contexts_created"] == made + 1
        drv.Context.pop()
        c.detach()
        seen = []
        def inner(x, y=2):
            seen.append((drv.Context.get_current(), x, y))
            return x + y
        wrapped = tools.mark_cuda_test(inner)
        assert wrapped.__name__ == "inner"
        destroyed = fk["contexts_destroyed"]
        assert wrapped(1, y=5) == 6
        assert seen[0][0] is not None and not seen[0][0].is_primary
        assert seen[0][1:] == (1, 5)
        assert fk["contexts_destroyed"] == destroyed + 1
        assert drv.Context.get_current() is ctx    # the previous one again
        gen = tools.init_cuda_context_fixture()
        fctx = next(gen)
        assert drv.Context.get_current() is fctx and fctx is not ctx
        try:
            next(gen)
        except StopIteration:
            pass
        assert drv.Context.get_current() is ctx
        assert fk["contexts_destroyed"] == destroyed + 2
        # a failing test still cleans up
        def bad():
            raise KeyError("boom")
        try:
            tools.mark_cuda_test(bad)()
        except KeyError:
            pass
        assert drv.Context.get_current() is ctx
        assert fk["contexts_destroyed"] == destroyed + 3
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert tools.get_default_device() == drv.Device(0)
        assert w and w[0].category is DeprecationWarning
        # another maker: the primary context (the autoinit one here)
        p = tools.make_default_context(lambda dev: dev.retain_primary_context())
        assert p.is_primary and p is ctx
    """)


def test_make_default_context_honours_cuda_device(fake_lib):
    # the fake has one device: CUDA_DEVICE=1 must be tried, and fail, alone
    check(fake_lib, """
        import gpuarr.tools as tools
        try:
            tools.make_default_context()
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_INVALID_DEVICE", e
        else:
            raise AssertionError("CUDA_DEVICE=1 was not used")
    """, autoinit=False, env={"CUDA_DEVICE": "1"})
    check(fake_lib, """
        import gpuarr.tools as tools
        tried = []
        def maker(dev):
            tried.append(dev.handle)
            raise drv.LogicError("no", code=1, name="CUDA_ERROR_INVALID_VALUE")
        try:
            tools.make_default_context(maker)
        except RuntimeError as e:
            assert "every one of the 1 devices" in str(e), e
        else:
            raise AssertionError("no error")
        assert tried == [0]
    """, autoinit=False)


def test_device_data_and_characterize_on_the_fake_device(fake_lib):
    check(fake_lib, """
        import gpuarr.tools as tools
        from gpuarr import characterize
        dd = tools.DeviceData()
        assert (dd.max_threads, dd.warp_size, dd.warps_per_mp,
                dd.thread_blocks_per_mp, dd.registers, dd.shared_memory) == \\
            (1024, 32, 64, 32, 65536, 49152), dd
        assert tools.DeviceData(drv.Device(0)).__dict__ == dd.__dict__
        r = tools.OccupancyRecord(dd, 256, registers=32)
        assert (r.tb_per_mp, r.limited_by, r.occupancy) == (8, "regs", 1.0)
        assert characterize.has_stack() and characterize.has_double_support()
        drv.Context.pop()
        for call in (tools.DeviceData, characterize.has_stack):
            try:
                call()
            except drv.InvalidContextError:
                pass
            else:
                raise AssertionError(call)
        ctx.push()
    """)


def test_arrays_of_vector_types_and_their_kernels(fake_lib):
    check(fake_lib, """
        import gpuarr.gpuarray as ga
        from gpuarr.elementwise import ElementwiseKernel
        vec = ga.vec
        rng = np.random.default_rng(0)
        host = np.empty(9, vec.float3)
        for f in "xyz":
            host[f] = rng.standard_normal(9).astype(np.float32)
        g = ga.to_gpu(host)
        assert g.dtype == vec.float3 and g.nbytes == 108 and g.shape == (9,)
        assert g.get().tobytes() == host.tobytes()
        z = ga.zeros(4, vec.float4)
        assert not np.frombuffer(z.get().tobytes(), np.uint8).any()
        e = ga.empty((2, 3), vec.double2)
        assert e.strides == (48, 16)
        # arithmetic on structs is refused as numpy refuses it
        try:
            g + g
        except TypeError:
            pass
        else:
            raise AssertionError("float3 + float3 accepted")
        # a launch of a user kernel over them (recorded by the fake)
        k = ElementwiseKernel("float4 *out, float3 *a", "out[i].x = a[i].x",
                              "fk_vec")
        out = ga.zeros(9, vec.float4)
        launches = fk["launches"]
        try:
            k(out, g)
        except drv.Error:
            pass          # the fake cannot load NVRTC's cubin
        except Exception as exc:
            raise AssertionError("refused before the launch: %r" % (exc,))
        # misaligned: refused before anything is compiled or launched
        base = ga.zeros(33, np.float32)
        view = base[1:].view(vec.float4)
        assert view.ptr % 16 == 4 and view.shape == (8,)
        try:
            k(view, ga.zeros(8, vec.float3))
        except ValueError as exc:
            assert "multiple of 16" in str(exc), exc
        else:
            raise AssertionError("misaligned float4 accepted")
        assert fk["launches"] == launches
    """)


def test_structs_by_value_are_packed_at_their_offsets(fake_lib):
    check(fake_lib, """
        import gpuarr.gpuarray as ga
        vec = ga.vec
        mod = drv.module_from_buffer(image("kernel k 8,12,16,4"))
        f = mod.get_function("k")
        buf = drv.mem_alloc(64)
        s = vec.make_float3(1.5, -2, 3)[()]
        d = vec.make_double2(0.25, 8)
        f(buf, s, d[()], np.int32(7), block=(1, 1, 1))
        want = expected_params([np.uint64(int(buf)), s.tobytes(), d.tobytes(),
                                np.int32(7)])
        assert fk.last_launch()["params"] == want
        f.prepare("P12s16si")
        for sv, dv in ((s, d), (s.tobytes(), d.tobytes()), (np.asarray(s), d)):
            f.prepared_call((1, 1), (1, 1, 1), buf, sv, dv, 7)
            assert fk.last_launch()["params"] == want
        f.prepare([np.intp, vec.float3, vec.double2, np.int32])
        f.prepared_call((1, 1), (1, 1, 1), buf, s, d, 7)
        assert fk.last_launch()["params"] == want
        launches = fk["launches"]
        for bad in (b"123", 5, vec.make_float4(1, 2, 3, 4)):
            try:
                f.prepared_call((1, 1), (1, 1, 1), buf, bad, d, 7)
            except TypeError as e:
                assert "struct" in str(e), e
            else:
                raise AssertionError("accepted %r" % (bad,))
        assert fk["launches"] == launches
        # without parameter information: laid out at power-of-two alignment
        nomod = drv.module_from_buffer(image("kernel n 8,12,4 noinfo"))
        g = nomod.get_function("n").prepare("P12si")
        assert g.param_info == [(0, 8), (8, 12), (20, 4)]
    """)


def test_failed_detach_keeps_the_attach_hold(fake_lib):
    """A cuCtxDetach that fails gives nothing back: gpuarr still counts the
    hold, so the next detach() retries it instead of releasing the context."""
    check(fake_lib, ATTACHED + textwrap.dedent("""
        a = drv.Context.attach()
        assert attached(ctx) == 1
        fk.lib.fake_fail_next_detach()
        try:
            a.detach()
        except drv.Error as e:
            assert "cuCtxDetach" in str(e), e
        else:
            raise AssertionError("the failing cuCtxDetach was not reported")
        assert attached(ctx) == 1
        assert fk["primary_refcount"] == 1
        a.detach()                       # the retry gives the hold back
        assert attached(ctx) == 0 and fk["primary_refcount"] == 1
        assert drv.Context.get_current() is ctx
        ctx.detach()                     # and only now the autoinit hold
        assert fk["primary_refcount"] == 0
    """))
