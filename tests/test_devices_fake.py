"""Several devices on the fake libcuda (FAKE_CUDA_DEVICES=2): ``with
Device(n):`` switching the current context, each array reporting the
device of its own memory, and ``to_device`` copying between devices with
``cuMemcpyPeer`` (the fake's memory is host memory, so the values are
real; it runs no kernels, so only contiguous copies are covered here)."""
import textwrap

from test_driver_fake import check
from test_percontext_fake import PRELUDE as FAKE_COMPILER

TWO = {"FAKE_CUDA_DEVICES": "2"}


def test_with_device_switches_and_restores_the_current_context(fake_lib):
    check(fake_lib, """
        import gpuarr, gpuarr.driver as drv
        assert drv.Device.count() == 2 and gpuarr.Device is drv.Device
        d0, d1 = drv.Device(0), drv.Device(1)
        before = drv.Context.get_current()
        assert before.get_device() == d0
        with d1 as d:
            assert d is d1
            cur = drv.Context.get_current()
            assert cur.get_device() == d1
            assert cur is d1.get_primary_context()
            with d0:
                assert drv.Context.get_device() == d0
            assert drv.Context.get_device() == d1
        assert drv.Context.get_current() == before
        # an exception in the block still pops
        try:
            with d1:
                raise KeyError("x")
        except KeyError:
            pass
        assert drv.Context.get_current() == before
        # one kept context per device, the same object each time
        assert d1.get_primary_context() is d1.get_primary_context()
        assert d1.get_primary_context() != d0.get_primary_context()
        assert d1.pci_bus_id() != d0.pci_bus_id()
        assert d0.can_access_peer(d1) and not d0.can_access_peer(d0)
    """, env=TWO)


def test_arrays_report_their_own_device(fake_lib):
    check(fake_lib, """
        import numpy as np, gpuarr, gpuarr.driver as drv
        x = gpuarr.to_gpu(np.arange(6.0))
        with gpuarr.Device(1):
            y = gpuarr.to_gpu(np.arange(4, dtype=np.int32))
            assert x.device == drv.Device(0)       # not the current one
            assert y.device == drv.Device(1)
        assert y.device == drv.Device(1)
        assert y.__dlpack_device__() == (2, 1)
        assert x.__dlpack_device__() == (2, 0)
        assert y[1:].device == drv.Device(1)       # views too
    """, env=TWO)


def test_to_device_copies_between_devices(fake_lib):
    check(fake_lib, """
        import ctypes
        import numpy as np, gpuarr, gpuarr.driver as drv
        def last_copy():
            # (call, (dst context, src context)) of the fake's last copy
            buf = ctypes.create_string_buffer(64)
            ctxs = (ctypes.c_void_p * 2)()
            fk.lib.fake_array_last_copy(buf, 64, ctxs)
            return buf.value.decode(), (ctxs[0] or 0, ctxs[1] or 0)
        h = np.random.default_rng(4).standard_normal((5, 7)).astype(np.float32)
        x = gpuarr.to_gpu(h)
        assert x.to_device(0) is x and x.to_device(drv.Device(0)) is x
        z = x.to_device(1)
        d1ctx = drv.Device(1).get_primary_context()
        assert last_copy() == ("cuMemcpyPeer", (d1ctx.handle, ctx.handle))
        assert z.device == drv.Device(1) and z.shape == h.shape
        assert z.dtype == h.dtype and (z.get() == h).all()
        # the copy lives in device 1's kept primary context
        ctx = drv.pointer_get_attribute(drv.pointer_attribute.CONTEXT, z.ptr)
        assert ctx is drv.Device(1).get_primary_context()
        back = z.to_device(0)
        assert back.device == drv.Device(0) and (back.get() == h).all()
        # a contiguous view moves its own elements only
        v = x[2:4].to_device(1)
        assert (v.get() == h[2:4]).all()
        e = gpuarr.empty((0, 3), np.float32).to_device(1)
        assert e.shape == (0, 3)
        for bad in ("1", 1.0, None):
            try:
                x.to_device(bad)
            except TypeError:
                pass
            else:
                raise AssertionError(bad)
        try:
            x.to_device(2)
        except drv.Error as e:
            assert "INVALID_DEVICE" in str(e)
        else:
            raise AssertionError("device 2 exists?")
    """, env=TWO)


