"""CPU tests of gpuarr.compiler, gpuarr._nvrtc, gpuarr._cache, gpuarr._config.

No GPU or driver is needed: compile() takes an explicit arch, and
SourceModule runs against a fake driver module. The NVRTC tests need the
nvidia-cuda-nvrtc wheel (or a CUDA toolkit), the nvcc tests need nvcc; each
is skipped, with the reason, only when that compiler cannot be found.
"""
import os
import subprocess
import sys
import threading
import time

import pytest

from _util import CHILD_CWD, child_env, nvrtc_reason

from gpuarr import _cache, _config, _nvrtc, _toolchain, compiler
from gpuarr._errors import CompileError, Error, InvalidContextError

KERNEL = """
__global__ void scale(float *a, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] *= s;
}
"""

BROKEN = """__global__ void broken(float *a)
{
    a[0] = 1;
    a[1] = undefined_thing;
    a[2] = 3;
}
"""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No user GPUARR_* settings leak in; the default cache is a temp dir."""
    for var in ("GPUARR_CACHE", "GPUARR_COMPILER", "GPUARR_NVRTC"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GPUARR_CACHE_DIR", str(tmp_path / "default-cache"))
    _config.reload()
    compiler._reset()
    compiler.clear_memory_cache()
    yield
    monkeypatch.undo()
    _config.reload()
    compiler._reset()
    compiler.clear_memory_cache()


def _nvcc_reason():
    return None if _toolchain.which("nvcc") else "nvcc not found"


NVRTC_REASON = nvrtc_reason()
NVCC_REASON = _nvcc_reason()
needs_nvrtc = pytest.mark.skipif(NVRTC_REASON is not None, reason=str(NVRTC_REASON))
needs_nvcc = pytest.mark.skipif(NVCC_REASON is not None, reason=str(NVCC_REASON))
BACKENDS = [pytest.param("nvrtc", marks=needs_nvrtc),
            pytest.param("nvcc", marks=needs_nvcc)]


@pytest.fixture
def cache(tmp_path):
    d = tmp_path / "cache"
    return str(d)


def entries(directory):
    try:
        return sorted(n for n in os.listdir(directory) if not n.endswith(".tmp"))
    except FileNotFoundError:
        return []


class Counter:
    """Wraps the compile step of both backends, counting calls."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real_nvrtc, real_nvcc = compiler._run_nvrtc, _toolchain.run_nvcc

        def nvrtc(*a, **k):
            self.calls += 1
            return real_nvrtc(*a, **k)

        def nvcc(*a, **k):
            self.calls += 1
            return real_nvcc(*a, **k)

        monkeypatch.setattr(compiler, "_run_nvrtc", nvrtc)
        monkeypatch.setattr(_toolchain, "run_nvcc", nvcc)


# ---------------------------------------------------------------- compile()

@pytest.mark.parametrize("backend", BACKENDS)
def test_cubin_is_elf(backend, cache):
    image = compiler.compile(KERNEL, arch="sm_90", backend=backend, cache_dir=cache)
    assert isinstance(image, bytes)
    assert image[:4] == b"\x7fELF"
    assert b"scale" in image  # extern "C": the plain name is in the symbol table


@pytest.mark.parametrize("backend", BACKENDS)
def test_ptx(backend, cache):
    ptx = compiler.compile(KERNEL, arch="sm_80", target="ptx", backend=backend,
                           cache_dir=cache)
    text = ptx.decode("ascii")
    assert ".entry scale(" in text
    assert ".target sm_80" in text
    assert not ptx.endswith(b"\x00")


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_extern_c_mangles(backend):
    src = "__global__ void k(float *a) { a[0] = 1; }"
    ptx = compiler.compile(src, arch="sm_90", target="ptx", backend=backend,
                           no_extern_c=True, cache_dir=False)
    assert b".entry _Z1kPf(" in ptx
    ptx = compiler.compile(src, arch="sm_90", target="ptx", backend=backend,
                           cache_dir=False)
    assert b".entry k(" in ptx


