"""Run every benchmark in one process and print one table.

Usage: ``python benchmarks/run.py [name ...]`` where names select modules
(``launch``, ``compile``, ...); with none, all run. On the GPU machine:
``bash .dev/gpu.sh python3 benchmarks/run.py``.
"""
import importlib
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import add_row, print_table  # noqa: E402

MODULES = ["launch", "compile", "elementwise", "reduction", "scan", "random",
           "curand", "joining", "sorting", "histogram", "indexing", "linalg", "fusion", "graph",
           "managed", "copy2d", "peer"]


def _compile_rows(mod):
    """bench_compile measures in fresh processes and returns its own rows."""
    for r in mod.run():
        if r["gpuarr_s"] is None:
            continue
        others = {"CuPy": r["cupy_s"] * 1e3} if r["cupy_s"] else {}
        add_row(r["workload"], "ms", r["gpuarr_s"] * 1e3, others)


def main(names):
    for name in names or MODULES:
        path = os.path.join(HERE, "bench_%s.py" % name)
        if not os.path.exists(path):
            continue
        print("== %s" % name, flush=True)
        try:
            mod = importlib.import_module("bench_%s" % name)
            if name == "compile":
                _compile_rows(mod)
            else:
                mod.run()
        except Exception:
            traceback.print_exc()
    print_table()


if __name__ == "__main__":
    main(sys.argv[1:])
