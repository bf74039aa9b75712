"""CPU tests of nvcc-style sources under NVRTC: the built-in headers
(C headers, PyCUDA's, gpuarr's complex type), the toolkit/wheel header
search, the missing-header messages and the cache key's headers.

Everything compiles to PTX or a cubin with the local NVRTC; no GPU. The
GPU half (running these kernels) is tests/test_compiler_compat_gpu.py.
"""
import glob
import os
import warnings

import numpy as np
import pytest

import _compat_kernels as K
from _util import nvrtc_reason

from gpuarr import _config, _headers, _nvrtc, _toolchain, compiler
from gpuarr._errors import CompileError


NVRTC_REASON = nvrtc_reason()
pytestmark = pytest.mark.skipif(NVRTC_REASON is not None, reason=str(NVRTC_REASON))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for var in ("GPUARR_CACHE", "GPUARR_COMPILER", "GPUARR_NVRTC"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GPUARR_CACHE_DIR", str(tmp_path / "default-cache"))
    _config.reload()
    compiler._reset()
    yield
    monkeypatch.undo()
    _config.reload()
    compiler._reset()
    _headers.reset()


def ptx(src, **kw):
    kw.setdefault("arch", "sm_90")
    kw.setdefault("cache_dir", False)
    kw.setdefault("backend", "nvrtc")
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no compiler warnings either
        return compiler.compile(src, target="ptx", **kw)


def no_search(monkeypatch):
    """No toolkit, no wheels, no bundled headers: NVRTC and gpuarr's own."""
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [])
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [])
    monkeypatch.setattr(_toolchain, "bundled_includes", lambda *a, **k: ())
    _toolchain.reset()


# ------------------------------------------------------------ the C headers

@pytest.mark.parametrize("wrapped", [True, False], ids=["extern_c", "no_extern_c"])
def test_every_c_header_printf_and_typedefs(wrapped, monkeypatch):
    no_search(monkeypatch)
    src = K.HEADERS_KERNEL
    if not wrapped:
        src = src.replace("__global__ void headers", 'extern "C" __global__ void headers')
    out = ptx(src, no_extern_c=not wrapped)
    assert b".entry headers(" in out
    assert b"vprintf" in out              # printf became the device call


@pytest.mark.parametrize("name", ["stdio.h", "math.h", "stdint.h", "stddef.h",
                                  "limits.h", "float.h", "assert.h",
                                  "pycuda-complex.hpp", "pycuda-helpers.hpp",
                                  "gpuarr-complex.hpp", "gpuarr-helpers.hpp",
                                  "gpuarr/complex.hpp", "cstdio"])
def test_each_header_alone_and_twice(name, monkeypatch):
    no_search(monkeypatch)
    src = "#include <%s>\n#include <%s>\n__global__ void k(int *x) { x[0] = 1; }\n" % (name, name)
    assert b".entry k(" in ptx(src)


def test_typedefs_need_no_include(monkeypatch):
    no_search(monkeypatch)
    src = "__global__ void k(uint *a, ushort *b, ulong *c) { a[0] = b[0] + c[0]; }\n"
    assert b".entry k(" in ptx(src)
    assert _headers.PRE_INCLUDE in _headers.names()


def test_headers_shipped_as_package_data():
    import tomllib
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        data = f.read()
    patterns = tomllib.loads(data.decode())["tool"]["setuptools"]["package-data"]["gpuarr"]
    inc = _headers.INCLUDE_DIR
    shipped = set()
    for pat in patterns:
        shipped.update(glob.glob(os.path.join(os.path.dirname(inc), pat)))
    for name in _headers.names():
        path = [p for p in shipped if p.endswith(os.sep + name.replace("/", os.sep))]
        assert path, "%s is not in pyproject's package-data" % name
    assert {"stdio.h", "math.h", "stdint.h", "stddef.h", "limits.h", "float.h",
            "assert.h", "pycuda-complex.hpp", "pycuda-helpers.hpp",
            "gpuarr/complex.hpp"} <= set(_headers.names())


def test_stdint_types_match_their_limits(monkeypatch):
    no_search(monkeypatch)
    src = r"""
#include <stdint.h>
#include <limits.h>
static_assert(sizeof(int8_t) == 1 && sizeof(int16_t) == 2 && sizeof(int32_t) == 4 && sizeof(int64_t) == 8, "");
static_assert(sizeof(uint8_t) == 1 && sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4 && sizeof(uint64_t) == 8, "");
static_assert(sizeof(intptr_t) == sizeof(void *) && sizeof(size_t) == 8, "");
static_assert(INT32_MAX == INT_MAX && INT64_MAX == LLONG_MAX && UINT64_MAX == ULLONG_MAX, "");
static_assert((int8_t)INT8_MIN == -128 && (uint16_t)UINT16_MAX == 65535, "");
static_assert(sizeof(uint) == 4 && sizeof(ushort) == 2 && sizeof(ulong) == 8, "");
__global__ void k(int *x) { x[0] = 1; }
"""
    ptx(src)