@pytest.mark.parametrize("backend", BACKENDS)
def test_options_and_include_dirs(backend, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "gpuarr_test.h").write_text("#define SCALE 3.0f\n")
    src = ('#include "gpuarr_test.h"\n'
           "#ifndef EXTRA\n#error EXTRA is not defined\n#endif\n"
           "__global__ void k(float *a) { a[0] = SCALE + EXTRA; }\n")
    with pytest.raises(CompileError):
        compiler.compile(src, arch="sm_90", backend=backend, cache_dir=False,
                         include_dirs=[str(tmp_path / "inc")])
    image = compiler.compile(src, arch="sm_90", backend=backend, cache_dir=False,
                             options=["-DEXTRA=1.0f", "-O3"],
                             include_dirs=[tmp_path / "inc"])
    assert image[:4] == b"\x7fELF"


@pytest.mark.parametrize("backend", BACKENDS)
def test_arch_forms_agree(backend, cache):
    a = compiler.compile(KERNEL, arch="sm_80", target="ptx", backend=backend,
                         cache_dir=False)
    b = compiler.compile(KERNEL, arch=(8, 0), target="ptx", backend=backend,
                         cache_dir=False)
    c = compiler.compile(KERNEL, options=["-arch=sm_80"], target="ptx",
                         backend=backend, cache_dir=False)
    d = compiler.compile(KERNEL, options=["-arch", "sm_80"], target="ptx",
                         backend=backend, cache_dir=False)
    assert a == b == c == d
    assert b".target sm_80" in a


@needs_nvrtc
def test_cuda_headers_found():
    if not _toolchain.default_includes():
        pytest.skip("no CUDA toolkit include directory here")
    # C++ headers cannot sit inside extern "C" { }: as with PyCUDA, use
    # no_extern_c and declare the kernels extern "C" by hand.
    src = ("#include <cuda_fp16.h>\n"
           'extern "C" __global__ void h(__half *a) { a[0] = __float2half(1.0f); }\n')
    ptx = compiler.compile(src, arch="sm_90", backend="nvrtc", target="ptx",
                           no_extern_c=True, cache_dir=False)
    assert b".entry h(" in ptx


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("backend", BACKENDS)
def test_compile_error(backend):
    with pytest.raises(CompileError) as info:
        compiler.compile(BROKEN, arch="sm_90", backend=backend, cache_dir=False)
    err = info.value
    assert "undefined_thing" in err.log
    assert "kernel.cu(4)" in err.log  # numbered as in the user's source
    msg = str(err)
    assert "undefined_thing" in msg
    assert ">" in msg and "4 |     a[1] = undefined_thing;" in msg
    assert "3 |     a[0] = 1;" in msg  # context around the error
    assert BROKEN in err.source
    assert isinstance(err, Error)
    if backend == "nvcc":
        assert err.command_line[0].endswith("nvcc")
        assert "--cubin" in err.command_line
    else:
        assert err.command_line is None
        assert "NVRTC" in msg


@pytest.mark.parametrize("backend", BACKENDS)
def test_compile_error_no_extern_c_line_numbers(backend):
    with pytest.raises(CompileError) as info:
        compiler.compile(BROKEN, arch="sm_90", backend=backend, cache_dir=False,
                         no_extern_c=True)
    assert "kernel.cu(4)" in info.value.log


@needs_nvrtc
def test_bad_option_is_compile_error():
    with pytest.raises(CompileError) as info:
        compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=False,
                         options=["--no-such-option"])
    assert "no-such-option" in str(info.value)


@needs_nvrtc
def test_warning_is_reported():
    src = "__global__ void w(float *a) { int unused; a[0] = 1; }"
    with pytest.warns(compiler.CompilerWarning, match="unused"):
        compiler.compile(src, arch="sm_90", backend="nvrtc", cache_dir=False)


def test_compile_error_pickles():
    import pickle
    err = CompileError("boom", log="the log", source="src", command_line=["nvcc"])
    back = pickle.loads(pickle.dumps(err))
    assert (back.log, back.source, back.command_line, str(back)) == \
        ("the log", "src", ["nvcc"], "boom")


def test_listing_marks_and_elides():
    src = "\n".join("line %d" % i for i in range(1, 31))
    text = _toolchain.listing(src, {5, 25})
    assert ">  5 | line 5" in text and ">  25 | line 25" not in text
    assert "> 25 | line 25" in text
    assert "line 3" in text and "line 7" in text and "line 15" not in text
    assert "..." in text


# --------------------------------------------------------- bad arguments

