"""CPU tests of linking: gpuarr.driver.Linker and gpuarr.compiler's
DynamicModule / DynamicSourceModule on the fake libcuda (FAKE images are
linked by concatenation there), get_nvcc_version, the search for
libcudadevrt.a, and relocatable code compiled by NVRTC. The GPU half is in
tests/test_compiler_compat_gpu.py."""
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

from gpuarr import _config, _nvrtc, _toolchain, compiler
from test_driver_fake import _env


PRELUDE = """\
import os, sys
import numpy as np
import gpuarr.autoinit
import gpuarr.driver as drv
import gpuarr.compiler as compiler
from fakecuda import Fake, image
fk = Fake()
"""




def check(lib, code):
    src = PRELUDE + textwrap.dedent(code) + "\nprint('DONE')\n"
    r = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                       env=_env(lib), timeout=120, cwd="/")
    assert r.returncode == 0 and r.stdout.rstrip().endswith("DONE"), \
        "scenario failed (rc=%d)\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr)




def test_linker_links_and_loads(fake_lib):
    check(fake_lib, """
        live = fk.lib.fake_live_links
        lk = drv.Linker()
        assert live() == 1
        lk.add_data(image("kernel a 8"), drv.jit_input_type.CUBIN, "a.cubin")
        lk.add_data(image("kernel b 8,4"), drv.jit_input_type.PTX, "b.ptx")
        mod = lk.link_module()
        mod.get_function("a"); mod.get_function("b")
        try:
            lk.add_data(image("kernel c 8"), drv.jit_input_type.CUBIN)
        except drv.LogicError as e:
            assert "completed" in str(e)
        else:
            raise AssertionError("added after completing")
        del lk
        import gc; gc.collect()
        assert live() == 0
    """)


def test_linker_errors_carry_the_log(fake_lib):
    check(fake_lib, """
        seen = []
        lk = drv.Linker(message_handler=lambda ok, info, err: seen.append((ok, err)))
        try:
            lk.add_data(b"not an image", drv.jit_input_type.CUBIN, "junk.cubin")
        except drv.LogicError as e:
            assert e.name == "CUDA_ERROR_INVALID_IMAGE", vars(e)
            assert "junk.cubin is not a FAKE image" in str(e), str(e)
            assert "cuLinkAddData_v2" in str(e)
        else:
            raise AssertionError("no error")
        assert seen and seen[0][0] is False and "not a FAKE image" in seen[0][1]
        try:
            lk.add_file("/no/such/libcudadevrt.a", drv.jit_input_type.LIBRARY)
        except FileNotFoundError as e:
            assert "/no/such/libcudadevrt.a" in str(e)
        else:
            raise AssertionError("no error")
        try:
            lk.complete()                   # nothing was added
        except drv.LogicError as e:
            assert "nothing to link" in str(e), str(e)
        else:
            raise AssertionError("no error")
    """)


def test_linker_needs_a_context(fake_lib):
    check(fake_lib, """
        drv.Context.pop()
        assert drv.Context.get_current() is None
        try:
            drv.Linker()
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("no InvalidContextError")
        try:
            compiler.DynamicModule(linker="driver")
        except drv.InvalidContextError:
            pass
        else:
            raise AssertionError("no InvalidContextError")
    """)


def test_dynamic_module_chains_sources_data_and_stdlib(fake_lib, tmp_path):
    libdir = tmp_path / "lib"
    libdir.mkdir()
    (libdir / "libcudadevrt.a").write_bytes(b"!<arch>\\n")
    check(fake_lib, """
        calls = []
        def fake_compile(source, **kw):
            calls.append((source, kw))
            return image("kernel from_source 8")
        compiler.compile = fake_compile          # what add_source calls
        m = compiler.DynamicModule(cuda_libdir=%r, include_dirs=["/inc"], linker="driver")
        assert m.linked_by == "driver"
        r = (m.add_source("__global__ void from_source(int *x) {}", nvcc_options=["-DX=1"])
              .add_data(image("kernel from_data 8"), drv.jit_input_type.CUBIN)
              .add_stdlib("cudadevrt")
              .link())
        assert r is m
        m.get_function("from_source"); m.get_function("from_data")
        (src, kw), = calls
        assert kw["options"] == ["-DX=1", "-rdc=true"], kw
        assert kw["target"] == "cubin" and kw["include_dirs"] == ["/inc"]
        assert kw["arch"] == "sm_%%d%%d" %% drv.Context.get_device().compute_capability()
        try:
            m.add_data(image("kernel late 8"), drv.jit_input_type.CUBIN)
        except RuntimeError as e:
            assert "linked already" in str(e)
        else:
            raise AssertionError("added after link()")
        try:
            compiler.DynamicModule(cuda_libdir="/nowhere", linker="driver").add_stdlib("nosuchlib")
        except OSError as e:
            assert "libnosuchlib.a" in str(e) and "nvidia-cuda-runtime" in str(e)
        else:
            raise AssertionError("no OSError")
    """ % str(libdir))


