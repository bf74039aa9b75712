"""The package's structure, checked on the CPU against ``gpuarr._layers``:

* every module is in the table, and every table entry is a module;
* no import points to a higher layer, at module level or in a function,
  through an import statement, ``importlib.import_module`` or
  ``__import__``; a computed module name only in the flat namespace;
* no module imports or reads another gpuarr module's private name;
* no source file is over 800 lines.

The sources are read from the installed package (what the tests import), and
``docs/architecture.md`` from the checkout when it is there.
"""
import ast
import os
import re

import pytest

import gpuarr
from gpuarr import _layers

PKG = os.path.dirname(os.path.abspath(gpuarr.__file__))
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    "docs", "architecture.md")
MAX_LINES = 800
#: modules allowed an import of a computed name, and why
COMPUTED_IMPORTS = {
    "gpuarr": "the flat namespace imports each name's module on first use",
    "gpuarr._cache": "CPython's built-in sha256 module, whose name varies",
}


def _modules():
    """dotted module name -> source path, for every module of the package."""
    found = {}
    for root, dirs, files in os.walk(PKG):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(root, os.path.dirname(PKG)).replace(os.sep, ".")
        for f in files:
            if f.endswith(".py"):
                stem = f[:-3]
                name = rel if stem == "__init__" else rel + "." + stem
                found[name] = os.path.join(root, f)
            elif f.endswith((".pyx", ".pxd")):
                found.setdefault(rel + "." + f[:-4], os.path.join(root, f))
    return found


MODULES = _modules()
PY_MODULES = {m: p for m, p in MODULES.items() if p.endswith(".py")}


def test_the_table_names_every_module_and_only_modules():
    assert set(MODULES) == set(_layers.LAYERS), (
        "missing from gpuarr._layers.LAYERS: %s; in the table but not in "
        "the package: %s" % (sorted(set(MODULES) - set(_layers.LAYERS)),
                             sorted(set(_layers.LAYERS) - set(MODULES))))
    for name, (layer, what) in _layers.LAYERS.items():
        assert layer in _layers.LAYER_NAMES and what, name


def _package_of(module, path):
    return module if path.endswith("__init__.py") else module.rpartition(".")[0]


def _resolve(module, path, level, target):
    """The absolute name of a (possibly relative) import target."""
    if not level:
        return target
    base = _package_of(module, path)
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return base + ("." + target if target else "")