@pytest.mark.parametrize("kwargs, exc", [
    (dict(source=3), TypeError),
    (dict(options="-use_fast_math"), TypeError),
    (dict(options=[1]), TypeError),
    (dict(arch="sm90"), ValueError),
    (dict(arch="90"), ValueError),
    (dict(arch=90), TypeError),
    (dict(arch=(9, 0, 1)), ValueError),
    (dict(target="fatbin"), ValueError),
    (dict(backend="clang"), ValueError),
    (dict(include_dirs="/usr/include"), TypeError),
    (dict(cache_dir=3.5), TypeError),
    (dict(options=["-arch=sm_80"], arch="sm_90"), ValueError),
    (dict(options=["-arch"]), ValueError),
])
def test_bad_arguments(kwargs, exc):
    args = dict(source=KERNEL, arch="sm_90", cache_dir=False)
    args.update(kwargs)
    with pytest.raises(exc):
        compiler.compile(**args)


def test_no_arch_without_context(monkeypatch):
    def no_driver():
        raise ImportError("gpuarr._driver is not built")
    monkeypatch.setattr(compiler, "_driver", no_driver)
    monkeypatch.setattr(compiler, "_drv", None)
    with pytest.raises(ValueError, match="arch="):
        compiler.compile(KERNEL)


def test_no_arch_with_no_current_context(monkeypatch):
    fake = FakeDriver(current=None)
    monkeypatch.setattr(compiler, "_drv", fake)
    with pytest.raises(ValueError, match="arch="):
        compiler.compile(KERNEL)


def test_bad_compiler_setting(monkeypatch):
    monkeypatch.setenv("GPUARR_COMPILER", "gcc")
    _config.reload()
    with pytest.raises(ValueError, match="GPUARR_COMPILER"):
        compiler.compile(KERNEL, arch="sm_90", cache_dir=False)


# ------------------------------------------------------- compiler lookup

def test_nvrtc_missing_falls_back_to_nvcc(monkeypatch):
    monkeypatch.setattr(_nvrtc, "find_library", lambda max_major=None: None)
    if NVCC_REASON:
        with pytest.raises(compiler.CompilerNotFoundError):
            compiler.find_compiler()
    else:
        assert compiler.find_compiler()[0] == "nvcc"


def test_nothing_found_says_what_to_install(monkeypatch):
    monkeypatch.setattr(_nvrtc, "find_library", lambda max_major=None: None)
    monkeypatch.setattr(_toolchain, "which", lambda name: None)
    with pytest.raises(compiler.CompilerNotFoundError) as info:
        compiler.compile(KERNEL, arch="sm_90", cache_dir=False)
    msg = str(info.value)
    assert "pip install nvidia-cuda-nvrtc" in msg and "CUDA toolkit" in msg
    assert isinstance(info.value, RuntimeError)


def test_forced_nvrtc_missing(monkeypatch):
    monkeypatch.setattr(_nvrtc, "find_library", lambda max_major=None: None)
    with pytest.raises(compiler.CompilerNotFoundError, match="pip install"):
        compiler.compile(KERNEL, arch="sm_90", cache_dir=False, backend="nvrtc")
    monkeypatch.setenv("GPUARR_COMPILER", "nvrtc")
    _config.reload()
    with pytest.raises(compiler.CompilerNotFoundError, match="NVRTC"):
        compiler.compile(KERNEL, arch="sm_90", cache_dir=False)


def test_forced_nvcc_missing():
    with pytest.raises(compiler.CompilerNotFoundError, match="no-such-nvcc"):
        compiler.compile(KERNEL, arch="sm_90", cache_dir=False, backend="nvcc",
                         nvcc="no-such-nvcc")


