"""Check the public API's docstrings with numpydoc's validator.

    python scripts/check_docstrings.py [--all-codes] [module ...]

Every public name of the API reference's modules (``docs/_apigen.py``:
each module's ``__all__``, numpy's re-exported objects left out; a class
once, where its reference page is) is validated.  The codes that fail the
check are the ones gpuarr keeps at zero: GL08 (no docstring), PR01 (a
parameter not documented), PR02 (a documented parameter that does not
exist), RT01 (no Returns section where the function returns something).
``--all-codes`` also lists numpydoc's other findings (not failing).
Prints ``module.name: CODE message`` lines and a count; exit status 1
when a failing code is found.  Needs numpydoc (docs/requirements.txt) and
gpuarr importable (installed or built in place); no GPU.
"""
import collections
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "docs"))

import _apigen  # noqa: E402
from numpydoc.validate import validate  # noqa: E402

FAILING = ("GL08", "PR01", "PR02", "RT01")


def findings(modules=None):
    """``(qualified name, code, message)`` for each public object."""
    seen = set()
    out = []
    for modname, _ in _apigen.MODULES:
        if modules and modname not in modules:
            continue
        for name, obj in _apigen.public_names(modname):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if not (callable(obj) or inspect.isclass(obj)):
                continue                # constants: no docstring of their own
            qual = "%s.%s" % (modname, name)
            for code, msg in validate(qual)["errors"]:
                out.append((qual, code, msg))
    return out


def main(argv):
    every = "--all-codes" in argv
    modules = [a for a in argv if not a.startswith("--")]
    found = findings(modules)
    bad = [f for f in found if f[1] in FAILING]
    for qual, code, msg in (found if every else bad):
        print("%s: %s %s" % (qual, code, msg))
    counts = collections.Counter(code for _, code, _ in bad)
    print("docstrings: %d failing (%s)" % (
        len(bad), ", ".join("%s %d" % kv for kv in sorted(counts.items()))
        or "none"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
