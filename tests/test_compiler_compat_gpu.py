"""nvcc-style kernels under NVRTC on a GPU: the built-in C headers and
printf (its output read from a child process), every complex function
against numpy for complex64 and complex128, ElementwiseKernel and
ReductionKernel over complex values. The CPU half is
tests/test_compiler_compat.py (same sources, compiled only)."""
import subprocess
import sys

import numpy as np
import pytest

import _compat_kernels as K
from _util import CHILD_CWD, child_env

from gpuarr import compiler

pytestmark = pytest.mark.gpu


def test_headers_kernel_runs(drv):
    mod = compiler.SourceModule(K.HEADERS_KERNEL, cache_dir=False)
    rng = np.random.default_rng()
    n = 1001
    a, b, c = (int(v) for v in rng.integers(1, 1000, 3))
    out = np.full(n, np.nan)
    mod.get_function("headers")(drv.Out(out), np.uint32(a), np.uint16(b), np.uint64(c),
                                np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))
    np.testing.assert_array_equal(out, K.headers_expected(n, a, b, c))


_PRINTF_CHILD = r"""
import sys
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
from gpuarr.compiler import SourceModule
mod = SourceModule(sys.argv[1], cache_dir=False)
f = mod.get_function("say")
f(np.int32(int(sys.argv[2])), block=(4, 1, 1), grid=(2, 1))
drv.Context.synchronize()
sys.stdout.flush()
print("DONE")
"""

_PRINTF_SOURCE = r"""
#include <stdio.h>
__global__ void say(int tag)
{
    printf("hello from block %d thread %d tag %d pi %.2f\n",
           blockIdx.x, threadIdx.x, tag, 3.14159);
}
"""


