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
