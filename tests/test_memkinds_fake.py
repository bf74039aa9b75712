"""Memory kinds, IPC, peer access, stream priorities, launch features and
lifetimes against the fake libcuda (tests/fake_cuda/fake_memkinds.c,
fake_ipc.c, fake_launchex.c): what gpuarr passes for managed memory,
prefetches and advice (the CUmemLocation), created pools (CUmemPoolProps),
pointer attributes, IPC handles, cuLaunchKernelEx's CUlaunchConfig
attributes and the occupancy calls; every bad-input error before any
driver call; and the fork rule.

Each scenario runs in a fresh interpreter (see test_driver_fake.py).
"""

import pytest

from test_driver_fake import check


def test_managed_memory_is_one_address_for_host_and_device(fake_lib):
    check(fake_lib, """
        a = drv.managed_empty((3, 5), np.float32)
        m = a.base
        while not isinstance(m, drv.ManagedAllocation):
            m = m.base
        assert a.shape == (3, 5) and a.dtype == np.float32
        assert int(m) == a.ctypes.data == m.get_device_pointer() and m.size == 60
        x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
        a[...] = x
        back = np.empty_like(x)
        drv.memcpy_dtoh(back, m)               # the device reads what the host wrote
        assert np.array_equal(back, x)
        z = drv.managed_zeros(7, np.int16, mem_flags=drv.mem_attach_flags.HOST)
        assert not z.any()
        f = drv.managed_empty_like(np.asfortranarray(np.ones((2, 3))))
        assert f.flags.f_contiguous and f.dtype == np.float64
        assert drv.pointer_get_attribute(drv.pointer_attribute.IS_MANAGED, m) is True
        assert drv.pointer_get_attribute(drv.pointer_attribute.MEMORY_TYPE, m) \\
            == drv.memory_type.DEVICE
        for bad, exc in (((-1,), ValueError),):
            try:
                drv.managed_empty(bad, np.float32)
            except exc:
                pass
            else:
                raise AssertionError(bad)
        try:
            drv.managed_empty(4, np.float32, mem_flags=drv.mem_attach_flags.SINGLE)
        except ValueError as e:
            assert "GLOBAL or HOST" in str(e)
        else:
            raise AssertionError("SINGLE accepted by cuMemAllocManaged")
        s = drv.Stream()
        m.attach(drv.mem_attach_flags.SINGLE, s)
        for flags, stream in ((drv.mem_attach_flags.SINGLE, None), (3, s)):
            try:
                m.attach(flags, stream)
            except ValueError:
                pass
            else:
                raise AssertionError((flags, stream))
        live = fk["live_allocations"]
        del a, m, z, f
        gc.collect()
        assert fk["live_allocations"] == live - 3, fk.counters()
    """)


def test_prefetch_and_advice_pass_the_location(fake_lib):
    check(fake_lib, """
        import ctypes
        fk.lib.fake_last_migration.restype = ctypes.c_longlong
        out = (ctypes.c_ulonglong * 6)()
        def last():
            n = fk.lib.fake_last_migration(out)
            return n, tuple(out)
        a = drv.managed_empty(1000, np.float32)
        s = drv.Stream()
        drv.mem_prefetch_async(a, drv.Device(0), stream=s)
        n, rec = last()
        assert rec == (a.ctypes.data, 4000, 1, 0, 0, s.handle), rec
        drv.mem_prefetch_async(a, "host", nbytes=400)
        n2, rec = last()
        assert n2 == n + 1 and rec[:5] == (a.ctypes.data, 400, 2, 0, 0), rec
        drv.mem_advise(a, drv.mem_advice.SET_PREFERRED_LOCATION, 0)
        n3, rec = last()
        assert n3 == n2 + 1 and rec[:5] == (a.ctypes.data, 4000, 1, 0, 3), rec
        for call, exc in ((lambda: drv.mem_prefetch_async(a, "cpu"), ValueError),
                          (lambda: drv.mem_prefetch_async(a, -1), ValueError),
                          (lambda: drv.mem_prefetch_async(a, 1.5), TypeError),
                          (lambda: drv.mem_prefetch_async(a, 0, nbytes=4001), ValueError),
                          (lambda: drv.mem_prefetch_async(a, 0, nbytes=-1), ValueError),
                          (lambda: drv.mem_prefetch_async(a.ctypes.data, 0), TypeError),
                          (lambda: drv.mem_prefetch_async(a[::2], 0), ValueError),
                          (lambda: drv.mem_advise(a, 9, 0), ValueError)):
            try:
                call()
            except exc:
                pass
            else:
                raise AssertionError("accepted")
        assert last()[0] == n3                 # nothing reached the driver
        d = drv.mem_alloc(64)                  # not managed: the driver refuses
        try:
            drv.mem_prefetch_async(d, 0)
        except drv.LogicError as e:
            assert e.call == "cuMemPrefetchAsync_v2"
        else:
            raise AssertionError("prefetch of device memory accepted")
    """)


