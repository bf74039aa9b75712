"""What gpuarr found on this machine: ``python -m gpuarr`` and
:func:`show_config`.

Each section of the report (versions, driver, devices, compiler, headers,
cache, settings) is gathered on its own, so that one missing piece (no
driver, no NVRTC) is reported, with how to get it, and the rest still
shows. Nothing here changes state a program relies on: devices are asked
for their free memory through their primary context, pushed and popped
again, and no kernel is compiled.
"""

import json
import os
import platform
import sys

from . import _config

__all__ = ["info", "show_config", "main"]

_DRIVER_ADVICE = ("install the NVIDIA driver (it provides libcuda.so.1), or "
                  "set GPUARR_LIBCUDA to the library's path")


def _versions():
    import numpy
    from . import __version__
    return {"gpuarr": __version__, "numpy": numpy.__version__,
            "python": platform.python_version(),
            "executable": sys.executable,
            "platform": platform.platform()}


def _loaded_path(fragment):
    """The path of the loaded shared library whose name holds ``fragment``
    (read from ``/proc/self/maps``), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split(None, 5)[-1].strip()
                if fragment in os.path.basename(path):
                    return path
    except OSError:
        pass
    return None


def _version_text(v):
    """13000 -> '13.0' (cuDriverGetVersion's encoding)."""
    return "%d.%d" % (v // 1000, v % 1000 // 10)


def _driver():
    from . import driver as drv
    drv.init()
    return {"library": _loaded_path("libcuda") or
            (_config.settings.libcuda_path or "libcuda.so.1"),
            "cuda_version": _version_text(drv.get_driver_version()),
            "bindings_cuda_version": "%d.%d" % drv.get_version()[:2]}


def _free_memory(dev):
    """(free, total) bytes through the device's primary context, left as it
    was found (pushed, asked, popped, released)."""
    from . import driver as drv
    ctx = dev.retain_primary_context()
    ctx.push()
    try:
        return drv.mem_get_info()
    finally:
        drv.Context.pop()
        ctx.detach()


def _pool_choice(dev):
    from . import driver as drv
    pool = _config.settings.pool
    if pool != "auto":
        return pool
    has = dev.get_attribute(drv.device_attribute.MEMORY_POOLS_SUPPORTED)
    return "async (auto)" if has else "binned (auto: no memory pools)"


def _devices():
    from . import driver as drv
    out = []
    for i in range(drv.Device.count()):
        dev = drv.Device(i)
        entry = {"ordinal": i, "name": dev.name(),
                 "compute_capability": "%d.%d" % dev.compute_capability(),
                 "total_memory": dev.total_memory(),
                 "multiprocessors": dev.get_attribute(
                     drv.device_attribute.MULTIPROCESSOR_COUNT),
                 "pci_bus_id": dev.pci_bus_id(),
                 "pool": _pool_choice(dev)}
        try:
            entry["free_memory"] = _free_memory(dev)[0]
        except Exception as exc:     # a busy or exclusive device
            entry["free_memory"] = None
            entry["free_memory_error"] = "%s: %s" % (type(exc).__name__, exc)
        out.append(entry)
    return out


def _compiler():
    from . import _nvrtc, _toolchain
    out = {"setting": _config.settings.compiler or "auto"}
    try:
        name, path = _toolchain.find_compiler()
        out["selected"] = name
        out["selected_path"] = path
    except Exception as exc:
        out["selected"] = None
        out["error"] = "%s: %s" % (type(exc).__name__, exc)
    try:
        path = _nvrtc.find_library()
        out["nvrtc"] = path
        out["nvrtc_version"] = "%d.%d" % _nvrtc.load(path).version
    except Exception as exc:
        out["nvrtc"] = None
        out["nvrtc_missing"] = str(exc)
    out["nvcc"] = _toolchain.which("nvcc")
    out["include_dirs"] = list(_toolchain.default_includes())
    return out


def _libraries():
    """The file each run-time library would be loaded from (found by path,
    not loaded: the dynamic loader's own search comes at first use)."""
    from . import _blas, _curand, _cusolver
    out = {}
    for name, mod, use in (("cuBLAS", _blas, "matrix products"),
                           ("cuSOLVER", _cusolver, "numpy.linalg"),
                           ("cuRAND", _curand, "Sobol tables")):
        found = next((p for p in mod.candidates() if os.path.isfile(p)), None)
        out[name] = {"path": found, "for": use, "hint": mod.LIBRARY_HINT}
    return out


def _cache():
    s = _config.settings
    d = os.path.join(s.cache_dir, "kernels")
    files = size = 0
    if os.path.isdir(d):
        for root, _, names in os.walk(d):
            for n in names:
                try:
                    size += os.path.getsize(os.path.join(root, n))
                    files += 1
                except OSError:
                    pass
    return {"directory": d, "enabled": s.cache_enabled, "files": files,
            "bytes": size}


def _settings():
    s = _config.settings
    return {"GPUARR_CACHE_DIR": s.cache_dir,
            "GPUARR_CACHE": "on" if s.cache_enabled else "off",
            "GPUARR_COMPILER": s.compiler or "auto",
            "GPUARR_NVRTC": s.nvrtc_path, "GPUARR_LIBCUDA": s.libcuda_path,
            "GPUARR_POOL": s.pool, "GPUARR_SCAN": s.scan,
            "GPUARR_RANDOM": s.random, "CUDA_DEVICE": s.cuda_device}


def _section(fn, advice=None):
    try:
        return fn()
    except Exception as exc:
        out = {"error": "%s: %s" % (type(exc).__name__, exc)}
        if advice:
            out["advice"] = advice
        return out


def info():
    """Everything :func:`show_config` prints, as a dict of plain values.

    Returns
    -------
    dict
        Keys ``versions``, ``driver``, ``devices`` (a list, one dict per
        device: name, compute capability, memory in bytes, PCI bus id, the
        memory pool gpuarr gives it), ``compiler`` (the one selected, NVRTC's
        path and version, nvcc's path, the include directories given to
        NVRTC), ``libraries`` (cuBLAS, cuSOLVER, cuRAND: the file each
        would be loaded from, or None, and how to install it; found by
        path, not loaded), ``cache`` (directory, file count and bytes) and
        ``settings`` (every ``GPUARR_*`` variable and ``CUDA_DEVICE``). A
        section that could not be gathered holds ``error`` (and
        ``advice``) instead. ``ok`` is True when a device and a compiler
        were found. Never raises.
    """
    out = {"versions": _section(_versions),
           "driver": _section(_driver, _DRIVER_ADVICE)}
    if "error" in out["driver"]:
        out["devices"] = {"error": "no driver"}
    else:
        out["devices"] = _section(_devices)
    out["compiler"] = _section(_compiler)
    out["libraries"] = _section(_libraries)
    out["cache"] = _section(_cache)
    out["settings"] = _section(_settings)
    devs = out["devices"]
    out["ok"] = bool(isinstance(devs, list) and devs
                     and out["compiler"].get("selected"))
    return out


def _mib(n):
    return "unknown" if n is None else "%.0f MiB" % (n / 2.0 ** 20)


def _lines(rep):
    v = rep["versions"]
    yield "gpuarr %s, numpy %s, Python %s (%s)" % (
        v.get("gpuarr"), v.get("numpy"), v.get("python"), v.get("executable"))
    d = rep["driver"]
    if "error" in d:
        yield "driver: MISSING: %s" % d["error"]
    else:
        yield "driver: %s, CUDA %s (gpuarr's declarations: CUDA %s)" % (
            d["library"], d["cuda_version"], d["bindings_cuda_version"])
    devs = rep["devices"]
    if isinstance(devs, dict):
        yield "devices: none (%s)" % devs["error"]
    elif not devs:
        yield "devices: none: the driver reports no CUDA device"
    for dev in devs if isinstance(devs, list) else ():
        yield ("device %(ordinal)d: %(name)s, compute capability "
               "%(compute_capability)s, %(multiprocessors)d multiprocessors, "
               "PCI %(pci_bus_id)s" % dev)
        yield "  memory: %s free of %s; pool: %s" % (
            _mib(dev["free_memory"]), _mib(dev["total_memory"]), dev["pool"])
    c = rep["compiler"]
    if "selected" in c:
        if c["selected"]:
            yield "compiler: %s (%s), GPUARR_COMPILER=%s" % (
                c["selected"], c["selected_path"], c["setting"])
        else:
            yield "compiler: MISSING: %s" % c.get("error")
            from ._nvrtc import INSTALL_HINT
            yield "  to fix: %s" % INSTALL_HINT
        if c.get("nvrtc"):
            yield "  NVRTC %s: %s" % (c["nvrtc_version"], c["nvrtc"])
        else:
            yield "  NVRTC: not found: %s" % c.get("nvrtc_missing")
        yield "  nvcc: %s" % (c["nvcc"] or "not found on PATH")
        yield "  headers for NVRTC: %s" % (
            ", ".join(c["include_dirs"]) or
            "none found (only headers NVRTC has built in; install a CUDA "
            "toolkit or NVIDIA's header wheels for cuda_fp16.h and others)")
    else:
        yield "compiler: %s" % c.get("error")
    libs = rep.get("libraries", {})
    for name, lib in libs.items() if "error" not in libs else ():
        if lib["path"]:
            yield "%s (%s): %s" % (name, lib["for"], lib["path"])
        else:
            yield ("%s (%s): not found in NVIDIA's wheels or the toolkit (the "
                   "loader's path is tried at first use); %s"
                   % (name, lib["for"], lib["hint"]))
    k = rep["cache"]
    if "directory" in k:
        yield "kernel cache: %s (%s), %d files, %s" % (
            k["directory"], "on" if k["enabled"] else "off: GPUARR_CACHE",
            k["files"], _mib(k["bytes"]))
    s = rep["settings"]
    if "error" not in s:
        yield "settings: " + ", ".join(
            "%s=%s" % (key, val) for key, val in s.items() if val is not None)
    yield "ready: %s" % ("yes" if rep["ok"] else
                         "no (see the MISSING lines above)")


def show_config(file=None):
    """Print what gpuarr found: versions, the driver, each device, the
    compiler, header directories, the kernel cache and the settings.

    Parameters
    ----------
    file : file-like, optional
        Where to write; default ``sys.stdout``.

    Returns
    -------
    bool
        True when a device and a compiler were found (``python -m gpuarr``
        exits with 0 then, else 1). Never raises: what is missing is
        printed, with how to get it.
    """
    rep = info()
    out = sys.stdout if file is None else file
    for line in _lines(rep):
        print(line, file=out)
    return rep["ok"]


def main(argv=None):
    """``python -m gpuarr [--json]``: the report as text or JSON.

    Returns
    -------
    int
        0 when a device and a compiler were found, 1 otherwise; 2 for an
        unknown argument.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    if args not in ([], ["--json"]):
        print("usage: python -m gpuarr [--json]", file=sys.stderr)
        return 2
    if args:
        rep = info()
        print(json.dumps(rep, indent=2))
        return 0 if rep["ok"] else 1
    return 0 if show_config() else 1