def test_with_libcu_the_c_headers_defer_to_it():
    # where CCCL is on the path (NVRTC 13.3+ bundles it), <stdint.h> is
    # <cuda/std/cstdint>: including both, in either order, is fine
    lib = _nvrtc.load(_nvrtc.find_library())
    if not (lib.has_bundled_headers or any(
            os.path.isfile(os.path.join(d, "cuda", "std", "cstdint"))
            for d in _toolchain.default_includes())):
        pytest.skip("no libcu++ (CCCL) headers here")
    for first, second in (("stdint.h", "cuda/std/cstdint"), ("cuda/std/cstdint", "stdint.h")):
        src = ("#include <%s>\n#include <%s>\n#include <limits.h>\n#include <float.h>\n"
               "#include <cuda/std/climits>\n#include <cuda/std/cfloat>\n"
               'extern "C" __global__ void k(int64_t *x) { x[0] = INT64_MAX - (FLT_MAX > 1.0f); }\n'
               % (first, second))
        ptx(src, no_extern_c=True)


def test_float_h_when_cccl_cfloat_includes_float_h(tmp_path, monkeypatch):
    # CCCL 3.0 (CUDA 13.0's) has <cuda/std/cfloat> include <float.h> under
    # NVRTC rather than define the macros: with gpuarr's float.h that is a
    # cycle, and the macros must still come (seen on the H200 with NVRTC
    # 13.0 and the toolkit's CCCL)
    no_search(monkeypatch)
    std = tmp_path / "cuda" / "std"
    std.mkdir(parents=True)
    (std / "cfloat").write_text("#pragma once\n#include <float.h>\n")
    for first, second in (("float.h", "cuda/std/cfloat"), ("cuda/std/cfloat", "float.h")):
        src = ("#include <%s>\n#include <%s>\n"
               'extern "C" __global__ void k(double *x) { x[0] = FLT_MAX + DBL_EPSILON + '
               "DBL_MAX + FLT_MIN + FLT_RADIX; }\n" % (first, second))
        assert b".entry k(" in ptx(src, no_extern_c=True, include_dirs=[str(tmp_path)])


def test_user_include_dir_wins(tmp_path):
    (tmp_path / "stdint.h").write_text("#define USERS_STDINT 1\n")
    src = ("#include <stdint.h>\n#ifndef USERS_STDINT\n#error not the user's\n#endif\n"
           "__global__ void k(int *x) { x[0] = 1; }\n")
    ptx(src, include_dirs=[str(tmp_path)])
    headers, _ = _headers.for_nvrtc([str(tmp_path)])
    assert "stdint.h" not in dict(headers) and "stdio.h" in dict(headers)


# ------------------------------------------------------ the complex type

def test_every_complex_function_float_and_double(monkeypatch):
    no_search(monkeypatch)
    out = ptx(K.COMPLEX_KERNEL, no_extern_c=True)
    assert b".entry functions_f(" in out and b".entry functions_d(" in out


@pytest.mark.parametrize("header", ["pycuda-complex.hpp", "gpuarr-complex.hpp"])
@pytest.mark.parametrize("spelling", ["gpuarr::complex", "pycuda::complex", "ga_complex"])
def test_one_type_three_spellings(spelling, header, monkeypatch):
    no_search(monkeypatch)
    src = r"""
#include <%(h)s>
static_assert(sizeof(%(s)s<float>) == 8 && sizeof(%(s)s<double>) == 16, "numpy's layout");
static_assert(alignof(%(s)s<float>) == 4, "numpy's alignment");
extern "C" __global__ void k(%(s)s<double> *x, ga_complex<float> *y) {
    gpuarr::complex<double> a = x[0];
    pycuda::complex<double> b = a;
    ga_complex<double> c = b;
    x[1] = exp(c) + pycuda::exp(b) + gpuarr::exp(a) + y[0];   // float widens to double
    y[1] = pycuda::complex<float>(x[2]);                      // double narrows explicitly
    __shared__ %(s)s<double> sh[32];                          // trivial: allowed in shared memory
    sh[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = sh[31 - threadIdx.x] * 2.0f + y[1]._M_re + y[1]._M_im + x[3].re;
}
""" % {"s": spelling, "h": header}
    ptx(src, no_extern_c=True)