def test_pointer_attributes(fake_lib):
    check(fake_lib, """
        A = drv.pointer_attribute
        d = drv.mem_alloc(256)
        assert drv.pointer_get_attribute(A.CONTEXT, d) is ctx
        assert drv.pointer_get_attribute(A.MEMORY_TYPE, int(d) + 10) == drv.memory_type.DEVICE
        assert drv.pointer_get_attribute(A.RANGE_START_ADDR, int(d) + 10) == int(d)
        assert drv.pointer_get_attribute(A.RANGE_SIZE, d) == 256
        got = drv.pointer_get_attributes(d)
        assert got[A.CONTEXT] is ctx and got[A.MEMORY_TYPE] == drv.memory_type.DEVICE
        assert got[A.DEVICE_POINTER] == int(d) and got[A.RANGE_SIZE] == 256
        assert got[A.IS_MANAGED] is False and got[A.DEVICE_ORDINAL] == 0
        h = drv.pagelocked_empty(16, np.float32)
        assert drv.pointer_get_attribute(A.MEMORY_TYPE, h) == drv.memory_type.HOST
        plain = np.zeros(4)
        got = drv.pointer_get_attributes(plain, [A.MEMORY_TYPE, A.CONTEXT])
        assert got == {A.MEMORY_TYPE: 0, A.CONTEXT: None}, got
        try:
            drv.pointer_get_attribute(A.MEMORY_TYPE, plain)
        except drv.LogicError:
            pass
        else:
            raise AssertionError("pageable memory known to the driver")
        for bad in (5, 99):
            try:
                drv.pointer_get_attribute(bad, d)
            except ValueError:
                pass
            else:
                raise AssertionError(bad)
        assert drv.pointer_get_attributes(d, []) == {}
    """)


def test_created_pools(fake_lib):
    check(fake_lib, """
        import ctypes
        fk.lib.fake_live_pools.restype = ctypes.c_int
        dev = drv.Device(0)
        default = dev.get_default_mem_pool()
        p = drv.MemoryPool(max_size=1 << 20)
        assert fk.lib.fake_live_pools() == 1 and p != default and p.device == dev
        a = p.allocate(1000)
        assert int(a) and a.size == 1000
        dev.set_mem_pool(p)
        assert dev.get_mem_pool() is p
        dev.set_mem_pool(default)
        assert dev.get_mem_pool() == default
        del p
        gc.collect()
        assert fk.lib.fake_live_pools() == 1     # its allocation keeps it alive
        del a
        gc.collect()
        assert fk.lib.fake_live_pools() == 0
        for call, exc in ((lambda: drv.MemoryPool(0), TypeError),
                          (lambda: dev.set_mem_pool(None), TypeError)):
            try:
                call()
            except exc:
                pass
            else:
                raise AssertionError("accepted")
    """)