def test_dynamic_source_module_links_cudadevrt(fake_lib, tmp_path):
    libdir = tmp_path / "lib"
    libdir.mkdir()
    (libdir / "libcudadevrt.a").write_bytes(b"!<arch>\\n")
    check(fake_lib, """
        calls = []
        def fake_compile(source, **kw):
            calls.append(kw)
            return image("kernel parent 8,4", "kernel child 8,4")
        compiler.compile = fake_compile
        m = compiler.DynamicSourceModule("...", options=["-lcudadevrt", "-O3"],
                                         cuda_libdir=%r, linker="driver")
        m.get_function("parent"); m.get_function("child")
        assert calls[0]["options"] == ["-O3", "-rdc=true"], calls
    """ % str(libdir))


# ------------------------------------------------------------ no driver

def test_get_nvcc_version(tmp_path):
    compiler.get_nvcc_version.cache_clear()
    silent = tmp_path / "silent-nvcc"
    silent.write_text("#!/bin/sh\nexit 0\n")
    failing = tmp_path / "failing-nvcc"
    failing.write_text("#!/bin/sh\necho 'Cuda compilation tools'\nexit 3\n")
    for script in (silent, failing):
        script.chmod(0o755)
    for nvcc, why in (("/no/such/nvcc", "No such file"),
                      (str(silent), "printed nothing"),
                      (str(failing), "exit status 3")):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert compiler.get_nvcc_version(nvcc) == "nvcc version unknown"
        assert len(w) == 1 and why in str(w[0].message), (nvcc, w)
        assert nvcc in str(w[0].message)
    if _toolchain.which("nvcc"):
        text = compiler.get_nvcc_version()
        assert "Cuda compilation tools" in text or "release" in text
        assert compiler.get_nvcc_version() is text           # remembered
    with pytest.raises(TypeError):
        compiler.get_nvcc_version(None)


def test_find_cuda_library_order(monkeypatch, tmp_path):
    from gpuarr import _dynamic
    mine, tk, wheel = tmp_path / "mine", tmp_path / "cuda", tmp_path / "site" / "nvidia"
    for d in (mine, tk / "lib64", wheel / "cu13" / "lib"):
        d.mkdir(parents=True)
        (d / "libcudadevrt.a").write_bytes(b"!<arch>\n")
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [str(tk)])
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [str(wheel)])
    monkeypatch.delenv("CUDA_ROOT", raising=False)
    assert _dynamic.find_cuda_library("cudadevrt", str(mine)) == str(mine / "libcudadevrt.a")
    assert _dynamic.find_cuda_library("cudadevrt") == str(tk / "lib64" / "libcudadevrt.a")
    os.remove(tk / "lib64" / "libcudadevrt.a")
    assert _dynamic.find_cuda_library("cudadevrt") == str(wheel / "cu13" / "lib" / "libcudadevrt.a")
    with pytest.raises(OSError, match="pip install nvidia-cuda-runtime"):
        _dynamic.find_cuda_library("nosuchlib")
    with pytest.raises(ValueError):
        _dynamic.find_cuda_library("../x")


def _nvrtc_ok():
    try:
        _nvrtc.load(_nvrtc.find_library())
        return True
    except Exception:
        return False


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


