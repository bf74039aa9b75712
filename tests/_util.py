"""Helpers shared by test modules."""
import os

import gpuarr

#: Where child Pythons run: outside the checkout, so that the source tree
#: (which has no built extension in CI) never shadows the tested package.
CHILD_CWD = "/"


def child_env(**extra):
    """``os.environ`` plus ``extra``, with PYTHONPATH leading to the gpuarr
    package these tests import (installed, or built in place)."""
    env = dict(os.environ)
    env.update(extra)
    where = os.path.dirname(os.path.dirname(os.path.abspath(gpuarr.__file__)))
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([where] + rest)
    return env


class FakeArray:
    """Array-like with a made-up device address: the ``.ptr``, ``.dtype``,
    ``.shape``, ``.strides`` and ``.size`` the kernel layers read (nothing
    is launched). C-contiguous strides unless given."""

    def __init__(self, dtype, shape, strides=None, ptr=1 << 24):
        import numpy as np
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        if strides is None:
            strides, acc = [], self.dtype.itemsize
            for n in reversed(self.shape):
                strides.insert(0, acc)
                acc *= n
        self.strides = tuple(strides)
        self.ptr = ptr
        self.size = int(np.prod(self.shape))


def kernel_compiler():
    """A function that compiles CUDA C (no ``extern "C"`` wrapping) to an
    sm_90 cubin with no GPU, raising on errors: gpuarr's compiler (NVRTC or
    nvcc), else nvcc directly. None when neither is available."""
    import shutil
    import subprocess
    import tempfile
    try:
        from gpuarr import compiler
        compiler.find_compiler()

        def comp(src):
            compiler.compile(src, arch="sm_90", no_extern_c=True, cache_dir=False)
        return comp
    except Exception:
        pass
    nvcc = shutil.which("nvcc") or next(
        (p for p in ("/usr/local/cuda/bin/nvcc", "/usr/local/cuda-13.0/bin/nvcc")
         if os.path.exists(p)), None)
    if nvcc is None:
        return None

    def comp(src):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "k.cu")
            with open(p, "w") as f:
                f.write(src)
            r = subprocess.run([nvcc, "--cubin", "-arch", "sm_90", "-o",
                                os.path.join(d, "k.cubin"), p],
                               capture_output=True, text=True)
            if r.returncode:
                raise AssertionError(r.stderr[-5000:])
    return comp


def batch_sources(specs):
    """One translation unit holding the kernels of many KernelSpecs, each in
    its own namespace and under its own name, so that one compile checks
    them all. Every generated kernel carries gpuarr/complex.hpp's text:
    its include guard is reset before each namespace so that every
    namespace gets the definitions."""
    parts = []
    for k, sp in enumerate(specs):
        parts.append("#undef GPUARR_COMPLEX_HPP\nnamespace ga_t%d {\n%s\n}\n"
                     % (k, sp.source().replace(sp.name, "%s_%d" % (sp.name, k))))
    return "".join(parts)


def nvrtc_reason():
    """None when gpuarr finds and loads an NVRTC here, else why not (the
    skip reason of tests that compile with NVRTC)."""
    from gpuarr import _nvrtc
    try:
        path = _nvrtc.find_library()
        if path is None:
            return "NVRTC not found (pip install nvidia-cuda-nvrtc)"
        _nvrtc.load(path)
    except Exception as exc:
        return "NVRTC unusable: %s" % exc
    return None


#: The fake libcuda's Python side (tests/fake_cuda/fakecuda.py)
FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_cuda")


def run_fake_scenario(lib, src):
    """Run the Python source ``src`` in a fresh interpreter on the fake
    libcuda ``lib``, from a file (so that a failing assert shows its source
    line); it passes when it exits 0 having printed DONE.

    Returns
    -------
    subprocess.CompletedProcess
    """
    import subprocess
    import sys
    import tempfile
    env = child_env(GPUARR_LIBCUDA=lib)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], FAKE_DIR])
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "scenario.py")
        with open(script, "w") as f:
            f.write(src)
        r = subprocess.run([sys.executable, script], capture_output=True,
                           text=True, env=env, timeout=120, cwd=CHILD_CWD)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("DONE"), \
        "scenario failed (rc=%d)\nstdout:\n%s\nstderr:\n%s" % (
            r.returncode, r.stdout[-5000:], r.stderr[-5000:])
    return r