def test_gpuarr_nvrtc_missing_file(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUARR_NVRTC", str(tmp_path / "libnvrtc.so.13"))
    _config.reload()
    with pytest.raises(compiler.CompilerNotFoundError, match="GPUARR_NVRTC"):
        compiler.find_compiler()


def test_gpuarr_nvrtc_unloadable(monkeypatch, tmp_path):
    bogus = tmp_path / "libnvrtc.so.13"
    bogus.write_bytes(b"not a shared library")
    monkeypatch.setenv("GPUARR_NVRTC", str(bogus))
    _config.reload()
    assert compiler.find_compiler() == ("nvrtc", str(bogus))
    with pytest.raises(compiler.CompilerNotFoundError, match="cannot load"):
        compiler.compile(KERNEL, arch="sm_90", cache_dir=False, backend="nvrtc")
    if not NVCC_REASON:  # automatic choice: fall back to nvcc
        image = compiler.compile(KERNEL, arch="sm_90", cache_dir=False)
        assert image[:4] == b"\x7fELF"


def test_search_order_and_major_filter(monkeypatch, tmp_path):
    wheel = tmp_path / "site" / "nvidia"
    (wheel / "cu13" / "lib").mkdir(parents=True)
    (wheel / "cuda_nvrtc" / "lib").mkdir(parents=True)
    (wheel / "cu13" / "lib" / "libnvrtc.so.13").write_bytes(b"13")
    (wheel / "cuda_nvrtc" / "lib" / "libnvrtc.so.12").write_bytes(b"12")
    toolkit = tmp_path / "cuda"
    (toolkit / "lib64").mkdir(parents=True)
    (toolkit / "lib64" / "libnvrtc.so.13").write_bytes(b"tk")
    monkeypatch.setattr(_nvrtc, "nvidia_dirs", lambda: [str(wheel)])
    monkeypatch.setenv("CUDA_PATH", str(toolkit))
    cands = _nvrtc.candidates()
    assert cands.index(str(wheel / "cu13" / "lib" / "libnvrtc.so.13")) < \
        cands.index(str(wheel / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")) < \
        cands.index(str(toolkit / "lib64" / "libnvrtc.so.13")) < \
        cands.index("/usr/local/cuda/lib64/libnvrtc.so.13")
    assert _nvrtc.find_library() == str(wheel / "cu13" / "lib" / "libnvrtc.so.13")
    assert _nvrtc.find_library(max_major=12) == \
        str(wheel / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    assert _nvrtc.find_library(max_major=13) == \
        str(wheel / "cu13" / "lib" / "libnvrtc.so.13")


def test_gpuarr_nvrtc_comes_first(monkeypatch, tmp_path):
    lib = tmp_path / "libnvrtc.so.13"
    lib.write_bytes(b"x")
    monkeypatch.setenv("GPUARR_NVRTC", str(lib))
    _config.reload()
    assert _nvrtc.candidates() == [str(lib)]
    assert _nvrtc.find_library() == str(lib)


@needs_nvrtc
def test_preload():
    code = ("from gpuarr import _nvrtc\n"
            "t = _nvrtc.preload()\n"
            "t.join()\n"
            "print(bool(_nvrtc._loaded), _nvrtc.preload())\n")
    assert _fresh(code).splitlines()[-1] == "True None"


def test_preload_skipped_for_nvcc(monkeypatch):
    monkeypatch.setenv("GPUARR_COMPILER", "nvcc")
    _config.reload()
    assert _nvrtc.preload() is None


def test_identity_follows_stat(tmp_path):
    lib = tmp_path / "libnvrtc.so.13"
    lib.write_bytes(b"x" * 10)
    first = _nvrtc.identity(str(lib))
    os.utime(lib, ns=(1, 2))
    second = _nvrtc.identity(str(lib))
    assert first != second and second[2:] == (10, 2)


def test_nvcc_wrapper_identity_names_target(tmp_path):
    real = tmp_path / "real-nvcc"
    real.write_bytes(b"\x7fELF fake")
    wrapper = tmp_path / "nvcc"
    wrapper.write_text('#!/bin/sh\nexec %s "$@"\n' % real)
    ident = _toolchain.nvcc_identity(str(wrapper))
    assert str(real) in ident
    before = ident
    os.utime(real, ns=(5, 6))
    assert _toolchain.nvcc_identity(str(wrapper)) != before


# ------------------------------------------------------------- disk cache

@pytest.mark.parametrize("backend", BACKENDS)
def test_disk_cache_hit_skips_compiler(backend, cache, monkeypatch):
    counter = Counter(monkeypatch)
    first = compiler.compile(KERNEL, arch="sm_90", backend=backend, cache_dir=cache)
    assert counter.calls == 1 and len(entries(cache)) == 1
    second = compiler.compile(KERNEL, arch="sm_90", backend=backend, cache_dir=cache)
    assert counter.calls == 1 and second == first


@needs_nvrtc
def test_disk_key_changes(cache, monkeypatch):
    counter = Counter(monkeypatch)
    base = dict(arch="sm_90", backend="nvrtc", cache_dir=cache)
    compiler.compile(KERNEL, **base)
    variants = [
        dict(base, options=["-use_fast_math"]),
        dict(base, arch="sm_80"),
        dict(base, target="ptx"),
        dict(base, no_extern_c=True),
        dict(base, include_dirs=["/nonexistent/include"]),
    ]
    for i, kw in enumerate(variants, start=2):
        compiler.compile(KERNEL, **kw)
        assert counter.calls == i and len(entries(cache)) == i, kw
    compiler.compile(KERNEL + "\n", **base)  # the source, of course
    assert counter.calls == len(variants) + 2
    for kw in [base] + variants:  # every one is now a hit
        compiler.compile(KERNEL, **kw)
    assert counter.calls == len(variants) + 2


@needs_nvrtc
def test_disk_key_changes_with_compiler(cache, monkeypatch):
    counter = Counter(monkeypatch)
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    real = _toolchain.select

    def other_build(*a):
        name, path, ident = real(*a)
        return name, path, ident[:-1] + (ident[-1] + 1,)  # "upgraded" library

    monkeypatch.setattr(_toolchain, "select", other_build)
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    assert counter.calls == 2


@needs_nvrtc
@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip", "empty",
                                    "wrong-key"])
def test_corrupt_entry_is_recompiled(damage, cache, monkeypatch):
    counter = Counter(monkeypatch)
    good = compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    other = compiler.compile(KERNEL, arch="sm_80", backend="nvrtc", cache_dir=cache)
    assert counter.calls == 2
    names = entries(cache)
    path = None
    for n in names:  # find the sm_90 entry by content
        with open(os.path.join(cache, n), "rb") as f:
            if f.read()[_cache.HEADER_SIZE:] == good:
                path = os.path.join(cache, n)
            else:
                other_path = os.path.join(cache, n)
    blob = open(path, "rb").read()
    if damage == "truncate":
        data = blob[:len(blob) // 2]
    elif damage == "garbage":
        data = os.urandom(len(blob))
    elif damage == "flip":
        data = bytearray(blob)
        data[-10] ^= 0xFF
        data = bytes(data)
    elif damage == "empty":
        data = b""
    else:
        data = open(other_path, "rb").read()  # a valid entry, wrong name
    with open(path, "wb") as f:
        f.write(data)
    again = compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    assert again == good and again != other
    assert counter.calls == 3
    assert open(path, "rb").read()[_cache.HEADER_SIZE:] == good  # repaired
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    assert counter.calls == 3


@needs_nvrtc
def test_gpuarr_cache_0_disables(monkeypatch, tmp_path):
    counter = Counter(monkeypatch)
    monkeypatch.setenv("GPUARR_CACHE", "0")
    monkeypatch.setenv("GPUARR_CACHE_DIR", str(tmp_path / "c"))
    _config.reload()
    assert compiler.default_cache_dir() is None
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc")
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc")
    assert counter.calls == 2
    assert not (tmp_path / "c").exists()
    # An explicit directory still works.
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=tmp_path / "x")
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=tmp_path / "x")
    assert counter.calls == 3


@needs_nvrtc
def test_gpuarr_cache_dir_moves_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUARR_CACHE_DIR", str(tmp_path / "moved"))
    _config.reload()
    assert compiler.default_cache_dir() == str(tmp_path / "moved" / "kernels")
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc")
    assert len(entries(tmp_path / "moved" / "kernels")) == 1
    assert compiler.clear_disk_cache() == 1
    assert entries(tmp_path / "moved" / "kernels") == []


@needs_nvrtc
def test_cache_dir_false(monkeypatch, tmp_path):
    counter = Counter(monkeypatch)
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=False)
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=False)
    assert counter.calls == 2
    assert not (tmp_path / "default-cache").exists()


