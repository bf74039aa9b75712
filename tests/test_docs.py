"""CPU tests of the documentation site's sources: the tutorial's code
blocks are valid Python, and the API reference's pages (docs/_apigen.py)
list every public name of every public module once, numpy's re-exported
objects left to numpy's documentation.  The site itself is built by CI
(``sphinx-build -W``), which needs Sphinx; these tests do not."""
import importlib
import inspect
import os
import sys

import pytest

from _docblocks import DOCS, python_blocks

sys.path.insert(0, DOCS)
import _apigen  # noqa: E402


def test_tutorial_blocks_are_python():
    blocks = python_blocks("tutorial.md")
    assert len(blocks) == 7
    for k, b in enumerate(blocks):
        compile(b, "tutorial.md block %d" % k, "exec")


@pytest.mark.parametrize("modname", [m for m, _ in _apigen.MODULES])
def test_reference_lists_every_public_name(modname):
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None) or [
        n for n in dir(mod) if not n.startswith("_")]
    listed = dict(_apigen.public_names(modname))
    for n in names:
        obj = getattr(mod, n)
        if inspect.ismodule(obj):
            continue
        mine = getattr(obj, "__module__", "gpuarr") or "gpuarr"
        if mine.split(".")[0] == "gpuarr" or not inspect.isclass(obj):
            assert n in listed, n
        else:                           # numpy's scalar types, LinAlgError
            assert n not in listed, n


def test_each_class_gets_one_page(tmp_path):
    _apigen.write_pages(str(tmp_path))
    seen = {}
    for m, _ in _apigen.MODULES:
        text = (tmp_path / (m + ".rst")).read_text()
        entries = [l.strip() for l in text.split(".. autosummary::")[1]
                   .split("\n\n", 2)[1].splitlines() if l.strip()]
        mod = importlib.import_module(m)
        for n in entries:
            obj = getattr(mod, n)
            if inspect.isclass(obj):
                assert id(obj) not in seen, (m, n, seen.get(id(obj)))
                seen[id(obj)] = (m, n)
    import gpuarr
    assert seen[id(gpuarr.GPUArray)] == ("gpuarr", "GPUArray")
    index = (tmp_path / "index.rst").read_text()
    assert all("   %s" % m in index for m, _ in _apigen.MODULES)
    # rewritten only where they changed
    before = os.stat(tmp_path / "index.rst").st_mtime_ns
    _apigen.write_pages(str(tmp_path))
    assert os.stat(tmp_path / "index.rst").st_mtime_ns == before


def test_no_docstring_keeps_a_piece_marker():
    """Docstrings that share pieces (gpuarr._reducecore.shared_doc) have
    every ``$NAME`` line filled in."""
    import re
    marker = re.compile(r"^\s*\$[A-Z_]+\s*$", re.M)
    for modname, _ in _apigen.MODULES:
        for name, obj in _apigen.public_names(modname):
            doc = getattr(obj, "__doc__", None) or ""
            assert not marker.search(doc), "%s.%s" % (modname, name)
