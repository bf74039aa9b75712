"""Write ``gpuarr/__init__.pyi``, the flat namespace as type checkers see
it.  ``gpuarr/__init__.py`` imports each name at its first use (PEP 562),
which static tools cannot follow; the stub names where each comes from.

    python scripts/gen_init_stub.py          # rewrite the stub
    python scripts/gen_init_stub.py --check  # exit 1 if it is out of date

Run from the checkout's root with gpuarr importable; the CPU tests run the
check.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUB = os.path.join(ROOT, "gpuarr", "__init__.pyi")


def render():
    import gpuarr
    lines = ['"""Type stub of gpuarr\'s flat namespace; written by',
             'scripts/gen_init_stub.py from the table in __init__.py (do not',
             'edit by hand)."""', "", "__version__: str", ""]
    by_module = {}
    aliases = []
    for name, (module, attr) in sorted(gpuarr._NAMES.items()):
        if name != attr:
            # "import X as Y" re-exports only when Y is X (PEP 484): an
            # alias is an assignment
            by_module.setdefault(module, []).append((attr, "_" + name))
            aliases.append("%s = _%s" % (name, name))
        else:
            by_module.setdefault(module, []).append((attr, name))
    for module in sorted(by_module):
        pairs = sorted(by_module[module], key=lambda p: p[1])
        lines.append("from %s import (" % module)
        lines += ["    %s as %s," % p for p in pairs]
        lines.append(")")
    lines += aliases
    lines.append("from gpuarr import (")
    lines += ["    %s as %s," % (m, m) for m in sorted(gpuarr._SUBMODULES)]
    lines.append(")")
    lines += ["", "__all__: list[str]", ""]
    return "\n".join(lines)


def write_or_check(path, text, script, argv):
    """Write ``text`` to the stub at ``path``, or with ``--check`` in
    ``argv`` compare them: 1 (and a line naming ``script``) when they
    differ, else 0.  Shared with scripts/gen_driver_stub.py."""
    if "--check" in argv:
        with open(path) as f:
            if f.read() != text:
                print("%s is out of date: run python scripts/%s"
                      % (os.path.relpath(path, ROOT), script))
                return 1
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0


def main(argv):
    return write_or_check(STUB, render(), "gen_init_stub.py", argv)


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    sys.exit(main(sys.argv[1:]))
