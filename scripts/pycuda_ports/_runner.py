"""Run one ported example in this process after an optional prelude.

python3 _runner.py EXAMPLE.py [ARGS...]
  PORTS_PRELUDE=file.py  executed first (the fake-driver dry run patches there)
  PORTS_AUTOINIT=1       `import gpuarr.autoinit` before the example
The example runs as __main__ with sys.argv and sys.path[0] as a direct run
would have them.
"""
import os
import runpy
import sys

pre = os.environ.get("PORTS_PRELUDE")
if pre:
    with open(pre) as f:
        exec(compile(f.read(), pre, "exec"), {"__name__": "__ports_prelude__"})
if os.environ.get("PORTS_AUTOINIT"):
    import gpuarr.autoinit  # noqa: F401
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")