def test_ipc_handles_and_peer_access(fake_lib):
    check(fake_lib, """
        import ctypes
        fk.lib.fake_ipc_open_maps.restype = ctypes.c_longlong
        d = drv.mem_alloc(64)
        drv.memcpy_htod(d, np.arange(16, dtype=np.float32))
        h = drv.mem_get_ipc_handle(d)
        assert isinstance(h, bytes) and len(h) == 64
        m = drv.IPCMemoryHandle(h)
        assert int(m) == int(d) and fk.lib.fake_ipc_open_maps() == 1
        back = np.empty(16, np.float32)
        drv.memcpy_dtoh(back, m)               # an IPCMemoryHandle is a device pointer
        assert np.array_equal(back, np.arange(16))
        m.close(); m.close()
        assert fk.lib.fake_ipc_open_maps() == 0
        m2 = drv.IPCMemoryHandle(bytearray(h), drv.ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS)
        del m2
        gc.collect()
        assert fk.lib.fake_ipc_open_maps() == 0
        for call, exc in ((lambda: drv.IPCMemoryHandle(h[:10]), ValueError),
                          (lambda: drv.IPCMemoryHandle(12), TypeError),
                          (lambda: drv.mem_get_ipc_handle(drv.mem_alloc_async(64)), ValueError)):
            try:
                call()
            except exc:
                pass
            else:
                raise AssertionError("accepted")
        e = drv.Event(drv.event_flags.INTERPROCESS | drv.event_flags.DISABLE_TIMING)
        eh = e.ipc_handle()
        assert len(eh) == 64
        opened = drv.Event.from_ipc_handle(eh)
        opened.record().synchronize()
        try:
            drv.Event().ipc_handle()
        except drv.LogicError:
            pass
        else:
            raise AssertionError("IPC handle of a plain event")
        for call in (lambda: drv.Event(drv.event_flags.INTERPROCESS),
                     lambda: drv.Event(2, ipc_handle=eh)):
            try:
                call()
            except ValueError:
                pass
            else:
                raise AssertionError("accepted")

        dev = drv.Device(0)
        assert dev.can_access_peer(dev) is False
        other = dev.make_context()
        drv.Context.pop()
        try:
            drv.Context.enable_peer_access(other)
        except drv.Error as e:
            assert e.call == "cuCtxEnablePeerAccess" and e.code == 217, vars(e)
        else:
            raise AssertionError("peer access to the same device")
        for call, exc in ((lambda: drv.Context.enable_peer_access(dev), TypeError),
                          (lambda: drv.Context.enable_peer_access(other, 1), ValueError),
                          (lambda: dev.can_access_peer(0), TypeError)):
            try:
                call()
            except exc:
                pass
            else:
                raise AssertionError("accepted")
        other.detach()
        try:
            drv.Context.disable_peer_access(other)
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("detached peer accepted")
    """)


def test_stream_priorities(fake_lib):
    check(fake_lib, """
        least, greatest = drv.Context.get_stream_priority_range()
        assert (least, greatest) == (0, -5)
        s = drv.Stream(priority=-3)
        assert s.priority == -3 and s.flags == 0
        assert drv.Stream(drv.stream_flags.NON_BLOCKING, priority=-99).priority == -5
        assert drv.Stream().priority == 0
        for bad in (1.5, "high", True):
            try:
                drv.Stream(priority=bad)
            except TypeError:
                pass
            else:
                raise AssertionError(bad)
    """)


