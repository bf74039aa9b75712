"""Write ``gpuarr/_driver.pyi``, the type stub of the compiled driver
binding (a Cython extension, which type checkers cannot read).

    python scripts/gen_driver_stub.py          # rewrite the stub
    python scripts/gen_driver_stub.py --check  # exit 1 if it is out of date

Names, parameter names, kinds and defaults come from the extension itself
(``inspect.signature``); return types from each docstring's numpydoc
``Returns`` section, where they name a builtin, a numpy array or a class of
the binding, else ``Any``.  Parameters are typed ``Any``: the binding takes
numpy integers, allocations, buffers and other libraries' objects where a
narrower type would refuse them.  Run from the checkout's root with the
extension built; the CPU tests run the check.
"""
import inspect
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUB = os.path.join(ROOT, "gpuarr", "_driver.pyi")

_SIMPLE = {"none": "None", "int": "int", "bool": "bool", "str": "str",
           "float": "float", "bytes": "bytes", "numpy.ndarray": "np.ndarray",
           "ndarray": "np.ndarray", "tuple of int": "tuple[int, ...]",
           "tuple of ints": "tuple[int, ...]", "tuple": "tuple[Any, ...]",
           "list": "list[Any]", "dict": "dict[Any, Any]"}


def _source_returns():
    """``{(class or None, function): whether it returns a value}`` read off
    the binding's Cython sources (a ``def`` with no ``return <value>`` in
    its body returns None)."""
    src = os.path.join(ROOT, "gpuarr")
    found = {}
    for f in sorted(os.listdir(src)):
        if not (f.startswith("_driver") and f.endswith((".pyx", ".pxi"))):
            continue
        cls, cur, indent = None, None, 0
        for line in open(os.path.join(src, f), encoding="utf-8"):
            m = re.match(r"(cdef )?class (\w+)", line)
            if m:
                cls = m.group(2)
                continue
            m = re.match(r"( *)(?:cp)?def (\w+)\(", line)
            if m and len(m.group(1)) in (0, 4):
                if not m.group(1):
                    cls = None
                cur = (cls if m.group(1) else None, m.group(2))
                indent = len(m.group(1))
                found.setdefault(cur, False)
                continue
            if cur and line.strip() and len(line) - len(line.lstrip()) <= indent \
                    and not line.lstrip().startswith(("#", ")")):
                cur = None
            if cur and re.match(r"\s+return\s+\S", line):
                found[cur] = True
    return found


_RETURNS = None


def _returns(doc, classes, key=None):
    """The annotation of a docstring's first Returns entry (``self``'s
    class where the text says it returns ``self``; None where the source
    returns no value)."""
    global _RETURNS
    if _RETURNS is None:
        _RETURNS = _source_returns()
    if key is not None and _RETURNS.get(key) is False:
        return "None"
    if not doc:
        return "Any"
    if key is not None and key[0] and "Returns ``self``" in doc:
        return key[0]
    lines = inspect.cleandoc(doc).split("\n")
    for k, line in enumerate(lines[:-2]):
        if line.strip() == "Returns" and set(lines[k + 1].strip()) == {"-"}:
            entry = lines[k + 2].strip()
            break
    else:
        return "Any"
    m = re.match(r"\((.+)\)$", entry)
    if m:                               # "(DeviceAllocation, int)"
        parts = [_returns("Returns\n-------\n" + p.strip(), classes)
                 for p in m.group(1).split(",")]
        return "tuple[%s]" % ", ".join(parts)
    if " : " in entry:                  # "name : type"
        entry = entry.split(" : ", 1)[1]
    entry = re.sub(r":\w+:`~?([\w.]+)`", r"\1", entry).strip("` ")
    entry = re.sub(r",? *optional$", "", entry)
    none = entry.endswith(" or None")
    if none:
        entry = entry[:-len(" or None")]
    ann = _SIMPLE.get(entry.lower())
    if ann is None:
        name = entry.split(".")[-1]
        if name in classes and entry in (name, "gpuarr.driver." + name):
            ann = name
    if ann is None:
        return "Any"
    return ann + " | None" if none and ann != "None" else ann


