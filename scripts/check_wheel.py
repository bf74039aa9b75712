"""Check a built gpuarr wheel's contents (CI runs it on the wheel it tests).

    python scripts/check_wheel.py dist/gpuarr-*.whl

Fails (exit 1, naming each problem) when the wheel ships tests, Cython's
generated C, benchmarks or build leftovers; when it lacks the extension,
the Mako templates, the built-in headers' directory (if the source tree has
one), ``py.typed`` and ``__init__.pyi`` (if the source tree has them), the
license file or the license in METADATA; or when the
extension is over 2 MiB (it is linked stripped: 1.3 MB with the whole
driver API of issue 12; with symbols it is several times that).
"""
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_EXTENSION = 2 << 20


def problems(path):
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        meta = [z.read(i).decode("utf-8", "replace") for i in infos
                if i.filename.endswith(".dist-info/METADATA")]
    names = [i.filename for i in infos]
    out = []
    for n in names:
        top = n.split("/", 1)[0]
        if top in ("tests", "benchmarks", "scripts", "build", "docs"):
            out.append("ships %s" % n)
        if n.endswith(".c") or n.endswith(".o") or "__pycache__" in n:
            out.append("ships %s" % n)
    exts = [i for i in infos if i.filename.startswith("gpuarr/_driver.")
            and i.filename.endswith((".so", ".pyd"))]
    if not exts:
        out.append("no gpuarr/_driver extension")
    for i in exts:
        if i.file_size > MAX_EXTENSION:
            out.append("%s is %d bytes (over %d: not stripped?)"
                       % (i.filename, i.file_size, MAX_EXTENSION))
    kernels = os.path.join(HERE, "gpuarr", "kernels")
    for t in sorted(os.listdir(kernels)):
        if t.endswith(".mako") and "gpuarr/kernels/" + t not in names:
            out.append("template gpuarr/kernels/%s missing" % t)
    include = os.path.join(HERE, "gpuarr", "include")
    if os.path.isdir(include):
        for root, _, files in os.walk(include):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), HERE)
                if rel.replace(os.sep, "/") not in names:
                    out.append("header %s missing" % rel)
    if os.path.exists(os.path.join(HERE, "gpuarr", "py.typed")) \
            and "gpuarr/py.typed" not in names:
        out.append("gpuarr/py.typed missing")
    if os.path.exists(os.path.join(HERE, "gpuarr", "__init__.pyi")) \
            and "gpuarr/__init__.pyi" not in names:
        out.append("gpuarr/__init__.pyi missing (the flat namespace's stub)")
    if not any(n.endswith("LICENSE") and ".dist-info/" in n for n in names):
        out.append("no LICENSE in the dist-info")
    # PEP 639's SPDX expression (setuptools 77 and newer, as pip's isolated
    # builds use), or the License field of an older setuptools
    lines = meta[0].splitlines() if meta else []
    if "License-Expression: MIT" not in lines and "License: MIT" not in lines:
        out.append("METADATA names no license (License-Expression: MIT)")
    return out


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = problems(argv[0])
    for p in found:
        print("wheel: " + p)
    print("wheel %s: %s" % (os.path.basename(argv[0]),
                            "%d problems" % len(found) if found else "ok"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