@pytest.mark.skipif(not _nvrtc_ok(), reason="NVRTC not found")
def test_relocatable_code_under_nvrtc(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUARR_CACHE_DIR", str(tmp_path))
    _config.reload()
    try:
        image = compiler.compile(PARENT_CHILD, arch="sm_90", options=["-rdc=true"],
                                 cache_dir=False, backend="nvrtc")
        assert image[:4] == b"\x7fELF"
        assert int.from_bytes(image[16:18], "little") == 1      # ET_REL: relocatable
        plain = compiler.compile("__global__ void k(int *x) { x[0] = 1; }", arch="sm_90",
                                 cache_dir=False, backend="nvrtc")
        assert int.from_bytes(plain[16:18], "little") == 2      # ET_EXEC
        # a device launch needs relocatable code
        from gpuarr._errors import CompileError
        with pytest.raises(CompileError):
            compiler.compile(PARENT_CHILD, arch="sm_90", cache_dir=False, backend="nvrtc")
    finally:
        monkeypatch.undo()
        _config.reload()


def _nvjitlink_site():
    """An ``nvidia`` package directory holding nvJitLink and libcudadevrt.a
    (the nvidia-nvjitlink and nvidia-cuda-runtime wheels), or None."""
    import glob
    from gpuarr import _nvjitlink
    cands = list(_toolchain.nvidia_dirs()) + glob.glob(
        "/tmp/venv-*/lib/python3*/site-packages/nvidia")
    for site in cands:
        lib = os.path.join(site, "cu13", "lib")
        if (os.path.isfile(os.path.join(lib, "libnvJitLink.so.13"))
                and os.path.isfile(os.path.join(lib, "libcudadevrt.a"))):
            return site
    return None


@pytest.mark.skipif(not _nvrtc_ok(), reason="NVRTC not found")
def test_nvjitlink_links_parent_child_with_cudadevrt(monkeypatch, tmp_path):
    site = _nvjitlink_site()
    if site is None:
        pytest.skip("no nvJitLink with libcudadevrt.a here (pip install "
                    "nvidia-nvjitlink nvidia-cuda-runtime)")
    from gpuarr import _dynamic, _nvjitlink, driver
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [site])
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [])
    monkeypatch.setattr(_nvjitlink, "_memo", {})
    jit = _nvjitlink.load()
    assert jit is not None and jit.version >= (12, 0)
    seen = []
    lk = _nvjitlink.NvJitLinker(jit, "sm_90", lambda ok, info, err: seen.append(ok))
    image = compiler.compile(PARENT_CHILD, arch="sm_90", options=["-rdc=true"],
                             cache_dir=False, backend="nvrtc")
    lk.add_data(image, driver.jit_input_type.CUBIN, "parent.cubin")
    lk.add_file(_dynamic.find_cuda_library("cudadevrt"), driver.jit_input_type.LIBRARY)
    linked = lk.complete()
    assert linked[:4] == b"\x7fELF" and int.from_bytes(linked[16:18], "little") == 2
    assert b"parent" in linked and b"child" in linked and seen == [True]
    with pytest.raises(Exception, match="completed"):
        lk.add_data(image, driver.jit_input_type.CUBIN)
    # unresolved device-runtime symbols without libcudadevrt.a: the log says so
    lk = _nvjitlink.NvJitLinker(jit, "sm_90")
    lk.add_data(image, driver.jit_input_type.CUBIN, "parent.cubin")
    with pytest.raises(Exception, match="nvJitLinkComplete") as info:
        lk.complete()
    assert "link log" in str(info.value)


# ------------------------------------------- link options under nvJitLink

def test_link_flags_translate_and_refuse():
    from gpuarr import _enums, _nvjitlink
    J = _enums.JIT_OPTION
    flags = _nvjitlink.link_flags(
        [(J["MAX_REGISTERS"], 40), (J["OPTIMIZATION_LEVEL"], 4),
         (J["GENERATE_DEBUG_INFO"], 0), (J["GENERATE_LINE_INFO"], 1),
         (J["FTZ"], 1), (J["PREC_DIV"], 0), (J["LOG_VERBOSE"], 1),
         (J["SPLIT_COMPILE"], 2)], log_verbose=True)
    assert flags == ["-verbose", "-maxrregcount=40", "-O3", "-lineinfo",
                     "-ftz=true", "-prec-div=false", "-split-compile=2"]
    assert _nvjitlink.link_flags(None, False) == []
    for name in ("TARGET", "WALL_TIME", "CACHE_MODE", "THREADS_PER_BLOCK"):
        with pytest.raises(ValueError, match="no nvJitLink equivalent.*"
                                             "linker='driver'"):
            _nvjitlink.link_flags([(J[name], 1)])
    for bad in ([J["FTZ"]], [(J["FTZ"], 1.5)], [("FTZ", 1)], [(J["FTZ"], 1, 2)]):
        with pytest.raises(TypeError, match="pairs"):
            _nvjitlink.link_flags(bad)
    with pytest.raises(ValueError, match="negative"):
        _nvjitlink.link_flags([(J["MAX_REGISTERS"], -1)])
    assert _nvjitlink.link_flags([(J["OPTIMIZATION_LEVEL"], 0)]) == ["-O0"]
    for level in (1, 2):
        with pytest.raises(ValueError, match="0 and 3"):
            _nvjitlink.link_flags([(J["OPTIMIZATION_LEVEL"], level)])


