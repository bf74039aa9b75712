"""PyCUDA's tools, characterize, vec and the new driver calls on a real GPU:
DeviceData against the driver's attributes, characterize.sizeof against
numpy's itemsizes, kernels over float3/float4 arrays against numpy,
Context.get_api_version / get_stream_priority_range / attach,
mem_alloc_like, make_default_context through mark_cuda_test."""
import numpy as np
import pytest

import gpuarr.driver as drv
import gpuarr.gpuarray as ga
from gpuarr import characterize, tools
from gpuarr.compiler import SourceModule
from gpuarr.elementwise import ElementwiseKernel
from gpuarr.reduction import ReductionKernel
from gpuarr.gpuarray import vec

pytestmark = pytest.mark.gpu

A = drv.device_attribute


def test_device_data_matches_the_driver(context):
    dev = context.get_device()
    dd = tools.DeviceData()
    assert dd.max_threads == dev.get_attribute(A.MAX_THREADS_PER_BLOCK)
    assert dd.warp_size == dev.get_attribute(A.WARP_SIZE) == 32
    assert dd.warps_per_mp == \
        dev.get_attribute(A.MAX_THREADS_PER_MULTIPROCESSOR) // dd.warp_size
    assert dd.thread_blocks_per_mp == \
        dev.get_attribute(A.MAX_BLOCKS_PER_MULTIPROCESSOR)
    assert dd.registers == dev.get_attribute(A.MAX_REGISTERS_PER_BLOCK)
    assert dd.shared_memory == dev.get_attribute(A.MAX_SHARED_MEMORY_PER_BLOCK)
    assert vars(tools.DeviceData(dev)) == vars(dd)
    if dev.compute_capability() >= (9, 0):
        assert (dd.warps_per_mp, dd.thread_blocks_per_mp) == (64, 32)
    r = tools.OccupancyRecord(dd, 256)
    assert 0 < r.occupancy <= 1


def test_characterize_features(context):
    assert characterize.has_double_support() is True
    assert characterize.has_stack() is True
    assert characterize.platform_bits() == 64


STRUCT = "struct tg_pair { char c; double d; short s; };"


@pytest.mark.parametrize("type_name,preamble,expected", [
    ("char", "", np.dtype(np.int8).itemsize),
    ("short", "", np.dtype(np.int16).itemsize),
    ("int", "", np.dtype(np.int32).itemsize),
    ("long", "", np.dtype(np.int64).itemsize),
    ("long long", "", np.dtype(np.longlong).itemsize),
    ("float", "", np.dtype(np.float32).itemsize),
    ("double", "", np.dtype(np.float64).itemsize),
    ("void *", "", np.dtype(np.intp).itemsize),
    ("float3", "", vec.float3.itemsize),
    ("float4", "", vec.float4.itemsize),
    ("double2", "", vec.double2.itemsize),
    ("uchar3", "", vec.uchar3.itemsize),
    ("short3", "", vec.short3.itemsize),
    ("longlong2", "", vec.longlong2.itemsize),
    ("struct tg_pair", STRUCT,
     np.dtype([("c", np.int8), ("d", np.float64), ("s", np.int16)],
              align=True).itemsize),
])
def test_sizeof_matches_numpy(context, type_name, preamble, expected):
    assert characterize.sizeof(type_name, preamble) == expected
    # remembered per context: the same answer without a new compile
    assert characterize.sizeof(type_name, preamble) == expected


def test_sizeof_errors(context):
    with pytest.raises(drv.CompileError):
        characterize.sizeof("tg_no_such_type")
    with pytest.raises(TypeError):
        characterize.sizeof(3)


VEC_KERNEL = r"""
extern "C" __global__ void tg_vec(float4 *out, const float3 *a,
                                  const double2 *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 v = a[i];
        out[i] = make_float4(v.x * 2.0f, v.y + 1.0f, v.z - v.x,
                             (float)(d[i].x * d[i].y));
    }
}
"""


def _random_float3(rng, n):
    a = np.empty(n, vec.float3)
    for f in "xyz":
        a[f] = rng.standard_normal(n).astype(np.float32)
    return a


def _random_double2(rng, n):
    d = np.empty(n, vec.double2)
    d["x"] = rng.standard_normal(n)
    d["y"] = rng.standard_normal(n)
    return d


def _expected(a, d):
    want = np.empty(len(a), vec.float4)
    want["x"] = a["x"] * np.float32(2)
    want["y"] = a["y"] + np.float32(1)
    want["z"] = a["z"] - a["x"]
    want["w"] = (d["x"] * d["y"]).astype(np.float32)
    return want


def _poisoned_float4(n):
    return np.frombuffer(np.full(4 * n, np.nan, np.float32).tobytes(),
                         vec.float4).copy()