def test_occupancy_cooperative_and_cluster_launches(fake_lib):
    check(fake_lib, """
        import ctypes
        fk.lib.fake_last_launch_ex.restype = ctypes.c_longlong
        out = (ctypes.c_uint * 4)()
        m = drv.module_from_buffer(image("kernel k 8,4"))
        f = m.get_function("k")
        # the fake: 32 registers a thread, 2048 threads, 65536 registers and
        # 233472 bytes of shared memory an SM, 32 blocks at most, 132 SMs
        assert f.max_active_blocks_per_multiprocessor(256) == 8
        assert f.max_active_blocks_per_multiprocessor(256, 100000) == 2
        assert f.max_active_blocks_per_multiprocessor(32) == 32
        grid, block = f.max_potential_block_size()
        assert block * f.max_active_blocks_per_multiprocessor(block) == 2048, (grid, block)
        assert grid == 132 * f.max_active_blocks_per_multiprocessor(block)
        # shared memory growing with the block: gpuarr's own search
        grid, block = f.max_potential_block_size(lambda bs: bs * 200)
        best = max(range(32, 1025, 32),
                   key=lambda bs: (f.max_active_blocks_per_multiprocessor(bs, bs * 200) * bs, bs))
        assert block == best, (block, best)
        assert f.available_dynamic_smem_per_block(2, 256) == 233472 // 2
        assert f.max_potential_cluster_size((8, 1), (128, 1, 1)) == 8
        assert f.max_active_clusters((8, 1), (128, 1, 1), (2, 1, 1)) == 16 * 132 // 2

        d = drv.mem_alloc(8)
        f(d, np.int32(7), block=(256, 1, 1), grid=(132 * 8, 1), cooperative=True)
        n = fk.lib.fake_last_launch_ex(out)
        assert n == 1 and tuple(out) == (1, 0, 0, 0)
        assert fk.last_launch()["params"] == expected_params([np.uint64(int(d)), np.int32(7)])
        try:
            f(d, np.int32(7), block=(256, 1, 1), grid=(132 * 8 + 1, 1), cooperative=True)
        except ValueError as e:
            assert "1057 blocks" in str(e) and "1056 fit" in str(e), str(e)
        else:
            raise AssertionError("too large a cooperative launch accepted")
        f(d, np.int32(1), block=(128, 1, 1), grid=(8, 4), cluster=(2, 2, 1), stream=drv.Stream())
        assert fk.lib.fake_last_launch_ex(out) == 2 and tuple(out) == (0, 2, 2, 1)
        assert fk.last_launch()["grid"] == (8, 4, 1)
        f(d, np.int32(1), block=(128, 1, 1), grid=(4, 1), cluster=4, cooperative=True)
        assert fk.lib.fake_last_launch_ex(out) == 3 and tuple(out) == (1, 4, 1, 1)
        launches = fk["launches"]
        for kw, exc in ((dict(grid=(7, 1), cluster=(2, 1, 1)), ValueError),
                        (dict(grid=(8, 1), cluster=(0, 1, 1)), ValueError),
                        (dict(grid=(8, 1), cluster=(2, 1, 1, 1)), ValueError),
                        (dict(grid=(8, 1), cluster="2"), ValueError)):
            try:
                f(d, np.int32(1), block=(128, 1, 1), **kw)
            except exc:
                pass
            else:
                raise AssertionError(kw)
        assert fk["launches"] == launches        # none reached the driver
        for call in (lambda: f.max_active_blocks_per_multiprocessor(0),
                     lambda: f.max_potential_block_size(lambda bs: -1),
                     lambda: f.max_potential_block_size(-5),
                     lambda: f.available_dynamic_smem_per_block(0, 32),
                     lambda: f.max_active_clusters((7, 1), (32, 1, 1), (2, 1, 1))):
            try:
                call()
            except ValueError:
                pass
            else:
                raise AssertionError("accepted")
    """)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_gets_a_clear_error_and_the_parent_goes_on(fake_lib):
    check(fake_lib, """
        import os
        a = drv.mem_alloc(64)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                drv.mem_alloc(16)
            except drv.RuntimeError as e:
                code = 0 if ("os.fork()" in str(e) and "spawn" in str(e)) else 2
            try:
                drv.Stream()
            except drv.RuntimeError:
                pass
            else:
                code = 3
            del a                      # a parent's handle: dropped, not freed here
            gc.collect()
            os.write(w, bytes([code]))
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(r, 1) == bytes([0])
        b = drv.mem_alloc(32)          # the parent is unaffected
        drv.memcpy_htod(b, np.arange(8, dtype=np.float32))
        del a, b
        gc.collect()
        assert fk["live_allocations"] == 0, fk.counters()
    """)


def test_releases_during_a_capture_wait_for_its_end(fake_lib):
    check(fake_lib, """
        s = drv.Stream()
        a = drv.mem_alloc(64)
        e = drv.Event()
        other = drv.Stream()
        live = fk["live_allocations"]
        s.begin_capture()
        assert ctx.pending_releases == 0
        del a, e, other                        # would invalidate the capture
        gc.collect()
        b = drv.mem_alloc(32)
        b.free()                               # an explicit free waits too
        assert ctx.pending_releases == 4, ctx.pending_releases
        assert fk["live_allocations"] == live + 1 and fk["mem_free_calls"] == 0
        g = s.end_capture()
        assert ctx.pending_releases == 0
        c = fk.counters()
        assert c["live_allocations"] == live - 1 and c["mem_free_calls"] == 2, c
        assert c["wrong_context_frees"] == 0 and c["wrong_context_releases"] == 0, c
        # ended with another context current: pushed for the release
        s.begin_capture()
        x = drv.mem_alloc(16)
        del x
        gc.collect()
        assert ctx.pending_releases == 1
        ctx2 = drv.Device(0).make_context()
        s.end_capture()                        # pushes ctx for the release
        assert ctx.pending_releases == 0 and fk["wrong_context_frees"] == 0
        assert drv.Context.get_current() is ctx2
        ctx2.detach()
    """)
