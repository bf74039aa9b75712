"""``python -m gpuarr`` and ``gpuarr.show_config()``: the report with no
driver, with the fake libcuda (tests/fake_cuda), and on a real GPU."""
import json
import os
import subprocess
import sys

import pytest

from test_driver_fake import _env

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(args, env):
    return subprocess.run([sys.executable, "-m", "gpuarr", *args],
                          capture_output=True, text=True, env=env,
                          timeout=120, cwd="/")


def _no_driver_env(tmp_path):
    env = _env(str(tmp_path / "no-such-libcuda.so"))
    env["GPUARR_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def test_no_driver_text_report(tmp_path):
    r = _run([], _no_driver_env(tmp_path))
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("gpuarr ") and "numpy" in lines[0]
    driver = [l for l in lines if l.startswith("driver: ")]
    assert driver and "MISSING" in driver[0] and "GPUARR_LIBCUDA" in driver[0]
    assert any(l.startswith("devices: none") for l in lines)
    assert any(l.startswith("kernel cache: %s" % (tmp_path / "cache"))
               for l in lines)
    assert lines[-1].startswith("ready: no")
    assert r.stderr == ""


def test_no_driver_json_report(tmp_path):
    r = _run(["--json"], _no_driver_env(tmp_path))
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] is False
    assert "error" in rep["driver"] and "advice" in rep["driver"]
    assert rep["devices"] == {"error": "no driver"}
    assert rep["settings"]["GPUARR_CACHE_DIR"] == str(tmp_path / "cache")
    assert rep["cache"]["files"] == 0 and rep["cache"]["bytes"] == 0
    import numpy
    assert rep["versions"]["numpy"] == numpy.__version__


def test_run_time_libraries_reported(tmp_path):
    env = _no_driver_env(tmp_path)
    env["CUDA_PATH"] = str(tmp_path / "toolkit")
    lib64 = tmp_path / "toolkit" / "lib64"
    lib64.mkdir(parents=True)
    (lib64 / "libcusolver.so.12").write_bytes(b"")
    rep = json.loads(_run(["--json"], env).stdout)
    libs = rep["libraries"]
    assert set(libs) == {"cuBLAS", "cuSOLVER", "cuRAND"}
    if not any("nvidia" in (libs[k]["path"] or "") for k in libs):
        assert libs["cuSOLVER"]["path"] == str(lib64 / "libcusolver.so.12")
    for lib in libs.values():
        assert "pip install nvidia-" in lib["hint"]
    text = _run([], env).stdout
    line = [l for l in text.splitlines() if l.startswith("cuBLAS (matrix products): ")]
    assert line and (libs["cuBLAS"]["path"] or "pip install nvidia-cublas") in line[0]


def test_cache_size_counted(tmp_path):
    env = _no_driver_env(tmp_path)
    kernels = tmp_path / "cache" / "kernels" / "ab"
    kernels.mkdir(parents=True)
    (kernels / "x.cubin").write_bytes(b"z" * 1000)
    (kernels / "y.ptx").write_bytes(b"z" * 24)
    rep = json.loads(_run(["--json"], env).stdout)
    assert rep["cache"] == {"directory": str(tmp_path / "cache" / "kernels"),
                            "enabled": True, "files": 2, "bytes": 1024}


def test_bad_argument(tmp_path):
    r = _run(["--bogus"], _no_driver_env(tmp_path))
    assert r.returncode == 2 and "usage" in r.stderr


def test_fake_driver_devices(fake_lib, tmp_path):
    env = _env(fake_lib)
    env["GPUARR_CACHE_DIR"] = str(tmp_path / "cache")
    r = _run(["--json"], env)
    rep = json.loads(r.stdout)
    assert "error" not in rep["driver"], rep["driver"]
    assert rep["driver"]["library"] == fake_lib
    (dev,) = rep["devices"]
    assert dev["name"] == "Fake GPU" and dev["ordinal"] == 0
    assert dev["free_memory"] is not None
    assert 0 < dev["free_memory"] <= dev["total_memory"]
    text = _run([], env).stdout
    assert "device 0: Fake GPU" in text
    # readiness needs a compiler too: with one found, the exit status is 0
    assert r.returncode == (0 if rep["compiler"].get("selected") else 1)


@pytest.mark.gpu
def test_real_device_report(context):
    import gpuarr
    import gpuarr.driver as drv
    rep = json.loads(subprocess.run(
        [sys.executable, "-m", "gpuarr", "--json"], capture_output=True,
        text=True, timeout=120, env=dict(os.environ)).stdout)
    assert rep["ok"] is True
    assert len(rep["devices"]) == drv.Device.count()
    dev0 = rep["devices"][0]
    assert dev0["name"] == drv.Device(0).name()
    assert dev0["compute_capability"] == "%d.%d" % drv.Device(0).compute_capability()
    assert dev0["pci_bus_id"] == drv.Device(0).pci_bus_id()
    assert 0 < dev0["free_memory"] <= dev0["total_memory"]
    assert rep["driver"]["library"].endswith(tuple(["libcuda.so.1"]) +
                                             tuple(".so.%s" % v for v in "0123456789")) \
        or "libcuda" in rep["driver"]["library"]
    v = drv.get_driver_version()
    assert rep["driver"]["cuda_version"] == "%d.%d" % (v // 1000, v % 1000 // 10)
    # show_config in this process leaves the current context as it was
    import io
    before = drv.Context.get_current()
    buf = io.StringIO()
    assert gpuarr.show_config(buf) is True
    assert drv.Context.get_current() == before
    assert "device 0: %s" % drv.Device(0).name() in buf.getvalue()
