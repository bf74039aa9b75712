"""Driver-layer checks that need no GPU: loading errors, the CUresult
mapping, exception pickling, and prepare() argument-type parsing."""
import pickle
import subprocess
import sys

import numpy as np
import pytest
from _util import CHILD_CWD, child_env

from gpuarr import _errors
from gpuarr._argtypes import parse_arg_types
from gpuarr._enums import CURESULT


def _run(code, **env):
    # From a directory outside the checkout, so `import gpuarr` finds the
    # installed package (or PYTHONPATH), never the unbuilt source tree.
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=child_env(**env), timeout=120, cwd=CHILD_CWD)


def test_import_needs_no_driver():
    # GPUARR_LIBCUDA points at nothing, so this is the no-driver machine
    # even where a driver exists.
    r = _run("import gpuarr, gpuarr.driver, gpuarr.compiler; print('ok')",
             GPUARR_LIBCUDA="/nonexistent/libcuda.so.1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_first_driver_call_names_libcuda():
    code = """
import gpuarr.driver as drv
try:
    drv.Device.count()
except drv.Error as e:
    print(type(e).__name__, '|', e)
"""
    r = _run(code, GPUARR_LIBCUDA="/nonexistent/libcuda.so.1")
    assert r.returncode == 0, r.stderr
    name, msg = r.stdout.split("|", 1)
    assert name.strip() == "DriverNotFoundError"
    assert "libcuda.so.1" in msg and "install" in msg.lower()


def test_libcuda_path_is_a_setting():
    from gpuarr import _config
    assert _config.read({}).libcuda_path is None
    assert _config.read({"GPUARR_LIBCUDA": ""}).libcuda_path is None
    assert _config.read({"GPUARR_LIBCUDA": "/opt/x/libcuda.so.1"}).libcuda_path == \
        "/opt/x/libcuda.so.1"


def test_driver_opens_the_library_the_settings_name():
    # The environment names one path; the settings, re-read from another
    # mapping, name a second: the driver must open the second.
    code = """
import gpuarr._config as config
config.settings = config.read({"GPUARR_LIBCUDA": "/nonexistent/from-settings.so"})
import gpuarr.driver as drv
try:
    drv.Device.count()
except drv.DriverNotFoundError as e:
    print(e)
"""
    r = _run(code, GPUARR_LIBCUDA="/nonexistent/from-environ.so")
    assert r.returncode == 0, r.stderr
    assert "/nonexistent/from-settings.so" in r.stdout
    assert "from-environ" not in r.stdout


def test_autoinit_without_driver_raises_clear_error():
    r = _run("import gpuarr.autoinit", GPUARR_LIBCUDA="/nonexistent/libcuda.so.1")
    assert r.returncode != 0
    assert "DriverNotFoundError" in r.stderr and "NVIDIA driver" in r.stderr


@pytest.mark.parametrize("name,cls", [
    ("CUDA_ERROR_OUT_OF_MEMORY", _errors.MemoryError),
    ("CUDA_ERROR_INVALID_VALUE", _errors.LogicError),
    ("CUDA_ERROR_INVALID_HANDLE", _errors.LogicError),
    ("CUDA_ERROR_INVALID_CONTEXT", _errors.InvalidContextError),
    ("CUDA_ERROR_ILLEGAL_ADDRESS", _errors.LaunchError),
    ("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", _errors.LaunchError),
    ("CUDA_ERROR_LAUNCH_FAILED", _errors.LaunchError),
    ("CUDA_ERROR_NOT_SUPPORTED", _errors.NotSupportedError),
    ("CUDA_ERROR_UNSUPPORTED_PTX_VERSION", _errors.NotSupportedError),
    ("CUDA_ERROR_UNKNOWN", _errors.RuntimeError),
    ("CUDA_ERROR_NO_DEVICE", _errors.RuntimeError),
])
def test_result_mapping(name, cls):
    code = CURESULT[name]
    err = _errors.make_error(code, "cuSomething", "a description")
    assert type(err) is cls
    assert isinstance(err, _errors.Error)
    assert err.code == code and err.name == name
    assert err.call == "cuSomething" and err.description == "a description"
    assert name in str(err) and "cuSomething" in str(err)


def test_every_code_maps_to_an_error_class():
    for name, code in CURESULT.items():
        if code == 0:
            continue
        err = _errors.make_error(code, "cuX")
        assert isinstance(err, _errors.Error)
        assert err.name == name


def test_unknown_code_is_reported_by_number():
    err = _errors.make_error(12345, "cuX")
    assert err.name == "CUDA_ERROR_12345" and isinstance(err, _errors.RuntimeError)


def test_memory_error_is_builtin_memory_error():
    err = _errors.make_error(CURESULT["CUDA_ERROR_OUT_OF_MEMORY"], "cuMemAlloc_v2")
    assert isinstance(err, MemoryError)


@pytest.mark.parametrize("code", [1, 2, 700, 801, 999])
def test_errors_pickle(code):
    err = _errors.make_error(code, "cuCall", "desc", "detail line")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err)
    assert (back.code, back.name, back.description, back.call) == \
        (err.code, err.name, err.description, err.call)
    assert str(back) == str(err)