def test_narrowing_complex_conversion_is_explicit(monkeypatch):
    no_search(monkeypatch)
    head = ("#include <gpuarr/complex.hpp>\n"
            'extern "C" __global__ void k(gpuarr::complex<float> *y, gpuarr::complex<double> *x)')
    # assignment converts (PyCUDA's and std::complex's operator=), so does
    # an explicit construction; an implicit narrowing conversion does not
    ptx(head + " { y[0] = x[0]; y[1] = gpuarr::complex<float>(x[1]); x[2] = y[2]; }\n",
        no_extern_c=True)
    with pytest.raises(CompileError):
        ptx(head + " { gpuarr::complex<float> f = x[0]; y[0] = f; }\n", no_extern_c=True)


def test_complex_is_trivial():
    static = ("#include <gpuarr/complex.hpp>\n#include <cuda/std/type_traits>\n"
              "static_assert(cuda::std::is_trivially_copyable<gpuarr::complex<float> >::value, \"\");\n"
              "static_assert(cuda::std::is_trivially_default_constructible<gpuarr::complex<double> >"
              "::value, \"\");\n")
    lib = _nvrtc.load(_nvrtc.find_library())
    if not lib.has_bundled_headers and not any(
            os.path.isdir(os.path.join(d, "cuda", "std")) for d in _toolchain.default_includes()):
        pytest.skip("no libcu++ here for <cuda/std/type_traits>")
    ptx(static, no_extern_c=True)


@pytest.mark.parametrize("ctype", ["complex<double>", "pycuda::complex<double>",
                                   "complex<float>", "pycuda::complex<float>"])
def test_elementwise_kernel_complex_exp_compiles(ctype):
    from gpuarr.elementwise import ElementwiseKernel
    k = ElementwiseKernel("%s *x" % ctype, "x[i] = exp(x[i])", "cexp")
    ptx(k.get_source(), no_extern_c=True)
    k = ElementwiseKernel("%s *x, %s *y, double r" % (ctype, ctype),
                          "y[i] = pow(x[i], r) + sqrt(x[i]) * 2.0 + log10(x[i]) / abs(x[i])"
                          " + conj(x[i]) * real(x[i]) + arg(x[i]) + norm(x[i])", "cmix")
    ptx(k.get_source(), no_extern_c=True)


def test_elementwise_kernel_preamble_may_include_pycuda_complex():
    from gpuarr.elementwise import ElementwiseKernel
    k = ElementwiseKernel("pycuda::complex<float> *x", "x[i] = twice(x[i])", "tw",
                          preamble="#include <pycuda-complex.hpp>\n"
                                   "__device__ pycuda::complex<float> twice(pycuda::complex<float> z)"
                                   " { return z * 2; }\n")
    ptx(k.get_source(), no_extern_c=True)


def test_reduction_kernel_complex_compiles():
    from gpuarr.reduction import ReductionKernel
    k = ReductionKernel(np.complex128, "0", "a + b", "exp(x[i]) * conj(x[i])",
                        "pycuda::complex<double> *x")
    src = k.get_source() if hasattr(k, "get_source") else None
    if src is None:
        pytest.skip("ReductionKernel exposes no source here")
    ptx(src, no_extern_c=True)


def test_pycuda_helpers_on_texture_objects(monkeypatch):
    no_search(monkeypatch)
    src = r"""
#include <pycuda-helpers.hpp>
extern "C" __global__ void k(cudaTextureObject_t t, cudaSurfaceObject_t s, double *d,
                             pycuda::complex<float> *cf, pycuda::complex<double> *cd, float *f)
{
    d[0] = fp_tex1Dfetch<double>(t, 0) + fp_tex2D<double>(t, 0.5f, 0.5f)
         + fp_tex2DLayered<double>(t, 0, 0, 1) + fp_tex3D<double>(t, 0, 0, 0);
    cf[0] = fp_tex1Dfetch<pycuda::complex<float> >(t, 1);
    cd[0] = fp_tex1Dfetch<pycuda::complex<double> >(t, 2);
    f[0] = fp_tex1Dfetch<float>(t, 3);
    fp_surf2DLayeredwrite(d[1], s, 0, 0, 0, cudaBoundaryModeTrap);
    fp_surf3Dwrite(cd[1], s, 1, 0, 0, cudaBoundaryModeZero);
    fp_surf2DLayeredread(&cf[1], s, 0, 0, 0, cudaBoundaryModeClamp);
    fp_surf3Dread(&f[1], s, 0, 0, 0, cudaBoundaryModeTrap);
    fp_tex_double x = make_int2(1, 2); fp_tex_cfloat y = make_uint2(1, 2);
    fp_tex_cdouble z = make_int4(1, 2, 3, 4); fp_tex_float w = 1;
    f[2] = x.x + y.x + z.x + w;
}
"""
    ptx(src, no_extern_c=True)