def _same(got, want):
    for f in want.dtype.names:
        np.testing.assert_allclose(got[f], want[f], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 1001])
def test_source_module_kernel_over_vector_type_arrays(context, n):
    rng = np.random.default_rng(n)
    a, d = _random_float3(rng, n), _random_double2(rng, n)
    out = _poisoned_float4(n)
    fn = SourceModule(VEC_KERNEL, no_extern_c=True).get_function("tg_vec")
    fn(drv.Out(out), drv.In(a), drv.In(d), np.int32(n),
       block=(128, 1, 1), grid=((n + 127) // 128, 1))
    _same(out, _expected(a, d))


@pytest.mark.parametrize("n", [1, 7, 1001, 100003])
def test_elementwise_kernel_over_vector_type_gpuarrays(context, n):
    rng = np.random.default_rng(n + 1)
    a, d = _random_float3(rng, n), _random_double2(rng, n)
    k = ElementwiseKernel(
        "float4 *out, float3 *a, double2 *d",
        "out[i] = make_float4(a[i].x * 2.0f, a[i].y + 1.0f, a[i].z - a[i].x, "
        "(float)(d[i].x * d[i].y))", "tg_vec_ew")
    ga_a, ga_d = ga.to_gpu(a), ga.to_gpu(d)
    assert ga_a.dtype == vec.float3 and ga_a.nbytes == 12 * n
    ga_out = ga.to_gpu(_poisoned_float4(n))
    k(ga_out, ga_a, ga_d)
    _same(ga_out.get(), _expected(a, d))
    z = ga.zeros(n, vec.float4)
    assert not np.frombuffer(z.get().tobytes(), np.uint8).any()


def test_struct_items_set_and_filled(context):
    # PyCUDA's from-wiki distance_element_wise3d sets vec.float3 items one
    # by one: numpy's assignment of a struct scalar, a broadcast row, fill
    rng = np.random.default_rng()
    z = ga.zeros((5, 4, 3), vec.float3)
    z.fill(vec.make_float3(np.nan, np.nan, np.nan))        # poison
    want = np.empty((5, 4, 3), vec.float3)
    want[...] = vec.make_float3(np.nan, np.nan, np.nan)
    for idx in [(1, 2, 1), (0, 0, 0), (4, 3, 2), (-1, 0, -2)]:
        v = vec.make_float3(*rng.standard_normal(3))
        z[idx] = v
        want[idx] = v
    row = _random_float3(rng, 3)
    z[2, 1] = row
    want[2, 1] = row
    v = vec.make_float3(*rng.standard_normal(3))
    z[3] = v
    want[3] = v
    got = z.get()
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    z.fill(v)
    want[...] = v
    assert np.array_equal(z.get().view(np.uint8), want.view(np.uint8))
    with pytest.raises(TypeError, match="non-contiguous"):
        z[:, ::2].fill(v)
    assert np.array_equal(z.get().view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("n", [1, 1001, 300007])
def test_reduction_kernel_over_vector_type_gpuarrays(context, n):
    rng = np.random.default_rng(n + 2)
    a, d = _random_float3(rng, n), _random_double2(rng, n)
    k = ReductionKernel(np.float64, "0", "a+b",
                        "(double)p[i].x * p[i].z + q[i].y", "float3 *p, double2 *q",
                        name="tg_vec_red")
    got = k(ga.to_gpu(a), ga.to_gpu(d)).get()
    want = (a["x"].astype(np.float64) * a["z"] + d["y"]).sum()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * n)


@pytest.mark.parametrize("n", [1, 1001])
def test_structs_by_value_in_an_elementwise_kernel(context, n):
    rng = np.random.default_rng(n + 3)
    s = vec.make_float3(*rng.standard_normal(3))
    d = vec.make_double2(*rng.standard_normal(2))
    x = rng.standard_normal(n).astype(np.float32)
    k = ElementwiseKernel(
        "float3 s, double2 d, float *x, float4 *out",
        "out[i] = make_float4(s.x * x[i], s.y + x[i], s.z, (float)(d.x - d.y))",
        "tg_byval")
    out = ga.to_gpu(_poisoned_float4(n))
    k(s, tuple(d[()]), ga.to_gpu(x), out)
    got = out.get()
    sv = s[()]
    np.testing.assert_allclose(got["x"], sv["x"] * x, rtol=1e-6)
    np.testing.assert_allclose(got["y"], sv["y"] + x, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got["z"], np.full(n, sv["z"], np.float32))
    np.testing.assert_allclose(got["w"], np.float32(d["x"] - d["y"]), rtol=1e-6)


def test_misaligned_float4_array_is_refused_before_launch(context):
    k = ElementwiseKernel("float4 *p", "p[i].x = 1.0f", "tg_misaligned")
    base = ga.to_gpu(np.arange(1 + 4 * 8, dtype=np.float32))
    view = base[1:].view(vec.float4)          # 4 bytes past an aligned start
    assert view.ptr % 16 == 4
    with pytest.raises(ValueError, match="multiple of 16"):
        k(view)
    np.testing.assert_array_equal(base.get(), np.arange(33, dtype=np.float32))
    k(base[4:32].view(vec.float4))            # 16 bytes in: fine
    want = np.arange(33, dtype=np.float32)
    want[4:32:4] = 1.0
    np.testing.assert_array_equal(base.get(), want)


def test_user_struct_array_kernel(context):
    dt = tools.get_or_register_dtype(
        "tg_particle", np.dtype([("pos", vec.float3), ("mass", np.float32)],
                                align=True))
    assert characterize.sizeof(
        "tg_particle", "struct tg_particle { float3 pos; float mass; };") \
        == dt.itemsize
    rng = np.random.default_rng(5)
    n = 513
    p = np.empty(n, dt)
    p["mass"] = rng.random(n, dtype=np.float32)
    for f in "xyz":
        p["pos"][f] = rng.standard_normal(n).astype(np.float32)
    out = ga.to_gpu(np.full(n, np.nan, np.float32))
    k = ElementwiseKernel(
        "tg_particle *p, float *out",
        "out[i] = p[i].mass * (p[i].pos.x + p[i].pos.y + p[i].pos.z)",
        "tg_struct", preamble="struct tg_particle { float3 pos; float mass; };")
    k(ga.to_gpu(p), out)
    want = p["mass"] * (p["pos"]["x"] + p["pos"]["y"] + p["pos"]["z"])
    np.testing.assert_allclose(out.get(), want, rtol=1e-6)


def test_api_version_and_priority_range(context):
    v = drv.Context.get_api_version()
    assert isinstance(v, int) and v >= 3020
    assert context.get_api_version() == v
    least, greatest = drv.Context.get_stream_priority_range()
    assert greatest <= least
    assert context.get_stream_priority_range() == (least, greatest)


ATTACH_CHILD = r"""
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
import gpuarr.gpuarray as ga
ctx = gpuarr.autoinit.context
try:
    att = drv.Context.attach()
except drv.NotSupportedError as e:
    print("UNSUPPORTED", e)
    raise SystemExit(0)
assert att is ctx and drv.Context.get_current() is ctx
again = drv.Context.attach()
again.detach()
att.detach()
assert drv.Context.get_current() is ctx and ctx.get_api_version() >= 3020
x = ga.to_gpu(np.arange(10, dtype=np.float32))
assert ((x * 2).get() == np.arange(10) * 2).all()
print("ATTACHED OK")
"""


def test_attach_and_detach_keep_the_context_usable(context):
    # in a child process: a driver that mishandles cuCtxDetach on a primary
    # context must not take this worker's context down with it
    import subprocess
    import sys
    from _util import CHILD_CWD, child_env
    r = subprocess.run([sys.executable, "-c", ATTACH_CHILD], capture_output=True,
                       text=True, env=child_env(), cwd=CHILD_CWD, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    if r.stdout.startswith("UNSUPPORTED"):
        assert "cuCtxAttach" in r.stdout, r.stdout
        pytest.skip("the driver has no cuCtxAttach: " + r.stdout.strip())
    assert r.stdout.strip().endswith("ATTACHED OK"), r.stdout + r.stderr


def test_mem_alloc_like(context):
    rng = np.random.default_rng(3)
    for host in (rng.standard_normal((3, 7)), rng.integers(0, 100, 13, np.int16),
                 _random_float3(rng, 9)):
        dev = drv.mem_alloc_like(host)
        drv.memcpy_htod(dev, host)
        back = np.empty_like(host)
        drv.memcpy_dtoh(back, dev)
        assert back.tobytes() == host.tobytes()
    g = ga.to_gpu(rng.standard_normal(17).astype(np.float32))
    dev = drv.mem_alloc_like(g)
    drv.memcpy_dtod(dev, g.ptr, g.nbytes)
    back = np.empty(17, np.float32)
    drv.memcpy_dtoh(back, dev)
    np.testing.assert_array_equal(back, g.get())


def test_mark_cuda_test_runs_in_a_fresh_context(context):
    seen = []

    def inner():
        cur = drv.Context.get_current()
        seen.append(cur)
        x = ga.to_gpu(np.arange(5, dtype=np.int32))
        np.testing.assert_array_equal((x + 1).get(), np.arange(1, 6))

    tools.mark_cuda_test(inner)()
    assert seen[0] is not None and seen[0] is not context
    assert not seen[0].is_primary
    assert drv.Context.get_current() is context
    # the test's context is gone; this one still works
    x = ga.to_gpu(np.arange(5, dtype=np.float64))
    np.testing.assert_array_equal((x * 3).get(), np.arange(5) * 3.0)
