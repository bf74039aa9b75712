"""Test configuration: the ``gpu`` marker and the probe that decides it.

Tests marked ``gpu`` need a CUDA device. The probe runs once: it loads the
driver, initializes it and counts devices. Where that fails, every ``gpu``
test is skipped with the probe's reason, so a CPU-only CI run says why.
"""
import os
import shutil
import subprocess

import pytest

_probe = None


def gpu_skip_reason():
    """Return None when a CUDA device is usable, else the reason it is not."""
    global _probe
    if _probe is None:
        try:
            import gpuarr.driver as drv
            drv.init()
            n = drv.Device.count()
            _probe = ("",) if n > 0 else ("the CUDA driver reports no device",)
        except Exception as exc:  # any failure means: no usable GPU here
            _probe = ("no usable CUDA device: %s: %s" % (type(exc).__name__, exc),)
    return _probe[0] or None


def pytest_addoption(parser):
    parser.addoption(
        "--gpu-sample", type=int, default=1, metavar="K",
        help="run one in K of the gpu tests (every K-th in collection "
             "order, the same ones each time) and no CPU test: a "
             "representative subset for slow runs such as compute-sanitizer; "
             "tests marked huge are left out")
    parser.addoption(
        "--gpu-sample-offset", type=int, default=0, metavar="J",
        help="with --gpu-sample=K, start at the J-th gpu test (0 <= J < K): "
             "the K offsets together cover every gpu test once, so "
             "sanitizer runs in several calls can split the suite")


def pytest_collection_modifyitems(config, items):
    k = config.getoption("--gpu-sample")
    j = config.getoption("--gpu-sample-offset")
    if not 0 <= j < max(k, 1):
        raise pytest.UsageError("--gpu-sample-offset must be in [0, %d), "
                                "not %d" % (max(k, 1), j))
    if k > 1:
        gpu = [it for it in items if it.get_closest_marker("gpu") is not None
               and it.get_closest_marker("huge") is None]
        keep = set(id(it) for it in gpu[j::k])
        deselected = [it for it in items if id(it) not in keep]
        items[:] = [it for it in items if id(it) in keep]
        config.hook.pytest_deselected(items=deselected)
    reason = None
    for item in items:
        if item.get_closest_marker("gpu") is None:
            continue
        if reason is None:
            reason = gpu_skip_reason() or ""
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def context():
    """The primary context of device 0 (or ``CUDA_DEVICE``), made current."""
    import gpuarr.autoinit
    return gpuarr.autoinit.context


@pytest.fixture(scope="module")
def drv(context):
    """:mod:`gpuarr.driver`, with the ``context`` fixture's context current."""
    import gpuarr.driver
    return gpuarr.driver


@pytest.fixture(scope="module")
def mod(context, request):
    """The test module's ``KERNELS`` source (``extern "C"`` written in it)
    as a loaded SourceModule, compiled once per module."""
    from gpuarr.compiler import SourceModule
    return SourceModule(request.module.KERNELS, no_extern_c=True)


@pytest.fixture(scope="session")
def fake_lib(tmp_path_factory):
    """Path of the fake libcuda of ``tests/fake_cuda`` (for CPU tests of the
    driver and array layers), built once; skips when there is no C compiler."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") \
        or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler (cc, gcc or clang) to build the fake libcuda")
    out = tmp_path_factory.mktemp("fake_cuda") / "libcuda.so.1"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "fake_cuda", "fake_libcuda.c")
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out), src,
                        "-lpthread"], capture_output=True, text=True)
    assert r.returncode == 0, "building the fake libcuda failed:\n" + r.stderr
    return str(out)