# --------------------------------------------- toolkit and wheel headers

def test_wheel_include_layouts(monkeypatch, tmp_path):
    site = tmp_path / "nvidia"
    for parts in (("cu13", "include", "cccl"), ("curand", "include"),
                  ("cuda_runtime", "include")):
        (site.joinpath(*parts)).mkdir(parents=True)
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [])
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [str(site)])
    _toolchain.reset()
    assert _toolchain.default_includes() == (
        str(site / "cu13" / "include"), str(site / "cu13" / "include" / "cccl"),
        str(site / "cuda_runtime" / "include"), str(site / "curand" / "include"))


def test_toolkit_include_then_wheels(monkeypatch, tmp_path):
    tk = tmp_path / "cuda"
    (tk / "include" / "cccl").mkdir(parents=True)
    (tk / "include" / "cuda_runtime.h").write_text("")
    site = tmp_path / "nvidia"
    (site / "cu13" / "include").mkdir(parents=True)
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [str(tk)])
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [str(site)])
    _toolchain.reset()
    assert _toolchain.default_includes() == (
        str(tk / "include"), str(tk / "include" / "cccl"), str(site / "cu13" / "include"))


def _curand_dir():
    for d in _toolchain.default_includes():
        if os.path.isfile(os.path.join(d, "curand_kernel.h")):
            return d
    for pattern in ("/tmp/venv-*/lib/python3*/site-packages/nvidia/cu13/include",):
        for d in glob.glob(pattern):
            if os.path.isfile(os.path.join(d, "curand_kernel.h")):
                return d
    return None


def test_curand_kernel_from_the_wheel_layout(monkeypatch):
    d = _curand_dir()
    if d is None:
        pytest.skip("no curand_kernel.h here (pip install nvidia-curand)")
    site = os.path.dirname(os.path.dirname(d))          # .../nvidia
    lib = _nvrtc.load(_nvrtc.find_library())
    if not (lib.has_bundled_headers or glob.glob(
            os.path.join(site, "*", "include", "cuda", "std"))):
        # curand_kernel.h includes CCCL's headers (nv/target, cuda/std)
        pytest.skip("no CCCL among the wheels and NVRTC %d.%d bundles none "
                    "(pip install nvidia-cuda-cccl, or NVRTC 13.3+)" % lib.version)
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [])
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [site])
    _toolchain.reset()
    src = r"""
#include <curand_kernel.h>
extern "C" __global__ void k(float *out, unsigned long long seed)
{
    curandStatePhilox4_32_10_t s;
    curand_init(seed, threadIdx.x, 0, &s);
    out[threadIdx.x] = curand_uniform(&s);
    curandStateXORWOW_t x;
    curand_init(seed, threadIdx.x, 0, &x);
    out[threadIdx.x] += curand_normal(&x);
}
"""
    assert b".entry k(" in ptx(src, no_extern_c=True)


def test_bundled_headers_need_no_toolkit(monkeypatch):
    lib = _nvrtc.load(_nvrtc.find_library())
    if not lib.has_bundled_headers:
        pytest.skip("NVRTC %d.%d bundles no headers (13.3+ does)" % lib.version)
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [])
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [])
    _toolchain.reset()
    src = r"""
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cuda/std/complex>
#include <cub/block/block_reduce.cuh>
extern "C" __global__ void k(__half *h, float *x)
{
    namespace cg = cooperative_groups;
    cg::thread_block b = cg::this_thread_block();
    typedef cub::BlockReduce<float, 128> R;
    __shared__ typename R::TempStorage tmp;
    float s = R(tmp).Sum(x[b.thread_rank()]);
    h[0] = __float2half(s + cuda::std::abs(cuda::std::complex<float>(x[0], x[1])));
}
"""
    assert b".entry k(" in ptx(src, no_extern_c=True)
    # extracted outside the (disabled) kernel cache
    assert not os.path.exists(os.path.join(_config.settings.cache_dir, "kernels"))


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("header, package", [
    ("curand_kernel.h", "nvidia-curand"), ("curand.h", "nvidia-curand"),
    ("cuda_fp16.h", "nvidia-cuda-runtime"), ("cooperative_groups.h", "nvidia-cuda-runtime"),
    ("cooperative_groups/reduce.h", "nvidia-cuda-runtime"),
    ("cub/block/block_reduce.cuh", "nvidia-cuda-cccl"), ("thrust/complex.h", "nvidia-cuda-cccl"),
    ("cuda/std/complex", "nvidia-cuda-cccl"), ("cufft.h", "nvidia-cufft")])
