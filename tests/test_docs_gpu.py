"""The tutorial (docs/tutorial.md) runs as written: its Python blocks, in
order, in one fresh process (each block asserts its results against
numpy)."""
import subprocess
import sys

import pytest

from _docblocks import python_blocks

pytestmark = pytest.mark.gpu


def test_tutorial_runs():
    program = "\n".join(python_blocks("tutorial.md"))
    r = subprocess.run([sys.executable, "-c", program], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
