"""gpuarr.compiler on a real GPU: SourceModule compiles, loads and launches;
the in-memory and on-disk caches; globals; both compilers; contexts."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from gpuarr import compiler

pytestmark = pytest.mark.gpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCALE = r"""
__global__ void scale_add(float *out, const float *x, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + b;
}
"""

GLOBALS = r"""
__device__ float factor;
__constant__ int table[4];

__global__ void use_globals(float *out)
{
    int i = threadIdx.x;
    out[i] = factor * table[i & 3];
}
"""


def _run_scale(drv, mod, n=10007, seed=None):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)  # poisoned: every element must be written
    a, b = np.float32(rng.uniform(-3, 3)), np.float32(rng.uniform(-3, 3))
    f = mod.get_function("scale_add")
    f(drv.Out(out), drv.In(x), a, b, np.int32(n), block=(256, 1, 1),
      grid=((n + 255) // 256, 1))
    np.testing.assert_allclose(out, a * x + b, rtol=1e-6, atol=1e-6)


def test_source_module_launches(drv, context, tmp_path):
    mod = compiler.SourceModule(SCALE, cache_dir=tmp_path)
    major, minor = context.get_device().compute_capability()
    assert mod.arch == "sm_%d%d" % (major, minor)
    assert mod.image_kind == "cubin" and mod.cubin[:4] == b"\x7fELF"
    _run_scale(drv, mod)
    with pytest.raises(drv.LogicError):
        mod.get_function("no_such_kernel")


def test_memory_hit_is_same_object_and_fast(drv, tmp_path):
    src = SCALE + "// memory-hit test\n"
    mod = compiler.SourceModule(src, cache_dir=tmp_path)
    assert compiler.SourceModule(src, cache_dir=tmp_path) is mod
    times = []
    for _ in range(1000):
        t = time.perf_counter()
        compiler.SourceModule(src, cache_dir=tmp_path)
        times.append(time.perf_counter() - t)
    times.sort()
    median = times[len(times) // 2]
    print("in-memory SourceModule hit: median %.2f us" % (median * 1e6))
    assert median < 50e-6
    # Different options: a different module.
    other = compiler.SourceModule(src, options=["-use_fast_math"], cache_dir=tmp_path)
    assert other is not mod
    _run_scale(drv, other)


def test_get_global(drv):
    mod = compiler.SourceModule(GLOBALS, cache_dir=False)
    addr, nbytes = mod.get_global("factor")
    assert nbytes == 4 and addr != 0
    drv.memcpy_htod(addr, np.array([2.5], np.float32))
    taddr, tbytes = mod.get_global("table")
    assert tbytes == 16
    table = np.array([1, -2, 3, 7], np.int32)
    drv.memcpy_htod(taddr, table)
    back = np.zeros(4, np.int32)
    drv.memcpy_dtoh(back, taddr)
    np.testing.assert_array_equal(back, table)
    out = np.zeros(32, np.float32)
    mod.get_function("use_globals")(drv.Out(out), block=(32, 1, 1))
    np.testing.assert_array_equal(out, 2.5 * np.tile(table, 8).astype(np.float32))
    with pytest.raises(drv.LogicError):
        mod.get_global("no_such_variable")


def test_compile_error_then_success(drv):
    with pytest.raises(compiler.CompileError) as info:
        compiler.SourceModule(SCALE.replace("a * x[i]", "a * y[i]"), cache_dir=False)
    assert "identifier \"y\" is undefined" in info.value.log
    _run_scale(drv, compiler.SourceModule(SCALE, cache_dir=False))


@pytest.mark.parametrize("backend", ["nvrtc", "nvcc"])
def test_both_compilers_cubin(drv, context, backend):
    try:
        compiler.find_compiler(backend)
    except compiler.CompilerNotFoundError as exc:
        pytest.skip(str(exc))
    major, minor = context.get_device().compute_capability()
    image = compiler.compile(SCALE, arch="sm_%d%d" % (major, minor),
                             backend=backend, cache_dir=False)
    _run_scale(drv, drv.module_from_buffer(image))


@pytest.mark.parametrize("backend", ["nvrtc", "nvcc"])
def test_ptx_loads_unless_newer_than_driver(drv, context, backend):
    try:
        name, path = compiler.find_compiler(backend)
    except compiler.CompilerNotFoundError as exc:
        pytest.skip(str(exc))
    major, minor = context.get_device().compute_capability()
    ptx = compiler.compile(SCALE, arch="sm_%d%d" % (major, minor), target="ptx",
                           backend=backend, cache_dir=False)
    try:
        mod = drv.module_from_buffer(ptx)
    except drv.NotSupportedError as exc:
        # PTX from a compiler newer than the driver: the reason SourceModule
        # loads cubins. Only acceptable when that is the case.
        assert exc.name == "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
        if name == "nvrtc":
            from gpuarr import _nvrtc
            version = _nvrtc.load(path).version
            assert version[0] * 1000 + version[1] * 10 > drv.get_driver_version()
        pytest.skip("%s PTX is newer than the driver (%d): %s"
                    % (name, drv.get_driver_version(), exc))
    _run_scale(drv, mod)


def test_second_context_gets_its_own_module(drv, context):
    src = SCALE + "// two contexts\n"
    first = compiler.SourceModule(src, cache_dir=False)
    ctx2 = context.get_device().make_context()
    try:
        assert drv.Context.get_current() == ctx2
        second = compiler.SourceModule(src, cache_dir=False)
        assert second is not first
        assert compiler.SourceModule(src, cache_dir=False) is second
        _run_scale(drv, second)
        assert compiler.clear_memory_cache(ctx2) >= 1
        del second
    finally:
        drv.Context.pop()
        ctx2.detach()
    assert drv.Context.get_current() == context
    assert compiler.SourceModule(src, cache_dir=False) is first


_CHILD = r"""
import sys, time
seen = []
def hook(event, args):
    if event == "ctypes.dlopen" and "nvrtc" in str(args[0]):
        seen.append("dlopen " + str(args[0]))
    elif event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork"):
        seen.append(event)