def test_missing_header_names_its_package(header, package, monkeypatch):
    no_search(monkeypatch)
    assert _toolchain.header_package(header) == package
    src = "#include <%s>\n__global__ void k(int *x) { x[0] = 1; }\n" % header
    with pytest.raises(CompileError) as info:
        ptx(src, no_extern_c=True)
    msg = str(info.value)
    assert "`pip install %s`" % package in msg
    assert "<%s>" % header in msg


def test_missing_unknown_header_lists_the_search_path(monkeypatch, tmp_path):
    no_search(monkeypatch)
    src = "#include <no_such_header_here.h>\n__global__ void k(int *x) { x[0] = 1; }\n"
    with pytest.raises(CompileError) as info:
        ptx(src, include_dirs=[str(tmp_path)])
    msg = str(info.value)
    assert "<no_such_header_here.h> was not found in: %s" % tmp_path in msg


def test_missing_cxx_standard_header_points_to_cccl(monkeypatch):
    no_search(monkeypatch)
    with pytest.raises(CompileError, match=r"<cuda/std/complex>"):
        ptx("#include <complex>\n__global__ void k(int *x) { x[0] = 1; }\n",
            no_extern_c=True)


def test_nvrtc_failure_mentions_nvcc_when_installed(monkeypatch):
    no_search(monkeypatch)
    fake = "/opt/fake/bin/nvcc"
    monkeypatch.setattr(_toolchain, "which", lambda name: fake if name == "nvcc" else None)
    with pytest.raises(CompileError) as info:
        ptx("__global__ void k(int *x) { x[0] = nope; }\n")
    msg = str(info.value)
    assert "nvcc is installed (%s)" % fake in msg and "GPUARR_COMPILER=nvcc" in msg
    monkeypatch.setattr(_toolchain, "which", lambda name: None)
    with pytest.raises(CompileError) as info:
        ptx("__global__ void k(int *x) { x[0] = nope; }\n")
    assert "GPUARR_COMPILER=nvcc" not in str(info.value)


def test_cxx_inside_extern_c_says_no_extern_c(monkeypatch):
    no_search(monkeypatch)
    src = "template <class T> __device__ T twice(T x) { return 2 * x; }\n" \
          "__global__ void k(int *x) { x[0] = twice(x[0]); }\n"
    with pytest.raises(CompileError, match="no_extern_c=True"):
        ptx(src)


# ---------------------------------------------------------- cache keys

def test_cache_key_covers_the_builtin_headers(monkeypatch, tmp_path):
    calls = []
    real = compiler._run_nvrtc

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(compiler, "_run_nvrtc", counting)
    src = "#include <math.h>\n__global__ void k(double *x) { x[0] = M_PI; }\n"
    cache = tmp_path / "cache"
    a = compiler.compile(src, arch="sm_90", cache_dir=cache, backend="nvrtc")
    compiler.compile(src, arch="sm_90", cache_dir=cache, backend="nvrtc")
    assert len(calls) == 1                                   # a hit
    # a changed built-in header must not hit the old entry
    _headers.reset()
    text = _headers.text("math.h").replace("3.14159265358979323846", "3.0")
    monkeypatch.setitem(_headers._memo, ("text", "math.h"), text)
    b = compiler.compile(src, arch="sm_90", cache_dir=cache, backend="nvrtc")
    assert len(calls) == 2 and a != b
    _headers.reset()
    c = compiler.compile(src, arch="sm_90", cache_dir=cache, backend="nvrtc")
    assert len(calls) == 2 and c == a                        # the old entry again


def test_headers_digest_changes_with_contents():
    h1, d1 = _headers.for_nvrtc(())
    names = dict(h1)
    assert set(names) == set(_headers.names())
    changed = tuple((n, c + b" ") if n == "stdio.h" else (n, c) for n, c in h1)
    assert _headers.digest(changed) != d1 == _headers.digest(h1)


def test_cstdio_printf_in_both_namespaces(monkeypatch):
    no_search(monkeypatch)
    src = ("#include <cstdio>\n"
           "__global__ void k(int v) { printf(\"%d\\n\", v); std::printf(\"%d\\n\", v + 1); }\n")
    out = ptx(src)
    assert b".entry k(" in out and out.count(b"vprintf") >= 3   # the declaration, two calls