def _params(fn, method):
    """The parameter list of a stub ``def``, every parameter ``Any``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return ("self, " if method else "") + "*args: Any, **kwargs: Any"
    out = []
    star = False
    for k, p in enumerate(sig.parameters.values()):
        if method and k == 0:
            out.append(p.name)
            continue
        if p.kind is p.VAR_POSITIONAL:
            out.append("*%s: Any" % p.name)
            star = True
        elif p.kind is p.VAR_KEYWORD:
            out.append("**%s: Any" % p.name)
        else:
            if p.kind is p.KEYWORD_ONLY and not star:
                out.append("*")
                star = True
            default = "" if p.default is p.empty else " = ..."
            out.append("%s: Any%s" % (p.name, default))
    if method and not out:
        out.append("self")
    return ", ".join(out)


def _class(name, cls, classes):
    lines = ["class %s:" % name]
    try:
        init = inspect.signature(cls)
        params = ", ".join(["self"] + [
            ("*%s: Any" % p.name) if p.kind is p.VAR_POSITIONAL else
            ("**%s: Any" % p.name) if p.kind is p.VAR_KEYWORD else
            "%s: Any%s" % (p.name, "" if p.default is p.empty else " = ...")
            for p in init.parameters.values()])
    except (TypeError, ValueError):
        params = "self, *args: Any, **kwargs: Any"
    lines.append("    def __init__(%s) -> None: ..." % params)
    for attr in sorted(vars(cls)):
        if attr in ("__init__", "__new__", "__doc__", "__module__",
                    "__pyx_vtable__", "__reduce_cython__",
                    "__setstate_cython__", "__dict__", "__weakref__",
                    # the buffer protocol's Python face exists from 3.12
                    # on: the stub is the same on every Python
                    "__buffer__", "__release_buffer__"):
            continue
        if attr.startswith("_") and not (attr.startswith("__")
                                         and attr.endswith("__")):
            continue
        raw = inspect.getattr_static(cls, attr)
        value = getattr(cls, attr)
        if isinstance(raw, staticmethod):
            lines.append("    @staticmethod")
            lines.append("    def %s(%s) -> %s: ..." % (
                attr, _params(value, False),
                _returns(value.__doc__, classes, (name, attr))))
        elif isinstance(raw, classmethod):
            lines.append("    @classmethod")
            lines.append("    def %s(%s) -> %s: ..." % (
                attr, _params(value, True),
                _returns(value.__doc__, classes, (name, attr))))
        elif callable(raw) and not inspect.isclass(raw):
            if attr == "__hash__" and raw is None:
                continue
            lines.append("    def %s(%s) -> %s: ..." % (
                attr, _params(value, True),
                _returns(raw.__doc__, classes, (name, attr))))
        elif inspect.isdatadescriptor(raw) or isinstance(raw, property):
            lines.append("    %s: Any" % attr)
        elif isinstance(raw, (int, float, str, bool)):
            lines.append("    %s: %s" % (attr, type(raw).__name__))
        else:
            lines.append("    %s: Any" % attr)
    return lines


def render():
    from gpuarr import _driver
    names = [n for n in dir(_driver) if not n.startswith("_")]
    classes = {n for n in names if inspect.isclass(getattr(_driver, n))
               and not issubclass(getattr(_driver, n), int)}
    out = ['"""Type stub of gpuarr._driver (the Cython driver binding);',
           'written by scripts/gen_driver_stub.py (do not edit by hand)."""',
           "", "from typing import Any", "", "import numpy as np", ""]
    for n in names:
        obj = getattr(_driver, n)
        if inspect.ismodule(obj):
            continue
        if n in classes:
            if issubclass(obj, BaseException) or \
                    getattr(obj, "__module__", "") != "gpuarr._driver":
                out.append("%s: Any" % n)       # re-exported from elsewhere
            else:
                out += [""] + _class(n, obj, classes) + [""]
        elif callable(obj) and not inspect.isclass(obj):
            out.append("def %s(%s) -> %s: ..." % (
                n, _params(obj, False),
                _returns(obj.__doc__, classes, (None, n))))
        elif isinstance(obj, (int, float, str, bool)):
            out.append("%s: %s" % (n, type(obj).__name__))
        else:
            out.append("%s: Any" % n)
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


def main(argv):
    from gen_init_stub import write_or_check
    return write_or_check(STUB, render(), "gen_driver_stub.py", argv)


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    sys.exit(main(sys.argv[1:]))