sys.addaudithook(hook)
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
from gpuarr.compiler import SourceModule
src, cache = sys.argv[1], sys.argv[2]
t = time.perf_counter()
mod = SourceModule(src, cache_dir=cache)
t = time.perf_counter() - t
n = 1000
x = np.random.default_rng().standard_normal(n, dtype=np.float32)
out = np.zeros(n, np.float32)
mod.get_function("scale_add")(drv.Out(out), drv.In(x), np.float32(2), np.float32(1),
                              np.int32(n), block=(256, 1, 1), grid=(4, 1))
assert np.allclose(out, 2 * x + 1), "wrong result"
maps = open("/proc/self/maps").read()
print("RESULT", seen, "libnvrtc" in maps, "%.3f" % (t * 1e3))
"""


def test_disk_cache_in_fresh_process(drv, tmp_path):
    src = SCALE + "// disk cache test\n"
    cache = str(tmp_path / "cache")
    compiler.SourceModule(src, cache_dir=cache)  # fills the disk cache
    assert len(os.listdir(cache)) == 1
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _CHILD, src, cache], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")][-1]
    print(line)
    assert "[] False" in line  # no NVRTC loaded, no process started
    ms = float(line.split()[-1])
    assert ms < 20, "warm SourceModule took %.2f ms (goal: 5 ms)" % ms


def test_no_context_in_fresh_process():
    code = ("import gpuarr.driver as drv\n"
            "drv.init()\n"
            "from gpuarr.compiler import SourceModule\n"
            "from gpuarr._errors import InvalidContextError\n"
            "try:\n"
            "    SourceModule('__global__ void k() {}')\n"
            "except InvalidContextError as e:\n"
            "    print('OK', e)\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK") and "autoinit" in out.stdout