def test_printf_output_reaches_stdout():
    tag = int(np.random.default_rng().integers(1, 1 << 30))
    out = subprocess.run([sys.executable, "-c", _PRINTF_CHILD, _PRINTF_SOURCE, str(tag)],
                         env=child_env(), cwd=CHILD_CWD, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == "DONE"
    said = sorted(ln for ln in lines if ln.startswith("hello"))
    want = sorted("hello from block %d thread %d tag %d pi 3.14" % (b, t, tag)
                  for b in range(2) for t in range(4))
    assert said == want


@pytest.mark.parametrize("real", [np.float32, np.float64], ids=["complex64", "complex128"])
def test_complex_functions_match_numpy(drv, real):
    mod = compiler.SourceModule(K.COMPLEX_KERNEL, no_extern_c=True, cache_dir=False)
    f = mod.get_function("functions_f" if real == np.float32 else "functions_d")
    rng = np.random.default_rng()
    n = 1013
    z, w, r = K.function_inputs(rng, n, real)
    out = np.full(len(K.FUNCTIONS) * n, np.nan + 1j * np.nan, dtype=z.dtype)
    f(drv.Out(out), drv.In(z), drv.In(w), drv.In(r), np.int32(n),
      block=(128, 1, 1), grid=((n + 127) // 128, 1))
    bad = K.check_functions(out, z, w, r)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("ctype, dtype", [("complex<double>", np.complex128),
                                          ("pycuda::complex<double>", np.complex128),
                                          ("pycuda::complex<float>", np.complex64)])
def test_elementwise_complex_exp(context, ctype, dtype):
    from gpuarr import gpuarray
    from gpuarr.elementwise import ElementwiseKernel
    rng = np.random.default_rng()
    n = 2049
    x = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(dtype)
    k = ElementwiseKernel("%s *x" % ctype, "x[i] = exp(x[i])", "cexp_inplace")
    xg = gpuarray.to_gpu(x)
    k(xg)
    tol = 4 * np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    ref = np.exp(x.astype(np.complex128))
    np.testing.assert_array_less(np.abs(xg.get() - ref) / np.maximum(np.abs(ref), 0.25), tol)
    # into a poisoned output, with PyCUDA's complex functions mixed in
    k2 = ElementwiseKernel("%s *x, %s *y, double r" % (ctype, ctype),
                           "y[i] = pow(x[i], r) * conj(x[i]) + sqrt(x[i]) * 2.0 + abs(x[i])",
                           "cmix")
    y = gpuarray.to_gpu(np.full(n, np.nan, dtype))
    xg = gpuarray.to_gpu(x)
    r = float(rng.uniform(0.5, 2.5))
    k2(xg, y, r)
    x2 = x.astype(np.complex128)
    ref = x2 ** r * np.conj(x2) + np.sqrt(x2) * 2 + np.abs(x2)
    tol = 64 * np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    got = y.get()
    assert np.isfinite(got).all()
    np.testing.assert_array_less(np.abs(got - ref) / np.maximum(np.abs(ref), 1), tol)


def test_reduction_complex_map_exp(context):
    from gpuarr import gpuarray
    from gpuarr.reduction import ReductionKernel
    rng = np.random.default_rng()
    n = 5001
    x = rng.uniform(-2, 2, n) + 1j * rng.uniform(-2, 2, n)
    k = ReductionKernel(np.complex128, "0", "a + b", "exp(x[i]) * conj(x[i])",
                        "pycuda::complex<double> *x")
    got = k(gpuarray.to_gpu(x)).get()
    ref = (np.exp(x) * np.conj(x)).sum()
    assert abs(got - ref) <= 1e-12 * np.abs(np.exp(x) * x).sum()


# ------------------------------------------------- linking, dynamic parallelism

PARENT_CHILD = r"""
__global__ void child(int *out, int base)
{
    out[base + threadIdx.x] = 3 * (base + threadIdx.x) + 1;
}

__global__ void parent(int *out, int n)
{
    if (threadIdx.x == 0)
        child<<<1, n>>>(out, blockIdx.x * n);
}
"""

TWICE = r"""
__device__ int twice(int x) { return 2 * x + 1; }
"""

USES_TWICE = r"""
__device__ int twice(int x);
__global__ void use_twice(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(i);
}
"""


def _expected_linker(linker):
    """Who should link under ``linker``, from what is installed: "auto" is
    nvJitLink when it loads and the compiler is an NVRTC no newer than it
    (nvcc's version is not known without running it: the driver)."""
    from gpuarr import _nvjitlink, _nvrtc
    if linker != "auto":
        return linker
    jit = _nvjitlink.load()
    if jit is None:
        return "driver"
    name, path = compiler.find_compiler()
    if name != "nvrtc" or _nvrtc.load(path).version > jit.version:
        return "driver"
    return "nvjitlink"


def _linking(make, linker="auto"):
    """Run ``make()`` and check who linked; where the driver's linker was
    used and the compiler is newer than the driver (that linker refuses
    newer relocatable code), a failure is expected, with the reason."""
    import gpuarr.driver as drv
    from gpuarr import _nvrtc
    expected = _expected_linker(linker)
    try:
        mod = make()
    except drv.Error as exc:
        name, path = compiler.find_compiler()
        if name == "nvrtc" and expected == "driver":
            major, minor = _nvrtc.load(path).version
            if major * 1000 + minor * 10 > drv.get_driver_version():
                pytest.xfail("NVRTC %d.%d is newer than the driver (%d): its linker "
                             "refuses the code (%s)" % (major, minor,
                                                         drv.get_driver_version(), exc))
        raise
    assert mod.linked_by == expected, (linker, mod.linked_by, expected)
    return mod


@pytest.mark.parametrize("linker", ["auto", "driver", "nvjitlink"])
def test_dynamic_source_module_parent_launches_child(drv, linker):
    from gpuarr import _nvjitlink
    if linker == "nvjitlink" and _nvjitlink.load() is None:
        pytest.skip("nvJitLink not usable: %s" % _nvjitlink.load_error())
    mod = _linking(lambda: compiler.DynamicSourceModule(PARENT_CHILD, cache_dir=False,
                                                        linker=linker), linker)
    nb, n = 37, 29
    out = np.full(nb * n, -1, np.int32)
    mod.get_function("parent")(drv.InOut(out), np.int32(n), block=(32, 1, 1), grid=(nb, 1))
    np.testing.assert_array_equal(out, 3 * np.arange(nb * n, dtype=np.int32) + 1)


def test_dynamic_module_links_two_sources(drv):
    def make():
        return (compiler.DynamicModule(cache_dir=False)
                .add_source(TWICE, name="twice.cubin")
                .add_source(USES_TWICE, name="use.cubin")
                .link())
    mod = _linking(make)
    n = 1001
    out = np.full(n, -1, np.int32)
    mod.get_function("use_twice")(drv.InOut(out), np.int32(n), block=(128, 1, 1),
                                  grid=((n + 127) // 128, 1))
    np.testing.assert_array_equal(out, 2 * np.arange(n, dtype=np.int32) + 1)


@pytest.mark.parametrize("linker", ["auto", "driver", "nvjitlink"])
def test_dynamic_module_link_options_reach_the_linker(drv, linker):
    """MAX_REGISTERS, line info and a verbose log are accepted by either
    linker (nvJitLink gets -maxrregcount/-lineinfo/-verbose; before, they
    were dropped there), the handler hears of the success, and it runs."""
    from gpuarr import _nvjitlink
    if linker == "nvjitlink" and _nvjitlink.load() is None:
        pytest.skip("nvJitLink not usable: %s" % _nvjitlink.load_error())
    seen = []
    opts = [(drv.jit_option.MAX_REGISTERS, 32),
            (drv.jit_option.GENERATE_LINE_INFO, 1)]

    def make():
        return (compiler.DynamicModule(cache_dir=False, link_options=opts,
                                       log_verbose=True, linker=linker,
                                       message_handler=lambda ok, info, err:
                                       seen.append((ok, info)))
                .add_source(TWICE, name="twice.cubin")
                .add_source(USES_TWICE, name="use.cubin")
                .link())
    mod = _linking(make, linker)
    assert [ok for ok, _ in seen] == [True]
    f = mod.get_function("use_twice")
    n = 1001
    out = np.full(n, -1, np.int32)
    f(drv.InOut(out), np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))
    np.testing.assert_array_equal(out, 2 * np.arange(n, dtype=np.int32) + 1)