def test_compile_error_pickles_with_log():
    err = _errors.CompileError("failed", log="kernel.cu(3): error: x", source="src")
    back = pickle.loads(pickle.dumps(err))
    assert back.log == "kernel.cu(3): error: x" and back.source == "src"


def test_driver_reexports_pycuda_names():
    import gpuarr.driver as drv
    for name in ["Error", "LogicError", "LaunchError", "MemoryError", "RuntimeError",
                 "CompileError", "Device", "Context", "DeviceAllocation", "Stream",
                 "Event", "Module", "Function", "In", "Out", "InOut", "mem_alloc",
                 "mem_get_info", "memcpy_htod", "memcpy_dtoh", "memcpy_dtod",
                 "memcpy_htod_async", "memcpy_dtoh_async", "memcpy_dtod_async",
                 "memset_d8", "memset_d16", "memset_d32", "pagelocked_empty",
                 "pagelocked_zeros", "pagelocked_empty_like", "register_host_memory",
                 "module_from_buffer", "module_from_file", "init", "get_version",
                 "get_driver_version", "device_attribute"]:
        assert hasattr(drv, name), name
    assert drv.get_version() == (13, 0, 0)
    assert int(drv.device_attribute.MULTIPROCESSOR_COUNT) == 16
    assert int(drv.device_attribute.COMPUTE_CAPABILITY_MAJOR) == 75


def test_handles_cannot_be_made_directly():
    import gpuarr.driver as drv
    for cls in (drv.Context, drv.DeviceAllocation, drv.Module, drv.Function):
        with pytest.raises(TypeError):
            cls()


@pytest.mark.parametrize("spec,expected", [
    ("PPPi", [("P", 8), ("P", 8), ("P", 8), ("i", 4)]),
    ("P i f d", [("P", 8), ("i", 4), ("f", 4), ("f", 8)]),
    ("bBhHiIqQ", [("i", 1), ("u", 1), ("i", 2), ("u", 2), ("i", 4), ("u", 4),
                  ("i", 8), ("u", 8)]),
    ("=e?FD", [("f", 2), ("b", 1), ("c", 8), ("c", 16)]),
    ([np.intp, np.float32, "P"], [("i", 8), ("f", 4), ("P", 8)]),
    ([np.dtype(np.uint16), np.complex128, np.bool_], [("u", 2), ("c", 16), ("b", 1)]),
    ("", []),
])
def test_parse_arg_types(spec, expected):
    assert parse_arg_types(spec) == expected


@pytest.mark.parametrize("spec,exc", [
    ("PPx", TypeError), ("3i", ValueError), (">i", ValueError),
    ([np.dtype("U3")], TypeError), ([object], TypeError),
])
def test_parse_arg_types_errors(spec, exc):
    with pytest.raises(exc):
        parse_arg_types(spec)


def test_percontext_tables_forget_a_detached_context():
    from gpuarr import _percontext
    import gpuarr.driver as drv
    from gpuarr import _driver
    assert _percontext.forget in _driver._detach_hooks
    a, b = object(), object()
    t = _percontext.table()
    t[a] = "state of a"
    t[b] = "state of b"
    t[(a, "kernel", 1)] = "kernel of a"
    t[(b, "kernel", 1)] = "kernel of b"
    _percontext.forget(a)
    assert t == {b: "state of b", (b, "kernel", 1): "kernel of b"}
    assert hasattr(drv, "add_detach_hook")


def test_parse_arg_types_alignments():
    from gpuarr._argtypes import c_alignment
    from gpuarr._vectypes import vec
    four = np.dtype([(c, np.float32) for c in "abcd"])
    nested = np.dtype([("v", vec.double2), ("i", np.int32)], align=True)
    got = parse_arg_types(["P", "12s", vec.float4, vec.float3, vec.double2, four,
                           np.complex64, "i", "D"], alignments=True)
    assert got == [("P", 8, 8), ("V", 12, None), ("V", 16, 16), ("V", 12, 4),
                   ("V", 16, 16), ("V", 16, 4), ("c", 8, 4), ("i", 4, 4),
                   ("c", 16, 8)]
    assert four.alignment == 1 and vec.float4.alignment == 4   # numpy's differ
    # a vector field makes its struct CUDA-aligned (16); numpy's size (24,
    # where C pads to 32) then is no C layout
    assert nested.itemsize == 24 and c_alignment(nested) is None
    assert c_alignment(np.dtype([("v", vec.double2), ("w", vec.float4)])) == 16
    assert c_alignment(np.dtype((np.float64, 3))) == 8
    assert c_alignment(np.dtype({"names": ["c", "f"], "formats": ["u1", "f4"],
                                 "offsets": [0, 1], "itemsize": 8})) is None
    assert parse_arg_types("Pi") == [("P", 8), ("i", 4)]      # pairs by default