def test_operations_run_on_their_arrays_device(fake_lib):
    # the fake runs no kernels, so what is checked is where each
    # operation allocates and launches: its result on the arrays' device
    # and no launch given pointers into another device's memory
    check(fake_lib, FAKE_COMPILER + textwrap.dedent("""
        import numpy as np, gpuarr, gpuarr.driver as drv
        from gpuarr.elementwise import ElementwiseKernel
        from gpuarr.reduction import ReductionKernel
        d0, d1 = drv.Device(0), drv.Device(1)
        h = np.arange(12, dtype=np.float32).reshape(3, 4)
        with d1:
            y = gpuarr.to_gpu(h)
        assert drv.Context.get_device() == d0
        launches = fk["launches"]
        scale = ElementwiseKernel("float *z, const float *x", "z[i] = 2 * x[i]")
        total = ReductionKernel(np.float32, "0", "a + b", "x[i]",
                                "const float *x")
        z = gpuarr.empty_like(y)
        scale(z, y)
        results = [y + y, y * 2, -y, gpuarr.sin(y), gpuarr.add(y, 1), y.sum(),
                   y.sum(axis=0), y.max(), y.copy(), y.astype(np.float64),
                   y.T.copy(), gpuarr.cumsum(y), gpuarr.zeros_like(y),
                   gpuarr.concatenate([y, y]),
                   gpuarr.where(y > 3, y, 0), total(y), z]
        for k, r in enumerate(results):
            assert r.device == d1, k
        assert fk["launches"] > launches
        assert fk["foreign_device_launches"] == 0
        assert drv.Context.get_device() == d0          # restored after each
        y += 1                                          # in place, on device 1
        assert fk["foreign_device_launches"] == 0
        # a copy between devices goes through the memory, either way round
        x = gpuarr.to_gpu(h + 100)
        yc = y.copy()
        x[...] = yc
        assert x.device == d0 and (x.get() == yc.get()).all()
        y2 = gpuarr.empty_like(y)
        y2[...] = x
        assert y2.device == d1 and (y2.get() == x.get()).all()
        assert fk["foreign_device_launches"] == 0
        # any other operation over two devices is refused before a launch
        mask = x > 0
        launches = fk["launches"]
        for f in (lambda: x + y, lambda: gpuarr.add(x, y, out=x),
                  lambda: gpuarr.dot(x.ravel(), y.ravel()),
                  lambda: gpuarr.concatenate([x, y]), lambda: scale(z, x),
                  lambda: gpuarr.where(mask, y, x)):
            try:
                f()
            except ValueError as e:
                assert "different devices (device 0 and device 1)" in str(e) \\
                    or "different devices (device 1 and device 0)" in str(e), e
            else:
                raise AssertionError("two devices in one operation")
        assert fk["launches"] == launches, (fk["launches"], launches)
        # the check can fail: the unrouted function launches on device 0
        # with device 1's pointers
        gpuarr.reductions.sum.__wrapped__(y, axis=0)
        assert fk["foreign_device_launches"] > 0, "control"
    """), env=TWO)


def test_threads_driving_different_devices(fake_lib):
    # one thread per device, each making and using its arrays in its own
    # device's context at once: every result stays on its thread's device,
    # each device keeps its own pool, and no launch crosses devices
    check(fake_lib, FAKE_COMPILER + textwrap.dedent("""
        import threading
        import numpy as np, gpuarr, gpuarr.driver as drv
        from gpuarr.tools import default_pool
        seen, errors, pools = {}, [], {}
        start = threading.Barrier(2)
        def work(n):
            try:
                with drv.Device(n):
                    start.wait()
                    got = []
                    for _ in range(50):
                        a = gpuarr.to_gpu(np.arange(64, dtype=np.float32))
                        got += [(a * 2).device.handle, a.sum().device.handle,
                                a.copy().device.handle]
                    seen[n] = set(got)
                    pools[n] = default_pool()
            except Exception as e:      # reported by the main thread
                errors.append(repr(e))
        ts = [threading.Thread(target=work, args=(n,)) for n in (0, 1)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert not errors, errors
        assert seen == {0: {0}, 1: {1}}, seen
        assert pools[0] is not pools[1]
        assert fk["foreign_device_launches"] == 0
    """), env=TWO)


def test_imported_memory_of_another_device_is_routed(fake_lib):
    # memory of device 1 made by "another library" (raw driver calls, no
    # gpuarr Context for device 1): importing it through the CUDA Array
    # Interface tells gpuarr of device 1, so operations on it run there
    check(fake_lib, FAKE_COMPILER + textwrap.dedent("""
        import ctypes, os
        import numpy as np, gpuarr, gpuarr.driver as drv
        lib = ctypes.CDLL(os.environ["GPUARR_LIBCUDA"])
        c = ctypes.c_void_p()
        assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(c), 1) == 0
        assert lib.cuCtxPushCurrent_v2(c) == 0
        p = ctypes.c_ulonglong()
        assert lib.cuMemAlloc_v2(ctypes.byref(p), 64 * 4) == 0
        assert lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p())) == 0
        class Foreign:
            __cuda_array_interface__ = {"shape": (64,), "typestr": "<f4",
                                        "data": (p.value, False),
                                        "version": 3}
        assert 1 not in drv.context_devices
        a = gpuarr.asarray(Foreign())
        assert 1 in drv.context_devices and a.device == drv.Device(1)
        r = a * 2
        assert r.device == drv.Device(1)
        assert fk["foreign_device_launches"] == 0
    """), env=TWO)
