"""Driver layer on a real GPU: devices, memory, copies, streams, events,
modules, every kind of kernel argument, errors and lifetimes."""
import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = r"""
extern "C" {
__global__ void axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void store_args(double *out, signed char a, unsigned char b, short c,
                           unsigned short d, int e, unsigned int f, long long g,
                           unsigned long long h, float x, double y, bool z)
{
    out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = e; out[5] = f;
    out[6] = (double)g; out[7] = (double)h; out[8] = x; out[9] = y; out[10] = z;
}

__global__ void copy_u8(unsigned char *dst, const unsigned char *src, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

__device__ float scale_factor;
__constant__ int table[4];

__global__ void use_globals(float *out)
{
    int i = threadIdx.x;
    out[i] = scale_factor * table[i & 3];
}
}
"""


def rng():
    return np.random.default_rng()


def test_device_attributes(drv, context):
    dev = context.get_device()
    assert drv.Device.count() >= 1
    assert dev == drv.Device(int(os.environ.get("CUDA_DEVICE", "").strip() or 0))
    name = dev.name()
    assert name and name == name.strip() and name.isprintable(), repr(name)
    smi = shutil.which("nvidia-smi")
    if smi:
        # nvidia-smi's name of the GPU at our PCI bus id (its ids have an
        # 8-digit domain, the driver API's 4: compare them as numbers)
        r = subprocess.run([smi, "--query-gpu=pci.bus_id,name",
                            "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr

        def bus(s):
            dom, b, rest = s.strip().split(":")
            d, f = rest.split(".")
            return tuple(int(x, 16) for x in (dom, b, d, f))
        names = dict((bus(line.split(",", 1)[0]), line.split(",", 1)[1].strip())
                     for line in r.stdout.splitlines() if line.strip())
        assert names[bus(dev.pci_bus_id())] == name, (names, name)
    major, minor = dev.compute_capability()
    assert major >= 7 and 0 <= minor < 10
    assert dev.total_memory() > 2**30
    assert dev.pci_bus_id().count(":") == 2
    sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    assert sms > 0
    attrs = dev.get_attributes()
    assert attrs[drv.device_attribute.MULTIPROCESSOR_COUNT] == sms
    assert attrs[drv.device_attribute.MAX_THREADS_PER_BLOCK] == 1024
    assert len(attrs) > 100
    assert drv.get_driver_version() >= 12000


def test_context_stack(drv, context):
    assert drv.Context.get_current() is context
    assert context.is_primary
    assert drv.Context.get_device() == context.get_device()
    drv.Context.synchronize()
    context.synchronize()
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) > 0
    cfg = drv.Context.get_cache_config()
    other = (drv.func_cache.PREFER_SHARED if cfg != drv.func_cache.PREFER_SHARED
             else drv.func_cache.PREFER_L1)
    drv.Context.set_cache_config(other)
    assert drv.Context.get_cache_config() == other
    drv.Context.set_cache_config(cfg)
    assert drv.Context.get_cache_config() == cfg


@pytest.mark.parametrize("nbytes", [1, 3, 2**20 + 7])
def test_copy_round_trip_odd_sizes(drv, nbytes):
    src = rng().integers(0, 256, nbytes, dtype=np.uint8)
    a = drv.mem_alloc(nbytes)
    b = drv.mem_alloc(nbytes)
    drv.memset_d8(a, 0xAB, nbytes)
    drv.memset_d8(b, 0xCD, nbytes)
    drv.memcpy_htod(a, src)
    drv.memcpy_dtod(b, a, nbytes)
    out = np.full(nbytes, 0x5A, np.uint8)
    drv.memcpy_dtoh(out, b)
    np.testing.assert_array_equal(out, src)
    assert a.size == nbytes and int(a) != 0


def test_copy_size_is_checked(drv):
    a = drv.mem_alloc(16)
    with pytest.raises(ValueError):
        drv.memcpy_htod(a, np.zeros(17, np.uint8))
    with pytest.raises(ValueError):
        drv.memcpy_dtoh(np.zeros(5, np.float32), a)
    with pytest.raises(ValueError):
        drv.memcpy_htod(a, np.zeros((4, 4), np.uint8)[:, ::2])


def test_memset(drv):
    n = 1001
    a = drv.mem_alloc(4 * n)
    for setter, dtype, value, count in [
            (drv.memset_d8, np.uint8, 0x7E, 4 * n),
            (drv.memset_d16, np.uint16, 0xBEEF, 2 * n),
            (drv.memset_d32, np.uint32, 0xDEADBEEF, n)]:
        drv.memcpy_htod(a, rng().integers(0, 255, 4 * n, dtype=np.uint8))
        setter(a, value, count)
        out = np.empty(count, dtype)
        drv.memcpy_dtoh(out, a)
        assert (out == value).all()
    s = drv.Stream()
    drv.memset_d32_async(a, 12345, n, stream=s)
    s.synchronize()
    out = np.empty(n, np.uint32)
    drv.memcpy_dtoh(out, a)
    assert (out == 12345).all()
    with pytest.raises(ValueError):
        drv.memset_d32(a, 1, n + 1)


def test_async_copies_two_streams_pinned(drv):
    n = 3 * 2**20 + 5
    streams = [drv.Stream(), drv.Stream(drv.stream_flags.NON_BLOCKING)]
    hosts = [drv.pagelocked_empty(n, np.float32) for _ in streams]
    backs = [drv.pagelocked_zeros(n, np.float32) for _ in streams]
    devs = [drv.mem_alloc(4 * n) for _ in streams]
    for h in hosts:
        h[:] = rng().standard_normal(n, dtype=np.float32)
    for b in backs:
        b[:] = np.nan
    for h, b, d, s in zip(hosts, backs, devs, streams):
        drv.memcpy_htod_async(d, h, stream=s)
        drv.memcpy_dtoh_async(b, d, stream=s)
    for s in streams:
        s.synchronize()
        assert s.is_done()
    for h, b in zip(hosts, backs):
        np.testing.assert_array_equal(h, b)
    # pagelocked_empty (and _zeros) arrays view their HostAllocation
    assert all(isinstance(a.base, drv.HostAllocation) for a in hosts + backs)


def test_pagelocked_shapes_and_register(drv):
    a = drv.pagelocked_empty((3, 5), np.complex64, order="F")
    assert a.shape == (3, 5) and a.flags.f_contiguous and a.dtype == np.complex64
    z = drv.pagelocked_zeros_like(a)
    assert (z == 0).all() and z.shape == a.shape
    e = drv.pagelocked_empty((0,), np.float64)
    assert e.size == 0
    host = rng().standard_normal(4096)
    reg = drv.register_host_memory(host)
    # a view of host's own memory, kept registered by its HostAllocation
    assert isinstance(reg.base, drv.HostAllocation)
    assert reg.ctypes.data == host.ctypes.data and reg.shape == host.shape
    d = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(d, reg)
    back = np.empty_like(host)
    drv.memcpy_dtoh(back, d)
    np.testing.assert_array_equal(back, host)
    del reg


def test_event_timing(drv, mod):
    n = 1 << 22
    x = drv.mem_alloc(4 * n)
    y = drv.mem_alloc(4 * n)
    drv.memcpy_htod(x, rng().standard_normal(n, dtype=np.float32))
    drv.memcpy_htod(y, rng().standard_normal(n, dtype=np.float32))
    f = mod.get_function("axpy")
    start, end = drv.Event(), drv.Event()
    start.record()
    for _ in range(10):
        f(y, x, np.float32(0.5), np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    end.record()
    end.synchronize()
    assert end.query()
    ms = end.time_since(start)
    assert ms > 0 and abs(start.time_till(end) - ms) < 1e-6
    s = drv.Stream()
    ev = drv.Event().record(s)
    s.wait_for_event(ev)
    t = f(y, x, np.float32(1), np.int32(n), block=(256, 1, 1),
          grid=((n + 255) // 256, 1), time_kernel=True)
    assert 0 < t < 1


def test_hello_example():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "hello_gpu.py")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    numbers = r.stdout.replace("[", " ").replace("]", " ").split()
    assert len(numbers) == 400
    assert all(float(v) == 0.0 for v in numbers)


@pytest.mark.parametrize("name, says", [
    ("gpuarray_basics.py", "mean of sin^2 + cos^2:"),
    ("elementwise_axpy.py", "largest difference from numpy:")])
def test_readme_examples(name, says):
    """The README's other two examples run (each checks its own result
    against numpy and fails with an AssertionError otherwise)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", name)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
    assert r.stdout.startswith(says)


def test_axpy_random(drv, mod):
    f = mod.get_function("axpy")
    for n in (1, 1000, 2**20 + 3):
        x = rng().standard_normal(n, dtype=np.float32)
        y = rng().standard_normal(n, dtype=np.float32)
        a = np.float32(rng().standard_normal())
        yd = drv.to_device(y)
        f(yd, drv.In(x), a, np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))
        out = drv.from_device(yd, (n,), np.float32)
        np.testing.assert_allclose(out, a * x + y, rtol=1e-6, atol=1e-6)


def test_every_scalar_kind(drv, mod):
    f = mod.get_function("store_args")
    out = np.full(11, np.nan)
    vals = [np.int8(-7), np.uint8(250), np.int16(-30000), np.uint16(60000),
            np.int32(-2**31 + 3), np.uint32(2**32 - 9), np.int64(-2**40 - 1),
            np.uint64(2**50 + 3), np.float32(1.5), np.float64(np.pi), np.bool_(True)]
    f(drv.Out(out), *vals, block=(1, 1, 1))
    np.testing.assert_array_equal(out, [float(v) for v in vals])


def test_prepared_calls(drv, mod):
    f = mod.get_function("store_args")
    assert f.prepare("PbBhHiIqQfd?") is f
    d = drv.mem_alloc(11 * 8)
    drv.memset_d8(d, 0xFF, 88)
    vals = [-7, 250, -30000, 60000, -2**31 + 3, 2**32 - 9, -2**40 - 1, 2**50 + 3, 1.5, np.pi, True]
    f.prepared_call((1, 1), (1, 1, 1), int(d), *vals)
    out = drv.from_device(d, (11,), np.float64)
    np.testing.assert_array_equal(out, [float(v) for v in vals])
    s = drv.Stream()
    vals[4] = 17
    f.prepared_async_call((1, 1), (1, 1, 1), s, d, *vals)
    s.synchronize()
    assert drv.from_device(d, (11,), np.float64)[4] == 17
    timer = f.prepared_timed_call((1, 1), (1, 1, 1), d, *vals)
    assert timer() > 0
    with pytest.raises(OverflowError):
        f.prepared_call((1,), (1,), d, 300, *vals[1:])
    with pytest.raises(OverflowError):
        f.prepared_call((1,), (1,), d, vals[0], -1, *vals[2:])
    with pytest.raises(TypeError):
        f.prepared_call((1,), (1,), d, *vals[:-1])


def test_prepare_checks_against_kernel(drv, mod):
    f = mod.get_function("axpy")
    assert f.param_info == [(0, 8), (8, 8), (16, 4), (20, 4)]
    with pytest.raises(TypeError, match="takes 4 arguments"):
        f.prepare("PPf")
    with pytest.raises(TypeError, match="argument 2"):
        f.prepare("PPdi")
    f.prepare([np.intp, np.intp, np.float32, np.int32])


class WithGpudata:
    def __init__(self, alloc):
        self.gpudata = alloc


class WithCAI:
    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {
            "shape": (n,), "typestr": "<f4", "data": (ptr, False), "version": 3,
            "strides": None, "stream": None}


def test_pointer_argument_kinds(drv, mod):
    f = mod.get_function("axpy")
    n = 777
    x = rng().standard_normal(n, dtype=np.float32)
    y = rng().standard_normal(n, dtype=np.float32)
    xd, yd = drv.to_device(x), drv.to_device(y)
    for ykind, xkind in [(yd, xd), (WithGpudata(yd), WithCAI(int(xd), n)),
                         (WithCAI(int(yd), n), WithGpudata(xd))]:
        f(ykind, xkind, np.float32(1.0), np.int32(n), block=(256, 1, 1), grid=(4, 1))
    out = drv.from_device(yd, (n,), np.float32)
    np.testing.assert_allclose(out, y + 3 * x, rtol=1e-5, atol=1e-5)
    yy = y.copy()
    f(drv.InOut(yy), drv.In(x), np.float32(2.0), np.int32(n), block=(256, 1, 1), grid=(4, 1))
    np.testing.assert_allclose(yy, y + 2 * x, rtol=1e-6, atol=1e-6)


def test_wrong_arguments_raise_type_error_before_launch(drv, mod):
    f = mod.get_function("axpy")
    n = 64
    y = rng().standard_normal(n, dtype=np.float32)
    yd = drv.to_device(y)
    good = (yd, yd, np.float32(1), np.int32(n))
    with pytest.raises(TypeError, match="takes 4 arguments"):
        f(*good[:3], block=(64, 1, 1))
    with pytest.raises(TypeError, match="takes 4 arguments"):
        f(*good, np.int32(0), block=(64, 1, 1))
    with pytest.raises(TypeError, match="argument 2 .* 4 bytes"):
        f(yd, yd, np.float64(1), np.int32(n), block=(64, 1, 1))
    with pytest.raises(TypeError, match="argument 3"):
        f(yd, yd, np.float32(1), np.int64(n), block=(64, 1, 1))
    with pytest.raises(TypeError, match="Python int"):
        f(yd, yd, np.float32(1), n, block=(64, 1, 1))
    with pytest.raises(TypeError, match="argument 1"):
        f(yd, "not a pointer", np.float32(1), np.int32(n), block=(64, 1, 1))
    with pytest.raises(ValueError):
        f(*good)  # no block
    drv.Context.synchronize()
    np.testing.assert_array_equal(drv.from_device(yd, (n,), np.float32), y)


def test_bad_launch_configuration(drv, mod):
    f = mod.get_function("axpy")
    yd = drv.mem_alloc(4)
    with pytest.raises(drv.LogicError) as info:
        f(yd, yd, np.float32(1), np.int32(1), block=(2048, 1, 1))
    assert info.value.name == "CUDA_ERROR_INVALID_VALUE"
    assert info.value.call == "cuLaunchKernel"
    assert "CUDA_ERROR_INVALID_VALUE" in str(info.value)
    with pytest.raises(drv.LogicError):
        f(yd, yd, np.float32(1), np.int32(1), block=(32, 1, 1), grid=(1, 1), shared=1 << 30)
    drv.Context.synchronize()


def test_huge_allocation_is_memory_error(drv):
    with pytest.raises(drv.MemoryError) as info:
        drv.mem_alloc(2**50)
    assert isinstance(info.value, MemoryError)
    assert info.value.name == "CUDA_ERROR_OUT_OF_MEMORY"
    assert info.value.call == "cuMemAlloc_v2"


@pytest.mark.huge
def test_alloc_free_cycles_return_memory(drv):
    """Freed and collected allocations give their memory back to the device.

    ``cuMemGetInfo`` counts the whole device, so when other processes use the
    GPU at the same time (pytest-xdist workers) the figure moves for reasons
    of theirs. Run alone, the free memory must come back exactly; beside
    other workers, each allocation is at least 32 MiB so that leaking the
    2000 collected ones (over 64 GiB) cannot hide in their noise (a few of
    their arrays of 2**31 elements, under 32 GiB).
    """
    alone = "PYTEST_XDIST_WORKER" not in os.environ
    drv.Context.synchronize()
    before = drv.mem_get_info()[0]
    for i in range(4000):
        a = drv.mem_alloc((32 << 20) + (1 << (i % 20)) + i)
        if i % 2:
            a.free()
            a.free()
        del a
    drv.Context.synchronize()
    after = drv.mem_get_info()[0]
    if alone:
        assert after == before
    else:
        assert before - after < (32 << 30), (before, after)


def test_async_allocation(drv):
    s = drv.Stream()
    a = drv.mem_alloc_async(4096, s)
    drv.memset_d32_async(a, 7, 1024, stream=s)
    out = np.zeros(1024, np.uint32)
    s.synchronize()
    drv.memcpy_dtoh(out, a)
    assert (out == 7).all()
    del a
    s.synchronize()


def test_default_mem_pool_attributes(drv):
    """cuDeviceGetDefaultMemPool and the pool's attributes; an async block
    shows in USED_MEM_CURRENT while live; trim_to releases unused memory."""
    A = drv.mem_pool_attribute
    dev = drv.Context.get_device()
    mp = dev.get_default_mem_pool()
    assert mp.handle != 0 and mp.handle == dev.get_default_mem_pool().handle
    with pytest.raises(TypeError):
        drv.MemoryPool("device 0")
    old = mp.get_attribute(A.RELEASE_THRESHOLD)
    import gc
    gc.collect()
    gc.disable()        # no array of another test freed in between
    try:
        mp.set_attribute(A.RELEASE_THRESHOLD, 12345 << 20)
        assert mp.get_attribute(A.RELEASE_THRESHOLD) == 12345 << 20
        assert mp.get_attribute(A.REUSE_ALLOW_OPPORTUNISTIC) in (0, 1)
        drv.Context.synchronize()
        used0 = mp.get_attribute(A.USED_MEM_CURRENT)
        a = drv.mem_alloc_async(256 << 20)
        assert mp.get_attribute(A.USED_MEM_CURRENT) >= used0 + (256 << 20)
        assert mp.get_attribute(A.RESERVED_MEM_CURRENT) >= \
            mp.get_attribute(A.USED_MEM_CURRENT)
        del a
        drv.Context.synchronize()
        assert mp.get_attribute(A.USED_MEM_CURRENT) == used0
        mp.trim_to(0)
        assert mp.get_attribute(A.RESERVED_MEM_CURRENT) <= used0 + (64 << 20)
        with pytest.raises(drv.LogicError):
            mp.set_attribute(A.USED_MEM_HIGH, 5)    # only a reset to 0
    finally:
        gc.enable()
        mp.set_attribute(A.RELEASE_THRESHOLD, old)


def _compile(target):
    from gpuarr.compiler import compile as cu_compile
    import gpuarr.driver as drv
    major, minor = drv.Context.get_device().compute_capability()
    return cu_compile(KERNELS, no_extern_c=True, arch="sm_%d%d" % (major, minor), target=target)


@pytest.mark.parametrize("target", ["cubin", "ptx"])
def test_module_from_buffer_and_file(drv, target, tmp_path):
    image = _compile(target)
    mods = [drv.module_from_buffer(image)]
    p = tmp_path / ("k." + target)
    p.write_bytes(image if isinstance(image, bytes) else image.encode())
    mods.append(drv.module_from_file(str(p)))
    for m in mods:
        f = m.get_function("axpy")
        n = 100
        x = rng().standard_normal(n, dtype=np.float32)
        y = np.full(n, 2, np.float32)
        f(drv.InOut(y), drv.In(x), np.float32(3), np.int32(n), block=(128, 1, 1))
        np.testing.assert_allclose(y, 3 * x + 2, rtol=1e-6, atol=1e-6)
        with pytest.raises(drv.LogicError) as info:
            m.get_function("no_such_kernel")
        assert info.value.name == "CUDA_ERROR_NOT_FOUND"


def test_invalid_image(drv):
    with pytest.raises(drv.Error) as info:
        drv.module_from_buffer(b"this is no cubin")
    assert info.value.call == "cuModuleLoadDataEx"


def test_get_global(drv, mod):
    ptr, size = mod.get_global("scale_factor")
    assert size == 4
    drv.memcpy_htod(ptr, np.array([2.5], np.float32))
    tptr, tsize = mod.get_global("table")
    assert tsize == 16
    drv.memcpy_htod(tptr, np.array([1, -2, 3, 4], np.int32))
    out = np.full(8, np.nan, np.float32)
    mod.get_function("use_globals")(drv.Out(out), block=(8, 1, 1))
    np.testing.assert_array_equal(out, 2.5 * np.array([1, -2, 3, 4, 1, -2, 3, 4]))


def test_function_attributes(drv, mod):
    f = mod.get_function("axpy")
    assert 0 < f.num_regs < 256
    assert f.max_threads_per_block == 1024
    assert f.local_size_bytes == 0
    assert f.shared_size_bytes == 0
    assert f.get_attribute(drv.function_attribute.NUM_REGS) == f.num_regs
    f.set_cache_config(drv.func_cache.PREFER_L1)   # the driver has no getter
    A = drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES
    f.set_attribute(A, 65536)
    assert f.get_attribute(A) == 65536
    # and it takes effect: 64 KiB of dynamic shared memory (over the 48 KiB
    # default) now launches
    yd = drv.mem_alloc(4)
    f(yd, yd, np.float32(1), np.int32(1), block=(32, 1, 1), grid=(1, 1),
      shared=65536)
    drv.Context.synchronize()


def test_release_in_own_context(drv, context):
    dev = context.get_device()
    other = dev.make_context()          # now current
    try:
        a = drv.mem_alloc(1 << 20)
        s = drv.Stream()
        assert a.context is other
    finally:
        drv.Context.pop()
    assert drv.Context.get_current() is context
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        del a, s                         # freed in `other`, pushed for it
    assert drv.Context.get_current() is context
    other.detach()


def test_release_after_detach_warns(drv, context):
    dev = context.get_device()
    other = dev.make_context()
    a = drv.mem_alloc(1024)
    other.detach()
    assert drv.Context.get_current() is context
    with pytest.warns(ResourceWarning):
        del a


def test_exit_with_live_objects_is_clean():
    code = textwrap.dedent("""
        import numpy as np
        import gpuarr.autoinit
        import gpuarr.driver as drv
        from gpuarr.compiler import SourceModule
        mod = SourceModule("__global__ void k(float *x) { x[threadIdx.x] = 1; }")
        f = mod.get_function("k")
        a = drv.mem_alloc(1 << 20)
        s = drv.Stream(); e = drv.Event(); e.record(s)
        h = drv.pagelocked_empty(100, np.float32)
        f(a, block=(32, 1, 1))
        holder = [a, s, e, h, mod, f]
        print("done")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, cwd="/")
    assert r.returncode == 0
    assert r.stdout == "done\n"
    assert r.stderr == ""


def test_shares_primary_context_with_cupy(drv, context, mod):
    cp = pytest.importorskip("cupy")
    x = cp.asarray(rng().standard_normal(1000, dtype=np.float32))
    y = cp.asarray(rng().standard_normal(1000, dtype=np.float32))
    expect = (2 * x + y).get()
    assert drv.Context.get_current() is context
    f = mod.get_function("axpy")
    f(y, x, np.float32(2), np.int32(1000), block=(256, 1, 1), grid=(4, 1))
    cp.cuda.runtime.deviceSynchronize()
    np.testing.assert_allclose(y.get(), expect, rtol=1e-6)
    # Our allocation seen by CuPy through its unowned-memory wrapper.
    a = drv.to_device(np.arange(10, dtype=np.float32))
    mem = cp.cuda.UnownedMemory(int(a), 40, a)
    view = cp.ndarray((10,), cp.float32, cp.cuda.MemoryPointer(mem, 0))
    assert float(view.sum()) == 45.0
    assert drv.Context.get_current() is context


def test_autoprimaryctx_is_autoinit(context):
    """PyCUDA's autoprimaryctx: the same primary context as autoinit, current."""
    import gpuarr.autoinit
    import gpuarr.autoprimaryctx as apc
    import gpuarr.driver as drv
    assert apc.context is gpuarr.autoinit.context
    assert apc.device == gpuarr.autoinit.device
    assert apc.context.is_primary
    assert drv.Context.get_current() == apc.context
    other = apc.device.retain_primary_context()     # the one primary context
    try:
        assert other.handle == apc.context.handle
    finally:
        other.detach()
