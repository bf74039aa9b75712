"""CPU tests of what type checkers see: the flat namespace's stub
(``gpuarr/__init__.pyi``) is the one scripts/gen_init_stub.py writes from
``gpuarr._NAMES``, the driver binding's (``gpuarr/_driver.pyi``) the one
scripts/gen_driver_stub.py writes from the extension; the methods ``GPUArray`` gets from its tables at import
time are the ones ``gpuarr._arraytypes`` declares for type checkers; and, where mypy
is installed (CI installs it), ``tests/typing/check_api.py`` type-checks
while a misspelt name does not."""
import ast
import inspect
import os
import subprocess
import sys

import pytest

import gpuarr
from gpuarr import _array

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def test_init_stub_is_up_to_date():
    import gen_init_stub
    stub = os.path.join(os.path.dirname(gpuarr.__file__), "__init__.pyi")
    with open(stub) as f:
        assert f.read() == gen_init_stub.render(), \
            "run python scripts/gen_init_stub.py"


def test_driver_stub_is_up_to_date():
    import gen_driver_stub
    stub = os.path.join(os.path.dirname(gpuarr.__file__), "_driver.pyi")
    with open(stub) as f:
        assert f.read() == gen_driver_stub.render(), \
            "run python scripts/gen_driver_stub.py"


def _declared():
    from gpuarr import _arraytypes
    tree = ast.parse(inspect.getsource(_arraytypes))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef)
               and n.name == "GeneratedMembers")
    names = set()
    for n in cls.body:
        if isinstance(n, ast.FunctionDef):
            names.add(n.name)
        elif isinstance(n, ast.AnnAssign):
            names.add(n.target.id)
    return names


def test_the_declarations_are_the_generated_members():
    cls = gpuarr.GPUArray
    body = set(ast.walk(ast.parse(inspect.getsource(_array))))
    written = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    # attached at import time: in the class's dict, not written in its body
    # under their own name (the tables' closures have other names)
    generated = set()
    for name, value in vars(cls).items():
        if name in ("__array_ufunc__", "__array_function__"):
            continue                    # numpy's protocols: typed by numpy
        qual = getattr(value, "__qualname__", "")
        fget = getattr(value, "fget", None)
        if isinstance(value, property) and fget is not None \
                and fget.__name__ == "<lambda>":
            generated.add(name)
        elif callable(value) and qual == "GPUArray." + name \
                and (name not in written or value.__code__.co_name != name):
            generated.add(name)
    slots = {s for s in cls.__slots__ if not s.startswith("_")}
    assert generated | slots == _declared() - {"__weakref__"}


def _mypy(path):
    # errors inside gpuarr are not the question (a user sees its API, and
    # mypy reports nothing in installed packages): --follow-imports=silent
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                           "--follow-imports=silent",
                           path], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def test_mypy_sees_the_public_api(tmp_path):
    pytest.importorskip("mypy")
    r = _mypy(os.path.join(ROOT, "tests", "typing", "check_api.py"))
    assert r.returncode == 0, r.stdout + r.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("import gpuarr\ngpuarr.sinn\n"
                   "x: gpuarr.GPUArray = gpuarr.zeros(3)\nx.shappe\n")
    r = _mypy(str(bad))
    assert r.returncode == 1
    assert 'Module has no attribute "sinn"' in r.stdout, r.stdout
    assert '"GPUArray" has no attribute "shappe"' in r.stdout, r.stdout
