"""Compile-path benchmarks: gpuarr.compiler.SourceModule against CuPy's RawModule.

Every cold or warm measurement runs in a fresh interpreter (``python -c``),
because what is measured is exactly what a new process pays: loading NVRTC,
compiling, reading the disk cache, loading the module. Each child prints one
JSON line; the parent takes the median over several children.

Workloads
---------
cold compile
    ``SourceModule(src)`` with an empty cache directory: NVRTC load (lazy in
    gpuarr), compile to cubin, ``cuModuleLoadData``. CuPy: ``RawModule(code=
    src).get_function(name)`` with an empty ``CUPY_CACHE_DIR``.
cold compile, NVRTC already loaded
    The same, timing only after the compiler library is loaded (gpuarr loads
    it lazily, so its cold number includes a ~10-20 ms dlopen).
warm from disk
    The same call in a fresh process whose cache directory already holds the
    kernel.
repeat in one process
    The same call 1000 times in one process. gpuarr returns the loaded
    module from its in-memory cache; CuPy's RawModule reads its disk cache
    and loads the module again each time (it keeps no in-memory cache of
    RawModules), so this row shows what re-running PyCUDA-style code costs.
import
    ``import gpuarr`` against ``import cupy``, in a fresh interpreter.

Run on a GPU machine::

    python benchmarks/bench_compile.py            # prints the table
    python benchmarks/bench_compile.py --json     # the rows, for aggregation
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNEL = r"""
__global__ void saxpy_bench(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""

_GPUARR_CHILD = r"""
import json, sys, time
mode, src = sys.argv[1], sys.argv[2]
import gpuarr.autoinit
from gpuarr import compiler
from gpuarr.compiler import SourceModule
if mode == "preload":
    from gpuarr import _nvrtc
    _nvrtc.load(_nvrtc.find_library())
if mode == "repeat":
    mod = SourceModule(src)
    mod.get_function("saxpy_bench")
    times = []
    for _ in range(1000):
        t = time.perf_counter()
        SourceModule(src).get_function("saxpy_bench")
        times.append(time.perf_counter() - t)
    times.sort()
    print(json.dumps({"s": times[len(times) // 2], "mean": sum(times) / len(times)}))
else:
    t = time.perf_counter()
    mod = SourceModule(src)
    mod.get_function("saxpy_bench")
    t = time.perf_counter() - t
    print(json.dumps({"s": t, "compiler": mod.compiler}))
"""

_CUPY_CHILD = r"""
import json, sys, time
mode, src = sys.argv[1], sys.argv[2]
import cupy
cupy.cuda.Device(0).use()
cupy.cuda.runtime.free(cupy.cuda.runtime.malloc(1))  # make the context
code = 'extern "C" ' + src.strip()
if mode == "preload":
    from cupy.cuda import nvrtc
    nvrtc.getVersion()
if mode == "repeat":
    cupy.RawModule(code=code).get_function("saxpy_bench")
    times = []
    for _ in range(1000):
        t = time.perf_counter()
        cupy.RawModule(code=code).get_function("saxpy_bench")
        times.append(time.perf_counter() - t)
    times.sort()
    print(json.dumps({"s": times[len(times) // 2], "mean": sum(times) / len(times)}))
else:
    t = time.perf_counter()
    cupy.RawModule(code=code).get_function("saxpy_bench")
    t = time.perf_counter() - t
    print(json.dumps({"s": t}))
"""

_IMPORT_CHILD = r"""
import json, sys, time
t = time.perf_counter()
__import__(sys.argv[1])
print(json.dumps({"s": time.perf_counter() - t}))
"""


def _env(cache_dir, extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["GPUARR_CACHE_DIR"] = cache_dir
    env["CUPY_CACHE_DIR"] = cache_dir
    env.pop("GPUARR_CACHE", None)
    env.update(extra or {})
    return env


def _child(code, args, env, timeout=300):
    out = subprocess.run([sys.executable, "-c", code] + list(args), env=env,
                         capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError("child failed:\n" + out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _have(module):
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec(%r) is None)"
    return subprocess.run([sys.executable, "-c", probe % module],
                          env=_env(tempfile.gettempdir())).returncode == 0


def _median(code, mode, runs, warm, extra_env=None):
    """Median seconds over ``runs`` fresh children; each cold run gets an
    empty cache directory, warm runs share one pre-filled directory."""
    times, info = [], {}
    base = tempfile.mkdtemp(prefix="gpuarr-bench-")
    try:
        shared = os.path.join(base, "shared")
        if warm:
            _child(code, ["cold", KERNEL], _env(shared, extra_env))  # fill it
        # One throwaway child so every measured one finds the files hot in
        # the page cache.
        _child(code, ["cold", KERNEL], _env(os.path.join(base, "throwaway"), extra_env))
        for i in range(runs):
            d = shared if warm else os.path.join(base, "cold%d" % i)
            r = _child(code, [mode, KERNEL], _env(d, extra_env))
            times.append(r["s"])
            info = r
    finally:
        shutil.rmtree(base, ignore_errors=True)
    info["s"] = statistics.median(times)
    return info


def _fmt(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return "%.1f us" % (seconds * 1e6)
    return "%.2f ms" % (seconds * 1e3)


def run(report=print, runs=7):
    """Measure and report.

    Parameters
    ----------
    report : callable, optional
        Called with each line of the table (default :func:`print`).
    runs : int, optional
        Fresh processes per cold/warm workload (the median is kept).

    Returns
    -------
    list of dict
        One per workload: ``workload``, ``gpuarr_s``, ``cupy_s`` (None when
        CuPy is not importable) and ``ratio`` (gpuarr / CuPy; below 1 means
        gpuarr is faster).
    """
    have_cupy = _have("cupy")
    rows = []

    def add(name, ours, theirs, note=""):
        ratio = ours / theirs if (ours is not None and theirs) else None
        rows.append({"workload": name, "gpuarr_s": ours, "cupy_s": theirs,
                     "ratio": ratio, "note": note})

    def attempt(fn, *args):
        try:
            return fn(*args), ""
        except Exception as exc:  # a missing compiler or GPU: report, go on
            return None, "failed: %s" % str(exc).strip().splitlines()[-1][:120]

    plan = [
        ("cold compile (SourceModule / RawModule)", "cold", False),
        ("cold compile, NVRTC already loaded", "preload", False),
        ("warm from disk cache, fresh process", "cold", True),
    ]
    for name, mode, warm in plan:
        ours, err = attempt(_median, _GPUARR_CHILD, mode, runs, warm)
        theirs, err2 = (attempt(_median, _CUPY_CHILD, mode, runs, warm)
                        if have_cupy else (None, ""))
        note = err or ("compiler: %s" % ours.get("compiler"))
        if err2:
            note += "; CuPy " + err2
        add(name, ours and ours["s"], theirs and theirs["s"], note)
    ours, err = attempt(_median, _GPUARR_CHILD, "cold", runs, False,
                        {"GPUARR_COMPILER": "nvcc"})
    add("cold compile with nvcc (GPUARR_COMPILER=nvcc)", ours and ours["s"], None, err)

    d = tempfile.mkdtemp(prefix="gpuarr-bench-")
    try:
        ours, err = attempt(_child, _GPUARR_CHILD, ["repeat", KERNEL], _env(d))
        theirs, err2 = (attempt(_child, _CUPY_CHILD, ["repeat", KERNEL], _env(d))
                        if have_cupy else (None, ""))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    add("same source again in one process (median of 1000)", ours and ours["s"],
        theirs and theirs["s"],
        "; ".join(x for x in (err, err2 and "CuPy " + err2) if x)
        or "CuPy RawModule keeps no in-memory cache")

    for label, ours_mod, their_mod in [("import gpuarr / import cupy", "gpuarr", "cupy"),
                                       ("import gpuarr.compiler", "gpuarr.compiler", None)]:
        t = [_child(_IMPORT_CHILD, [ours_mod], _env(tempfile.gettempdir()))["s"]
             for _ in range(runs)]
        u = ([_child(_IMPORT_CHILD, [their_mod], _env(tempfile.gettempdir()))["s"]
              for _ in range(runs)] if (have_cupy and their_mod) else None)
        add(label, statistics.median(t), statistics.median(u) if u else None)

    width = max(len(r["workload"]) for r in rows)
    report("%-*s  %12s  %12s  %7s" % (width, "workload", "gpuarr", "CuPy", "ratio"))
    for r in rows:
        report("%-*s  %12s  %12s  %7s%s" % (
            width, r["workload"], _fmt(r["gpuarr_s"]), _fmt(r["cupy_s"]),
            "%.2f" % r["ratio"] if r["ratio"] is not None else "-",
            "   (%s)" % r["note"] if r["note"] else ""))
    if not have_cupy:
        report("(CuPy is not importable here: its columns are empty)")
    return rows


if __name__ == "__main__":
    if "--json" in sys.argv:
        print(json.dumps(run(report=lambda line: None), indent=1))
    else:
        run()