def _gpuarr_module(name):
    """The table's module that ``name`` lies in (``gpuarr.kernels.ops.X``
    -> ``gpuarr.kernels.ops``), or None outside gpuarr."""
    while name:
        if name in _layers.LAYERS:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module, path):
    """(line, target module, imported name or None, how) of every import
    in the file, and the local names bound to gpuarr modules."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    out = []
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append((node.lineno, a.name, None, "import"))
                if a.asname and _gpuarr_module(a.name) == a.name:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node.level, node.module or "")
            for a in node.names:
                sub = base + "." + a.name
                if sub in _layers.LAYERS:       # a submodule
                    out.append((node.lineno, sub, None, "from-import"))
                    aliases[a.asname or a.name] = sub
                else:
                    out.append((node.lineno, base, a.name, "from-import"))
        elif isinstance(node, ast.Call):
            f = node.func
            fname = (f.attr if isinstance(f, ast.Attribute)
                     else f.id if isinstance(f, ast.Name) else None)
            if fname in ("import_module", "__import__"):
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.append((node.lineno, arg.value, None, fname))
                else:
                    out.append((node.lineno, None, None, fname))
    return tree, out, aliases


def _upward(module, path):
    """The imports of the file at ``path`` (module ``module``) that point to
    a higher layer, or use a computed name where that is not allowed."""
    own = _layers.layer(module)
    _, imports, _ = _imports(module, path)
    bad = []
    for line, target, _, how in imports:
        if target is None:
            if module not in COMPUTED_IMPORTS:
                bad.append("line %d: %s with a computed name" % (line, how))
            continue
        tmod = _gpuarr_module(target)
        if tmod is not None and _layers.layer(tmod) > own:
            bad.append("line %d: %s %s (layer %d) from layer %d"
                       % (line, how, target, _layers.layer(tmod), own))
    return bad


@pytest.mark.parametrize("module", sorted(PY_MODULES))
def test_imports_point_down(module):
    bad = _upward(module, PY_MODULES[module])
    assert not bad, "%s imports upward:\n  %s" % (module, "\n  ".join(bad))


def test_the_extension_imports_point_down():
    """The Cython driver (layer 1) imports only layer-0 modules."""
    for module, path in MODULES.items():
        if not path.endswith(".pyx"):
            continue
        own = _layers.layer(module)
        srcs = [path] + [os.path.join(os.path.dirname(path), f)
                         for f in os.listdir(os.path.dirname(path))
                         if f.endswith(".pxi")]
        for p in srcs:
            text = open(p, encoding="utf-8").read()
            for m in re.finditer(r"^\s*(?:from\s+(\S+)\s+c?import\s+([\w, ]+)"
                                 r"|c?import\s+(\S+))", text, re.M):
                base = m.group(1) or m.group(3)
                if base.startswith("."):
                    base = "gpuarr" + base
                names = [n.strip().split(" ")[0]
                         for n in (m.group(2) or "").split(",") if n.strip()]
                subs = [base + "." + n for n in names
                        if base + "." + n in _layers.LAYERS]
                for target in subs or [base]:
                    tmod = _gpuarr_module(target)
                    assert tmod is None or _layers.layer(tmod) <= own, \
                        (p, target)


def _private(module, path):
    """The reads of other gpuarr modules' private names in the file."""
    tree, imports, aliases = _imports(module, path)
    bad = []
    for line, target, name, _ in imports:
        tmod = _gpuarr_module(target or "")
        if (tmod is not None and tmod != module and name
                and name.startswith("_") and not name.startswith("__")):
            bad.append("line %d: from %s import %s" % (line, target, name))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and aliases[node.value.id] != module
                and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            bad.append("line %d: %s.%s (%s)" % (node.lineno, node.value.id,
                                                node.attr,
                                                aliases[node.value.id]))
    return bad


@pytest.mark.parametrize("module", sorted(PY_MODULES))
def test_no_private_names_across_modules(module):
    bad = _private(module, PY_MODULES[module])
    assert not bad, "%s reaches into private names:\n  %s" % (
        module, "\n  ".join(bad))


def _sources():
    for root, dirs, files in os.walk(PKG):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith((".py", ".pyx", ".pxi", ".pxd", ".mako")):
                yield os.path.join(root, f)


def test_files_are_at_most_800_lines():
    long = []
    for p in _sources():
        with open(p, encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > MAX_LINES:
            long.append("%s: %d lines" % (os.path.relpath(p, PKG), n))
    assert not long, "files over %d lines:\n  %s" % (MAX_LINES, "\n  ".join(long))


def test_the_checks_can_fail(tmp_path):
    """A layer-0 module that imports the array layer inside a function and
    through importlib, imports with a computed name, and reads a private
    name: every rule above reports it."""
    src = tmp_path / "probe.py"
    src.write_text(
        "import importlib\n"
        "from . import _ufunc as u\n"
        "from .reductions import _np_dtype\n"
        "def f(name):\n"
        "    from .gpuarray import GPUArray\n"
        "    importlib.import_module('gpuarr.cumath')\n"
        "    importlib.import_module(name)\n"
        "    return u._HOT\n")
    up = "\n".join(_upward("gpuarr._dtypes", str(src)))
    for what in ("gpuarr._ufunc", "gpuarr.gpuarray", "gpuarr.cumath",
                 "gpuarr.reductions", "computed name"):
        assert what in up, (what, up)
    private = "\n".join(_private("gpuarr._dtypes", str(src)))
    assert "u._HOT" in private and "_np_dtype" in private, private


@pytest.mark.skipif(not os.path.exists(DOCS), reason="docs/architecture.md is "
                    "not next to these tests (installed tests)")
def test_the_architecture_map_names_every_module():
    text = open(DOCS, encoding="utf-8").read()
    missing = [m for m in _layers.LAYERS if "`%s`" % m not in text]
    assert not missing, "docs/architecture.md does not mention %s" % missing