@needs_nvrtc
def test_keep(cache, monkeypatch, capsys):
    counter = Counter(monkeypatch)
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache,
                     keep=True)
    assert counter.calls == 2  # keep skips the lookup
    out = capsys.readouterr().out
    d = out.split("compiler output in ")[1].split()[0]
    assert {"kernel.cu", "kernel.cubin", "kernel.log"} <= set(os.listdir(d))
    import shutil
    shutil.rmtree(d)


@needs_nvcc
def test_keep_nvcc(capsys):
    compiler.compile(KERNEL, arch="sm_90", backend="nvcc", cache_dir=False,
                     keep=True)
    d = capsys.readouterr().out.split("compiler output in ")[1].split()[0]
    assert {"kernel.cu", "kernel.cubin"} <= set(os.listdir(d))
    import shutil
    shutil.rmtree(d)


# Records what a fresh interpreter does: libraries opened through ctypes,
# processes started (CPython audit events), and prints them at exit.
AUDIT = """
import sys, atexit
seen = []
def hook(event, args):
    if event == "ctypes.dlopen":
        seen.append("dlopen:%s" % (args[0],))
    elif event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork",
                   "os.system"):
        seen.append(event)
sys.addaudithook(hook)
"""


def _fresh(code, *argv):
    out = subprocess.run([sys.executable, "-c", AUDIT + code] + list(argv),
                         env=child_env(GPUARR_COMPILER=""), cwd=CHILD_CWD,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


@needs_nvrtc
def test_warm_hit_in_fresh_process_loads_nothing(cache):
    compiler.compile(KERNEL, arch="sm_90", backend="nvrtc", cache_dir=cache)
    code = (
        "import time\n"
        "from gpuarr import compiler\n"
        "t = time.perf_counter()\n"
        "img = compiler.compile(sys.argv[1], arch='sm_90', cache_dir=sys.argv[2])\n"
        "t = time.perf_counter() - t\n"
        "maps = open('/proc/self/maps').read()\n"
        "print([e for e in seen if 'nvrtc' in e or not e.startswith('dlopen')])\n"
        "print('libnvrtc' in maps, img[:4] == b'\\x7fELF', '%.3f' % (t * 1e3))\n")
    events, line = _fresh(code, KERNEL, cache).splitlines()[-2:]
    assert events == "[]"
    nvrtc_mapped, is_elf, ms = line.split()
    assert (nvrtc_mapped, is_elf) == ("False", "True")
    assert float(ms) < 50  # ~1 ms; generous for loaded CI machines


@needs_nvrtc
def test_cold_compile_in_fresh_process_starts_no_process(cache):
    code = ("from gpuarr import compiler\n"
            "compiler.compile(sys.argv[1], arch='sm_90', cache_dir=sys.argv[2])\n"
            "print([e for e in seen if not e.startswith('dlopen')])\n")
    assert _fresh(code, KERNEL, cache).splitlines()[-1] == "[]"


# ------------------------------------------------------------- _cache

def test_make_key_is_unambiguous():
    assert _cache.make_key(["ab", "c"]) != _cache.make_key(["a", "bc"])
    assert _cache.make_key([("a", 1)]) == _cache.make_key([("a", 1)])
    assert _cache.make_key([b"x"]) == _cache.make_key(["x"])
    assert len(_cache.make_key([])) == 64


def test_store_load_roundtrip(tmp_path):
    d = str(tmp_path / "a" / "b")
    key = _cache.make_key(["k"])
    assert _cache.load(d, key, "cubin") is None
    assert _cache.store(d, key, "cubin", b"payload")
    assert _cache.load(d, key, "cubin") == b"payload"
    assert _cache.load(d, key, "ptx") is None
    assert os.listdir(d) == [key + ".cubin"]  # no temporary file left
    assert _cache.clear(d) == 1 and os.listdir(d) == []


def test_store_failure_warns_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    key = _cache.make_key(["k"])
    with pytest.warns(RuntimeWarning, match="cannot write") as record:
        assert not _cache.store(str(blocker / "sub"), key, "cubin", b"x")
        assert not _cache.store(str(blocker / "sub"), key, "cubin", b"y")
    assert len([w for w in record if issubclass(w.category, RuntimeWarning)
                and "cannot write" in str(w.message)]) == 1


def test_bad_key_rejected(tmp_path):
    with pytest.raises(ValueError):
        _cache.load(str(tmp_path), "../../etc/passwd", "cubin")


def test_concurrent_readers_never_see_partial_files(tmp_path):
    d = str(tmp_path)
    key = _cache.make_key(["race"])
    payloads = [bytes([i]) * (200000 + i) for i in range(8)]
    bad = []
    stop = threading.Event()
    # an entry exists before any reader starts; os.replace swaps it
    # atomically, so from then on every load finds a complete one
    assert _cache.store(d, key, "cubin", payloads[7])

    def writer(p):
        while not stop.is_set():
            _cache.store(d, key, "cubin", p)

    def reader():
        while not stop.is_set():
            got = _cache.load(d, key, "cubin")
            if got is None or got not in payloads:
                bad.append(None if got is None else len(got))

    threads = [threading.Thread(target=writer, args=(p,)) for p in payloads[:3]]
    threads += [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()
    assert bad == []


def test_concurrent_processes(tmp_path):
    code = (
        "import sys\n"
        "from gpuarr import _cache\n"
        "d, i = sys.argv[1], int(sys.argv[2])\n"
        "key = _cache.make_key(['proc'])\n"
        "data = bytes([i]) * 300000\n"
        "for _ in range(200):\n"
        "    _cache.store(d, key, 'cubin', data)\n"
        "    got = _cache.load(d, key, 'cubin')\n"
        # this process stored an entry just before: the atomic replace
        # leaves a complete one there whoever stored last
        "    assert got is not None, 'entry missing after a store'\n"
        "    assert len(got) == 300000 and len(set(got)) == 1, len(got)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(i)],
                              env=child_env(), cwd=CHILD_CWD)
             for i in range(4)]
    assert [p.wait() for p in procs] == [0] * 4


# ------------------------------------------------------------- _config

def test_config_defaults():
    s = _config.read({"HOME": "/home/u"})
    assert s.cache_dir == os.path.join(os.path.expanduser("~"), ".cache", "gpuarr")
    assert s.cache_enabled is True
    assert s.compiler is None and s.nvrtc_path is None


def test_config_values():
    s = _config.read({"XDG_CACHE_HOME": "/xdg"})
    assert s.cache_dir == "/xdg/gpuarr"
    s = _config.read({"XDG_CACHE_HOME": "relative"})
    assert s.cache_dir.endswith(os.path.join(".cache", "gpuarr"))
    s = _config.read({"XDG_CACHE_HOME": "/xdg", "GPUARR_CACHE_DIR": "/my/cache"})
    assert s.cache_dir == "/my/cache"
    for off in ("0", "false", "OFF", "no"):
        assert _config.read({"GPUARR_CACHE": off}).cache_enabled is False
    for on in ("1", "yes", ""):
        assert _config.read({"GPUARR_CACHE": on}).cache_enabled is True
    assert _config.read({"GPUARR_COMPILER": "NVCC"}).compiler == "nvcc"
    assert _config.read({"GPUARR_COMPILER": "auto"}).compiler is None
    assert _config.read({"GPUARR_COMPILER": "bogus"}).compiler == "bogus"
    assert _config.read({"GPUARR_NVRTC": "/x/libnvrtc.so"}).nvrtc_path == \
        "/x/libnvrtc.so"
    with pytest.raises(ValueError):
        _config.check_compiler("bogus")
    assert "cache_dir=" in repr(s)


# ------------------------------------------- SourceModule on a fake driver

class FakeModule:
    def __init__(self, image):
        self.image = image

    def get_function(self, name):
        return ("function", name)

    def get_global(self, name):
        return (0x1000, 4)

    def get_texref(self, name):
        return ("texref", name)


class FakeDevice:
    def __init__(self, cc):
        self.cc = cc

    def compute_capability(self):
        return self.cc


class FakeContext:
    def __init__(self, handle, cc=(9, 0)):
        self.handle = handle
        self.device = FakeDevice(cc)

    def get_device(self):
        return self.device


class FakeDriver:
    """Just the gpuarr.driver surface that the compiler uses."""

    def __init__(self, current):
        driver = self
        self.loaded = []

        class Context:
            @staticmethod
            def get_current():
                return driver.current

        self.Context = Context
        self.current = current

    def module_from_buffer(self, image, options=None):
        self.loaded.append(image)
        return FakeModule(image)

    def get_driver_version(self):
        return 13000


@pytest.fixture
def fake(monkeypatch):
    drv = FakeDriver(FakeContext(0x1234))
    monkeypatch.setattr(compiler, "_drv", drv)
    return drv


def test_source_module_needs_context(fake):
    fake.current = None
    with pytest.raises(InvalidContextError, match="gpuarr.autoinit"):
        compiler.SourceModule(KERNEL)


@needs_nvrtc
def test_source_module_memory_cache(fake, cache, monkeypatch):
    counter = Counter(monkeypatch)
    mod = compiler.SourceModule(KERNEL, cache_dir=cache)
    assert fake.loaded[0][:4] == b"\x7fELF" and mod.cubin == fake.loaded[0]
    assert mod.arch == "sm_90" and mod.image_kind == "cubin"
    assert mod.get_function("scale") == ("function", "scale")
    assert mod.get_global("x") == (0x1000, 4)
    assert mod.get_texref("t") == ("texref", "t")  # delegated
    assert compiler.SourceModule(KERNEL, cache_dir=cache) is mod
    assert counter.calls == 1 and len(fake.loaded) == 1
    # Another context (same device): compile from the disk cache, load again.
    fake.current = FakeContext(0x5678)
    other = compiler.SourceModule(KERNEL, cache_dir=cache)
    assert other is not mod and counter.calls == 1 and len(fake.loaded) == 2
    # Different options: a miss.
    third = compiler.SourceModule(KERNEL, options=["-use_fast_math"], cache_dir=cache)
    assert third is not other and counter.calls == 2
    # A new context that reuses a dead one's handle gets its own module.
    fake.current = FakeContext(0x1234)
    reused = compiler.SourceModule(KERNEL, cache_dir=cache)
    assert reused is not mod and reused._context is fake.current
    assert compiler.SourceModule(KERNEL, cache_dir=cache) is reused
    # The memory cache forgets one context.
    assert compiler.clear_memory_cache(fake.current) == 1
    assert compiler.SourceModule(KERNEL, cache_dir=cache) is not reused
    assert compiler.clear_memory_cache() == 3


@needs_nvrtc
def test_source_module_hit_is_fast(fake):
    compiler.SourceModule(KERNEL, cache_dir=False)
    times = []
    for _ in range(1000):
        t = time.perf_counter()
        compiler.SourceModule(KERNEL, cache_dir=False)
        times.append(time.perf_counter() - t)
    times.sort()
    assert times[len(times) // 2] < 50e-6, times[len(times) // 2]


@needs_nvrtc
def test_source_module_bad_arguments(fake):
    with pytest.raises(TypeError):
        compiler.SourceModule(KERNEL, options="-use_fast_math")
    with pytest.raises(TypeError):
        compiler.SourceModule(KERNEL, options=[["unhashable"]])
    with pytest.raises(TypeError):
        compiler.SourceModule(42)


@needs_nvrtc
def test_source_module_device_newer_than_nvrtc(monkeypatch, cache):
    # A device NVRTC has never heard of gets PTX for the newest arch it knows.
    drv = FakeDriver(FakeContext(0x42, cc=(99, 0)))
    monkeypatch.setattr(compiler, "_drv", drv)
    mod = compiler.SourceModule(KERNEL, cache_dir=cache)
    assert mod.image_kind == "ptx"
    newest = max(_nvrtc.load(_nvrtc.find_library()).supported_archs())
    assert (".target sm_%d" % newest).encode() in mod.cubin
    # And that result is cached too.
    compiler.clear_memory_cache()
    again = compiler.SourceModule(KERNEL, cache_dir=cache)
    assert again.cubin == mod.cubin and again.image_kind == "ptx"


@needs_nvrtc
def test_source_module_explicit_arch(fake):
    mod = compiler.SourceModule(KERNEL, arch="sm_80", cache_dir=False)
    assert mod.arch == "sm_80"
    mod = compiler.SourceModule(KERNEL, options=["-arch=sm_86"], cache_dir=False)
    assert mod.arch == "sm_86"
    assert "sm_86" in repr(mod)


def test_import_does_not_load_nvrtc():
    code = ("import gpuarr.compiler\n"
            "print([e for e in seen if 'nvrtc' in e or not e.startswith('dlopen')],"
            " 'libnvrtc' in open('/proc/self/maps').read())\n")
    assert _fresh(code).splitlines()[-1] == "[] False"


@needs_nvrtc
def test_disk_key_follows_include_directories(cache, monkeypatch, tmp_path):
    """A header wheel installed, upgraded or removed (its directory's
    modification time moves) makes the next compile miss the disk cache."""
    counter = Counter(monkeypatch)
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "mine.h").write_text("#define MINE 1\n")
    src = "#include <mine.h>\n" + KERNEL
    kw = dict(arch="sm_90", backend="nvrtc", cache_dir=cache, include_dirs=[str(inc)])
    compiler.compile(src, **kw)
    compiler.compile(src, **kw)
    assert counter.calls == 1                      # a hit while nothing moved
    st = os.stat(inc)
    (inc / "mine.h").unlink()                      # what pip does on upgrade
    (inc / "mine.h").write_text("#define MINE 2\n")
    os.utime(inc, ns=(st.st_atime_ns, st.st_mtime_ns + 10 ** 9))
    compiler.compile(src, **kw)
    assert counter.calls == 2 and len(entries(cache)) == 2
    assert _toolchain.includes_stamp([str(inc), str(tmp_path / "gone")]) == (
        (str(inc), os.stat(inc).st_mtime_ns), (str(tmp_path / "gone"), None))