def test_real_nvjitlink_accepts_translated_flags(monkeypatch):
    site = _nvjitlink_site()
    if site is None:
        pytest.skip("no nvJitLink here (pip install nvidia-nvjitlink)")
    from gpuarr import _enums, _nvjitlink
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [site])
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [])
    monkeypatch.setattr(_nvjitlink, "_memo", {})
    jit = _nvjitlink.load()
    J = _enums.JIT_OPTION
    every = [(J[name], 0 if name == "OPTIMIZATION_LEVEL" else 1)  # -g wants -O0
             for _, (name, _) in sorted(_nvjitlink._FLAG_OPTIONS.items())]
    flags = _nvjitlink.link_flags(every, log_verbose=True)
    assert len(flags) == len(every)
    _nvjitlink.NvJitLinker(jit, "sm_90", None, flags)   # nvJitLinkCreate takes them
    _nvjitlink.NvJitLinker(jit, "sm_90", None, _nvjitlink.link_flags(
        [(J["OPTIMIZATION_LEVEL"], 4), (J["MAX_REGISTERS"], 64)]))
    with pytest.raises(Exception, match="nvJitLinkCreate"):
        _nvjitlink.NvJitLinker(jit, "sm_90", None, ["-no-such-flag"])


def test_dynamic_module_passes_link_options_to_nvjitlink(fake_lib):
    check(fake_lib, """
        from gpuarr import _nvjitlink
        made = []
        class FakeJit:
            version = (99, 0)
            path = "/fake/libnvJitLink.so"
        class Recorder:
            def __init__(self, lib, arch, handler=None, options=()):
                made.append((arch, list(options)))
        _nvjitlink.load = lambda path=None: FakeJit
        _nvjitlink.NvJitLinker = Recorder
        # linker="auto" takes nvJitLink when NVRTC is the compiler and no
        # newer than it: an NVRTC 13.0 of the fake's, whether or not the
        # nvrtc extra is installed here
        from gpuarr import _nvrtc
        class FakeRtc:
            version = (13, 0)
        compiler.find_compiler = lambda nvcc="nvcc": ("nvrtc", "/fake/nvrtc.so")
        _nvrtc.load = lambda path=None: FakeRtc
        J = drv.jit_option
        m = compiler.DynamicModule(
            link_options=[(J.MAX_REGISTERS, 32), (J.GENERATE_LINE_INFO, 1)],
            log_verbose=True, linker="nvjitlink", arch="sm_90")
        assert m.linked_by == "nvjitlink"
        assert made == [("sm_90", ["-verbose", "-maxrregcount=32",
                                   "-lineinfo"])], made
        for linker in ("nvjitlink", "auto"):
            try:
                compiler.DynamicModule(link_options=[(J.WALL_TIME, 0)],
                                       linker=linker, arch="sm_90")
            except ValueError as e:
                assert "WALL_TIME" in str(e) and "linker='driver'" in str(e), e
                assert ("linker='auto' chose nvJitLink 99.0" in str(e)) == (
                    linker == "auto"), e
            else:
                raise AssertionError("option dropped under %s" % linker)
        try:
            compiler.DynamicModule(link_options=[J.FTZ], linker="nvjitlink")
        except TypeError as e:
            assert "pairs" in str(e)
        else:
            raise AssertionError("no TypeError")
        assert len(made) == 1
        # the driver's Linker still takes what nvJitLink lacks
        m = compiler.DynamicModule(link_options=[(J.WALL_TIME, 0)],
                                   linker="driver")
        assert m.linked_by == "driver"
    """)


def test_unloadable_nvjitlink_keeps_the_reason(tmp_path, monkeypatch):
    from gpuarr import _nvjitlink
    bogus = tmp_path / "libnvJitLink.so.13"
    bogus.write_text("not a shared library")
    monkeypatch.setattr(_nvjitlink, "_memo", {})
    assert _nvjitlink.load(str(bogus)) is None
    why = _nvjitlink.load_error(str(bogus))
    assert why.startswith("found at %s" % bogus) and "OSError" in why, why
    monkeypatch.setattr(_nvjitlink, "find_library", lambda: None)
    assert "not found" in _nvjitlink.load_error()


def test_dynamic_module_reports_why_nvjitlink_is_not_used(fake_lib, tmp_path):
    bogus = tmp_path / "libnvJitLink.so.13"
    bogus.write_text("not a shared library")
    check(fake_lib, """
        import warnings
        from gpuarr import _nvjitlink, _toolchain
        _nvjitlink.find_library = lambda: %r
        try:
            compiler.DynamicModule(linker="nvjitlink")
        except ValueError as e:
            assert "not loadable" in str(e) and %r in str(e), e
        else:
            raise AssertionError("no ValueError")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = compiler.DynamicModule(linker="auto")
        assert m.linked_by == "driver"
        msgs = [str(x.message) for x in w
                if issubclass(x.category, _toolchain.CompilerWarning)]
        assert len(msgs) == 1 and "not loadable" in msgs[0], msgs
        # nvJitLink loads, the NVRTC to compare with does not: warned, driver
        class FakeJit:
            version = (99, 0)
        _nvjitlink.load = lambda path=None: FakeJit
        compiler.find_compiler = lambda nvcc="nvcc", **kw: ("nvrtc", %r)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = compiler.DynamicModule(linker="auto")
        assert m.linked_by == "driver"
        msgs = [str(x.message) for x in w
                if issubclass(x.category, _toolchain.CompilerWarning)]
        assert len(msgs) == 1 and "could not be loaded" in msgs[0], msgs
        # nothing is missing: no warning
        _nvjitlink.load = lambda path=None: None
        _nvjitlink.find_library = lambda: None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert compiler.DynamicModule(linker="auto").linked_by == "driver"
    """ % (str(bogus), str(bogus), str(bogus)))


def test_linker_works_in_its_own_context(fake_lib, tmp_path):
    """Calls, the load of link_module and the destruction run in the
    Linker's context even when another one is current (the fake counts
    cuLink* calls made off their state's context)."""
    lib = tmp_path / "libcudadevrt.a"
    lib.write_bytes(b"!<arch>\\n")
    check(fake_lib, """
        import ctypes, gc
        fk.lib.fake_module_ctx.restype = ctypes.c_void_p
        fk.lib.fake_module_ctx.argtypes = [ctypes.c_void_p]
        off = fk.lib.fake_link_off_ctx
        mine = drv.Context.get_current()
        lk = drv.Linker()
        other = drv.Device(0).make_context()          # now current
        assert other.handle != mine.handle
        depth = fk["stack_depth"]
        lk.add_data(image("kernel a 8"), drv.jit_input_type.CUBIN, "a.cubin")
        lk.add_file(%r, drv.jit_input_type.LIBRARY)
        mod = lk.link_module()
        assert off() == 0, off()
        assert fk.lib.fake_module_ctx(mod.handle) == mine.handle
        assert mod.context.handle == mine.handle
        assert drv.Context.get_current().handle == other.handle
        assert fk["stack_depth"] == depth
        mod.get_function("a")
        # a failing add (the link log) leaves the stack as it was
        lk2 = drv.Linker()                            # made in `other`
        drv.Context.pop()                             # `mine` is current
        try:
            lk2.add_data(b"junk", drv.jit_input_type.CUBIN, "junk.cubin")
        except drv.LogicError as e:
            assert "junk.cubin" in str(e)
        else:
            raise AssertionError("junk linked")
        assert drv.Context.get_current().handle == mine.handle
        # destroyed in its context too
        before = fk.lib.fake_live_links()
        del lk, lk2
        gc.collect()
        assert fk.lib.fake_live_links() == before - 2
        assert off() == 0, off()
        assert drv.Context.get_current().handle == mine.handle
        # a detached context: calls say so, the state is still freed
        lk3 = drv.Linker()
        third = drv.Device(0).make_context()
        lk4 = drv.Linker()
        third.detach()
        try:
            lk4.add_data(image("kernel b 8"), drv.jit_input_type.CUBIN, "b")
        except drv.InvalidContextError as e:
            assert "detached" in str(e)
        else:
            raise AssertionError("used a Linker of a detached context")
        del lk3, lk4
        gc.collect()
        assert fk.lib.fake_live_links() == 0
    """ % str(lib))
